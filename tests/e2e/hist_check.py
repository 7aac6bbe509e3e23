# SPDX-License-Identifier: GPL-2.0
"""Checks of tests/e2e/test_hist.sh: guestrelay's hist tables against
ftrace's hist files printed by the guest, and the run-queue, system-call
and block latency histograms against references computed from the
stored trace.

    hist_check.py ftrace CONSOLE NAME FTRACE_EVENT OURS_FILE
    hist_check.py latency TRACE_DIR TABLES_DIR X Y

TABLES_DIR holds guestrelay's runq.json, syscall.json and block.json
(`guestrelay --json hist VM NAME`).

Prints "ok - ..." / "FAIL - ..." lines (take_checks counts them).
"""
import collections
import json
import re
import sys

ROW = re.compile(r"^\{ *([a-z_0-9]+): *(-?[0-9]+) *\} *hitcount: *([0-9]+)")


def ok(name):
    print("ok - " + name)


def fail(name, why):
    print("FAIL - %s: %s" % (name, why))


def table(lines):
    """{key: hitcount} and the Dropped total of one hist file's lines."""
    rows, dropped = {}, None
    for line in lines:
        line = line.strip()
        m = ROW.match(line)
        if m:
            rows[int(m.group(2))] = int(m.group(3))
        elif line.startswith("Dropped:"):
            dropped = int(line.split()[1])
    return rows, dropped


def ftrace_lines(console, event):
    """The lines of the guest's "GR: H" dump of EVENT's hist file."""
    out, on = [], False
    with open(console, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("GR: HIST ftrace "):
                on = line.split()[-1] == event
            elif line.startswith("GR: HIST done"):
                on = False
            elif on and line.startswith("GR: H "):
                out.append(line[6:])
    return out


def check_ftrace(console, name, event, ours_file):
    f_rows, f_drop = table(ftrace_lines(console, event))
    with open(ours_file) as f:
        o_rows, o_drop = table(f.read().splitlines())
    what = "%s: guestrelay's table equals ftrace's hist trigger" % name
    if not f_rows:
        fail(what, "ftrace's table is empty")
        return
    if o_drop:
        fail(what, "guestrelay dropped %s" % o_drop)
        return
    if f_drop:
        # ftrace's tracing_map could not insert f_drop events: each is
        # one more in guestrelay's table than in ftrace's
        extra = {k: o_rows.get(k, 0) - f_rows.get(k, 0)
                 for k in set(f_rows) | set(o_rows)}
        if min(extra.values()) < 0 or sum(extra.values()) != f_drop:
            fail(what, "ftrace dropped %d; differences %s" % (f_drop, extra))
            return
        ok("%s, but for the %d event(s) ftrace dropped (%d keys)" % (
            what, f_drop, len(o_rows)))
        return
    if f_rows != o_rows:
        keys = sorted(set(f_rows) | set(o_rows))
        diff = ["%d: ftrace %s ours %s" % (k, f_rows.get(k), o_rows.get(k))
                for k in keys if f_rows.get(k) != o_rows.get(k)]
        fail(what, "; ".join(diff[:8]))
        return
    ok("%s (%d keys, %d hits)" % (what, len(f_rows), sum(f_rows.values())))


def log2_key(v):
    """spec 17.2 GR_HT_LOG2: 0 if v <= 1, else ilog2(v - 1) + 1."""
    return 0 if v <= 1 else (v - 1).bit_length()


def events(trace):
    """(ns, name, payload, tid) of every event of the trace, in order."""
    import bt2
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        ctx = ev.common_context_field
        tid = int(ctx["tid"]) if ctx is not None and "tid" in ctx else None
        yield (msg.default_clock_snapshot.ns_from_origin, ev.name,
               ev.payload_field, tid)


def is_enter(name):
    return name == "sys_enter" or name.startswith("syscall_entry_")


def is_exit(name):
    return name == "sys_exit" or name.startswith("syscall_exit_")


SYS_SYNC = 162  # x86_64: the guest's mark
U64 = (1 << 64) - 1


def references(trace, x, y):
    """Each latency's reference from the trace: {name: [(label, ns)]}.

    runq: sched_wakeup or sched_wakeup_new to the next sched_switch-in
    of a task named "grkid" (X, Y and the subshells X forks); syscall:
    sys_enter to sys_exit of the same thread X or Y, labelled by call,
    for calls entered after the guest's sync(2); block: block_rq_issue to
    the block_rq_complete of the same sector, labelled by the complete's
    device, for requests issued after the sync. Each start is used once
    and a later start of the same match replaces it, as in the guest.
    """
    msgs = []
    for ts, name, f, tid in events(trace):
        if name in ("sched_wakeup", "sched_wakeup_new"):
            msgs.append((ts, 0, "runq", int(f["tid"]), name))
        elif name == "sched_switch":
            msgs.append((ts, 1, "runq", int(f["next_tid"]),
                         str(f["next_comm"])))
        elif is_enter(name):
            msgs.append((ts, 0, "syscall", tid, int(f["id"])))
        elif is_exit(name):
            msgs.append((ts, 1, "syscall", tid, int(f["id"])))
        elif name == "block_rq_issue":
            msgs.append((ts, 0, "block", int(f["sector"]), None))
        elif name == "block_rq_complete":
            msgs.append((ts, 1, "block", int(f["sector"]), int(f["dev"])))
    msgs.sort(key=lambda m: m[:2])
    mark = next((m[0] for m in msgs if m[2] == "syscall" and m[1] == 0 and
                 m[4] == SYS_SYNC), None)
    starts = {"runq": {}, "syscall": {}, "block": {}}
    out = {"runq": [], "syscall": [], "block": []}
    new_tasks = 0
    for ts, kind, what, match, label in msgs:
        if what != "runq" and (mark is None or ts <= mark):
            continue
        if kind == 0:
            starts[what][match] = (ts, label)
            continue
        if what == "syscall" and match not in (x, y):
            continue
        if what == "runq":
            # the filter runs on the end: next_comm == "grkid"; a start
            # is taken by any switch-in of its task
            if match not in starts["runq"]:
                continue
            t0, how = starts["runq"].pop(match)
            if label == "grkid":
                out["runq"].append((None, ts - t0))
                new_tasks += how == "sched_wakeup_new"
            continue
        if match in starts[what]:
            out[what].append((label, ts - starts[what].pop(match)[0]))
    return out, mark, new_tasks


def check_latency(what, ours_json, deltas):
    """guestrelay's table in OURS_JSON against the reference DELTAS."""
    title = "%s: guestrelay's histogram counts what the trace computes" % what
    # keys as the table prints them: 64-bit unsigned (a call id -1 too)
    ref = collections.Counter((None if lab is None else lab & U64,
                               log2_key(d)) for lab, d in deltas)
    # keys the rounding of two clock conversions may move: within 0.1%
    # of a power of two
    edge = sum(1 for _, d in deltas
               if log2_key(int(d * 0.999)) != log2_key(int(d * 1.001) + 1))
    try:
        with open(ours_json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(title, "guestrelay's table: %s" % e)
        return
    t = doc["hists"][0] if "hists" in doc else doc
    ours = collections.Counter()
    for row in t["entries"]:
        key = row["key"]
        labels = [v for k, v in key.items() if k != "delta"]
        ours[(int(labels[0]) if labels else None, int(key["delta"]))] += \
            int(row["hitcount"])
    if not deltas:
        fail(title, "the trace has no such latency after the mark")
        return
    if sum(ours.values()) != len(deltas):
        fail(title, "%d latencies counted, the trace has %d; ours %s, "
             "trace %s" % (sum(ours.values()), len(deltas), dict(ours),
                           dict(ref)))
        return
    moved = sum(abs(ours[k] - ref[k]) for k in set(ours) | set(ref)) // 2
    if moved > edge:
        fail(title, "%d in other buckets (%d near an edge); ours %s, "
             "trace %s" % (moved, edge, dict(ours), dict(ref)))
        return
    ok("%s (%d latencies, %d buckets%s)" % (
        title, len(deltas), len(ref),
        ", %d moved across an edge" % moved if moved else ""))


def check_latencies(trace, tables, x, y):
    refs, mark, new_tasks = references(trace, x, y)
    if mark is None:
        fail("the guest's sync(2) mark is in the trace", "not found")
    else:
        ok("the guest's sync(2) mark is in the trace")
    what = "runq counts new tasks' first runs (sched_wakeup_new starts)"
    if new_tasks:
        ok("%s: %d in the reference" % (what, new_tasks))
    else:
        fail(what, "the trace has none for tasks named grkid")
    for what in ("runq", "syscall", "block"):
        check_latency(what, "%s/%s.json" % (tables, what), refs[what])


if __name__ == "__main__":
    if sys.argv[1] == "ftrace":
        check_ftrace(*sys.argv[2:6])
    elif sys.argv[1] == "latency":
        check_latencies(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                        int(sys.argv[5]))
