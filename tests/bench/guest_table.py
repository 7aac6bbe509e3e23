#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""guest_table.py - the table of tests/bench/bench_guest.sh

Reads the console of a guest that ran /gr/bench-probes (lines
"GR: BENCH ...") and the agent's `guestrelay status --json` of that guest
taken when it finished, and prints a Markdown report: per tracepoint the
median [min-max] ns per call of every variant, the guestrelay/ftrace
and guestrelay/LTTng ratios of the probe costs (each minus the bare loop),
the clocks, whether any tracer dropped anything, and what was attached in
each variant. The LTTng column is there when the guest ran the lttng
variant (--lttng 1, bench_guest.sh's default).

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
# LTTng's variant (scripts/guest/bench-probes, tests/bench/guest-lttng):
# what LTTng 2.13 attaches to each tracepoint and records there
LT_VARIANT = "lttng"
LT_PAYLOAD = {
    "sched_switch": "56",
    "sys_enter": "20",
    "irq_handler_exit": "8",
    "sched_process_exec": "256",
}
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
    if variant == LT_VARIANT:
        lttng = [n for n in names if re.search(r"\[lttng_\w+\]$", n)]
        if nr != 1 or len(names) != 1 or len(lttng) != 1:
            return "%d probe(s) attached, not LTTng's alone: %s" % (
                nr, funcs or "none")
        return None
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
    ap.add_argument("--lttng", type=int, default=0,
                    help="1: the guest ran the lttng variant")
    ap.add_argument("--guest-mem", default="?")
    a = ap.parse_args()
    variants = VARIANTS + ([LT_VARIANT] if a.lttng else [])

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
    lt_discarded = None     # LTTng's discarded count (cumulative), last
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
        if "lt_discarded" in r:
            try:
                lt_discarded = int(r["lt_discarded"])
            except ValueError:
                invalid.append("%s/%s rep %s: LTTng's discarded count is "
                               "unknown (%s)" % (v, t, r.get("rep"),
                                                 r["lt_discarded"]))
        ns.setdefault((v, t), []).append(per)
        funcs.setdefault((v, t), set()).add(r["funcs"] or "(none)")
    for v in variants:
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
             if v in ("gr", "ftrace", "both", LT_VARIANT) and
             min(vals) > 0 and
             max(vals) / min(vals) > 1.5]
    if noisy:
        warnings.append("noisy cells (max > 1.5 x min): %s. Other load on "
                        "the host slowed some runs; trust the ratio on "
                        "minima more, or run again on a quieter host"
                        % ", ".join(noisy))
    if ft_short:
        warnings.append("%d ftrace runs kept fewer entries than calls"
                        % ft_short)
    if a.lttng:
        lt_end = info.get("lttng_discarded")
        if lt_end is not None and lt_end.isdigit():
            lt_discarded = max(lt_discarded or 0, int(lt_end))
        # the least the benchmark's events take in LTTng's trace: the
        # payloads of one call of each target and a 4-byte header each
        lt_need = a.calls * a.reps * (sum(int(b) for b in
                                          LT_PAYLOAD.values()) +
                                      4 * len(TARGETS))
        lt_bytes = info.get("lttng_trace_bytes", "")
        if not lt_bytes.isdigit():
            warnings.append("LTTng's trace size is unknown: whether it "
                            "recorded is not checked")
        elif int(lt_bytes) < lt_need:
            warnings.append("LTTng's trace holds %s bytes, less than the "
                            "%d the benchmark's events take: it was not "
                            "recording all" % (lt_bytes, lt_need))
        if lt_discarded is None:
            warnings.append("LTTng's discarded count is unknown")
        elif lt_discarded:
            warnings.append("LTTng discarded %d events (its channel was "
                            "full): a discarded event is cheaper, its "
                            "numbers are flattered" % lt_discarded)

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

    def ratio(t, f, base="ftrace"):
        n0, g, b = med("none", t, f), med("gr", t, f), med(base, t, f)
        if None in (n0, g, b) or b - n0 <= 0:
            return "-"
        return "%.2f" % ((g - n0) / (b - n0))

    def over(v, t):
        n0, x = med("none", t), med(v, t)
        return "-" if None in (n0, x) else fmt(x - n0)

    lt = bool(a.lttng)
    out = []
    p = out.append
    p("# guestrelay vs ftrace%s: per-event cost in the guest"
      % (" and LTTng" if lt else ""))
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
    head = ["tracepoint", "payload B (gr/ftrace%s)" % ("/LTTng" if lt else ""),
            "none (ns)", "guestrelay (ns)", "ftrace (ns)"]
    head += ["LTTng (ns)"] if lt else []
    head += ["both (ns)", "guestrelay/ftrace"]
    head += ["guestrelay/LTTng"] if lt else []
    head += ["guestrelay over none (ns)", "ftrace over none (ns)"]
    head += ["LTTng over none (ns)"] if lt else []
    p("| %s |" % " | ".join(head))
    p("|%s" % ("---|" * len(head)))
    for t in TARGETS:
        pay = PAYLOAD.get(t, ("?", "?"))
        row = [t, "%s/%s" % pay + ("/%s" % LT_PAYLOAD[t] if lt else ""),
               cell(ns.get(("none", t))), cell(ns.get(("gr", t))),
               cell(ns.get(("ftrace", t)))]
        row += [cell(ns.get((LT_VARIANT, t)))] if lt else []
        row += [cell(ns.get(("both", t))),
                "%s (min %s)" % (ratio(t, statistics.median), ratio(t, min))]
        row += ["%s (min %s)" % (ratio(t, statistics.median, LT_VARIANT),
                                 ratio(t, min, LT_VARIANT))] if lt else []
        row += [over("gr", t), over("ftrace", t)]
        row += [over(LT_VARIANT, t)] if lt else []
        p("| %s |" % " | ".join(row))
    p("")
    p("- none: nothing attached, the bare dispatch loop. guestrelay: "
      "guestrelay.ko's probe alone. ftrace: ftrace's event alone. both: "
      "the two probes, one after the other.%s"
      % (" LTTng: LTTng's probe alone (%s, a kernel session "
         "writing to a guest tmpfs; on sys_enter its system call probe, "
         "which records syscall_entry_write with the arguments of write: "
         "LTTng records typed arguments per system call, not the six raw "
         "ones)." % info.get("lttng_version", "?") if lt else ""))
    p("- guestrelay/ftrace = (guestrelay - none) / (ftrace - none), on "
      "medians (and on minima): the cost of one probe against the other, "
      "the loop taken out. Below 1: guestrelay is cheaper. The two agree "
      "unless other load on the host hit some runs (noise only adds "
      "time).%s" % (" guestrelay/LTTng: the same against LTTng."
                    if lt else ""))
    p("- over none: median minus the median of none.")
    p("- payload: bytes each tracer writes besides its header (guestrelay "
      "16 B, ftrace 12 B%s); sched_process_exec carries a 247-character "
      "filename, guestrelay's 256-byte payload case."
      % (", LTTng 4 B compact or 16 B extended (event ids above 30, as "
         "most system call events get)" if lt else ""))
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
    if lt:
        p("- LTTng: %s; %s; its modules: %s; guest memory %s MiB; "
          "discarded events: %s (the run lines give the count after each "
          "run); trace on tmpfs at the end: %s bytes; afterwards: %s"
          % (info.get("lttng_version", "?"), info.get("lttng", "?"),
             info.get("lttng_modules", "?"), a.guest_mem,
             "?" if lt_discarded is None else lt_discarded,
             info.get("lttng_trace_bytes", "?"),
             info.get("lttng_unloaded", "?")))
    p("- probes called:")
    for v in variants:
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
