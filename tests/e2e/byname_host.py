#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""byname_host.py REGION PHASE [CONSOLE] - a scripted host of spec 18
(events by name) on the region file of an ivshmem-plain guest, for
test_byname_guest.sh: the real guest module against the ABI alone, before
the agent speaks GR_F_ANYEVENT.

  init   a zeroed region with a host control block (minor 8):
         GR_F_ANYEVENT only (GR_F_PROBE is set later),
         tracing 0, no event enabled
  run    with the guest's console CONSOLE (scripts/guest/e2e-byname):
         waits for the publication and checks N1 (the feature,
         desc_capacity 256, desc_live = desc_count); refused requests (an
         unknown op, a text too long, an empty pattern, a LIST offset not
         a line start); LIST of one event and of every event in pages
         (whole lines, next, total, as many lines as tracefs lists);
         ADD of a name, a native event, a glob, a system call event, a
         missing name (A, K, R, N lines; the descriptors in their slots,
         desc_live in the answer and the status); the same ADD again (K);
         an added event enabled (status.enabled) and its records in the
         flushed sub-buffers, of its descriptor's size; after the guest
         unmounted tracefs one more ADD; after the guest rebound its
         device, a publication from the table (N6: desc_live, the slots
         zeroed) and the same ids again once the host's block names no
         dropped id. Spec 18.4 in between (probe_checks()): PROBE
         refused without GR_F_PROBE, then with it heads the guest refuses
         (P2, E lines), definitions the kernel refuses (P3, its reason at
         the definition's column), a p probe with a ustring and an r
         probe with $retval (A, LIST state p), both enabled and recorded
         (the path the guest opens in gr_open's records), UNPROBE (D, no
         record after), P5 (K and recorded again; another layout R
         EEXIST), and after the new publication the r probe again (the
         next id); after hostprobe=0, EPERM; after byname=0, EPERM.
Prints "ok - ..." / "FAIL - ..." lines for take_checks (tests/e2e/lib.sh).
"""
import os
import re
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from region_host import (CTRL, REGION_MAGIC, STATUS,  # noqa: E402
                         Region, check, wait)

REQ, ANS = 0x400, 0x800
F_ANYEVENT, F_PROBE = 1 << 13, 1 << 14
ADD, LIST, PROBE, UNPROBE = 1, 2, 3, 4
EPERM, ENOENT, EEXIST, EINVAL, ENOSPC, ERANGE, EOPNOTSUPP = \
    1, 2, 17, 22, 28, 34, 95
MARKER = b"/gr/e2e-byname"

path, phase = sys.argv[1], sys.argv[2]
region = Region(path, phase == "init")
m, u32, u64 = region.m, region.u32, region.u64

if phase == "init":
    region.init_ctrl(8, F_ANYEVENT)
    sys.exit(0)

console = sys.argv[3]


def console_has(what):
    try:
        with open(console, "rb") as f:
            return what.encode() in f.read()
    except OSError:
        return False


seq = 0


def request(op, text, offset=0, raw_len=None):
    """Write a request, wait for its answer: (result, fields, text, secs)."""
    global seq
    seq += 1
    b = text.encode()
    n = len(b) if raw_len is None else raw_len
    m[REQ + 8:REQ + 1024] = bytes(1016)
    struct.pack_into("<III", m, REQ + 8, op, offset, n)
    m[REQ + 32:REQ + 32 + len(b)] = b
    t0 = time.time()
    struct.pack_into("<Q", m, REQ, seq)
    if not wait(lambda: u64(ANS) == seq, 60):
        return None
    secs = time.time() - t0
    res, matched, added, refused, live, total, nxt, ln = \
        struct.unpack_from("<8I", m, ANS + 8)
    txt = bytes(m[ANS + 64:ANS + 64 + min(ln, 1984)]).decode("ascii",
                                                             "replace")
    return res, dict(matched=matched, added=added, refused=refused,
                     live=live, total=total, next=nxt, len=ln), txt, secs


def payloads(want):
    """Records of id WANT in the finished sub-buffers: their payloads."""
    nr, size, n, data = u32(40), u32(44), u32(48), u64(88)
    sizes = []
    for k in range(nr * n):
        o = data + k * size
        if u32(o) != 0xc1fc1fc1:
            continue
        end = o + min(u64(o + 32) // 8, size)
        r = o + 72
        while r + 16 <= end:
            rid, rsz = struct.unpack_from("<HH", m, r + 8)
            if rsz < 16 or rsz % 8:
                break
            if rid == want:
                sizes.append(bytes(m[r + 16:r + rsz]))
            r += rsz
    return sizes


def records(want):
    """Records of id WANT in the finished sub-buffers: their sizes."""
    return [16 + len(p) for p in payloads(want)]


ctl = dict(seq=1, flush=0)


def control(features=None, enable=None):
    """A new host block: FEATURES, the ids ENABLE on (a list), if given;
    True once the guest acknowledged it."""
    if features is not None:
        struct.pack_into("<Q", m, CTRL + 16, features)
    if enable is not None:
        m[CTRL + 48:CTRL + 80] = bytes(32)
        for i in enable:
            o = CTRL + 48 + 8 * (i // 64)
            struct.pack_into("<Q", m, o, u64(o) | 1 << (i % 64))
        struct.pack_into("<I", m, CTRL + 40, 1 if enable else 0)
    ctl["seq"] += 1
    struct.pack_into("<Q", m, CTRL + 24, ctl["seq"])
    return wait(lambda: u64(STATUS + 8) == ctl["seq"], 30)


def flush():
    ctl["flush"] += 1
    struct.pack_into("<Q", m, CTRL + 96, ctl["flush"])
    return wait(lambda: u64(STATUS + 16) == ctl["flush"], 30)


def desc_name(i):
    o = doff + i * dstr
    name = bytes(m[o:o + 32]).split(b"\0")[0].decode()
    system = bytes(m[o + 40:o + 56]).split(b"\0")[0].decode()
    return "%s:%s" % (system, name), struct.unpack_from("<H", m, o + 32)[0]


if not check(wait(lambda: u64(0) == REGION_MAGIC,
                  int(os.environ.get("BYNAME_BOOT_WAIT", "300"))),
             "the guest published its layout", "no magic"):
    sys.exit(1)
feat, doff, dcnt, dstr, dcap = u64(24), u64(56), u32(64), u32(68), u32(408)
check(feat & F_ANYEVENT, "GR_F_ANYEVENT in guest_features", "%#x" % feat)
check(dcap == 256 and dcnt <= dcap, "desc_capacity 256 (N1)",
      "desc_count %d desc_capacity %d" % (dcnt, dcap))
check(u32(STATUS + 208) == dcnt, "status.desc_live = desc_count",
      "%d, %d" % (u32(STATUS + 208), dcnt))
check(wait(lambda: u64(STATUS + 8) == 1, 30), "the control block applied",
      "ctrl_ack %d" % u64(STATUS + 8))

# refused whole
for what, op, text, off, rl, want in (
        ("an unknown op", 9, "x", 0, None, EOPNOTSUPP),
        ("a text of 993 bytes", ADD, "x", 0, 993, EINVAL),
        ("an empty pattern", ADD, "sched:sched_switch,", 0, None, EINVAL),
        ("an ADD without pattern", ADD, "", 0, None, EINVAL),
        ("a LIST offset with no listing kept", LIST, "", 5, None, ERANGE)):
    a = request(op, text, off, rl)
    check(a and a[0] == want and a[1]["len"] == 0 and
          a[1]["live"] == dcnt, "refused whole: %s (%d)" % (what, want),
          repr(a))

# LIST of one event
a = request(LIST, "sched:sched_switch")
check(a and a[0] == 0 and a[1]["matched"] == 1 and
      a[2].startswith("sched:sched_switch n ") and "prev_pid@" in a[2] and
      a[2].endswith("\n") and a[1]["next"] == a[1]["total"] == a[1]["len"],
      "LIST sched:sched_switch: one line, state n, its fields", repr(a))
print("# " + (a[2].strip() if a else ""))

# LIST of every event, in pages
a = request(LIST, "")
pages, lines, offs, worst = 0, [], 0, 0.0
good = a is not None and a[0] == 0
while good:
    res, f, txt, secs = a
    worst = max(worst, secs)
    pages += 1
    good = (res == 0 and txt.endswith("\n") and f["next"] == offs + f["len"]
            and f["len"] <= 1984)
    lines += txt.splitlines()
    offs = f["next"]
    if offs == f["total"] or not good:
        break
    a = request(LIST, "", offs)
    good = a is not None
avail = 0
mm = re.search(rb"GR: AVAIL (\d+)", open(console, "rb").read())
if mm:
    avail = int(mm.group(1))
syntax = re.compile(r"^[^ :]+:[^ ]+ (n|p|y|-\d+)( .*)?$")
bad = [ln for ln in lines if not syntax.match(ln)]
check(good and a[1]["matched"] == len(lines) == avail and not bad,
      "LIST of every event: %d pages of whole lines, %d lines as tracefs "
      "lists" % (pages, len(lines)),
      "matched %s lines %d avail %d bad %s" %
      (a and a[1]["matched"], len(lines), avail, bad[:3]))
check(worst < 5, "the first page within the host's 5 s (%.1f s)" % worst,
      "%.1f s" % worst)
states = {}
for ln in lines:
    s = ln.split(" ")[1]
    states[s] = states.get(s, 0) + 1
print("# states: %s" % " ".join("%s=%d" % kv for kv in sorted(states.items())))
check(any(ln.startswith("syscalls:sys_enter_openat -95 ") and
          "filename@" in ln for ln in lines),
      "a system call event: -95, its fields from its format",
      [ln for ln in lines if ln.startswith("syscalls:sys_enter_openat")])
check(any(ln.startswith("timer:timer_start y ") for ln in lines),
      "timer:timer_start can be added (y)", "")
a = request(LIST, "", 1)
check(a and a[0] == ERANGE, "a LIST offset not a line start: ERANGE",
      repr(a))

# ADD
a = request(ADD, "timer:timer_start,sched:sched_switch,nosuch_zz,"
            "syscalls:sys_enter_openat,sched:sched_wakeup*,hrtimer_expire_*")
ok = a is not None and a[0] == 0
got = a[2].splitlines() if ok else []
print("\n".join("# " + ln for ln in got))
# in available_events' order: the first A is id desc_count
first = dcnt
want = ["R syscalls:sys_enter_openat 95", "N nosuch_zz 2"]
ts = [int(ln.split()[2]) for ln in got
      if re.match(r"A timer:timer_start \d+$", ln)]
check(ok and all(w in got for w in want) and ts and
      got[0] == "K sched:sched_switch 0" and
      min(int(ln.split()[2]) for ln in got if ln[0] == "A") == first and
      any(re.match(r"K sched:sched_switch \d+$", ln) for ln in got) and
      any(re.match(r"K sched:sched_wakeup_new \d+$", ln) for ln in got) and
      any(re.match(r"A timer:hrtimer_expire_entry \d+$", ln)
          for ln in got) and
      any(re.match(r"A timer:hrtimer_expire_exit \d+$", ln) for ln in got),
      "ADD: A, K, R and N lines", repr(a))
f = a[1] if ok else {}
added = [ln for ln in got if ln.startswith("A ")]
check(ok and f["added"] == len(added) and f["refused"] == 1 and
      f["matched"] == len(got) - 1 and f["live"] == dcnt + len(added) and
      u32(STATUS + 208) == f["live"],
      "ADD: the counts, desc_live in the answer and the status", repr(f))
okd = True
for ln in added:
    _, ev, i = ln.split()
    okd &= desc_name(int(i)) == (ev, int(i))
check(ok and okd, "the added descriptors in their slots (name, id)",
      [desc_name(i) for i in range(dcnt, dcnt + len(added))])
a = request(ADD, "timer:timer_start")
check(a and a[0] == 0 and ts and
      a[2] == "K timer:timer_start %d\n" % ts[0] and
      a[1]["added"] == 0, "ADD again: K, nothing added", repr(a))
a = request(LIST, "timer:timer_start")
check(a and a[2].startswith("timer:timer_start p "),
      "LIST: an added event is p", repr(a))



def enabled(i):
    return (u64(STATUS + 56 + 8 * (i // 64)) >> (i % 64)) & 1


# enable the added event
check(control(enable=[first]) and enabled(first),
      "the added event enabled (status.enabled)",
      "ctrl_ack %d" % u64(STATUS + 8))
# its records: a few seconds of the guest's timers, then a flush
time.sleep(3)
check(flush(), "the flush acknowledged", "")
want = 16 + ((struct.unpack_from("<H", m, doff + first * dstr + 36)[0] + 7)
             & ~7)
sizes = records(first)
check(sizes and all(z == want for z in sizes),
      "%d records of %s, %d bytes each" % (len(sizes), desc_name(first)[0],
                                            want),
      "sizes %s" % sorted(set(sizes)))



def probe_checks():
    """Spec 18.4 against the guest's kernel: refusals, creation, records,
    UNPROBE, P5; ends with probe gr_done, the guest's signal."""
    a = request(PROBE, "p:gr_x do_sys_openat2")
    check(a and a[0] == EOPNOTSUPP, "P1: PROBE without GR_F_PROBE: "
          "EOPNOTSUPP", repr(a))
    check(control(features=F_ANYEVENT | F_PROBE), "GR_F_PROBE in use", "")
    # P2: the head, checked by the guest
    for what, text, want, line in (
            ("no NAME", "p do_sys_openat2", EINVAL,
             "E error: a probe of the host needs a NAME at column 1\n"),
            ("another group", "p:kprobes/gr_x do_sys_openat2", EINVAL,
             "E error: the group is not guestrelay at column 2\n"),
            ("a name of the table", "p:sched_switch do_sys_openat2",
             EINVAL, "E error: NAME is another event's at column 0\n"),
            ("not an identifier", "p:Gr do_sys_openat2", EINVAL,
             "E error: NAME is not an identifier at column 2\n"),
            ("MAXACTIVE on p", "p4:gr_x do_sys_openat2", EINVAL,
             "E error: MAXACTIVE is for r probes at column 1\n"),
            ("someone else's event", "p:gr_taken vfs_write", EEXIST,
             "E error: an event of this NAME exists at column 0\n")):
        a = request(PROBE, text)
        check(a and a[0] == want and a[2] == line,
              "P2: %s: %d, E line" % (what, want), repr(a))
    # P3: the kernel's reasons, columns of the definition
    for what, text, want in (
            ("a bad register", "p:gr_bad  do_sys_openat2 "
             "path=+0(%zz):ustring", EINVAL),
            ("an unknown symbol", "p:gr_bad no_such_symbol_zz", ENOENT),
            ("$retval on p", "p:gr_bad do_sys_openat2 r=$retval", EINVAL)):
        a = request(PROBE, text)
        print("# %s -> %r" % (text, a and a[:3:2]))
        check(a and a[0] == want and
              re.match(r"E error: [ -~]+ at column \d+\n$", a[2]) and
              a[1]["live"] == u32(STATUS + 208),
              "P3: %s: %d, the kernel's reason" % (what, want), repr(a))
    live = u32(STATUS + 208)
    a = request(PROBE, "p:gr_open do_sys_openat2 path=+0(%si):ustring")
    mm = a and re.match(r"A guestrelay:gr_open (\d+)\n$", a[2])
    check(a and a[0] == 0 and mm and a[1]["matched"] == 1 and
          a[1]["added"] == 1 and a[1]["live"] == live + 1,
          "P4: a p probe with a user string: A", repr(a))
    if not mm:
        return
    n1 = int(mm.group(1))
    check(desc_name(n1) == ("guestrelay:gr_open", n1),
          "its descriptor in slot %d" % n1, repr(desc_name(n1)))
    a = request(LIST, "guestrelay:*")
    print("# " + (a[2].strip() if a else ""))
    check(a and a[0] == 0 and
          a[2].startswith("guestrelay:gr_open p unsigned long "
                          "__probe_ip@8+8u;__data_loc char[] path@16+4"),
          "P8: LIST shows it, state p, its fields", repr(a))
    a = request(PROBE, "r:gr_ret do_sys_openat2 ret=$retval")
    mm = a and re.match(r"A guestrelay:gr_ret (\d+)\n$", a[2])
    check(a and a[0] == 0 and mm, "P4: an r probe with $retval: A", repr(a))
    n2 = int(mm.group(1)) if mm else n1
    a = request(PROBE, "p:gr_open do_sys_openat2 path=+0(%si):ustring")
    check(a and a[0] == EEXIST, "a live probe's name again: EEXIST",
          repr(a))
    check(control(enable=[first, n1, n2]) and enabled(n1) and enabled(n2),
          "the probes enabled (status.enabled)", "")
    time.sleep(3)
    flush()
    p1, p2 = payloads(n1), payloads(n2)
    check(any(MARKER + b"\0" in x[12:] for x in p1),
          "%d records of gr_open, the path the guest opens in them"
          % len(p1), repr(p1[:3]))
    check(p2 and all(len(x) == 24 for x in p2),
          "%d records of gr_ret, 24 bytes of payload" % len(p2),
          repr(p2[:3]))
    # P6
    a = request(UNPROBE, "guestrelay:gr_open")
    check(a and a[0] == 0 and a[2] == "D guestrelay:gr_open %d\n" % n1 and
          a[1]["matched"] == 1, "P6: UNPROBE: D", repr(a))
    flush()
    c1, r1 = len(payloads(n1)), len(payloads(n2))
    time.sleep(3)
    flush()
    c2, r2 = len(payloads(n1)), len(payloads(n2))
    check(c2 <= c1 and r2 > r1,
          "P6: no record of the deleted probe, enabled still (%d, %d; "
          "gr_ret %d, %d)" % (c1, c2, r1, r2), "")
    a = request(UNPROBE, "gr_open")
    check(a and a[0] == ENOENT, "UNPROBE of no live probe: ENOENT", repr(a))
    # P5: the old id back, recorded again (its enable bit is still set)
    a = request(PROBE, "p:gr_open do_sys_openat2 path=+0(%si):ustring")
    check(a and a[0] == 0 and a[2] == "K guestrelay:gr_open %d\n" % n1,
          "P5: the same probe again: K, its old id", repr(a))
    time.sleep(3)
    flush()
    c3 = len(payloads(n1))
    check(c3 > c2, "P5: recorded again (%d > %d)" % (c3, c2), "")
    a = request(UNPROBE, "gr_open")
    check(a and a[0] == 0 and a[1]["matched"] == 1, "UNPROBE again",
          repr(a))
    a = request(PROBE, "p:gr_open do_sys_openat2 fd=%di:s32")
    check(a and a[0] == 0 and a[2] == "R guestrelay:gr_open %d\n" % EEXIST
          and a[1]["refused"] == 1,
          "P5: another probe of that name: R EEXIST", repr(a))
    a = request(UNPROBE, "gr_open")
    check(a and a[0] == ENOENT, "P5: the refused probe was deleted",
          repr(a))
    a = request(PROBE, "p:gr_done vfs_fsync")
    check(a and a[0] == 0 and a[2].startswith("A guestrelay:gr_done "),
          "one more probe: A", repr(a))


def admin_kprobe_checks():
    """A kprobe event of the guest's administrator (kprobes:gr_admin):
    listed as addable and added, laid out from its format (18.4 P4)."""
    a = request(LIST, "kprobes:gr_admin")
    check(a and a[0] == 0 and a[2].startswith("kprobes:gr_admin y "),
          "LIST: the administrator's kprobe event can be added (y)", repr(a))
    a = request(ADD, "kprobes:gr_admin")
    check(a and a[0] == 0 and re.match(r"A kprobes:gr_admin \d+\n$", a[2]),
          "ADD: the administrator's kprobe event added from its format",
          repr(a))


if check(wait(lambda: console_has("GR: OTHERS set"), 120),
         "the guest made kprobe events of its own", ""):
    admin_kprobe_checks()
    probe_checks()
    check(wait(lambda: console_has("GR: KPROBES after guestrelay/gr_done "
                                   "guestrelay/gr_ret guestrelay/gr_taken ."),
               120), "the guest's kprobe_events: the live probes only", "")

# tracefs unmounted in the guest: the module mounts it itself
if check(wait(lambda: console_has("GR: TRACEFS off"), 120),
         "the guest unmounted tracefs", ""):
    a = request(ADD, "irq:softirq_raise")
    check(a and a[0] == 0 and re.match(r"A irq:softirq_raise \d+\n$", a[2]),
          "ADD without tracefs mounted", repr(a))
# a new publication starts from the table (N6)
inst = u64(32)
if check(wait(lambda: console_has("GR: REBOUND"), 120) and
         wait(lambda: u64(0) == REGION_MAGIC and u64(32) != inst, 30),
         "the guest published again", ""):
    check(u32(STATUS + 208) == dcnt and u32(64) == dcnt and
          not any(m[doff + dcnt * dstr:doff + dcap * dstr]),
          "N6: desc_live = desc_count again, the other slots zero",
          "desc_live %d" % u32(STATUS + 208))
    # the block still enables a dropped id: refused until the host asks
    # again without it (M6)
    check(control(enable=[]), "the block without the dropped id applied",
          "")
    a = request(ADD, "timer:timer_start")
    check(a and a[0] == 0 and a[2] == "A timer:timer_start %d\n" % dcnt and
          desc_name(dcnt) == ("timer:timer_start", dcnt),
          "ADD after the new publication: the first id again", repr(a))
    check(console_has("GR: KPROBES rebound guestrelay/gr_taken ."),
          "P7: the probes deleted before the new publication", "")
    a = request(PROBE, "r:gr_ret do_sys_openat2 ret=$retval")
    check(a and a[0] == 0 and
          a[2] == "A guestrelay:gr_ret %d\n" % (dcnt + 1),
          "PROBE after the new publication: the next id", repr(a))
if check(wait(lambda: console_has("GR: HOSTPROBE off"), 120),
         "the guest set hostprobe=0", ""):
    for op, text in ((PROBE, "p:gr_y vfs_fsync"), (UNPROBE, "")):
        a = request(op, text)
        check(a and a[0] == EPERM and a[1]["len"] == 0,
              "hostprobe=0: op %d EPERM" % op, repr(a))
if check(wait(lambda: console_has("GR: BYNAME off"), 120),
         "the guest set byname=0", ""):
    a = request(LIST, "")
    check(a and a[0] == EPERM and a[1]["len"] == 0,
          "byname=0: EPERM", repr(a))
