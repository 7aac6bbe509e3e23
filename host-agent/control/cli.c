// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - the guestrelay commands other than `guestrelay agent`
 *
 * Most commands send one request over RUN_DIR/agent.sock (client.c)
 * and print the agent's answer as it comes: the agent formats both the
 * text and the JSON, so every client sees the same output. report,
 * qemu-args, libvirt-xml and help run locally, without an agent;
 * collect and fleet parse their own command lines (fleet/).
 *
 * Global options go before or after the command: --run-dir DIR (default
 * $GUESTRELAY_RUN_DIR, else /run/guestrelay), --json, --timeout SEC.
 * Exit status: 0 done, 1 failed, 2 bad usage.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"
#include "agent.h"
#include "cli.h"
#include "client.h"
#include "collect.h"
#include "fleet_status.h"
#include "filter.h"
#include "ctl_proto.h"
#include "ivshmem_proto.h"
#include "libvirt.h"
#include "opts.h"
#include "out.h"
#include "qemu_args.h"
#include "report.h"
#include "shm.h"
#include "timeline.h"

#define EXIT_USAGE		2
#define CLI_TIMEOUT_DEFAULT	60	/* seconds to wait for an answer */

struct cli;

/**
 * struct cli_cmd - one subcommand
 * @name: as typed
 * @run: does it; @argv holds its arguments without the global options
 * @own_main: instead of @run, for a command that parses its whole command
 *	line itself (argv[0] is its name) and answers its own --help; it
 *	is only run as the first word
 * @usage: one line, after "guestrelay "
 * @help: what it does and its options (for @own_main: what it does, its
 *	--help tells the options)
 */
struct cli_cmd {
	const char *name;
	int (*run)(struct cli *cli, const struct cli_cmd *cmd, int argc,
		   char **argv);
	int (*own_main)(int argc, char **argv);
	const char *usage;
	const char *help;
};

/**
 * struct cli - the global options
 * @run_dir: where agent.sock and the VM sockets are
 * @json: print JSON
 * @timeout: seconds to wait for the agent, 0 = forever
 */
struct cli {
	char run_dir[PATH_MAX];
	bool json;
	unsigned int timeout;
};

static void cli_verr(const char *fmt, va_list ap)
{
	fputs("guestrelay: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void cli_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(fmt, ap);
	va_end(ap);
}

static int usage_err(const struct cli_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_err(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_verr(fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "usage: guestrelay %s\n(guestrelay help %s "
			"tells more)\n", cmd->usage, cmd->name);
	return EXIT_USAGE;
}

/* ---- option parsing of one command ------------------------------------ */

/**
 * struct cli_opt - an option of a command
 * @name: "--size"
 * @val: receives the value of an option with one (NULL: a flag)
 * @flag: set by a flag
 */
struct cli_opt {
	const char *name;
	const char **val;
	bool *flag;
};

/*
 * Sort @argv into options of @opts and positional arguments (at most
 * @max_pos, into @pos). "--opt VALUE" and "--opt=VALUE" both work; "--"
 * ends the options.
 */
static int parse_args(const struct cli_cmd *cmd, int argc, char **argv,
		      const struct cli_opt *opts, char **pos, int min_pos,
		      int max_pos, int *npos)
{
	const struct cli_opt *o;
	bool dashdash = false;
	const char *eq;
	size_t len;
	int i;

	*npos = 0;
	for (i = 0; i < argc; i++) {
		char *arg = argv[i];

		if (dashdash || arg[0] != '-' || !arg[1]) {
			if (*npos == max_pos)
				return usage_err(cmd, "too many arguments "
						 "('%s')", arg);
			pos[(*npos)++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			dashdash = true;
			continue;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		for (o = opts; o && o->name; o++)
			if (strlen(o->name) == len &&
			    !strncmp(o->name, arg, len))
				break;
		if (!o || !o->name)
			return usage_err(cmd, "%s has no option '%.*s'",
					 cmd->name, (int)len, arg);
		if (o->flag) {
			if (eq)
				return usage_err(cmd, "%s takes no value",
						 o->name);
			*o->flag = true;
		} else if (eq) {
			*o->val = eq + 1;
		} else if (i + 1 < argc) {
			*o->val = argv[++i];
		} else {
			return usage_err(cmd, "%s needs a value", o->name);
		}
	}
	if (*npos < min_pos)
		return usage_err(cmd, "%s needs more arguments", cmd->name);
	return 0;
}

static int check_vm(const struct cli_cmd *cmd, const char *name)
{
	char why[128];

	if (ctl_check_vm_name(name, why, sizeof(why)))
		return usage_err(cmd, "'%s': %s", name, why);
	return 0;
}

/* ---- talking to the agent --------------------------------------------- */

/* what to do about a failed call */
static const char *call_hint(int ret, bool connected)
{
	if (!connected && (ret == -ENOENT || ret == -ECONNREFUSED))
		return " (is `guestrelay agent` running? --run-dir or "
		       "GUESTRELAY_RUN_DIR name another agent)";
	if (!connected && (ret == -EACCES || ret == -EPERM))
		return " (root, the agent's user and the agent's --group "
		       "may use it)";
	if (ret == -ETIMEDOUT)
		return " (--timeout SEC waits longer)";
	return "";
}

/*
 * One request; print the answer; return the exit status. @expr: the
 * filter expression the request carries, or NULL: a refused expression
 * comes back as one line with its column (gr_fx_error_line()) and is
 * printed with the expression and a caret under the offending token.
 */
static int agent_call(const struct cli *cli, const char *cmd, int argc,
		      char **argv, const struct gr_vm_opts *o,
		      const char *expr)
{
	struct gr_fx_error fe;
	struct ctl_answer ans;
	char text[4096];
	int ret;

	ret = ctl_client_call(cli->run_dir, cli->timeout * 1000, cli->json,
			      cmd, argc, argv, o, &ans);
	if (ret) {
		cli_err("%s%s", ans.why, call_hint(ret, ans.connected));
	} else if (ans.error) {
		if (expr && !gr_fx_error_from_line(ans.body, &fe)) {
			gr_fx_format_error(text, sizeof(text), expr, &fe);
			cli_err("%s", text);
		} else {
			cli_err("%s", ans.body);
		}
		ret = 1;
	} else {
		fwrite(ans.body, 1, ans.len, stdout);
		if (fflush(stdout) || ferror(stdout)) {
			cli_err("writing the output: %s", strerror(errno));
			ret = 1;
		}
	}
	ctl_answer_free(&ans);
	return ret ? 1 : 0;
}

static int agent_request(const struct cli *cli, const char *cmd, int argc,
			 char **argv, const struct gr_vm_opts *o)
{
	return agent_call(cli, cmd, argc, argv, o, NULL);
}

/* ---- commands that talk to the agent ---------------------------------- */

static int run_ping(struct cli *cli, const struct cli_cmd *cmd, int argc,
		    char **argv)
{
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, NULL, 0, 0, &n);
	return ret ? ret : agent_request(cli, cmd->name, 0, NULL, NULL);
}

static int run_status(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	char *pos[1];
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, pos, 0, 1, &n);
	if (!ret && n)
		ret = check_vm(cmd, pos[0]);
	return ret ? ret : agent_request(cli, cmd->name, n, pos, NULL);
}

/* commands of the form `CMD VM` */
static int run_vm_cmd(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	char *pos[1];
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, pos, 1, 1, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	return ret ? ret : agent_request(cli, cmd->name, 1, pos, NULL);
}

/* The follow options as the agent takes them, after @pos[0..@n) */
static int follow_args(char **pos, int n, const char *pid, const char *comm,
		       bool no_fork)
{
	if (pid) {
		pos[n++] = "--pid";
		pos[n++] = (char *)pid;
	}
	if (comm) {
		pos[n++] = "--comm";
		pos[n++] = (char *)comm;
	}
	if (no_fork)
		pos[n++] = "--no-fork";
	return n;
}

static int run_events(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	const char *filter = NULL, *pid = NULL, *comm = NULL;
	bool no_fork = false;
	const struct cli_opt opts[] = {
		{ "--filter", &filter, NULL },
		{ "--pid", &pid, NULL },
		{ "--comm", &comm, NULL },
		{ "--no-fork", NULL, &no_fork },
		{ NULL, NULL, NULL },
	};
	bool on = !strcmp(cmd->name, "enable");
	char **pos;
	int n, ret;

	pos = calloc((size_t)argc + 8, sizeof(*pos));
	if (!pos) {
		cli_err("out of memory");
		return 1;
	}
	ret = parse_args(cmd, argc, argv, on ? opts : NULL, pos, 2,
			 CTL_MAX_ARGS - 2, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (!ret && filter) {
		/* the agent sets the filter on every EVENT, then enables */
		pos[n++] = "--filter";
		pos[n++] = (char *)filter;
	}
	/* spec 15: and the follow filter, before the events */
	n = follow_args(pos, n, pid, comm, no_fork);
	if (!ret)
		ret = agent_call(cli, cmd->name, n, pos, NULL, filter);
	free(pos);
	return ret;
}

/*
 * `filter VM EVENT EXPR`, `filter VM EVENT --clear`, and the follow
 * filter: `filter VM --pid LIST [--comm GLOB] [--no-fork]`, `filter VM
 * --clear`
 */
static int run_filter(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	const char *pid = NULL, *comm = NULL;
	bool clear = false, no_fork = false;
	const struct cli_opt opts[] = {
		{ "--clear", NULL, &clear },
		{ "--pid", &pid, NULL },
		{ "--comm", &comm, NULL },
		{ "--no-fork", NULL, &no_fork },
		{ NULL, NULL, NULL },
	};
	char *pos[10];
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 3, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (!ret && n == 1) {
		if (clear == (pid || comm) || (no_fork && !pid && !comm))
			return usage_err(cmd, "filter VM needs --pid LIST or "
					 "--comm GLOB (with --no-fork: not "
					 "their children), or --clear alone");
		if (clear)
			pos[n++] = "--clear";
		n = follow_args(pos, n, pid, comm, no_fork);
		return agent_call(cli, cmd->name, n, pos, NULL, NULL);
	}
	if (!ret && (pid || comm || no_fork))
		ret = usage_err(cmd, "--pid, --comm and --no-fork go without "
				"an EVENT: filter VM --pid LIST");
	if (!ret && clear == (n == 3))
		ret = usage_err(cmd, clear ? "--clear takes no expression" :
				"filter needs an expression or --clear");
	if (ret)
		return ret;
	if (clear)
		pos[n++] = "--clear";
	return agent_call(cli, cmd->name, n, pos, NULL, clear ? NULL : pos[2]);
}

static int run_mode(struct cli *cli, const struct cli_cmd *cmd, int argc,
		    char **argv)
{
	char *pos[2];
	uint32_t mode;
	int n, ret;

	ret = parse_args(cmd, argc, argv, NULL, pos, 2, 2, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (!ret && ctl_parse_mode(pos[1], &mode))
		ret = usage_err(cmd, "mode is stream or flight, not '%s'",
				pos[1]);
	return ret ? ret : agent_request(cli, cmd->name, 2, pos, NULL);
}

static int run_vm_add(struct cli *cli, const struct cli_cmd *cmd, int argc,
		      char **argv)
{
	struct gr_vm_opts o;
	char err[512];

	if (ctl_parse_vm_add(&o, argc, argv, CTL_OPTS_NAMES, err,
			     sizeof(err)))
		return usage_err(cmd, "%s", err);
	return agent_request(cli, cmd->name, 0, NULL, &o);
}

/* ---- local commands --------------------------------------------------- */

static int run_report(struct cli *cli, const struct cli_cmd *cmd, int argc,
		     char **argv)
{
	const char *cpu = NULL, *events = NULL;
	bool host_time = false, summary = false;
	struct gr_report_opts ro = { .cpu = -1 };
	const struct cli_opt opts[] = {
		{ "--cpu", &cpu, NULL },
		{ "--events", &events, NULL },
		{ "--host-time", NULL, &host_time },
		{ "--summary", NULL, &summary },
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
	/* a fatal problem is said once, by the report, on stderr */
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
static int run_timeline(struct cli *cli, const struct cli_cmd *cmd, int argc,
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
	if (ret > 0)
		cli_err("%d damaged spot%s (red marks; guestrelay report "
			"shows them)", ret, ret == 1 ? "" : "s");
	return 0;
}

/* the attach arguments of qemu-args and libvirt-xml */
static int attach_args(struct cli *cli, const struct cli_cmd *cmd, int argc,
		       char **argv, struct ivsh_attach *at, char *name,
		       size_t nlen, char *sock, size_t slen)
{
	const char *size = NULL, *vectors = NULL, *id = NULL;
	char dir[PATH_MAX], *pos[1], *end;
	bool plain = false;
	const struct cli_opt opts[] = {
		{ "--plain", NULL, &plain },
		{ "--size", &size, NULL },
		{ "--vectors", &vectors, NULL },
		{ "--id", &id, NULL },
		{ NULL, NULL, NULL },
	};
	unsigned long v;
	int n, ret;

	ret = parse_args(cmd, argc, argv, opts, pos, 1, 1, &n);
	if (!ret)
		ret = check_vm(cmd, pos[0]);
	if (ret)
		return ret;
	memset(at, 0, sizeof(*at));
	at->id = id;
	snprintf(name, nlen, "%s%s", GR_SHM_PREFIX, pos[0]);
	at->name = name;
	if (plain) {
		if (vectors)
			return usage_err(cmd, "--vectors is for the doorbell "
					 "device, not --plain");
		at->model = IVSH_MODEL_PLAIN;
		at->size = GR_DEFAULT_SHM_SIZE;
		if (size && (ctl_parse_size(size, &at->size) ||
			     ivsh_shm_check_size(at->size)))
			return usage_err(cmd, "--size must be a power of two "
					 "from 64K to 1T (e.g. 16M), not "
					 "'%s'", size);
		return 0;
	}
	if (size)
		return usage_err(cmd, "--size is for --plain; QEMU takes the "
				 "size of a doorbell device from the agent");
	at->model = IVSH_MODEL_DOORBELL;
	at->ioeventfd = true;
	at->vectors = GR_NR_VECTORS;
	if (vectors) {
		errno = 0;
		v = strtoul(vectors, &end, 10);
		if (errno || *end || end == vectors || v < GR_NR_VECTORS ||
		    v > IVSH_MAX_VECTORS)
			return usage_err(cmd, "--vectors must be from %d to "
					 "%d, not '%s'", GR_NR_VECTORS,
					 IVSH_MAX_VECTORS, vectors);
		at->vectors = (unsigned int)v;
	}
	/* QEMU and libvirt need an absolute socket path */
	if (cli->run_dir[0] != '/') {
		if (!getcwd(dir, sizeof(dir))) {
			cli_err("cannot get the current directory: %s",
				strerror(errno));
			return 1;
		}
		if ((size_t)snprintf(sock, slen, "%s/%s/%s.sock", dir,
				     cli->run_dir, pos[0]) >= slen)
			goto too_long;
	} else if ((size_t)snprintf(sock, slen, "%s/%s.sock", cli->run_dir,
				    pos[0]) >= slen) {
		goto too_long;
	}
	if (strlen(sock) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		goto too_long;
	at->sock_path = sock;
	return 0;
too_long:
	cli_err("the socket path of %s under %s is too long for a UNIX "
		"socket", pos[0], cli->run_dir);
	return 1;
}

static int attach_err(const struct cli_cmd *cmd, int ret)
{
	if (ret == -EINVAL)
		return usage_err(cmd, "QEMU would not accept these values "
				 "(check --id: a letter, then letters, "
				 "digits, '.', '-', '_')");
	cli_err("%s failed: %s", cmd->name, strerror(-ret));
	return 1;
}

static int run_qemu_args(struct cli *cli, const struct cli_cmd *cmd,
			 int argc, char **argv)
{
	char name[GR_VM_NAME_MAX + 32], sock[PATH_MAX + 128], *line = NULL;
	char **av = NULL;
	struct ivsh_attach at;
	struct ctl_json j;
	int i, ret;

	ret = attach_args(cli, cmd, argc, argv, &at, name, sizeof(name),
			  sock, sizeof(sock));
	if (ret)
		return ret;
	ret = ivsh_qemu_cmdline(&at, &line);
	if (!ret && cli->json)
		ret = ivsh_qemu_argv(&at, &av) < 0 ? -EINVAL : 0;
	if (ret) {
		free(line);
		return attach_err(cmd, ret);
	}
	if (cli->json) {
		ctl_json_init(&j, stdout);
		ctl_json_begin_object(&j, NULL);
		ctl_json_string(&j, "vm", name + strlen(GR_SHM_PREFIX));
		ctl_json_string(&j, "device", at.model == IVSH_MODEL_PLAIN ?
				"plain" : "doorbell");
		ctl_json_begin_array(&j, "args");
		for (i = 0; av[i]; i++)
			ctl_json_string(&j, NULL, av[i]);
		ctl_json_end_array(&j);
		ctl_json_string(&j, "cmdline", line);
		ctl_json_end_object(&j);
		ctl_json_finish(&j);
	} else {
		printf("%s\n", line);
	}
	ivsh_argv_free(av);
	free(line);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("writing the output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* libvirt-xml and libvirt-define: <shmem> and, with @meta, <metadata> */
static int libvirt_parts(struct cli *cli, const struct cli_cmd *cmd,
			 int *argc, char **argv, bool force, const char **uri,
			 struct gr_libvirt_meta *meta, char *name, bool *plain,
			 char **xml, char **mxml)
{
	char sock[PATH_MAX + 128], err[512];
	struct ivsh_attach at;
	bool with_meta;
	int ret;

	*xml = *mxml = NULL;
	if (gr_libvirt_take_opts(argc, argv, meta, &with_meta, force, uri,
				 err, sizeof(err)))
		return usage_err(cmd, "%s", err);
	ret = attach_args(cli, cmd, *argc, argv, &at, name,
			  GR_VM_NAME_MAX + 32, sock, sizeof(sock));
	if (ret)
		return ret;
	*plain = at.model == IVSH_MODEL_PLAIN;
	if (meta->val[GR_META_SIZE] && *plain)
		ctl_parse_size(meta->val[GR_META_SIZE], &at.size);
	ret = ivsh_libvirt_xml(&at, xml);
	if (ret)
		return attach_err(cmd, ret);
	if ((with_meta || force) && gr_libvirt_metadata_xml(meta, mxml)) {
		cli_err("out of memory");
		return 1;
	}
	return 0;
}

static int run_libvirt_define(struct cli *cli, const struct cli_cmd *cmd,
			      int argc, char **argv)
{
	char name[GR_VM_NAME_MAX + 32], *xml, *mxml;
	struct gr_libvirt_meta meta;
	const char *uri = NULL;
	bool plain;
	int ret;

	ret = libvirt_parts(cli, cmd, &argc, argv, true, &uri, &meta, name,
			    &plain, &xml, &mxml);
	if (!ret)
		ret = gr_libvirt_define(uri, name + strlen(GR_SHM_PREFIX),
					&meta, xml);
	free(xml);
	free(mxml);
	return ret;
}

static int run_libvirt_hook(struct cli *cli, const struct cli_cmd *cmd,
			    int argc, char **argv)
{
	(void)cmd;
	return gr_libvirt_hook(cli->run_dir, argc, argv);
}

static int run_libvirt_xml(struct cli *cli, const struct cli_cmd *cmd,
			   int argc, char **argv)
{
	char name[GR_VM_NAME_MAX + 32], *xml = NULL, *mxml = NULL;
	struct gr_libvirt_meta meta;
	struct ctl_json j;
	bool plain;
	int ret;

	ret = libvirt_parts(cli, cmd, &argc, argv, false, NULL, &meta, name,
			    &plain, &xml, &mxml);
	if (ret) {
		free(xml);
		free(mxml);
		return ret;
	}
	if (cli->json) {
		ctl_json_init(&j, stdout);
		ctl_json_begin_object(&j, NULL);
		ctl_json_string(&j, "vm", name + strlen(GR_SHM_PREFIX));
		ctl_json_string(&j, "device", plain ?
				"plain" : "doorbell");
		ctl_json_string(&j, "xml", xml);
		if (mxml)
			ctl_json_string(&j, "metadata", mxml);
		ctl_json_end_object(&j);
		ctl_json_finish(&j);
	} else if (mxml) {
		printf("<!-- under <domain>: -->\n%s<!-- under <devices>: -->"
		       "\n%s", mxml, xml);
	} else {
		fputs(xml, stdout);
	}
	free(xml);
	free(mxml);
	if (fflush(stdout) || ferror(stdout)) {
		cli_err("writing the output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

static int run_help(struct cli *cli, const struct cli_cmd *cmd, int argc,
		    char **argv);

static int run_agent(struct cli *cli, const struct cli_cmd *cmd, int argc,
		     char **argv);

static const struct cli_cmd cli_cmds[] = {
	/* main.c runs `guestrelay agent`; this entry is its help */
	{ "agent", run_agent, NULL, "agent [OPTION...]",
	  "Run the agent: serve VMs over RUN_DIR/agent.sock and the VMs'\n"
	  "device sockets, store their traces, optionally serve Prometheus\n"
	  "metrics and ship the store to NATS JetStream. It runs in the\n"
	  "foreground; `guestrelay agent --help` lists its options.\n" },
	{ "collect", NULL, collect_main,
	  "collect URL[,URL...] --store DIR [OPTION...]",
	  "Rebuild shipped traces from NATS JetStream.\n" },
	{ "fleet", NULL, fleet_main, "fleet status URL[,URL...] [OPTION...]",
	  "Show every host's VMs from the fleet status bucket.\n" },
	{ "status", run_status, NULL, "status [--json] [VM]",
	  "Show every VM the agent serves, or one: agent and guest state,\n"
	  "device, buffers, mode, enabled events, events recorded, packets\n"
	  "and bytes stored, rate, events lost by cause, invalid and skipped\n"
	  "sub-buffers, doorbells, clock sync error, quota and usage, why the\n"
	  "stream stopped, and the session's trace directory.\n" },
	{ "enable", run_events, NULL, "enable VM EVENT... [--filter EXPR] "
	  "[--pid LIST] [--comm GLOB] [--no-fork]",
	  "Ask the guest to record EVENTs: names (sched_switch), globs\n"
	  "(sched_*, irq_*) or all. `guestrelay status VM` shows what the\n"
	  "guest records once it applied the request.\n"
	  "  --filter EXPR  record only the events EXPR accepts (see\n"
	  "                 `guestrelay help filter`); EVENTs are then names\n"
	  "  --pid LIST     record only events of these tasks and of the tasks\n"
	  "                 they fork from now on (`guestrelay help filter`)\n"
	  "  --comm GLOB    the same for tasks whose name matches GLOB\n"
	  "  --no-fork      not the children forked from now on\n" },
	{ "filter", run_filter, NULL, "filter VM EVENT EXPR|--clear, filter VM "
	  "--pid LIST [--comm GLOB] [--no-fork] | --clear",
	  "Record only the EVENTs that EXPR accepts, deciding in the guest\n"
	  "before anything is stored (ftrace's events/<sys>/<event>/filter\n"
	  "language):\n"
	  "  FIELD OP VALUE   OP == != < <= > >= & on integer fields,\n"
	  "                   == != ~ (glob: * ? [a-z]) on text fields\n"
	  "  A && B, A || B, !A, (A)\n"
	  "FIELDs are the event's fields, as its trace metadata declares\n"
	  "them (a wrong name is answered with the list), common_tid\n"
	  "(common_pid) and common_cpu. Example:\n"
	  "  guestrelay filter vm1 sched_switch 'prev_tid == 42 || next_tid == 42'\n"
	  "At most 7 events of a VM carry a filter, each of at most about 11\n"
	  "comparisons. A bad expression is refused here, with the offending\n"
	  "token marked. --clear removes the event's filter.\n"
	  "Follow filter, for all events of the VM (ftrace's set_event_pid\n"
	  "with options/event-fork, trace-cmd's -P --fork):\n"
	  "  guestrelay filter vm1 --pid 812,900 [--comm 'nginx*'] [--no-fork]\n"
	  "records only events of those tasks (by thread id), of the tasks whose\n"
	  "name matches the glob (now, after exec or a rename) and of every\n"
	  "task they fork from now on (not with --no-fork). sched_switch is\n"
	  "kept if its next task is followed, a wakeup if its woken task is.\n"
	  "At most 64 pids; the children are followed without limit.\n"
	  "`guestrelay filter vm1 --clear` removes it.\n" },
	{ "disable", run_events, NULL, "disable VM EVENT...",
	  "Ask the guest to stop recording EVENTs (names, globs or all).\n" },
	{ "mode", run_mode, NULL, "mode VM stream|flight",
	  "stream: no overwrite, events are dropped and counted when the\n"
	  "buffers are full. flight: flight recorder, the oldest sub-buffers\n"
	  "are overwritten; `guestrelay snapshot VM` saves them.\n" },
	{ "flush", run_vm_cmd, NULL, "flush VM",
	  "Ask the guest to hand over its partly filled sub-buffers and wait\n"
	  "until they are stored.\n" },
	{ "snapshot", run_vm_cmd, NULL, "snapshot VM",
	  "Save what the buffers hold now (flight mode) as a trace of its\n"
	  "own; prints its directory.\n" },
	{ "stop", run_vm_cmd, NULL, "stop VM",
	  "Stop recording, store what is left and close the session; prints\n"
	  "the finalized trace directory. `guestrelay start VM` opens a new\n"
	  "session.\n" },
	{ "start", run_vm_cmd, NULL, "start VM",
	  "Open a new session (a new trace directory) and record again.\n" },
	{ "vm-add", run_vm_add, NULL, "vm-add VM [OPTION...]",
	  "Serve a VM: create its shared memory and its device socket\n"
	  "RUN_DIR/VM.sock. Options:\n"
	  "  --size BYTES         shared memory, a power of two (default 16M)\n"
	  "  --plain              ivshmem-plain: no interrupts, the agent polls\n"
	  "  --mode stream|flight recording mode (default stream)\n"
	  "  --events LIST        events to record, comma separated (names,\n"
	  "                       globs, all)\n"
	  "  --subbuf-size BYTES  sub-buffer size wish, power of two, 4K..16M\n"
	  "  --subbufs N          sub-buffers per CPU wish, 2..65536\n"
	  "  --switch-timer-ms MS deliver partly filled sub-buffers every MS\n"
	  "                       (0 = off, at most 10000)\n"
	  "  --quota BYTES        disk space for this VM's traces (e.g. 2G)\n"
	  "  --verify on|off      check every record on a private copy before\n"
	  "                       storing it (default on); off = zero copy\n"
	  "  --io writev|fixed    write each packet with one writev (default)\n"
	  "                       or two write_fixed from registered buffers\n"
	  "  --owner USER[:GROUP] owner of the shared memory and socket (the\n"
	  "                       user QEMU runs as)\n"
	  "  --filter EVENT:EXPR  record only the EVENTs EXPR accepts (see\n"
	  "                       `guestrelay help filter`); once per event\n"
	  "  --pid LIST           record only events of these tasks and of\n"
	  "                       their children (follow filter)\n"
	  "  --comm GLOB          the same for tasks whose name matches\n"
	  "  --no-fork            follow no children\n"
	  "Then attach QEMU (guestrelay qemu-args VM) or libvirt\n"
	  "(guestrelay libvirt-xml VM).\n" },
	{ "vm-remove", run_vm_cmd, NULL, "vm-remove VM",
	  "Stop serving a VM: close its session and remove its socket.\n" },
	{ "ping", run_ping, NULL, "ping",
	  "Check that the agent answers; prints its version, pid and uptime.\n" },
	{ "report", run_report, NULL,
	  "report [--cpu N] [--events LIST] [--host-time] [--summary] TRACE_DIR",
	  "Print a stored trace as text, one line per event, CPUs merged by\n"
	  "time (no agent needed).\n"
	  "  --cpu N        only CPU N\n"
	  "  --events LIST  only these events: names, systems (sched) or\n"
	  "                 system:event, comma separated\n"
	  "  --host-time    host wall-clock time instead of guest time\n"
	  "  --summary      what the trace holds: events per type, packets,\n"
	  "                 losses and damage per CPU, time span\n" },
	{ "timeline", run_timeline, NULL,
	  "timeline -o FILE.svg|FILE.html [--from S] [--to S] [--width PX] "
	  "[--latency] TRACE_DIR...",
	  "Draw stored traces as a picture (no agent needed): one lane per\n"
	  "guest CPU per trace on one time axis (host time when the clocks\n"
	  "are synchronized), the running task as slices coloured by tid,\n"
	  "IRQ and softirq marks, red marks where events were lost.\n"
	  "  -o FILE        FILE.svg, or FILE.html (the SVG with hover details\n"
	  "                 and a latency toggle); self-contained\n"
	  "  --from S       start at S seconds after the earliest trace's\n"
	  "                 start, or at S seconds since the Epoch if S >= 1e9\n"
	  "  --to S         end there (the same two forms)\n"
	  "  --width PX     pixels of the time axis (default 1600)\n"
	  "  --latency      draw wakeup-to-run latency above the slices\n" },
	{ "qemu-args", run_qemu_args, NULL,
	  "qemu-args VM [--plain] [--size BYTES] [--vectors N] [--id ID]",
	  "Print the QEMU options that attach VM's device (no agent needed):\n"
	  "by default ivshmem-doorbell on RUN_DIR/VM.sock with 2 vectors;\n"
	  "with --plain, ivshmem-plain on /dev/shm/guestrelay-VM of --size\n"
	  "bytes (default 16M). --id sets the QEMU id stem.\n" },
	{ "libvirt-xml", run_libvirt_xml, NULL,
	  "libvirt-xml VM [--plain] [--size BYTES] [--vectors N] "
	  "[--metadata [SETTING...]]",
	  "Print the libvirt <shmem> element that attaches VM's device (put\n"
	  "it under <devices>; no agent needed). Options as for qemu-args.\n"
	  "--metadata also prints the <metadata> element that opts the\n"
	  "domain in to the libvirt hook, with these settings (the vm-add\n"
	  "options of the same name): --events LIST, --mode stream|flight,\n"
	  "--size BYTES (shared memory, doorbell or plain), --subbuf-size\n"
	  "BYTES, --subbufs N, --switch-timer-ms MS, --quota BYTES, --verify\n"
	  "on|off, --filter EVENT:EXPR (one per domain), and "
	  "--required (libvirt refuses to start the domain untraced).\n" },
	{ "libvirt-define", run_libvirt_define, NULL,
	  "libvirt-define DOMAIN [--connect URI] [--plain] [--vectors N] "
	  "[SETTING...]",
	  "Add the <metadata> element and the <shmem> device of DOMAIN to\n"
	  "its libvirt definition (virsh dumpxml, edit, virsh define); the\n"
	  "hook traces it from its next start. SETTINGs as for libvirt-xml\n"
	  "--metadata; --connect URI is virsh's -c; the socket is\n"
	  "RUN_DIR/DOMAIN.sock.\n" },
	{ "libvirt-hook", run_libvirt_hook, NULL,
	  "libvirt-hook [--config FILE] DOMAIN OP SUBOP EXTRA",
	  "The libvirt qemu hook (/etc/libvirt/hooks/qemu.d/guestrelay runs\n"
	  "it) with the domain XML on standard input. Domains with our\n"
	  "<metadata> are served from \"prepare begin\" to \"stopped end\".\n"
	  "FILE (default " GR_HOOK_CONF ") holds KEY = VALUE lines:\n"
	  "run-dir, required (yes|no), owner, group, log, timeout.\n" },
	{ "help", run_help, NULL, "help [COMMAND]",
	  "Show the commands, or what COMMAND does.\n" },
};

#define NR_CMDS	ARRAY_SIZE(cli_cmds)

/**
 * cli_command_name() - a command of the table, for `help` and its test
 * @i: its index, in the order `guestrelay help` lists them
 *
 * Context: any.
 * Return: the name of command @i, as typed; NULL after the last one.
 */
const char *cli_command_name(size_t i)
{
	return i < NR_CMDS ? cli_cmds[i].name : NULL;
}

static void print_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: guestrelay [--run-dir DIR] [--json] [--timeout SEC] "
		"COMMAND [ARGS]\n"
		"\n");
	for (i = 0; i < NR_CMDS; i++)
		fprintf(f, "  %s\n", cli_cmds[i].usage);
	fprintf(f,
		"\n"
		"Global options, before or after the command:\n"
		"  --run-dir DIR   the agent's run directory (default "
		"$GUESTRELAY_RUN_DIR,\n"
		"                  else %s)\n"
		"  --json          print JSON\n"
		"  --timeout SEC   wait at most SEC seconds for the agent "
		"(default %d, 0 = forever)\n"
		"  --version       print the version\n"
		"Exit status: 0 done, 1 failed, 2 bad usage.\n",
		GR_DEFAULT_RUN_DIR, CLI_TIMEOUT_DEFAULT);
}

static const struct cli_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CMDS; i++)
		if (!strcmp(cli_cmds[i].name, name))
			return &cli_cmds[i];
	return NULL;
}

/* `help CMD`, `CMD --help`: the usage line and what it does */
static int print_cmd_help(const struct cli_cmd *cmd)
{
	char *argv[] = { (char *)cmd->name, "--help", NULL };

	if (cmd->own_main)
		return cmd->own_main(2, argv);
	printf("usage: guestrelay %s\n\n%s", cmd->usage, cmd->help);
	return 0;
}

/* `agent` after a global option: main.c runs the agent only first */
static int run_agent(struct cli *cli, const struct cli_cmd *cmd, int argc,
		     char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	return usage_err(NULL, "give the %s's options after `%s`: guestrelay "
			 "%s --run-dir DIR ...", cmd->name, cmd->name,
			 cmd->name);
}

static int run_help(struct cli *cli, const struct cli_cmd *cmd, int argc,
		    char **argv)
{
	const struct cli_cmd *c;
	char *pos[1];
	int n, ret;

	(void)cli;
	ret = parse_args(cmd, argc, argv, NULL, pos, 0, 1, &n);
	if (ret)
		return ret;
	if (!n) {
		print_usage(stdout);
		return 0;
	}
	c = find_cmd(pos[0]);
	if (!c)
		return usage_err(NULL, "no command '%s' (guestrelay help lists "
				 "them)", pos[0]);
	return print_cmd_help(c);
}

/**
 * cli_main() - run one guestrelay command other than `agent`
 * @argc: number of arguments
 * @argv: the command line without the program name: global options and
 *	the command in any order (argv[0] is normally the command)
 *
 * Context: process; prints to stdout and stderr.
 * Return: the exit status: 0 done, 1 failed, 2 bad usage.
 */
int cli_main(int argc, char **argv)
{
	struct cli cli = { .timeout = CLI_TIMEOUT_DEFAULT };
	const struct cli_cmd *cmd = NULL;
	const char *name = NULL, *env, *val;
	bool help = false, dashdash = false;
	char **rest, *end;
	int i, n = 0, ret;
	unsigned long v;

	/* a command that parses its own command line, as the first word */
	cmd = argc ? find_cmd(argv[0]) : NULL;
	if (cmd && cmd->own_main)
		return cmd->own_main(argc, argv);
	cmd = NULL;
	env = getenv("GUESTRELAY_RUN_DIR");
	snprintf(cli.run_dir, sizeof(cli.run_dir), "%s",
		 env && *env ? env : GR_DEFAULT_RUN_DIR);
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest) {
		cli_err("out of memory");
		return 1;
	}
	/* global options anywhere before "--"; the first word is the command */
	for (i = 0; i < argc; i++) {
		char *arg = argv[i];

		if (dashdash) {
			rest[n++] = arg;
			continue;
		}
		if (!strcmp(arg, "--json")) {
			cli.json = true;
		} else if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			help = true;
		} else if (!strcmp(arg, "--version") || !strcmp(arg, "-V")) {
			printf("guestrelay %s (ABI %d.%d)\n",
			       GR_VERSION, GR_ABI_MAJOR, GR_ABI_MINOR);
			ret = 0;
			goto out;
		} else if (!strncmp(arg, "--run-dir", 9) &&
			   (arg[9] == '=' || !arg[9])) {
			val = arg[9] ? arg + 10 : (i + 1 < argc ? argv[++i] :
						   NULL);
			if (!val || !*val ||
			    strlen(val) >= sizeof(cli.run_dir)) {
				ret = usage_err(NULL, "--run-dir needs a "
						"directory");
				goto out;
			}
			strcpy(cli.run_dir, val);
		} else if (!strncmp(arg, "--timeout", 9) &&
			   (arg[9] == '=' || !arg[9])) {
			val = arg[9] ? arg + 10 : (i + 1 < argc ? argv[++i] :
						   NULL);
			errno = 0;
			v = val ? strtoul(val, &end, 10) : 0;
			if (!val || !*val || *end || errno || v > 86400 ||
			    *val == '-') {
				ret = usage_err(NULL, "--timeout needs "
						"seconds, 0 to 86400");
				goto out;
			}
			cli.timeout = (unsigned int)v;
		} else if (!name && arg[0] != '-') {
			name = arg;
		} else {
			if (!strcmp(arg, "--"))
				dashdash = true;
			rest[n++] = arg;
		}
	}
	if (!name) {
		if (help) {
			print_usage(stdout);
			ret = 0;
		} else if (n) {
			ret = usage_err(NULL, "unknown option '%s' "
					"(guestrelay help lists the commands)",
					rest[0]);
		} else {
			print_usage(stderr);
			ret = EXIT_USAGE;
		}
		goto out;
	}
	cmd = find_cmd(name);
	if (!cmd) {
		ret = usage_err(NULL, "unknown command '%s' (guestrelay help "
				"lists them)", name);
		goto out;
	}
	if (help) {
		ret = print_cmd_help(cmd);
		goto out;
	}
	if (cmd->own_main)
		ret = usage_err(NULL, "give the %s's options after `%s`: "
				"guestrelay %s ...", name, name, name);
	else
		ret = cmd->run(&cli, cmd, n, rest);
out:
	free(rest);
	return ret;
}
