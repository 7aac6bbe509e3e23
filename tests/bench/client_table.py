#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""client_table.py - bench_client.sh's checks and table

Checks (--check CONSOLE --status JSON --session DIR --rec B): after a boot
of /gr/bench-client, prints one line per check, appended by
bench_client.sh to the console:

  GR: CLB check NAME ok|FAIL DETAIL

  gr-stored      the host stored gr_ok x B bytes of channels/grcbench/
                 (every record guestrelay accepted arrived)
  gr-accepted    gr_relay_write(), __gr_relay_write() and
                 gr_relay_reserve() refused none (gr_dropped 0)
  gr-lost        the agent counted no loss on grcbench and klog
  klog-stored    channels/klog/klog_0.txt holds one "grcbench: record"
                 line per gr_klog() call
  relay-bytes    relay's buffer holds relay_calls x B bytes (counted by
                 grcbench's subbuf_start callback and the offsets)
  ftrace-kept    every trace_printk run left as many entries as calls in
                 ftrace's CPU 0 buffer, no overrun

Table (--console CONSOLE [--count-console C --counts F] ...): ns per
write, median [min-max] of the rounds, and the same over none (the loop
and the record's fill alone, in the same rounds); guestrelay against the
kernel: (gr_write - none) / (relay_write - none), the same for
__gr_write / __relay_write and gr_reserve / relay_reserve, (gr_klog -
none) / (trace_printk - none), on medians and on minima; and from the counted
boot, per write over none: instructions / memory accesses / locked
instructions / unlocked cmpxchg-xadd of the common path, the mean
instructions, and count_table.py's cycle estimate. Exit 1 when a check
failed or counts differ between the two rounds.
"""

import argparse
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import count_table  # noqa: E402

RUN_RE = re.compile(r"^GR: CLB (run|count) (.*)$")
STATS_RE = re.compile(r"^GR: CLB stats (.*)$")
CHECK_RE = re.compile(r"^GR: CLB check (\S+) (ok|FAIL)(.*)$")
# (target, what it writes, its baseline, the baseline of none)
ROWS = [
    ("relay_write", "kernel relay_write(), 64-byte record", None, "on"),
    ("gr_write", "guestrelay gr_relay_write(), same record", "relay_write",
     "on"),
    ("__relay_write", "kernel __relay_write(), same record", None, "on"),
    ("__gr_write", "guestrelay __gr_relay_write(), same record",
     "__relay_write", "on"),
    ("relay_reserve", "kernel relay_reserve() + memcpy() of 64 B", None,
     "on"),
    ("gr_reserve", "guestrelay gr_relay_reserve() + memcpy() of 64 B",
     "relay_reserve", "on"),
    ("trace_printk", "trace_printk() of a line", None, "on"),
    ("gr_klog", "guestrelay gr_klog() of the same line", "trace_printk",
     "on"),
    ("klog_off", "gr_klog() with no klog channel open", "trace_printk",
     "off"),
]


def kv_of(text):
    return dict(w.split("=", 1) for w in text.split() if "=" in w)


def lines(path):
    with open(path, errors="replace") as f:
        return [raw.rstrip("\r\n") for raw in f]


def runs_of(console):
    """[run dict] of the console's run or count lines"""
    out = []
    for line in lines(console):
        m = RUN_RE.match(line)
        if m:
            out.append(kv_of(m.group(2)))
    return out


# ---- the checks -----------------------------------------------------------
def channels_of(status):
    """the channel objects anywhere in a status --json document"""
    found = []

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "channels" and isinstance(v, list):
                    found.extend(c for c in v if isinstance(c, dict))
                else:
                    walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    try:
        with open(status) as f:
            walk(json.load(f))
    except (OSError, ValueError):
        pass
    return found


def check(a):
    st = {}
    for line in lines(a.check):
        m = STATS_RE.match(line)
        if m:
            st = {k: int(v) for k, v in kv_of(m.group(1)).items()}
    res = []

    def put(name, good, detail):
        res.append("GR: CLB check %s %s %s" % (name, "ok" if good else "FAIL",
                                                detail))
    if not st:
        put("stats", False, "no 'GR: CLB stats' line")
        return res
    chans = os.path.join(a.session, "channels")
    stored = sum(os.path.getsize(p) for p in
                 glob.glob(os.path.join(chans, "grcbench", "grcbench_*")))
    want = st["gr_ok"] * a.rec
    put("gr-stored", stored == want,
        "host stored %d bytes, written %d x %d = %d"
        % (stored, st["gr_ok"], a.rec, want))
    put("gr-accepted", st["gr_dropped"] == 0,
        "guestrelay's writes and reserves refused %d" % st["gr_dropped"])
    lost = {}
    for c in channels_of(a.status):
        for k in ("lost_full", "lost_too_big", "lost_nested", "lost_back",
                  "invalid", "write_errors"):
            if c.get(k):
                lost["%s.%s" % (c.get("name"), k)] = c[k]
    put("gr-lost", not lost, "agent's loss counters: %s"
        % (lost or "all 0"))
    klines = 0
    try:
        with open(os.path.join(chans, "klog", "klog_0.txt"),
                  errors="replace") as f:
            klines = sum(1 for ln in f if "grcbench: record " in ln)
    except OSError:
        pass
    put("klog-stored", klines == st["klog_calls"],
        "host stored %d lines, gr_klog() called %d times"
        % (klines, st["klog_calls"]))
    put("relay-bytes", st["relay_bytes"] == st["relay_calls"] * a.rec,
        "relay's buffer %d bytes, written %d x %d"
        % (st["relay_bytes"], st["relay_calls"], a.rec))
    bad = [r for r in runs_of(a.check) if r.get("target") == "trace_printk"
           and (r.get("ft_entries") != r.get("calls")
                or r.get("ft_overrun") != "0")]
    put("ftrace-kept", not bad, "%d trace_printk run(s) with entries != "
        "calls or an overrun" % len(bad))
    return res


# ---- the table --------------------------------------------------------------
def per_write(runs):
    """{(phase, target): [ns per write of each round]}"""
    out = {}
    for r in runs:
        if "ns" in r and "calls" in r:
            out.setdefault((r.get("phase"), r.get("target")), []).append(
                int(r["ns"]) / int(r["calls"]))
    return out


def fmt(v):
    return "%.1f [%.1f-%.1f]" % (statistics.median(v), min(v), max(v))


def ratio(a, b):
    return "%.2f" % (a / b) if b > 0 else "-"


def section(out, problems, title, cells, data, kind):
    """the section's heading and table head; yields (target, what,
    baseline, its runs, none's runs) of every row that has both"""
    out.extend(["## " + title, "", "| " + " | ".join(cells) + " |",
                "|" + "---|" * len(cells)])
    for t, what, base, ph in ROWS:
        v, n = data.get((ph, t)), data.get((ph, "none"))
        if not v or not n:
            problems.append("no %s runs of %s (or none) in phase %s"
                            % (kind, t, ph))
            continue
        yield t, what, base, v, n


def time_section(a, out, problems):
    pw, over = per_write(runs_of(a.console)), {}
    for t, what, base, v, n in section(
            out, problems,
            "Per write, timed (ns, median [min-max] of %d rounds)" % a.reps,
            ["target", "writes", "ns/write", "over none", "ratio to",
             "ratio (median)", "ratio (min)"], pw, "timed"):
        over[t] = (statistics.median(v) - statistics.median(n),
                   min(v) - min(n))
        cells = ["-", "-", "-"]
        if base in over:
            cells = [base, ratio(over[t][0], over[base][0]),
                     ratio(over[t][1], over[base][1])]
        out.append("| %s | %s | %s | %.1f | %s |"
                   % (t, what, fmt(v), over[t][0], " | ".join(cells)))
    for ph in ("off", "on"):
        if pw.get((ph, "none")):
            out.append("| none (%s) | the loop and the fill alone | %s | 0 "
                       "| - | - | - |" % (ph, fmt(pw[(ph, "none")])))
    out.append("")


def counts_of(a, problems):
    """{(phase, target): [counts dict per round]} from the counted boot"""
    plugin = {}
    for line in lines(a.counts):
        w = line.split()
        if w and w[0] == "tcgcount":
            kv = kv_of(" ".join(w[1:]))
            plugin[kv.get("run")] = kv
    out = {}
    for r in runs_of(a.count_console):
        p = plugin.get(r.get("count"))
        key = (r.get("phase"), r.get("target"))
        if p is None or p.get("segs") != r.get("calls") or \
                p.get("unpaired") != "0" or p.get("dropped") != "0":
            problems.append("%s/%s rep %s: no or a bad plugin line (count=%s)"
                            % (key + (r.get("rep"), r.get("count"))))
            continue
        c = {k: int(p[k]) for k in count_table.FIELDS}
        c["mean_insns"] = float(p["mean_insns"])
        out.setdefault(key, []).append(c)
    return out


def count_section(a, out, problems):
    over = {}
    for t, _, base, v, n in section(
            out, problems,
            "Per write, counted (tcgcount.so, over none; common path)",
            ["target", "insns / mem / locked / local_rmw",
             "rep strings (iterations)", "mean insns", "cycles (est.)",
             "insns ratio to"], counts_of(a, problems), "counted"):
        if any(x[k] != v[0][k] for x in v for k in count_table.FIELDS):
            problems.append("INVALID: %s: the counts differ between rounds"
                            % t)
        d = {k: v[0][k] - n[0][k] for k in count_table.FIELDS}
        over[t] = d
        lo, hi = count_table.cycles(d)
        rt = "-"
        if base in over and over[base]["insns"] > 0:
            rt = "%s %s" % (base, ratio(d["insns"], over[base]["insns"]))
        out.append("| %s | %d / %d / %d / %d | %d (%d) | %.1f | %.0f-%.0f "
                   "| %s |"
                   % (t, d["insns"], d["mem"], d["atomics"], d["local_rmw"],
                      d["reps"], d["rep_execs"],
                      v[0]["mean_insns"] - n[0]["mean_insns"], lo, hi, rt))
    out.append("")
    out.append("Cycle estimate: " + count_table.RULE_TEXT + ".")
    out.append("")


def table(a):
    out, problems = [], []
    out.append("# guestrelay's client channels against kernel relay and "
               "trace_printk (bench_client.sh)")
    out.append("")
    out.append("%d writes per run, %d rounds, %d-byte records, one vCPU; "
               "accelerator %s; host %s, %s cores; %s; load %s; %d s"
               % (a.calls, a.reps, a.rec, a.accel, a.host_cpu,
                  a.host_cores, a.qemu, a.load, a.seconds))
    out.append("")
    time_section(a, out, problems)
    if a.counts:
        count_section(a, out, problems)
    out.append("## Checks (nothing measured was dropped)")
    out.append("")
    for c in [a.console] + ([a.count_console] if a.count_console else []):
        for line in lines(c):
            m = CHECK_RE.match(line)
            if m:
                out.append("- %s: %s %s (%s)" % (m.group(1), m.group(2),
                                                 m.group(3).strip(),
                                                 os.path.basename(c)))
                if m.group(2) != "ok":
                    problems.append("check %s failed in %s"
                                    % (m.group(1), os.path.basename(c)))
    out.append("")
    for p in problems:
        out.append("WARNING: " + p)
    print("\n".join(out))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check")
    ap.add_argument("--status")
    ap.add_argument("--session")
    ap.add_argument("--rec", type=int, default=64)
    ap.add_argument("--console")
    ap.add_argument("--count-console")
    ap.add_argument("--counts")
    ap.add_argument("--accel", default="?")
    ap.add_argument("--calls", type=int, default=0)
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--host-cpu", default="?")
    ap.add_argument("--host-cores", default="?")
    ap.add_argument("--qemu", default="?")
    ap.add_argument("--load", default="?")
    ap.add_argument("--seconds", type=int, default=0)
    a = ap.parse_args()
    if a.check:
        print("\n".join(check(a)))
        return 0
    return table(a)


if __name__ == "__main__":
    sys.exit(main())
