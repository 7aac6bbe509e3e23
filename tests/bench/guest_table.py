#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""guest_table.py - the table of tests/bench/bench_guest.sh

Reads the console of a guest that ran /gr/bench-probes (lines
"GR: BENCH ...") and the agent's `guestrelay status --json` of that guest
taken when it finished, and prints a Markdown report: per tracepoint the
median [min-max] ns per call of every variant, the guestrelay/ftrace
and guestrelay/LTTng ratios of the probe costs (each minus the bare loop),
the floor (grbench's minimal probe) against the tracers, the clocks and
what the clock costs guestrelay's probe, whether any tracer dropped
anything, and what was attached in each variant. The LTTng column is there
when the guest ran the lttng variant (--lttng 1, bench_guest.sh's default).

Exit status: 0 report printed; 1 report printed but a variant ran with
other probes attached than it should, or a run is missing (its numbers
mean nothing); 2 bad input.
"""

import argparse
import json
import re
import statistics
import sys

from count_table import count_section

TARGETS = ["sched_switch", "sys_enter", "irq_handler_exit",
           "sched_process_exec"]
# clock targets of grbench, the first being the event clock of both
# tracers here; ratios are to it
CLOCKS = [("clock_mono_fast",
           "ktime_get_mono_fast_ns(): LTTng's clock, ftrace's \"mono\", "
           "guestrelay's where the kernel does not trust the TSC"),
          ("clock_raw_fast", "ktime_get_raw_fast_ns()"),
          ("clock_local",
           "trace_clock_local(): ftrace's default \"local\""),
          ("clock_local_clock", "local_clock()"),
          ("clock_tsc_ordered", "rdtsc_ordered(): raw TSC, ordered; "
           "guestrelay's clock where the kernel trusts the TSC"),
          ("clock_tsc", "rdtsc(): raw TSC, plain"),
          ("clock_none", "none: the loop alone, a load in place of the read")]
# clocks timed in the rounds of these variants too (bench-probes), so
# that the clock's share is taken from reads timed next to the probe's
INCLOCKS = ["clock_none", "clock_mono_fast", "clock_tsc_ordered"]
INCLOCK_VARIANTS = ["none", "gr"]
# guestrelay's probe with another clock in place of its own (the one it
# uses is left out)
SWAP_CLOCKS = [("clock_mono_fast", "ktime_get_mono_fast_ns()"),
               ("clock_local_clock", "local_clock()"),
               ("clock_tsc_ordered", "rdtsc_ordered()"),
               ("clock_tsc", "rdtsc()")]
# the target guestrelay's clock is timed by, from "GR: BENCH info gr_clock"
GR_CLOCK_TARGET = {"tsc": "clock_tsc_ordered", "mono_fast": "clock_mono_fast"}
# the floor: grbench's target floor_<tracepoint>, run in the "none"
# phase, reported as variant "floor"
FLOOR_PREFIX = "floor_"
# the tracers set against the floor: (variant, column label)
FLOOR_TRACERS = [("gr", "guestrelay"), ("ftrace", "ftrace"), ("lttng", "LTTng")]
# guestrelay's goal against the floor on small events
FLOOR_TARGET = 1.25
SMALL_PAYLOAD = 64
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

# filter variants (bench-probes (b2), (c2)): a filter on sched_switch that
# keeps every call and one that drops it, for each tracer: (variant, base
# variant whose probes it runs)
FILTER_TARGET = "sched_switch"
FILTER_VARIANTS = [("gr-fkeep", "gr"), ("gr-fdrop", "gr"),
                   ("ftrace-fkeep", "ftrace"), ("ftrace-fdrop", "ftrace")]

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
    if variant == "floor":
        if nr != 1 or len(names) != 1 or \
                not names[0].startswith("grb_floor_") or \
                not names[0].endswith("[grbench]"):
            return "%d probe(s) attached: %s" % (nr, funcs or "none")
        return None
    if variant == LT_VARIANT:
        lttng = [n for n in names if re.search(r"\[lttng_\w+\]$", n)]
        if nr != 1 or len(names) != 1 or len(lttng) != 1:
            return "%d probe(s) attached, not LTTng's alone: %s" % (
                nr, funcs or "none")
        return None
    variant = dict(FILTER_VARIANTS).get(variant, variant)
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


def floor_key(v, t):
    """(variant, target) of a run: floor_T in the none phase is (floor, T);
    a clock timed in the rounds of variant V is (clock@V, clock)."""
    if t.startswith("clock_") and not v.startswith("clock"):
        return "clock@" + v, t
    if t.startswith(FLOOR_PREFIX):
        if v != "none":
            return "floor-in-" + v, t[len(FLOOR_PREFIX):]
        return "floor", t[len(FLOOR_PREFIX):]
    return v, t


def floor_clock_check(ns, reps):
    """The floor's and the clocks' runs that are missing, as INVALID lines."""
    bad = []
    for t in TARGETS:
        n = len(ns.get(("floor", t), []))
        if n != reps:
            bad.append("floor/%s: %d runs, not %d" % (t, n, reps))
    for c, _ in CLOCKS:
        n = len(ns.get(("clock", c), []))
        if n != reps:
            bad.append("clock/%s: %d runs, not %d" % (c, n, reps))
    for v in INCLOCK_VARIANTS:
        for c in INCLOCKS:
            n = len(ns.get(("clock@" + v, c), []))
            if n != reps:
                bad.append("%s/%s: %d runs, not %d" % (v, c, n, reps))
    for (v, t) in sorted(ns):
        if v.startswith("floor-in-"):
            bad.append("%s%s ran in variant %s, not none"
                       % (FLOOR_PREFIX, t, v[len("floor-in-"):]))
    return bad


def floor_section(ns, warnings):
    """The floor table: each tracer's probe against the least any tracer
    could do. Appends to warnings."""
    med = {k: statistics.median(v) for k, v in ns.items() if v}
    low = {k: min(v) for k, v in ns.items() if v}
    noisy = ["floor/%s" % t for t in TARGETS
             if min(ns.get(("floor", t), [0])) > 0 and
             max(ns[("floor", t)]) / min(ns[("floor", t)]) > 1.5]
    if noisy:
        warnings.append("noisy floor cells (max > 1.5 x min): %s"
                        % ", ".join(noisy))

    def over(d, v, t):
        if (v, t) in d and ("none", t) in d:
            return d[(v, t)] - d[("none", t)]
        return None

    def ratio(d, v, t):
        x, f = over(d, v, t), over(d, "floor", t)
        return "-" if x is None or not f or f <= 0 else "%.2f" % (x / f)

    out = []
    p = out.append
    # the tracers this boot ran (LTTng only where the guest carried it)
    tracers = [(v, label) for v, label in FLOOR_TRACERS
               if any((v, t) in ns for t in TARGETS)]
    p("## Against the floor")
    p("")
    p("floor: grbench's own probe on the same tracepoint, through the same "
      "loop, doing the least any tracer could do per event: read "
      "the event clock guestrelay uses in this boot (the TSC where the "
      "kernel trusts it, else ktime_get_mono_fast_ns()), store "
      "guestrelay's 16-byte record header "
      "(id, size, tid, timestamp) and guestrelay's payload for the event "
      "(the same bytes from the same sources) into BAR2, at a bump pointer "
      "wrapping in a 64 KiB window; no enable test, nesting guard, "
      "interrupt save or sub-buffer. It runs in the none phase, before "
      "guestrelay.ko is loaded. floor: ns per call, median [min-max]; "
      "over none: median minus the median of none; ratios of the costs "
      "over none, on medians (and on minima).")
    p("")
    below = ["%s/%s" % (label, t) for t in TARGETS
             for v, label in tracers
             if over(low, v, t) is not None and
             over(low, "floor", t) is not None and
             over(low, v, t) < over(low, "floor", t)]
    if below:
        warnings.append("cheaper than the floor on minima: %s. The floor "
                        "ran earlier in the boot (the none phase) than the "
                        "tracers; it does less than any of them, so load "
                        "that hit the floor's runs is the likely cause: "
                        "read its [min-max], run again"
                        % ", ".join(below))
    hdr = "| tracepoint | payload B | floor (ns) | floor over none (ns) |"
    sep = "|---|---|---|---|"
    for _, label in tracers:
        hdr += " %s over none (ns) |" % label
        sep += "---|"
    for _, label in tracers:
        if label == "guestrelay":
            hdr += " guestrelay/floor (target %.2fx) |" % FLOOR_TARGET
        else:
            hdr += " %s/floor |" % label
        sep += "---|"
    p(hdr)
    p(sep)
    for t in TARGETS:
        pay = PAYLOAD.get(t, ("?", "?"))[0]
        f = over(med, "floor", t)
        row = "| %s | %s | %s | %s |" % (t, pay, cell(ns.get(("floor", t))),
                                         "-" if f is None else fmt(f))
        for v, _ in tracers:
            x = over(med, v, t)
            row += " %s |" % ("-" if x is None else fmt(x))
        for v, label in tracers:
            r = ratio(med, v, t)
            cellv = "%s (min %s)" % (r, ratio(low, v, t))
            if label == "guestrelay" and r != "-":
                if isinstance(pay, int) and pay > SMALL_PAYLOAD:
                    cellv += ", not a small event"
                elif float(r) <= FLOOR_TARGET:
                    cellv += ", within target"
                else:
                    cellv += ", above target"
            row += " %s |" % cellv
        p(row)
    p("")
    p("- target: guestrelay's probe at most %.2fx the floor on small events "
      "(payload up to %d B); sched_process_exec is the 256-byte case."
      % (FLOOR_TARGET, SMALL_PAYLOAD))
    p("")
    return out


def filter_section(ns, info):
    """Filters: each tracer's sched_switch with no filter, a filter that
    keeps every call and one that drops it, over none, and the ratios."""
    med = {k: statistics.median(v) for k, v in ns.items() if v}
    t = FILTER_TARGET
    n0 = med.get(("none", t))

    def over(v):
        x = med.get((v, t))
        return None if x is None or n0 is None else x - n0

    def rel(a, b):
        return "-" if a is None or b is None or b <= 0 else "%.2f" % (a / b)

    out = []
    p = out.append
    p("## Filters (%s)" % t)
    p("")
    p("The same tracepoint with a filter that keeps every call and one that "
      "drops every call, per tracer, in the same boot: guestrelay's program "
      "(spec 14, set by the host: `prev_tid == PID`, `prev_tid == 0`), "
      "ftrace's events/sched/sched_switch/filter (`%s`, `%s`). Cells: ns per "
      "call over none (median), then the cell as in the first table; "
      "ratios on the costs over none."
      % (info.get("ftrace_filter_keep", "?"),
         info.get("ftrace_filter_drop", "?")))
    p("")
    p("| tracer | no filter | filter keeps | filter drops | keeps / no "
      "filter | drops / no filter |")
    p("|---|---|---|---|---|---|")
    rows = [("guestrelay", "gr", "gr-fkeep", "gr-fdrop"),
            ("ftrace", "ftrace", "ftrace-fkeep", "ftrace-fdrop")]
    for label, base, keep, drop in rows:
        b, k, d = over(base), over(keep), over(drop)
        p("| %s | %s | %s | %s | %s | %s |"
          % (label, "-" if b is None else "%s: %s" % (fmt(b), cell(
              ns.get((base, t)))),
             "-" if k is None else "%s: %s" % (fmt(k), cell(ns.get((keep, t)))),
             "-" if d is None else "%s: %s" % (fmt(d), cell(ns.get((drop, t)))),
             rel(k, b), rel(d, b)))
    p("| guestrelay/ftrace | %s | %s | %s | | |"
      % (rel(over("gr"), over("ftrace")), rel(over("gr-fkeep"),
                                              over("ftrace-fkeep")),
         rel(over("gr-fdrop"), over("ftrace-fdrop"))))
    p("")
    p("- a record guestrelay's filter drops is written, judged at commit and "
      "taken back (spec 14.5); ftrace's filtered event is written to a "
      "per-CPU scratch event first and copied to its ring only if kept.")
    p("")
    return out


def clock_section(ns, info, warnings):
    """The clocks (ns per read, ratio to the event clock) and what the
    clock costs guestrelay's probe and the floor. Appends to warnings."""
    med = {k: statistics.median(v) for k, v in ns.items() if v}
    ref = med.get(("clock", CLOCKS[0][0]))
    cs = info.get("clocksource", "?")
    gr_clock = info.get("gr_clock", "mono_fast")
    inuse = GR_CLOCK_TARGET.get(gr_clock, "clock_mono_fast")
    swaps = [(c, label) for c, label in SWAP_CLOCKS if c != inuse]

    def rel(x):
        return "%.2f" % (x / ref) if ref and x is not None else "-"

    out = []
    p = out.append
    p("## Clocks (TCG, emulated)")
    p("")
    p("Each clock read in a loop, in the same boot and the same way as the "
      "events (chunks of 1000, interrupts off). Ratio: median over the "
      "median of ktime_get_mono_fast_ns() under clocksource %s." % cs)
    p("")
    p("| clock | ns per read | ratio to mono_fast |")
    p("|---|---|---|")
    for c, label in CLOCKS:
        if c == "clock_none":
            p("| %s | %s | - |" % (label, cell(ns.get(("clock", c)))))
            continue
        p("| %s, clocksource %s | %s | %s |"
          % (label, cs, cell(ns.get(("clock", c))),
             rel(med.get(("clock", c)))))
    for v, t in sorted(ns):
        if v.startswith("clock-"):
            p("| ktime_get_mono_fast_ns(), clocksource %s | %s | %s |"
              % (v[len("clock-"):], cell(ns[(v, t)]), rel(med.get((v, t)))))
    for v in INCLOCK_VARIANTS:
        for c in INCLOCKS:
            label = dict(CLOCKS)[c].split(":")[0]
            if c == "clock_none":
                label = "the loop alone"
            p("| %s, timed in the rounds of %s | %s | %s |"
              % (label, v, cell(ns.get(("clock@" + v, c))),
                 "-" if c == "clock_none" else
                 rel(med.get(("clock@" + v, c)))))
    p("")

    def share(v):
        """The event clock's read less the loop, timed in variant v."""
        c, n = med.get(("clock@" + v, inuse)), \
            med.get(("clock@" + v, "clock_none"))
        return None if c is None or n is None else c - n

    loop = med.get(("clock", "clock_none"))
    own_gr, own_floor = share("gr"), share("none")
    if own_gr is None or loop is None:
        return out
    p("### What the clock costs guestrelay's probe")
    p("")
    p("Estimated from the clock targets, guestrelay.ko unchanged: its "
      "probe reads its clock (%s here: %s) once per event, and so does "
      "the floor; the read is "
      "taken to cost what it costs in a loop timed in the same rounds, "
      "less the loop: %s ns in guestrelay's rounds, %s ns in the floor's "
      "(the none phase). Without: over none minus that; with another "
      "clock: without plus that clock's read less the loop (clock "
      "phase). ns per call, medians."
      % (gr_clock, dict(CLOCKS)[inuse].split(":")[0], fmt(own_gr),
         "-" if own_floor is None else fmt(own_floor)))
    p("")
    hdr = "| tracepoint | guestrelay over none | without the clock |"
    sep = "|---|---|---|"
    for _, label in swaps:
        hdr += " with %s |" % label
        sep += "---|"
    hdr += " floor without the clock | guestrelay/floor without the clock |"
    sep += "---|---|"
    p(hdr)
    p(sep)
    odd = []
    for t in TARGETS:
        n0 = med.get(("none", t))
        g = med.get(("gr", t))
        f = med.get(("floor", t))
        if n0 is None or g is None:
            continue
        wo = g - n0 - own_gr
        row = "| %s | %s | %s |" % (t, fmt(g - n0), fmt(wo))
        for c, _ in swaps:
            x = med.get(("clock", c))
            row += " %s |" % ("-" if x is None else fmt(wo + x - loop))
        if f is None or own_floor is None:
            row += " - | - |"
        else:
            fwo = f - n0 - own_floor
            row += " %s | %s |" % (
                fmt(fwo), "%.2f" % (wo / fwo) if fwo > 0 and wo > 0
                else "-")
            if fwo <= 0:
                odd.append("floor/" + t)
        if wo <= 0:
            odd.append("guestrelay/" + t)
        p(row)
    p("")
    if odd:
        warnings.append("the clock's share came out at or above the whole "
                        "cost for %s: load hit the clock's runs or the "
                        "probe's; the without-the-clock estimates of this "
                        "run mean little" % ", ".join(odd))
    return out


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
    ap.add_argument("--accel", default="tcg",
                    help="the timed boot's accelerator (launch-guest.sh)")
    ap.add_argument("--count-console",
                    help="console of the boot under tcgcount.so")
    ap.add_argument("--counts", help="tcgcount.so's output of that boot")
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
            v, t = floor_key(r["variant"], r["target"])
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
            # a filter that drops every call keeps nothing
            if int(r["ft_entries"]) < int(r["calls"]) and \
                    v != "ftrace-fdrop":
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
    invalid.extend(floor_clock_check(ns, a.reps))
    for v, _ in FILTER_VARIANTS:
        n = len(ns.get((v, FILTER_TARGET), []))
        if n != a.reps:
            invalid.append("%s/%s: %d runs, not %d"
                           % (v, FILTER_TARGET, n, a.reps))
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
    if a.accel.startswith("kvm"):
        p("**KVM: timings of this host's CPU.** Ratios measured in the same "
          "run compare the tracers; the counts below hold on any x86-64.")
    else:
        p("**TCG, emulated: compare ratios, and trust the counts.** "
          "Absolute nanoseconds are those of a CPU emulated by QEMU TCG "
          "(accelerator: %s), which emulates every memory access and "
          "every locked instruction at great cost; only ratios measured in "
          "the same run mean something, and the instruction, memory and "
          "atomic counts per call (below) are what holds on hardware."
          % a.accel)
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
    if a.counts and a.count_console:
        sec, bad = count_section(a.count_console, a.counts, lt,
                                 expected_probes, a.accel)
        out.extend(sec)
        invalid.extend("counts: %s" % b for b in bad)
    out.extend(filter_section(ns, info))
    out.extend(floor_section(ns, warnings))
    out.extend(clock_section(ns, info, warnings))
    p("## Conditions")
    p("")
    p("- guest: kernel %s, %s CPUs (the benchmark pinned to CPU 0), "
      "clocksource %s (kernel command line: %s; available: %s); QEMU %s "
      "(%s); host CPU %s"
      % (info.get("kernel", "?"), info.get("cpus", "?"),
         info.get("clocksource", "?"), a.clock_args,
         info.get("clocksources", "?"), a.accel, a.qemu, a.host_cpu))
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
    for v in variants + ["floor"]:
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
