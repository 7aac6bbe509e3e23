#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_probe.sh - probes from the host (spec 18.4, GR_F_PROBE): the agent
# defines kprobe events in a fake guest (--anyevent --probes: symbols
# do_sys_openat2, vfs_read, vfs_write) and records them by name
#
#   - `probe VM 'p:...'` and `probe VM 'r:...'`: defined, adopted, enabled;
#     their records are in the trace with their fields (babeltrace2)
#   - `probe VM` lists them (text and --json); status counts them
#   - a refusal says the errno and the kernel's reason (the E line)
#   - `probe VM -:NAME` deletes; the listing and the catalogue (P8) no
#     longer show it; the same name with the same layout takes its id back
#     (P5), another layout is refused (EEXIST)
#   - at most 16 probes (ENOSPC); --delete-all
#   - a new guest (re-publication): the agent defines its probes again;
#     vm-add --probe: defined at attach
#   - vm-remove and the agent's stop delete the probes in the guest (Q3);
#     a new agent's first attach deletes what a killed one left
#   - hostprobe off (EPERM), a guest without GR_F_PROBE, hostile answers

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_probe

OPEN_DEF='p:myopen do_sys_openat2 dfd=%di path=+0(%si):ustring'
READ_DEF='r:myread vfs_read ret=$retval:s64'

# fake guest on VM $1 with options $2...; job id into fgjob_$1; its
# statistics at exit in $la_tmp/fg-$1.stats
fg_start() {
	local vm=$1 job

	shift
	t_bg job 150 "$la_tmp/fg-$vm.log" "$FG" --shm "guestrelay-$vm" \
		--cpus 1 --rate 50 --duration 120 --linger 1 \
		--stats "$la_tmp/fg-$vm.stats" "$@"
	printf -v "fgjob_$vm" '%s' "$job"
	la_wait_status "$vm" "s['state'] == 'attached'" 10 ||
		bad "attached-$vm" "$out"
	sleep 0.3	# the first attach's UNPROBE of every probe (Q3)
}

fg_stop() {
	local v="fgjob_$1"

	t_term_job "${!v}"
	la_wait_fg "${!v}" 10 >/dev/null
}

# fg_stat VM KEY: a value of the fake guest's statistics at its exit
fg_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$la_tmp/fg-$1.stats" 2>/dev/null
}

# probe ARGS...: `guestrelay probe`; while the agent's own request is under
# way (the first attach's UNPROBE), the CLI asks again itself
probe() {
	gr probe "$@"
}

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }

# ---- define, record, list ---------------------------------------------------
la_vm V pr
gr vm-add "$V" --plain --size 1M --events fake_seq || bad vm-add "exit $rc: $err"
fg_start "$V" --anyevent --probes

probe "$V" "$OPEN_DEF"
open_id=$(sed -n 's/^guestrelay:myopen: probe defined, event id \([0-9]*\), recording$/\1/p' <<<"$out")
[ "$rc" -eq 0 ] && [ -n "$open_id" ] &&
	ok "probe VM 'p:myopen do_sys_openat2 ...': defined, event id $open_id, recording" ||
	bad probe-p "exit $rc: $err" "$out"
probe "$V" "$READ_DEF"
[ "$rc" -eq 0 ] && grep -q '^guestrelay:myread: probe defined, event id [0-9]*, recording$' <<<"$out" &&
	ok "probe VM 'r:myread vfs_read ret=\$retval:s64': a return probe" ||
	bad probe-r "exit $rc: $err" "$out"

gr probe "$V"
[ "$rc" -eq 0 ] && grep -q '^EVENT  *ID  *STATE  *DEFINITION$' <<<"$out" &&
	grep -q "^guestrelay:myopen  *$open_id  *recording  *p:myopen do_sys_openat2 dfd=%di path=+0(%si):ustring$" <<<"$out" &&
	grep -q '^guestrelay:myread  *[0-9]*  *recording  *r:myread vfs_read' <<<"$out" &&
	ok "probe VM lists the probes the agent defined" ||
	bad probe-list "exit $rc: $err" "$out"
gr --json probe "$V"
[ "$rc" -eq 0 ] && "$PY" - "$out" "$open_id" <<'EOF' &&
import json, sys
d = json.loads(sys.argv[1])
p = {x["event"]: x for x in d["probes"]}
assert set(p) == {"guestrelay:myopen", "guestrelay:myread"}, p
assert p["guestrelay:myopen"]["id"] == int(sys.argv[2]), p
assert p["guestrelay:myread"]["state"] == "recording", p
assert p["guestrelay:myread"]["definition"].startswith("r:myread "), p
EOF
	ok "probe --json VM: event, id, state, definition" ||
	bad probe-json "exit $rc: $err" "$out"
la_wait_status "$V" "s['stats']['probes_live'] == 2" 5 &&
	ok "status counts 2 live probes" || bad status-probes "$out"
gr events "$V" 'guestrelay:*'
[ "$rc" -eq 0 ] && grep -q '^guestrelay:myopen  *by name  *unsigned long __probe_ip; u64 dfd; __data_loc char\[\] path$' <<<"$out" &&
	ok "the guest's catalogue shows the probe with the kernel's layout (P8)" ||
	bad catalogue "exit $rc: $err" "$out"

sleep 1
gr flush "$V" || bad flush "exit $rc: $err"
text=$(timeout -k 5 60 babeltrace2 "$(la_sessions "$V" | tail -n 1)" 2>&1)
# __probe_ip: the fake guest's 0xffffffff81234560
n_open=$(grep -c ' myopen: .*{ __probe_ip = 18446744071581156704, dfd = [0-9]*, path = "/tmp/fake-0-[0-9]*" }' <<<"$text")
n_read=$(grep -c ' myread: .*{ __probe_func = [0-9]*, __probe_ret_ip = [0-9]*, ret = -\?[0-9]* }' <<<"$text")
[ "$n_open" -gt 0 ] && [ "$n_read" -gt 0 ] &&
	ok "the probes' records are in the trace with their fields ($n_open myopen, $n_read myread)" ||
	bad trace-has-probes "$(grep -m 2 ' my\(open\|read\): ' <<<"$text")" "$(tail -n 3 <<<"$text")"

# ---- refusals ---------------------------------------------------------------
probe "$V" 'p:nosym do_sys_openat3 dfd=%di'
[ "$rc" -ne 0 ] && grep -q 'guestrelay:nosym: the guest refused: ENOENT (No such file or directory): "error: Failed to find symbol at column 8"' <<<"$err" &&
	ok "an unknown symbol: ENOENT with the kernel's reason" ||
	bad refused-enoent "exit $rc: $out" "$err"
probe "$V" 'p:badret vfs_read x=$retval'
[ "$rc" -ne 0 ] && grep -q 'EINVAL .*\$retval is only available on return probe at column 18' <<<"$err" &&
	ok "\$retval in a p: probe: EINVAL with the kernel's reason" ||
	bad refused-einval "exit $rc: $out" "$err"
gr probe "$V" 'p:kprobes/x vfs_read'
[ "$rc" -eq 1 ] && grep -q 'group, if given, is guestrelay' <<<"$err" &&
	ok "another group is refused by the agent before asking" ||
	bad refused-group "exit $rc: $out" "$err"
gr probe "$V" 'p:myopen vfs_write'
[ "$rc" -ne 0 ] && grep -q 'already has the probe guestrelay:myopen' <<<"$err" &&
	ok "a second probe of a name: EEXIST" || bad refused-eexist "exit $rc: $err"

# ---- delete, define again (P5) ------------------------------------------------
probe "$V" -:myopen
[ "$rc" -eq 0 ] && [ "$out" = "guestrelay:myopen: probe deleted (event id $open_id)" ] &&
	ok "probe VM -:myopen deletes it" || bad delete "exit $rc: $err" "$out"
gr probe "$V"
! grep -q myopen <<<"$out" && ok "the listing no longer shows it" ||
	bad delete-list "$out"
gr events "$V" 'guestrelay:*'
! grep -q myopen <<<"$out" && grep -q '^guestrelay:myread ' <<<"$out" &&
	ok "nor the guest's catalogue" || bad delete-catalogue "$out"
probe "$V" "$OPEN_DEF"
[ "$rc" -eq 0 ] && [ "$out" = "guestrelay:myopen: probe defined, event id $open_id, recording" ] &&
	ok "the same name and layout take the same id back ($open_id, P5)" ||
	bad redefine-same "exit $rc: $err" "$out"
probe "$V" -:myopen
probe "$V" 'p:myopen do_sys_openat2 dfd=%di'
[ "$rc" -ne 0 ] && grep -q 'guestrelay:myopen: the guest cannot record the probe (EEXIST' <<<"$err" &&
	ok "the same name with another layout: refused (EEXIST) and deleted" ||
	bad redefine-other "exit $rc: $out" "$err"

# ---- the limit, --delete-all --------------------------------------------------
for i in $(seq 15); do
	probe "$V" "p:q$i vfs_write+4 n=%dx:u32" >/dev/null
	[ "$rc" -eq 0 ] || { bad "limit-define-$i" "exit $rc: $err"; break; }
done
probe "$V" 'p:q16 vfs_write'
[ "$rc" -ne 0 ] && grep -q 'has 16 probes of the host\|ENOSPC' <<<"$err" &&
	ok "a 17th probe: ENOSPC ($(cut -c1-80 <<<"$err"))" ||
	bad limit "exit $rc: $out" "$err"
la_wait_status "$V" "s['stats']['probes_live'] == 16" 5 &&
	ok "status counts 16 live probes" || bad status-16 "$out"
probe "$V" --delete-all
[ "$rc" -eq 0 ] && [ "$(grep -c 'probe deleted' <<<"$out")" -eq 16 ] &&
	ok "--delete-all deletes the 16" || bad delete-all "exit $rc: $err" "$out"
gr probe "$V"
grep -q 'no probes of the host' <<<"$out" && ok "and none is listed" ||
	bad delete-all-list "$out"

# ---- a new guest: defined again (Q3, M6) ------------------------------------
probe "$V" "$OPEN_DEF"
fg_stop "$V"
fg_start "$V" --anyevent --probes
ok=
for _ in $(seq 30); do
	gr probe "$V"
	grep -q '^guestrelay:myopen  *[0-9]*  *recording' <<<"$out" && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] && ok "a new guest: the agent defined its probe again" ||
	bad republish "$out"

# ---- vm-remove deletes them (Q3) -------------------------------------------------
gr vm-remove "$V" || bad vm-remove "exit $rc: $err"
fg_stop "$V"
[ "$(fg_stat "$V" probes.live)" = 0 ] && [ "$(fg_stat "$V" probes.deleted)" -ge 1 ] &&
	ok "vm-remove deleted the probe in the guest" ||
	bad vm-remove-deletes "$(cat "$la_tmp/fg-$V.stats" 2>/dev/null | grep probes)"

# ---- vm-add --probe ------------------------------------------------------------
la_vm W vp
gr vm-add "$W" --plain --size 1M --probe "$OPEN_DEF" --probe "$READ_DEF" ||
	bad vm-add-probe "exit $rc: $err"
gr vm-add "${W}x" --plain --size 1M --probe 'p:9x vfs_read'
[ "$rc" -ne 0 ] && grep -q "identifier of at most 31" <<<"$err" &&
	ok "vm-add --probe: a bad head is refused" || bad vm-add-bad "exit $rc: $err"
fg_start "$W" --anyevent --probes
ok=
for _ in $(seq 30); do
	gr probe "$W"
	[ "$(grep -c '  *recording  ' <<<"$out")" -eq 2 ] && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] && ok "vm-add --probe: both probes defined at attach and recording" ||
	bad vm-add-probe-attach "$out"
fg_stop "$W"

# ---- hostprobe off, no GR_F_PROBE ---------------------------------------------
la_vm E ep
gr vm-add "$E" --plain --size 1M || bad vm-add-e "exit $rc: $err"
fg_start "$E" --anyevent --probes --no-hostprobe
probe "$E" 'p:x vfs_read'
[ "$rc" -ne 0 ] && grep -q 'EPERM.*hostprobe=0' <<<"$err" &&
	ok "hostprobe off: EPERM, said so" || bad eperm "exit $rc: $out" "$err"
fg_stop "$E"
fg_start "$E" --anyevent
gr probe "$E" 'p:x vfs_read'
[ "$rc" -ne 0 ] && grep -q 'takes no probes from the host (no GR_F_PROBE' <<<"$err" &&
	ok "a guest without GR_F_PROBE: a clear error" || bad no-probe "exit $rc: $err"
fg_stop "$E"

# ---- hostile answers ------------------------------------------------------------
hostile() {
	local kind=$1 def=$2 want=$3 vm

	la_vm vm "h${kind#probe-}"
	gr vm-add "$vm" --plain --size 1M || bad "vm-add-$kind" "exit $rc: $err"
	fg_start "$vm" --anyevent --probes --names-hostile "$kind"
	if [ "$kind" = probe-dline ]; then
		probe "$vm" 'p:x vfs_read'
		def=-:x
	fi
	probe "$vm" "$def"
	if [ "$rc" -ne 0 ] && grep -q -- "$want" <<<"$err" &&
	   ! grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$err" &&
	   [ "$(wc -c <<<"$err")" -lt 700 ]; then
		ok "--names-hostile $kind refused: $(cut -c1-90 <<<"$err")"
	else
		bad "hostile-$kind" "exit $rc, wanted '$want'" "$out" "$err"
	fi
	la_agent_alive && ok "the agent lives on after --names-hostile $kind" ||
		bad "alive-$kind" "no ping"
	fg_stop "$vm"
}

hostile probe-reason 'p:x nosuch' "its reason is not one line 'E reason' of printable ASCII"
hostile probe-long 'p:x nosuch' 'ENOENT (No such file or directory): "error: LLLL*\.\.\."'
hostile probe-system 'p:x vfs_read' 'does not say one A, K or R line of guestrelay:x'
hostile probe-dline '' "a line is not 'D|R guestrelay:NAME N' of a probe asked for"

# ---- the agent's stop, and a killed agent's leftovers (Q3) --------------------------
la_agent_stop || bad agent-stop-1 "exit $?"
la_vm K kp
la_agent_start --vm "$K" --plain || { bad agent-restarts "see the log"; la_show_logs; la_finish; }
fg_start "$K" --anyevent --probes
probe "$K" "$OPEN_DEF"
[ "$rc" -eq 0 ] || bad k-define "exit $rc: $err"
la_agent_kill9
la_agent_start --vm "$K" --plain || { bad agent-after-kill "see the log"; la_show_logs; la_finish; }
la_wait_status "$K" "s['state'] == 'attached'" 10 || bad k-attached "$out"
ok=
for _ in $(seq 30); do
	gr events "$K" 'guestrelay:*'
	grep -q 'no event of the guest matches' <<<"$out" && { ok=1; break; }
	sleep 0.2
done
[ -n "$ok" ] && ok "a new agent's first attach deleted the probe a killed agent left" ||
	bad first-attach "$out"
probe "$K" "$READ_DEF"
probe "$K" "$OPEN_DEF"
[ "$rc" -eq 0 ] || bad k-define-2 "exit $rc: $err"
t0=$(date +%s%N)
la_agent_stop
rc=$?
t1=$(date +%s%N)
check agent-exits-0-on-sigterm "[ $rc -eq 0 ]" "exit $rc"
fg_stop "$K"
[ "$(fg_stat "$K" probes.live)" = 0 ] && [ "$(fg_stat "$K" probes.unprobe_all)" -ge 2 ] &&
	ok "the agent's stop deleted its probes in the guest ($(( (t1 - t0) / 1000000 )) ms)" ||
	bad stop-deletes "$(grep probes "$la_tmp/fg-$K.stats" 2>/dev/null)"

[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
