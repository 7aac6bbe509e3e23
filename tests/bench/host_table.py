#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""host_table.py RAW_DIR OUT_DIR: the tables and plots of bench_host.sh

Reads the raw rows bench_host.sh wrote (RAW_DIR/*.tsv), writes
OUT_DIR/host.md (markdown tables: median [min-max] of the repetitions,
ratios to the baselines of the same run) and SVG bar charts with min-max
whiskers (OUT_DIR/ingest.svg, scale_gbps.svg, scale_rss.svg), drawn here
without plotting libraries. Prints host.md.
"""
import os
import statistics
import sys

HZ = os.sysconf("SC_CLK_TCK")


def rows(path):
    try:
        with open(path) as f:
            return [l.rstrip("\n").split("\t") for l in f if l.strip()]
    except OSError:
        return []


def fmt(v, nd=2):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.*f" % (nd, v)


def cell(vals, nd=2):
    if not vals:
        return "-"
    return "%s [%s-%s]" % (fmt(statistics.median(vals), nd),
                           fmt(min(vals), nd), fmt(max(vals), nd))


def ratio(a, b):
    if not a or not b:
        return "-"
    mb = statistics.median(b)
    return "%.2f" % (statistics.median(a) / mb) if mb else "-"


def size_name(b):
    b = int(b)
    return "%d MiB" % (b >> 20) if b >= 1 << 20 else "%d KiB" % (b >> 10)


# ---- SVG ---------------------------------------------------------------

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


def svg_bars(path, title, ylabel, groups, series):
    """groups: x labels; series: [(name, [[values per group]...])]"""
    w, h, left, right, top, bottom = 640, 380, 70, 20, 40, 70
    pw, ph = w - left - right, h - top - bottom
    ymax = 0.0
    for _, data in series:
        for vals in data:
            if vals:
                ymax = max(ymax, max(vals))
    ymax = ymax * 1.1 or 1.0
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14" text-anchor="middle">%s</text>'
           % (w // 2, title)]
    for i in range(6):
        v = ymax * i / 5
        y = top + ph - ph * i / 5
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                   % (left, left + pw, y, y))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                   % (left - 6, y + 4, fmt(v)))
    out.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" '
               'text-anchor="middle">%s</text>'
               % (top + ph // 2, top + ph // 2, ylabel))
    ng, ns = len(groups), len(series)
    gw = pw / max(ng, 1)
    bw = gw * 0.8 / max(ns, 1)
    for gi, g in enumerate(groups):
        x0 = left + gi * gw + gw * 0.1
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                   % (left + gi * gw + gw / 2, top + ph + 18, g))
        for si, (name, data) in enumerate(series):
            vals = data[gi]
            if not vals:
                continue
            med = statistics.median(vals)
            x = x0 + si * bw
            y = top + ph - ph * med / ymax
            out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" '
                       'fill="%s"/>' % (x, y, bw * 0.9, top + ph - y,
                                        COLORS[si % len(COLORS)]))
            lo = top + ph - ph * min(vals) / ymax
            hi = top + ph - ph * max(vals) / ymax
            cx = x + bw * 0.45
            out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" '
                       'stroke="black"/>' % (cx, cx, lo, hi))
            for yy in (lo, hi):
                out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" '
                           'stroke="black"/>' % (cx - 4, cx + 4, yy, yy))
    out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="black"/>'
               % (left, left + pw, top + ph, top + ph))
    for si, (name, _) in enumerate(series):
        x = left + 10 + si * 240
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>'
                   % (x, h - 28, COLORS[si % len(COLORS)]))
        out.append('<text x="%d" y="%d">%s</text>' % (x + 16, h - 18, name))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---- tables ------------------------------------------------------------

def ingest(raw, out, md):
    r = rows(os.path.join(raw, "ingest.tsv"))
    if not r:
        return
    sbs = sorted({int(x[1]) for x in r})
    kinds = [("agent-fixed", "agent, verify, --io fixed"),
             ("agent-writev", "agent, verify, --io writev"),
             ("agentzc-fixed", "agent, --verify off, --io fixed"),
             ("agentzc-writev", "agent, --verify off, --io writev"),
             ("copy", "copy consumer"), ("dd", "dd tmpfs -> tmpfs")]
    gbps = {}
    cpu = {}
    lost = {}
    dbs = {}
    nsb = {}
    for x in r:
        k, sb, b, ns, ticks = x[0], int(x[1]), int(x[3]), int(x[4]), x[5]
        gbps.setdefault((k, sb), []).append(b / ns)
        if b:
            cpu.setdefault((k, sb), []).append(int(ticks) / HZ / (b / 1e9))
        if x[6] not in ("-", ""):
            lost.setdefault((k, sb), []).append(int(x[6]))
        if k.startswith("agent-") and x[7] not in ("-", "") and int(x[7]):
            dbs.setdefault(sb, []).append(int(x[8]) / int(x[7]))
        nsb[sb] = x[9]
    md.append("## 1. Host ingest\n")
    md.append("| sub-buffer | consumer | GB/s | CPU s/GB | lost events/run "
              "| GB/s vs copy | GB/s vs dd | CPU vs copy |")
    md.append("|---|---|---|---|---|---|---|---|")
    for sb in sbs:
        for k, name in kinds:
            g = gbps.get((k, sb))
            if not g:
                continue
            md.append("| %s x %s | %s | %s | %s | %s | %s | %s | %s |" % (
                size_name(sb), nsb[sb], name, cell(g), cell(cpu.get((k, sb))),
                cell(lost.get((k, sb)), 0) if (k, sb) in lost else "-",
                ratio(g, gbps.get(("copy", sb))),
                ratio(g, gbps.get(("dd", sb))),
                ratio(cpu.get((k, sb)), cpu.get(("copy", sb)))))
    md.append("")
    md.append("Registered buffers against writev, same run (CPU s/GB, "
              "median; < 1: fixed costs less):\n")
    md.append("| sub-buffer | verify: fixed / writev | zero copy: fixed / "
              "writev |")
    md.append("|---|---|---|")
    for sb in sbs:
        md.append("| %s | %s | %s |" % (
            size_name(sb),
            ratio(cpu.get(("agent-fixed", sb)), cpu.get(("agent-writev", sb))),
            ratio(cpu.get(("agentzc-fixed", sb)),
                  cpu.get(("agentzc-writev", sb)))))
    md.append("")
    md.append("## 2a. Doorbells per sub-buffer (ingest runs with verify, "
              "sustained --max)\n")
    md.append("| sub-buffer | doorbells_in / packets |")
    md.append("|---|---|")
    for sb in sbs:
        md.append("| %s | %s |" % (size_name(sb), cell(dbs.get(sb), 4)))
    md.append("")
    svg_bars(os.path.join(out, "ingest.svg"),
             "Host ingest, store on tmpfs (median, min-max)", "GB/s",
             [size_name(sb) for sb in sbs],
             [(name, [gbps.get((k, sb), []) for sb in sbs])
              for k, name in kinds])


def latency(raw, md):
    r = rows(os.path.join(raw, "latency.tsv"))
    if not r:
        return
    md.append("## 2b. Event-to-disk latency, quiet guest (100 events/s)\n")
    md.append("| switch timer | events/run | p50 (ms) | p90 (ms) | p99 (ms) "
              "| max (ms) | first event (ms) | p50 / timer | p99 / timer "
              "| doorbells / packet |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for ms in sorted({int(x[0]) for x in r}):
        v = [x for x in r if int(x[0]) == ms and len(x) >= 10]
        ev = [int(x[2]) for x in v]
        p = {k: [float(x[i]) / 1000 for x in v]
             for k, i in (("first", 5), ("50", 6), ("90", 7), ("99", 8),
                          ("max", 9))}
        db = [int(x[11]) / int(x[10]) for x in v
              if len(x) >= 12 and x[10].isdigit() and int(x[10])]
        md.append("| %d ms | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s |"
                  % (ms, cell(ev, 0), cell(p["50"]), cell(p["90"]),
                     cell(p["99"]), cell(p["max"]), cell(p["first"]),
                     statistics.median(p["50"]) / ms,
                     statistics.median(p["99"]) / ms, cell(db)))
    md.append("")
    st = [x for x in r if len(x) >= 17 and x[13].isdigit() and int(x[13])]
    if not st:
        return
    md.append("## 2c. Bytes stored per event and loop enters, quiet guest\n")
    md.append("Stored = the stream files (content only); whole sub-buffers "
              "= packets x sub-buffer size, what storing whole sub-buffers "
              "writes for the same packets; enters per iteration = the "
              "agent's io_uring_enter calls over its loop iterations while "
              "latwatch watched (`guestrelay ping`).\n")
    md.append("| switch timer | bytes/event stored | bytes/event whole "
              "sub-buffers | ratio | enters / iteration |")
    md.append("|---|---|---|---|---|")
    for ms in sorted({int(x[0]) for x in st}):
        v = [x for x in st if int(x[0]) == ms]
        got = [int(x[12]) / int(x[13]) for x in v]
        whole = [int(x[10]) * int(x[14]) / int(x[13]) for x in v]
        en = [int(x[16]) / int(x[15]) for x in v if int(x[15])]
        md.append("| %d ms | %s | %s | %s | %s |" % (
            ms, cell(got, 1), cell(whole, 0), ratio(got, whole),
            cell(en, 3)))
    md.append("")


def scale(raw, out, md):
    r = rows(os.path.join(raw, "scale.tsv"))
    if not r:
        return
    ns = sorted({int(x[0]) for x in r})
    agg, off, fair, rss, ranon, lost, kept = {}, {}, {}, {}, {}, {}, {}
    for x in r:
        n, wall, kb, anon = int(x[0]), int(x[2]), int(x[3]), int(x[4])
        produced = int(x[5])
        per = [int(b) for b in x[6].split(",") if b]
        agg.setdefault(n, []).append(sum(per) / wall)
        # packets read back from the files / sub-buffers produced
        stored = int(x[9]) if len(x) > 9 else 0
        off.setdefault(n, []).append(stored / produced if produced else 0)
        if per and min(per):
            fair.setdefault(n, []).append(max(per) / min(per))
        rss.setdefault(n, []).append(kb / 1024)
        ranon.setdefault(n, []).append(anon / 1024)
        lost.setdefault(n, []).append(int(x[7]))
        if len(x) > 8 and int(x[8]) + int(x[7]):
            kept.setdefault(n, []).append(int(x[8]) /
                                          (int(x[8]) + int(x[7])))
    md.append("## 3. Scale: N fake guests on one agent\n")
    md.append("| VMs | aggregate GB/s | GB/s vs 1 VM | events kept "
              "| stored / produced | max/min bytes per VM "
              "| agent VmRSS (MiB) | agent RssAnon (MiB) | RssAnon vs 1 VM "
              "| lost events/run |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    a1 = ranon.get(ns[0])
    for n in ns:
        md.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, cell(agg[n], 3), ratio(agg[n], agg[ns[0]]),
            cell(kept.get(n), 4), cell(off[n], 3), cell(fair.get(n), 3),
            cell(rss[n], 1), cell(ranon[n], 1), ratio(ranon[n], a1),
            cell(lost[n], 0)))
    md.append("")
    svg_bars(os.path.join(out, "scale_gbps.svg"),
             "Scale: aggregate ingest (median, min-max)", "GB/s",
             ["%d VMs" % n for n in ns],
             [("guestrelay agent", [agg[n] for n in ns])])
    svg_bars(os.path.join(out, "scale_rss.svg"),
             "Scale: agent memory after the run (median, min-max)", "MiB",
             ["%d VMs" % n for n in ns],
             [("VmRSS (with shared memory)", [rss[n] for n in ns]),
              ("RssAnon (private)", [ranon[n] for n in ns])])


def fixrate_table(md, ns, aggs, cpu, lost):
    """One table: per total, per count CPU s/GB, vs the first count, lost"""
    head = ["total (ticks/s)", "about MB/s offered"]
    for n in ns:
        head += ["%d VM%s: CPU s/GB" % (n, "" if n == 1 else "s")]
        if n != ns[0]:
            head += ["vs %d VM" % ns[0]]
        head += ["lost"]
    md.append("| %s |" % " | ".join(head))
    md.append("|%s" % ("---|" * len(head)))
    for a in aggs:
        if not any((n, a) in lost for n in ns):
            continue
        row = [str(a), "%.0f" % (a * 4000 / 1e6)]
        for n in ns:
            row.append(cell(cpu.get((n, a)), 3))
            if n != ns[0]:
                row.append(ratio(cpu.get((n, a)), cpu.get((ns[0], a))))
            row.append(str(sum(lost[(n, a)])) if (n, a) in lost else "-")
        md.append("| %s |" % " | ".join(row))
    md.append("")


def fixrate(raw, md):
    r = rows(os.path.join(raw, "fixrate.tsv"))
    if not r:
        return
    ns = sorted({int(x[0]) for x in r})
    aggs = sorted({int(x[1]) for x in r})
    # rows of 8 fields: one agent; later ones name the agent (field 8)
    # and add the steady window (ticks, bytes, ns)
    labels = []
    for x in r:
        lab = x[8] if len(x) > 8 else "this"
        if lab not in labels:
            labels.append(lab)
    labels.sort(key=lambda l: l != "this")
    # label -> (n, agg) -> CPU s per GB stored (whole run, steady
    # window), GB/s stored, lost per run
    cpu, steady, gbps, lost = {}, {}, {}, {}
    for x in r:
        lab = x[8] if len(x) > 8 else "this"
        k = (int(x[0]), int(x[1]))
        wall, ticks, b = int(x[3]) / 1e9, int(x[4]), int(x[5])
        if b:
            cpu.setdefault(lab, {}).setdefault(k, []).append(
                ticks / HZ / (b / 1e9))
        if len(x) > 11 and int(x[10]) > 0:
            steady.setdefault(lab, {}).setdefault(k, []).append(
                int(x[9]) / HZ / (int(x[10]) / 1e9))
        gbps.setdefault(lab, {}).setdefault(k, []).append(
            b / 1e9 / wall if wall else 0)
        lost.setdefault(lab, {}).setdefault(k, []).append(int(x[6]))
    md.append("## 3b. Scale at a fixed aggregate rate\n")
    md.append("N fake guests share one total rate (each offers total / N "
              "ticks/s, each tick a 4000-byte event and a small one), the "
              "same totals at every "
              "N, so the bytes arriving per second do not grow with N. "
              "Cells: the agent's CPU seconds per GB stored, median "
              "[min-max]; the ratio to 1 VM at the same total; "
              "events lost over the repetitions. A count's ladder stops "
              "at the first total that lost events. Whole run: from "
              "before the guests start to the last one's exit (each "
              "session's start and end, and the first touch of the "
              "regions, included); steady: the CPU and the bytes stored "
              "between 2 s after the start and 1 s before the end.\n")
    for lab in labels:
        name = "this agent" if lab == "this" else "baseline (%s)" % lab
        md.append("%s, whole run:\n" % name.capitalize())
        fixrate_table(md, ns, aggs, cpu.get(lab, {}), lost.get(lab, {}))
        if lab in steady:
            md.append("%s, steady window:\n" % name.capitalize())
            fixrate_table(md, ns, aggs, steady[lab], lost.get(lab, {}))
    if len(labels) > 1:
        md.append("This agent over the baseline, same run (median / "
                  "median, CPU s/GB; below 1: this agent is cheaper):\n")
        head = ["total (ticks/s)"]
        for n in ns:
            head += ["%d VM%s whole" % (n, "" if n == 1 else "s"),
                     "steady"]
        md.append("| %s |" % " | ".join(head))
        md.append("|%s" % ("---|" * len(head)))
        base = labels[1]
        for a in aggs:
            if (ns[0], a) not in lost.get("this", {}):
                continue
            row = [str(a)]
            for n in ns:
                row.append(ratio(cpu.get("this", {}).get((n, a)),
                                 cpu.get(base, {}).get((n, a))))
                row.append(ratio(steady.get("this", {}).get((n, a)),
                                 steady.get(base, {}).get((n, a))))
            md.append("| %s |" % " | ".join(row))
        md.append("")
    for lab in labels:
        lo = lost.get(lab, {})
        for n in ns:
            held = [a for a in aggs if (n, a) in lo and not any(lo[(n, a)])]
            md.append("- %s, %d VM%s: highest total held without loss in "
                      "every repetition: %s" % (
                          "this agent" if lab == "this" else lab,
                          n, "" if n == 1 else "s",
                          "%d ticks/s (%.0f MB/s, stored %s GB/s)" % (
                              max(held), max(held) * 4000 / 1e6,
                              cell(gbps[lab][(n, max(held))], 3))
                          if held else "none of those tried"))
    md.append("")


def loss(raw, md):
    r = rows(os.path.join(raw, "loss.tsv"))
    if not r:
        return
    md.append("## 4. Loss: highest rate with zero lost events (default "
              "geometry, 2 CPUs)\n")
    md.append("| run | rate per CPU (ticks/s) | events written/s | lost |")
    md.append("|---|---|---|---|")
    mx = []
    for x in r:
        if x[0] == "result":
            continue
        rate = "max" if x[1] == "0" else x[1]
        eps = int(x[3]) / (int(x[4]) / 1e9)
        if x[0] == "max":
            mx.append(eps)
        md.append("| %s | %s | %.0f | %s |" % (x[0], rate, eps, x[2]))
    md.append("")
    res = [x for x in r if x[0] == "result"]
    if res:
        good, bad = res[-1][1], res[-1][2]
        conf = [x for x in r if x[0].startswith("confirm") and x[1] == good]
        ok = sum(1 for x in conf if x[2] == "0")
        ceil_lost = [int(x[2]) for x in r if x[0] == "max"]
        if good == "0":
            md.append("No rate held with lost == 0 in every confirmation "
                      "run.")
        else:
            ceps = [int(x[3]) / (int(x[4]) / 1e9) for x in conf]
            md.append("Highest rate with lost == 0 in one run and in %d of "
                      "%d confirmation runs: **%s ticks/s per CPU** (2 "
                      "events per tick, 2 CPUs: %d events/s offered; "
                      "measured %s events written/s); the next rate tried "
                      "above it: %s." % (ok, len(conf), good,
                                        int(good) * 4, cell(ceps, 0), bad))
            if mx:
                md.append("Baseline, the fake guest at --max (the "
                          "producer's ceiling on this machine, events lost "
                          "there per run: %s): %s events written/s; "
                          "sustained / ceiling = %.2f (measured rates)." % (
                              cell(ceil_lost, 0), cell(mx, 0),
                              statistics.median(ceps) /
                              statistics.median(mx)))
        md.append("")


def verify(raw, md):
    try:
        with open(os.path.join(raw, "verify.txt")) as f:
            lines = [dict(w.split("=", 1) for w in l.split() if "=" in w)
                     for l in f if l.strip()]
    except OSError:
        return
    head = next((x for x in lines if "record" in x), {})
    modes = {x["mode"]: x for x in lines if "mode" in x}
    walk = next((x["walk_ns_per_packet"] for x in lines
                 if "walk_ns_per_packet" in x), "-")
    declared = next((x["declared_ns_per_packet"] for x in lines
                     if "declared_ns_per_packet" in x), "-")
    if not modes:
        return
    md.append("## 5. Verify modes: the consumer's work per packet\n")
    md.append("tests/bench/verify_modes.c: %s packets of %s content bytes "
              "(64 KiB sub-buffers of %s-byte records) stored to tmpfs per "
              "mode and repetition, the modes taking turns, with the "
              "agent's own functions (gr_packet_content_end(), "
              "gr_packet_end(), "
              "gr_check_records_end(), gr_stored_check()); process CPU time, "
              "median [min-max] of %s repetitions. Self-check: %s.\n" % (
                  head.get("packets", "?"), head.get("content", "?"),
                  head.get("record", "?"), head.get("reps", "?"),
                  "passed" if any("selfcheck" in x for x in lines)
                  else "missing"))
    md.append("| mode | what it does per packet | CPU s/GB | ns per packet "
              "| vs verify off |")
    md.append("|---|---|---|---|---|")
    what = {
        "off-nowalk": "writev of the header copy and the shared content "
                      "(the zero-copy write alone)",
        "off-walk": "the header walk for content_size, then that writev "
                    "(--verify off, a guest without GR_F_LAST_RECORD or "
                    "whose declared last record was refused)",
        "off": "the last record the commit record declares checked for "
               "content_size (spec H31), then that writev (--verify off, "
               "GR_F_LAST_RECORD)",
        "on": "copy of the sub-buffer, records checked (the same walk "
              "gives content_size), writev of the copy (--verify on, the "
              "default)",
        "stored": "--verify off, then the records and content_size checked "
                  "as stored (page cache, read-only mapping, no copy); a "
                  "rewrite from a checked copy only if they fail "
                  "(--verify stored)",
    }
    off = float(modes["off"]["cpu_s_per_gb"]) if "off" in modes else None
    for m in ["off-nowalk", "off-walk", "off", "on", "stored"]:
        x = modes.get(m)
        if not x:
            continue
        c = float(x["cpu_s_per_gb"])
        md.append("| %s | %s | %.3f [%s-%s] | %s | %s |" % (
            m, what[m], c, x["min"], x["max"], x["ns_per_packet"],
            "%.2f" % (c / off) if off else "-"))
    md.append("")
    md.append("The per-record header walk (off-walk - off-nowalk): %s ns "
              "per packet; the declared last record instead (off - "
              "off-nowalk): %s ns per packet." % (walk, declared))
    md.append("")


def conditions(raw, md):
    c = {}
    for x in rows(os.path.join(raw, "conditions.tsv")):
        c[x[0]] = x[1]
    md.append("## Conditions\n")
    md.append("- host: %s CPUs (%s), %s, kernel %s" % (
        c.get("nproc"), c.get("cpu"), c.get("mem"), c.get("kernel")))
    md.append("- load average before / after: %s / %s" % (
        c.get("load_before"), c.get("load_after")))
    md.append("- run: %s mode, %s repetitions, ingest runs of %s s, %s s in "
              "all, %s" % (c.get("mode"), c.get("reps"), c.get("secs"),
                           c.get("seconds"), c.get("date")))
    md.append("")


def main():
    raw, out = sys.argv[1], sys.argv[2]
    md = ["# guestrelay host benchmarks\n",
          "Host only, no emulation: real agent, fake guests (userspace "
          "relay core), stores on tmpfs. Cells: median [min-max] of the "
          "repetitions; ratios are of medians from the same run.\n"]
    ingest(raw, out, md)
    latency(raw, md)
    scale(raw, out, md)
    fixrate(raw, md)
    loss(raw, md)
    verify(raw, md)
    conditions(raw, md)
    text = "\n".join(md)
    with open(os.path.join(out, "host.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
