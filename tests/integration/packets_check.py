#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""packets_check.py - check the packets of guestrelay stream files

Reads every stream_N of the given trace directories, packet by packet
(struct gr_packet_header of spec/guestrelay_abi.h, little-endian: magic,
stream_id, stream_instance_id, timestamp_begin, timestamp_end,
content_size, packet_size, packet_seq_num, events_discarded, cpu_id,
reserved), and checks:

  - the file is made of whole packets, walked by their packet_size: each
    is a whole sub-buffer (with --subbuf-size S, packet_size = 8 S) or
    its content only (packet_size = content_size rounded up to 64 bits:
    the records up to the last one's end, spec 6.12 step 3; at most
    8 S); with --content-only every packet must be content-only, as the
    agent stores them
  - each header: magic 0xc1fc1fc1, stream_id 0, stream_instance_id N,
    cpu_id N (0 with --global), 72 * 8 <= content_size <= packet_size,
    content_size a multiple of 8 (it ends at the last record's last
    declared byte), packet_size of 64, timestamp_begin <= timestamp_end
  - packet_seq_num goes up by exactly one from packet to packet (no gap,
    no duplicate) unless --allow-gaps, and never goes back
  - timestamp_begin >= the previous packet's timestamp_end

Prints one line per stream file ("stream_0: 12 packets, seq 0..11") and
the problems, then "OK"; exits 0 when everything holds, 1 otherwise.
"""
import argparse
import glob
import os
import struct
import sys

HDR = struct.Struct("<IIQQQQQQQII")
MAGIC = 0xC1FC1FC1


def check_file(path, ring, args, errors):
    size = os.path.getsize(path)
    if not size:
        print("%s: empty" % path)
        return 0
    with open(path, "rb") as f:
        return check_packets(f, path, size, ring, args, errors)


def check_packets(f, path, size, ring, args, errors):
    prev_seq = prev_end = None
    seqs = []
    sizes = set()
    off = 0
    while off < size:
        f.seek(off)
        raw = f.read(HDR.size)
        if len(raw) < HDR.size:
            errors.append("%s: %d bytes of a packet at the end (offset %d)" %
                          (path, size - off, off))
            break
        (magic, sid, inst, tb, te, content, packet, seq, disc, cpu,
         _res) = HDR.unpack(raw)
        where = "%s@%d (seq %d)" % (path, off, seq)
        want_cpu = 0 if args.glob else ring
        if magic != MAGIC:
            errors.append("%s: magic %#x" % (where, magic))
            break
        if sid != 0 or inst != ring or cpu != want_cpu:
            errors.append("%s: stream_id %d, instance %d, cpu_id %d" %
                          (where, sid, inst, cpu))
        whole = args.subbuf_size and packet == args.subbuf_size * 8
        if packet % 64 or content % 8 or \
           not HDR.size * 8 <= content <= packet:
            errors.append("%s: content_size %d, packet_size %d" %
                          (where, content, packet))
            break
        # the last record's tail padding is not content (spec 6.12)
        stored = (content + 63) // 64 * 64
        if args.content_only and packet != stored:
            errors.append("%s: packet_size %d, content_size %d: not "
                          "stored content-only" % (where, packet, content))
        elif args.subbuf_size and not whole and \
                (packet != stored or packet > args.subbuf_size * 8):
            errors.append("%s: packet_size %d bytes, sub-buffers are %d "
                          "(content %d)" % (where, packet // 8,
                                            args.subbuf_size, content // 8))
        if packet // 8 > size - off:
            errors.append("%s: packet of %d bytes, %d left in the file" %
                          (where, packet // 8, size - off))
            break
        if tb > te:
            errors.append("%s: timestamp_begin %d > end %d" % (where, tb, te))
        if prev_end is not None and tb < prev_end:
            errors.append("%s: begins at %d before the previous end %d" %
                          (where, tb, prev_end))
        if prev_seq is not None:
            if seq <= prev_seq:
                errors.append("%s: packet_seq_num %d after %d" %
                              (where, seq, prev_seq))
            elif seq != prev_seq + 1 and not args.allow_gaps:
                errors.append("%s: packet_seq_num %d after %d: %d missing" %
                              (where, seq, prev_seq, seq - prev_seq - 1))
        prev_seq, prev_end = seq, te
        seqs.append(seq)
        sizes.add(packet // 8)
        off += packet // 8
    if not seqs:
        return 0
    print("%s: %d packets of %d..%d bytes, seq %d..%d" %
          (path, len(seqs), min(sizes), max(sizes), seqs[0], seqs[-1]))
    return len(seqs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", nargs="+", help="trace directories")
    ap.add_argument("--subbuf-size", type=int, default=0)
    ap.add_argument("--global", dest="glob", action="store_true")
    ap.add_argument("--allow-gaps", action="store_true")
    ap.add_argument("--content-only", action="store_true",
                    help="every packet stored content-only")
    ap.add_argument("--min-packets", type=int, default=0,
                    help="fail if fewer packets in all")
    args = ap.parse_args()
    errors = []
    total = 0
    for d in args.trace:
        files = sorted(glob.glob(os.path.join(d, "stream_*")))
        if not files:
            errors.append("%s: no stream file" % d)
        for path in files:
            try:
                ring = int(os.path.basename(path).split("_", 1)[1])
            except ValueError:
                errors.append("%s: not a stream file name" % path)
                continue
            total += check_file(path, ring, args, errors)
    print("%d packets in all" % total)
    if total < args.min_packets:
        errors.append("%d packets, wanted at least %d" %
                      (total, args.min_packets))
    for e in errors[:20]:
        print("ERROR " + e)
    if errors:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
