#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ship_sampler.py - what an operator's alert would see during a stall
(tests/integration/test_ship_stall.sh)

  ship_sampler.py GUESTRELAY RUN_DIR VM METRICS_PORT OUT [PERIOD_S]

Every PERIOD_S (0.2 s) until killed: one JSON line in OUT with the time
(CLOCK_MONOTONIC, s), the VM's stored packets, and the shipping backlog
and connection state as `status --json` and /metrics show them.
"""
import json
import subprocess
import sys
import time
import urllib.request


def metrics(port, vm):
    vals = {}
    try:
        page = urllib.request.urlopen(
            "http://127.0.0.1:%s/metrics" % port, timeout=2).read().decode()
    except OSError:
        return vals
    for line in page.splitlines():
        for key in ("guestrelay_vm_ship_backlog_packets",
                    "guestrelay_vm_ship_connected"):
            if line.startswith(key + '{vm="%s"' % vm):
                vals[key] = float(line.split()[-1])
    return vals


def main():
    gr, run, vm, port, out = sys.argv[1:6]
    period = float(sys.argv[6]) if len(sys.argv) > 6 else 0.2
    with open(out, "a") as f:
        while True:
            t0 = time.monotonic()
            try:
                r = subprocess.run([gr, "--run-dir", run, "--timeout", "2",
                                    "status", "--json", vm],
                                   capture_output=True, timeout=3)
                s = json.loads(r.stdout)
            except (subprocess.TimeoutExpired, ValueError):
                s = {}
            if isinstance(s, dict) and "vms" in s:
                s = next((v for v in s["vms"] if v.get("name") == vm), {})
            m = metrics(port, vm)
            ship = s.get("ship", {})
            f.write(json.dumps({
                "t": t0,
                "stored": s.get("stats", {}).get("packets"),
                "backlog": ship.get("backlog_packets"),
                "connected": ship.get("connected"),
                "m_backlog": m.get("guestrelay_vm_ship_backlog_packets"),
                "m_connected": m.get("guestrelay_vm_ship_connected"),
            }) + "\n")
            f.flush()
            time.sleep(max(0.0, period - (time.monotonic() - t0)))


if __name__ == "__main__":
    main()
