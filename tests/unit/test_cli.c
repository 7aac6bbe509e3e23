// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - the CLI (host-agent/cli/) in a forked child, against the
 * real control socket over fake VMs (tests/lib/fake_agent.c): requests,
 * usage errors said once, help of every command, local commands
 *
 * The real server runs on the real io_uring loop over a real UNIX socket
 * in a temporary run directory, with the VM functions doubled
 * (tests/lib/fake_agent.h).
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

extern char fake_probe_last[];	/* fake_probe.c */

/* spec 18.4: probe VM DEF | -:NAME | --delete-all | (nothing: the list) */
static void test_probe_command(void)
{
	struct child_out co;
	char rd[160];

	snprintf(rd, sizeof(rd), "--run-dir=%s", tmpdir);
	fake_add("vm1");
	/* the definition with its spaces reaches the agent whole */
	cli(&co, rd, "probe", "vm1", "p:myopen do_sys_openat2 dfd=%di "
	    "path=+0(%si):ustring", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(fake_probe_last, "p:myopen do_sys_openat2 "
			       "dfd=%di path=+0(%si):ustring");
	CU_ASSERT_STRING_EQUAL(co.err, "guestrelay: the guest of vm1 takes "
			       "no probes from the host\n");
	/* tracefs' deletion is an argument, not an option */
	cli(&co, rd, "probe", "vm1", "-:myopen", NULL);
	CU_ASSERT_EQUAL(co.status, 1);
	CU_ASSERT_STRING_EQUAL(fake_probe_last, "-:myopen");
	cli(&co, rd, "probe", "--delete-all", "vm1", NULL);
	CU_ASSERT_STRING_EQUAL(fake_probe_last, "-:*");
	cli(&co, rd, "probe", "vm1", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "EVENT"));
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "guestrelay:myopen    33  "
				      "recording  p:myopen do_sys_openat2\n"));
	cli(&co, rd, "--json", "probe", "vm1", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(co.out, "\"definition\": "
				      "\"p:myopen do_sys_openat2\""));
	CU_ASSERT_EQUAL(python_json_ok(co.out), 0);
	/* usage errors: exit 2 */
	cli(&co, rd, "probe", "vm1", "--nope", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "probe", "vm1", "p:a b", "p:c d", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "probe", "vm1", "p:a b", "--delete-all", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	cli(&co, rd, "probe", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
	/* vm-add --probe, repeatable, reaches the agent whole */
	cli(&co, rd, "vm-add", "vmp", "--probe", "p:a vfs_read x=%di",
	    "--probe", "r:b vfs_write", NULL);
	CU_ASSERT_EQUAL(co.status, 0);
	CU_ASSERT_STRING_EQUAL(last_add.probes[0], "p:a vfs_read x=%di");
	CU_ASSERT_STRING_EQUAL(last_add.probes[1], "r:b vfs_write");
	CU_ASSERT_STRING_EQUAL(last_add.probes[2], "");
	cli(&co, rd, "vm-add", "vmq", "--probe", "x:a vfs_read", NULL);
	CU_ASSERT_EQUAL(co.status, 2);
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
			       " (ABI 1.15)\n");
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
	GR_TEST(test_cli_talks_to_the_agent),
	GR_TEST(test_filter_commands),
	GR_TEST(test_probe_command),
	GR_TEST(test_follow_commands),
	GR_TEST(test_cli_usage_errors_exit_2_and_say_why),
	GR_TEST(test_cli_without_agent_says_how_to_start_it),
	GR_TEST(test_cli_local_commands_print_qemu_and_libvirt_config),
	GR_TEST(test_help_knows_every_command),
};

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return gr_test_main("cli", tests, ARRAY_SIZE(tests),
			    fake_agent_suite_init, fake_agent_suite_clean);
}
