#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hist_table.py - bench_hist.sh's table

The console of the counted boot (/gr/bench-hist: sched_switch with
nothing attached, ftrace recording, ftrace's hist triggers, guestrelay
recording, guestrelay's hist requests with recording off) and
tcgcount.so's lines, joined as count_table.py joins them. Per
aggregation, the common path's instructions / memory accesses / locked /
local_t over none for ftrace's hist trigger and guestrelay's hist
request, the cycle estimate of count_table.py and the ratios; recording
the event as a reference row. Checks that every variant ran with its
own probe alone, that ftrace's hist triggers recorded nothing and
counted every call, and that guestrelay's hists counted every call
(guestrelay hist --json, saved by the host after each phase) while it
recorded nothing.

  hist_table.py --console C --counts F [--status S] [--saved PREFIX]
Exit 1 when a count is missing, differs between rounds, a variant ran
with other probes than it should, or a check fails.
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from count_table import finish, parse  # noqa: E402
from count_table import delta_cell, est_cell, over_none  # noqa: E402
from count_table import ratio_cell  # noqa: E402

T = "sched_switch"
FT_FUNC = "trace_event_raw_event_sched_switch"
GR_FUNC = "[guestrelay]"
# (what, ftrace's variant and its trigger, guestrelay's variant and request)
ROWS = [("hist keys=prev_pid", "ft-hist", "hist:keys=prev_pid",
         "gr-hist", "keys=prev_tid"),
        ("hist keys=prev_pid:vals=prev_prio", "ft-hist-vals",
         "hist:keys=prev_pid:vals=prev_prio", "gr-hist-vals",
         "keys=prev_tid:vals=prev_prio"),
        ("hist keys=prev_pid.log2", "ft-hist-log2",
         "hist:keys=prev_pid.log2", "gr-hist-log2", "keys=prev_tid.log2"),
        ("recording the event (reference)", "ftrace", "enable = 1",
         "gr", "enabled by the host")]
REPS = 2
RUN_RE = re.compile(r"^GR: BENCH count variant=(\S+) rep=\S+ (.*)$")
FTHIST_RE = re.compile(r"^GR: BENCH fthist (\S+) (.*)$")


def want(variant):
    """the probes (substrings of funcs) the variant must have alone"""
    if variant == "none":
        return []
    return [GR_FUNC] if variant.startswith("gr") else [FT_FUNC]


def console_facts(path):
    """per variant: ftrace's entries after each run, and the lines of its
    hist file; the info lines"""
    entries, hist, info = {}, {}, {}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            m = RUN_RE.match(line)
            if m:
                kv = dict(w.split("=", 1) for w in m.group(2).split()
                          if "=" in w)
                if "ft_entries" in kv:
                    entries.setdefault(m.group(1), []).append(
                        (int(kv["ft_entries"]), int(kv["ft_overrun"])))
                continue
            m = FTHIST_RE.match(line)
            if m:
                hist.setdefault(m.group(1), []).append(m.group(2))
                continue
            if line.startswith("GR: BENCH info "):
                w = line.split(None, 4)[3:]
                if len(w) == 2:
                    info[w[0]] = w[1]
    return entries, hist, info


def ft_totals(lines, me):
    """Hits and Dropped of ftrace's hist file (its Totals) and the
    hitcount of the key prev_pid == @me ("mine"), or None"""
    tot = {"mine": 0}
    for ln in lines:
        w = ln.replace("{", " ").replace("}", " ").split()
        if len(w) == 2 and w[0] in ("Hits:", "Dropped:"):
            tot[w[0][:-1].lower()] = int(w[1])
        if len(w) >= 4 and w[:2] == ["prev_pid:", str(me)] and \
                w[2] == "hitcount:":
            tot["mine"] = int(w[3])
    return tot if len(tot) == 3 else None


def gr_totals(path, me):
    """hits, dropped and the hitcount of the key prev_tid == @me ("mine")
    of the saved `guestrelay hist VM sched_switch --json` (a running
    table), or None and why not"""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return None, str(e)
    for tb in doc.get("hists", []):
        if tb.get("event") != T and tb.get("name") != T:
            continue
        if tb.get("state") != "running" or "totals" not in tb:
            return None, "state %s (%s)" % (tb.get("state"), tb.get("why"))
        tot = {k: int(tb["totals"].get(k, 0)) for k in ("hits", "dropped")}
        tot["mine"] = sum(int(e.get("hitcount", 0))
                          for e in tb.get("entries", [])
                          if e.get("key", {}).get("prev_tid") == me)
        return tot, None
    return None, "no table for %s in %s" % (T, path)


def gr_events(path):
    """the guest's events written, from a saved status --json, or None"""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return (d["vms"][0] if "vms" in d else d).get("stats", {}).get(
        "guest_events")


def checks(a, cnt, facts, made, bad):
    """the lines of the checks section; problems into @bad"""
    entries, fthist, info = facts
    me = int(info.get("prev_pid", -1))
    out = []
    for _, _, _, grv, _ in ROWS[:3]:
        # a call the hist did not count would be cheaper than the common
        # path (the probe returns early); a new entry costs more
        low = [c["min_insns"] for c in cnt.get((grv, T), [])
               if c["min_insns"] < c["insns"]]
        if low:
            bad.append("%s: calls of %s instructions, below the common "
                       "path: the hist did not run for every call"
                       % (grv, low))
    for _, ftv, _, grv, _ in ROWS[:3]:
        ent = entries.get(ftv, [])
        if not ent or any(e != (0, 0) for e in ent):
            bad.append("%s: ftrace's buffer got entries %s (a hist trigger "
                       "alone records nothing)" % (ftv, ent))
        # the key of the benchmark's calls (not for .log2: a bucket)
        key = made if not ftv.endswith("log2") else 0
        tot = ft_totals(fthist.get(ftv, []), me)
        if not tot or tot["hits"] < made or tot["mine"] < key or \
                tot["dropped"]:
            bad.append("%s: ftrace's hist counted %s, not the %d calls "
                       "without a drop" % (ftv, tot, made))
        else:
            kt = ", key prev_pid %d: %d" % (me, tot["mine"]) if key else ""
            out.append("%s: ftrace's hist Hits %d%s (the benchmark made "
                       "%d; the rest are real switches), Dropped 0, "
                       "nothing recorded" % (ftv, tot["hits"], kt, made))
        if not a.saved:
            continue
        tot, why = gr_totals("%s%s.json" % (a.saved, grv), me)
        if not tot or tot["hits"] < made or tot["mine"] < key or \
                tot["dropped"]:
            bad.append("%s: guestrelay's hist counted %s, not the %d calls "
                       "without a drop%s" % (grv, tot, made,
                                             " (%s)" % why if why else ""))
        else:
            kt = ", key prev_tid %d: %d" % (me, tot["mine"]) if key else ""
            out.append("%s: guestrelay's hist hits %d%s (the benchmark "
                       "made %d), dropped 0" % (grv, tot["hits"], kt, made))
    ent = entries.get("ftrace", [])
    if not ent or any(e[0] < a.calls or e[1] for e in ent):
        bad.append("ftrace: its buffer held %s entries/overrun after the "
                   "runs of %d calls" % (ent, a.calls))
    if a.saved:
        ev = [gr_events("%s%s-status.json" % (a.saved, v))
              for v in ["disable"] + [r[3] for r in ROWS[:3]]]
        if None in ev or ev[-1] - ev[0] >= a.calls:
            bad.append("guestrelay recorded during its hist phases: "
                       "events written %s at the disable and after each"
                       % ev)
        else:
            out.append("guestrelay's events written: %d at the disable "
                       "(after its recording phase), %d after its last "
                       "hist phase: recording was off" % (ev[0], ev[-1]))
    if a.status:
        ev = gr_events(a.status)
        if ev is None or ev < made:
            bad.append("guestrelay recorded %s events, fewer than the %d "
                       "of its recording phase" % (ev, made))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--status")
    ap.add_argument("--saved", help="PREFIX of the saved hists")
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--qemu", default="")
    ap.add_argument("--seconds", default="?")
    a = ap.parse_args()
    try:
        cnt, bad = parse(a.console, a.counts)
        entries, fthist, info = console_facts(a.console)
    except OSError as e:
        print("- INVALID: %s" % e)
        return 1
    base = cnt.get(("none", T))
    over_none(cnt, "none", T, bad, [])
    d = {v: over_none(cnt, v, T, bad, want(v))
         for r in ROWS for v in (r[1], r[3])}
    p = print
    p("## Aggregation in the guest: guestrelay's hist request against "
      "ftrace's hist trigger, counted per call")
    p("")
    p("One guest boot (kernel %s) under QEMU TCG (%s) with tcgcount.so, "
      "one vCPU, noreplace-smp, %s calls of sched_switch per run, %d "
      "rounds, %s s in all. TCG counts: exact, the same whatever the "
      "load. grbench passes the benchmark's shell as prev, so every call "
      "updates the same entry. ftrace: its hist trigger alone on "
      "events/sched/sched_switch/trigger (the event not enabled: soft "
      "mode; record-cmd and record-tgid off). guestrelay: guestrelay.ko "
      "loaded, sched_switch not recorded, the host's `guestrelay hist VM "
      "sched_switch SPEC` with the same keys on its field prev_tid. "
      "Cells: instructions / memory accesses / locked instructions / "
      "cmpxchg or xadd without LOCK over none (the dispatch loop alone), "
      "common path, then (mean instructions over none)."
      % (info.get("kernel", "?"), a.qemu, a.calls, REPS, a.seconds))
    p("")
    if base:
        b = base[0]
        p("none (the loop with nothing attached): %d instructions, %d "
          "memory accesses, %d locked, %d local_t per call."
          % (b["insns"], b["mem"], b["atomics"], b["local_rmw"]))
        p("")
    head = ["aggregation", "ftrace", "guestrelay", "est. cycles ftrace",
            "est. cycles guestrelay", "guestrelay / ftrace insns",
            "guestrelay / ftrace mem", "guestrelay below ftrace"]
    p("| %s |" % " | ".join(head))
    p("|%s" % ("---|" * len(head)))
    for what, ftv, _, grv, _ in ROWS:
        f, g = d[ftv], d[grv]
        below = "-"
        if f and g:
            below = "yes" if (g["insns"] < f["insns"] and
                              g["mem"] < f["mem"] and
                              g["atomics"] <= f["atomics"] and
                              g["local_rmw"] <= f["local_rmw"]) else "NO"
        p("| %s | %s | %s | %s | %s | %s | %s | %s |"
          % (what, delta_cell(f), delta_cell(g), est_cell(f), est_cell(g),
             ratio_cell(g, f), ratio_cell(g, f, "mem"), below))
    p("")
    p("| variant | set by |")
    p("|---|---|")
    for _, ftv, ftspec, grv, grspec in ROWS:
        p("| %s | ftrace: `%s` |" % (ftv, ftspec))
        p("| %s | guestrelay: `%s` |" % (grv, grspec))
    p("")
    p("- \"below\": fewer instructions and memory accesses, and no more "
      "atomics, than ftrace's hist trigger per event.")
    p("- est. cycles: count_table.py's rule (bench_guest.sh's table), "
      "from the common path's counts; an estimate, not a measurement.")
    for v in d:
        if d[v] and d[v]["reps"]:
            p("- %s: %d rep-string instruction(s), %d TCG executions"
              % (v, d[v]["reps"], d[v]["rep_execs"]))
    for s in checks(a, cnt, (entries, fthist, info), a.calls * REPS,
                    bad):
        p("- %s" % s)
    return finish(bad)


if __name__ == "__main__":
    sys.exit(main())
