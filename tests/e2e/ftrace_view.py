# SPDX-License-Identifier: GPL-2.0
"""ftrace's and guestrelay's views of sched_switch, for the e2e tests.

Shared by test_ftrace_fidelity.sh and test_filter.sh: the guest prints
ftrace's per-CPU view on the console (gr_ftrace_dump in
scripts/guest/e2e-common), the host reads guestrelay's trace with
babeltrace2's python bindings (an independent decoder), and a sequence
of (prev_tid, next_tid) of one tracer is found in the other's.
"""
import collections

import bt2

WINDOW_NS = 50 * 1000 * 1000    # where ftrace's first switch is looked for


def ok(name):
    print("ok - " + name)


def fail(name, why):
    print("FAIL - %s: %s" % (name, why))


def read_ftrace(log):
    """Per CPU, ftrace's (ns, prev, next) switches and its stats."""
    switches = collections.defaultdict(list)
    stats = {}
    for line in open(log, errors="replace"):
        w = line.split()
        if len(w) == 5 and w[0] == "F":
            sec, usec = w[2].split(".")
            switches[int(w[1])].append(
                (int(sec) * 10**9 + int(usec) * 1000, int(w[3]), int(w[4])))
        elif line.startswith("GR: FTRACE cpu "):
            # GR: FTRACE cpu N overrun O dropped D entries E
            stats[int(w[3])] = {w[i]: int(w[i + 1]) for i in (4, 6, 8)}
    return switches, stats


def read_switches(trace):
    """Per CPU, guestrelay's (ns, prev, next) switches; discard messages."""
    ours = collections.defaultdict(list)
    discarded = 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if isinstance(msg, (bt2._DiscardedEventsMessageConst,
                            bt2._DiscardedPacketsMessageConst)):
            discarded += 1
            continue
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        if ev.name != "sched_switch":
            continue
        cpu = int(ev.packet.context_field["cpu_id"])
        ours[cpu].append((msg.default_clock_snapshot.value,
                          int(ev.payload_field["prev_tid"]),
                          int(ev.payload_field["next_tid"])))
    return ours, discarded


def find_run(o, f):
    """Where ftrace's switches f stand, in order, in guestrelay's o.

    Anchor: ftrace's first switch, the same pair nearest in time (within
    WINDOW_NS); a pair may repeat within the window, so the first
    candidate (by distance) that lines up wins. Returns (index or None,
    candidates by distance).
    """
    pairs_f = [e[1:] for e in f]
    cands = sorted((i for i, e in enumerate(o)
                    if e[1:] == pairs_f[0] and
                    abs(e[0] - f[0][0]) <= WINDOW_NS),
                   key=lambda i: abs(o[i][0] - f[0][0]))
    for i in cands:
        if [e[1:] for e in o[i:i + len(f)]] == pairs_f:
            return i, cands
    return None, cands
