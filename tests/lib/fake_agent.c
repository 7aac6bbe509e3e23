// SPDX-License-Identifier: GPL-2.0
/*
 * fake_agent.c - the control plane's test bench (see fake_agent.h)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "gr_test.h"
#include "fake_agent.h"

#include "agent.h"
#include "cli.h"
#include "conn.h"
#include "ctl_proto.h"
#include "filter.h"
#include "libvirt.h"
#include "libvirt_meta.h"
#include "opts.h"
#include "out.h"
#include "server.h"

struct gr_agent ag;
char tmpdir[64];
char sock_path[128];

/* ======================================================================
 * Test doubles of the VM functions (vm.c is not linked)
 * ====================================================================== */


static struct gr_vm *fake_vms;
struct gr_vm_opts last_add;
char last_list[1024];
bool last_on;

static const char *const fake_events[] = {
	"sched_switch", "sched_wakeup", "sched_process_fork",
	"irq_handler_entry", "irq_handler_exit",
};
#define NR_FAKE_EVENTS	(sizeof(fake_events) / sizeof(fake_events[0]))

int vm_add(struct gr_agent *a, const struct gr_vm_opts *o, struct gr_vm **vmp,
	   char *err, size_t errlen)
{
	struct gr_vm *vm, **pp;

	(void)a;
	if (!strcmp(o->name, "fail-me")) {
		snprintf(err, errlen, "cannot create /dev/shm/guestrelay-%s: "
			 "No space left on device", o->name);
		return -ENOSPC;
	}
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	vm->opts = *o;
	vm->mode = o->mode;
	strcpy(vm->nodename, "guest1");
	last_add = *o;
	for (pp = &fake_vms; *pp; pp = &(*pp)->next)
		;
	*pp = vm;
	*vmp = vm;
	return 0;
}

void vm_remove(struct gr_vm *vm)
{
	struct gr_vm **pp;

	for (pp = &fake_vms; *pp != vm; pp = &(*pp)->next)
		;
	*pp = vm->next;
	if (vm->done)
		vm->done(vm->arg, -ECANCELED, "the VM was removed");
	free(vm);
}

struct gr_vm *vm_find(struct gr_agent *a, const char *name)
{
	struct gr_vm *vm;

	(void)a;
	for (vm = fake_vms; vm; vm = vm->next)
		if (!strcmp(vm->opts.name, name))
			return vm;
	return NULL;
}

struct gr_vm *vm_next(struct gr_agent *a, struct gr_vm *prev)
{
	(void)a;
	return prev ? prev->next : fake_vms;
}

int vm_set_events(struct gr_vm *vm, const char *list, bool on,
		  char *err, size_t errlen)
{
	char copy[1024], *item, *save = NULL;
	size_t i;
	bool hit;

	snprintf(copy, sizeof(copy), "%s", list);
	for (item = strtok_r(copy, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		hit = !strcmp(item, "all");
		for (i = 0; i < NR_FAKE_EVENTS && !hit; i++)
			hit = !fnmatch(item, fake_events[i], 0);
		if (!hit) {
			snprintf(err, errlen, "unknown event '%s' in %s "
				 "(available: sched_switch, sched_wakeup, "
				 "sched_process_fork, irq_handler_entry, "
				 "irq_handler_exit)", item, vm->opts.name);
			return -ENOENT;
		}
	}
	snprintf(last_list, sizeof(last_list), "%s", list);
	last_on = on;
	if (on)
		snprintf(vm->enabled, sizeof(vm->enabled), "%s", list);
	return 0;
}

/* sched_switch as the guest publishes it, for the real compiler */
/* The fake guests publish no events by name (no GR_F_ANYEVENT) */
int vm_enable_events(struct gr_vm *vm, const char *list, gr_done_fn done,
		     void *arg, char *err, size_t errlen)
{
	(void)done;
	(void)arg;
	return vm_set_events(vm, list, true, err, errlen);
}

int vm_list_events(struct gr_vm *vm, const char *glob, gr_list_fn done,
		   void *arg, char *err, size_t errlen)
{
	(void)glob;
	(void)done;
	(void)arg;
	snprintf(err, errlen, "the guest of %s does not take requests for "
		 "events by name", vm->opts.name);
	return -EOPNOTSUPP;
}

static void fake_switch_view(struct gr_event_view *ev)
{
	static const struct {
		const char *name;
		uint16_t off, size;
		uint8_t type;
	} f[] = {
		{ "prev_comm", 0, 16, GR_FIELD_CHARS },
		{ "prev_tid", 16, 4, GR_FIELD_INTEGER },
		{ "prev_prio", 20, 4, GR_FIELD_INTEGER },
		{ "prev_state", 24, 8, GR_FIELD_INTEGER },
		{ "next_comm", 32, 16, GR_FIELD_CHARS },
		{ "next_tid", 48, 4, GR_FIELD_INTEGER },
		{ "next_prio", 52, 4, GR_FIELD_INTEGER },
	};
	unsigned int i;

	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "sched_switch");
	strcpy(ev->system, "sched");
	ev->payload_size = 56;
	ev->nr_fields = sizeof(f) / sizeof(f[0]);
	for (i = 0; i < ev->nr_fields; i++) {
		strcpy(ev->fields[i].name, f[i].name);
		ev->fields[i].offset = f[i].off;
		ev->fields[i].size = f[i].size;
		ev->fields[i].type = f[i].type;
		ev->fields[i].flags = f[i].type == GR_FIELD_INTEGER ?
				      GR_FIELD_F_SIGNED : 0;
	}
}

/* As vm_filter.c: compiled against the event, all or nothing, one slot */
int vm_set_filter(struct gr_vm *vm, char *const *events, int nr,
		  const char *expr, char *err, size_t errlen)
{
	struct gr_filter_slot slot;
	struct gr_event_view ev;
	struct gr_fx_error fe;
	int i;

	fake_switch_view(&ev);
	for (i = 0; i < nr; i++) {
		if (strcmp(events[i], "sched_switch")) {
			snprintf(err, errlen, "no event '%s' in %s",
				 events[i], vm->opts.name);
			return -ENOENT;
		}
		if (!expr && !vm->opts.filters[0].event[0]) {
			snprintf(err, errlen, "%s has no filter on %s",
				 vm->opts.name, events[i]);
			return -ENOENT;
		}
		if (expr && gr_fx_build(expr, &ev, &slot, &fe)) {
			gr_fx_error_line(err, errlen, &fe);
			return -EINVAL;
		}
	}
	memset(&vm->opts.filters[0], 0, sizeof(vm->opts.filters[0]));
	if (expr) {
		strcpy(vm->opts.filters[0].event, "sched_switch");
		snprintf(vm->opts.filters[0].expr,
			 sizeof(vm->opts.filters[0].expr), "%s", expr);
	}
	return 0;
}

/* As vm_filter.c: the VM's follow filter, set or cleared */
int vm_set_follow(struct gr_vm *vm, const struct gr_fx_follow *fo, char *err,
		  size_t errlen)
{
	if ((!fo || !fo->flags) && !vm->opts.follow.flags) {
		snprintf(err, errlen, "%s has no follow filter", vm->opts.name);
		return -ENOENT;
	}
	if (fo && fo->flags)
		vm->opts.follow = *fo;
	else
		memset(&vm->opts.follow, 0, sizeof(vm->opts.follow));
	return 0;
}

/* As vm_hist.c for a guest that has not published: requests wait */
int vm_set_hist(struct gr_vm *vm, struct gr_vm_hist *h, char *err,
		size_t errlen)
{
	unsigned int i;

	gr_vm_hist_name(h, h->name, sizeof(h->name));
	if (h->event[0] && strcmp(h->event, "sched_switch")) {
		snprintf(err, errlen, "no event '%s' in %s", h->event,
			 vm->opts.name);
		return -ENOENT;
	}
	for (i = 0; i < GR_HIST_REQS; i++)
		if (!strcmp(vm->opts.hists[i].name, h->name))
			break;
	for (i = i < GR_HIST_REQS ? i : 0; i < GR_HIST_REQS; i++)
		if (!vm->opts.hists[i].name[0] ||
		    !strcmp(vm->opts.hists[i].name, h->name)) {
			vm->opts.hists[i] = *h;
			return 0;
		}
	snprintf(err, errlen, "at most %d hist requests", GR_HIST_REQS);
	return -EINVAL;
}

int vm_clear_hist(struct gr_vm *vm, const char *name, bool remove, char *err,
		  size_t errlen)
{
	unsigned int i, n = 0;

	for (i = 0; i < GR_HIST_REQS; i++) {
		if (!vm->opts.hists[i].name[0] ||
		    (name && strcmp(vm->opts.hists[i].name, name)))
			continue;
		if (remove)
			memset(&vm->opts.hists[i], 0, sizeof(vm->opts.hists[i]));
		n++;
	}
	if (!n)
		snprintf(err, errlen, "%s has no hist request '%s'",
			 vm->opts.name, name ? name : "");
	return n ? 0 : -ENOENT;
}

int vm_hist_read(struct gr_vm *vm, const char *name,
		 struct gr_vm_hist_out *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < GR_HIST_REQS && n < max; i++) {
		if (!vm->opts.hists[i].name[0] ||
		    (name && strcmp(vm->opts.hists[i].name, name)))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].h = vm->opts.hists[i];
		out[n++].state = "waiting";
	}
	return name && !n ? -ENOENT : (int)n;
}

void vm_hist_out_free(struct gr_vm_hist_out *out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		gr_hist_table_free(&out[i].table);
}

/* the fake's tables never run (vm_hist_read()): no latency table */
void vm_hist_latency(struct gr_vm *vm, struct gr_vm_info *info)
{
	(void)vm;
	info->nr_lat = 0;
}

int vm_set_mode(struct gr_vm *vm, uint32_t mode, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	vm->mode = mode;
	return 0;
}

enum gr_vm_state vm_state(const struct gr_vm *vm)
{
	return vm->stopped ? GR_VM_STOPPED : GR_VM_ATTACHED;
}

static int fake_async(struct gr_vm *vm, const char *kind, gr_done_fn done,
		      void *arg)
{
	char path[300];

	if (vm->stopped)
		return -ENOTCONN;
	if (vm->done)
		return -EBUSY;
	if (vm->sync_done) {
		snprintf(path, sizeof(path), "/store/%s/%s-sync",
			 vm->opts.name, kind);
		done(arg, 0, path);
		return 0;
	}
	vm->done = done;
	vm->arg = arg;
	vm->kind = kind;
	return 0;
}

int vm_flush(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	return fake_async(vm, "flush", done, arg);
}

int vm_snapshot(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	return fake_async(vm, "snapshot", done, arg);
}

int vm_stop(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	return fake_async(vm, "stop", done, arg);
}

int vm_rotate(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	return fake_async(vm, "rotate", done, arg);
}

int vm_start(struct gr_vm *vm, char *err, size_t errlen)
{
	if (vm->starts == 3) {
		snprintf(err, errlen, "%s has no guest yet", vm->opts.name);
		return -EAGAIN;
	}
	vm->starts++;
	snprintf(vm->session, sizeof(vm->session), "/store/%s/session-%u",
		 vm->opts.name, vm->starts);
	return 0;
}

void vm_get_info(const struct gr_vm *vm, struct gr_vm_info *in)
{
	memset(in, 0, sizeof(*in));
	strcpy(in->name, vm->opts.name);
	in->state = "attached";
	in->guest_state = "tracing";
	in->doorbell = !vm->opts.plain;
	in->guest_connected = true;
	in->mode = vm->mode;
	in->verify = vm->opts.verify;
	in->io = vm->opts.io_writev ? "writev" : "fixed";
	in->nr_rings = 2;
	in->subbuf_size = 65536;
	in->n_subbufs = 16;
	strcpy(in->kernel_release, "6.1.0-56-amd64");
	strcpy(in->nodename, vm->nodename);
	strcpy(in->session, vm->session);
	snprintf(in->events, sizeof(in->events), "%s", vm->enabled);
	if (vm->opts.filters[0].event[0]) {
		strcpy(in->filters[0].event, vm->opts.filters[0].event);
		strcpy(in->filters[0].expr, vm->opts.filters[0].expr);
		in->filters[0].state = "active";
		in->filters[0].filtered = 99;
	}
	if (vm->opts.follow.flags) {
		gr_fx_follow_str(&vm->opts.follow, in->follow.what,
				 sizeof(in->follow.what));
		in->follow.state = "active";
		in->follow.tasks = 3;
		in->follow.forks = 2;
		in->follow.dropped = 77;
	}
	in->stop_reason = "";
	in->quota = 1ULL << 30;
	in->usage = 3ULL << 20;
	in->sync_offset_ns = -1500000000LL;
	in->sync_error_ns = 12000;
	in->rate_bps = 1536.0;
	in->st.packets = 42;
	in->st.bytes = 42 * 65536;
	in->st.guest_events = 123456;
	in->st.lost_full = 7;
	in->st.lost_too_big = 1;
	in->st.lost_nested = 2;
	in->st.overwritten = 3;
	in->st.invalid = 4;
	in->st.skipped = 5;
	in->st.doorbells_in = 10;
	in->st.doorbells_out = 11;
}

/* complete @vm's held flush / snapshot / stop */
void fake_complete(struct gr_vm *vm, int err, const char *msg)
{
	gr_done_fn done = vm->done;

	vm->done = NULL;
	if (done)
		done(vm->arg, err, msg);
}

void fake_clear(void)
{
	struct gr_vm *vm;

	while ((vm = fake_vms)) {
		fake_vms = vm->next;
		free(vm);
	}
}

struct gr_vm *fake_add(const char *name)
{
	struct gr_vm_opts o = { .mode = GR_MODE_STREAM, .verify = GR_VERIFY_ON,
			     .io_writev = true };
	struct gr_vm *vm;
	char err[128];

	strcpy(o.name, name);
	CU_ASSERT_FATAL(vm_add(&ag, &o, &vm, err, sizeof(err)) == 0);
	return vm;
}

/* ======================================================================
 * Helpers: the loop, clients
 * ====================================================================== */

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* run the loop for about @ms milliseconds */
void pump(unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	do
		gr_loop_run_once(&ag.loop, 5000000);
	while (now_ms() < end);
}

int client_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	CU_ASSERT_FATAL(fd >= 0);
	strcpy(sun.sun_path, sock_path);
	CU_ASSERT_FATAL(connect(fd, (struct sockaddr *)&sun,
				sizeof(sun)) == 0);
	return fd;
}

void client_send(int fd, const char *s, size_t len)
{
	CU_ASSERT_EQUAL(send(fd, s, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* pump the loop and read until EOF (or @ms); returns the answer */
char *client_read(int fd, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ssize_t n;

	CU_ASSERT_FATAL(buf != NULL);
	for (;;) {
		n = recv(fd, buf + len, cap - len, MSG_DONTWAIT);
		if (n > 0) {
			len += (size_t)n;
			if (len == cap) {
				cap *= 2;
				buf = realloc(buf, cap + 1);
				CU_ASSERT_FATAL(buf != NULL);
			}
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		if (now_ms() > end) {
			strcpy(buf, "(no answer)");
			close(fd);
			return buf;
		}
		gr_loop_run_once(&ag.loop, 5000000);
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

char *request(const char *line)
{
	int fd = client_connect();

	client_send(fd, line, strlen(line));
	return client_read(fd, 3000);
}

/* the answer to @line starts with @prefix */
void expect(const char *line, const char *prefix)
{
	char *ans = request(line);

	if (strncmp(ans, prefix, strlen(prefix)))
		fprintf(stderr, "\n  request: %s  answer:  %s\n  expected: %s\n",
			line, ans, prefix);
	CU_ASSERT(strncmp(ans, prefix, strlen(prefix)) == 0);
	free(ans);
}

/* the answer to @line contains @needle */
void expect_has(const char *line, const char *needle)
{
	char *ans = request(line);

	if (!strstr(ans, needle))
		fprintf(stderr, "\n  request: %s  answer:  %s\n  missing: %s\n",
			line, ans, needle);
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, needle));
	free(ans);
}


void run_child(struct child_out *co, int (*fn)(void *), void *arg)
{
	int po[2], pe[2], st;
	size_t lo = 0, le = 0;
	uint64_t end;
	ssize_t n;
	pid_t pid;

	memset(co, 0, sizeof(*co));
	CU_ASSERT_FATAL(pipe2(po, O_CLOEXEC) == 0 && pipe2(pe, O_CLOEXEC) == 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		_exit(fn(arg));
	}
	close(po[1]);
	close(pe[1]);
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	end = now_ms() + 15000;
	for (;;) {
		n = read(po[0], co->out + lo, sizeof(co->out) - 1 - lo);
		if (n > 0)
			lo += (size_t)n;
		n = read(pe[0], co->err + le, sizeof(co->err) - 1 - le);
		if (n > 0)
			le += (size_t)n;
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		gr_loop_run_once(&ag.loop, 2000000);
	}
	while ((n = read(po[0], co->out + lo, sizeof(co->out) - 1 - lo)) > 0)
		lo += (size_t)n;
	while ((n = read(pe[0], co->err + le, sizeof(co->err) - 1 - le)) > 0)
		le += (size_t)n;
	close(po[0]);
	close(pe[0]);
	co->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- fixture ------------------------------------------------------------ */

int start_ctl(unsigned int gid)
{
	ag.sock_gid = gid;
	return ctl_init(&ag);
}

int fake_agent_suite_init(void)
{
	strcpy(tmpdir, "/tmp/test_ctl.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	chmod(tmpdir, 0755);	/* children with another uid come in */
	memset(&ag, 0, sizeof(ag));
	if (gr_loop_init(&ag.loop, 256))
		return -1;
	snprintf(ag.run_dir, sizeof(ag.run_dir), "%s", tmpdir);
	snprintf(ag.store_dir, sizeof(ag.store_dir), "%s/store", tmpdir);
	snprintf(sock_path, sizeof(sock_path), "%s/agent.sock", tmpdir);
	ag.store_fd = -1;
	return start_ctl((unsigned int)-1);
}

int fake_agent_suite_clean(void)
{
	ctl_finish(&ag);
	gr_loop_finish(&ag.loop);
	fake_clear();
	unlink(sock_path);
	rmdir(tmpdir);
	return 0;
}

/* ---- checks several test programs share ---------------------------------- */

void expect_vm2_opts(const struct gr_vm_opts *o, uint32_t uid,
			    uint32_t gid)
{
	CU_ASSERT_STRING_EQUAL(o->name, "vm2");
	CU_ASSERT_EQUAL(o->shm_size, 32ULL << 20);
	CU_ASSERT(o->plain);
	CU_ASSERT_EQUAL(o->mode, GR_MODE_FLIGHT);
	CU_ASSERT_STRING_EQUAL(o->events, "sched_*,irq_*");
	CU_ASSERT_EQUAL(o->subbuf_size, 65536);
	CU_ASSERT_EQUAL(o->n_subbufs, 8);
	CU_ASSERT_EQUAL(o->switch_timer_us, 100000);
	CU_ASSERT_EQUAL(o->quota, 2ULL << 30);
	CU_ASSERT(o->own && o->uid == uid && o->gid == gid);
	CU_ASSERT_EQUAL(o->verify, GR_VERIFY_ON);	/* the default */
}

int python_json_ok(const char *text)
{
	FILE *p = popen("python3 -c 'import json,sys; json.load(sys.stdin)'",
			"w");

	if (!p)
		return -1;
	fputs(text, p);
	return pclose(p);
}

