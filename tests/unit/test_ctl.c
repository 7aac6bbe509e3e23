// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctl.c - the agent's control socket (host-agent/control/server.c
 * and commands.c): credentials, framing, commands reaching the VMs and
 * their answers, slow and vanishing clients, shutdown
 *
 * The real server runs on the real io_uring loop over a real UNIX socket
 * in a temporary run directory, with the VM functions doubled
 * (tests/lib/fake_agent.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
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
#include "hist_out.h"
#include "libvirt.h"
#include "libvirt_meta.h"
#include "opts.h"
#include "out.h"
#include "server.h"

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
	expect("text vm-add vm6 --verify stored\n", "ok\nvm6 added: ");
	CU_ASSERT_EQUAL(last_add.verify, GR_VERIFY_STORED);
	expect("text vm-remove vm6\n", "ok\nvm6 removed\n");
	expect("text vm-add vm5 --verify maybe\n", "error EINVAL --verify is "
	       "on, off or stored, not 'maybe'\n");
	CU_ASSERT(!last_add.no_host_stream);
	expect("text vm-add vm7 --host-stream off\n", "ok\nvm7 added: ");
	CU_ASSERT(last_add.no_host_stream);
	expect("text vm-remove vm7\n", "ok\nvm7 removed\n");
	expect("text vm-add vm7 --host-stream no\n", "error EINVAL "
	       "--host-stream is on or off, not 'no'\n");
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
	CU_ASSERT_PTR_NOT_NULL(strstr(ans, "  host stream   -\n"));
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

/* a running table as vm_hist_read() gives it: @nk keys named @k0, @k1 */
static void hist_table(struct gr_vm_hist_out *o, const char *name,
		       const char *event, const char *k0, const char *k1,
		       struct gr_hist_row *rows, uint32_t nr)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->h.name, sizeof(o->h.name), "%s", name);
	snprintf(o->spec.name, sizeof(o->spec.name), "%s", name);
	snprintf(o->spec.event, sizeof(o->spec.event), "%s", event);
	snprintf(o->spec.key_name[0], sizeof(o->spec.key_name[0]), "%s", k0);
	snprintf(o->spec.key_name[1], sizeof(o->spec.key_name[1]), "%s",
		 k1 ? k1 : "");
	o->spec.req.nr_keys = k1 ? 2 : 1;
	o->spec.req.entries_log2 = 11;
	o->compiled = true;
	o->state = "running";
	o->table.rows = rows;
	o->table.nr_rows = nr;
	o->table.cap = nr;
}

static char *hist_text(struct gr_vm_hist_out *o, unsigned int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int i;

	for (i = 0; i < n; i++)
		ctl_hist_sort(&o[i]);
	ctl_hist_text(f, o, n);
	fclose(f);
	return buf;
}

/* `hist VM`: ftrace's hist file (trace_events_hist.c), line for line */
static void test_hist_prints_tables_as_ftrace_hist_file(void)
{
	struct gr_hist_row pid[] = {
		{ .key = { 42 }, .hitcount = 5 },
		{ .key = { 7 }, .hitcount = 1 },
		{ .key = { 9 }, .hitcount = 4 },
	};
	struct gr_hist_row lat[] = {
		{ .key = { 10 }, .hitcount = 5 },
		{ .key = { 3 }, .hitcount = 2 },
	};
	struct gr_vm_hist_out o[2];
	char *txt;

	hist_table(&o[0], "sched_switch", "sched_switch", "prev_tid", NULL,
		   pid, 3);
	o[0].table.hits = 10;
	o[0].table.dropped = 2;
	o[0].table.torn = 1;
	hist_table(&o[1], "runq", "sched_wakeup->sched_switch", "delta",
		   NULL, lat, 2);
	o[1].spec.req.kind = GR_HIST_PAIR;
	o[1].spec.req.entries_log2 = 8;
	o[1].spec.req.key[0].src = GR_HS_DELTA;
	o[1].spec.req.key[0].xform = GR_HT_LOG2;
	o[1].spec.key_display[0] = GR_HD_NSECS;
	o[1].table.hits = 7;
	o[1].table.unmatched = 3;
	txt = hist_text(o, 2);
	CU_ASSERT_STRING_EQUAL(txt,
		"# event histogram\n"
		"#\n"
		"# trigger info: hist:keys=prev_tid:vals=hitcount:"
		"sort=hitcount:size=2048 [active]\n"
		"# guestrelay: sched_switch on sched_switch, running\n"
		"#\n"
		"\n"
		"{ prev_tid:          7 } hitcount:          1\n"
		"{ prev_tid:          9 } hitcount:          4\n"
		"{ prev_tid:         42 } hitcount:          5\n"
		"\n"
		"Totals:\n"
		"    Hits: 10\n"
		"    Entries: 3\n"
		"    Dropped: 2\n"
		"    Nested: 0\n"
		"    Torn: 1\n"
		"    Bad maps: 0\n"
		"\n\n"
		"# event histogram\n"
		"#\n"
		"# trigger info: hist:runq:keys=delta.log2:vals=hitcount:"
		"sort=hitcount:size=256 [active]\n"
		"# guestrelay: runq on sched_wakeup->sched_switch, running\n"
		"#\n"
		"\n"
		"{ delta: ~ 2^3  } hitcount:          2\n"
		"{ delta: ~ 2^10 } hitcount:          5\n"
		"\n"
		"Totals:\n"
		"    Hits: 7\n"
		"    Entries: 2\n"
		"    Dropped: 0\n"
		"    Nested: 0\n"
		"    Unmatched: 3\n"
		"    Torn: 0\n"
		"    Bad maps: 0\n");
	free(txt);
}

/* .hex, .buckets=N, vals and sort=VAL.descending; pending and refused */
static void test_hist_prints_modifiers_sort_and_states(void)
{
	struct gr_hist_row rows[] = {
		{ .key = { 0x1, 20 }, .hitcount = 1, .val = { 100 } },
		{ .key = { 0x2f, 0 }, .hitcount = 3, .val = { 300 } },
	};
	struct gr_vm_hist_out o[3];
	char *txt;

	hist_table(&o[0], "bystate", "sched_switch", "prev_state",
		   "next_prio", rows, 2);
	o[0].spec.key_display[0] = GR_HD_HEX;
	o[0].spec.req.key[1].xform = GR_HT_BUCKET;
	o[0].spec.req.key[1].arg = htole64(10);
	o[0].spec.req.nr_vals = 1;
	snprintf(o[0].spec.val_name[0], sizeof(o[0].spec.val_name[0]),
		 "bytes");
	o[0].spec.sort[0].col = GR_HIST_SORT_VAL(0);
	o[0].spec.sort[0].descending = true;
	o[0].spec.nr_sort = 1;
	o[0].spec.req.entries_log2 = 3;
	snprintf(o[0].spec.filter, sizeof(o[0].spec.filter), "prev_tid > 1");
	o[0].table.hits = 4;
	hist_table(&o[1], "later", "sched_switch", "prev_tid", NULL, NULL, 0);
	o[1].compiled = false;
	o[1].state = "waiting";
	snprintf(o[1].h.event, sizeof(o[1].h.event), "sched_switch");
	snprintf(o[1].h.text, sizeof(o[1].h.text), "keys=prev_tid:name=later");
	hist_table(&o[2], "prio", "sched_switch", "prev_tid", NULL, NULL, 0);
	o[2].state = "refused";
	snprintf(o[2].why, sizeof(o[2].why), "by the guest: bad value 0");
	txt = hist_text(o, 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(txt,
		"# trigger info: hist:bystate:keys=prev_state.hex,"
		"next_prio.buckets=10:vals=hitcount,bytes:"
		"sort=bytes.descending:size=8 if prev_tid > 1 [active]\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt,
		"\n{ prev_state: 2f, next_prio: ~ 0-9 } hitcount:          3"
		"  bytes:        300\n"
		"{ prev_state: 1, next_prio: ~ 20-29 } hitcount:          1"
		"  bytes:        100\n\nTotals:\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt,
		"# trigger info: hist:keys=prev_tid:name=later [waiting]\n"
		"# guestrelay: later on sched_switch, waiting\n#\n\n\n\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt,
		"[refused]\n# guestrelay: prio on sched_switch, refused: "
		"by the guest: bad value 0\n#\n\n"));
	/* no rows nor totals for a table that does not run */
	CU_ASSERT_PTR_NULL(strstr(strstr(txt, "Totals:") + 1, "Totals:"));
	free(txt);
}

/* a block event's rwbs key as ftrace's hist file shows its text rwbs */
static void test_hist_prints_rwbs_as_letters(void)
{
	struct gr_hist_row rows[] = {
		{ .key = { 7340032, GR_RWBS_WRITE | GR_RWBS_SYNC },
		  .hitcount = 3 },
		{ .key = { 7340032, GR_RWBS_READ | GR_RWBS_RAHEAD },
		  .hitcount = 1 },
	};
	struct gr_vm_hist_out o;
	char want[128];
	char *txt;

	hist_table(&o, "byop", "block_rq_issue", "dev", "rwbs", rows, 2);
	o.spec.key_display[1] = GR_HD_RWBS;
	o.table.hits = 4;
	txt = hist_text(&o, 1);
	snprintf(want, sizeof(want), "{ dev:    7340032, rwbs: %-50s } "
		 "hitcount:          1\n", "RA");
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "rwbs: WS "));
	free(txt);
}

/* the same tables as JSON; the command sets, reads, clears and removes */
static void test_hist_json_and_command(void)
{
	struct gr_hist_row pid[] = { { .key = { 42 }, .hitcount = 5 } };
	struct gr_vm_hist_out o;
	struct ctl_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	hist_table(&o, "sched_switch", "sched_switch", "prev_tid", NULL, pid,
		   1);
	o.table.hits = 5;
	ctl_json_init(&j, f);
	ctl_hist_json(&j, "vm1", &o, 1);
	CU_ASSERT_EQUAL(ctl_json_finish(&j), 0);
	fclose(f);
	CU_ASSERT_EQUAL(python_json_ok(buf), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"prev_tid\": 42"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"hitcount\": 5"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"trigger\": \"hist:keys=prev_tid:"
				      "vals=hitcount:sort=hitcount:size=2048\""));
	free(buf);

	fake_add("vm1");
	expect("text hist vm1\n", "ok\nvm1: no hist requests");
	expect("text hist vm1 sched_switch keys=prev_tid:name=bytid\n",
	       "ok\nvm1: hist bytid requested (guestrelay hist vm1 bytid "
	       "reads it)\n");
	expect("text hist vm1 --latency runq\n", "ok\nvm1: hist runq "
	       "requested");
	expect_has("text hist vm1 bytid\n",
		   "# trigger info: hist:keys=prev_tid:name=bytid [waiting]\n");
	expect_has("json hist vm1\n", "\"state\": \"waiting\"");
	expect("text hist vm1 runq --clear\n",
	       "ok\nvm1: hist runq cleared (counting from 0)\n");
	expect("text hist vm1 runq --remove\n", "ok\nvm1: hist runq removed\n");
	expect("text hist vm1 runq\n", "error ENOENT vm1 has no hist request "
	       "'runq'");
	expect("text hist vm1 nosuch keys=x\n", "error ENOENT no event "
	       "'nosuch' in vm1");
	expect("text hist vm1 --latency runq --clear\n", "error EINVAL hist "
	       "VM [NAME] --clear or --remove takes nothing else");
	expect("text hist vm1 sched_switch --filter x\n", "error EINVAL "
	       "--filter goes with EVENT");
	expect("text hist vm1 --bogus\n", "error EINVAL hist takes --filter");
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

static const struct gr_test tests[] = {
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
	GR_TEST(test_hist_prints_tables_as_ftrace_hist_file),
	GR_TEST(test_hist_prints_rwbs_as_letters),
	GR_TEST(test_hist_prints_modifiers_sort_and_states),
	GR_TEST(test_hist_json_and_command),
	GR_TEST(test_finish_answers_waiting_clients_and_removes_socket),
};

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return gr_test_main("ctl", tests, ARRAY_SIZE(tests),
			    fake_agent_suite_init, fake_agent_suite_clean);
}
