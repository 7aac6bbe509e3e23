#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""live_lat.py - delay from a fake guest's event to a live viewer's line

    VIEWER | live_lat.py FORMAT SKIP_S OUT

Reads the viewer's output as it comes and stamps every event line with
CLOCK_MONOTONIC when it arrives. A fake guest stamps its events with
CLOCK_MONOTONIC of this machine (tests/fakeguest: the guest clock at
1 GHz), so the event's own timestamp is the moment it was recorded and
the difference is the delay from the guest's write to the viewer's line.
FORMAT says how to find the timestamp in a line:
  cycles  babeltrace2 --clock-cycles: "[CYCLES] ..." (nanoseconds)
  report  guestrelay report: "TID [CPU] SECONDS.NANOSECONDS: EVENT: ..."
Events recorded before the reader started plus SKIP_S seconds are left
out (a viewer attaching reads the session from its start). At the end of
its input, writes `lat N P50 P99 MAX` (milliseconds) to OUT, or
`lat none`.
"""
import re
import sys
import time

PATTERNS = {
    "cycles": re.compile(rb"^\[(\d+)\]"),
    "report": re.compile(rb"^\s*\d+ \[\d+\] +(\d+)\.(\d{9}): "),
}


def main():
    fmt, skip, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    pat = PATTERNS[fmt]
    start = time.monotonic_ns() + int(skip * 1e9)
    lats = []
    for line in sys.stdin.buffer:
        now = time.monotonic_ns()
        m = pat.match(line)
        if not m:
            continue
        if fmt == "cycles":
            ts = int(m.group(1))
        else:
            ts = int(m.group(1)) * 1000000000 + int(m.group(2))
        if ts >= start:
            lats.append((now - ts) / 1e6)
    lats.sort()
    with open(out, "w") as f:
        if not lats:
            f.write("lat none\n")
            return

        def p(q):
            return lats[min(len(lats) - 1, int(q * len(lats)))]
        f.write("lat %d %.1f %.1f %.1f\n" % (len(lats), p(0.5), p(0.99),
                                            lats[-1]))


main()
