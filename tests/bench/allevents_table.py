#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""allevents_table.py: the table of bench_allevents.sh (every event on)

Reads the guest console of bench_workload.sh with gr.set=all ("GR: WL run
variant=V rep=R workload=W ops=N ns=T ops_per_s=X", rep 0 the warm-up;
"GR: WL info KEY VALUE"), guestrelay's status at the end and the answer
to `guestrelay enable VM '*'` (--enable), prints markdown:
  - ops/s per variant (median [min-max] of the rounds after the warm-up)
    and the ratios to "none" and between the tracers;
  - per tracer: the events it had enabled, the events it wrote in its
    phase and what it lost, and the cost of one event to the workload:
    (the phase's time, every run - the same runs' time with no tracer)
    / events written (LTTng: its trace's bytes instead, it gives no
    count).
Exit 1 if a variant or workload has no run, or a tracer wrote no event.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workload_table import (WORKLOADS, cell, cells_of,  # noqa: E402
                            parser, read_console, read_stats)

NAMES = {"none": "none", "lttng": "LTTng", "ftrace": "ftrace",
         "gr": "guestrelay"}


def main():
    ap = parser()
    ap.add_argument("--enable", default=None)
    o = ap.parse_args()
    variants = ["none"] + (["lttng"] if o.lttng else []) + ["ftrace", "gr"]
    runs, info = read_console(o.console)
    stats = read_stats(o.status)
    enable = ""
    if o.enable is None:
        o.enable = os.path.join(os.path.dirname(o.status),
                                "allevents-enable.txt")
    try:
        with open(o.enable) as f:
            enable = "; ".join(" ".join(line.split()) for line in f
                               if line.strip())
    except OSError:
        pass

    rc = 0
    tracers = variants[1:]
    head = ["workload"] + ["%s (ops/s)" % NAMES[v] for v in variants]
    head += ["%s / none" % NAMES[v] for v in tracers]
    head += ["guestrelay / %s" % NAMES[v] for v in tracers if v != "gr"]
    out = ["# Every event on: tracing overhead on real workloads in the "
           "guest\n",
           "**TCG, emulated: compare ratios.** ops/s of a CPU emulated by "
           "QEMU TCG; only ratios from the same boot mean something.\n",
           "| %s |" % " | ".join(head), "|%s" % ("---|" * len(head))]
    phase_ns = {v: 0 for v in variants}
    for w, wname in WORKLOADS:
        for v in variants:
            phase_ns[v] += sum(r[2] for r in runs.get((v, w), []))
        cells, whole = cells_of(runs, variants, w, "allevents_table",
                                warm=False)
        if not whole:
            rc = 1
            continue
        med = {v: statistics.median(cells[v]) for v in cells}
        row = [wname] + [cell(cells[v]) for v in variants]
        row += ["%.2f" % (med[v] / med["none"]) for v in tracers]
        row += ["%.2f" % (med["gr"] / med[v]) for v in tracers if v != "gr"]
        out.append("| %s |" % " | ".join(row))
    out.append("")
    out.append("- ratios: ops/s over ops/s on medians; below 1 = slower; "
               "guestrelay / X above 1: the workload runs faster under "
               "guestrelay than under X.")

    # events: enabled, written, lost; the cost of one to the workload
    def ints(k):
        v = info.get(k, "")
        return int(v) if v.isdigit() else None
    ft_entries, ft_overrun = ints("ftrace_entries"), ints("ftrace_overrun")
    ft_written = None if ft_entries is None or ft_overrun is None \
        else ft_entries + ft_overrun
    gr_written = stats.get("guest_events")
    gr_lost = {k: stats.get(k, 0) for k in ("lost_full", "lost_too_big",
                                            "lost_nested", "overwritten")}
    rows = []

    def per_event(v, n):
        if not n:
            return "?"
        return "%.0f" % ((phase_ns[v] - phase_ns["none"]) / n)
    if o.lttng:
        rows.append(["LTTng", "every tracepoint of its probe modules (%s) "
                     "and every system call" %
                     info.get("lttng_modules", "?").count("lttng_probe_"),
                     "%s bytes of trace" %
                     info.get("lttng_trace_bytes", "?"),
                     "discarded %s" % info.get("lttng_discarded", "?"),
                     "no event count"])
    rows.append(["ftrace", "%s events (every event but the syscalls "
                 "system)" % info.get("ftrace_enabled", "?"),
                 "%s" % (ft_written if ft_written is not None else "?"),
                 "0 (overwrite mode: %s overwritten, each written first)"
                 % (ft_overrun if ft_overrun is not None else "?"),
                 per_event("ftrace", ft_written)])
    rows.append(["guestrelay", "`enable '*'`: %s; module: %s" %
                 (enable or "?", info.get("gr_catalogue", "?")),
                 "%s" % (gr_written if gr_written is not None else "?"),
                 ", ".join("%s %d" % kv for kv in gr_lost.items()),
                 per_event("gr", gr_written)])
    out.append("")
    out.append("| tracer | events enabled | events written in its phase "
               "| lost | ns of workload time per event written |")
    out.append("|---|---|---|---|---|")
    for r in rows:
        out.append("| %s |" % " | ".join(r))
    out.append("")
    out.append("- ns per event: (the phase's time over every run, warm-up "
               "included, minus the same runs' time with no tracer) / "
               "events the tracer wrote in its phase (the events of the "
               "idle seconds around the phase included); TCG time, so "
               "compare the tracers' figures with each other only.")
    if not ft_written:
        out.append("- **WARNING: ftrace wrote no event**")
        rc = 1
    if not gr_written:
        out.append("- **WARNING: guestrelay wrote no event**")
        rc = 1
    if any(gr_lost.values()):
        out.append("- **WARNING: guestrelay lost events (a dropped event "
                   "is cheaper than a written one)**")
    disc = info.get("lttng_discarded", "0")
    if o.lttng and disc.isdigit() and int(disc):
        out.append("- **WARNING: LTTng discarded %s events (a discarded "
                   "event is cheaper than a recorded one)**" % disc)
    out.append("- runs: pingpong %d round trips, getppid %d calls, %d "
               "rounds per variant after one warm-up run each; variants "
               "in order %s in one boot" % (
                   o.pp, o.sc, o.reps,
                   ", ".join(NAMES[v] for v in variants)))
    out.append("")
    out.append("## Conditions\n")
    out.append("- guest: kernel %s, %s CPUs (workloads pinned to CPU 0), "
               "clocksource %s, %s MiB; %s" % (
                   info.get("kernel", "?"), info.get("cpus", "?"),
                   info.get("clocksource", "?"), o.guest_mem, o.qemu))
    out.append("- host: %d cores, %s; load average before / after: %s; "
               "%d s in all" % (o.host_cores, o.host_cpu, o.load, o.seconds))
    print("\n".join(out))
    return rc


if __name__ == "__main__":
    sys.exit(main())
