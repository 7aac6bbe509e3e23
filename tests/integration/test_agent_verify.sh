#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_verify.sh - records a hostile guest damages never reach the
# store in verify mode (the default, spec H24), and would spoil the trace
# for babeltrace2 without it
#
# Two fake guests run `--hostile records` side by side (every second
# finished packet keeps a valid header, but its first record gets an
# unknown event id, a size that breaks the record chain, or a timestamp
# after the packet's end): VM V on a VM added with the defaults (verify
# on), VM Z added with `--verify off` (zero copy, headers checked only).
#
#   - status --json says verify true / false
#   - V: every damaged packet is dropped and counted as invalid_records
#     (= the packets the guest spoiled), the others are stored; the
#     trace reads in babeltrace2 without error, every event stored once
#   - Z: the damaged packets are stored (invalid_records 0) and
#     babeltrace2 fails on the trace: what verify mode exists to prevent
#   - Z: the content ends come from the last records the guest declares
#     (spec H31, v1.4): refused at most for the damaged packets; V walks
#     its records and judges none (last_record_refused 0)
#   - a record-level check cannot be had from a header: a packet that
#     passes gr_check_packet() still holds the damage (Z's store)
#   - VM S, `--verify stored` (zero copy, then the stored bytes checked):
#     the first damaged packet fails as stored and in a fresh copy (the
#     damage stays), so S's stream stops ("invalid"), cut back before it;
#     what S stored reads in babeltrace2
#   - VM L, `--verify off`, fake guest `--hostile lastrec`: every second
#     committed packet's rec.last_record is rewritten with a lie (before
#     the end, misaligned, at the end, past the sub-buffer, the first
#     record); the records are valid. The agent refuses the lies it reads
#     (last_record_refused, at most the lies told), walks those packets,
#     and the trace holds every event the guest wrote, once

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_verify

la_vm V ver
la_vm Z vez
la_vm S ves
la_vm L vel
GEOM="--events all --subbuf-size 16384 --subbufs 16"

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }
gr vm-add "$V" $GEOM || bad vm-add-verify "exit $rc: $err"
gr vm-add "$Z" $GEOM --verify off || bad vm-add-zero-copy "exit $rc: $err"
gr vm-add "$S" $GEOM --verify stored || bad vm-add-stored "exit $rc: $err"
gr vm-add "$L" $GEOM --verify off || bad vm-add-lastrec "exit $rc: $err"

[ "$(la_field "$V" verify)" = True ] && ok "verify is on by default" ||
	bad verify-default "status: $out"
[ "$(la_field "$Z" verify)" = False ] && ok "--verify off shows in status" ||
	bad verify-off "status: $out"
[ "$(la_field "$S" verify_mode)" = stored ] &&
	ok "--verify stored shows in status" || bad verify-stored "status: $out"

for vm in "$V" "$Z" "$S"; do
	t_bg "fg_$vm" 40 "$la_tmp/fg-$vm.log" "$FG" --socket "$RUN/$vm.sock" \
		--cpus 2 --rate 3000 --duration 2.5 --linger 2 \
		--hostile records --hostile-delay 300 --hostile-period 100 \
		--seed $$ --stats "$la_tmp/$vm.stats"
done
t_bg "fg_$L" 40 "$la_tmp/fg-$L.log" "$FG" --socket "$RUN/$L.sock" \
	--cpus 2 --rate 3000 --duration 2.5 --linger 2 \
	--hostile lastrec --hostile-delay 300 --seed $$ \
	--stats "$la_tmp/$L.stats"
for vm in "$V" "$Z" "$S" "$L"; do
	la_wait_fg "$(eval echo "\$fg_$vm")" 30
	[ $? -eq 124 ] && bad "$vm-fakeguest-ends" "timed out"
	la_wait_status "$vm" "s['state'] == 'waiting'" 10 ||
		bad "$vm-session-closed" "$out"
done

spoiled() {
	awk '$1 ~ /^ring\.[0-9]+\.corrupted$/ { n += $2 } END { print n + 0 }' \
		"$la_tmp/$1.stats"
}

# read_back VM LABEL EXPECT TEXT: babeltrace2 reads VM's trace, and
# bt_check finds in it the events of VM's fake guest as --expect EXPECT
# says (TEXT)
read_back() {
	local sess

	sess=$(la_sessions "$1")
	if la_bt $sess; then
		ok "$2: babeltrace2 reads the trace"
	else
		bad "$2-readable" "$bt_out"
	fi
	la_btcheck $sess --stats "$la_tmp/$1.stats" --expect "$3" &&
		ok "$2: $4" || bad "$2-$3" "$bt_out"
}

# verify on
sv=$(spoiled "$V")
inv=$(la_field "$V" stats.invalid_records)
pk=$(la_field "$V" stats.packets)
prod=$(la_stat "$la_tmp/$V.stats" total.produced)
if [ "$sv" -gt 0 ] && [ "$inv" = "$sv" ]; then
	ok "verify: the $sv damaged packets were dropped as invalid_records"
else
	bad verify-drops "guest spoiled $sv, agent counted invalid_records $inv"
fi
[ "$((pk + inv))" = "$prod" ] &&
	ok "verify: stored + dropped = produced ($pk + $inv = $prod)" ||
	bad verify-accounts "stored $pk + dropped $inv != produced $prod"
[ "$(la_field "$V" stats.last_record_refused)" = 0 ] &&
	ok "verify: the records are walked, no declared last record judged" ||
	bad verify-last-record "last_record_refused $(la_field "$V" stats.last_record_refused)"
read_back "$V" verify subset "no event twice, none the guest did not write"

# verify off: the same damage goes to disk
inv=$(la_field "$Z" stats.invalid_records)
[ "$inv" = 0 ] && [ "$(spoiled "$Z")" -gt 0 ] &&
	ok "zero copy: damaged packets were stored (headers are valid)" ||
	bad zero-copy-stores "invalid_records $inv, spoiled $(spoiled "$Z")"
# spec H31: the fake guest declares each packet's last record (v1.4);
# only a damaged first record that is also the last makes it refused
ref=$(la_field "$Z" stats.last_record_refused)
[ "$ref" -le "$(spoiled "$Z")" ] 2>/dev/null &&
	ok "zero copy: declared last records used, $ref refused (<= damaged)" ||
	bad zero-copy-last-record "last_record_refused '$ref', spoiled $(spoiled "$Z")"
if la_bt $(la_sessions "$Z"); then
	bad zero-copy-unreadable "babeltrace2 read a trace holding damaged records"
else
	ok "zero copy: babeltrace2 fails on the stored damage, as expected"
fi

# verify stored: the damage is caught as stored and never stays
inv=$(la_field "$S" stats.invalid_records)
why=$(la_field "$S" stop_reason)
if [ "$inv" -ge 1 ] 2>/dev/null && [ "$why" = invalid ]; then
	ok "stored: a damaged packet failed its check, the stream stopped ($inv)"
else
	bad stored-stops "invalid_records $inv, stop_reason $why"
fi
rw=$(la_field "$S" stats.rewritten)
# the fake guest spoils before it commits: the fresh copy fails too
[ "$rw" = 0 ] && ok "stored: status counts rewritten packets (0: none changed under the write)" ||
	bad stored-rewritten "stats.rewritten '$rw'"
if la_bt $(la_sessions "$S"); then
	ok "stored: babeltrace2 reads what was stored"
else
	bad stored-readable "$bt_out"
fi

# a false declared last record: refused, walked, nothing lost
lied=$(awk '$1 ~ /^ring\.[0-9]+\.lied$/ { n += $2 } END { print n + 0 }' \
	"$la_tmp/$L.stats")
ref=$(la_field "$L" stats.last_record_refused)
if [ "$lied" -gt 0 ] && [ "$ref" -gt 0 ] 2>/dev/null &&
   [ "$ref" -le "$lied" ]; then
	ok "lastrec: $ref of $lied false last records read and refused"
else
	bad lastrec-refused "lied $lied, last_record_refused '$ref'"
fi
[ "$(la_field "$L" stats.invalid_records)" = 0 ] &&
	ok "lastrec: no packet dropped (its records are valid)" ||
	bad lastrec-invalid "invalid_records $(la_field "$L" stats.invalid_records)"
read_back "$L" lastrec written "the trace holds every event the guest wrote, once"

la_agent_alive && ok "the agent is still running" ||
	bad agent-alive "the agent died"
la_agent_stop || bad agent-exit "exit status $?"
la_finish
