#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""volume_table.py - the table of tests/bench/bench_volume.sh

Reads the agent's `status --json` of the guest at its eight marks (none0,
none1, follow0, follow1, need0, need1, hist0, hist1, files MARK.json in
--dir; at hist0 and hist1 also MARK-hist.json, `--json hist VM`, and
MARK-metrics.txt, the VM's lines of /metrics) and prints what each phase
stored: events the guest recorded, bytes the agent stored, and the
follow filter's counts, with the ratio of the filtered phase to the
unfiltered one; then the four latency histograms against the trace of
the eight events they need (phase need), in bytes per hour. Exit status: 0 printed; 1 a counter is missing or lost
events make the comparison meaningless; 2 bad input.
"""

import argparse
import json
import os
import re
import sys


def load(d, m):
    with open(os.path.join(d, m + ".json")) as f:
        v = json.load(f)
    return v["vms"][0] if "vms" in v else v


def hist_totals(d, m):
    """{table: (hits, entries, dropped, state)} of MARK-hist.json."""
    with open(os.path.join(d, m + "-hist.json")) as f:
        doc = json.load(f)
    out = {}
    for h in doc["hists"]:
        t = h.get("totals") or {}
        out[h["name"]] = (int(t.get("hits", 0)), int(t.get("entries", 0)),
                          int(t.get("dropped", 0)), h["state"])
    return out


# A map's header and entry (spec 17.4: struct gr_hist_map_hdr, _entry)
MAP_HDR, MAP_ENTRY = 64, 56
SCRAPE_S = 15


def hist_lines(s, hists, page, secs, need, bad):
    """The table of the histograms against the trace they replace."""
    out = []
    p = out.append
    ev_t = s["need1"]["stats"]["guest_events"] - \
        s["need0"]["stats"]["guest_events"]
    by_t = s["need1"]["stats"]["bytes"] - s["need0"]["stats"]["bytes"]
    ev_h = s["hist1"]["stats"]["guest_events"] - \
        s["hist0"]["stats"]["guest_events"]
    by_h = s["hist1"]["stats"]["bytes"] - s["hist0"]["stats"]["bytes"]
    h0, h1 = hists["hist0"], hists["hist1"]
    if sorted(h1) != ["block", "irq", "runq", "syscall"] or \
            any(v[3] != "running" for v in h1.values()):
        bad.append("the four histograms did not all run: %s" % h1)
        return out
    hits = sum(h1[k][0] - h0.get(k, (0,))[0] for k in h1)
    dropped = sum(v[2] for v in h1.values())
    cpus = int(s["hist1"].get("nr_rings") or 1)
    entries = sum(v[1] for v in h1.values())
    # each CPU's map holds at most the merged table's entries
    maps = len(h1) * cpus * MAP_HDR + entries * cpus * MAP_ENTRY
    per_h = 3600.0 / float(secs)
    scrapes = 3600 // SCRAPE_S
    p("")
    p("## Four latency histograms instead of their trace")
    p("")
    p("The same workload twice more in the same boot. Phase need: only "
      "the events the four latency histograms (runq, syscall, block, "
      "irq) are computed from are recorded (%s). Phase hist: recording "
      "off, `guestrelay hist VM --latency runq|syscall|block|irq`. Per "
      "hour at this workload's rate; the histograms' bytes do not grow "
      "with the rate, the trace's do. The host reads the maps in place "
      "(nothing is copied out of the guest's memory); the bytes read are "
      "counted at one read per %d s Prometheus scrape, as the VM's "
      "/metrics lines are." % (need, SCRAPE_S))
    p("")
    p("| phase | events | bytes stored | bytes per hour |")
    p("|---|---|---|---|")
    p("| need: full trace of the eight events | %d recorded | %d | %.0f |"
      % (ev_t, by_t, by_t * per_h))
    p("| hist: stored | %d recorded, %d latencies counted | %d | %.0f |"
      % (ev_h, hits, by_h, by_h * per_h))
    p("| hist: map bytes the host reads (at most, %d CPUs, %d entries) "
      "| | | %d |" % (cpus, entries, maps * scrapes))
    p("| hist: the VM's histogram lines of /metrics | | | %d |"
      % (page * scrapes))
    if by_t > 0:
        p("| hist / need: map bytes read | | | %.5f |"
          % (maps * scrapes / (by_t * per_h)))
        p("| hist / need: /metrics lines | | | %.5f |"
          % (page * scrapes / (by_t * per_h)))
    p("")
    p("- the histograms counted %d latencies (%d dropped for want of an "
      "entry) while %d were recorded and %d bytes stored" %
      (hits, dropped, ev_h, by_h))
    if by_h:
        bad.append("phase hist stored %d bytes with recording off" % by_h)
    if not hits:
        bad.append("the histograms counted nothing")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--secs", required=True)
    ap.add_argument("--events", default="?")
    ap.add_argument("--need", default="?")
    ap.add_argument("--load", default="?")
    ap.add_argument("--console", default=None)
    ap.add_argument("--accel", default="tcg")
    a = ap.parse_args()
    try:
        s = {m: load(a.dir, m) for m in ("none0", "none1", "follow0",
                                         "follow1", "need0", "need1",
                                         "hist0", "hist1")}
        hists = {m: hist_totals(a.dir, m) for m in ("hist0", "hist1")}
        page = os.path.getsize(os.path.join(a.dir, "hist1-metrics.txt"))
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        print("volume_table.py: %s" % e, file=sys.stderr)
        return 2

    def delta(a0, a1, key):
        return s[a1]["stats"][key] - s[a0]["stats"][key]

    bad = []
    lost = {}
    for k in ("lost_full", "lost_too_big", "lost_nested", "overwritten"):
        lost[k] = s["hist1"]["stats"].get(k, 0)
    if any(lost.values()):
        bad.append("guestrelay lost events (%s): the volumes are not "
                   "comparable" % lost)
    ev_n, by_n = delta("none0", "none1", "guest_events"), \
        delta("none0", "none1", "bytes")
    ev_f, by_f = delta("follow0", "follow1", "guest_events"), \
        delta("follow0", "follow1", "bytes")
    fol = s["follow1"].get("follow") or {}
    fol0 = s["follow0"].get("follow") or {}
    dropped = fol.get("dropped", 0) - fol0.get("dropped", 0)
    svc = "?"
    if a.console:
        for line in open(a.console, errors="replace"):
            m = re.match(r"GR: VOL service (\d+)", line)
            if m:
                svc = m.group(1)
    out = []
    p = out.append
    p("## Trace volume with and without a follow filter")
    p("")
    p("The demo workload (/gr/workload, %s s: fork/exec, pipes, block I/O "
      "on a loop device, ping on lo) in one guest boot (%s, 2 vCPUs), "
      "events %s, beside a \"service\" (a shell that sleeps 20 ms at a "
      "time, each sleep a usleep process, and forks a child every second, "
      "pid %s). Phase none: no filter. Phase "
      "follow: `guestrelay filter VM --pid %s` (the service and what it "
      "forks). Deltas of the agent's counters around each phase (a flush "
      "before each reading)." % (a.secs, a.accel, a.events, svc, svc))
    p("")
    p("| phase | events recorded | bytes stored | bytes per event | records "
      "left out by the guest |")
    p("|---|---|---|---|---|")
    p("| none | %d | %d | %s | 0 |" % (ev_n, by_n, "%.1f" % (by_n / ev_n)
                                      if ev_n else "-"))
    p("| follow --pid %s | %d | %d | %s | %d |"
      % (svc, ev_f, by_f, "%.1f" % (by_f / ev_f) if ev_f else "-", dropped))
    if by_n > 0 and ev_n > 0:
        p("| follow / none | %.3f | %.3f | | |" % (ev_f / ev_n, by_f / by_n))
        p("")
        p("- the follow filter stored %.1f %% fewer bytes (%.1f %% fewer "
          "events) for the same workload; what it kept is the service's "
          "own activity (its switches, wakeups, system calls, forks)."
          % (100 * (1 - by_f / by_n), 100 * (1 - ev_f / ev_n)))
    p("- follow state at the end: %s, %s tasks followed, %s children added"
      % (fol.get("state", "?"), fol.get("tasks", "?"),
         fol.get("children", "?")))
    out.extend(hist_lines(s, hists, page, a.secs, a.need, bad))
    p("")
    p("- host load average before / after: %s" % a.load)
    if bad:
        p("")
        for b in bad:
            p("- INVALID: %s" % b)
    print("\n".join(out))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
