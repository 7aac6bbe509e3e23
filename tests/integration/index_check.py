#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""index_check.py SESSION_DIR: every stream file's index agrees with it.

For each stream_<n> of the session, index/stream_<n>.idx (CTF index 1.1,
big-endian) must hold exactly one entry per stored packet, in order: its
offset, packet and content sizes, time bounds, discarded events, stream
class, ring and sequence number equal to the packet's own header. Prints
one line per stream; exits 1 on the first disagreement.
"""
import os
import struct
import sys

PKT = struct.Struct('<IIQQQQQQQII')   # struct gr_packet_header (72 bytes)
ENT = struct.Struct('>9Q')


def packets(path):
    data = open(path, 'rb').read()
    off = 0
    while off < len(data):
        (magic, sid, inst, tb, te, cs, ps, seq, disc, cpu,
         _) = PKT.unpack_from(data, off)
        if magic != 0xC1FC1FC1 or ps % 8 or ps == 0:
            raise ValueError('%s: no packet at offset %d' % (path, off))
        yield (off, ps, cs, tb, te, disc, sid, inst, seq)
        off += ps // 8


def main():
    d = sys.argv[1]
    streams = sorted(f for f in os.listdir(d) if f.startswith('stream_'))
    if not streams:
        print('%s: no stream file' % d)
        return 1
    for f in streams:
        idx = os.path.join(d, 'index', f + '.idx')
        if not os.path.exists(idx):
            print('%s: no index' % f)
            return 1
        raw = open(idx, 'rb').read()
        magic, major, minor, elen = struct.unpack_from('>IIII', raw)
        if (magic, major, minor, elen) != (0xC1F1DCC1, 1, 1, 72):
            print('%s: index header %x %d.%d %d' % (f, magic, major, minor,
                                                    elen))
            return 1
        if (len(raw) - 16) % elen:
            print('%s: index ends inside an entry' % f)
            return 1
        ents = [ENT.unpack_from(raw, 16 + i * elen)
                for i in range((len(raw) - 16) // elen)]
        pkts = list(packets(os.path.join(d, f)))
        if ents != pkts:
            for i, (e, p) in enumerate(zip(ents, pkts)):
                if e != p:
                    print('%s: entry %d is %s, packet is %s' % (f, i, e, p))
                    return 1
            print('%s: %d entries for %d packets' % (f, len(ents),
                                                     len(pkts)))
            return 1
        print('%s: %d packets, index agrees' % (f, len(pkts)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
