#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""guest_table.py - the table of tests/bench/bench_guest.sh

Reads the console of a guest that ran /gr/bench-probes (lines
"GR: BENCH ...") and the agent's `guestrelay status --json` of that guest
taken when it finished, and prints a Markdown report: per tracepoint the
median [min-max] ns per call of every variant, the guestrelay/ftrace
ratio of the probe costs (each minus the bare loop), the clocks, whether
either tracer dropped anything, and what was attached in each variant.

Exit status: 0 report printed; 1 report printed but a variant ran with
other probes attached than it should, or a run is missing (its numbers
mean nothing); 2 bad input.
"""

import argparse
import json
import re
import statistics
import sys

TARGETS = ["sched_switch", "sys_enter", "irq_handler_exit",
           "sched_process_exec"]
CLOCKS = [("clock_mono_fast",
           "ktime_get_mono_fast_ns(): guestrelay's clock, ftrace's \"mono\" "
           "(used here)"),
          ("clock_local",
           "trace_clock_local(): ftrace's default \"local\"")]
VARIANTS = ["none", "gr", "ftrace", "both"]
# payload bytes written: (guestrelay, ftrace); headers come on top:
# guestrelay 16 (struct gr_event_header), ftrace 12 (4-byte ring buffer
# event header + 8-byte struct trace_entry)
PAYLOAD = {
    "sched_switch": (56, 56),
    "sys_enter": (56, 56),
    "irq_handler_exit": (8, 8),
    "sched_process_exec": (256, 260),
}

RUN_RE = re.compile(r"^GR: BENCH run (.*?) funcs=(.*)$")


def parse_console(path):
    runs, info, probes, errors, kernel_bad = [], {}, [], [], []
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            m = RUN_RE.match(line)
            if m:
                kv = dict(w.split("=", 1) for w in m.group(1).split()
                          if "=" in w)
                kv["funcs"] = m.group(2).strip()
                runs.append(kv)
            elif line.startswith("GR: BENCH info "):
                w = line[len("GR: BENCH info "):].split(None, 1)
                info[w[0]] = w[1] if len(w) > 1 else ""
            elif line.startswith("GR: BENCH probes "):
                probes.append(line[len("GR: BENCH probes "):])
            elif line.startswith("GR: BENCH error"):
                errors.append(line)
            if re.search(r"WARNING:|BUG:|Oops|Call Trace|Kernel panic",
                         line):
                kernel_bad.append(line)
    return runs, info, probes, errors, kernel_bad


def expected_probes(variant, funcs, nr):
    """Why the probes of a run are not those of its variant, or None."""
    names = [f.strip() for f in funcs.split(",") if f.strip()]
    ours = [n for n in names
            if n.startswith("gr_probe_") and n.endswith("[guestrelay]")]
    ftrace = [n for n in names if n.startswith("trace_event_raw_event_")]
    if variant.startswith("clock"):
        variant = "clock"
    want = {"none": (0, 0), "clock": (0, 0), "gr": (1, 0),
            "ftrace": (0, 1), "both": (1, 1)}.get(variant)
    if want is None:
        return "unknown variant"
    if nr != sum(want) or len(names) != nr or \
            (len(ours), len(ftrace)) != want:
        return "%d probe(s) attached: %s" % (nr, funcs or "none")
    return None


def fmt(v):
    return "%.1f" % v if v < 1000 else "%.0f" % v


def cell(vals):
    if not vals:
        return "-"
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)),
                           fmt(max(vals)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--status")
    ap.add_argument("--calls", type=int, required=True)
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--shm-size", default="?")
    ap.add_argument("--host-cpu", default="?")
    ap.add_argument("--qemu", default="?")
    ap.add_argument("--seconds", default="?")
    ap.add_argument("--clock-args", default="?")
    ap.add_argument("--host-cores", default="?")
    ap.add_argument("--load", default="?")
    a = ap.parse_args()

    try:
        runs, info, probes, errors, kernel_bad = parse_console(a.console)
    except OSError as e:
        print("guest_table.py: %s" % e, file=sys.stderr)
        return 2
    status = {}
    if a.status:
        try:
            with open(a.status) as f:
                d = json.load(f)
            status = d["vms"][0] if "vms" in d else d
        except (OSError, ValueError, KeyError, IndexError) as e:
            print("guest_table.py: status: %s" % e, file=sys.stderr)

    invalid, warnings = [], []
    ns = {}                 # (variant, target) -> [ns per call]
    funcs = {}              # (variant, target) -> set of funcs strings
    ft_overrun, ft_short = 0, 0
    for r in runs:
        try:
            v, t = r["variant"], r["target"]
            per = int(r["ns"]) / int(r["calls"])
            nr = int(r["probes"])
        except (KeyError, ValueError, ZeroDivisionError):
            invalid.append("unreadable run line: %r" % r)
            continue
        if int(r["calls"]) != a.calls:
            invalid.append("%s/%s ran %s calls, not %d"
                           % (v, t, r["calls"], a.calls))
        if r.get("changed") != "0":
            invalid.append("%s/%s rep %s: the attached probes changed "
                           "during the run" % (v, t, r.get("rep")))
        why = expected_probes(v, r["funcs"], nr)
        if why:
            invalid.append("%s/%s rep %s: %s" % (v, t, r.get("rep"), why))
        if "ft_overrun" in r:
            ft_overrun += int(r["ft_overrun"])
            if int(r["ft_entries"]) < int(r["calls"]):
                ft_short += 1
        ns.setdefault((v, t), []).append(per)
        funcs.setdefault((v, t), set()).add(r["funcs"] or "(none)")
    for v in VARIANTS:
        for t in TARGETS:
            n = len(ns.get((v, t), []))
            if n != a.reps:
                invalid.append("%s/%s: %d runs, not %d" % (v, t, n, a.reps))
    if errors:
        invalid.extend(errors)
    if kernel_bad:
        warnings.append("the guest console shows a kernel problem: "
                        + "; ".join(kernel_bad[:3]))
    if ft_overrun:
        warnings.append("ftrace overwrote %d events (its buffer wrapped)"
                        % ft_overrun)
    noisy = ["%s/%s" % (v, t) for (v, t), vals in sorted(ns.items())
             if v in ("gr", "ftrace", "both") and min(vals) > 0 and
             max(vals) / min(vals) > 1.5]
    if noisy:
        warnings.append("noisy cells (max > 1.5 x min): %s. Other load on "
                        "the host slowed some runs; trust the ratio on "
                        "minima more, or run again on a quieter host"
                        % ", ".join(noisy))
    if ft_short:
        warnings.append("%d ftrace runs kept fewer entries than calls"
                        % ft_short)

    st = status.get("stats", {})
    lost = {k: st.get(k) for k in ("lost_full", "lost_too_big",
                                   "lost_nested", "overwritten")}
    gr_calls = a.calls * a.reps * len(TARGETS) * 2     # "both" and "gr"
    if not st:
        warnings.append("no guestrelay status: drops unknown")
    else:
        if any(lost.values()):
            warnings.append("guestrelay dropped events (%s): a dropped "
                            "event is cheaper, its numbers are flattered"
                            % ", ".join("%s %s" % kv for kv in lost.items()))
        if st.get("guest_events", 0) < gr_calls:
            warnings.append("guestrelay wrote %s events, fewer than the %d "
                            "the benchmark made: it was not recording all"
                            % (st.get("guest_events"), gr_calls))

    def med(v, t, f=statistics.median):
        vals = ns.get((v, t))
        return f(vals) if vals else None

    def ratio(t, f):
        n0, g, ft = med("none", t, f), med("gr", t, f), med("ftrace", t, f)
        if None in (n0, g, ft) or ft - n0 <= 0:
            return "-"
        return "%.2f" % ((g - n0) / (ft - n0))

    out = []
    p = out.append
    p("# guestrelay vs ftrace: per-event cost in the guest")
    p("")
    p("**TCG, emulated: compare ratios.** Absolute nanoseconds are those "
      "of a CPU emulated by QEMU TCG; only ratios measured in the same run "
      "mean something.")
    p("")
    p("Each tracepoint's attached probes called directly, %d calls per run "
      "with preemption and interrupts off (chunks of 1000), the same "
      "arguments for every variant, %d runs per cell, all in one boot. "
      "Cells: ns per call, median [min-max]." % (a.calls, a.reps))
    p("")
    p("| tracepoint | payload B (gr/ftrace) | none (ns) | guestrelay (ns) "
      "| ftrace (ns) | both (ns) | guestrelay/ftrace | guestrelay over "
      "none (ns) | ftrace over none (ns) |")
    p("|---|---|---|---|---|---|---|---|---|")
    for t in TARGETS:
        n0, g, f = med("none", t), med("gr", t), med("ftrace", t)
        over_g = over_f = "-"
        if None not in (n0, g, f):
            over_g, over_f = fmt(g - n0), fmt(f - n0)
        pay = PAYLOAD.get(t, ("?", "?"))
        p("| %s | %s/%s | %s | %s | %s | %s | %s (min %s) | %s | %s |"
          % (t, pay[0], pay[1], cell(ns.get(("none", t))),
             cell(ns.get(("gr", t))), cell(ns.get(("ftrace", t))),
             cell(ns.get(("both", t))), ratio(t, statistics.median),
             ratio(t, min), over_g, over_f))
    p("")
    p("- none: nothing attached, the bare dispatch loop. guestrelay: "
      "guestrelay.ko's probe alone. ftrace: ftrace's event alone. both: "
      "the two probes, one after the other.")
    p("- guestrelay/ftrace = (guestrelay - none) / (ftrace - none), on "
      "medians (and on minima): the cost of one probe against the other, "
      "the loop taken out. Below 1: guestrelay is cheaper. The two agree "
      "unless other load on the host hit some runs (noise only adds "
      "time).")
    p("- over none: median minus the median of none.")
    p("- payload: bytes each tracer writes besides its header (guestrelay "
      "16 B, ftrace 12 B); sched_process_exec carries a 247-character "
      "filename, guestrelay's 256-byte payload case.")
    p("")
    p("## Clocks (TCG, emulated)")
    p("")
    p("| clock | ns per read |")
    p("|---|---|")
    for c, label in CLOCKS:
        p("| %s, clocksource %s | %s |"
          % (label, info.get("clocksource", "?"),
             cell(ns.get(("clock", c)))))
    for v, t in sorted(ns):
        if v.startswith("clock-"):
            p("| ktime_get_mono_fast_ns(), clocksource %s | %s |"
              % (v[len("clock-"):], cell(ns[(v, t)])))
    p("")
    p("## Conditions")
    p("")
    p("- guest: kernel %s, %s CPUs (the benchmark pinned to CPU 0), "
      "clocksource %s (kernel command line: %s; available: %s); QEMU TCG "
      "(%s); host CPU %s"
      % (info.get("kernel", "?"), info.get("cpus", "?"),
         info.get("clocksource", "?"), a.clock_args,
         info.get("clocksources", "?"), a.qemu, a.host_cpu))
    p("- host: %s cores, load average before / after the boot: %s "
      "(other processes share the host with the guest)"
      % (a.host_cores, a.load))
    if st:
        p("- guestrelay: ivshmem-%s, %s shared memory, %s mode, %s rings "
          "of %s x %s-byte sub-buffers; the agent consumed while the guest "
          "wrote: %s packets (%s bytes) stored, doorbells %s in / %s out"
          % (status.get("device", "?"), a.shm_size, status.get("mode", "?"),
             status.get("nr_rings", "?"), status.get("n_subbufs", "?"),
             status.get("subbuf_size", "?"), st.get("packets", "?"),
             st.get("bytes", "?"), st.get("doorbells_in", "?"),
             st.get("doorbells_out", "?")))
        p("- guestrelay events written: %s (the benchmark made %d; the rest "
          "are the guest's own); lost: full %s, too big %s, nested %s, "
          "sub-buffers overwritten %s"
          % (st.get("guest_events", "?"), gr_calls, lost["lost_full"],
             lost["lost_too_big"], lost["lost_nested"], lost["overwritten"]))
    else:
        p("- guestrelay: no status from the agent")
    p("- ftrace: %s; cleared before every run and sized for a whole run, "
      "so it never wraps: overrun %d over all runs"
      % (info.get("ftrace", "?"), ft_overrun))
    if "guestrelay" in info:
        p("- guestrelay %s" % info["guestrelay"])
    p("- probes called:")
    for v in VARIANTS:
        for t in TARGETS:
            p("  - %s / %s: %s" % (v, t, "; ".join(
                sorted(funcs.get((v, t), {"-"})))))
    p("- took %s s (build, boot and runs)" % a.seconds)
    if warnings or invalid:
        p("")
        p("## Warnings")
        p("")
        for w in warnings:
            p("- WARNING: %s" % w)
        for w in invalid:
            p("- INVALID: %s" % w)
    print("\n".join(out))
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
