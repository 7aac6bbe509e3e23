#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""anyevent_table.py - bench_anyevent.sh's table

The console of the counted boot (gr.set=anyevent: targets softirq_entry,
recorded by guestrelay's native probe, and softirq_raise, recorded by its
anyevent= path; variants none, lttng, ftrace, both, gr) and tcgcount.so's
lines, joined as count_table.py joins them. Per target and tracer, the
common path's instructions / memory accesses / locked / local_t over none,
the cycle estimate of count_table.py, and the ratios; then the generic
path against the native one.

  anyevent_table.py --console C --counts F [--status S] [--lttng 0|1]
Exit 1 when a count is missing, differs between rounds, or a variant ran
with other probes than it should.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from count_table import FIELDS, finish, parse  # noqa: E402
from count_table import delta_cell as cell, est_cell as est  # noqa: E402
from count_table import over_none, ratio_cell as ratio  # noqa: E402

TARGETS = [("softirq_entry", "native probe"),
           ("softirq_raise", "anyevent= (perf)")]
GR_FUNC = {"softirq_entry": "[guestrelay]",
           "softirq_raise": "perf_trace_softirq"}
FT_FUNC = "trace_event_raw_event_softirq"
LT_FUNC = "[lttng_probe_irq]"


def want(variant, target):
    """the probes (substrings of funcs, in order) the variant must have"""
    return {"none": [], "gr": [GR_FUNC[target]], "ftrace": [FT_FUNC],
            "perf": [GR_FUNC["softirq_raise"]],
            "lttng": [LT_FUNC],
            "both": sorted([FT_FUNC, GR_FUNC[target]])}[variant]


def delta(cnt, v, t, bad):
    """the common path's counts of v on t over none, with the mean"""
    return over_none(cnt, v, t, bad, want(v, t))


def status_lines(path, made, bad):
    """guestrelay's events written and lost, from the agent's status; a
    drop or fewer events than the benchmark made is a problem (a dropped
    event is cheaper)"""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        bad.append("no guestrelay status (%s): drops unknown" % e)
        return []
    st = (d["vms"][0] if "vms" in d else d).get("stats", {})
    lost = {k: st.get(k, 0) for k in ("lost_full", "lost_too_big",
                                      "lost_nested", "overwritten")}
    if any(lost.values()):
        bad.append("guestrelay dropped events: %s" % lost)
    if st.get("guest_events", 0) < made:
        bad.append("guestrelay wrote %s events, fewer than the %d the "
                   "benchmark made" % (st.get("guest_events"), made))
    return ["guestrelay events written: %s (the benchmark made %d, the "
            "rest are the guest's own); lost: %s"
            % (st.get("guest_events", "?"), made,
               ", ".join("%s %s" % kv for kv in lost.items()))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--status")
    ap.add_argument("--lttng", type=int, default=0)
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--qemu", default="")
    ap.add_argument("--seconds", default="?")
    a = ap.parse_args()
    try:
        cnt, bad = parse(a.console, a.counts)
    except OSError as e:
        print("- INVALID: %s" % e)
        return 1
    tracers = [("gr", "guestrelay"), ("ftrace", "ftrace")]
    tracers += [("lttng", "LTTng")] if a.lttng else []
    tracers += [("both", "guestrelay + ftrace")]
    d = {(v, t): delta(cnt, v, t, bad)
         for t, _ in TARGETS for v, _ in tracers}
    p = print
    p("## The generic path (anyevent=) against the native probe, ftrace "
      "and LTTng: counted per call")
    p("")
    p("One guest boot under QEMU TCG (%s) with tcgcount.so, one vCPU, "
      "noreplace-smp, %s calls per run, 2 rounds, %s s in all. TCG counts: "
      "exact, the same whatever the load. guestrelay.ko loaded once with "
      "anyevent=irq:softirq_raise, the host enabling softirq_entry and "
      "softirq_raise: softirq_entry goes through guestrelay's native "
      "probe, softirq_raise (no native probe) through the anyevent= path, "
      "a perf counter whose overflow handler writes the record. The module "
      "refuses anyevent= for an event it records natively, so the two are "
      "the two tracepoints of one event class (softirq: same prototype, "
      "fields, ftrace, perf and LTTng code). Cells: instructions / memory "
      "accesses / locked instructions / cmpxchg or xadd without LOCK over "
      "none (the dispatch loop alone), common path, then (mean "
      "instructions over none)." % (a.qemu, a.calls, a.seconds))
    p("")
    head = ["tracepoint", "guestrelay's path"]
    head += ["%s" % lab for _, lab in tracers]
    head += ["est. cycles %s" % lab for v, lab in tracers if v != "both"]
    head += ["guestrelay / ftrace"]
    head += ["guestrelay / LTTng"] if a.lttng else []
    p("| %s |" % " | ".join(head))
    p("|%s" % ("---|" * len(head)))
    for t, path in TARGETS:
        row = [t, path] + [cell(d[(v, t)]) for v, _ in tracers]
        row += [est(d[(v, t)]) for v, _ in tracers if v != "both"]
        row += [ratio(d[("gr", t)], d[("ftrace", t)])]
        if a.lttng:
            row += [ratio(d[("gr", t)], d[("lttng", t)])]
        p("| %s |" % " | ".join(row))
    p("")
    nat, gen = d[("gr", "softirq_entry")], d[("gr", "softirq_raise")]
    perf = delta(cnt, "perf", "softirq_raise", bad) \
        if ("perf", "softirq_raise") in cnt else None
    if gen and perf:
        own = {k: gen[k] - perf[k] for k in FIELDS}
        p("The anyevent= path's own cost on softirq_raise, split: perf's "
          "stage is a counter made with the same attributes and an "
          "overflow handler that does nothing (grbench's perf file, "
          "nothing else attached); the rest is guestrelay's handler "
          "(checks, the record's reservation, copy and commit).")
        p("")
        p("| per event, over none | insns | mem | locked | local_t | est. "
          "cycles | share of anyevent= |")
        p("|---|---:|---:|---:|---:|---:|---:|")
        for lab, x in (("perf's stage (empty handler)", perf),
                       ("guestrelay's handler (anyevent= - perf)", own),
                       ("anyevent= in all", gen),
                       ("native probe, softirq_entry", nat)):
            if x:
                p("| %s | %d | %d | %d | %d | %s | %s |"
                  % (lab, x["insns"], x["mem"], x["atomics"],
                     x["local_rmw"], est(x), ratio(x, gen)))
        p("")
    fe, fr = d[("ftrace", "softirq_entry")], d[("ftrace", "softirq_raise")]
    if nat and gen:
        p("- anyevent= over the native probe, same event class: "
          "%+d instructions, %+d memory accesses, %+d locked, %+d "
          "local_t per event; %s x the native probe's instructions, "
          "est. %s cycles against %s. That difference is the generic "
          "path's own fixed cost: perf's stage of the event "
          "(perf_trace_softirq: perf_trace_buf_alloc's per-CPU buffer "
          "and recursion guard, the entry filled as ftrace's, "
          "perf_tp_event, the software event's count and overflow, the "
          "sample data) and the handler's checks and copy of the "
          "entry into the record, in place of one direct probe."
          % (gen["insns"] - nat["insns"], gen["mem"] - nat["mem"],
             gen["atomics"] - nat["atomics"],
             gen["local_rmw"] - nat["local_rmw"], ratio(gen, nat),
             est(gen), est(nat)))
    if fe and fr:
        p("- control: ftrace's probe costs %d instructions on "
          "softirq_entry and %d on softirq_raise (the same code), so the "
          "two tracepoints are comparable." % (fe["insns"], fr["insns"]))
    p("- est. cycles: count_table.py's rule (bench_guest.sh's table), "
      "from the common path's counts; an estimate, not a measurement.")
    if not perf:
        p("- no perf variant in this run: perf's share not measured")
    # both targets, 2 rounds, the variants "both" and "gr"
    for s in status_lines(a.status, a.calls * 2 * 2 * 2, bad) \
            if a.status else []:
        p("- %s" % s)
    return finish(bad)


if __name__ == "__main__":
    sys.exit(main())
