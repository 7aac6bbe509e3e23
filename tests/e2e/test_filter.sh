#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_filter.sh - event filters end to end (spec 14)
#
# The guest (/gr/e2e-filter) starts a task that sleeps in 2 ms steps and
# prints its pid X. The host sets `prev_tid == X || next_tid == X` on
# sched_switch through the CLI (after a misspelt field is refused with a
# caret under it), which the running guest must acknowledge (within 5 s)
# (it does in tens of ms); the guest waits until its module has the
# program in effect, then records sched_switch with ftrace under the same filter
# (events/sched/sched_switch/filter) over a workload and prints ftrace's
# per-CPU view. Per CPU, the switches guestrelay stored over ftrace's
# interval must be exactly ftrace's, and every switch guestrelay stored
# from then on must involve X; the guest's filtered count must be non-zero.
# Last, hostile programs written straight into the control block (a jump
# past the end, a load outside the payload) must be refused with their
# reason in the status block, counted, and leave a clean console.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
QEMU_TIMEOUT=${GR_QEMU_TIMEOUT:-150}
start_agent
vm=$(vm_name fl)

boot_guest "$vm" --run e2e-filter --append "gr.secs=2" \
	--vm-args "--switch-timer-ms 100"
log=$(console "$vm")
wait_guest_pid "$vm" FILTER "filter comparison" "no ftrace filter file in the guest"
x=$guest_pid
ok "the guest follows pid $x"

# A misspelt field is refused on the host, the token marked
out=$(gr filter "$vm" sched_switch "prev_tid == $x || next_pidd == $x" 2>&1)
rc=$?
want="guestrelay: no field 'next_pidd' in sched_switch; did you mean next_tid?"
caret=$(printf '%s\n' "$out" | sed -n 3p)
[ "$rc" -eq 1 ] && [ "$(printf '%s\n' "$out" | head -n1)" = "$want" ] &&
	[ "$caret" = "$(printf '%*s^~~~~~~~~' $((2 + ${#x} + 16)) '')" ] &&
	ok "a misspelt field is refused with a caret under it" ||
	fail "a misspelt field is refused with a caret under it" "exit $rc" "$out"

expr="prev_tid == $x || next_tid == $x"
t0=$(date +%s%N)
out=$(gr filter "$vm" sched_switch "$expr" 2>&1) &&
	ok "the filter is accepted" ||
	fail "the filter is accepted" "$out"
# in effect (the guest acknowledged the block) well within a second
wait_state "$vm" 'v["filters"][0]["state"]' "$t0"
# the bound is generous (5 s, the polling loop's): the guest acknowledges
# in tens of ms on a quiet host, but each poll here starts the CLI and a
# python, and on a host shared by other work one change took 1.4-2.3 s
[ "$state" = active ] &&
	ok "the filter is in effect on the running guest after $ms ms" ||
	fail "the filter is in effect on the running guest within 5 s" \
		"state '$state' after $ms ms"
if ! wait_console "$vm" "GR: FILTER installed|GR: FILTER not installed" 60 ||
   grep -qa "GR: FILTER not installed" "$log"; then
	fail "the guest has the filter in effect" "$(tail -n 15 "$log")" \
		"$(gr status "$vm" 2>&1)"
	finish
fi
ok "the guest has the filter in effect"
state=$(json_get "$vm" 'v["filters"][0]["state"]')
[ "$state" = active ] && ok "status shows the filter active" ||
	fail "status shows the filter active" "state '$state'" \
		"$(gr status "$vm" 2>&1)"

if ! wait_console "$vm" "GR: FTRACE end" 90; then
	fail "the guest printed ftrace's view" "$(tail -n 20 "$log")"
	finish
fi
ok "the guest printed ftrace's view"
sleep 1.5	# a tick publishes the filtered count
filtered=$(json_get "$vm" 'v["filters"][0]["filtered"]')
[ "${filtered:-0}" -gt 0 ] 2>/dev/null &&
	ok "the guest counts what it filtered out ($filtered events)" ||
	fail "the guest counts what it filtered out" "filtered '$filtered'"

# Hostile programs, written straight into the control block's filter area
/usr/bin/python3 - "/dev/shm/guestrelay-$vm" >"$tmp/hostile.out" 2>&1 <<'EOF'
import mmap
import struct
import sys
import time

f = open(sys.argv[1], "r+b")
m = mmap.mmap(f.fileno(), 0)
CTRL, STATUS, AREA = 0x1000, 0x200, 0x1200


def u(fmt, off):
    return struct.unpack_from("<" + fmt, m, off)[0]


def status():
    return {"ack": u("Q", STATUS + 0x08), "cerr": u("I", STATUS + 0x5c),
            "ferr": u("I", STATUS + 0x78), "slot": u("B", STATUS + 0x7c),
            "reason": u("B", STATUS + 0x7d), "insn": u("H", STATUS + 0x7e)}


def attempt(name, insns, reason):
    ev = (u("H", AREA) + 1) % u("I", 0x40)   # not the agent's event
    before = status()
    slot = AREA + 6 * 512
    m[slot:slot + 512] = bytes(512)
    for i, (code, width, jt, jf, off, arg, k) in enumerate(insns):
        struct.pack_into("<BBBBHHQ", m, slot + 16 + 16 * i,
                         code, width, jt, jf, off, arg, k)
    struct.pack_into("<HHH", m, slot, ev, len(insns), 0)
    seq = u("Q", CTRL + 0x18) + 1
    struct.pack_into("<Q", m, CTRL + 0x18, seq)
    end = time.time() + 20
    while status()["ack"] != seq and time.time() < end:
        time.sleep(0.05)
    s = status()
    want = {"ack": seq, "cerr": before["cerr"] + 1,
            "ferr": before["ferr"] + 1, "slot": 6, "reason": reason,
            "insn": 0}
    if s == want:
        print("ok - %s: refused, reason %d, counted" % (name, reason))
    else:
        print("FAIL - %s: status %s, want %s" % (name, s, want))


# GR_FI_JEQ whose true branch skips past the end (7: GR_FILTER_E_JUMP)
attempt("a jump past the end", [(0x10, 0, 200, 0, 0, 0, 0),
                                 (0x01, 0, 0, 0, 0, 0, 1)], 7)
# GR_FI_LD of 8 bytes at 0xfff0 (8: GR_FILTER_E_LOAD)
attempt("a load outside the payload", [(0x02, 8, 0, 0, 0xfff0, 0, 0),
                                        (0x01, 0, 0, 0, 0, 0, 1)], 8)
EOF
take_checks "$tmp/hostile.out" $? "the hostile writer"

guest_ran "$vm" e2e-filter
check_console "$vm"
grep -qa "GR: FILTER refused 2" "$log" &&
	ok "the guest logged both refusals" ||
	fail "the guest logged both refusals" \
		"$(grep -a 'GR: FILTER refused' "$log")"

dir=$(newest_trace "$vm")
check_trace "$dir" "the trace" || finish
check_no_loss "$dir" "guestrelay's trace"
grep -qF "filters = \"sched_switch: $expr\";" "$dir/metadata" &&
	ok "the trace's env says what it left out" ||
	fail "the trace's env says what it left out" \
		"$(grep -a 'filters' "$dir/metadata")"

/usr/bin/python3 - "$(dirname "$0")" "$log" "$dir" "$x" >"$tmp/compare.out" 2>&1 <<'EOF'
import sys

sys.path.insert(0, sys.argv[1])
from ftrace_view import fail, find_run, ok, read_ftrace, read_switches

log, trace, x = sys.argv[2], sys.argv[3], int(sys.argv[4])
ftrace, fstats = read_ftrace(log)
ours, _ = read_switches(trace)

if not ftrace:
    fail("ftrace recorded switches of pid %d" % x,
         "none; stats for CPUs %s" % sorted(fstats))
    sys.exit(0)
ok("ftrace recorded switches of pid %d on CPUs %s" % (x, sorted(ftrace)))
bad = [e for cpu in ftrace for e in ftrace[cpu] if x not in e[1:]]
if bad:
    fail("ftrace's filter kept only pid %d" % x, "e.g. %s" % (bad[0],))

for cpu in sorted(ftrace):
    f, o = ftrace[cpu], ours[cpu]
    st = fstats.get(cpu, {"overrun": 0, "dropped": 0, "entries": len(f)})
    if st["overrun"] or st["dropped"] or st["entries"] != len(f):
        fail("CPU %d: ftrace lost nothing" % cpu, str(st))
        continue
    match, cands = find_run(o, f)
    name = "CPU %d: guestrelay stored exactly ftrace's %d switches" % (
        cpu, len(f))
    if match is None:
        fail(name, "ftrace %s.., guestrelay near it %s" % (
            [e[1:] for e in f[:4]], [e[1:] for e in o[cands[0]:cands[0] + 4]]
            if cands else "nothing within 50 ms"))
        continue
    ok(name)
    # from ftrace's first switch on, guestrelay kept nothing else
    other = [e for e in o[match:] if x not in e[1:]]
    name = "CPU %d: every switch stored from then on involves pid %d" % (
        cpu, x)
    if other:
        fail(name, "%d others, e.g. %d->%d" % (len(other), other[0][1],
                                                  other[0][2]))
    else:
        ok(name + " (%d)" % len(o[match:]))
EOF
take_checks "$tmp/compare.out" $? "the comparison"
finish
