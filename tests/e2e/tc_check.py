#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tc_check.py - a real guest's trace read as Trace Compass reads it

Usage: tc_check.py TRACE_DIR CONSOLE_LOG [HOST_BOOT_ID]

Written from Trace Compass's kernel analysis (org.eclipse.tracecompass,
read with the search tool; none of its code is copied):

- LttngKernelTrace.validate() takes a CTF trace as a kernel trace when env
  "domain" is "kernel"; getTracerFromEnv() picks the event layout from
  tracer_name "lttng-modules", tracer_major >= 2, tracer_minor >= 9
  (Lttng29EventLayout, which extends Lttng28/27/26EventLayout and
  LttngEventLayout, the IKernelAnalysisEventLayout of LTTng 2.0).
- KernelStateProvider.buildEventNames() maps each layout name to a handler
  (SchedSwitchHandler, ProcessForkHandler, ProcessFreeHandler,
  SchedWakeupHandler, StateDumpHandler, Irq*/SoftIrq*Handler, ...), and
  names starting with eventSyscallEntryPrefix()/eventSyscallExitPrefix()
  go to SysEntryHandler/SysExitHandler. The CPU of an event is the packet
  context's cpu_id (TmfCpuAspect); losses are the differences of the
  packet context's events_discarded (StreamInputPacketIndexEntry).

Checks, each printed "ok - ..." or "FAIL - ...":
  1. env: the keys above with their values, hostname, kernel_release,
     kernel_version and product_uuid the guest's (its "GR: UNAME",
     "GR: UNAMEV" and "GR: DMI" console lines), trace_name,
     trace_creation_datetime, trace_buffering_scheme, sysname, and
     guestrelay's own keys; the clock's uuid is the guest's boot id
     (env guest_boot_id), never the host's.
  2. every event class whose name the 2.9 layout knows has the fields its
     handlers read, with the types they read (integers signed where
     lttng-modules writes them signed, text as text); the events the
     test enabled are there; no event carries the ftrace name of an event
     lttng-modules renames (softirq_entry, sys_enter, ...).
     System calls (spec 7.5, GR_F_SYSCALLS): every syscall_entry_<name>
     and syscall_exit_<name> event's "id" is the number of <name> in the
     host's asm/unistd_64.h (nr<N>: N), so each call is named right;
     named calls are at least 99% of all; the shell that printed
     "GR: PPID TID PPID" has a syscall_entry_getppid with its tid and a
     syscall_exit_getppid whose ret is PPID.
  3. Disk I/O (InputOutputStateProvider, its handlers of block_rq_insert,
     block_rq_issue, block_rq_complete and lttng_statedump_block_device,
     DiskWriteModel, IoOperationType): rwbs is an integer of
     lttng-modules' flags that classifies every request of nr_sector > 0
     as a read, a write or a flush; on the loop device of the guest's
     "GR: DISK MAJ:MIN" line reads and writes go through the waiting
     queue (insert) and the driver queue (issue) to their completion,
     matched by sector as the handlers match them.
  4. memory usage (KernelMemoryStateProvider): every kmem_mm_page_alloc
     and kmem_mm_page_free has an order in [0, 62] and, where the replay
     knows the CPU's thread (KernelTidAspect), that thread is the
     record's tid, so each page is charged to the thread that took or
     gave it; the bytes per thread are printed as notes.
  5. network (TcpLttngEventMatching and the execution graph's network
     edges, with Lttng29EventLayout's names: eventsNetworkSend()
     net_dev_queue, eventsNetworkReceive() net_if_receive_skb,
     fieldPathTcpSeq/AckSeq/Flags() network_header / the selected option
     (CtfTmfEventField.FIELD_VARIANT_SELECTED) / transport_header / tcp /
     seq, ack_seq, flags, read as Long): both event classes have those
     paths, through every option of network_header, with integer leaves;
     the guest's TCP connections over the loopback ("GR: TCP" line) are
     in the trace, and TcpEventKey (seq, ack_seq, flags) of every TCP
     packet received on "lo" matches a packet queued before it (loopback
     sends and receives in the same trace), as the matching pairs them.
  6. replay of sched_switch, sched_process_fork/free and
     lttng_statedump_process_state (when the trace has them) as the
     handlers do it: per CPU the thread the replay has running before a
     switch is the switch's prev_tid, at every switch after the first of
     the CPU (and after any loss); at the guest's /proc dump (between the
     console marks ps_begin and ps_end) every thread the replay knows has
     the name /proc shows, the dumping shell runs on a CPU in the replay
     during the dump, and, with a state dump in the trace, every thread
     of /proc is known to the replay.
Exit status 0 unless the trace cannot be read (2); the caller counts
the ok/FAIL lines (tests/e2e/lib.sh take_checks).
"""
import collections
import re
import sys
import uuid

try:
    import bt2
except ImportError:
    print("FAIL - python3-bt2: not installed")
    sys.exit(2)

SINT, UINT, INT, STR = "signed integer", "unsigned integer", "integer", "text"

# The fields each handler reads, with the types lttng-modules writes them
# (include/instrumentation/events/{sched,irq,block,net,kmem,
# lttng-statedump}.h); names as
# IKernelAnalysisEventLayout returns them for LTTng 2.9+.
WAKEUP = {"comm": STR, "tid": SINT, "prio": SINT, "target_cpu": SINT}
PROCESS = {"comm": STR, "tid": SINT, "prio": SINT}
BLOCK_RQ = {"dev": INT, "sector": INT, "nr_sector": INT, "bytes": INT,
            "tid": SINT, "rwbs": UINT, "comm": STR}
LAYOUT = {
    "sched_switch": {"prev_comm": STR, "prev_tid": SINT, "prev_prio": SINT,
                     "prev_state": SINT, "next_comm": STR, "next_tid": SINT,
                     "next_prio": SINT},
    "sched_wakeup": WAKEUP,
    "sched_wakeup_new": WAKEUP,
    "sched_waking": WAKEUP,
    "sched_process_fork": {"parent_comm": STR, "parent_tid": SINT,
                           "parent_pid": SINT, "child_comm": STR,
                           "child_tid": SINT, "child_pid": SINT},
    "sched_process_exit": PROCESS,
    "sched_process_free": PROCESS,
    "sched_process_exec": {"filename": STR, "tid": SINT, "old_tid": SINT},
    "sched_migrate_task": {"comm": STR, "tid": SINT, "prio": SINT,
                           "orig_cpu": SINT, "dest_cpu": SINT},
    "sched_pi_setprio": {"comm": STR, "tid": SINT, "oldprio": SINT,
                         "newprio": SINT},
    "irq_handler_entry": {"irq": SINT, "name": STR},
    "irq_handler_exit": {"irq": SINT, "ret": SINT},
    "irq_softirq_entry": {"vec": INT},
    "irq_softirq_exit": {"vec": INT},
    "irq_softirq_raise": {"vec": INT},
    # InputOutputStateProvider's handlers: rwbs an integer of
    # lttng-modules' flags (IoOperationType.getType()); lttng-modules'
    # block_rq class also has tid and comm, block_rq_complete error
    "block_rq_insert": BLOCK_RQ,
    "block_rq_issue": BLOCK_RQ,
    "block_rq_complete": {"dev": INT, "sector": INT, "nr_sector": INT,
                          "error": SINT, "rwbs": UINT},
    "lttng_statedump_block_device": {"dev": INT, "diskname": STR},
    "net_dev_xmit": {"skbaddr": INT, "len": INT, "name": STR},
    "net_if_receive_skb": {"skbaddr": INT, "len": INT, "name": STR},
    "net_dev_queue": {"skbaddr": INT, "len": INT, "name": STR},
    # KernelMemoryStateProvider: the page order of each (events by name)
    "kmem_mm_page_alloc": {"order": INT},
    "kmem_mm_page_free": {"order": INT},
    "syscall_exit_": {"ret": SINT},
    "lttng_statedump_process_state": {"tid": SINT, "pid": SINT,
                                      "ppid": SINT, "name": STR,
                                      "type": INT, "mode": INT,
                                      "submode": INT, "status": INT},
}
# what the test enables (tests/e2e/test_tracecompass.sh) and must find
EXPECTED = ["sched_switch", "sched_wakeup", "sched_waking",
            "sched_process_fork", "sched_process_exec", "sched_process_exit",
            "sched_process_free", "irq_handler_entry", "irq_handler_exit",
            "irq_softirq_entry", "irq_softirq_exit", "net_if_receive_skb",
            "net_dev_queue",
            "block_rq_insert", "block_rq_issue", "block_rq_complete",
            "kmem_mm_page_alloc", "kmem_mm_page_free",
            "syscall_entry_read", "syscall_exit_read",
            "syscall_entry_getppid", "syscall_exit_getppid"]
# lttng-modules' rwbs bits that IoOperationType.getType() tests, in its
# order: write, then read or read-ahead, then flush or preflush
RWBS_WRITE, RWBS_READ, RWBS_RAHEAD = 1 << 0, 1 << 2, 1 << 3
RWBS_FLUSH, RWBS_PREFLUSH = 1 << 8, 1 << 10


def io_type(rwbs):
    if rwbs & RWBS_WRITE:
        return "WRITE"
    if rwbs & (RWBS_READ | RWBS_RAHEAD):
        return "READ"
    if rwbs & (RWBS_FLUSH | RWBS_PREFLUSH):
        return "FLUSH"
    return "OTHER"


class DiskReplay:
    """The queues InputOutputStateProvider keeps per disk (DiskWriteModel):
    block_rq_insert puts a request of nr_sector > 0 in the waiting queue,
    block_rq_issue moves the one of its sector to the driver queue (or
    starts one there), block_rq_complete ends the one of its sector in
    the driver queue. Counts, per (dev, type), the requests that went
    through all three."""

    def __init__(self):
        self.waiting = collections.defaultdict(dict)    # dev -> sector
        self.driver = collections.defaultdict(dict)
        self.full = collections.Counter()               # (dev, type)
        self.types = collections.Counter()              # (event, type)
        self.names = {}                                 # dev -> diskname
        self.bad = []

    def event(self, name, f):
        if name == "lttng_statedump_block_device":
            self.names[int(f["dev"])] = str(f["diskname"])
            return
        if name not in ("block_rq_insert", "block_rq_issue",
                        "block_rq_complete"):
            return
        try:
            dev, sector = int(f["dev"]), int(f["sector"])
            nr, rwbs = int(f["nr_sector"]), int(f["rwbs"])
        except (KeyError, TypeError, ValueError) as e:
            # what Trace Compass's (Long) casts would throw on
            if len(self.bad) < 5:
                self.bad.append("%s: %s" % (name, e))
            return
        kind = io_type(rwbs)
        if nr:
            self.types[(name, kind)] += 1
        if name == "block_rq_insert":
            if nr:
                self.waiting[dev][sector] = kind
        elif name == "block_rq_issue":
            inserted = self.waiting[dev].pop(sector, None)
            self.driver[dev][sector] = (kind, inserted is not None)
        else:
            issued = self.driver[dev].pop(sector, None)
            if issued is not None and issued[1] and issued[0] == kind:
                self.full[(dev, kind)] += 1


# Trace Compass's Lttng29EventLayout system call prefixes
SYS_ENTRY, SYS_EXIT = "syscall_entry_", "syscall_exit_"
UNISTD_64 = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"


def syscall_numbers():
    """{name: number} of native x86_64 system calls (linux-libc-dev)."""
    nrs = {}
    try:
        for line in open(UNISTD_64):
            w = line.split()
            if len(w) == 3 and w[0] == "#define" and \
                    w[1].startswith("__NR_") and w[2].isdigit():
                nrs[w[1][5:]] = int(w[2])
    except OSError:
        pass
    return nrs
# ftrace names that lttng-modules renames: never in the metadata
FTRACE_ONLY = ["softirq_entry", "softirq_exit", "softirq_raise",
               "netif_receive_skb", "kmalloc", "kfree", "mm_page_alloc",
               "sys_enter", "sys_exit", "hrtimer_start"]

# Lttng29EventLayout's network events and TCP paths; ANY stands for
# CtfTmfEventField.FIELD_VARIANT_SELECTED (the variant's selected option)
NET_SEND, NET_RECV = "net_dev_queue", "net_if_receive_skb"
ANY = object()
TCP_PATHS = {k: ("network_header", ANY, "transport_header", "tcp", k)
             for k in ("seq", "ack_seq", "flags")}


def tc_field(f, path):
    """CtfTmfEventField.getField(path): a variant holds only its selected
    option, named as the option (its leading underscore stripped, as
    bt2 names it), or any option under ANY; a struct its members.
    None where Trace Compass finds nothing."""
    for name in path:
        if isinstance(f, bt2._VariantFieldConst):
            sel = f.cls.option_at_index(f.selected_option_index).name
            if name is not ANY and name != sel:
                return None
            f = f.selected_option
        elif isinstance(f, bt2._StructureFieldConst):
            if name is ANY or name not in f:
                return None
            f = f[name]
        else:
            return None
    return f


def tc_class_paths(fc, path):
    """The leaf field classes at @path through every option under ANY
    (and the named one elsewhere); None where a path breaks."""
    if not path:
        return [fc]
    name, rest = path[0], path[1:]
    if isinstance(fc, bt2._VariantFieldClassConst):
        opts = [fc.option_at_index(i) for i in range(len(fc))]
        if name is not ANY:
            opts = [o for o in opts if o.name == name]
        if not opts:
            return None
        out = []
        for o in opts:
            sub = tc_class_paths(o.field_class, rest)
            if sub is None:
                return None
            out += sub
        return out
    if isinstance(fc, bt2._StructureFieldClassConst) and name is not ANY \
            and name in fc:
        return tc_class_paths(fc[name].field_class, rest)
    return None


class NetReplay:
    """TcpLttngEventMatching within one trace: keys (seq, ack_seq, flags)
    of the packets queued, each received TCP packet on "lo" matched to
    an earlier one with its key."""

    def __init__(self):
        self.sent = collections.Counter()
        self.queued = self.received = self.matched = 0
        self.v6 = 0
        self.unmatched = []
        self.paths = {}             # event class -> (ok, why)

    def key(self, f):
        vals = [tc_field(f, TCP_PATHS[k]) for k in ("seq", "ack_seq",
                                                     "flags")]
        if any(not isinstance(v, bt2._IntegerFieldConst) for v in vals):
            return None
        return tuple(int(v) for v in vals)

    def event(self, name, f):
        if name not in (NET_SEND, NET_RECV):
            return
        if name not in self.paths:
            bad = []
            for k, path in TCP_PATHS.items():
                leaves = tc_class_paths(f.cls, path)
                if not leaves or not all(
                        field_kind(c) in (SINT, UINT) for c in leaves):
                    bad.append("%s: %s" % (k, leaves))
            self.paths[name] = bad
        k = self.key(f)
        if k is None:
            return
        if int(f["network_header_type"]) == 2:
            self.v6 += 1
        if name == NET_SEND:
            self.queued += 1
            self.sent[k] += 1
        elif str(f["name"]) == "lo":
            self.received += 1
            if self.sent[k] > 0:
                self.sent[k] -= 1
                self.matched += 1
            elif len(self.unmatched) < 5:
                self.unmatched.append(k)


def ok(name):
    print("ok - " + name)


def fail(name, why):
    print("FAIL - %s: %s" % (name, why))


def check(cond, name, why):
    if cond:
        ok(name)
    else:
        fail(name, why)


def field_kind(fc):
    if isinstance(fc, bt2._SignedIntegerFieldClassConst):
        return SINT
    if isinstance(fc, bt2._UnsignedIntegerFieldClassConst):
        return UINT
    if isinstance(fc, bt2._StringFieldClassConst):
        return STR
    return type(fc).__name__


def kind_ok(want, got):
    return got == want or (want == INT and got in (SINT, UINT))


def read_console(path):
    """Marks (ns), the /proc dump, the shell's tid, uname."""
    marks, procs, info = {}, {}, {}
    for line in open(path, errors="replace"):
        w = line.split()
        if line.startswith("GR: MARK ") and len(w) >= 4:
            marks.setdefault(w[2], int(w[3]))
        elif line.startswith("GR: PS SELF "):
            info["self"] = int(w[3])
        elif line.startswith("GR: PS ") and len(w) >= 8 and w[2].isdigit():
            comm = line.rstrip("\r\n").split(" ", 7)[7]
            procs[int(w[2])] = {"pid": int(w[3]), "ppid": int(w[4]),
                                "state": w[5], "cpu": int(w[6]),
                                "comm": comm}
        elif line.startswith("GR: UNAME ") and len(w) >= 4:
            info["nodename"], info["release"] = w[2], w[3]
        elif line.startswith("GR: UNAMEV "):
            info["version"] = line.rstrip("\r\n")[len("GR: UNAMEV "):]
        elif line.startswith("GR: DISK ") and len(w) >= 3 and \
                re.fullmatch(r"\d+:\d+", w[2]):
            major, minor = (int(x) for x in w[2].split(":"))
            # the kernel's dev_t, as block_rq_* record it (MKDEV)
            info["disk"] = (major << 20) | minor
            info["sched"] = " ".join(w[3:])
        elif line.startswith("GR: DMI ") and len(w) >= 3:
            info["dmi"] = w[2].lower()
        elif line.startswith("GR: TCP ") and len(w) >= 4 and \
                w[2].isdigit() and w[3].isdigit():
            info["tcp"] = (int(w[2]), int(w[3]))
        elif line.startswith("GR: PPID ") and len(w) >= 4 and \
                w[2].isdigit() and w[3].isdigit():
            info["ppid"] = (int(w[2]), int(w[3]))
    return marks, procs, info


def same_comm(proc, traced):
    """/proc's comm against task->comm: for a workqueue worker /proc
    appends "-" or "+" and its current work's description (the kernel's
    wq_worker_comm()), e.g. "kworker/0:0-events"; for a kernel thread
    /proc shows its full name, of which task->comm holds the first 15
    bytes (TASK_COMM_LEN), e.g. "rcu_tasks_kthread"."""
    if proc == traced:
        return True
    if len(traced) == 15 and len(proc) > 15 and proc.startswith(traced):
        return True
    return traced.startswith("kworker/") and len(proc) > len(traced) and \
        proc.startswith(traced) and proc[len(traced)] in "-+"


def env_value(v):
    return int(v) if isinstance(v, bt2._IntegerValueConst) else str(v)


class MemoryReplay:
    """KernelMemoryStateProvider: PAGE_SIZE << order per page allocated,
    minus per page freed, charged to the CPU's thread as the kernel
    analysis has it (KernelTidAspect), "other" when it has none."""

    PAGE_SIZE, MAX_ORDER = 4096, 62

    def __init__(self):
        self.bytes = collections.Counter()      # tid or "other" -> bytes
        self.names = {"other": ""}              # tid -> name when charged
        self.events = self.charged = 0
        self.bad = []

    def event(self, name, f, replay, cpu, tid):
        if name not in ("kmem_mm_page_alloc", "kmem_mm_page_free"):
            return
        self.events += 1
        order = int(f["order"]) if "order" in f else -1
        if not 0 <= order <= self.MAX_ORDER:
            self.bad.append("%s order %d" % (name, order))
            return
        inc = self.PAGE_SIZE << order
        owner = replay.cpu_thread.get(cpu)
        if owner is None:
            self.bytes["other"] += inc if name.endswith("alloc") else -inc
            return
        if owner != tid:
            self.bad.append("%s on CPU %d: replay has %d running, the "
                            "record says %d" % (name, cpu, owner, tid))
        self.charged += 1
        self.names[owner] = replay.name.get(owner, "?")
        self.bytes[owner] += inc if name.endswith("alloc") else -inc


class Replay:
    """The thread and CPU state KernelStateProvider's handlers keep."""

    def __init__(self):
        self.name = {}              # tid -> exec name (Attributes.EXEC_NAME)
        self.ppid = {}
        self.cpu_thread = {}        # cpu -> tid (Attributes.CURRENT_THREAD)
        self.known = set()
        self.switch_checked = 0
        self.switch_bad = []
        self.statedump = 0

    def lost(self, cpu):
        # after a loss the replay no longer knows who runs there
        self.cpu_thread.pop(cpu, None)

    def set_name(self, tid, name):
        self.name[tid] = name
        self.known.add(tid)

    def event(self, name, cpu, f, ns):
        if name == "sched_switch":
            prev, nxt = int(f["prev_tid"]), int(f["next_tid"])
            cur = self.cpu_thread.get(cpu)
            if cur is not None:
                self.switch_checked += 1
                if cur != prev:
                    self.switch_bad.append((ns, cpu, cur, prev))
            # SchedSwitchHandler: exec names from both comms; swapper is
            # thread 0 of each CPU (Attributes.buildThreadAttributeName)
            self.set_name((prev, cpu) if prev == 0 else prev,
                          str(f["prev_comm"]))
            self.set_name((nxt, cpu) if nxt == 0 else nxt,
                          str(f["next_comm"]))
            self.cpu_thread[cpu] = nxt
        elif name == "sched_process_fork":
            child = int(f["child_tid"])
            self.set_name(child, str(f["child_comm"]))
            self.ppid[child] = int(f["parent_tid"])
            self.known.add(int(f["parent_tid"]))
        elif name == "sched_process_free":
            tid = int(f["tid"])
            self.name.pop(tid, None)
            self.known.discard(tid)
        elif name == "lttng_statedump_process_state":
            self.statedump += 1
            tid = int(f["tid"])
            # StateDumpHandler: only what the replay does not know yet
            if tid not in self.name:
                self.set_name(tid, str(f["name"]))
            self.ppid.setdefault(tid, int(f["ppid"]))
        elif name in ("sched_wakeup", "sched_wakeup_new", "sched_waking"):
            self.known.add(int(f["tid"]))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    trace, console = sys.argv[1], sys.argv[2]
    host_boot = None
    if len(sys.argv) > 3:
        host_boot = open(sys.argv[3]).read().strip()
    marks, procs, info = read_console(console)

    env = None
    clock_cls = None
    classes = {}                    # name -> {field: kind}
    counts = collections.Counter()
    replay = Replay()
    disks = DiskReplay()
    memory = MemoryReplay()
    net = NetReplay()
    ps_begin, ps_end = marks.get("ps_begin"), marks.get("ps_end")
    names_at_begin = None
    # names each /proc thread takes from ps_begin until it is switched out
    # after ps_end (an exec in between renames it; SchedSwitchHandler
    # learns the new name from prev_comm)
    window_names = collections.defaultdict(set)
    open_tids = set(procs)
    self_ran = set()                # CPUs the shell ran on during the dump
    discarded = 0
    pkt_ctx = ev_ctx = None
    nrs = syscall_numbers()
    sys_named = sys_unknown = sys_checked = 0
    sys_bad = []
    getppid = collections.defaultdict(list)   # tid -> [(entry/exit, ret)]

    try:
        it = bt2.TraceCollectionMessageIterator(trace)
        for msg in it:
            if isinstance(msg, bt2._StreamBeginningMessageConst):
                if env is None:
                    env = {k: env_value(v) for k, v in
                           msg.stream.trace.environment.items()}
                continue
            if isinstance(msg, (bt2._DiscardedEventsMessageConst,
                                bt2._DiscardedPacketsMessageConst)):
                if isinstance(msg, bt2._DiscardedEventsMessageConst):
                    discarded += msg.count or 0
                # the stream's CPU: its packets' cpu_id, known once seen
                cpu = stream_cpu.get(msg.stream.id)
                if cpu is not None:
                    replay.lost(cpu)
                continue
            if not isinstance(msg, bt2._EventMessageConst):
                continue
            ev = msg.event
            snap = msg.default_clock_snapshot
            if clock_cls is None:
                clock_cls = snap.clock_class
            ns = snap.value * 1000000000 // clock_cls.frequency
            cpu = int(ev.packet.context_field["cpu_id"])
            stream_cpu[ev.stream.id] = cpu
            name = ev.name
            counts[name] += 1
            if name not in classes:
                classes[name] = {k: field_kind(m.field_class) for k, m in
                                 ev.payload_field.cls.items()}
            if pkt_ctx is None:
                pkt_ctx = {k: field_kind(m.field_class) for k, m in
                           ev.packet.context_field.cls.items()}
                ev_ctx = {k: field_kind(m.field_class) for k, m in
                          ev.common_context_field.cls.items()} \
                    if ev.common_context_field is not None else {}
            f = ev.payload_field
            if name.startswith((SYS_ENTRY, SYS_EXIT)):
                call = name.split("_", 2)[2]
                if call == "unknown":
                    sys_unknown += name.startswith(SYS_ENTRY)
                else:
                    sys_named += name.startswith(SYS_ENTRY)
                    want = int(call[2:]) if re.fullmatch(r"nr\d+", call) \
                        else nrs.get(call)
                    sys_checked += 1
                    if want is None or int(f["id"]) != want:
                        sys_bad.append("%s id %d" % (name, int(f["id"])))
                if call == "getppid":
                    tid = int(ev.common_context_field["tid"])
                    getppid[tid].append(
                        (name, int(f["ret"]) if "ret" in f else None))
            if ps_begin is not None and names_at_begin is None and \
                    ns >= ps_begin:
                names_at_begin = dict(replay.name)
                for tid in procs:
                    if tid in replay.name:
                        window_names[tid].add(replay.name[tid])
            if ps_begin is not None and ps_end is not None and \
                    ps_begin <= ns <= ps_end:
                for c, t in replay.cpu_thread.items():
                    if t == info.get("self"):
                        self_ran.add(c)
            memory.event(name, f, replay, cpu,
                         int(ev.common_context_field["tid"]))
            replay.event(name, cpu, f, ns)
            disks.event(name, f)
            net.event(name, f)
            if name == "sched_switch" and ps_begin is not None and \
                    ns >= ps_begin:
                prev, nxt = int(f["prev_tid"]), int(f["next_tid"])
                if prev in open_tids:
                    window_names[prev].add(str(f["prev_comm"]))
                    if ps_end is not None and ns > ps_end:
                        open_tids.discard(prev)
                if nxt in open_tids:
                    window_names[nxt].add(str(f["next_comm"]))
                if ps_end is not None and ns <= ps_end and \
                        info.get("self") in (prev, nxt):
                    self_ran.add(cpu)
            if name == "sched_process_fork" and ps_begin is not None and \
                    ns >= ps_begin and int(f["child_tid"]) in open_tids:
                window_names[int(f["child_tid"])].add(str(f["child_comm"]))
    except bt2._Error as e:
        print("FAIL - bt2 reads the trace: %s" % str(e).splitlines()[0])
        return 2

    # ---- 1. env and clock --------------------------------------------------
    env = env or {}
    check(env.get("domain") == "kernel", "env domain is \"kernel\"",
          repr(env.get("domain")))
    check(env.get("tracer_name") == "lttng-modules",
          "env tracer_name is \"lttng-modules\"", repr(env.get("tracer_name")))
    major, minor = env.get("tracer_major"), env.get("tracer_minor")
    check(major == 2 and isinstance(minor, int) and minor >= 9,
          "env tracer_major 2, tracer_minor >= 9 (Trace Compass's "
          "Lttng29EventLayout)", "%r.%r" % (major, minor))
    check(isinstance(env.get("tracer_patchlevel"), int),
          "env tracer_patchlevel is an integer",
          repr(env.get("tracer_patchlevel")))
    check(env.get("sysname") == "Linux", "env sysname is \"Linux\"",
          repr(env.get("sysname")))
    check("nodename" in info and env.get("hostname") == info["nodename"],
          "env hostname is the guest's (%s)" % info.get("nodename"),
          "%r" % env.get("hostname"))
    check("release" in info and env.get("kernel_release") == info["release"],
          "env kernel_release is the guest's (%s)" % info.get("release"),
          repr(env.get("kernel_release")))
    check(bool(env.get("trace_name")), "env trace_name is set",
          repr(env.get("trace_name")))
    check(re.fullmatch(r"\d{8}T\d{6}[+-]\d{4}",
                       str(env.get("trace_creation_datetime", ""))) is not None,
          "env trace_creation_datetime as LTTng writes it",
          repr(env.get("trace_creation_datetime")))
    check(env.get("trace_buffering_scheme") == "global",
          "env trace_buffering_scheme is \"global\"",
          repr(env.get("trace_buffering_scheme")))
    for k in ("vm_name", "host_hostname", "session", "guestrelay_major",
              "guest_boot_id"):
        check(k in env, "env keeps guestrelay's %s" % k, "missing")
    # the guest publishes the first 63 bytes of uname -v
    check("version" in info and
          env.get("kernel_version") == info["version"][:63],
          "env kernel_version is the guest's (%s)" % info.get("version"),
          repr(env.get("kernel_version")))
    dmi = info.get("dmi", "none")
    if dmi in ("none", "00000000-0000-0000-0000-000000000000"):
        check("product_uuid" not in env,
              "no env product_uuid: the guest has no DMI product UUID",
              repr(env.get("product_uuid")))
    else:
        check(env.get("product_uuid") == dmi,
              "env product_uuid is the guest's DMI product UUID (%s)" % dmi,
              repr(env.get("product_uuid")))
    cuuid = str(clock_cls.uuid) if clock_cls is not None and \
        clock_cls.uuid is not None else None
    check(cuuid is not None and cuuid == env.get("guest_boot_id"),
          "the clock's uuid is the guest's boot id",
          "clock %s, guest_boot_id %s" % (cuuid, env.get("guest_boot_id")))
    if host_boot:
        check(cuuid != host_boot, "the clock's uuid is not the host's boot id",
              cuuid)

    # ---- 2. names, fields and types ---------------------------------------
    # TmfCpuAspect: the packet context's cpu_id; losses: events_discarded;
    # LttngEventLayout.contextTid(): the event context's _tid
    # (bt2 keeps events_discarded to itself: read the TSDL for it)
    pkt_ctx, ev_ctx = pkt_ctx or {}, ev_ctx or {}
    meta = open(trace + "/metadata", errors="replace").read()
    ctx = re.search(r"packet\.context := struct \{([^}]*)\}", meta)
    check(pkt_ctx.get("cpu_id") == UINT and ctx is not None and
          re.search(r"\buint64_t events_discarded;", ctx.group(1)),
          "the packet context has cpu_id and events_discarded",
          "%r; %r" % (pkt_ctx, ctx.group(1) if ctx else None))
    check(kind_ok(INT, ev_ctx.get("tid", "missing")),
          "the event context has the thread id (_tid)", repr(ev_ctx))
    for name in EXPECTED:
        check(counts[name] > 0, "the trace has %s events (%d)" %
              (name, counts[name]), "none")
    bad = [n for n in FTRACE_ONLY if n in classes]
    check(not bad, "no event carries an ftrace name lttng-modules renames",
          ", ".join(bad))
    nchecked = 0
    for name, fields in sorted(classes.items()):
        key = name
        if name.startswith("syscall_exit_"):
            key = "syscall_exit_"
        want = LAYOUT.get(key)
        if want is None:
            continue
        wrong = ["%s: %s, not %s" % (fn, fields.get(fn, "missing"), kind)
                 for fn, kind in want.items()
                 if not kind_ok(kind, fields.get(fn, "missing"))]
        nchecked += 1
        check(not wrong, "%s has the fields the kernel analysis reads" % name,
              "; ".join(wrong))
    check(nchecked >= 10, "event classes checked against the layout (%d)" %
          nchecked, "too few")
    # system calls named per call (spec 7.5, GR_F_SYSCALLS)
    check(bool(nrs), "the host has %s" % UNISTD_64, "missing")
    check(sys_checked > 100 and not sys_bad,
          "every syscall_entry_/syscall_exit_<name> carries the number of "
          "<name> in its id (%d events)" % sys_checked,
          "%d wrong, first %s" % (len(sys_bad), sys_bad[:5]))
    check(sys_named > 0 and sys_unknown * 100 <= sys_named + sys_unknown,
          "system calls are named (%d named, %d unknown)" %
          (sys_named, sys_unknown), "more than 1% unknown")
    tid, ppid = info.get("ppid", (None, None))
    seen = getppid.get(tid, [])
    check(tid is not None and (SYS_ENTRY + "getppid", None) in seen and
          (SYS_EXIT + "getppid", ppid) in seen,
          "the shell %s has syscall_entry_getppid and syscall_exit_getppid "
          "returning its parent %s" % (tid, ppid),
          "its getppid events: %s; tids with getppid: %s" %
          (seen, sorted(getppid)[:10]))

    # ---- 3. Disk I/O (InputOutputStateProvider) -----------------------------
    disk = info.get("disk")
    check(disk is not None and "[mq-deadline]" in info.get("sched", ""),
          "the guest did I/O on a loop device behind mq-deadline (%s)" %
          info.get("sched"), "no 'GR: DISK MAJ:MIN [mq-deadline]' line")
    check(not disks.bad, "every block_rq_* has dev, sector, nr_sector and "
          "an integer rwbs", "; ".join(disks.bad))
    other = sorted((n, c) for (n, k), c in disks.types.items()
                   if k == "OTHER")
    check(sum(disks.types.values()) > 0 and not other,
          "every block request of nr_sector > 0 is a read, a write or a "
          "flush by its rwbs (%s)" % dict(disks.types),
          "OTHER: %s" % other)
    for kind in ("WRITE", "READ"):
        n = disks.full[(disk, kind)] if disk is not None else 0
        # disk_io: 4 x 8 direct 4 KiB requests of each kind, some merged
        check(n >= 4, "%s requests on the loop device inserted, issued and "
              "completed (%d)" % (kind.lower(), n), "only %d" % n)
    if disks.names:
        print("note - block devices in the state dump: %s" %
              ", ".join("%d %s" % kv for kv in sorted(disks.names.items())))

    # ---- 4. memory usage (KernelMemoryStateProvider) -------------------------
    check(memory.events > 0 and not memory.bad,
          "every page allocation and free has an order and is charged to "
          "the thread the record names (%d of %d charged, the rest before "
          "the CPU's first switch)" % (memory.charged, memory.events),
          "; ".join(memory.bad[:5]))
    check(memory.charged * 10 >= memory.events * 9,
          "at least 90%% of the page events are charged to a thread "
          "(%d of %d)" % (memory.charged, memory.events), "too few")
    top = sorted(((v, t) for t, v in memory.bytes.items()),
                 key=lambda x: -abs(x[0]))[:3]
    print("note - memory usage, the 3 largest: %s" %
          ", ".join("%s %s (%+d KiB)" % (t, memory.names[t], v // 1024)
                    for v, t in top))

    # ---- 5. network (TcpLttngEventMatching) ----------------------------------
    for name in (NET_SEND, NET_RECV):
        bad = net.paths.get(name, ["no event"])
        check(not bad, "%s has network_header / <selected> / "
              "transport_header / tcp / seq, ack_seq, flags, integers "
              "(Trace Compass's fieldPathTcp*)" % name, "; ".join(bad))
    tcp = info.get("tcp", (0, 0))
    check(tcp[0] > 0, "the guest's TCP connection over 127.0.0.1 carried "
          "data (%d bytes; over ::1: %d)" % tcp, "no 'GR: TCP' bytes")
    check(net.received >= 10 and not net.unmatched and
          net.matched == net.received,
          "every TCP packet received on lo matches a packet queued before "
          "it by (seq, ack_seq, flags) (%d of %d; %d queued, %d IPv6)" %
          (net.matched, net.received, net.queued, net.v6),
          "unmatched keys %s" % net.unmatched)

    # ---- 6. replay -----------------------------------------------------------
    check(replay.switch_checked > 100 and not replay.switch_bad,
          "per CPU, every switch's prev_tid is the thread the replay has "
          "running (%d switches)" % replay.switch_checked,
          "%d disagree, first %s" % (len(replay.switch_bad),
                                     replay.switch_bad[:3]))
    if ps_begin is None or ps_end is None or not procs:
        fail("the guest dumped /proc between ps_begin and ps_end",
             "marks %s, %d threads" % (sorted(marks), len(procs)))
        return 0
    agree, disagree, unknown = 0, [], []
    for tid, p in sorted(procs.items()):
        seen = window_names.get(tid)
        if not seen:
            unknown.append(tid)
            continue
        if any(same_comm(p["comm"], n) for n in seen):
            agree += 1
        else:
            disagree.append("%d: /proc %r, replay %s" %
                            (tid, p["comm"], sorted(seen)))
    check(agree >= 5 and not disagree,
          "every thread of /proc the replay knows has /proc's name "
          "(%d agree)" % agree, "; ".join(disagree[:5]))
    sh = info.get("self")
    check(sh in procs and procs[sh]["state"] == "R",
          "/proc shows the dumping shell running", repr(procs.get(sh)))
    check(bool(self_ran) and sh in procs and procs[sh]["cpu"] in self_ran,
          "the replay runs the dumping shell on the CPU /proc names "
          "(%s in %s)" % (procs.get(sh, {}).get("cpu"), sorted(self_ran)),
          "the replay had it on CPUs %s" % sorted(self_ran))
    if replay.statedump:
        check(not unknown, "with a state dump (%d threads) every thread "
              "of /proc is known to the replay" % replay.statedump,
              "unknown: %s" % unknown[:10])
    else:
        print("note - no lttng_statedump_process_state in the trace: "
              "%d of %d threads of /proc never ran, forked or woke in it "
              "(the replay cannot know them)" % (len(unknown), len(procs)))
    print("note - %d events discarded" % discarded)
    return 0


stream_cpu = {}

if __name__ == "__main__":
    sys.exit(main())
