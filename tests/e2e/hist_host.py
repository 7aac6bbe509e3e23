#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hist_host.py REGION PHASE - a scripted host of spec 17 (aggregation in
the guest) on the region file of an ivshmem-plain guest, for
test_hist_guest.sh: the real guest module against the ABI alone, before
any agent speaks GR_F_HIST.

  init   a zeroed region with a host control block: GR_F_HIST only,
         tracing 0 (nothing is recorded), no event enabled
  req    waits for the publication, checks the hist area (GR_F_HIST in
         guest_features, 1 MiB page aligned at the end of the region),
         writes six requests found by event and field name in the
         guest's descriptors, bumps ctrl.seq, waits for its ack and checks
         every answer: sys_enter keyed by id; the latency pairs run-queue
         (sched_wakeup tid -> sched_switch next_tid), system call
         (sys_enter -> sys_exit by thread, keyed by id and log2 ns), hard
         IRQ (irq_handler_entry -> _exit by CPU, keyed by irq) and block
         (block_rq_issue -> _complete by sector, keyed by dev); and one
         invalid request (a DELTA key in a plain request), refused
  read   reads every map in place as a host does: gen stamped, seq even,
         each used entry's hitcount adding up with dropped to hits; the
         pairs' keys plausible; recording off: state IDLE, nothing
         enabled, no sub-buffer produced
Prints "ok - ..." / "FAIL - ..." lines for take_checks (tests/e2e/lib.sh).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from region_host import (CTRL, REGION_MAGIC, SIZE, STATUS,  # noqa: E402
                         Region, check, wait)

F_HIST = 1 << 12
FIELD, TID, CPU, DELTA, CONST = 1, 2, 3, 4, 5
LOG2 = 1
PLAIN, PAIR = 0, 1
RUNNING, REFUSED = 1, 2
E_KEY = 3
ELOG2 = 8
NAMES = ["sys_enter by id", "run-queue latency", "system call latency",
         "hard IRQ latency", "block latency", "invalid"]

path, phase = sys.argv[1], sys.argv[2]
region = Region(path, phase == "init")
m, u16, u32, u64 = region.m, region.u16, region.u32, region.u64

if phase == "init":
    region.init_ctrl(5, F_HIST)
    sys.exit(0)

if not check(wait(lambda: u64(0) == REGION_MAGIC,
                  int(os.environ.get("HIST_BOOT_WAIT", "300"))),
             "the guest published its layout" if phase == "req" else
             "its layout is still published", "no magic"):
    sys.exit(1)
feat, hoff, hsize = u64(24), u64(392), u64(400)
ncpu, doff, dcnt, dstr = u32(288), u64(56), u32(64), u32(68)
slot_bytes = ((hsize - 0x2000) // 8) & ~63
map_bytes = 64 + (56 << ELOG2)
ev = {}
for i in range(dcnt):
    o = doff + i * dstr
    name = bytes(m[o:o + 32]).split(b"\0")[0].decode()
    fields = {}
    for f in range(u16(o + 34)):
        fo = o + 64 + f * 32
        fname = bytes(m[fo:fo + 24]).split(b"\0")[0].decode()
        fields[fname] = (u16(fo + 24), u16(fo + 26))
    ev[name] = (i, fields)


def key(src, xform=0, event=None, field=None, arg=0):
    off = width = 0
    if src == FIELD:
        off, width = ev[event][1][field]
    return struct.pack("<BBBBHHQ", src, width, 0, xform, off, 0, arg)


def req(slot, start, end, kind, keys, vals, match):
    r = bytearray(512)
    struct.pack_into("<QHHBBBB", r, 0, slot + 1, ev[start][0],
                     ev[end][0] if end else 0, kind, len(keys), len(vals),
                     ELOG2)
    for i, k in enumerate(keys):
        r[16 + 16 * i:32 + 16 * i] = k
    for i, k in enumerate(vals):
        r[48 + 16 * i:64 + 16 * i] = k
    for i, k in enumerate(match):
        r[96 + 16 * i:112 + 16 * i] = k
    m[hoff + slot * 512:hoff + slot * 512 + 512] = bytes(r)


if phase == "req":
    check(feat & F_HIST, "GR_F_HIST in guest_features", "%#x" % feat)
    check(hsize == 1 << 20 and hoff == SIZE - hsize and hoff % 4096 == 0,
          "the hist area ends the region, 1 MiB, page aligned",
          "offset %#x size %#x" % (hoff, hsize))
    missing = [n for n in ("sys_enter", "sys_exit", "sched_wakeup",
                           "sched_switch", "irq_handler_entry",
                           "irq_handler_exit", "block_rq_issue",
                           "block_rq_complete") if n not in ev]
    if not check(not missing, "the guest describes the presets' events",
                 " ".join(missing)):
        sys.exit(1)
    req(0, "sys_enter", None, PLAIN, [key(FIELD, 0, "sys_enter", "id")],
        [key(CONST, arg=1)], [])
    req(1, "sched_wakeup", "sched_switch", PAIR, [key(DELTA, LOG2)],
        [key(DELTA)], [key(FIELD, 0, "sched_wakeup", "tid"),
                       key(FIELD, 0, "sched_switch", "next_tid")])
    req(2, "sys_enter", "sys_exit", PAIR,
        [key(FIELD, 0, "sys_exit", "id"), key(DELTA, LOG2)], [],
        [key(TID), key(TID)])
    req(3, "irq_handler_entry", "irq_handler_exit", PAIR,
        [key(FIELD, 0, "irq_handler_exit", "irq"), key(DELTA, LOG2)], [],
        [key(CPU), key(CPU)])
    req(4, "block_rq_issue", "block_rq_complete", PAIR,
        [key(FIELD, 0, "block_rq_complete", "dev"), key(DELTA, LOG2)], [],
        [key(FIELD, 0, "block_rq_issue", "sector"),
         key(FIELD, 0, "block_rq_complete", "sector")])
    req(5, "sys_enter", None, PLAIN, [key(DELTA, LOG2)], [], [])
    struct.pack_into("<Q", m, CTRL + 24, 2)
    check(wait(lambda: u64(STATUS + 8) == 2, 60), "ctrl.seq 2 acknowledged",
          "ctrl_ack %d" % u64(STATUS + 8))
    so = hoff + 0x1000
    check(wait(lambda: all(u64(so + 64 * i) == i + 1 for i in range(6)), 30),
          "every request answered under its gen",
          [u64(so + 64 * i) for i in range(6)])
    for i in range(5):
        check(u32(so + 64 * i + 8) == RUNNING and m[so + 64 * i + 12] == 0,
              "%s runs" % NAMES[i], "state %d reason %d" %
              (u32(so + 64 * i + 8), m[so + 64 * i + 12]))
    check(u32(so + 64 * 5 + 8) == REFUSED and m[so + 64 * 5 + 12] == E_KEY
          and u16(so + 64 * 5 + 14) == 0,
          "a DELTA key in a plain request is refused (GR_HIST_E_KEY, key 0)",
          "state %d reason %d bad %d" % (u32(so + 64 * 5 + 8),
                                        m[so + 64 * 5 + 12],
                                        u16(so + 64 * 5 + 14)))
    sys.exit(0)

# phase "read"
for s in range(5):
    hits = dropped = unm = used = hc = 0
    gens_ok = seq_ok = True
    keys = []
    for c in range(ncpu):
        mo = hoff + 0x2000 + s * slot_bytes + c * map_bytes
        gens_ok &= u64(mo) == s + 1
        hits += u64(mo + 8)
        dropped += u64(mo + 16)
        unm += u64(mo + 32)
        for e in range(1 << ELOG2):
            eo = mo + 64 + e * 56
            seq_ok &= u32(eo) % 2 == 0
            if u32(eo + 4):
                used += 1
                hc += u64(eo + 24)
                keys.append((u64(eo + 8), u64(eo + 16), u64(eo + 24)))
    keys.sort(key=lambda k: -k[2])
    print("# %s: hits %d entries %d dropped %d unmatched %d, top %s" %
          (NAMES[s], hits, used, dropped, unm, keys[:3]))
    check(gens_ok and seq_ok, "%s: maps stamped, no entry odd" % NAMES[s])
    check(hc + dropped == hits, "%s: hitcounts and dropped add up to hits"
          % NAMES[s], "%d + %d != %d" % (hc, dropped, hits))
    if s == 3:
        # TCG guests take few device interrupts: counted when they came
        continue
    check(hits > 0, "%s: counted with recording off" % NAMES[s], "no hit")
    if s in (1, 4):
        check(all(k[0] < 40 for k in keys) if s == 1 else
              all(k[1] < 40 for k in keys),
              "%s: log2 buckets of nanoseconds below 2^40" % NAMES[s])
produced = sum(u64(u64(72) + r * 128) for r in range(u32(40)))
check(u32(STATUS) == 1 and u64(STATUS + 56) == 0 and produced == 0,
      "recording off: state IDLE, no event enabled, no sub-buffer produced",
      "state %d enabled %#x produced %d" % (u32(STATUS), u64(STATUS + 56),
                                            produced))
