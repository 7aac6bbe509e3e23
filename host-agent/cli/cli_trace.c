// SPDX-License-Identifier: GPL-2.0
/*
 * cli_trace.c - the commands that read stored traces: report (report.c)
 * and timeline (timeline.c), without an agent; `report --follow VM`
 * asks the agent where the VM's session is (status) and follows it
 * (report_follow.c)
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk.h"
#include "cli_trace.h"
#include "client.h"
#include "report.h"
#include "guestrelay_abi.h"
#include "steal.h"
#include "timeline.h"

/* ---- report --follow VM ------------------------------------------------ */

static volatile sig_atomic_t follow_stop;

static void follow_signal(int sig)
{
	(void)sig;
	follow_stop = 1;
}

/**
 * struct follow_ask - what gr_report_follow() asks the agent through
 * @cli: the run directory and time limit
 * @vm: the VM followed
 * @asked: the agent answered once (after that, not reaching it means
 *	"not known now": it may be restarting)
 */
struct follow_ask {
	const struct cli *cli;
	const char *vm;
	bool asked;
};

/* gr_follow_ask_fn: `status VM` for its session and switch timer */
static int follow_where(void *arg, char *dir, size_t len, uint32_t *timer_us)
{
	struct follow_ask *fa = arg;
	char *argv[] = { (char *)fa->vm };
	struct ctl_answer ans;
	json_t *root = NULL, *vm, *v;
	const char *chunk;
	int ret;

	ret = ctl_client_call(fa->cli->run_dir, fa->cli->timeout * 1000, true,
			      "status", 1, argv, NULL, &ans);
	if (ret || ans.error) {
		if (!fa->asked)
			cli_err("%s", ret ? ans.why : ans.body);
		ctl_answer_free(&ans);
		if (!fa->asked)
			return ret ? ret : -ENOENT;
		/* the agent away: keep on; the VM gone: no session */
		if (ret)
			return 1;
		dir[0] = '\0';
		*timer_us = 0;
		return 0;
	}
	root = json_loadb(ans.body, ans.len, 0, NULL);
	ctl_answer_free(&ans);
	vm = root;
	if (json_is_object(root) && json_is_array(json_object_get(root, "vms")))
		vm = json_array_get(json_object_get(root, "vms"), 0);
	if (!json_is_object(vm)) {
		json_decref(root);
		if (!fa->asked)
			cli_err("the agent's status of %s is not JSON", fa->vm);
		return fa->asked ? 1 : -EPROTO;
	}
	v = json_object_get(vm, "session");
	snprintf(dir, len, "%s", json_is_string(v) ? json_string_value(v) : "");
	/* a session kept in chunks: the chunk being written, "<session>/ID" */
	v = json_object_get(json_object_get(vm, "chunks"), "active");
	chunk = json_is_string(v) ? strchr(json_string_value(v), '/') : NULL;
	if (dir[0] && chunk)
		snprintf(dir + strlen(dir), len - strlen(dir), "%s", chunk);
	v = json_object_get(vm, "switch_timer_us");
	*timer_us = json_is_integer(v) && json_integer_value(v) > 0 &&
		    json_integer_value(v) <= UINT32_MAX ?
		    (uint32_t)json_integer_value(v) : 0;
	json_decref(root);
	fa->asked = true;
	return 0;
}

/* `report --follow VM`: until SIGINT or SIGTERM */
static int report_follow(struct cli *cli, const char *vm,
			 const struct gr_report_opts *ro)
{
	struct follow_ask fa = { .cli = cli, .vm = vm };
	struct sigaction sa;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = follow_signal;	/* no SA_RESTART: sleeps end */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ret = gr_report_follow(follow_where, &fa, stdout, stderr, ro,
			       &follow_stop);
	if (ret == -EIO)
		cli_err("writing the report: %s", strerror(errno));
	return ret ? 1 : 0;
}

/*
 * a session directory kept in chunks (no trace of its own, its chunks
 * are; their host streams do not read as one with the guest's): steal
 * and report --host name one chunk; true if @dir is one (said on stderr)
 */
static bool chunked_session(const char *dir)
{
	char name[GR_CHUNK_NAME_MAX];
	struct stat st;
	uint64_t id;
	bool ret;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ret = faccessat(fd, GR_CHUNK_INFO, F_OK, 0) &&
	      ((!fstatat(fd, GR_CHUNK_ARCHIVES, &st, 0) && S_ISDIR(st.st_mode)) ||
	       !chunk_find_active(fd, name, sizeof(name), &id));
	close(fd);
	if (ret)
		cli_err("%s: a session kept in chunks: name one of its chunks, "
			"%s/%s/BEGIN-END-ID (closed) or %s/BEGIN-ID (being "
			"written); each holds its guest trace and host/", dir,
			dir, GR_CHUNK_ARCHIVES, dir);
	return ret;
}

int cli_run_report(struct cli *cli, const struct cli_cmd *cmd, int argc,
		     char **argv)
{
	const char *cpu = NULL, *events = NULL;
	bool host_time = false, summary = false, follow = false, host = false;
	struct gr_report_opts ro = { .cpu = -1 };
	const struct cli_opt opts[] = {
		{ "--cpu", &cpu, NULL },
		{ "--events", &events, NULL },
		{ "--host-time", NULL, &host_time },
		{ "--host", NULL, &host },
		{ "--summary", NULL, &summary },
		{ "--follow", NULL, &follow },
		{ NULL, NULL, NULL },
	};
	char *pos[1], *end;
	long v;
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 1, &n);
	if (ret)
		return ret;
	if (cli->json)
		return usage_err(cmd, "report prints text only; babeltrace2 "
				 "reads the trace directory for other "
				 "formats");
	if (cpu) {
		errno = 0;
		v = strtol(cpu, &end, 10);
		if (errno || *end || end == cpu || v < 0 ||
		    v >= GR_MAX_RINGS)
			return usage_err(cmd, "--cpu wants a CPU number from "
					 "0 to %d, not '%s'",
					 GR_MAX_RINGS - 1, cpu);
		ro.cpu = (int)v;
	}
	ro.events = events;
	ro.host_time = host_time;
	if (summary && (cpu || events || host_time))
		return usage_err(cmd, "--summary covers the whole trace; it "
				 "takes no --cpu, --events or --host-time");
	if (host && (follow || host_time))
		return usage_err(cmd, "--host prints a stored session on the "
				 "host's clock; it takes no --follow or "
				 "--host-time");
	if (follow && summary)
		return usage_err(cmd, "--follow prints events as they come; "
				 "--summary needs the whole trace");
	if (follow) {
		ret = check_vm(cmd, pos[0]);
		return ret ? ret : report_follow(cli, pos[0], &ro);
	}
	/* a fatal problem is said once, by the report, on stderr */
	if (host && chunked_session(pos[0]))
		return 1;
	if (host)
		ret = gr_report_host(pos[0], stdout, stderr, &ro, summary);
	else
		ret = summary ? gr_report_summary(pos[0], stdout, stderr) :
		      gr_report(pos[0], stdout, stderr, &ro);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("writing the report: %s", strerror(errno));
		return 1;
	}
	if (ret < 0)
		return 1;
	if (ret > 0)
		cli_err("%s: %d damaged spot%s (the lines with **)", pos[0],
			ret, ret == 1 ? "" : "s");
	return 0;
}

/* `guestrelay timeline`: traces as an SVG or HTML picture (timeline.h) */
int cli_run_timeline(struct cli *cli, const struct cli_cmd *cmd, int argc,
			char **argv)
{
	const char *outp = NULL, *from = NULL, *to = NULL, *width = NULL;
	struct gr_tl_opts to_opts = { .width = GR_TL_WIDTH_DEFAULT };
	bool latency = false;
	const struct cli_opt opts[] = {
		{ "-o", &outp, NULL },
		{ "--from", &from, NULL },
		{ "--to", &to, NULL },
		{ "--width", &width, NULL },
		{ "--latency", NULL, &latency },
		{ NULL, NULL, NULL },
	};
	char *pos[GR_TL_MAX_TRACES], *end;
	struct gr_tl_stats st;
	size_t len;
	FILE *f;
	long w;
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, GR_TL_MAX_TRACES, &n);
	if (ret)
		return ret;
	if (cli->json)
		return usage_err(cmd, "timeline draws a picture; --json does "
				 "not apply");
	len = outp ? strlen(outp) : 0;
	if (len > 4 && !strcmp(outp + len - 4, ".svg"))
		to_opts.html = 0;
	else if (len > 5 && !strcmp(outp + len - 5, ".html"))
		to_opts.html = 1;
	else
		return usage_err(cmd, "-o FILE.svg or -o FILE.html is needed");
	if (width) {
		errno = 0;
		w = strtol(width, &end, 10);
		if (errno || *end || end == width || w < GR_TL_WIDTH_MIN ||
		    w > GR_TL_WIDTH_MAX)
			return usage_err(cmd, "--width wants %d to %d pixels, "
					 "not '%s'", GR_TL_WIDTH_MIN,
					 GR_TL_WIDTH_MAX, width);
		to_opts.width = (unsigned int)w;
	}
	if (from) {
		errno = 0;
		to_opts.from = strtod(from, &end);
		if (errno || *end || end == from || to_opts.from < 0)
			return usage_err(cmd, "--from wants seconds, not '%s'",
					 from);
		to_opts.have_from = 1;
	}
	if (to) {
		errno = 0;
		to_opts.to = strtod(to, &end);
		if (errno || *end || end == to || to_opts.to < 0)
			return usage_err(cmd, "--to wants seconds, not '%s'", to);
		to_opts.have_to = 1;
	}
	to_opts.latency = latency;
	f = fopen(outp, "w");
	if (!f) {
		cli_err("cannot write %s: %s", outp, strerror(errno));
		return 1;
	}
	/* a fatal problem is said once, by gr_timeline(), on stderr */
	ret = gr_timeline(pos, (unsigned int)n, f, &to_opts, &st, stderr);
	if (fclose(f) && ret >= 0) {
		cli_err("writing %s: %s", outp, strerror(errno));
		ret = -EIO;
	}
	if (ret < 0) {
		unlink(outp);
		return 1;
	}
	printf("%s: %u lane%s, %.6f s, %llu events, %llu slices in %llu "
	       "rectangles (%llu merged), %llu irq, %llu latency and %llu "
	       "loss marks\n", outp, st.lanes, st.lanes == 1 ? "" : "s",
	       (double)(st.t1 - st.t0) / 1e9, (unsigned long long)st.events,
	       (unsigned long long)st.slices, (unsigned long long)st.rects,
	       (unsigned long long)st.merged,
	       (unsigned long long)st.irq_marks,
	       (unsigned long long)st.lat_marks,
	       (unsigned long long)st.loss_marks);
	if (st.host_streams)
		printf("%s: %u host stream%s: %llu marks of vCPUs off their "
		       "host CPU\n", outp, st.host_streams,
		       st.host_streams == 1 ? "" : "s",
		       (unsigned long long)st.off_marks);
	if (ret > 0)
		cli_err("%d damaged spot%s (red marks; guestrelay report "
			"shows them)", ret, ret == 1 ? "" : "s");
	return 0;
}

/* a name from a host stream: printed as it is, but not its bytes */
static void put_name(const char *p)
{
	for (; *p; p++)
		putchar(*p >= 0x20 && *p < 0x7f ? *p : '?');
}

/* a vCPU's time in guest mode and exits by reason, of KVM's events */
static json_t *steal_kvm_json(const struct gr_steal_vcpu *v)
{
	json_t *reasons = json_array();
	unsigned int k;

	for (k = 0; k < v->nreasons; k++)
		json_array_append_new(reasons, json_pack("{s:s,s:I}",
			"reason", v->reasons[k].reason,
			"exits", (json_int_t)v->reasons[k].n));
	return json_pack("{s:I,s:I,s:o}", "guest_ns", (json_int_t)v->guest_ns,
			 "exits", (json_int_t)v->exits, "by_reason", reasons);
}

/* the same as text: one line per vCPU, its 3 most frequent reasons */
static void steal_kvm_text(const struct gr_steal_vcpu *v, int first)
{
	unsigned int k;

	if (first)
		printf("\n%-5s %8s %13s %9s  %s\n", "vCPU", "tid",
		       "in guest ms", "exits", "top exit reasons");
	printf("%-5d %8d %13.3f %9llu ", v->index, v->tid,
	       (double)v->guest_ns / 1e6, (unsigned long long)v->exits);
	for (k = 0; k < v->nreasons && k < 3; k++) {
		putchar(' ');
		put_name(v->reasons[k].reason);
		printf(" %llu", (unsigned long long)v->reasons[k].n);
	}
	putchar('\n');
}

/* `guestrelay steal`: preempted and halted time per vCPU (steal.h) */
int cli_run_steal(struct cli *cli, const struct cli_cmd *cmd, int argc,
		  char **argv)
{
	const struct cli_opt opts[] = { { NULL, NULL, NULL } };
	const struct gr_steal_vcpu *v;
	struct gr_steal *s;
	json_t *root, *arr, *o, *by;
	char *pos[1], idx[16];
	unsigned int i, k;
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 1, &n);
	if (ret)
		return ret;
	if (chunked_session(pos[0]))
		return 1;
	s = malloc(sizeof(*s));
	if (!s)
		return 1;
	ret = gr_steal_read(pos[0], s, stderr);
	if (ret) {
		cli_err("%s: %s", pos[0], ret == -ENOENT ?
			"no host stream (host/) in this trace" : strerror(-ret));
		free(s);
		return 1;
	}
	if (cli->json) {
		root = json_object();
		arr = json_array();
		for (i = 0; i < s->n; i++) {
			v = &s->v[i];
			o = json_pack("{s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:{s:I,s:I,s:i,s:s,s:i}}",
				      "vcpu", v->index, "tid", v->tid,
				      "preempted_ns", (json_int_t)v->preempted_ns,
				      "preemptions", (json_int_t)v->preemptions,
				      "woken_ns", (json_int_t)v->woken_ns,
				      "wakeups", (json_int_t)v->wakeups,
				      "halted_ns", (json_int_t)v->halted_ns,
				      "halts", (json_int_t)v->halts,
				      "longest_preemption",
				      "ns", (json_int_t)v->longest_ns,
				      "at_ns", (json_int_t)v->longest_at,
				      "host_cpu", v->longest_cpu,
				      "ran_instead", v->longest_by,
				      "ran_instead_tid", v->longest_by_tid);
			by = json_array();
			for (k = 0; k < v->nby; k++)
				json_array_append_new(by, json_pack("{s:s,s:I}",
					"comm", v->by[k].comm,
					"preempted_ns", (json_int_t)v->by[k].ns));
			json_object_set_new(o, "ran_instead", by);
			if (s->kvm)
				json_object_set_new(o, "kvm", steal_kvm_json(v));
			json_array_append_new(arr, o);
		}
		json_object_set_new(root, "vcpus", arr);
		json_object_set_new(root, "span_ns",
				    json_integer((json_int_t)(s->last_ts - s->first_ts)));
		json_object_set_new(root, "switches",
				    json_integer((json_int_t)s->switches));
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(root);
		free(s);
		return 0;
	}
	printf("host stream: %.3f s, %llu switches of QEMU's threads\n",
	       (double)(s->last_ts - s->first_ts) / 1e9,
	       (unsigned long long)s->switches);
	printf("%-5s %8s %13s %7s %11s %7s %13s %7s %12s %4s  %s\n", "vCPU",
	       "tid", "preempted ms", "times", "woken ms", "times",
	       "halted ms", "times", "longest ms", "CPU", "ran instead");
	for (i = 0; i < s->n; i++) {
		v = &s->v[i];
		if (v->index < 0)
			snprintf(idx, sizeof(idx), "all");
		else
			snprintf(idx, sizeof(idx), "%d", v->index);
		printf("%-5s %8d %13.3f %7llu %11.3f %7llu %13.3f %7llu %12.3f %4d  ",
		       idx, v->tid, (double)v->preempted_ns / 1e6,
		       (unsigned long long)v->preemptions,
		       (double)v->woken_ns / 1e6,
		       (unsigned long long)v->wakeups,
		       (double)v->halted_ns / 1e6,
		       (unsigned long long)v->halts,
		       (double)v->longest_ns / 1e6, v->longest_cpu);
		put_name(v->longest_by);
		printf(v->longest_ns ? " (%d)\n" : "-\n", v->longest_by_tid);
	}
	if (!s->n)
		printf("(no thread named \"CPU <n>/...\": QEMU needs -name ...,debug-threads=on)\n");
	for (i = 0; s->kvm && i < s->n; i++)
		steal_kvm_text(&s->v[i], !i);
	free(s);
	return 0;
}
