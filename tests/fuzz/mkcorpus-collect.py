#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# mkcorpus-collect.py SESSION OUT - seeds of fuzz_collect (see its input
# format in fuzz_collect.c) from a session directory the agent stored:
# the messages the shipper sends for it (subject, Gr-Frame, payload),
# one object whole or cut into parts.
import os
import struct
import sys

sess, out = sys.argv[1], sys.argv[2]
STREAM = "GUESTRELAY"


def token(name):
    """a name as gr_subj_encode() puts it in a subject"""
    return "".join(c if c.isascii() and (c.isalnum() or c == "-")
                   else "_%02X" % ord(c) for c in name) or "_"


SUBJ = ".".join([STREAM, token("host-1.example"), token("vm_1"),
                 token("20260101-120000"), ""])  # + info|metadata|s<n>
# a closed chunk of that session (subject.h): one token more
SUBJ_CHUNK = SUBJ + token("20260101T120000+0000-20260101T120002+0000-3") + "."


def msg(file, off, data, gen, chunk=0, batch=0, subj=None):
    """the parts of one object as input records"""
    chunk = chunk or max(len(data), 1)
    nparts = max((len(data) + chunk - 1) // chunk, 1)
    rec = b""
    for k in range(nparts):
        part = data[k * chunk:(k + 1) * chunk]
        frame = ("%d %d %d %d %d %d" % (off, len(data), k, nparts, chunk,
                                        gen)).encode()
        s = ((subj or SUBJ) + file).encode()
        rec += bytes([batch]) + struct.pack("<H", len(s)) + s + \
            struct.pack("<H", len(frame)) + frame + \
            struct.pack("<I", len(part)) + part
    return rec


def packets(stream, ring):
    """(offset, seq, bytes) of the stored packets of a stream file"""
    off = 0
    while off + 72 <= len(stream):
        magic, _, inst, _, _, cs, ps, seq = struct.unpack_from("<IIQQQQQQ",
                                                                stream, off)
        if magic != 0xc1fc1fc1 or inst != ring or not ps or \
                off + ps // 8 > len(stream):
            return
        yield off, seq, stream[off:off + ps // 8]
        off += ps // 8


def put(name, data):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


info = open(os.path.join(sess, ".guestrelay"), "rb").read()
meta = open(os.path.join(sess, "metadata"), "rb").read()
stream = open(os.path.join(sess, "stream_0"), "rb").read()
pk = list(packets(stream, 0))[:3]
put("seed-info", msg("info", 0, info, 1000))
put("seed-metadata", msg("info", 0, info, 1000) + msg("metadata", 0, meta, 1000))
put("seed-packet", msg("info", 0, info, 1000) +
    msg("s0", pk[0][0], pk[0][2], pk[0][1]))
# every file, the metadata and a packet in parts, packets out of order
# (the second waits for the first) and one sent twice (a duplicate)
put("seed-session", msg("info", 0, info, 1000) +
    msg("metadata", 0, meta, 1000, chunk=1024) +
    b"".join(msg("s0", o, p, q, batch=1) for o, q, p in reversed(pk)) +
    msg("s0", pk[0][0], pk[0][2], pk[0][1], chunk=1000))
# a metadata before its .guestrelay, a newer .guestrelay version
put("seed-order", msg("metadata", 0, meta, 1000, batch=1) +
    msg("info", 0, info, 1000) + msg("info", 0, info, 2000, chunk=512))
# the same session as a closed chunk: DIR/<host>/<vm>/<session>/archives/<chunk>
put("seed-chunk", msg("info", 0, info, 1000, subj=SUBJ_CHUNK) +
    msg("metadata", 0, meta, 1000, chunk=1024, subj=SUBJ_CHUNK) +
    b"".join(msg("s0", o, p, q, batch=1, subj=SUBJ_CHUNK)
             for o, q, p in reversed(pk)) +
    msg("s0", pk[0][0], pk[0][2], pk[0][1], chunk=1000, subj=SUBJ_CHUNK))
