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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cli.h"
#include "cli_agent.h"
#include "cli_args.h"
#include "cli_attach.h"
#include "cli_trace.h"
#include "collect.h"
#include "common.h"
#include "fleet_status.h"
#include "libvirt.h"

#define CLI_TIMEOUT_DEFAULT	60	/* seconds to wait for an answer */

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
	{ "status", cli_run_status, NULL, "status [--json] [VM]",
	  "Show every VM the agent serves, or one: agent and guest state,\n"
	  "device, buffers, mode, enabled events, events recorded, packets\n"
	  "and bytes stored, rate, events lost by cause, invalid and skipped\n"
	  "sub-buffers, doorbells, clock sync error, quota and usage, why the\n"
	  "stream stopped, and the session's trace directory.\n" },
	{ "enable", cli_run_events, NULL, "enable VM EVENT... [--filter EXPR] "
	  "[--pid LIST] [--comm GLOB] [--no-fork]",
	  "Ask the guest to record EVENTs: names (sched_switch), globs\n"
	  "(sched_*, irq_*), systems (sched), SYSTEM:NAME (block:block_rq_*),\n"
	  "SYSTEM: (every event of it) or all. A guest that takes events by\n"
	  "name (`guestrelay events VM`) is asked for those it does not\n"
	  "record yet, and the answer says per event: added, known, or\n"
	  "refused with the guest's reason. `guestrelay status VM` shows\n"
	  "what the guest records once it applied the request.\n"
	  "  --filter EXPR  record only the events EXPR accepts (see\n"
	  "                 `guestrelay help filter`); EVENTs are then names\n"
	  "  --pid LIST     record only events of these tasks and of the tasks\n"
	  "                 they fork from now on (`guestrelay help filter`)\n"
	  "  --comm GLOB    the same for tasks whose name matches GLOB\n"
	  "  --no-fork      not the children forked from now on\n" },
	{ "filter", cli_run_filter, NULL, "filter VM EVENT EXPR|--clear, filter VM "
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
	{ "events", cli_run_names, NULL, "events [--json] VM [GLOB]",
	  "List the trace events of the guest's kernel, or those GLOB names\n"
	  "(SYSTEM:NAME, SYSTEM: or NAME, globs in both parts), with their\n"
	  "state and fields: native (the guest's own table), by name (added\n"
	  "at run time), available (`guestrelay enable VM SYSTEM:NAME` adds\n"
	  "it) or refused with the reason. Needs a guest with events by\n"
	  "name (spec 1.7, GR_F_ANYEVENT).\n" },
	{ "probe", cli_run_probe, NULL, "probe [--json] VM "
	  "['p:NAME SYMBOL[+OFFS] [FETCHARG...]' | 'r:NAME SYMBOL ...' | "
	  "-:NAME | --delete-all]",
	  "Define a kprobe event in the guest's kernel, in the syntax of\n"
	  "tracefs kprobe_events (p: a probe, r[MAXACTIVE]: a return probe;\n"
	  "a NAME is required), and record it: the guest creates it in the\n"
	  "group guestrelay, the agent adopts its descriptor and enables\n"
	  "guestrelay:NAME as `enable` does. The guest's refusal is printed\n"
	  "with its errno and the kernel's reason. -:NAME deletes the probe,\n"
	  "--delete-all every probe the agent defined; with no definition,\n"
	  "the probes the agent defined in VM (event, id, state, definition).\n"
	  "The agent deletes its probes at vm-remove and when it stops, and\n"
	  "defines them again when the guest publishes its buffers anew\n"
	  "(vm-add --probe DEF: at every attach). At most 16 per VM. Needs a guest with probes from the host (spec\n"
	  "1.8, GR_F_PROBE; its module parameter hostprobe=0 forbids them).\n"
	  "  guestrelay probe vm1 'p:myopen do_sys_openat2 dfd=%di "
	  "path=+0(%si):ustring'\n"
	  "  guestrelay probe vm1 'r:myread vfs_read ret=$retval:s64'\n"
	  "  guestrelay probe vm1 -:myopen\n" },
	{ "disable", cli_run_events, NULL, "disable VM EVENT...",
	  "Ask the guest to stop recording EVENTs (names, globs or all).\n" },
	{ "hist", cli_run_hist, NULL, "hist VM EVENT 'keys=...' [--filter EXPR], "
	  "hist VM --latency runq|syscall|block|irq [--filter EXPR], "
	  "hist VM [NAME] [--clear|--remove]",
	  "Aggregate in the guest, as ftrace's hist triggers do, without\n"
	  "recording anything: the guest counts into maps in the shared\n"
	  "region and the agent reads them in place.\n"
	  "  hist VM EVENT 'keys=FIELD[.MOD][,FIELD[.MOD]][:vals=FIELD,...]\n"
	  "      [:sort=COL[.descending],...][:size=N][:name=NAME]'\n"
	  "      [--filter EXPR]\n"
	  "    a table of EVENT by one or two keys (ftrace's syntax after\n"
	  "    \"hist:\"): FIELDs of the event, common_pid, common_cpu; MODs\n"
	  "    .log2 .buckets=N .hex .sym .execname; hitcount is always\n"
	  "    counted; --filter as for `guestrelay filter`. The table is\n"
	  "    named by name=, else after EVENT; the same name replaces it.\n"
	  "  hist VM --latency runq|syscall|block|irq [--filter EXPR]\n"
	  "    a log2 histogram of run-queue latency (wakeup to switch-in),\n"
	  "    system-call duration, block request latency or hard-IRQ time;\n"
	  "    --filter runs on the end event (sched_switch, sys_exit,\n"
	  "    block_rq_complete, irq_handler_exit)\n"
	  "  hist VM [NAME]\n"
	  "    print the tables (or one) as ftrace's hist file prints them:\n"
	  "    { key: value } hitcount: N, then Totals (Hits, Entries,\n"
	  "    Dropped, and guestrelay's Nested, Unmatched, Torn, Bad maps);\n"
	  "    --json for a document\n"
	  "  hist VM [NAME] --clear    count again from 0 (ftrace's :clear)\n"
	  "  hist VM [NAME] --remove   remove the request (ftrace's !hist)\n"
	  "At most 8 requests per VM; /metrics serves them (log2 latency\n"
	  "tables as Prometheus histograms).\n" },
	{ "mode", cli_run_mode, NULL, "mode VM stream|flight",
	  "stream: no overwrite, events are dropped and counted when the\n"
	  "buffers are full. flight: flight recorder, the oldest sub-buffers\n"
	  "are overwritten; `guestrelay snapshot VM` saves them.\n" },
	{ "flush", cli_run_vm_cmd, NULL, "flush VM",
	  "Ask the guest to hand over its partly filled sub-buffers and wait\n"
	  "until they are stored.\n" },
	{ "snapshot", cli_run_vm_cmd, NULL, "snapshot VM",
	  "Save what the buffers hold now (flight mode) as a trace of its\n"
	  "own; prints its directory.\n" },
	{ "stop", cli_run_vm_cmd, NULL, "stop VM",
	  "Stop recording, store what is left and close the session; prints\n"
	  "the finalized trace directory. `guestrelay start VM` opens a new\n"
	  "session.\n" },
	{ "rotate", cli_run_vm_cmd, NULL, "rotate VM",
	  "Close the chunk being written now (archives/BEGIN-END-ID, a whole\n"
	  "trace) and go on in the next; prints the closed chunk's directory.\n"
	  "The session is kept in chunks from then on.\n" },
	{ "start", cli_run_vm_cmd, NULL, "start VM",
	  "Open a new session (a new trace directory) and record again.\n" },
	{ "vm-add", cli_run_vm_add, NULL, "vm-add VM [OPTION...]",
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
	  "  --rotate-size BYTES  keep the session in chunks: close the chunk\n"
	  "                       being written once it holds BYTES\n"
	  "  --rotate-interval S  ... or once it is S seconds old\n"
	  "  --keep-chunks N      delete the oldest closed chunks beyond N\n"
	  "  --keep-bytes BYTES   ... beyond BYTES of closed chunks (with\n"
	  "                       --ship, only chunks already shipped)\n"
	  "  --verify on|off|stored\n"
	  "                       check every record on a private copy before\n"
	  "                       storing it (default on); off = zero copy;\n"
	  "                       stored = zero copy, then check what was stored\n"
	  "  --host-stream on|off record the host scheduler's view of QEMU's\n"
	  "                       threads in TRACE/host (default on)\n"
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
	  "  --hist 'EVENT:keys=...[ if FILTER]'\n"
	  "                       aggregate in the guest (`guestrelay help\n"
	  "                       hist`); once per table, at most 8\n"
	  "  --hist-latency 'runq|syscall|block|irq[ if FILTER]'\n"
	  "                       a latency histogram (`guestrelay help hist`);\n"
	  "                       the filter runs on the end event\n"
	  "  --probe 'p:NAME SYMBOL [FETCHARG...]'\n"
	  "                       a kprobe event defined in the guest at each\n"
	  "                       attach and recorded (`guestrelay help\n"
	  "                       probe`); repeatable, at most 16\n"
	  "Then attach QEMU (guestrelay qemu-args VM) or libvirt\n"
	  "(guestrelay libvirt-xml VM).\n" },
	{ "vm-remove", cli_run_vm_cmd, NULL, "vm-remove VM",
	  "Stop serving a VM: close its session and remove its socket.\n" },
	{ "ping", cli_run_ping, NULL, "ping",
	  "Check that the agent answers; prints its version, pid and uptime.\n" },
	{ "report", cli_run_report, NULL,
	  "report [--cpu N] [--events LIST] [--host-time | --host] [--summary] "
	  "TRACE_DIR, report --follow [--cpu N] [--events LIST] [--host-time] VM",
	  "Print a stored trace as text, one line per event, CPUs merged by\n"
	  "time (no agent needed).\n"
	  "  --follow VM    print VM's recording as it is stored, like tail\n"
	  "                 -f, until Ctrl-C: its session from its start, then\n"
	  "                 each new session (after stop/start, a new guest);\n"
	  "                 each exactly as report prints it once it ended.\n"
	  "                 Asks the agent (--run-dir) where the session is;\n"
	  "                 reads the packets the index files list. A quiet\n"
	  "                 CPU holds the output back by up to twice the switch\n"
	  "                 timer and 1 s (without a timer: until it stores\n"
	  "                 a packet or the session ends)\n"
	  "  --cpu N        only CPU N\n"
	  "  --events LIST  only these events: names, systems (sched) or\n"
	  "                 system:event, comma separated\n"
	  "  --host-time    host wall-clock time instead of guest time\n"
	  "  --host         the guest's events and its host stream\n"
	  "                 (TRACE_DIR/host: the host scheduler on QEMU's\n"
	  "                 threads) in one listing on host CLOCK_MONOTONIC:\n"
	  "                 G lines guest events [guest CPU], H lines host\n"
	  "                 events [host CPU] with vcpu=N where the thread\n"
	  "                 runs vCPU N; the preamble states the clock\n"
	  "                 mapping and its bound. --cpu N: guest CPU N and\n"
	  "                 vCPU N's thread; --summary: counts per side\n"
	  "  --summary      what the trace holds: events per type, packets,\n"
	  "                 losses and damage per CPU, time span\n" },
	{ "timeline", cli_run_timeline, NULL,
	  "timeline -o FILE.svg|FILE.html [--from S] [--to S] [--width PX] "
	  "[--latency] TRACE_DIR...",
	  "Draw stored traces as a picture (no agent needed): one lane per\n"
	  "guest CPU per trace on one time axis (host time when the clocks\n"
	  "are synchronized), the running task as slices coloured by tid,\n"
	  "IRQ and softirq marks, red marks where events were lost. A\n"
	  "session with a host stream (SESSION/host) has each CPU's lane\n"
	  "shaded where its vCPU thread was off its host CPU: preempted\n"
	  "(the host ran another task) apart from halted (sleeping).\n"
	  "  -o FILE        FILE.svg, or FILE.html (the SVG with hover details\n"
	  "                 and a latency toggle); self-contained\n"
	  "  --from S       start at S seconds after the earliest trace's\n"
	  "                 start, or at S seconds since the Epoch if S >= 1e9\n"
	  "  --to S         end there (the same two forms)\n"
	  "  --width PX     pixels of the time axis (default 1600)\n"
	  "  --latency      draw wakeup-to-run latency above the slices\n" },
	{ "steal", cli_run_steal, NULL, "steal TRACE_DIR",
	  "Per vCPU, from the trace's host stream (TRACE_DIR/host, no agent\n"
	  "needed): the time its QEMU thread was off its host CPU while\n"
	  "runnable (preempted: the guest thinks it ran; steal), while\n"
	  "sleeping (halted), and from a wakeup until it ran (woken: steal\n"
	  "too), and its longest preemption: when, on which host CPU, and\n"
	  "the task that ran instead. --json for a document.\n" },
	{ "qemu-args", cli_run_qemu_args, NULL,
	  "qemu-args VM [--plain] [--size BYTES] [--vectors N] [--id ID]",
	  "Print the QEMU options that attach VM's device (no agent needed):\n"
	  "by default ivshmem-doorbell on RUN_DIR/VM.sock with 2 vectors;\n"
	  "with --plain, ivshmem-plain on /dev/shm/guestrelay-VM of --size\n"
	  "bytes (default 16M). --id sets the QEMU id stem.\n" },
	{ "libvirt-xml", cli_run_libvirt_xml, NULL,
	  "libvirt-xml VM [--plain] [--size BYTES] [--vectors N] "
	  "[--metadata [SETTING...]]",
	  "Print the libvirt <shmem> element that attaches VM's device (put\n"
	  "it under <devices>; no agent needed). Options as for qemu-args.\n"
	  "--metadata also prints the <metadata> element that opts the\n"
	  "domain in to the libvirt hook, with these settings (the vm-add\n"
	  "options of the same name): --events LIST, --mode stream|flight,\n"
	  "--size BYTES (shared memory, doorbell or plain), --subbuf-size\n"
	  "BYTES, --subbufs N, --switch-timer-ms MS, --quota BYTES, --verify\n"
	  "on|off, --rotate-size BYTES, --rotate-interval S, --keep-chunks N,\n"
	  "--keep-bytes BYTES, --host-stream on|off, --filter EVENT:EXPR (one\n"
	  "per domain), --hist\n"
	  "'EVENT:keys=...[ if FILTER]' and --hist-latency 'PRESET[ if\n"
	  "FILTER]' (each a\n"
	  "<gr:hist> element), and "
	  "--required (libvirt refuses to start the domain untraced).\n" },
	{ "libvirt-define", cli_run_libvirt_define, NULL,
	  "libvirt-define DOMAIN [--connect URI] [--plain] [--vectors N] "
	  "[SETTING...]",
	  "Add the <metadata> element and the <shmem> device of DOMAIN to\n"
	  "its libvirt definition (virsh dumpxml, edit, virsh define); the\n"
	  "hook traces it from its next start. SETTINGs as for libvirt-xml\n"
	  "--metadata; --connect URI is virsh's -c; the socket is\n"
	  "RUN_DIR/DOMAIN.sock.\n" },
	{ "libvirt-hook", cli_run_libvirt_hook, NULL,
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
