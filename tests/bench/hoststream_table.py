#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""hoststream_table.py: the table of bench_hoststream.sh

Reads the boots file (one line per boot: "off|on ROUND AGENT_NS
WALL_MS CONSOLE STATUS"), each boot's guest console ("GR: WL run
variant=gr rep=R workload=W ops=N ns=T ops_per_s=X") and the agent's
status of the VM at the end of its workload (status --json), prints
markdown: the VM's ops/s per workload with the host stream off and on
(median [min-max] of every run of every round) and their ratio, the
agent's CPU per boot and per second of boot, the host stream's events
and the agent's CPU per thousand of them. Exit 1 if a boot has no run,
a boot with the host stream on stored no host event, or one with it off
stored any.
"""
import argparse
import json
import re
import statistics
import sys

WORKLOADS = [("pingpong", "pipe ping-pong (round trips/s)"),
             ("getppid", "getppid() (calls/s)")]
MODES = ("off", "on")


def fmt(v):
    if v >= 100:
        return "%.0f" % v
    return "%.2f" % v


def cell(vals):
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)),
                           fmt(max(vals)))


def read_boot(console, status):
    runs = {}
    with open(console, errors="replace") as f:
        for line in f:
            m = re.match(r"GR: WL run (.*)", line.strip())
            if not m:
                continue
            kv = dict(x.split("=", 1) for x in m.group(1).split())
            if kv.get("variant") == "gr":
                runs.setdefault(kv["workload"], []).append(
                    float(kv["ops_per_s"]))
    with open(status) as f:
        st = json.load(f)
    st = (st.get("vms") or [{}])[0]
    hs = st.get("host_stream") or {}
    return runs, hs


def main():
    ap = argparse.ArgumentParser()
    for a in ("boots", "host-cpu", "qemu", "load"):
        ap.add_argument("--" + a, required=True)
    for a in ("pp", "sc", "reps", "host-cores", "seconds"):
        ap.add_argument("--" + a, type=int, required=True)
    o = ap.parse_args()

    ops = {m: {} for m in MODES}
    cpu = {m: [] for m in MODES}
    wall = {m: [] for m in MODES}
    events = {m: [] for m in MODES}
    lost = {m: 0 for m in MODES}
    errors = []
    with open(o.boots) as f:
        for line in f:
            mode, rnd, cpu_ns, wall_ms, console, status = line.split()
            runs, hs = read_boot(console, status)
            for w, _ in WORKLOADS:
                if not runs.get(w):
                    errors.append("round %s, host stream %s: no %s run"
                                  % (rnd, mode, w))
                ops[mode].setdefault(w, []).extend(runs.get(w, []))
            cpu[mode].append(int(cpu_ns) / 1e9)
            wall[mode].append(int(wall_ms) / 1000)
            n = int(hs.get("events") or 0)
            events[mode].append(n)
            lost[mode] += int(hs.get("lost") or 0)
            if hs.get("state") != mode:
                errors.append("round %s: host stream %s, the agent says %s"
                              % (rnd, mode, hs.get("state")))
            if mode == "on" and not n:
                errors.append("round %s: the host stream stored no event"
                              % rnd)
            if mode == "off" and n:
                errors.append("round %s: host stream off stored %d events"
                              % (rnd, n))

    print("## The host stream's cost (issue 22)")
    print()
    print("`tests/bench/bench_hoststream.sh`: %d round(s) of two boots of "
          "the same guest (%s, 2 vCPUs), the host stream off and on in turn "
          "(`vm-add --host-stream`), one agent; guestrelay.ko recording "
          "the scheduler's events and every system call while grwl runs "
          "pingpong (%d round trips) and getppid (%d calls), %d runs each, "
          "on guest CPU 0. Host: %s, %d cores, load %s. %d s in all."
          % (len(cpu["on"]), o.qemu, o.pp, o.sc, o.reps, o.host_cpu,
             o.host_cores, o.load, o.seconds))
    print()
    print("| VM throughput | host stream off | host stream on | on / off |")
    print("|---|---|---|---|")
    for w, title in WORKLOADS:
        a, b = ops["off"].get(w), ops["on"].get(w)
        if a and b:
            print("| %s | %s | %s | %.3f |" % (
                title, cell(a), cell(b),
                statistics.median(b) / statistics.median(a)))
    print()
    print("| the agent, per boot | host stream off | host stream on | "
          "on - off |")
    print("|---|---|---|---|")
    c_off = statistics.mean(cpu["off"]) if cpu["off"] else 0
    c_on = statistics.mean(cpu["on"]) if cpu["on"] else 0
    w_off = statistics.mean(wall["off"]) if wall["off"] else 0
    w_on = statistics.mean(wall["on"]) if wall["on"] else 0
    e_on = statistics.mean(events["on"]) if events["on"] else 0
    print("| CPU seconds (schedstat), mean [min-max] | %.3f [%.3f-%.3f] | "
          "%.3f [%.3f-%.3f] | %+.3f |"
          % (c_off, min(cpu["off"] or [0]), max(cpu["off"] or [0]),
             c_on, min(cpu["on"] or [0]), max(cpu["on"] or [0]),
             c_on - c_off))
    print("| boot, wall seconds | %.1f | %.1f | |" % (w_off, w_on))
    if w_off and w_on:
        print("| CPU seconds per second of boot | %.4f | %.4f | %+.4f |"
              % (c_off / w_off, c_on / w_on, c_on / w_on - c_off / w_off))
    print("| host events stored | %d | %d | |"
          % (statistics.mean(events["off"]) if events["off"] else 0, e_on))
    print("| host events lost (the host kernel's count) | %d | %d | |"
          % (lost["off"], lost["on"]))
    spread = max([max(v) - min(v) for v in cpu.values() if v] or [0])
    if e_on:
        print()
        if c_on - c_off < -spread:
            print("The agent spent less CPU with the host stream on than "
                  "off (%+.3f s per boot, beyond the spread of %.3f s "
                  "between boots of one setting): this run measures no "
                  "cost of the host stream, and the difference comes from "
                  "elsewhere in the agent." % (c_on - c_off, spread))
        elif c_on - c_off > spread:
            print("The host stream's cost to the agent: %.1f us of CPU per "
                  "host event ((on - off) / events, with the rest of the "
                  "agent's work the same in both)."
                  % ((c_on - c_off) / e_on * 1e6))
        else:
            print("The host stream's cost to the agent is below what this "
                  "run can tell: on - off (%+.3f s) is within the spread of "
                  "the agent's CPU between boots of one setting (%.3f s); "
                  "at most %.1f us per host event." % (
                      c_on - c_off, spread,
                      max(c_on - c_off, spread) / e_on * 1e6))
    for e in errors:
        print()
        print("**warning:** " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
