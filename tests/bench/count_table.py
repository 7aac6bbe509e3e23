#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""count_table.py - the counts section of bench_guest.sh's table

bench_guest.sh boots the bench guest a second time under QEMU TCG with
tcgcount.so (tests/bench/tcgcount), one vCPU, "noreplace-smp" (so Linux
keeps its LOCK prefixes on one CPU) and gr.count=1: every run of
/gr/bench-probes goes through grbench's count file, which makes each call
between the plugin's START and STOP markers and ends the run with its
REPORT marker. The console has one line per run,

  GR: BENCH count variant=V rep=R ... target=T calls=N count=K ... funcs=F

and the plugin's file one line per REPORT,

  tcgcount run=K segs=N mode_segs=M insns=I mem=A atomics=L reps=S
    rep_execs=X mean_insns=...

joined on K. Per call: the mode (the common path; it does not move with
load, emulator speed or run) and the mean (which includes the rare paths,
such as a sub-buffer switch, at the rate they came). A tracer's cost is
its count minus that of none (the same loop with nothing attached).

Used by guest_table.py (count_section()); alone:
  count_table.py --console guest-count.console --counts guest-counts.txt
"""

import argparse
import re
import sys

TARGETS = ["sched_switch", "sys_enter", "irq_handler_exit",
           "sched_process_exec"]
# (variant key, column label); "floor" is floor_T run in the none phase
TRACERS = [("floor", "floor"), ("gr", "guestrelay"), ("ftrace", "ftrace"),
           ("lttng", "LTTng"), ("both", "both")]
COUNT_RE = re.compile(r"^GR: BENCH count (.*?) funcs=(.*)$")
FIELDS = ["insns", "mem", "atomics", "local_rmw", "reps", "rep_execs"]

# The cycle estimate: cycles on a current x86-64 core from the counts, as
# a range. Straight-line kernel code with L1 hits retires 2-4
# instructions per cycle (0.25-0.5 cycle each); a locked read-modify-write
# (lock cmpxchg, lock xadd, xchg with memory) costs about 18-20 cycles on
# Intel cores from Skylake to Golden Cove and less on AMD Zen (Agner Fog,
# "Instruction tables", lock cmpxchg / xchg r,m latencies); a cmpxchg or
# xadd on memory without LOCK (local_t, ftrace's and LTTng's ring
# buffers) is several uops, about 5-8 cycles (uops.info, cmpxchg m64, r64
# on the same cores); a rep movs /
# rep stos has a start-up of some 20-35 cycles, then moves 16-32 bytes a
# cycle (Intel's optimization manual, "Enhanced REP MOVSB and STOSB"), here
# taken as 1 byte per TCG iteration (rep movsb, what the kernel's memcpy
# is with FSRM).
RULE = dict(insn=(0.25, 0.5), atomic=(18, 20), local_rmw=(5, 8),
            rep=(20, 35),
            rep_byte=(1 / 32.0, 1 / 16.0))
RULE_TEXT = ("cycles ~ 0.25-0.5 per instruction (2-4 per cycle, L1 hits) "
             "+ 18-20 per locked instruction (Agner Fog's instruction "
             "tables: lock cmpxchg, xchg r,m on Intel Skylake to Golden "
             "Cove; AMD Zen is lower) + 5-8 per cmpxchg/xadd without LOCK "
             "(local_t; uops.info, cmpxchg m64,r64) + 20-35 per rep-string "
             "instruction "
             "and 1/32-1/16 per byte it moves (Intel's optimization "
             "manual on fast rep movsb; one byte per TCG iteration "
             "assumed)")


def parse(console, counts):
    """{(variant, target): [counts dict per run]} and problems"""
    runs, plugin, bad = [], {}, []
    with open(console, errors="replace") as f:
        for raw in f:
            m = COUNT_RE.match(raw.rstrip("\r\n"))
            if m:
                kv = dict(w.split("=", 1) for w in m.group(1).split()
                          if "=" in w)
                kv["funcs"] = m.group(2).strip()
                runs.append(kv)
    with open(counts, errors="replace") as f:
        for raw in f:
            w = raw.split()
            if not w or w[0] != "tcgcount":
                continue
            kv = dict(x.split("=", 1) for x in w[1:] if "=" in x)
            plugin[kv.get("run")] = kv
    out = {}
    for r in runs:
        v, t = r.get("variant", "?"), r.get("target", "?")
        if t.startswith("floor_"):
            v, t = ("floor" if v == "none" else "floor-in-" + v), t[6:]
        p = plugin.get(r.get("count"))
        if p is None:
            bad.append("%s/%s rep %s: no plugin line for count=%s"
                       % (v, t, r.get("rep"), r.get("count")))
            continue
        if p.get("segs") != r.get("calls") or p.get("unpaired") != "0" \
                or p.get("dropped") != "0":
            bad.append("%s/%s rep %s: the plugin saw segs=%s unpaired=%s "
                       "dropped=%s for %s calls"
                       % (v, t, r.get("rep"), p.get("segs"),
                          p.get("unpaired"), p.get("dropped"),
                          r.get("calls")))
            continue
        if r.get("changed") != "0":
            bad.append("%s/%s rep %s: the attached probes changed"
                       % (v, t, r.get("rep")))
        c = {k: int(p[k]) for k in FIELDS}
        c.update({"mean_" + k: float(p["mean_" + k]) for k in
                  ("insns", "mem", "atomics")})
        c["mode_share"] = int(p["mode_segs"]) / max(1, int(p["segs"]))
        c["min_insns"] = int(p.get("min_insns", c["insns"]))
        c["funcs"], c["nr"] = r["funcs"], int(r.get("probes", "0"))
        out.setdefault((v, t), []).append(c)
    return out, bad


def cycles(d):
    """(low, high) cycles of a count delta, by RULE"""
    plain = d["insns"] - d["reps"]
    iters = max(0, d["rep_execs"] - d["reps"])
    return tuple(plain * RULE["insn"][i] + d["atomics"] * RULE["atomic"][i]
                 + d["local_rmw"] * RULE["local_rmw"][i] + d["reps"] * RULE["rep"][i] + iters * RULE["rep_byte"][i]
                 for i in (0, 1))


def probes_why(want, c):
    """None, or why the probes of run counts @c are not @want (substrings
    of the funcs, one probe each)"""
    funcs = [f for f in c["funcs"].split(",") if f]
    if c["nr"] != len(want) or len(funcs) != len(want):
        return "%d probes (%s), expected %d" % (c["nr"], c["funcs"],
                                               len(want))
    for x in want:
        if sum(x in f for f in funcs) != 1:
            return "probes %s, expected %s" % (c["funcs"], ", ".join(want))
    return None


def over_none(cnt, v, t, bad, want):
    """the common path's counts of v on t over none, with the mean
    instructions ("mean") and the common path's share of the calls
    ("share"); None and a line in @bad when a count is missing, the
    rounds differ or the probes are not @want"""
    rs, base = cnt.get((v, t)), cnt.get(("none", t))
    if not rs or not base:
        bad.append("no count for %s/%s" % (v, t))
        return None
    c, b = rs[0], base[0]
    for other in rs[1:]:
        if any(other[k] != c[k] for k in FIELDS):
            bad.append("%s/%s: the counts differ between rounds" % (v, t))
    why = probes_why(want, c)
    if why:
        bad.append("%s/%s: %s" % (v, t, why))
    d = {k: c[k] - b[k] for k in FIELDS}
    d["mean"] = c["mean_insns"] - b["mean_insns"]
    d["share"] = c["mode_share"]
    return d


def delta_cell(d):
    """insns / mem / locked / local_t (mean insns) of an over_none()"""
    if d is None:
        return "-"
    return "%d / %d / %d / %d (%.1f)%s" % (
        d["insns"], d["mem"], d["atomics"], d["local_rmw"], d["mean"],
        "" if d["share"] > 0.5 else " [mode in %.0f%%]" % (100 * d["share"]))


def est_cell(d):
    """the cycle estimate of an over_none(), "-" without one"""
    return "%.0f-%.0f" % cycles(d) if d else "-"


def ratio_cell(a, b, k="insns"):
    """a[k] / b[k] to two places, "-" without both"""
    if not a or not b or not b[k]:
        return "-"
    return "%.2f" % (a[k] / b[k])


def finish(bad):
    """print an INVALID line per problem and a blank line; the exit
    status of a table script"""
    for b in bad:
        print("- INVALID: %s" % b)
    print("")
    return 1 if bad else 0


def count_section(console, counts, lttng, expected_probes=None, accel=""):
    """Markdown lines of the counts section, and the problems found
    (a list: a run missing, counts that differ between rounds, other
    probes attached than the variant's)"""
    try:
        cnt, bad = parse(console, counts)
    except OSError as e:
        return [], ["counts: %s" % e]
    tracers = [x for x in TRACERS if lttng or x[0] != "lttng"]
    out = []
    p = out.append
    p("## Instructions, memory accesses and atomics per call (counted)")
    p("")
    p("The same benchmark in a second boot under QEMU TCG with tcgcount.so "
      "(tests/bench/tcgcount), one vCPU, the guest booted with "
      "noreplace-smp (Linux keeps its LOCK prefixes), every call made "
      "alone between the plugin's markers with interrupts off. Counts are "
      "exact and do not depend on load or emulator speed (timings above: "
      "%s). Per call, the common path (the most frequent count; a cell "
      "says [mode in N%%] where it covers half the calls or fewer); "
      "cells: instructions / memory accesses / "
      "locked instructions / cmpxchg or xadd without LOCK (local_t) over "
      "none (the loop with nothing attached), "
      "then the mean instructions over none, which includes the rare "
      "paths (sub-buffer or page switches) at the rate they came." % accel)
    p("")
    head = ["tracepoint", "none: insns/mem/atomics/local"]
    for _, label in tracers:
        head += ["%s: insns/mem/atomics/local (mean insns)" % label]
    head += ["est. cycles guestrelay", "est. cycles ftrace"]
    head += ["est. cycles LTTng"] if lttng else []
    p("| %s |" % " | ".join(head))
    p("|%s" % ("---|" * len(head)))
    notes = []
    for t in TARGETS:
        base = cnt.get(("none", t))
        if not base:
            bad.append("no count for none/%s" % t)
            continue
        b = base[0]
        row = [t, "%d/%d/%d/%d" % (b["insns"], b["mem"], b["atomics"],
                                   b["local_rmw"])]
        est = {}
        for v, _ in tracers:
            rs = cnt.get((v, t))
            if not rs:
                row.append("-")
                continue
            c = rs[0]
            for other in rs[1:]:
                if any(other[k] != c[k] for k in FIELDS):
                    bad.append("%s/%s: the counts differ between rounds: "
                               "%s" % (v, t, [{k: x[k] for k in FIELDS}
                                              for x in rs]))
                    break
            if expected_probes:
                why = expected_probes(v, c["funcs"], c["nr"])
                if why:
                    bad.append("%s/%s: %s" % (v, t, why))
            d = {k: c[k] - b[k] for k in FIELDS}
            row.append("%d / %d / %d / %d (%.1f)%s"
                       % (d["insns"], d["mem"], d["atomics"], d["local_rmw"],
                          c["mean_insns"] - b["mean_insns"],
                          "" if c["mode_share"] > 0.5 else
                          " [mode in %.0f%%]" % (100 * c["mode_share"])))
            if d["reps"]:
                notes.append("%s / %s: %d rep-string instruction(s), %d "
                             "TCG executions" % (v, t, d["reps"],
                                                 d["rep_execs"]))
            est[v] = cycles(d)
        for v in ["gr", "ftrace"] + (["lttng"] if lttng else []):
            row.append("%.0f-%.0f" % est[v] if v in est else "-")
        p("| %s |" % " | ".join(row))
    p("")
    p("- est. cycles: %s; from the common path's counts over none. An "
      "estimate, not a measurement: it leaves out cache misses, branch "
      "mispredictions and the serializing TSC read (rdtsc_ordered: an "
      "lfence, some 20-40 cycles), which every tracer here pays once per "
      "event." % RULE_TEXT)
    p("- memory accesses: loads and stores as TCG performs them (a locked "
      "read-modify-write is a load and a store).")
    for n in notes:
        p("- %s" % n)
    p("")
    return out, bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--lttng", type=int, default=0)
    a = ap.parse_args()
    out, bad = count_section(a.console, a.counts, a.lttng)
    print("\n".join(out))
    for b in bad:
        print("- INVALID: %s" % b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
