#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkcorpus.sh - (re)make the seed corpora of tests/fuzz/corpus/<target>/
# from a real trace: the agent stores what a fake guest writes, and the
# seeds are cut from what it stored (region header and descriptors from
# .guestrelay, packets from the stream files), plus hand-written control
# requests, domain XML and ivshmem message sequences. Reproducers of
# findings live in the same directories (crash-* files) and are kept.
# Needs a built tree (make host; make -C tests/fakeguest).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
GR=${GUESTRELAY:-$TOP/build/host-agent/guestrelay}
FG=${FAKEGUEST:-$TOP/build/tests/fakeguest}
RUN= STORE=
# shellcheck source=tests/lib/lib.sh
. "$TOP/tests/lib/lib.sh"
t_init mkcorpus
t_tmpdir mkcorpus
RUN=$T_TMP/run STORE=$T_TMP/store
mkdir -p "$RUN" "$STORE"
vm=fz$$
t_defer "rm -f /dev/shm/guestrelay-$vm"
t_agent_start || exit 1
"$GR" --run-dir "$RUN" vm-add "$vm" --events all --subbuf-size 4K \
	--subbufs 8 >/dev/null
timeout 30 "$FG" --socket "$RUN/$vm.sock" --cpus 2 --events 6 \
	--rate 500 --count 200 --quiet --linger 5
t_agent_stop
sess=$(ls -d "$STORE/$vm"/*/ | head -n1)
python3 - "$sess" "$HERE/corpus" <<'PY'
import os, struct, sys
sess, out = sys.argv[1], sys.argv[2]
def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
info = open(os.path.join(sess, ".guestrelay"), "rb").read()
meta = open(os.path.join(sess, "metadata"), "rb").read()
hdr_size, = struct.unpack_from("<I", info, 12)
region = info[hdr_size:]                 # header copy, then descriptors
hdr = bytearray(region[:512])
ndesc, = struct.unpack_from("<I", hdr, 64)
descs = region[512:512 + 576 * ndesc]
hdr[511] = 8                             # fuzz_region: 64 KiB << 8 = 16 MiB
put("region", "seed-fakeguest", bytes(hdr) + descs)
hdr[511] = 0
put("region", "seed-region-too-small", bytes(hdr) + descs)
# v1.13 (spec 19): the same table with the wide area after the data and
# wide_capacity = desc_capacity = desc_count
wide = bytearray(hdr)
feat, = struct.unpack_from("<Q", wide, 0x18)
nr, sbs, nsb = struct.unpack_from("<III", wide, 0x28)
data, = struct.unpack_from("<Q", wide, 0x58)
struct.pack_into("<Q", wide, 0x18, feat | (1 << 13) | (1 << 19))
struct.pack_into("<II", wide, 0x198, ndesc, ndesc)
struct.pack_into("<Q", wide, 0x1a0, (data + nr * nsb * sbs + 4095) & ~4095)
wide[511] = 8
put("region", "seed-wide", bytes(wide) + descs)
s = open(os.path.join(sess, "stream_0"), "rb").read()
sb = 4096
off = 0
for i in range(3):
    # stored packets are their records (spec 6.12): packet_size at 40 is
    # the records' end, content_size at 32 the last declared byte; the
    # packet target takes the sub-buffer as the guest filled it
    if off + 72 > len(s):
        break
    ps, = struct.unpack_from("<Q", s, off + 40)
    if ps < 72 * 8 or off + ps // 8 > len(s):
        break
    p = bytearray(s[off:off + ps // 8].ljust(sb, b"\0"))
    seq, = struct.unpack_from("<Q", p, 48)
    content, = struct.unpack_from("<Q", p, 32)
    content = (content + 63) // 64 * 64
    struct.pack_into("<QQ", p, 32, content, sb * 8)
    rec = struct.pack("<QII", seq, content // 8, 0)
    put("packet", "seed-packet%d" % i, bytes(hdr) + descs +
        struct.pack("<QQ", 0, 0) + rec + bytes(p))
    off += ps // 8
    put("report", "seed-report%d" % i, struct.pack("<I", len(info)) + info +
        struct.pack("<I", len(meta)) + meta + s[:off])
PY
"$HERE/mkcorpus-collect.py" "$sess" "$HERE/corpus/collect"
mkdir -p "$HERE/corpus/ctl"
printf 'text status' >"$HERE/corpus/ctl/seed-status"
printf 'json vm-add vm%%2e1 --size 16M --mode flight --events sched_%%2a --subbuf-size 64K --subbufs 8 --switch-timer-ms 100 --quota 2G --verify off --owner 64055:64056' \
	>"$HERE/corpus/ctl/seed-vm-add"
printf 'text vm-add a --plain --events=all --size=1M' >"$HERE/corpus/ctl/seed-vm-add-eq"
mkdir -p "$HERE/corpus/hook_xml" "$HERE/corpus/ivshmem"
"$GR" libvirt-xml dom --metadata --events sched_switch --mode stream \
	--quota 1G --required >"$T_TMP/frag.xml"
{ echo "<domain type='kvm'><name>dom</name>"; sed -n '/<metadata>/,/<\/metadata>/p' "$T_TMP/frag.xml"
  echo "<devices>"; sed -n '/<shmem/,/<\/shmem>/p' "$T_TMP/frag.xml"; echo "</devices></domain>"; } \
	>"$HERE/corpus/hook_xml/seed-domain"
# ivshmem: version 0, id 3, peer 5 with an eventfd twice, shm with memfd
python3 - "$HERE/corpus/ivshmem" <<'PY'
import struct, sys
def rec(kind, v): return bytes([kind]) + struct.pack("<q", v)
# memfd size 2^(value % 24): -1 % 24 in C is -1 -> use a kind-2 record
# whose value is -1 (the shm message); its size is 2^(2^64-1 % 24) = 2^15
m = rec(0, 0) + rec(0, 3) + rec(1, 5) + rec(1, 5) + rec(2, -1) + \
    rec(1, 3) + rec(0, 5) + rec(4, 3)
open(sys.argv[1] + "/seed-handshake", "wb").write(m)
PY
ls -R "$HERE/corpus" | head -40
