# SPDX-License-Identifier: GPL-2.0
"""Checks of tests/e2e/test_hist.sh: guestrelay's hist tables against
ftrace's hist files printed by the guest, and the run-queue latency
histogram against a reference computed from the stored trace.

    hist_check.py ftrace CONSOLE NAME FTRACE_EVENT OURS_FILE
    hist_check.py runq TRACE_DIR OURS_JSON X Y

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


def check_runq(trace, ours_json, x, y):
    import bt2
    starts, deltas = {}, []
    msgs = []
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        if ev.name == "sched_wakeup":
            msgs.append((msg.default_clock_snapshot.ns_from_origin, 0,
                         int(ev.payload_field["tid"])))
        elif ev.name == "sched_switch":
            msgs.append((msg.default_clock_snapshot.ns_from_origin, 1,
                         int(ev.payload_field["next_tid"])))
    msgs.sort()
    for ts, kind, tid in msgs:
        if kind == 0:
            starts[tid] = ts
        elif tid in (x, y) and tid in starts:
            deltas.append(ts - starts.pop(tid))
    ref = collections.Counter(log2_key(d) for d in deltas)
    # keys the rounding of two clock conversions may move: within 0.1%
    # of a power of two
    edge = sum(1 for d in deltas
               if log2_key(int(d * 0.999)) != log2_key(int(d * 1.001) + 1))
    with open(ours_json) as f:
        doc = json.load(f)
    t = doc["hists"][0] if "hists" in doc else doc
    ours = collections.Counter()
    for row in t["entries"]:
        ours[int(list(row["key"].values())[0])] += int(row["hitcount"])
    what = "runq: guestrelay's histogram counts what the trace computes"
    if not deltas:
        fail(what, "no wakeup to switch-in of %d or %d in the trace" % (x, y))
        return
    if sum(ours.values()) != len(deltas):
        fail(what, "%d latencies counted, the trace has %d; ours %s, "
             "trace %s" % (sum(ours.values()), len(deltas), dict(ours),
                           dict(ref)))
        return
    moved = sum(abs(ours[k] - ref[k]) for k in set(ours) | set(ref)) // 2
    if moved > edge:
        fail(what, "%d in other buckets (%d near an edge); ours %s, trace %s"
             % (moved, edge, dict(ours), dict(ref)))
        return
    ok("%s (%d latencies, %d buckets%s)" % (
        what, len(deltas), len(ref),
        ", %d moved across an edge" % moved if moved else ""))


if __name__ == "__main__":
    if sys.argv[1] == "ftrace":
        check_ftrace(*sys.argv[2:6])
    elif sys.argv[1] == "runq":
        check_runq(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                   int(sys.argv[5]))
