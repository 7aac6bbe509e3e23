#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ship_lag.py - the lag from a packet stored to the same packet collected

    ship_lag.py SECS POLL_MS STORED COLLECTED [STORED COLLECTED...]

Polls the sizes of each pair of files (a stream file of an agent's store
and the same file of a collector's tree) every POLL_MS ms, for SECS s at
most, or until every file has grown and each pair has been equal for 3 s.
For every growth of a stored file (the end of one or more packets
reaching the store), the time until the collected file reached that size.
Prints `lag N P50 P99 MAX` (N growths, the rest in ms), or `lag none`.
The figures are as fine as POLL_MS (and the time a poll of every file
takes). Used by bench_ship.sh (one VM) and bench_fleet.sh (a sample of
the fleet's VMs).
"""
import os
import sys
import time


def main():
    secs, poll = float(sys.argv[1]), float(sys.argv[2]) / 1000.0
    rest = sys.argv[3:]
    pairs = list(zip(rest[0::2], rest[1::2]))
    seen = [[] for _ in pairs]      # (t, size) when the stored size grew
    got = [[] for _ in pairs]       # (t, size) when the collected size grew
    last_s = [0] * len(pairs)
    last_c = [0] * len(pairs)
    end = time.monotonic() + secs
    quiet_since = None
    while time.monotonic() < end:
        t = time.monotonic()
        for i, (src, dst) in enumerate(pairs):
            for path, last, log in ((src, last_s, seen), (dst, last_c, got)):
                try:
                    s = os.stat(path).st_size
                except OSError:
                    continue
                if s > last[i]:
                    last[i] = s
                    log[i].append((t, s))
        if all(last_s) and last_s == last_c:
            quiet_since = quiet_since or t
            if t - quiet_since > 3.0:
                break
        else:
            quiet_since = None
        time.sleep(poll)
    lags = []
    for i in range(len(pairs)):
        g = got[i]
        k = 0
        for t, s in seen[i]:
            while k < len(g) and g[k][1] < s:
                k += 1
            if k < len(g):
                lags.append(g[k][0] - t)
    lags.sort()
    if not lags:
        print("lag none")
        return

    def p(q):
        return lags[min(len(lags) - 1, int(q * len(lags)))] * 1000
    print("lag %d %.1f %.1f %.1f" % (len(lags), p(0.5), p(0.99),
                                     lags[-1] * 1000))


main()
