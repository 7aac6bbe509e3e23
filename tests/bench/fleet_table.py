#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""fleet_table.py - the helpers and the table of bench_fleet.sh

    fleet_table.py sizes OUT STORE COLHOST [STORE COLHOST...]
        per VM of every agent's STORE: the bytes of its stream files and
        of the same files under COLHOST (the collector's DIR/<host>), one
        line "agent vm stored collected" each, to OUT; the first line is
        "t MONOTONIC_SECONDS" (the moment of the walk)
    fleet_table.py drained STATUS.json...
        exit 0 when every VM of these `status --json` answers has stored
        packets and no shipping backlog
    fleet_table.py table DIR
        the Markdown table of the phases under DIR (see bench_fleet.sh)
"""
import json
import os
import statistics
import sys
import time


def stream_bytes(vmdir):
    n = 0
    try:
        sessions = os.listdir(vmdir)
    except OSError:
        return 0
    for s in sessions:
        d = os.path.join(vmdir, s)
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for f in names:
            if f.startswith("stream_"):
                try:
                    n += os.stat(os.path.join(d, f)).st_size
                except OSError:
                    pass
    return n


def sizes(out, pairs):
    lines = ["t %.6f" % time.monotonic()]
    for a, (store, col) in enumerate(pairs):
        for vm in sorted(os.listdir(store)):
            if vm.startswith(".") or not os.path.isdir(os.path.join(store,
                                                                     vm)):
                continue
            lines.append("%d %s %d %d" % (a, vm,
                                          stream_bytes(os.path.join(store, vm)),
                                          stream_bytes(os.path.join(col, vm))))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def vms_of(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    return d.get("vms") if isinstance(d, dict) else None


def drained(files):
    for p in files:
        vms = vms_of(p)
        if not vms:
            return 1
        for v in vms:
            st, sh = v.get("stats", {}), v.get("ship") or {}
            if not st.get("packets") or sh.get("backlog_bytes", 1) != 0:
                return 1
    return 0


def read_kv(path):
    d = {}
    try:
        for line in open(path):
            k, _, v = line.strip().partition(" ")
            if k:
                d[k] = v
    except OSError:
        pass
    return d


def read_sizes(path):
    t, per = None, {}
    for line in open(path):
        w = line.split()
        if w[0] == "t":
            t = float(w[1])
        else:
            per[(w[0], w[1])] = (int(w[2]), int(w[3]))
    return t, per


def jain(xs):
    s2 = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * s2) if s2 else 0.0


def phase(dirp):
    """the figures of one phase, or None if it did not run"""
    m = read_kv(os.path.join(dirp, "meta"))
    if not m:
        return None
    f = {k: float(v) for k, v in m.items() if k != "mode"}
    f["mode"] = m["mode"]
    vms = []
    for name in sorted(os.listdir(dirp)):
        if name.startswith("status.") and name.endswith(".json"):
            vms += vms_of(os.path.join(dirp, name)) or []
    st = [v.get("stats", {}) for v in vms]
    f["nvms"] = len(vms)
    f["bytes"] = sum(s.get("bytes", 0) for s in st)
    f["packets"] = sum(s.get("packets", 0) for s in st)
    f["lost"] = {k: sum(s.get(k, 0) for s in st)
                 for k in ("lost_full", "lost_too_big", "lost_nested",
                           "overwritten")}
    f["invalid"] = sum(s.get("invalid", 0) for s in st)
    f["write_errors"] = sum(s.get("write_errors", 0) for s in st)
    f["col"] = read_kv(os.path.join(dirp, "collect"))
    f["diff"] = read_kv(os.path.join(dirp, "diff"))
    ta, a = read_sizes(os.path.join(dirp, "sizes.a"))
    tb, b = read_sizes(os.path.join(dirp, "sizes.b"))
    stored = {k: b[k][0] - a.get(k, (0, 0))[0] for k in b}
    shipped = {k: b[k][1] - a.get(k, (0, 0))[1] for k in b}
    f["window"] = tb - ta
    f["stored_vm"] = stored
    f["ratio_vm"] = {k: shipped[k] / stored[k] for k in b if stored[k] > 0}
    f["lag_vm"] = {k: b[k][0] - b[k][1] for k in b}
    try:
        f["lag"] = open(os.path.join(dirp, "lag.txt")).read().split()
    except OSError:
        f["lag"] = []
    return f


def table(top):
    ph = {}
    for mode in ("local", "ship"):
        p = phase(os.path.join(top, mode))
        if p:
            ph[mode] = p
    cfg = read_kv(os.path.join(top, "config"))
    print("## Fleet: %s agents x %s VMs shipping to one %s-node JetStream "
          "cluster (bench_fleet.sh)\n" % (cfg["agents"], cfg["vms"],
                                          cfg["nodes"]))
    print("Same fixed load both ways, below saturation: %s x %s fake "
          "guests (64 KiB sub-buffers), each 1 CPU x %s ticks/s of a "
          "%s-byte fake_seq and a small event for %s s (offered about "
          "%.1f MB/s in all); each agent its own run directory, store "
          "(/dev/shm) and --host name; the cluster on loopback (stores on "
          "disk), one R%s stream for all agents, %s collectors sharing "
          "one durable consumer (their tree on /dev/shm). One run of "
          "each phase.\n" % (
              cfg["agents"], cfg["vms"], cfg["rate"], cfg["size"],
              cfg["load"], float(cfg["offered"]) / 1e6, cfg["nodes"],
              cfg["collectors"]))
    print("| run | GB stored | GB/s stored | packets/s stored | GB/s "
          "shipped (to backlog 0) | packets/s shipped | drain after the "
          "guests (s) | agents' CPU s/GB | cluster CPU s/GB | collectors' "
          "CPU s/GB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    label = {"local": "local store only",
             "ship": "--ship (R%s) + collectors" % cfg["nodes"]}
    for mode, f in ph.items():
        gb = f["bytes"] / 1e9
        wall = f["t1"] - f["t0"]
        row = [label[mode], "%.3f" % gb, "%.4f" % (gb / wall),
               "%.0f" % (f["packets"] / wall)]
        if mode == "ship":
            ship = f["t2"] - f["t0"]
            row += ["%.4f" % (gb / ship), "%.0f" % (f["packets"] / ship),
                    "%.1f" % (f["t2"] - f["t1"])]
        else:
            row += ["-", "-", "-"]
        row.append("%.2f" % (f["cpu_agents"] / gb) if gb else "-")
        row.append("%.2f" % (f["cpu_nats"] / gb) if gb else "-")
        row.append("%.2f" % (f["cpu_col"] / gb) if gb and mode == "ship"
                   else "-")
        print("| " + " | ".join(row) + " |")
    if "local" in ph and "ship" in ph:
        lo, sh = ph["local"], ph["ship"]
        r_lo = lo["bytes"] / (lo["t1"] - lo["t0"])
        r_sh = sh["bytes"] / (sh["t2"] - sh["t0"])
        c_lo = lo["cpu_agents"] / lo["bytes"] if lo["bytes"] else 0
        c_sh = sh["cpu_agents"] / sh["bytes"] if sh["bytes"] else 0
        print("\nAggregate rate shipped (to backlog 0) / stored with the "
              "local store only: %.2fx; agents' CPU per GB, shipping / "
              "local only: %s" % (
                  r_sh / r_lo, "%.2fx" % (c_sh / c_lo) if c_lo else "-"))

    print("\n| run | events lost in the guests (full / too big / nested "
          "/ overwritten) | invalid sub-buffers | packets stored | packets "
          "collected | packets missing | files differing / missing / extra "
          "(cmp: every store against the collected tree) | duplicates, "
          "rejected (collectors) |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, f in ph.items():
        lost = " / ".join(str(f["lost"][k]) for k in
                          ("lost_full", "lost_too_big", "lost_nested",
                           "overwritten"))
        if mode == "ship":
            cp = int(f["col"].get("packets", "0"))
            d = f["diff"]
            row = [str(cp), str(f["packets"] - cp),
                   "%s / %s / %s" % (d.get("differs", "?"),
                                     d.get("missing", "?"),
                                     d.get("extra", "?")),
                   "%s, %s" % (f["col"].get("duplicates", "?"),
                               f["col"].get("rejected", "?"))]
        else:
            row = ["-", "-", "-", "-"]
        print("| %s | %s | %d | %d | %s |" % (label[mode], lost,
                                              f["invalid"], f["packets"],
                                              " | ".join(row)))

    print("\nFairness over the load (%s VMs, a window from %s s after "
          "the start to the end of the load): per VM, the bytes stored "
          "in the window, and the bytes collected in the window relative "
          "to those stored; Jain's index (1 = every VM alike, 1/n = one "
          "VM has everything); the backlog is stored minus collected of "
          "a VM at the end of the window.\n" % (cfg["agents_vms"],
                                                 cfg["warmup"]))
    print("| run | window (s) | stored per VM: min / max | stored: Jain | "
          "shipped / stored per VM: min - max | min/max | Jain | "
          "largest backlog of a VM at the end (KiB) |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, f in ph.items():
        st = list(f["stored_vm"].values())
        row = [label[mode], "%.1f" % f["window"],
               "%.2f / %.2f MB" % (min(st) / 1e6, max(st) / 1e6),
               "%.4f" % jain(st)]
        if mode == "ship":
            rs = list(f["ratio_vm"].values())
            row += ["%.3f - %.3f" % (min(rs), max(rs)),
                    "%.3f" % (min(rs) / max(rs)), "%.4f" % jain(rs),
                    "%.0f" % (max(f["lag_vm"].values()) / 1024)]
        else:
            row += ["-", "-", "-", "-"]
        print("| " + " | ".join(row) + " |")

    lag = ph.get("ship", {}).get("lag", [])
    if len(lag) == 5:
        print("\nLag from a packet stored to the same packet collected, "
              "during the shipping phase, on %s VMs (the first of each "
              "agent), their files polled every %s ms: %s packets, p50 %s "
              "ms, p99 %s ms, max %s ms" % (cfg["agents"], cfg["poll_ms"],
                                            lag[1], lag[2], lag[3], lag[4]))
    elif "ship" in ph:
        print("\nLag: not measured (%s)" % " ".join(lag))


def main():
    cmd = sys.argv[1]
    if cmd == "sizes":
        rest = sys.argv[3:]
        sizes(sys.argv[2], list(zip(rest[0::2], rest[1::2])))
    elif cmd == "drained":
        sys.exit(drained(sys.argv[2:]))
    elif cmd == "table":
        table(sys.argv[2])
    else:
        sys.exit("fleet_table.py: unknown command " + cmd)


main()
