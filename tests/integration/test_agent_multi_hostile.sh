#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_multi_hostile.sh - one agent, four VMs at once, two of them
# hostile: the agent keeps going, honest traces stay exact, hostile ones
# stay readable, and the damage is counted
#
# Two honest fake guests stream all along (H1 doorbell, H2 plain device,
# 2 CPUs at 2000 ticks/s each). Meanwhile four rounds of two hostile fake
# guests (--hostile KIND, each on its own VM added with `vm-add` and
# removed with `vm-remove` after its round) run the eight kinds of damage:
# magic, geometry, strings, counters, packets, race, flood, random.
#
# After each round: the agent process runs and answers `ping`; the honest
# VMs are still attached and storing. For each hostile VM: every trace it
# got (a session per valid publication) is read by babeltrace2 without
# error, holds no fake_seq twice and none the guest did not write, and the
# damage shows in `status --json` (sampled five times a second, since a
# new attach starts the counters again):
#   magic, geometry, strings  rejected publications (bad_region > 0)
#   counters                  invalid + skipped > 0
#   packets                   invalid = the packets the guest spoiled,
#                             stored + invalid = the guest's sub-buffers
#   race                      stored + invalid = the guest's sub-buffers
#   flood                     a doorbell storm (doorbells_in > 1000), and
#                             the trace is still exactly what was written
#   random                    invalid + skipped + bad_region > 0
# `vm-remove` removes the VM's /dev/shm file.
# At the end the honest traces are exact (as in test_agent_exact.sh), and
# every file the run produced is a trace file in its own VM's directory
# (STORE/<vm>/<session>/{metadata,.guestrelay,stream_N}), the sockets in
# the run directory, nothing in the processes' working directory.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_multi_hostile

la_vm H1 mhd
la_vm H2 mhp
SB=16384
GEOM="--subbuf-size $SB --subbufs 16"

# about 150 s on a loaded machine: the agent's own time limit (120 s by
# default) ended it before the last checks there
LA_AGENT_SECS=400
la_agent_start --events all $GEOM --vm "$H1" --vm "$H2" --plain ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts

# the honest guests write until SIGTERM (after the hostile rounds)
t_bg f1 300 "$la_tmp/fg-$H1.log" "$FG" --socket "$RUN/$H1.sock" \
	--cpus 2 --rate 2000 --stats "$la_tmp/$H1.stats"
t_bg f2 300 "$la_tmp/fg-$H2.log" "$FG" --shm "guestrelay-$H2" \
	--cpus 2 --rate 2000 --stats "$la_tmp/$H2.stats"
la_wait_status "$H1" "s['state'] == 'attached'" 5 || bad "$H1-attached" "$out"
la_wait_status "$H2" "s['state'] == 'attached'" 5 || bad "$H2-attached" "$out"

# py EXPR JSON: EXPR on the status object s
py() {
	"$PY" -c "import json,sys; s=json.loads(sys.argv[1]); print($1)" "$2"
}

# maxof KEY "K=V K=V ...": V of KEY
maxof() {
	awk -v k="$1" '{ for (i = 1; i <= NF; i++) { split($i, a, "=");
		if (a[1] == k) print a[2] } }' <<<"$2"
}

# positive N: N > 0 (N may exceed what bash integers hold)
positive() {
	awk -v n="$1" 'BEGIN { exit !(n + 0 > 0) }'
}

# hostile_start KIND: a new VM and its hostile fake guest (sets vm_KIND,
# fg_KIND, smp_KIND)
hostile_start() {
	local kind=$1 vm

	la_vm vm "hx$kind"
	printf -v "vm_$kind" '%s' "$vm"
	if ! gr vm-add "$vm" --events all $GEOM; then
		bad "vm-add-$kind" "exit $rc: $err"
		return 1
	fi
	t_bg "fg_$kind" 30 "$la_tmp/fg-$kind.log" "$FG" \
		--socket "$RUN/$vm.sock" --cpus 2 --rate 3000 --duration 2.5 \
		--linger 2 --hostile "$kind" --hostile-delay 300 \
		--hostile-period 100 --seed $$ --stats "$la_tmp/$kind.stats"
	la_sampler_start "smp_$kind" "$vm" "$la_tmp/$kind.samples"
}

# hostile_check KIND: its traces, its counters, vm-remove
hostile_check() {
	local kind=$1 vm fgp smp d n=0 unread=0 st max prod expr

	vm=$(eval echo "\$vm_$kind")
	fgp=$(eval echo "\$fg_$kind")
	smp=$(eval echo "\$smp_$kind")
	la_wait_fg "$fgp" 20
	rc=$?
	# a hostile guest may fail at its own end (its layout is ruined)
	[ $rc -eq 124 ] && bad "$kind-fakeguest-ends" "timed out"
	la_wait_status "$vm" "s['state'] == 'waiting'" 5
	t_term_job "$smp"
	la_wait_fg "$smp" 5
	la_status "$vm" && echo "$out" >>"$la_tmp/$kind.samples"
	st=$out
	for d in "$STORE/$vm"/*; do
		[ -d "$d" ] || continue
		n=$((n + 1))
		if ! la_bt "$d"; then
			unread=$((unread + 1))
			bad "$kind-trace-readable" "$d" "$bt_out"
		elif ! la_btcheck "$d" --stats "$la_tmp/$kind.stats" \
			--expect subset; then
			unread=$((unread + 1))
			bad "$kind-trace-no-foreign-event" "$d" "$bt_out"
		fi
	done
	[ "$unread" -eq 0 ] && ok "$kind-traces-readable ($n sessions)"

	max=$(la_sampled_max "$la_tmp/$kind.samples" bad_region invalid \
		skipped doorbells_in invalid+skipped \
		invalid+skipped+bad_region packets)
	prod=$(la_stat "$la_tmp/$kind.stats" total.produced)
	case $kind in
	magic|geometry|strings)
		expr="positive $(maxof bad_region "$max")"
		;;
	counters)
		expr="positive $(maxof invalid+skipped "$max")"
		;;
	random)
		expr="positive $(maxof invalid+skipped+bad_region "$max")"
		;;
	packets)
		spoiled=$(awk '$1 ~ /^ring\.[0-9]+\.corrupted$/ { n += $2 } END { print n + 0 }' \
			"$la_tmp/$kind.stats")
		expr="[ \"\$(py \"s['stats']['invalid']\" '$st')\" = $spoiled ] &&
		      [ \"\$(py \"s['stats']['packets'] + s['stats']['invalid']\" '$st')\" = '$prod' ] &&
		      [ $spoiled -gt 0 ]"
		max="$max; spoiled by the guest $spoiled, produced $prod"
		;;
	race)
		expr="[ \"\$(py \"s['stats']['packets'] + s['stats']['invalid']\" '$st')\" = '$prod' ]"
		max="$max; produced $prod"
		;;
	flood)
		expr="[ \"\$(py \"s['stats']['doorbells_in']\" '$st')\" -gt 1000 ]"
		if la_btcheck $(la_sessions "$vm") --stats "$la_tmp/$kind.stats" \
			--expect written; then
			ok "flood-trace-exact"
		else
			bad "flood-trace-exact" "bt_check" "$bt_out"
		fi
		;;
	esac
	if eval "$expr"; then
		ok "$kind-damage-counted ($max)"
	else
		bad "$kind-damage-counted" "$max" "final status: $st"
	fi
	# counters stay true (issue 14 finding 7): what the agent counts
	# itself never goes down within a session (a wrap would), a
	# guest-driven count saturates, the rate is what the agent stored
	if "$PY" - "$la_tmp/$kind.samples" <<'PYEOF'
import json, sys
bad, last = [], {}
host = ("packets", "bytes", "invalid", "invalid_records", "skipped",
        "write_errors")
for line in open(sys.argv[1]).read().splitlines():
    try:
        d = json.loads(line)
    except ValueError:
        continue
    for vm in d.get("vms", [d]) if isinstance(d, dict) else []:
        st, sess = vm.get("stats", {}), vm.get("session")
        for k in host if sess else ():
            v = st.get(k)
            if v is None:
                continue
            p = last.get((sess, k))
            if p is not None and v < p:
                bad.append("%s went down: %d -> %d" % (k, p, v))
            last[(sess, k)] = v
        if vm.get("rate_bps", 0) > 1e10:
            bad.append("rate_bps=%g" % vm["rate_bps"])
print("; ".join(sorted(set(bad))[:5]))
sys.exit(1 if bad else 0)
PYEOF
	then
		ok "$kind-counters-stay-true"
	else
		bad "$kind-counters-stay-true" "a counter wrapped or a rate is absurd"
	fi
	if gr vm-remove "$vm" && [ ! -e "/dev/shm/guestrelay-$vm" ]; then
		ok "$kind-vm-removed"
	else
		bad "$kind-vm-removed" "exit $rc: $err; $(ls -l "/dev/shm/guestrelay-$vm" 2>&1)"
	fi
}

prev1=0
prev2=0
for pair in "magic geometry" "strings counters" "packets race" \
	    "flood random"; do
	for k in $pair; do
		hostile_start "$k"
	done
	for k in $pair; do
		hostile_check "$k"
	done
	if la_agent_alive; then
		ok "agent-alive-after-${pair// /-}"
	else
		bad "agent-alive-after-${pair// /-}" "no ping"
		la_show_logs
		la_finish
	fi
	p1=$(la_field "$H1" stats.packets)
	p2=$(la_field "$H2" stats.packets)
	check "honest-vms-go-on-after-${pair// /-} (packets $p1, $p2)" \
		"[ '${p1:-0}' -gt $prev1 ] && [ '${p2:-0}' -gt $prev2 ]" \
		"packets $prev1 -> $p1, $prev2 -> $p2"
	prev1=${p1:-0}
	prev2=${p2:-0}
done

# the honest traces are exact
t_term_job "$f1"
t_term_job "$f2"
for x in "$H1:$f1" "$H2:$f2"; do
	vm=${x%%:*}
	la_wait_fg "${x#*:}" 30
	rc=$?
	check "$vm-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
	la_wait_status "$vm" "s['state'] == 'waiting'" 10
	sess=$(la_sessions "$vm")
	if [ "$(grep -c . <<<"$sess")" -eq 1 ] && la_bt_clean $sess &&
	   la_btcheck $sess --stats "$la_tmp/$vm.stats" --expect exact; then
		ok "$vm-honest-trace-exact ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events)"
	else
		bad "$vm-honest-trace-exact" "sessions: $sess" "$bt_out"
	fi
	if la_pktcheck $sess --content-only --subbuf-size $SB; then
		ok "$vm-honest-packets-consecutive"
	else
		bad "$vm-honest-packets-consecutive" "packets_check" "$pkt_out"
	fi
	la_status "$vm"
	inv=$(py "s['stats']['invalid'] + s['stats']['skipped'] + s['stats']['bad_region']" "$out")
	check "$vm-honest-nothing-invalid" "[ '$inv' = 0 ]" "$out"
done

# every file where it belongs
stray=$(cd "$la_tmp" && find store run cwd -mindepth 1 \
	! -regex 'store/[A-Za-z0-9_.-]+' \
	! -regex 'store/[A-Za-z0-9_.-]+/\(snapshot-\)?[0-9]+T[0-9]+Z\(-[0-9]+\)?' \
	! -regex 'store/[A-Za-z0-9_.-]+/\(snapshot-\)?[0-9]+T[0-9]+Z\(-[0-9]+\)?/\(host/\)?\(metadata\|\.guestrelay\|stream_[0-9]+\|index\)' \
	! -regex 'store/[A-Za-z0-9_.-]+/\(snapshot-\)?[0-9]+T[0-9]+Z\(-[0-9]+\)?/\(host/\)?index/stream_[0-9]+\.idx' \
	! -regex 'store/[A-Za-z0-9_.-]+/[0-9]+T[0-9]+Z\(-[0-9]+\)?/host' \
	! -regex 'run/[A-Za-z0-9_.-]+\.sock' -print)
if [ -z "$stray" ]; then
	ok "no-file-outside-its-vm-directory"
else
	bad "no-file-outside-its-vm-directory" "unexpected:" "$stray"
fi
vms=$(ls "$STORE" | sort | tr '\n' ' ')
want=$(printf '%s\n' "${la_vms[@]}" | sort | tr '\n' ' ')
check "one-store-directory-per-vm" "[ '$vms' = '$want' ]" \
	"store: $vms; VMs: $want"

la_agent_alive && ok agent-alive || bad agent-alive "no ping"
[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
