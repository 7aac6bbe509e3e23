#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# mkcorpus-dynarr.py - seeds with several strings and a dynamic array
# (v1.11, GR_F_DYNARR; spec 7.3) for the targets that parse descriptors:
# from the region and packet seeds mkcorpus.sh cut from a real trace, the
# header gains GR_F_DYNARR and its last two descriptors become
# power:device_pm_callback_start (two strings) and ipi:ipi_raise (a
# sequence of unsigned longs counted by target_cpus_len), laid out as the
# guest lays them out; for the packet target one record of each is
# appended to the first packet's records. A region seed with fixed arrays
# (v1.14, GR_F_ARRAYS; seed-arrays): the header gains the bit and its last
# descriptor becomes grtp.ko's grtp_array (u8, s16, u32 arrays, a struct
# as its bytes, a char array). Run after mkcorpus.sh.
import os
import struct
import sys

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
GR_F_DYNARR = 1 << 17
GR_F_ARRAYS = 1 << 20
HDR, DESC = 512, 576
INT, CHR, STR, SEQ, ARR = 1, 2, 3, 4, 5
HEX, SIGNED = 2, 1


def field(name, off, size, typ, flags=0, elem=0, lenf=0):
    return struct.pack("<24sHHBBBB", name.encode(), off, size, typ, flags,
                       elem, lenf)


def desc(idx, name, system, payload, flags, fields):
    d = struct.pack("<32sHHHH16sHHI", name.encode(), idx, len(fields),
                    payload, flags, system.encode(), 0, 0, 0)
    d += b"".join(fields)
    return d.ljust(DESC, b"\0")


def dyn_descs(ndesc):
    pm = desc(ndesc - 2, "device_pm_callback_start", "power", 12 + 2 * 64, 1,
              [field("device_loc", 0, 4, INT, HEX),
               field("driver_loc", 4, 4, INT, HEX),
               field("event", 8, 4, INT, SIGNED),
               field("device", 12, 64, STR),
               field("driver", 76, 64, STR)])
    ipi = desc(ndesc - 1, "ipi_raise", "ipi", 16 + 32, 1,
               [field("target_cpus_len", 0, 4, INT),
                field("reason", 8, 8, INT, HEX),
                field("target_cpus", 16, 32, SEQ, HEX, 8, 0)])
    return pm, ipi


def retable(data):
    hdr = bytearray(data[:HDR])
    feat, = struct.unpack_from("<Q", hdr, 24)
    struct.pack_into("<Q", hdr, 24, feat | GR_F_DYNARR)
    ndesc, = struct.unpack_from("<I", hdr, 64)
    if ndesc < 2:
        sys.exit("a seed with fewer than two descriptors")
    descs = bytearray(data[HDR:HDR + DESC * ndesc])
    pm, ipi = dyn_descs(ndesc)
    descs[DESC * (ndesc - 2):] = pm + ipi
    return bytes(hdr) + bytes(descs), ndesc, data[HDR + DESC * ndesc:]


def arrays_table(data):
    hdr = bytearray(data[:HDR])
    feat, = struct.unpack_from("<Q", hdr, 24)
    struct.pack_into("<Q", hdr, 24, feat | GR_F_ARRAYS)
    ndesc, = struct.unpack_from("<I", hdr, 64)
    descs = bytearray(data[HDR:HDR + DESC * ndesc])
    descs[DESC * (ndesc - 1):] = desc(
        ndesc - 1, "grtp_array", "grtp", 56, 0,
        [field("seq", 0, 4, INT), field("addr", 4, 6, ARR, 0, 1),
         field("deltas", 10, 6, ARR, SIGNED, 2),
         field("words", 16, 16, ARR, 0, 4), field("id", 32, 16, ARR, HEX, 1),
         field("tag", 48, 8, CHR)])
    return bytes(hdr) + bytes(descs)


def record(rid, tid, ts, payload):
    size = (16 + len(payload) + 7) & ~7
    # struct gr_event_header: timestamp, id, size, tid
    return (struct.pack("<QHHI", ts, rid, size, tid) + payload).ljust(size,
                                                                     b"\0")


def put(target, name, data):
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


def main():
    src = open(os.path.join(CORPUS, "region", "seed-fakeguest"), "rb").read()
    table, _, _ = retable(src)
    put("region", "seed-dynarr", table)
    put("region", "seed-arrays", arrays_table(src))

    src = open(os.path.join(CORPUS, "packet", "seed-packet0"), "rb").read()
    table, ndesc, rest = retable(src)
    last, rec, sub = rest[:16], bytearray(rest[16:32]), bytearray(rest[32:])
    pm = struct.pack("<IIi", 11 << 16 | 0x20, 4 << 16 | 0x2b, 2)
    pm += b"serial8250\0drv\0"
    ipi = struct.pack("<IIQ", 2, 0, 0xffffffff81000000)
    ipi += struct.pack("<QQ", 0x5, 0x1)
    # keep the records of the other events that leave room for the two
    # new ones (the two descriptors replaced had records of their own)
    content = struct.unpack_from("<Q", sub, 32)[0] // 8
    room = len(sub) - len(record(0, 0, 0, pm)) - len(record(0, 0, 0, ipi))
    src, off, ts = 72, 72, struct.unpack_from("<Q", sub, 16)[0]
    kept = bytearray()
    while src < content:
        t, rid, size = struct.unpack_from("<QHH", sub, src)
        if not size or off + size > room:
            break
        if rid not in (ndesc - 2, ndesc - 1):
            kept += sub[src:src + size]
            off += size
            ts = t
        src += size
    sub[72:off] = kept
    recs = record(ndesc - 2, 1, ts, pm) + record(ndesc - 1, 1, ts, ipi)
    sub[off:] = recs.ljust(len(sub) - off, b"\0")
    content = off + len(recs)
    # packet header: timestamp_end at 24, content_size (bits) at 32
    struct.pack_into("<QQ", sub, 24, ts, content * 8)
    # the commit record: bytes, last_record (v1.4) at 8
    struct.pack_into("<II", rec, 8, content, off + len(recs) -
                     len(record(0, 0, 0, ipi)))
    put("packet", "seed-dynarr", table + last + bytes(rec) + bytes(sub))


main()
