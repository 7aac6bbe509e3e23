#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""chunk_check.py - the chunks of a rotated session against one trace

  chunk_check.py --chunks DIR... [--ref DIR]

--chunks: the closed chunks of one session (archives/BEGIN-END-ID), in
any order; they are put in ID order. Checks, per ring, across the seams:
the index files' packets follow each other (packet_seq_num + 1 from the
last packet of a chunk to the first of the next, events_discarded never
going back), each chunk's index starts at offset 0.
--ref: a trace of the same load recorded without rotation; the events of
the chunks (read together by bt2), per CPU in order, equal its events
(name and every payload field; times differ between the two runs).
Prints "OK" or the problems; exit 0 when everything holds.
"""
import argparse
import os
import struct
import sys

try:
    import bt2
except ImportError:
    print("chunk_check.py: python3-bt2 is not installed")
    sys.exit(2)

ENTRY = struct.Struct(">9Q")  # CTF index 1.1


def chunk_id(path):
    return int(os.path.basename(path.rstrip("/")).rsplit("-", 1)[1])


def index(path, ring):
    with open(os.path.join(path, "index", "stream_%d.idx" % ring), "rb") as f:
        data = f.read()
    magic, _, _, elen = struct.unpack(">4I", data[:16])
    assert magic == 0xC1F1DCC1, "bad index magic"
    return [ENTRY.unpack_from(data, 16 + i * elen)
            for i in range((len(data) - 16) // elen)]


def rings(path):
    return sorted(int(n[7:]) for n in os.listdir(path)
                  if n.startswith("stream_"))


def events(paths):
    """{cpu: [(name, fields...)]} in stream order per CPU"""
    out = {}
    for m in bt2.TraceCollectionMessageIterator(paths):
        if type(m) is not bt2._EventMessageConst:
            continue
        ev = m.event
        cpu = int(ev.packet.context_field["cpu_id"])
        out.setdefault(cpu, []).append(
            (ev.name, tuple(str(ev.payload_field[k])
                            for k in ev.payload_field.keys())))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", nargs="+", required=True)
    ap.add_argument("--ref")
    a = ap.parse_args()
    chunks = sorted(a.chunks, key=chunk_id)
    bad = []
    last = {}
    npk = 0
    for c in chunks:
        for r in rings(c):
            ent = index(c, r)
            if ent and ent[0][0] != 0:
                bad.append("%s ring %d: first packet at %d" % (c, r, ent[0][0]))
            for e in ent:
                seq, disc = e[8], e[5]
                if r in last:
                    pseq, pdisc = last[r]
                    if seq != pseq + 1:
                        bad.append("%s ring %d: packet %d after %d"
                                   % (os.path.basename(c), r, seq, pseq))
                    if disc < pdisc:
                        bad.append("%s ring %d: discarded %d after %d"
                                   % (os.path.basename(c), r, disc, pdisc))
                last[r] = (seq, disc)
                npk += 1
    print("%d chunks, %d packets, seams checked" % (len(chunks), npk))
    if a.ref:
        got, want = events(chunks), events([a.ref])
        n = sum(len(v) for v in want.values())
        print("%d events in the reference, %d in the chunks"
              % (n, sum(len(v) for v in got.values())))
        for cpu in sorted(set(got) | set(want)):
            g, w = got.get(cpu, []), want.get(cpu, [])
            if g != w:
                i = next((i for i, (x, y) in enumerate(zip(g, w)) if x != y),
                         min(len(g), len(w)))
                bad.append("cpu %d: %d events, reference %d, first "
                           "difference at %d" % (cpu, len(g), len(w), i))
    for b in bad[:20]:
        print(b)
    print("OK" if not bad else "FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
