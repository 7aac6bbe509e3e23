#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""volume_table.py - the table of tests/bench/bench_volume.sh

Reads the agent's `status --json` of the guest at its four marks (none0,
none1, follow0, follow1, files MARK.json in --dir) and prints what each
phase stored: events the guest recorded, bytes the agent stored, and the
follow filter's counts, with the ratio of the filtered phase to the
unfiltered one. Exit status: 0 printed; 1 a counter is missing or lost
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--secs", required=True)
    ap.add_argument("--events", default="?")
    ap.add_argument("--load", default="?")
    ap.add_argument("--console", default=None)
    ap.add_argument("--accel", default="tcg")
    a = ap.parse_args()
    try:
        s = {m: load(a.dir, m) for m in ("none0", "none1", "follow0",
                                         "follow1")}
    except (OSError, ValueError, KeyError, IndexError) as e:
        print("volume_table.py: %s" % e, file=sys.stderr)
        return 2

    def delta(a0, a1, key):
        return s[a1]["stats"][key] - s[a0]["stats"][key]

    bad = []
    lost = {}
    for k in ("lost_full", "lost_too_big", "lost_nested", "overwritten"):
        lost[k] = s["follow1"]["stats"].get(k, 0)
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
    p("- host load average before / after: %s" % a.load)
    if bad:
        p("")
        for b in bad:
            p("- INVALID: %s" % b)
    print("\n".join(out))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
