#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_ftrace_fidelity.sh - guestrelay's sched_switch against ftrace's
#
# The guest (/gr/e2e-ftrace) records sched_switch with ftrace (tracefs,
# "mono" trace clock, 8 MiB per CPU) while guestrelay records with the
# agent's default events, runs the workload, stops ftrace, lets the 100 ms
# switch timer deliver, and prints ftrace's per-CPU view on the console.
#
# Per CPU, the host takes ftrace's sequence of (prev_tid, next_tid) and
# guestrelay's (read with python3 bt2, an independent decoder), anchors
# ftrace's first switch on the same pair nearest in time in guestrelay's
# trace, and requires the two sequences to agree exactly over ftrace's
# whole interval - provided guestrelay reports no loss (no discarded event
# or lost packet) and ftrace no overrun or dropped event; each of those is
# a check of its own. Only tids are compared: a task's last switch may
# show prev_state Z in one tracer and X in the other.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init bt2
start_agent
vm=$(vm_name f)

boot_guest "$vm" --run e2e-ftrace --append "gr.secs=2" \
	--vm-args "--switch-timer-ms 100"
guest_ran "$vm" e2e-ftrace
check_console "$vm"
log=$(console "$vm")
if grep -qa "GR: FTRACE unavailable\|GR: FTRACE no mono clock" "$log"; then
	skip_check "ftrace comparison" "$(grep -a 'GR: FTRACE' "$log" | head -n1)"
	finish
fi
if ! grep -qa "GR: FTRACE end" "$log"; then
	fail "the guest printed ftrace's view" "no 'GR: FTRACE end' on the console" \
		"$(tail -n 20 "$log")"
	finish
fi
ok "the guest printed ftrace's view"

dir=$(newest_trace "$vm")
check_trace "$dir" "the trace" || finish
check_no_loss "$dir" "guestrelay's trace"

# One "ok"/"FAIL" line per check, as lib.sh prints them
/usr/bin/python3 - "$(dirname "$0")" "$log" "$dir" >"$tmp/compare.out" 2>&1 <<'EOF'
import sys

sys.path.insert(0, sys.argv[1])
from ftrace_view import fail, find_run, ok, read_ftrace, read_switches

log, trace = sys.argv[2], sys.argv[3]
ftrace, fstats = read_ftrace(log)
ours, discarded = read_switches(trace)

if discarded:
    fail("babeltrace2 sees no discarded events or packets",
         "%d discarded-events/packets messages" % discarded)
else:
    ok("babeltrace2 sees no discarded events or packets")

if sorted(fstats) != sorted(ftrace) or not ftrace:
    fail("ftrace's view covers every CPU",
         "stats for CPUs %s, switches for CPUs %s"
         % (sorted(fstats), sorted(ftrace)))
    sys.exit(0)
ok("ftrace's view covers CPUs %s" % sorted(ftrace))

for cpu in sorted(ftrace):
    f, o = ftrace[cpu], ours[cpu]
    st = fstats[cpu]
    name = "CPU %d: ftrace lost nothing" % cpu
    if st["overrun"] or st["dropped"] or st["entries"] != len(f):
        fail(name, "overrun %d dropped %d, %d entries but %d switches "
             "printed" % (st["overrun"], st["dropped"], st["entries"],
                          len(f)))
        continue
    ok(name + " (%d switches)" % len(f))

    name = "CPU %d: guestrelay's trace covers ftrace's interval" % cpu
    if not o or o[0][0] > f[0][0] or o[-1][0] < f[-1][0]:
        fail(name, "ftrace %.6f..%.6f s, guestrelay %s"
             % (f[0][0] / 1e9, f[-1][0] / 1e9,
                "%.6f..%.6f s" % (o[0][0] / 1e9, o[-1][0] / 1e9)
                if o else "no switches"))
        continue
    ok(name)

    # a mismatch is reported for the nearest candidate
    pairs_f = [e[1:] for e in f]
    match, cands = find_run(o, f)
    name = "CPU %d: the same %d switches in the same order" % (cpu, len(f))
    if not cands:
        fail(name, "ftrace's first switch %d->%d at %.6f s is not in "
             "guestrelay's trace within 50 ms" % (f[0][1], f[0][2],
                                                 f[0][0] / 1e9))
        continue
    if match is None:
        i = cands[0]
        seg = [e[1:] for e in o[i:i + len(f)]]
        k = next(k for k in range(len(f))
                 if k >= len(seg) or seg[k] != pairs_f[k])
        fail(name, "first difference at switch %d of %d (%.6f s): ftrace "
             "%d->%d, guestrelay %s" % (
                 k, len(f), f[k][0] / 1e9, f[k][1], f[k][2],
                 "%d->%d" % seg[k] if k < len(seg) else "nothing"))
        continue
    dts = [o[match + k][0] - f[k][0] for k in range(len(f))]
    ok(name)
    print("# CPU %d: %d switches compared, %d of guestrelay's outside "
          "ftrace's interval; guestrelay - ftrace time: %.0f..%.0f us"
          % (cpu, len(f), len(o) - len(f), min(dts) / 1e3,
             max(dts) / 1e3))
EOF
take_checks "$tmp/compare.out" $? "the comparison"
finish
