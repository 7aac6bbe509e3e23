#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""workload_table.py: the table of bench_workload.sh

Reads the guest console ("GR: WL run variant=V rep=R workload=W ops=N
ns=T ops_per_s=X", "GR: WL info KEY VALUE") and guestrelay's status of the
VM (status --json at the end), prints markdown: ops/s per variant, median
[min-max] of the rounds, and the ratios to "none". Exit 1 if a variant or
workload has no run, or guestrelay recorded fewer events than its phase
must have made (then the gr column means nothing).
"""
import argparse
import json
import re
import statistics
import sys

VARIANTS = [("none", "none"), ("ftrace", "ftrace"), ("gr", "guestrelay")]
WORKLOADS = [("pingpong", "pipe ping-pong (round trips/s)"),
             ("getppid", "getppid() (calls/s)")]


def fmt(v):
    if v >= 100:
        return "%.0f" % v
    return "%.1f" % v


def cell(vals):
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)),
                           fmt(max(vals)))


def main():
    ap = argparse.ArgumentParser()
    for a in ("console", "status", "host-cpu", "qemu", "load"):
        ap.add_argument("--" + a, required=True)
    for a in ("pp", "sc", "reps", "host-cores", "seconds"):
        ap.add_argument("--" + a, type=int, required=True)
    o = ap.parse_args()

    runs, info = {}, {}
    with open(o.console, errors="replace") as f:
        for line in f:
            line = line.strip()
            m = re.match(r"GR: WL run (.*)", line)
            if m:
                kv = dict(x.split("=", 1) for x in m.group(1).split())
                runs.setdefault((kv["variant"], kv["workload"]), []).append(
                    float(kv["ops_per_s"]))
                continue
            m = re.match(r"GR: WL info (\S+) ?(.*)", line)
            if m:
                info[m.group(1)] = m.group(2)
    try:
        with open(o.status) as f:
            st = json.load(f)
        if "vms" in st:
            st = st["vms"][0]
    except (OSError, ValueError, IndexError):
        st = {}
    stats = st.get("stats", {})

    rc = 0
    out = ["# Tracing overhead on real workloads in the guest\n",
           "**TCG, emulated: compare ratios.** ops/s of a CPU emulated by "
           "QEMU TCG; only ratios from the same boot mean something.\n",
           "| workload | none (ops/s) | ftrace (ops/s) | guestrelay (ops/s) "
           "| ftrace / none | guestrelay / none | guestrelay / ftrace |",
           "|---|---|---|---|---|---|---|"]
    for w, wname in WORKLOADS:
        cells = {}
        for v, _ in VARIANTS:
            vals = runs.get((v, w))
            if not vals:
                print("workload_table: no runs of %s %s" % (v, w),
                      file=sys.stderr)
                rc = 1
                continue
            cells[v] = vals
        if len(cells) < 3:
            continue
        med = {v: statistics.median(cells[v]) for v in cells}
        out.append("| %s | %s | %s | %s | %.2f | %.2f | %.2f |" % (
            wname, cell(cells["none"]), cell(cells["ftrace"]),
            cell(cells["gr"]), med["ftrace"] / med["none"],
            med["gr"] / med["none"], med["gr"] / med["ftrace"]))
    out.append("")
    out.append("- ratios: ops/s over ops/s on medians; below 1 = slower. "
               "guestrelay / ftrace above 1: the workload runs faster "
               "under guestrelay than under ftrace.")
    # events guestrelay must have written in its phase: per pingpong
    # round trip 4 syscalls x 2 events, per getppid call 2 events
    need = o.reps * (o.pp * 8 + o.sc * 2)
    written = stats.get("guest_events", 0)
    lost = {k: stats.get(k, 0) for k in ("lost_full", "lost_too_big",
                                         "lost_nested", "overwritten")}
    out.append("- guestrelay: %d events written (its phase makes at least "
               "%d), lost: %s; %d packets (%d bytes) stored; doorbells "
               "%d in / %d out" % (
                   written, need,
                   ", ".join("%s %d" % kv for kv in lost.items()),
                   stats.get("packets", 0), stats.get("bytes", 0),
                   stats.get("doorbells_in", 0),
                   stats.get("doorbells_out", 0)))
    if written < need:
        out.append("- **WARNING: guestrelay wrote fewer events than its "
                   "phase made: its column is not a traced run**")
        rc = 1
    if any(lost.values()):
        out.append("- **WARNING: guestrelay lost events (a dropped event "
                   "is cheaper than a written one)**")
    out.append("- ftrace: %s; entries %s, overrun %s (overwrite mode: the "
               "buffer wraps, as ftrace's default; a write costs the same)"
               % (info.get("ftrace", "?"), info.get("ftrace_entries", "?"),
                  info.get("ftrace_overrun", "?")))
    out.append("- events (both tracers): sched_switch, sched_wakeup, "
               "sched_wakeup_new, sched_process_fork/exec/exit, "
               "sched_migrate_task, sys_enter, sys_exit")
    out.append("- runs: pingpong %d round trips, getppid %d calls, %d "
               "rounds per variant after one warm-up run each; variants "
               "in order none, ftrace, guestrelay in one boot" % (
                   o.pp, o.sc, o.reps))
    out.append("")
    out.append("## Conditions\n")
    out.append("- guest: kernel %s, %s CPUs (workloads pinned to CPU 0), "
               "clocksource %s; %s" % (info.get("kernel", "?"),
                                        info.get("cpus", "?"),
                                        info.get("clocksource", "?"), o.qemu))
    out.append("- host: %d cores, %s; load average before / after: %s; "
               "%d s in all" % (o.host_cores, o.host_cpu, o.load, o.seconds))
    print("\n".join(out))
    return rc


if __name__ == "__main__":
    sys.exit(main())
