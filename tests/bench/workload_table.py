#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""workload_table.py: the table of bench_workload.sh

Reads the guest console ("GR: WL run variant=V rep=R workload=W ops=N
ns=T ops_per_s=X", "GR: WL info KEY VALUE") and guestrelay's status of the
VM (status --json at the end), prints markdown: ops/s per variant, median
[min-max] of the rounds, and the ratios to "none" and guestrelay's to
ftrace and LTTng (LTTng's column when the guest ran it: --lttng 1). Exit 1
if a variant or workload has no run, or guestrelay recorded fewer events
than its phase must have made (then the gr column means nothing).
"""
import argparse
import json
import re
import statistics
import sys

VARIANTS = [("none", "none"), ("ftrace", "ftrace"), ("gr", "guestrelay")]
LT_VARIANT = "lttng"
WORKLOADS = [("pingpong", "pipe ping-pong (round trips/s)"),
             ("getppid", "getppid() (calls/s)")]


def fmt(v):
    if v >= 100:
        return "%.0f" % v
    return "%.1f" % v


def cell(vals):
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)),
                           fmt(max(vals)))


def parser():
    """The arguments bench_workload.sh gives its tables."""
    ap = argparse.ArgumentParser()
    for a in ("console", "status", "host-cpu", "qemu", "load"):
        ap.add_argument("--" + a, required=True)
    for a in ("pp", "sc", "reps", "host-cores", "seconds"):
        ap.add_argument("--" + a, type=int, required=True)
    ap.add_argument("--lttng", type=int, default=0)
    ap.add_argument("--guest-mem", default="?")
    return ap


def read_console(path):
    """The guest's runs, {(variant, workload): [(rep, ops/s, ns)]}, and
    its "GR: WL info" lines, {key: value}."""
    runs, info = {}, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            m = re.match(r"GR: WL run (.*)", line)
            if m:
                kv = dict(x.split("=", 1) for x in m.group(1).split())
                runs.setdefault((kv["variant"], kv["workload"]), []).append(
                    (int(kv["rep"]), float(kv["ops_per_s"]), int(kv["ns"])))
                continue
            m = re.match(r"GR: WL info (\S+) ?(.*)", line)
            if m:
                info[m.group(1)] = m.group(2)
    return runs, info


def read_stats(path):
    """guestrelay's counters of the VM (status --json), {} without."""
    try:
        with open(path) as f:
            st = json.load(f)
        if "vms" in st:
            st = st["vms"][0]
    except (OSError, ValueError, IndexError):
        st = {}
    return st.get("stats", {})


def cells_of(runs, variants, w, who, warm=True):
    """ops/s of each variant's runs of workload w (warm: the warm-up run,
    rep 0, too), {variant: [ops/s]}, and whether every variant had some
    (a missing one is said on stderr, as @who)."""
    cells, whole = {}, True
    for v in variants:
        vals = [r[1] for r in runs.get((v, w), []) if warm or r[0] > 0]
        if not vals:
            print("%s: no runs of %s %s" % (who, v, w), file=sys.stderr)
            whole = False
            continue
        cells[v] = vals
    return cells, whole


def main():
    o = parser().parse_args()
    lt = bool(o.lttng)
    variants = [v for v, _ in VARIANTS] + ([LT_VARIANT] if lt else [])
    runs, info = read_console(o.console)
    stats = read_stats(o.status)

    rc = 0
    head = ["workload", "none (ops/s)", "ftrace (ops/s)"]
    head += ["LTTng (ops/s)"] if lt else []
    head += ["guestrelay (ops/s)", "ftrace / none"]
    head += ["LTTng / none"] if lt else []
    head += ["guestrelay / none", "guestrelay / ftrace"]
    head += ["guestrelay / LTTng"] if lt else []
    out = ["# Tracing overhead on real workloads in the guest\n",
           "**TCG, emulated: compare ratios.** ops/s of a CPU emulated by "
           "QEMU TCG; only ratios from the same boot mean something.\n",
           "| %s |" % " | ".join(head), "|%s" % ("---|" * len(head))]
    for w, wname in WORKLOADS:
        cells, whole = cells_of(runs, variants, w, "workload_table")
        if not whole:
            rc = 1
            continue
        med = {v: statistics.median(cells[v]) for v in cells}
        row = [wname, cell(cells["none"]), cell(cells["ftrace"])]
        row += [cell(cells[LT_VARIANT])] if lt else []
        row += [cell(cells["gr"]), "%.2f" % (med["ftrace"] / med["none"])]
        row += ["%.2f" % (med[LT_VARIANT] / med["none"])] if lt else []
        row += ["%.2f" % (med["gr"] / med["none"]),
                "%.2f" % (med["gr"] / med["ftrace"])]
        row += ["%.2f" % (med["gr"] / med[LT_VARIANT])] if lt else []
        out.append("| %s |" % " | ".join(row))
    out.append("")
    out.append("- ratios: ops/s over ops/s on medians; below 1 = slower. "
               "guestrelay / ftrace above 1: the workload runs faster "
               "under guestrelay than under ftrace%s."
               % (" (guestrelay / LTTng: than under LTTng)" if lt else ""))
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
    out.append("- event clocks: guestrelay %s, ftrace the same (its clock "
               "below), LTTng ktime_get_mono_fast_ns() (its only kernel "
               "clock)" % info.get("gr_clock", "?"))
    out.append("- ftrace: %s; entries %s, overrun %s (overwrite mode: the "
               "buffer wraps, as ftrace's default; a write costs the same)"
               % (info.get("ftrace", "?"), info.get("ftrace_entries", "?"),
                  info.get("ftrace_overrun", "?")))
    if lt:
        disc = info.get("lttng_discarded", "?")
        out.append("- LTTng: %s; %s; guest memory %s MiB; discarded "
                   "events %s; trace on tmpfs at the end %s bytes; "
                   "afterwards: %s" % (
                       info.get("lttng_version", "?"),
                       info.get("lttng", "?"), o.guest_mem, disc,
                       info.get("lttng_trace_bytes", "?"),
                       info.get("lttng_unloaded", "?")))
        # the least its phase's events take in LTTng's trace: per
        # round trip 2 sched_switch (56 B), 2 sched_wakeup (28 B), 4
        # syscall entries (20 B), 4 exits (8 B); per getppid call an
        # entry (0 B) and an exit (8 B); 4-byte headers
        need_lt = o.reps * (o.pp * (2 * 60 + 2 * 32 + 4 * 24 + 4 * 12) +
                            o.sc * (4 + 12))
        lt_bytes = info.get("lttng_trace_bytes", "")
        if not lt_bytes.isdigit() or int(lt_bytes) < need_lt:
            out.append("- **WARNING: LTTng's trace holds %s bytes, less "
                       "than the %d its phase's events take: its column is "
                       "not a traced run**" % (lt_bytes or "?", need_lt))
            rc = 1
        if not disc.isdigit():
            out.append("- **WARNING: LTTng's discarded count is unknown**")
        elif int(disc):
            out.append("- **WARNING: LTTng discarded %s events (its "
                       "channel was full while the consumer daemon fell "
                       "behind): a discarded event is cheaper than a "
                       "recorded one**" % disc)
    out.append("- events (%s): sched_switch, sched_wakeup, "
               "sched_wakeup_new, sched_process_fork/exec/exit, "
               "sched_migrate_task, sys_enter, sys_exit%s" % (
                   "all tracers" if lt else "both tracers",
                   "; LTTng: the same sched events and every system "
                   "call's entry and exit (--syscall --all: its probes on "
                   "sys_enter and sys_exit, typed arguments per system "
                   "call)" if lt else ""))
    out.append("- runs: pingpong %d round trips, getppid %d calls, %d "
               "rounds per variant after one warm-up run each; variants "
               "in order none, %sftrace, guestrelay in one boot" % (
                   o.pp, o.sc, o.reps, "LTTng, " if lt else ""))
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
