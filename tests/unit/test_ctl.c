// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctl.c - the agent's control plane (host-agent/control/): the
 * wire codec, the VM option parser, the escaper and JSON writer, the
 * control socket's server and commands, the client and the CLI
 *
 * The real server runs on the real io_uring loop (loop.c) over a real UNIX
 * socket in a temporary run directory; clients are non-blocking sockets in
 * this process, forked children that change their uid, or cli_main() in a
 * forked child. The VM functions of agent.h (vm_add, vm_find, vm_flush
 * ...) are TEST DOUBLES defined below, not vm.c: this is a unit test of
 * the control layer. The doubles keep a list of fake VMs, recognize a
 * fixed set of event names, and hold the callback of flush / snapshot /
 * stop until a test completes it, so a test can hang up first.
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

#define NOBODY		65534
#define TEST_GID	4242

static struct gr_agent ag;
static char tmpdir[64];
static char sock_path[128];

/* ======================================================================
 * Test doubles of the VM functions (vm.c is not linked)
 * ====================================================================== */

struct gr_vm {
	struct gr_vm *next;
	struct gr_vm_opts opts;
	uint32_t mode;
	char enabled[512];
	gr_done_fn done;
	void *arg;
	const char *kind;
	bool sync_done;		/* complete flush/snapshot/stop in the call */
	bool stopped;		/* flush/snapshot/stop fail with -ENOTCONN */
	char nodename[GR_NODENAME_LEN + 1];
	char session[256];
	unsigned int starts;
};

static struct gr_vm *fake_vms;
static struct gr_vm_opts last_add;
static char last_list[1024];
static bool last_on;

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
static void fake_complete(struct gr_vm *vm, int err, const char *msg)
{
	gr_done_fn done = vm->done;

	vm->done = NULL;
	if (done)
		done(vm->arg, err, msg);
}

static void fake_clear(void)
{
	struct gr_vm *vm;

	while ((vm = fake_vms)) {
		fake_vms = vm->next;
		free(vm);
	}
}

static struct gr_vm *fake_add(const char *name)
{
	struct gr_vm_opts o = { .mode = GR_MODE_STREAM, .verify = true,
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* run the loop for about @ms milliseconds */
static void pump(unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	do
		gr_loop_run_once(&ag.loop, 5000000);
	while (now_ms() < end);
}

static int client_connect(void)
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

static void client_send(int fd, const char *s, size_t len)
{
	CU_ASSERT_EQUAL(send(fd, s, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* pump the loop and read until EOF (or @ms); returns the answer */
static char *client_read(int fd, unsigned int ms)
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

static char *request(const char *line)
{
	int fd = client_connect();

	client_send(fd, line, strlen(line));
	return client_read(fd, 3000);
}

/* the answer to @line starts with @prefix */
static void expect(const char *line, const char *prefix)
{
	char *ans = request(line);

	if (strncmp(ans, prefix, strlen(prefix)))
		fprintf(stderr, "\n  request: %s  answer:  %s\n  expected: %s\n",
			line, ans, prefix);
	CU_ASSERT(strncmp(ans, prefix, strlen(prefix)) == 0);
	free(ans);
}

/* the answer to @line contains @needle */
static void expect_has(const char *line, const char *needle)
{
	char *ans = request(line);

	if (!strstr(ans, needle))
		fprintf(stderr, "\n  request: %s  answer:  %s\n  missing: %s\n",
			line, ans, needle);
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, needle));
	free(ans);
}

/* run @fn in a child; pump the loop meanwhile; its stdout and stderr */
struct child_out {
	int status;
	char out[16384];
	char err[4096];
};

static void run_child(struct child_out *co, int (*fn)(void *), void *arg)
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

static int start_ctl(unsigned int gid)
{
	ag.sock_gid = gid;
	return ctl_init(&ag);
}

static int suite_init(void)
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

static int suite_clean(void)
{
	ctl_finish(&ag);
	gr_loop_finish(&ag.loop);
	fake_clear();
	unlink(sock_path);
	rmdir(tmpdir);
	return 0;
}

/* ======================================================================
 * Shared parsing and writers
 * ====================================================================== */

static void test_percent_encoding_round_trips_every_byte(void)
{
	char in[256], enc[1024], dec[1024];
	size_t len;
	FILE *f;
	int c;

	for (c = 1; c < 256; c++)
		in[c - 1] = (char)c;
	in[255] = '\0';
	f = fmemopen(enc, sizeof(enc), "w");
	CU_ASSERT_FATAL(f != NULL);
	ctl_encode_arg(f, in);
	fclose(f);
	/* nothing that could break framing is left raw */
	CU_ASSERT_PTR_NULL(strchr(enc, ' '));
	CU_ASSERT_PTR_NULL(strchr(enc, '\n'));
	CU_ASSERT_PTR_NULL(strchr(enc, '\r'));
	len = strlen(enc);
	for (c = 0; (size_t)c < len; c++)
		CU_ASSERT(enc[c] > 0x20 && enc[c] < 0x7f);
	/* control characters decode, and are refused */
	strcpy(dec, enc);
	CU_ASSERT_EQUAL(ctl_decode_arg(dec), -EINVAL);
	/* without control characters, the round trip is exact */
	memmove(in + 0x7e, in + 0x7f, 256 - 0x7f);	/* drop 0x7f */
	f = fmemopen(enc, sizeof(enc), "w");
	ctl_encode_arg(f, in + 31);
	fclose(f);
	strcpy(dec, enc);
	CU_ASSERT_EQUAL(ctl_decode_arg(dec), 0);
	CU_ASSERT_EQUAL(strlen(dec), 254 - 31);
	CU_ASSERT_STRING_EQUAL(dec, in + 31);
}

static void test_percent_decoding_refuses_malformed_arguments(void)
{
	static const struct {
		const char *in;
		int ret;
		const char *out;
	} cases[] = {
		{ "sched%5Fswitch", 0, "sched_switch" },
		{ "a%20b%25c%e2%82%ac", 0, "a b%c\xe2\x82\xac" },
		{ "", -EINVAL, NULL },
		{ "abc%", -EINVAL, NULL },
		{ "abc%4", -EINVAL, NULL },
		{ "abc%4g", -EINVAL, NULL },
		{ "a%00b", -EINVAL, NULL },
		{ "a%0Ab", -EINVAL, NULL },
		{ "a%7Fb", -EINVAL, NULL },
		{ "a\tb", -EINVAL, NULL },
		{ "caf\xc3\xa9", -EINVAL, NULL },	/* raw UTF-8: encode it */
	};
	char s[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		strcpy(s, cases[i].in);
		CU_ASSERT_EQUAL(ctl_decode_arg(s), cases[i].ret);
		if (cases[i].out)
			CU_ASSERT_STRING_EQUAL(s, cases[i].out);
	}
}

static void test_sizes_parse_with_binary_suffixes(void)
{
	static const struct {
		const char *in;
		int ret;
		uint64_t v;
	} cases[] = {
		{ "4096", 0, 4096 },
		{ "64K", 0, 65536 },
		{ "16M", 0, 16ULL << 20 },
		{ "16m", 0, 16ULL << 20 },
		{ "2G", 0, 2ULL << 30 },
		{ "1GiB", 0, 1ULL << 30 },
		{ "1TB", 0, 1ULL << 40 },
		{ "0", 0, 0 },
		{ "16777215T", 0, 16777215ULL << 40 },
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "16X", -EINVAL, 0 },
		{ "16MBx", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "16777216T", -ERANGE, 0 },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = 0;
		CU_ASSERT_EQUAL(ctl_parse_size(cases[i].in, &v), cases[i].ret);
		if (!cases[i].ret)
			CU_ASSERT_EQUAL(v, cases[i].v);
	}
}

static void test_vm_names_are_checked(void)
{
	static const struct {
		const char *name;
		int ret;
		const char *why;
	} cases[] = {
		{ "vm-1_a.b", 0, NULL },
		{ "", -EINVAL, "a VM name is needed" },
		{ ".vm", -EINVAL, "bad VM name" },
		{ "../x", -EINVAL, "bad VM name" },
		{ "a b", -EINVAL, "bad VM name" },
		{ "a12345678901234567890123456789012345678901234567890123456789"
		  "0123", -EINVAL, "too long" },
	};
	char why[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(ctl_check_vm_name(cases[i].name, why,
						  sizeof(why)), cases[i].ret);
		if (cases[i].why)
			CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[i].why));
	}
}

/* the options of "vm2" as the option tests give them, owner @uid:@gid */
static void expect_vm2_opts(const struct gr_vm_opts *o, uint32_t uid,
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
	CU_ASSERT(o->verify);		/* the default */
}

static void test_vm_add_options_fill_opts_and_round_trip(void)
{
	char *argv[] = {
		"--size", "32M", "vm2", "--plain", "--mode=flight",
		"--events", "sched_*,irq_*", "--subbuf-size", "64K",
		"--subbufs", "8", "--switch-timer-ms", "100", "--quota", "2G",
		"--owner", "root:root", "--io", "fixed",
	};
	struct gr_vm_opts o, o2;
	char err[256], line[2048], *av[64], *p, *save = NULL;
	int ac = 0;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(ctl_parse_vm_add(&o, 19, argv, CTL_OPTS_NAMES,
					       err, sizeof(err)), 0);
	expect_vm2_opts(&o, 0, 0);
	CU_ASSERT(!o.io_writev);

	/* the canonical wire form parses to the same options, numbers only */
	f = fmemopen(line, sizeof(line), "w");
	ctl_vm_add_args(f, &o);
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(line, "root"));
	for (p = strtok_r(line, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		CU_ASSERT_EQUAL(ctl_decode_arg(p), 0);
		av[ac++] = p;
	}
	CU_ASSERT_EQUAL_FATAL(ctl_parse_vm_add(&o2, ac, av, 0, err,
					       sizeof(err)), 0);
	CU_ASSERT_EQUAL(memcmp(&o, &o2, sizeof(o)), 0);
}

static void test_vm_add_option_errors_say_what_is_wrong(void)
{
	static const struct {
		const char *args[4];
		const char *msg;
	} cases[] = {
		{ { "vm1", "--size", "3M" }, "power of two" },
		{ { "vm1", "--size", "32K" }, "power of two" },
		{ { "vm1", "--size" }, "needs a value" },
		{ { "vm1", "--plain=1" }, "takes no value" },
		{ { "vm1", "--mode", "turbo" }, "stream or flight" },
		{ { "vm1", "--subbuf-size", "5000" }, "--subbuf-size" },
		{ { "vm1", "--subbufs", "1" }, "--subbufs" },
		{ { "vm1", "--switch-timer-ms", "10001" }, "0 (off)" },
		{ { "vm1", "--quota", "lots" }, "--quota" },
		{ { "vm1", "--io", "mmap" }, "fixed or writev" },
		{ { "vm1", "--owner", "root" }, "UID[:GID]" },
		{ { "vm1", "--owner", "0:" }, "UID[:GID]" },
		{ { "vm1", "--frobnicate" }, "no option '--frobnicate'" },
		{ { "vm1", "vm2" }, "one VM at a time" },
		{ { "--plain" }, "needs a VM name" },
		{ { ".x" }, "bad VM name" },
	};
	struct gr_vm_opts o;
	char err[256];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (n = 0; n < 4 && cases[i].args[n]; n++)
			;
		err[0] = '\0';
		CU_ASSERT_EQUAL(ctl_parse_vm_add(&o, n, (char **)cases[i].args,
						 0, err, sizeof(err)),
				-EINVAL);
		if (!strstr(err, cases[i].msg))
			fprintf(stderr, "\n  case %zu: '%s'\n", i, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].msg));
	}
}

static char *json_of(void (*fill)(struct ctl_json *j), int *ret)
{
	char *buf = NULL;
	size_t len;
	struct ctl_json j;
	FILE *f = open_memstream(&buf, &len);

	ctl_json_init(&j, f);
	fill(&j);
	*ret = ctl_json_finish(&j);
	fclose(f);
	return buf;
}

static void fill_hostile(struct ctl_json *j)
{
	ctl_json_begin_object(j, NULL);
	ctl_json_string(j, "s", "q\"b\\s/\b\f\n\r\t\x01\x1b[31m\x7f");
	ctl_json_string(j, "utf8", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	ctl_json_string(j, "bad", "\xc0\xaf|\xed\xa0\x80|\xff|\xe2\x82");
	ctl_json_string(j, "null", NULL);
	ctl_json_u64(j, "u", UINT64_MAX);
	ctl_json_i64(j, "i", INT64_MIN);
	ctl_json_double(j, "d", 0.5);
	ctl_json_double(j, "nan", 0.0 / 0.0);
	ctl_json_bool(j, "t", true);
	ctl_json_begin_array(j, "a");
	ctl_json_end_array(j);
	ctl_json_begin_array(j, "b");
	ctl_json_u64(j, NULL, 1);
	ctl_json_begin_object(j, NULL);
	ctl_json_end_object(j);
	ctl_json_end_array(j);
	ctl_json_end_object(j);
}

static void fill_key_in_array(struct ctl_json *j)
{
	ctl_json_begin_array(j, NULL);
	ctl_json_u64(j, "k", 1);
	ctl_json_end_array(j);
}

static void fill_unbalanced(struct ctl_json *j)
{
	ctl_json_begin_object(j, NULL);
	ctl_json_begin_array(j, "x");
	ctl_json_end_object(j);
}

static void fill_two_values(struct ctl_json *j)
{
	ctl_json_u64(j, NULL, 1);
	ctl_json_u64(j, NULL, 2);
}

/* 0 if python3's json module accepts @text */
static int python_json_ok(const char *text)
{
	FILE *p = popen("python3 -c 'import json,sys; json.load(sys.stdin)'",
			"w");

	if (!p)
		return -1;
	fputs(text, p);
	return pclose(p);
}

static void test_json_writer_escapes_everything_and_checks_nesting(void)
{
	char *s;
	int ret;

	s = json_of(fill_hostile, &ret);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t"
				      "\\u0001\\u001b[31m\\u007f\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"\xc3\xa9\xe2\x82\xac"
				      "\xf0\x9f\x98\x80\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"\\ufffd\\ufffd|\\ufffd\\ufffd"
				      "\\ufffd|\\ufffd|\\ufffd\\ufffd\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"null\": null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "18446744073709551615"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "-9223372036854775808"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"nan\": null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"a\": []"));
	CU_ASSERT_EQUAL(python_json_ok(s), 0);
	free(s);

	s = json_of(fill_key_in_array, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(s);
	s = json_of(fill_unbalanced, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(s);
	s = json_of(fill_two_values, &ret);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	free(s);
}

static void test_text_output_escapes_terminal_controls(void)
{
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ctl_put_text(f, "a\x1b[2Jb\\c\n\xc2\x9b\xc3\xa9\xff");
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "a\\x1b[2Jb\\x5cc\\x0a\\xc2\\x9b\xc3\xa9"
			       "\\xff");
}

/* ======================================================================
 * The libvirt metadata element
 * ====================================================================== */

/* parse the first <gr:guestrelay> under <metadata> of @xml into @o */
static int meta_of_xml(const char *xml, struct gr_vm_opts *o, bool *req,
		       char *err, size_t errlen)
{
	struct gr_libvirt_meta m = { 0 };
	struct gr_meta_xml mx = { 0 };
	xmlNodePtr root, md, n;
	xmlDocPtr doc;
	int i, ret = -ENOENT;

	doc = xmlReadMemory(xml, (int)strlen(xml), "t.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	root = xmlDocGetRootElement(doc);
	md = gr_xml_child(root, "metadata");
	for (n = md ? md->children : NULL; n; n = n->next) {
		if (!gr_xml_is_ours(n))
			continue;
		ret = gr_meta_parse(n, &mx, err, errlen);
		if (ret)
			break;
		for (i = 0; i < GR_META_NR; i++)
			m.val[i] = (const char *)mx.val[i];
		*req = mx.required;
		ret = gr_meta_to_opts(&m, "dom", o, err, errlen);
		break;
	}
	gr_meta_xml_free(&mx);
	xmlFreeDoc(doc);
	return ret;
}

static void test_libvirt_metadata_round_trips_through_the_one_parser(void)
{
	char *argv[] = {
		"dom", "--metadata", "--events", "sched_*", "--mode", "flight",
		"--size", "32M", "--subbuf-size=64K", "--subbufs", "8",
		"--switch-timer-ms", "100", "--quota", "2G", "--verify", "off",
		"--required", "--filter", "sched_switch:prev_tid == 7 && "
		"prev_comm ~ \"<b>&'*\"", NULL,
	};
	struct gr_libvirt_meta m;
	char err[256], *md = NULL, *xml;
	struct gr_vm_opts o;
	bool with, req = false;
	int argc = 20;

	CU_ASSERT_EQUAL_FATAL(gr_libvirt_take_opts(&argc, argv, &m, &with,
						   false, NULL, err,
						   sizeof(err)), 0);
	CU_ASSERT(with && m.required);
	CU_ASSERT_EQUAL(argc, 1);	/* only the domain is left */
	CU_ASSERT_EQUAL_FATAL(gr_libvirt_metadata_xml(&m, &md), 0);
	CU_ASSERT_FATAL(asprintf(&xml, "<domain><name>dom</name>%s</domain>",
				 md) > 0);
	CU_ASSERT_EQUAL_FATAL(meta_of_xml(xml, &o, &req, err, sizeof(err)),
			      0);
	CU_ASSERT(req);
	CU_ASSERT_STRING_EQUAL(o.name, "dom");
	CU_ASSERT_STRING_EQUAL(o.events, "sched_*");
	CU_ASSERT_EQUAL(o.mode, GR_MODE_FLIGHT);
	CU_ASSERT_EQUAL(o.shm_size, 32ULL << 20);
	CU_ASSERT_EQUAL(o.subbuf_size, 65536);
	CU_ASSERT_EQUAL(o.n_subbufs, 8);
	CU_ASSERT_EQUAL(o.switch_timer_us, 100000);
	CU_ASSERT_EQUAL(o.quota, 2ULL << 30);
	CU_ASSERT(!o.verify);
	/* spec 14.6: one filter per domain, its text intact through XML */
	CU_ASSERT_STRING_EQUAL(o.filters[0].event, "sched_switch");
	CU_ASSERT_STRING_EQUAL(o.filters[0].expr,
			       "prev_tid == 7 && prev_comm ~ \"<b>&'*\"");
	free(xml);
	free(md);
}

static void test_libvirt_metadata_errors_say_what_is_wrong(void)
{
	static const struct {
		const char *attrs, *err;
	} cases[] = {
		{ "frob='1'", "unknown attribute 'frob'" },
		{ "required='maybe'", "required must be yes or no" },
		{ "x:events='a' xmlns:x='urn:x'", "unknown attribute x:events" },
		{ "size='3M'", "--size must be a power of two" },
		{ "mode='turbo'", "--mode is stream or flight" },
		{ "events=''", "events is empty" },
	};
	char xml[512], err[256];
	struct gr_vm_opts o;
	bool req = false;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(xml, sizeof(xml), "<domain><metadata><gr:guestrelay "
			 "xmlns:gr='" GR_XMLNS_URI "' %s/></metadata>"
			 "</domain>", cases[i].attrs);
		err[0] = '\0';
		CU_ASSERT_EQUAL(meta_of_xml(xml, &o, &req, err, sizeof(err)),
				-EINVAL);
		if (!strstr(err, cases[i].err))
			fprintf(stderr, "\n  case %zu: '%s'\n", i, err);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i].err));
	}
}

/* ======================================================================
 * The server
 * ====================================================================== */

static void test_socket_is_0660_with_the_agents_group(void)
{
	struct stat st;

	ctl_finish(&ag);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
	CU_ASSERT_EQUAL_FATAL(start_ctl(TEST_GID), 0);
	CU_ASSERT_EQUAL_FATAL(lstat(sock_path, &st), 0);
	CU_ASSERT(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0660);
	if (geteuid() == 0)
		CU_ASSERT_EQUAL(st.st_gid, TEST_GID);
}

static void test_stale_socket_is_replaced_live_one_and_files_are_not(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct gr_agent other;
	int fd, st;
	pid_t pid;

	/* a live agent on the path: refused, and its socket stays */
	memset(&other, 0, sizeof(other));
	CU_ASSERT_EQUAL_FATAL(gr_loop_init(&other.loop, 8), 0);
	strcpy(other.run_dir, ag.run_dir);
	other.sock_gid = (unsigned int)-1;
	CU_ASSERT_EQUAL(ctl_init(&other), -EADDRINUSE);
	expect("text ping\n", "ok\n");

	/* a stale socket (nobody listens): replaced */
	ctl_finish(&ag);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sun.sun_path, sock_path);
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&sun,
				   sizeof(sun)), 0);
	close(fd);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), 0);
	CU_ASSERT_EQUAL_FATAL(start_ctl((unsigned int)-1), 0);
	expect("text ping\n", "ok\n");

	/*
	 * A listener whose process is dead (a killed agent's io_uring keeps
	 * its socket alive for a moment): replaced. The child calls
	 * listen(), so SO_PEERCRED names it; this process keeps the socket.
	 */
	ctl_finish(&ag);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CU_ASSERT_EQUAL_FATAL(bind(fd, (struct sockaddr *)&sun,
				   sizeof(sun)), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid)
		_exit(listen(fd, 4) ? 1 : 0);
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CU_ASSERT_EQUAL_FATAL(start_ctl((unsigned int)-1), 0);
	expect("text ping\n", "ok\n");
	close(fd);

	/* anything else: kept, and an error */
	ctl_finish(&ag);
	fd = open(sock_path, O_CREAT | O_WRONLY, 0600);
	CU_ASSERT(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(ctl_init(&other), -EEXIST);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), 0);
	unlink(sock_path);
	gr_loop_finish(&other.loop);
	CU_ASSERT_EQUAL_FATAL(start_ctl((unsigned int)-1), 0);
}

static void test_ping_answers_with_version(void)
{
	expect("text ping\n", "ok\nguestrelay agent " GR_VERSION);
	expect_has("json ping\n", "\"version\": \"" GR_VERSION "\"");
	/* a CR before the LF is fine (socat by hand) */
	expect("text ping\r\n", "ok\n");
}

static void test_framing_errors_are_answered(void)
{
	static const struct {
		const char *req, *ans;
	} cases[] = {
		{ "\n", "error EINVAL empty request" },
		{ "xml ping\n", "error EINVAL unknown format 'xml'" },
		{ "text\n", "error EINVAL no command" },
		{ "text  ping\n", "error EINVAL malformed request" },
		{ "text ping \n", "error EINVAL malformed request" },
		{ "text status vm%0A1\n", "error EINVAL malformed request: "
		  "argument 1 after the command" },
		{ "te%00xt status\n", "error EINVAL malformed request: the "
		  "format or command word" },
		{ "text status vm%2\n", "error EINVAL malformed request" },
		{ "text frobnicate\n", "error EINVAL unknown command "
		  "'frobnicate'" },
	};
	static const char nul_req[] = "text ping\0junk\n";
	char *ans;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		expect(cases[i].req, cases[i].ans);
	fd = client_connect();
	client_send(fd, nul_req, sizeof(nul_req) - 1);
	ans = client_read(fd, 3000);
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "error EINVAL the request "
				      "contains a NUL byte"));
	free(ans);
}

static void test_percent_encoded_arguments_reach_the_vm_decoded(void)
{
	fake_add("vm1");
	expect("text enable vm1 sched%5F* irq%5fhandler%5fentry\n",
	       "ok\nvm1: enable sched_*,irq_handler_entry requested\n");
	CU_ASSERT_STRING_EQUAL(last_list, "sched_*,irq_handler_entry");
	CU_ASSERT(last_on);
	/* a hostile name is escaped in the error line, which stays one line */
	expect("text enable vm1 a%1B[2Jb\n", "error EINVAL malformed");
	expect("text enable vm1 x%C3%A9%22\n",
	       "error ENOENT unknown event 'x\xc3\xa9\"' in vm1 (available: "
	       "sched_switch,");
	fake_clear();
}

static void test_long_request_line_is_refused(void)
{
	char *big = malloc(CTL_LINE_MAX + 100), *ans;
	int fd;

	memset(big, 'a', CTL_LINE_MAX + 99);
	memcpy(big, "text status ", 12);
	big[CTL_LINE_MAX + 99] = '\n';
	fd = client_connect();
	/* the server reads 8 KiB, answers and closes: the rest may not fit */
	send(fd, big, CTL_LINE_MAX + 100, MSG_NOSIGNAL | MSG_DONTWAIT);
	ans = client_read(fd, 3000);
	CU_ASSERT_STRING_EQUAL(ans, "error EMSGSIZE request longer than 8192 "
			       "bytes\n");
	free(ans);
	/* exactly 8192 bytes with the LF is accepted */
	memset(big, 'a', CTL_LINE_MAX);
	memcpy(big, "text status ", 12);
	big[CTL_LINE_MAX - 1] = '\n';
	fd = client_connect();
	client_send(fd, big, CTL_LINE_MAX);
	ans = client_read(fd, 3000);
	CU_ASSERT(strncmp(ans, "error EINVAL 'aaaa", 18) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "too long"));
	free(ans);
	free(big);
}

static void test_slow_client_is_timed_out(void)
{
	uint64_t t0 = now_ms();
	char *ans;
	int fd;

	fd = client_connect();
	client_send(fd, "text pi", 7);
	ans = client_read(fd, 8000);
	CU_ASSERT(strncmp(ans, "error ETIMEDOUT no complete request within "
			  "5 s", 42) == 0);
	CU_ASSERT(now_ms() - t0 >= CTL_REQUEST_TIMEOUT_MS - 10);
	CU_ASSERT(now_ms() - t0 < CTL_REQUEST_TIMEOUT_MS + 1500);
	free(ans);
}

static void test_more_than_64_clients_are_refused_then_served_again(void)
{
	int fds[CTL_MAX_CONNS], fd, i, round;
	char *ans;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < CTL_MAX_CONNS; i++) {
			fds[i] = client_connect();
			pump(1);
		}
		pump(20);
		fd = client_connect();
		ans = client_read(fd, 3000);
		CU_ASSERT_STRING_EQUAL(ans, "error EBUSY the agent is serving "
				       "its maximum of 64 connections; try "
				       "again\n");
		free(ans);
		/* the ones that got in are served */
		client_send(fds[0], "text ping\n", 10);
		ans = client_read(fds[0], 3000);
		CU_ASSERT(strncmp(ans, "ok\n", 3) == 0);
		free(ans);
		/* hanging up frees their slots */
		for (i = 1; i < CTL_MAX_CONNS; i++)
			close(fds[i]);
		pump(50);
	}
}

static int child_ping_as(void *arg)
{
	const gid_t *ids = arg;	/* uid, primary gid, supplementary gid */
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char buf[512];
	ssize_t n;
	int fd;

	if (setgroups(ids[2] ? 1 : 0, &ids[2]) || setgid(ids[1]) ||
	    setuid(ids[0]))
		return 99;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sun.sun_path, sock_path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		printf("connect: %s\n", strerror(errno));
		return 3;
	}
	send(fd, "text ping\n", 10, MSG_NOSIGNAL);
	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		fputs(buf, stdout);
	}
	return 0;
}

static void test_peers_are_checked_by_credentials(void)
{
	gid_t nobody[3] = { NOBODY, NOBODY, 0 };
	gid_t primary[3] = { NOBODY, TEST_GID, 0 };
	gid_t suppl[3] = { NOBODY, NOBODY, TEST_GID };
	struct child_out co;

	/* registered only for root (main): it needs setuid children */
	/* root (this process) is allowed */
	expect("text ping\n", "ok\n");

	/*
	 * No group configured: nobody is refused by SO_PEERCRED even when
	 * the file lets it connect (a mis-set mode must not open the door).
	 */
	ctl_finish(&ag);
	CU_ASSERT_EQUAL_FATAL(start_ctl((unsigned int)-1), 0);
	chmod(sock_path, 0666);
	run_child(&co, child_ping_as, nobody);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "error EACCES uid 65534 may not control "
			  "this agent", 46) == 0);

	/* with a group: a member (primary or supplementary) is allowed */
	ctl_finish(&ag);
	CU_ASSERT_EQUAL_FATAL(start_ctl(TEST_GID), 0);
	run_child(&co, child_ping_as, primary);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "ok\nguestrelay agent", 19) == 0);
	run_child(&co, child_ping_as, suppl);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "ok\nguestrelay agent", 19) == 0);

	/* a non-member cannot even open the 0660 socket */
	run_child(&co, child_ping_as, nobody);
	CU_ASSERT_EQUAL(co.status, 3);
	CU_ASSERT_STRING_EQUAL(co.out, "connect: Permission denied\n");
	/* and a non-member with a too open file is refused by SO_PEERCRED */
	chmod(sock_path, 0666);
	run_child(&co, child_ping_as, nobody);
	CU_ASSERT(strncmp(co.out, "error EACCES uid 65534 may not control "
			  "this agent: only root, uid 0 and members of "
			  "group 4242 may", 97) == 0);
	ctl_finish(&ag);
	CU_ASSERT_EQUAL_FATAL(start_ctl((unsigned int)-1), 0);
}

static void test_command_argument_errors(void)
{
	static const struct {
		const char *req, *ans;
	} cases[] = {
		{ "text status vm1 vm2\n", "error EINVAL usage: guestrelay "
		  "status [VM]\n" },
		{ "text status nosuch\n", "error ENOENT no VM named 'nosuch' "
		  "(guestrelay status lists them)\n" },
		{ "text status ../etc\n", "error EINVAL '../etc': bad VM name" },
		{ "text enable vm1\n", "error EINVAL usage: guestrelay enable "
		  "VM EVENT... [--filter EXPR] [--pid LIST] [--comm GLOB] "
		  "[--no-fork]\n" },
		{ "text enable\n", "error EINVAL usage" },
		{ "text enable nosuch sched_switch\n", "error ENOENT no VM "
		  "named 'nosuch'" },
		{ "text enable vm1 foo\n", "error ENOENT unknown event 'foo' "
		  "in vm1 (available: sched_switch, sched_wakeup" },
		{ "text disable vm1 sched_* bar\n", "error ENOENT unknown "
		  "event 'bar' in vm1" },
		{ "text mode vm1\n", "error EINVAL usage: guestrelay mode VM "
		  "stream|flight\n" },
		{ "text mode vm1 turbo\n", "error EINVAL mode is stream or "
		  "flight, not 'turbo'\n" },
		{ "text mode vm1 stream extra\n", "error EINVAL usage" },
		{ "text flush\n", "error EINVAL usage: guestrelay flush VM\n" },
		{ "text snapshot vm1 vm2\n", "error EINVAL usage" },
		{ "text stop nosuch\n", "error ENOENT no VM named 'nosuch'" },
		{ "text start\n", "error EINVAL usage: guestrelay start VM\n" },
		{ "text vm-add\n", "error EINVAL usage: guestrelay vm-add VM "
		  "[OPTION...]\n" },
		{ "text vm-add vm9 --size 3M\n", "error EINVAL --size must be "
		  "a power of two from 64K to 1T (e.g. 16M), not '3M'\n" },
		{ "text vm-add vm9 --bogus\n", "error EINVAL vm-add has no "
		  "option '--bogus'\n" },
		{ "text vm-add vm9 --owner root\n", "error EINVAL --owner "
		  "wants UID[:GID], not 'root'\n" },
		{ "text vm-add .hidden\n", "error EINVAL bad VM name" },
		{ "text vm-add vm1\n", "error EEXIST a VM named 'vm1' exists "
		  "already (guestrelay vm-remove vm1 first)\n" },
		{ "text vm-add fail-me\n", "error ENOSPC cannot create "
		  "/dev/shm/guestrelay-fail-me: No space left on device\n" },
		{ "text vm-remove\n", "error EINVAL usage" },
		{ "text vm-remove nosuch\n", "error ENOENT no VM named" },
		{ "text ping extra\n", "error EINVAL usage: guestrelay ping\n" },
		{ "json mode vm1 turbo\n", "error EINVAL mode is stream" },
	};
	size_t i;

	fake_add("vm1");
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		expect(cases[i].req, cases[i].ans);
	fake_clear();
}

static void test_commands_reach_the_vm_and_answer(void)
{
	struct gr_vm *vm;

	expect("text status\n", "ok\nno VMs (add one with: guestrelay "
	       "vm-add VM)\n");
	expect("json status\n", "ok\n{\n  \"vms\": []\n}\n");
	expect("text vm-add vm2 --size 33554432 --plain --mode flight "
	       "--events sched_*,irq_* --subbuf-size 65536 --subbufs 8 "
	       "--switch-timer-ms 100 --quota 2147483648 --owner 64055:64056\n",
	       "ok\nvm2 added: plain device, 32.0 MiB of shared memory, "
	       "flight mode\nattach it to QEMU with:  guestrelay qemu-args "
	       "vm2 --plain --size 33554432 --run-dir /tmp/test_ctl.");
	expect_vm2_opts(&last_add, 64055, 64056);
	vm = vm_find(&ag, "vm2");
	CU_ASSERT_PTR_NOT_NULL_FATAL(vm);

	expect("text mode vm2 stream\n", "ok\nvm2: mode stream requested\n");
	CU_ASSERT_EQUAL(vm->mode, GR_MODE_STREAM);
	expect("json mode vm2 flight\n",
	       "ok\n{\n  \"vm\": \"vm2\",\n  \"mode\": \"flight\"\n}\n");
	CU_ASSERT_EQUAL(vm->mode, GR_MODE_FLIGHT);
	expect("text disable vm2 all\n", "ok\nvm2: disable all requested\n");
	CU_ASSERT(!last_on);
	expect("json enable vm2 sched_switch irq_*\n",
	       "ok\n{\n  \"vm\": \"vm2\",\n  \"enable\": [\n    "
	       "\"sched_switch\",\n    \"irq_*\"\n  ]\n}\n");
	expect("text start vm2\n", "ok\n/store/vm2/session-1\n");
	expect("json start vm2\n", "ok\n{\n  \"vm\": \"vm2\",\n  "
	       "\"session\": \"/store/vm2/session-2\"\n}\n");
	vm->starts = 3;
	expect("text start vm2\n", "error EAGAIN vm2 has no guest yet\n");
	expect("text vm-remove vm2\n", "ok\nvm2 removed\n");
	CU_ASSERT_PTR_NULL(vm_find(&ag, "vm2"));
	expect("json vm-add vm3\n", "ok\n{\n  \"vm\": \"vm3\",\n  "
	       "\"device\": \"doorbell\",\n  \"size\": 16777216,\n  "
	       "\"mode\": \"stream\"\n}\n");
	CU_ASSERT(!last_add.own && !last_add.plain && !last_add.shm_size);
	CU_ASSERT(last_add.io_writev);
	expect("text vm-add vm4 --verify off\n", "ok\nvm4 added: ");
	CU_ASSERT(!last_add.verify);
	expect("text vm-add vm5 --verify maybe\n", "error EINVAL --verify is "
	       "on or off, not 'maybe'\n");
	expect("text vm-remove vm4\n", "ok\nvm4 removed\n");
	expect("json vm-remove vm3\n", "ok\n{\n  \"vm\": \"vm3\",\n  "
	       "\"removed\": true\n}\n");
}

static void test_status_shows_every_field_and_escapes_guest_strings(void)
{
	struct gr_vm *vm;
	char *ans;

	fake_add("vm0");
	vm = fake_add("vm1");
	strcpy(vm->enabled, "sched_switch,sched_wakeup");
	/* a hostile guest's nodename */
	strcpy(vm->nodename, "evil\"\\\n\x01\x1b[31m\x7f\xff");
	strcpy(vm->session, "/store/vm1/s1");

	ans = request("text status vm1\n");
	CU_ASSERT(strncmp(ans, "ok\nvm1\n", 7) == 0);
	CU_ASSERT_PTR_NULL(strchr(ans, '\x1b'));
	CU_ASSERT_PTR_NULL(strchr(ans, '\x01'));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  guest         Linux "
		"6.1.0-56-amd64 on evil\"\\x5c\\x0a\\x01\\x1b[31m\\x7f\\xff\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  state         attached, guest "
				      "tracing\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  device        doorbell, QEMU "
				      "connected\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  buffers       2 CPUs (rings) "
				      "x 16 sub-buffers of 64.0 KiB\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  mode          stream, records "
				      "verified (copy), writes writev\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  events        sched_switch,"
				      "sched_wakeup\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  recorded      123456 events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  stored        42 packets, 2.6 "
				      "MiB (2752512 bytes), 1.5 KiB/s\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  lost          full 7, too_big "
				      "1, nested 2 events; overwritten 3 "
				      "sub-buffers\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  invalid       4 sub-buffers "
				      "dropped (0 for a bad record), 5 "
				      "skipped"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  doorbells     in 10, out 11"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  clock sync    error +/- 12.0 "
				      "us, offset -1.500000000 s\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  quota         3.0 MiB of 1.0 "
				      "GiB used (0.3%)\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  stop reason   -\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  session       /store/vm1/s1\n"));
	free(ans);

	/* all VMs, separated by an empty line */
	ans = request("text status\n");
	CU_ASSERT(strncmp(ans, "ok\nvm0\n", 7) == 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\n\nvm1\n"));
	free(ans);

	ans = request("json status\n");
	CU_ASSERT_FATAL(strncmp(ans, "ok\n", 3) == 0);
	CU_ASSERT_EQUAL(python_json_ok(ans + 3), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\"nodename\": \"evil\\\"\\\\\\n"
				      "\\u0001\\u001b[31m\\u007f\\ufffd\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\"events\": [\n        "
				      "\"sched_switch\",\n        "
				      "\"sched_wakeup\"\n      ]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\"stop_reason\": null"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\"sync_offset_ns\": -1500000000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\"lost_full\": 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "\"rate_bps\": 1536"));
	free(ans);
	fake_clear();
}

static void test_async_commands_answer_when_the_vm_calls_back(void)
{
	struct gr_vm *vm = fake_add("vm1");
	char *ans;
	int fd;

	fd = client_connect();
	client_send(fd, "text snapshot vm1\n", 18);
	pump(20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vm->done);
	CU_ASSERT_STRING_EQUAL(vm->kind, "snapshot");
	/* a second one on the same VM is refused while it runs */
	expect("text flush vm1\n", "error EBUSY vm1 is busy with another "
	       "flush, snapshot or stop; try again when it is done\n");
	fake_complete(vm, 0, "/store/vm1/snapshot-1");
	ans = client_read(fd, 3000);
	CU_ASSERT_STRING_EQUAL(ans, "ok\n/store/vm1/snapshot-1\n");
	free(ans);

	fd = client_connect();
	client_send(fd, "json stop vm1\n", 14);
	pump(20);
	fake_complete(vm, 0, "/store/vm1/s1");
	ans = client_read(fd, 3000);
	CU_ASSERT_STRING_EQUAL(ans, "ok\n{\n  \"vm\": \"vm1\",\n  \"trace\": "
			       "\"/store/vm1/s1\"\n}\n");
	free(ans);

	fd = client_connect();
	client_send(fd, "text flush vm1\n", 15);
	pump(20);
	fake_complete(vm, -ETIMEDOUT, "vm1 did not flush within 5 s (is the "
		      "guest alive?)");
	ans = client_read(fd, 3000);
	CU_ASSERT_STRING_EQUAL(ans, "error ETIMEDOUT vm1 did not flush within "
			       "5 s (is the guest alive?)\n");
	free(ans);

	/* a client that shut down its sending side still gets the answer */
	fd = client_connect();
	client_send(fd, "text flush vm1\n", 15);
	shutdown(fd, SHUT_WR);
	pump(50);
	fake_complete(vm, 0, NULL);
	ans = client_read(fd, 3000);
	CU_ASSERT_STRING_EQUAL(ans, "ok\nvm1: flush done\n");
	free(ans);

	/* a stopped VM says how to start it again */
	vm->stopped = true;
	expect("text stop vm1\n", "error ENOTCONN vm1 is stopped (guestrelay "
	       "start vm1 opens a new session)\n");
	vm->stopped = false;

	/* a callback from inside vm_flush() itself */
	vm->sync_done = true;
	expect("text flush vm1\n", "ok\nvm1: flush done\n");
	expect("text stop vm1\n", "ok\n/store/vm1/stop-sync\n");
	fake_clear();
}

static void test_async_callback_after_client_hung_up_is_safe(void)
{
	struct gr_vm *vm = fake_add("vm1");
	int fd;

	/* hang up, let the agent notice, then the VM calls back */
	fd = client_connect();
	client_send(fd, "text snapshot vm1\n", 18);
	pump(20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vm->done);
	close(fd);
	pump(50);
	fake_complete(vm, 0, "/store/vm1/snap");
	pump(20);

	/* hang up, and the VM calls back before the agent noticed */
	fd = client_connect();
	client_send(fd, "text stop vm1\n", 14);
	pump(20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vm->done);
	close(fd);
	fake_complete(vm, -EIO, NULL);
	pump(50);

	/* the VM goes away with a command pending */
	fd = client_connect();
	client_send(fd, "text flush vm1\n", 15);
	pump(20);
	close(fd);
	pump(20);
	expect("text vm-remove vm1\n", "ok\nvm1 removed\n");

	/* everything freed: all 64 slots are there again (ASan: no leak) */
	expect("text ping\n", "ok\n");
}

/* connections of the server in @state */
static unsigned int conns_in(enum conn_state state)
{
	struct ctl_conn *c;
	unsigned int n = 0;

	for (c = ag.ctl->conns; c; c = c->next)
		n += c->state == state;
	return n;
}

static void test_client_that_does_not_read_never_delays_others(void)
{
	enum { NR_VMS = 600 };	/* JSON larger than a socket buffer */
	char name[16], *ans, *p;
	uint64_t t0, dt;
	unsigned int n;
	int hog, idle, i;

	for (i = 0; i < NR_VMS; i++) {
		snprintf(name, sizeof(name), "vm%04d", i);
		fake_add(name);
	}
	/*
	 * Two clients ask for a status larger than a socket buffer and do
	 * not read; a third one, right behind them, pings. Its answer must
	 * not wait for theirs.
	 */
	hog = client_connect();
	client_send(hog, "json status\n", 12);
	idle = client_connect();
	client_send(idle, "json status\n", 12);
	for (i = 0; i < 5; i++) {
		t0 = now_ms();
		ans = request("text ping\n");
		dt = now_ms() - t0;
		CU_ASSERT(strncmp(ans, "ok\nguestrelay agent", 19) == 0);
		CU_ASSERT(dt < 1000);	/* a blocking send took 2 s */
		if (dt >= 1000)
			fprintf(stderr, "\n  ping took %llu ms\n",
				(unsigned long long)dt);
		free(ans);
	}
	/* the rest of their answers waits in the agent */
	CU_ASSERT_EQUAL(conns_in(CONN_WRITING), 2);

	/* a client that reads late gets the whole answer, intact */
	ans = client_read(hog, 3000);
	CU_ASSERT_FATAL(strncmp(ans, "ok\n", 3) == 0);
	CU_ASSERT_EQUAL(python_json_ok(ans + 3), 0);
	for (n = 0, p = ans; (p = strstr(p, "\"name\": \"vm")); p++)
		n++;
	CU_ASSERT_EQUAL(n, NR_VMS);
	free(ans);

	/* one that never reads is dropped after the reply timeout, counted */
	pump(CTL_REPLY_TIMEOUT_MS + 200);
	CU_ASSERT_EQUAL(conns_in(CONN_WRITING), 0);
	expect_has("json ping\n", "\"dropped_clients\": 1");
	close(idle);
	fake_clear();
}

static void test_finish_answers_waiting_clients_and_removes_socket(void)
{
	struct gr_vm *vm = fake_add("vm1");
	char *ans;
	int fd, idle;

	idle = client_connect();
	fd = client_connect();
	client_send(fd, "text stop vm1\n", 14);
	pump(20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vm->done);
	ctl_finish(&ag);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
	CU_ASSERT_PTR_NULL(ag.ctl);
	ans = client_read(fd, 100);
	CU_ASSERT_STRING_EQUAL(ans, "error ECANCELED the agent is stopping; "
			       "the command may or may not complete\n");
	free(ans);
	ans = client_read(idle, 100);
	CU_ASSERT_STRING_EQUAL(ans, "");
	free(ans);
	/* the VM's late callback frees the orphaned connection */
	fake_complete(vm, 0, "/store/vm1/s1");
	fake_clear();
	CU_ASSERT_EQUAL_FATAL(start_ctl((unsigned int)-1), 0);
	expect("text ping\n", "ok\n");
}

/* ======================================================================
 * The CLI, in a forked child, against this server
 * ====================================================================== */

struct cli_args {
	int argc;
	char *argv[16];
};

static int child_cli(void *arg)
{
	struct cli_args *ca = arg;

	return cli_main(ca->argc, ca->argv);
}

static void cli(struct child_out *co, ...)
{
	struct cli_args ca = { 0 };
	va_list ap;
	char *s;

	va_start(ap, co);
	while ((s = va_arg(ap, char *)) && ca.argc < 15)
		ca.argv[ca.argc++] = s;
	va_end(ap);
	run_child(co, child_cli, &ca);
}

static void test_cli_talks_to_the_agent(void)
{
	struct child_out co;
	char rd[160];

	snprintf(rd, sizeof(rd), "--run-dir=%s", tmpdir);
	fake_add("vm1");
	cli(&co, "--run-dir", tmpdir, "ping", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "guestrelay agent ", 17) == 0);
	/* global options after the command, too */
	cli(&co, "status", "vm1", "--json", rd, NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "{\n  \"vms\": [", 12) == 0);
	/* arguments with spaces and newlines cannot break the framing */
	cli(&co, rd, "enable", "vm1", "sched switch\nping", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err, "guestrelay: malformed request: "
			       "argument 2 after the command is empty, badly "
			       "percent-encoded or has a control character\n");
	cli(&co, rd, "enable", "vm1", "sched switch", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err, "guestrelay: unknown event 'sched "
			       "switch' in vm1 (available: sched_switch, "
			       "sched_wakeup, sched_process_fork, "
			       "irq_handler_entry, irq_handler_exit)\n");
	cli(&co, rd, "enable", "vm1", "sched_*", "irq_handler_entry", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(last_list, "sched_*,irq_handler_entry");
	cli(&co, rd, "status", "nosuch", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err, "guestrelay: no VM named 'nosuch' "
			       "(guestrelay status lists them)\n");
	/* vm-add resolves user names on the client */
	cli(&co, rd, "vm-add", "vmx", "--owner", "root", "--size", "1G",
	    "--events", "sched_switch", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(last_add.own && last_add.uid == 0 && last_add.gid == 0);
	CU_ASSERT_EQUAL(last_add.shm_size, 1ULL << 30);
	CU_ASSERT_STRING_EQUAL(last_add.events, "sched_switch");
	/* the environment names the run directory */
	setenv("GUESTRELAY_RUN_DIR", tmpdir, 1);
	cli(&co, "vm-remove", "vmx", NULL);
	unsetenv("GUESTRELAY_RUN_DIR");
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(co.out, "vmx removed\n");
	fake_clear();
}

/* spec 14.6: filter, enable --filter, status, vm-add --filter */
static void test_filter_commands(void)
{
	struct child_out co;
	struct gr_vm *vm;
	char rd[160];

	snprintf(rd, sizeof(rd), "--run-dir=%s", tmpdir);
	vm = fake_add("vm1");
	expect("text filter vm1 sched_switch prev_tid%20==%2042\n",
	       "ok\nvm1: sched_switch: filter prev_tid == 42 requested\n");
	CU_ASSERT_STRING_EQUAL(vm->opts.filters[0].expr, "prev_tid == 42");
	expect("json filter vm1 sched_switch --clear\n",
	       "ok\n{\n  \"vm\": \"vm1\",\n  \"event\": \"sched_switch\",\n"
	       "  \"filter\": null\n}\n");
	CU_ASSERT_EQUAL(vm->opts.filters[0].event[0], '\0');
	expect("text filter vm1 sched_switch --clear\n",
	       "error ENOENT vm1 has no filter on sched_switch\n");
	expect("text filter vm1 sched_switch\n",
	       "error EINVAL filter needs an expression or --clear\n");
	expect("text filter vm1 sched_switch --clear x\n",
	       "error EINVAL filter VM EVENT takes one expression or "
	       "--clear\n");
	expect("text filter vm1 sched_switch next_pidd%20==%201\n",
	       "error EINVAL no field 'next_pidd' in sched_switch; did you "
	       "mean next_tid? (column 1-9)\n");
	/* enable --filter: the filter first, all or nothing, then enable */
	expect("text enable vm1 sched_switch --filter prev_tid%20>%200\n",
	       "ok\nvm1: enable sched_switch requested\n");
	CU_ASSERT_STRING_EQUAL(vm->opts.filters[0].expr, "prev_tid > 0");
	CU_ASSERT_STRING_EQUAL(last_list, "sched_switch");
	expect("text enable vm1 sched_wakeup --filter pid%20==%201\n",
	       "error ENOENT no event 'sched_wakeup' in vm1\n");
	expect("text disable vm1 sched_switch --filter x\n",
	       "error EINVAL disable takes no --filter");
	expect("text enable vm1 --filter x\n",
	       "error EINVAL enable needs an event\n");
	expect_has("text status vm1\n", "  filters       sched_switch: "
		   "prev_tid > 0 [active], 99 filtered out (guest count)\n");
	expect_has("json status vm1\n", "\"filters\": [\n        {\n"
		   "          \"event\": \"sched_switch\",\n"
		   "          \"filter\": \"prev_tid > 0\",\n"
		   "          \"state\": \"active\",\n"
		   "          \"why\": null,\n"
		   "          \"filtered\": 99\n");

	/* the CLI draws the caret under the offending token */
	cli(&co, rd, "filter", "vm1", "sched_switch",
	    "prev_tid == 1 && next_pidd == 2", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err,
		"guestrelay: no field 'next_pidd' in sched_switch; did you "
		"mean next_tid?\n"
		"  prev_tid == 1 && next_pidd == 2\n"
		"                   ^~~~~~~~~\n");
	cli(&co, rd, "enable", "vm1", "sched_switch", "--filter",
	    "prev_comm < 3", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err,
		"guestrelay: operator '<' does not apply to text field "
		"'prev_comm'; use ==, != or ~\n"
		"  prev_comm < 3\n"
		"            ^\n");
	cli(&co, rd, "filter", "vm1", "sched_switch", "next_tid == 7", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(co.out, "vm1: sched_switch: filter next_tid == "
			       "7 requested\n");
	cli(&co, rd, "filter", "vm1", "sched_switch", "--clear", "x", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "filter", "vm1", "sched_switch", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "filter", "vm1", "sched_switch", "--clear", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(co.out, "vm1: sched_switch: filter cleared\n");
	/* vm-add --filter, through the one options parser */
	cli(&co, rd, "vm-add", "vmf", "--filter",
	    "sched_switch:prev_tid == 42 || next_tid == 42", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(last_add.filters[0].event, "sched_switch");
	CU_ASSERT_STRING_EQUAL(last_add.filters[0].expr,
			       "prev_tid == 42 || next_tid == 42");
	fake_clear();
}

/* spec 15: filter VM --pid/--comm/--clear, enable --pid, vm-add --pid */
static void test_follow_commands(void)
{
	struct child_out co;
	struct gr_vm *vm;
	char rd[160];

	snprintf(rd, sizeof(rd), "--run-dir=%s", tmpdir);
	vm = fake_add("vm1");
	expect("text filter vm1 --pid 812,900\n",
	       "ok\nvm1: follow pid 812,900 and their children requested\n");
	CU_ASSERT_EQUAL(vm->opts.follow.flags,
			GR_FOLLOW_F_ON | GR_FOLLOW_F_FORK);
	CU_ASSERT_EQUAL(vm->opts.follow.nr_pids, 2);
	CU_ASSERT_EQUAL(vm->opts.follow.pids[1], 900);
	expect("text filter vm1 --comm nginx* --no-fork\n",
	       "ok\nvm1: follow comm nginx* requested\n");
	CU_ASSERT_EQUAL(vm->opts.follow.flags, GR_FOLLOW_F_ON);
	CU_ASSERT_STRING_EQUAL(vm->opts.follow.comm, "nginx*");
	expect("json filter vm1 --clear\n",
	       "ok\n{\n  \"vm\": \"vm1\",\n  \"follow\": null\n}\n");
	CU_ASSERT_EQUAL(vm->opts.follow.flags, 0);
	expect("text filter vm1 --clear\n",
	       "error ENOENT vm1 has no follow filter\n");
	expect("text filter vm1 --pid 0\n",
	       "error EINVAL --pid wants thread ids from 1 to 4194303 "
	       "separated by commas, not '0'\n");
	expect("text filter vm1 --pid 5,5\n",
	       "error EINVAL --pid: 5 given twice\n");
	expect("text filter vm1 --pid 5,\n",
	       "error EINVAL --pid wants thread ids from 1 to 4194303 "
	       "separated by commas, not '5,'\n");
	expect("text filter vm1 --no-fork\n",
	       "error EINVAL filter VM needs --pid LIST or --comm GLOB, or "
	       "--clear alone\n");
	expect("text filter vm1 --pid 5 --clear\n",
	       "error EINVAL filter VM needs --pid LIST or --comm GLOB, or "
	       "--clear alone\n");
	/* enable --pid: the follow filter, then the events */
	expect("text enable vm1 sched_switch --pid 42\n",
	       "ok\nvm1: enable sched_switch requested\n");
	CU_ASSERT_EQUAL(vm->opts.follow.pids[0], 42);
	expect("text disable vm1 sched_switch --pid 42\n",
	       "error EINVAL disable takes no --pid");
	expect_has("text status vm1\n", "  follow        pid 42 and their "
		   "children [active], 3 tasks followed, 2 children added, 77 "
		   "records of other tasks left out\n");
	expect_has("json status vm1\n", "\"follow\": {\n");
	/* the CLI passes the options through */
	cli(&co, rd, "filter", "vm1", "--pid", "7", "--comm", "sh", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(co.out, "vm1: follow pid 7; comm sh and their "
			       "children requested\n");
	cli(&co, rd, "filter", "vm1", "--no-fork", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "filter", "vm1", "sched_switch", "--pid", "7", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "filter", "vm1", "--clear", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(co.out, "vm1: follow filter cleared\n");
	/* vm-add --pid --comm --no-fork, through the one options parser */
	cli(&co, rd, "vm-add", "vmf", "--pid", "1,2", "--comm", "a*",
	    "--no-fork", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_EQUAL(last_add.follow.nr_pids, 2);
	CU_ASSERT_EQUAL(last_add.follow.flags, GR_FOLLOW_F_ON);
	CU_ASSERT_STRING_EQUAL(last_add.follow.comm, "a*");
	cli(&co, rd, "vm-add", "vmf", "--no-fork", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	fake_clear();
}

static void test_cli_usage_errors_exit_2_and_say_why(void)
{
	static const struct {
		const char *argv[5];
		const char *err;
	} cases[] = {
		{ { "frob" }, "guestrelay: unknown command 'frob' (guestrelay "
		  "help lists them)\n" },
		{ { "status", "--bogus" }, "guestrelay: status has no option "
		  "'--bogus'\n" },
		{ { "status", "a", "b" }, "guestrelay: too many arguments ('b')"
		  "\nusage: guestrelay status [--json] [VM]\n" },
		{ { "enable", "vm1" }, "guestrelay: enable needs more "
		  "arguments\n" },
		{ { "mode", "vm1", "fast" }, "guestrelay: mode is stream or "
		  "flight, not 'fast'\n" },
		{ { "stop", "../x" }, "guestrelay: '../x': bad VM name" },
		{ { "vm-add", "vm1", "--size", "3M" }, "guestrelay: --size "
		  "must be a power of two" },
		{ { "vm-add", "vm1", "--owner", "no-such-user-here" },
		  "guestrelay: --owner: no user named 'no-such-user-here'\n" },
		{ { "--timeout", "x", "ping" }, "guestrelay: --timeout needs "
		  "seconds" },
		{ { "--run-dir" }, "guestrelay: --run-dir needs a directory\n" },
		{ { "--run-dir", "/x", "agent" }, "guestrelay: give the "
		  "agent's options after `agent`" },
		{ { "report", "--json", "dir" }, "guestrelay: report prints "
		  "text only" },
		{ { "report", "--cpu", "-1", "dir" }, "guestrelay: --cpu wants "
		  "a CPU number" },
		{ { "report", "--summary", "--cpu", "1", "d" }, "guestrelay: "
		  "--summary covers the whole trace" },
		{ { "report" }, "guestrelay: report needs more arguments" },
		{ { "qemu-args", "vm1", "--size", "16M" }, "guestrelay: --size "
		  "is for --plain" },
		{ { "qemu-args", "vm1", "--vectors", "1" }, "guestrelay: "
		  "--vectors must be from 2 to 64, not '1'" },
		{ { "libvirt-xml", "vm1", "--plain", "--size", "100K" },
		  "guestrelay: --size must be a power of two" },
		{ { "qemu-args", "vm1", "--id", "1bad" }, "guestrelay: QEMU "
		  "would not accept" },
		{ { "help", "frob" }, "guestrelay: no command 'frob'" },
		{ { NULL }, "usage: guestrelay [--run-dir DIR]" },
	};
	struct child_out co;
	struct cli_args ca;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&ca, 0, sizeof(ca));
		while (ca.argc < 5 && cases[i].argv[ca.argc]) {
			ca.argv[ca.argc] = (char *)cases[i].argv[ca.argc];
			ca.argc++;
		}
		run_child(&co, child_cli, &ca);
		if (co.status != 2 || strncmp(co.err, cases[i].err,
					      strlen(cases[i].err)))
			fprintf(stderr, "\n  case %zu: status %d, '%s'\n", i,
				co.status, co.err);
		CU_ASSERT_EQUAL(co.status, 2);
		CU_ASSERT(strncmp(co.err, cases[i].err,
				  strlen(cases[i].err)) == 0);
		CU_ASSERT_STRING_EQUAL(co.out, "");
	}
}

static void test_cli_without_agent_says_how_to_start_it(void)
{
	struct child_out co;

	cli(&co, "--run-dir", "/nonexistent/gr", "status", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err, "guestrelay: cannot reach the agent at "
			       "/nonexistent/gr/agent.sock: No such file or "
			       "directory (is `guestrelay agent` running? "
			       "--run-dir or GUESTRELAY_RUN_DIR name another "
			       "agent)\n");
	CU_ASSERT_STRING_EQUAL(co.out, "");
}

static void test_cli_local_commands_print_qemu_and_libvirt_config(void)
{
	struct child_out co;

	cli(&co, "--run-dir", "/run/gr", "qemu-args", "vm1", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(co.out, "-chardev socket,id=guestrelay-chr,"
			       "path=/run/gr/vm1.sock -device "
			       "ivshmem-doorbell,id=guestrelay,"
			       "chardev=guestrelay-chr,vectors=2,"
			       "ioeventfd=on\n");
	cli(&co, "qemu-args", "vm1", "--plain", "--size", "32M", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "mem-path=/dev/shm/"
				      "guestrelay-vm1,size=32M"));
	cli(&co, "qemu-args", "vm1", "--json", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_EQUAL(python_json_ok(co.out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "\"args\": [\n    "
				      "\"-chardev\",\n"));
	cli(&co, "--run-dir", "/run/gr", "libvirt-xml", "vm1", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "<shmem name='guestrelay-vm1'>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "<server path='/run/gr/"
				      "vm1.sock'/>"));
	cli(&co, "libvirt-xml", "vm1", "--plain", "--json", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_EQUAL(python_json_ok(co.out), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "ivshmem-plain"));
	cli(&co, "--version", NULL);
	CU_ASSERT_STRING_EQUAL(co.out, "guestrelay " GR_VERSION
			       " (ABI 1.2)\n");
	cli(&co, "help", "vm-add", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "usage: guestrelay vm-add VM", 27) == 0);
	cli(&co, "stop", "--help", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT(strncmp(co.out, "usage: guestrelay stop VM", 25) == 0);
	/* one error, said once */
	cli(&co, "report", "/nonexistent/trace", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(co.err, "error: /nonexistent/trace: No such "
			       "file or directory\n");
	CU_ASSERT_STRING_EQUAL(co.out, "");
}

/* help lists every command of the table, and help COMMAND knows each */
static void test_help_knows_every_command(void)
{
	struct child_out co, one;
	char want[128], line[128];
	const char *name;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cli_command_name(0));
	cli(&co, "help", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	for (i = 0; (name = cli_command_name(i)); i++) {
		snprintf(line, sizeof(line), "\n  %s", name);
		CU_ASSERT_PTR_NOT_NULL(strstr(co.out, line));
		cli(&one, "help", name, NULL);
		CU_ASSERT_EQUAL(one.status, 0);
		CU_ASSERT_STRING_EQUAL(one.err, "");
		snprintf(want, sizeof(want), "usage: guestrelay %s", name);
		CU_ASSERT(strncmp(one.out, want, strlen(want)) == 0);
		if (strncmp(one.out, want, strlen(want)))
			fprintf(stderr, "help %s: %.60s\n", name, one.out);
	}
	cli(&co, "help", "nosuch", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	CU_ASSERT_STRING_EQUAL(co.err, "guestrelay: no command 'nosuch' "
			       "(guestrelay help lists them)\n");
}

static const struct gr_test tests[] = {
	GR_TEST(test_percent_encoding_round_trips_every_byte),
	GR_TEST(test_percent_decoding_refuses_malformed_arguments),
	GR_TEST(test_sizes_parse_with_binary_suffixes),
	GR_TEST(test_vm_names_are_checked),
	GR_TEST(test_vm_add_options_fill_opts_and_round_trip),
	GR_TEST(test_vm_add_option_errors_say_what_is_wrong),
	GR_TEST(test_json_writer_escapes_everything_and_checks_nesting),
	GR_TEST(test_text_output_escapes_terminal_controls),
	GR_TEST(test_libvirt_metadata_round_trips_through_the_one_parser),
	GR_TEST(test_libvirt_metadata_errors_say_what_is_wrong),
	GR_TEST(test_socket_is_0660_with_the_agents_group),
	GR_TEST(test_stale_socket_is_replaced_live_one_and_files_are_not),
	GR_TEST(test_ping_answers_with_version),
	GR_TEST(test_framing_errors_are_answered),
	GR_TEST(test_percent_encoded_arguments_reach_the_vm_decoded),
	GR_TEST(test_long_request_line_is_refused),
	GR_TEST(test_slow_client_is_timed_out),
	GR_TEST(test_more_than_64_clients_are_refused_then_served_again),
	/* runs children as other users */
	GR_TEST_ROOT(test_peers_are_checked_by_credentials),
	GR_TEST(test_command_argument_errors),
	GR_TEST(test_commands_reach_the_vm_and_answer),
	GR_TEST(test_status_shows_every_field_and_escapes_guest_strings),
	GR_TEST(test_async_commands_answer_when_the_vm_calls_back),
	GR_TEST(test_async_callback_after_client_hung_up_is_safe),
	GR_TEST(test_client_that_does_not_read_never_delays_others),
	GR_TEST(test_finish_answers_waiting_clients_and_removes_socket),
	GR_TEST(test_cli_talks_to_the_agent),
	GR_TEST(test_filter_commands),
	GR_TEST(test_follow_commands),
	GR_TEST(test_cli_usage_errors_exit_2_and_say_why),
	GR_TEST(test_cli_without_agent_says_how_to_start_it),
	GR_TEST(test_cli_local_commands_print_qemu_and_libvirt_config),
	GR_TEST(test_help_knows_every_command),
};

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return gr_test_main("ctl", tests, ARRAY_SIZE(tests), suite_init,
			    suite_clean);
}
