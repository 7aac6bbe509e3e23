#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""crash_tail.py - leave a stream file as an agent crash can leave it

  crash_tail.py REGION STREAM_FILE RING

With the agent dead and the guest still producing into REGION (the VM's
/dev/shm/guestrelay-<vm> file), the ring's cons.consumed C is one past the
last packet of STREAM_FILE. When the agent died, the writes of packets C
and C + 1 may both have been in flight, and io_uring may have completed
the later one first: the file then holds packet C + 1 after a hole of
zeros where packet C goes. The agent stores each packet's content only
(packet_size = content_size, spec 6.12), so packet C's hole is as long
as C's content. This script makes that state: it reads C's content size
and sub-buffer C + 1 out of the ring (the guest cannot reuse them:
nothing from C on is consumed) and writes C + 1, content-only, after a
hole of C's length past the end of the file.

Exits 0 when done, 3 (with the reason) when the state does not allow it
(the guest has not produced C + 1 yet, or the file does not end at C - 1
after whole packets).
"""
import mmap
import os
import struct
import sys

RING_SIZE = 128
PKT = struct.Struct("<IIQQQQQQQII")
CTF_MAGIC = 0xC1FC1FC1
REGION_MAGIC = 0x3159414C45525247


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1].strip())
        return 2
    region_path, stream, ring = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(region_path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    magic, = struct.unpack_from("<Q", m, 0)
    if magic != REGION_MAGIC:
        print("crash_tail: no publication in %s" % region_path)
        return 3
    nr_rings, sbsize, nsb = struct.unpack_from("<III", m, 40)
    ring_off, rec_off, data_off = struct.unpack_from("<QQQ", m, 72)
    if ring >= nr_rings:
        print("crash_tail: no ring %d" % ring)
        return 3
    base = ring_off + ring * RING_SIZE
    produced, = struct.unpack_from("<Q", m, base)
    consumed, = struct.unpack_from("<Q", m, base + 64)

    size = os.path.getsize(stream)
    with open(stream, "r+b") as f:
        # walk the packets by packet_size: the file must end at one's end
        off, last = 0, None
        while size - off >= PKT.size:
            f.seek(off)
            h = PKT.unpack(f.read(PKT.size))
            if h[0] != CTF_MAGIC or h[6] < PKT.size * 8 or h[6] % 64:
                break
            last = h[7]
            off += h[6] // 8
        if last is None or off != size:
            print("crash_tail: %s: %d bytes, whole packets end at %d" %
                  (stream, size, off))
            return 3
        if last + 1 != consumed:
            print("crash_tail: the file ends at packet %d, consumed is %d"
                  % (last, consumed))
            return 3
        if produced - consumed < 2:
            print("crash_tail: produced %d, consumed %d: no packet %d yet"
                  % (produced, consumed, consumed + 1))
            return 3
        subs = []
        for seq in (consumed, consumed + 1):
            slot = seq % nsb
            off = data_off + (ring * nsb + slot) * sbsize
            sub = bytearray(m[off:off + sbsize])
            hdr = list(PKT.unpack_from(sub, 0))
            content = hdr[5] // 8
            if hdr[0] != CTF_MAGIC or hdr[7] != seq or \
               not PKT.size < content <= sbsize:
                print("crash_tail: slot %d holds packet %d, not %d"
                      % (slot, hdr[7], seq))
                return 3
            hdr[6] = hdr[5]         # stored content-only
            PKT.pack_into(sub, 0, *hdr)
            subs.append(bytes(sub[:content]))
        seq = consumed + 1
        f.seek(size + len(subs[0]))
        f.write(subs[1])
    print("crash_tail: %s: packet %d written after a hole at packet %d "
          "(consumed %d, produced %d)" % (stream, seq, consumed, consumed,
                                          produced))
    return 0


if __name__ == "__main__":
    sys.exit(main())
