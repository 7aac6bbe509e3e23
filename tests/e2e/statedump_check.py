# SPDX-License-Identifier: GPL-2.0
"""Checks of test_statedump.sh on a real trace, read with babeltrace2's
python bindings (an independent decoder), against the guest console.

  statedump_check.py TRACE_DIR CONSOLE

The console holds "GR: MARK procs NS", one "GR: PROC TID PID PPID STATE
COMM" per thread /proc listed, "GR: MARK procs_end NS" and "GR: MARK end
NS" (scripts/guest/e2e-statedump). Checked: the marker exec after insmod is in the trace;
one state dump (lttng_statedump_start ... _end) with its records in
between; its thread list agrees with /proc once the threads forked and
exited between the dump and the listing (sched_process_fork/exit in the
trace) are accounted for; tgid, parent and name of every thread in both
agree; the interrupt and block-device lines. Prints "ok - NAME" /
"FAIL - NAME: WHY" lines for tests/e2e/lib.sh's take_checks.
"""
import sys

import bt2

MARKER = "/tmp/grmark/true"
LOOP0 = (7 << 20) | 0           # dev_t of loop0 as the kernel encodes it


def ok(name):
    print("ok - " + name)


def fail(name, why):
    print("FAIL - %s: %s" % (name, why))


def read_console(path):
    marks, procs = {}, {}
    for line in open(path, errors="replace"):
        w = line.split()
        if len(w) >= 4 and w[:2] == ["GR:", "MARK"]:
            marks[w[2]] = int(w[3])
        elif len(w) >= 6 and w[:2] == ["GR:", "PROC"]:
            procs[int(w[2])] = (int(w[3]), int(w[4]), w[5],
                                " ".join(w[6:]))
    return marks, procs


def read_trace(path):
    events = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        # the guest's own clock, in ns as its console marks (clock_now_ns)
        snap = msg.default_clock_snapshot
        ts = snap.value * 10**9 // snap.clock_class.frequency
        events.append((ts, ev.name, {f: ev.payload_field[f]
                                     for f in ev.payload_field}))
    events.sort(key=lambda e: e[0])
    return events


def val(f):
    try:
        return int(f)
    except (TypeError, ValueError):
        return str(f)


def main():
    trace, console = sys.argv[1], sys.argv[2]
    marks, procs = read_console(console)
    events = read_trace(trace)
    p = {}
    for ts, name, fields in events:
        p.setdefault(name, []).append((ts, {k: val(v) for k, v in
                                            fields.items()}))

    execs = [f for _, f in p.get("sched_process_exec", [])
             if f.get("filename") == MARKER]
    if execs:
        ok("the marker exec right after insmod is in the trace")
    else:
        fail("the marker exec right after insmod is in the trace",
             "no sched_process_exec of %s among %d execs" %
             (MARKER, len(p.get("sched_process_exec", []))))

    starts = p.get("lttng_statedump_start", [])
    ends = p.get("lttng_statedump_end", [])
    if len(starts) != 1 or len(ends) != 1:
        fail("one state dump in the trace",
             "%d starts, %d ends" % (len(starts), len(ends)))
        return
    t0, t1 = starts[0][0], ends[0][0]
    ok("one state dump in the trace")
    states = p.get("lttng_statedump_process_state", [])
    inside = [f for ts, f in states if t0 <= ts <= t1]
    if states and len(inside) == len(states):
        ok("its %d process_state records lie between start and end" %
           len(states))
    else:
        fail("its process_state records lie between start and end",
             "%d of %d" % (len(inside), len(states)))
    dump = {f["tid"]: f for f in inside}
    if len(dump) == len(inside):
        ok("one process_state per thread")
    else:
        fail("one process_state per thread",
             "%d records, %d tids" % (len(inside), len(dump)))

    if "procs" not in marks or "procs_end" not in marks or not procs:
        fail("the guest listed its threads", "no GR: MARK procs / PROC lines")
        return
    # The guest's shell expands /proc/*/task/* at the "procs" mark, then
    # reads each thread's stat: a thread forked after the mark is not
    # listed, one that exits during the listing may or may not be (a
    # kworker that the listing's own load made the kernel start, say).
    # Forks and exits up to the mark decide; a thread forked or exiting
    # between the mark and the last one ("end", after the processes that
    # printed procs_end exited) is left out of both sides, and counted.
    begin, end = marks["procs"], marks["procs_end"]
    last = marks.get("end", end)
    forks = [(ts, f["child_tid"]) for ts, f in
             p.get("sched_process_fork", []) if t0 <= ts <= last]
    exits = [(ts, f["tid"]) for ts, f in
             p.get("sched_process_exit", []) if t0 <= ts <= last]
    forked = {t for ts, t in forks if ts <= begin}
    exited = {t for ts, t in exits if ts <= begin}
    unsure = {t for ts, t in forks + exits if ts > begin}
    expect = ((set(dump) | forked) - exited) - unsure
    have = set(procs) - unsure
    if expect == have:
        ok("the dump's %d threads, with %d forks and %d exits after it, "
           "are /proc's %d (%d forked or exited while /proc was listed)" %
           (len(dump), len(forked), len(exited), len(have), len(unsure)))
    else:
        fail("the dump's threads, with the forks and exits after it, "
             "are /proc's",
             "only in the trace: %s; only in /proc: %s" %
             (sorted(expect - have)[:20], sorted(have - expect)[:20]))
    execd = {f["tid"] for ts, f in p.get("sched_process_exec", [])
             if t0 <= ts <= end}
    bad = []
    for tid in sorted(set(dump) & have):
        d, (pid, ppid, _state, comm) = dump[tid], procs[tid]
        name = d["name"]
        if d["pid"] != pid or d["ppid"] != ppid:
            bad.append("%d: pid/ppid %d/%d vs %d/%d" %
                       (tid, d["pid"], d["ppid"], pid, ppid))
        elif tid not in execd and not comm.startswith(name):
            # /proc shows a kworker's workqueue after its comm
            bad.append("%d: name %r vs %r" % (tid, name, comm))
        elif d["type"] != (1 if ppid in (0, 2) and tid != 1 else 0):
            bad.append("%d: type %d, ppid %d" % (tid, d["type"], ppid))
    if not bad:
        ok("tgid, parent, name and type of the %d threads in both agree" %
           len(set(dump) & have))
    else:
        fail("tgid, parent, name and type of the threads in both agree",
             "; ".join(bad[:10]))

    irqs = [f for ts, f in p.get("lttng_statedump_interrupt", [])
            if t0 <= ts <= t1]
    named = [f for f in irqs if f["action"] and f["name"]]
    if named:
        ok("%d interrupt handlers dumped, e.g. irq %d %s %s" %
           (len(irqs), named[0]["irq"], named[0]["name"],
            named[0]["action"]))
    else:
        fail("interrupt handlers dumped", "%d, none named" % len(irqs))
    disks = [f for ts, f in p.get("lttng_statedump_block_device", [])
             if t0 <= ts <= t1]
    if any(f["dev"] == LOOP0 and f["diskname"] == "loop0" for f in disks):
        ok("the loop device is dumped (dev %d, loop0)" % LOOP0)
    else:
        fail("the loop device is dumped", "block devices: %s" %
             [(f["dev"], f["diskname"]) for f in disks])


if __name__ == "__main__":
    main()
