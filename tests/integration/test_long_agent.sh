#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || bad": ok always succeeds
#
# test_long_agent.sh - descriptors with an extension (spec 20, v1.15,
# GR_F_LONG_DESC), the agent's side against the fake guest: a plain VM
# of 16 MiB whose fake guest (--anyevent --wide --long) lays out slots
# of GR_LONG_DESC_STRIDE bytes and has two events 576 bytes do not
# hold: long_systems_name_over_15:ev_name_longer_than_thirty_one_chars
# (a system of 25 characters, a name of 36, a field name of 30) and
# fsys:ev_many (24 fields). Checks:
#   - the header has bit 21 and desc_stride 1352 (L1)
#   - `enable` adds both (the agent accepts their extensions, K2) and
#     `events` lists them by their long names
#   - the slot holds the guest's stand-ins (a reader without the bit
#     sees a valid 576-byte descriptor) and the extension
#   - the trace: the metadata declares the long names and all 24
#     fields; babeltrace2 reads it and counts what report --summary
#     counts; report prints the long names and the fields past 16
#   - a region of 8 MiB keeps 576-byte slots without the bit, and the
#     two events are refused with the guest's reason
# Every process runs under a time limit and is stopped at exit.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
la_init test_long_agent
out='' err='' rc=0 fg=''

command -v babeltrace2 >/dev/null || la_skip "babeltrace2 is needed"

L_SYS=long_systems_name_over_15
L_NAME=ev_name_longer_than_thirty_one_chars
L_FIELD=a_field_name_over_twenty_three

# VM OPTIONS...: its fake guest (the job in $fg), attached
guest() {
	local vm=$1

	shift
	t_bg fg 60 "$la_tmp/fg-$vm.log" "$FG" --shm "guestrelay-$vm" --cpus 1 \
		--rate 50 --duration 40 --linger 1 --anyevent --wide --long "$@"
	la_wait_status "$vm" "s['state'] == 'attached'" 10 || bad "attached-$vm" "$out"
}

# region VM [XNAME]: the header's bit and stride, and the names of the
# slot whose extension names XNAME (else slot 0)
region() {
	"$PY" - "/dev/shm/guestrelay-$1" "${2:-}" <<'PYEOF'
import struct, sys
r = open(sys.argv[1], "rb").read()
feat, = struct.unpack_from("<Q", r, 0x18)
doff, dcount, stride = struct.unpack_from("<QII", r, 0x38)
cstr = lambda b: b.split(b"\0")[0].decode()
k = 0
if sys.argv[2] and stride >= 1352:
    k = next((i for i in range(1024)
              if cstr(r[doff + i * stride + 584:][:64]) == sys.argv[2]), 0)
s = doff + k * stride
out = {"long": feat >> 21 & 1, "stride": stride, "id": k,
       "name": cstr(r[s:s + 32]), "nr": struct.unpack_from("<H", r, s + 34)[0],
       "system": cstr(r[s + 40:s + 56])}
if stride >= 1352:
    x = s + 576
    out.update(xflags=struct.unpack_from("<H", r, x)[0],
               xnr=struct.unpack_from("<H", r, x + 2)[0],
               xname=cstr(r[x + 8:x + 72]), xsystem=cstr(r[x + 72:x + 104]))
print(" ".join("%s=%s" % kv for kv in out.items()))
PYEOF
}

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }

# ---- a 16 MiB region: slots with the extension --------------------------
la_vm L long
gr vm-add "$L" --plain --size 16M --events fake_seq || bad vm-add "exit $rc: $err"
guest "$L"
r=$(region "$L")
note "published: $r"
grep -q '^long=1 stride=1352 ' <<<"$r" &&
	ok "the guest publishes GR_F_LONG_DESC and desc_stride 1352 (L1)" ||
	bad long-published "$r"

gr enable "$L" "$L_SYS:$L_NAME" fsys:ev_many
note "enable: $(head -n 2 <<<"$out" | tr '\n' ' ')"
[ "$rc" -eq 0 ] && grep -q "$L_NAME" <<<"$out" && grep -q "ev_many" <<<"$out" &&
	! grep -qi "refused" <<<"$out" &&
	ok "enable adds both events that need the extension (K2)" ||
	bad enable-long "exit $rc: $err" "$out"
gr events "$L" "$L_SYS:*"
grep -q "^$L_SYS:$L_NAME .*by name" <<<"$out" &&
	ok "events lists the long system and name" ||
	bad events-long "exit $rc: $err" "$(head -n 3 <<<"$out")"
r=$(region "$L" ev_many)
note "fsys:ev_many's slot: $r"
grep -q "name=ev_many nr=16 " <<<"$r" &&
	grep -q "xflags=1 xnr=24 xname=ev_many " <<<"$r" &&
	ok "fsys:ev_many's slot: 16 fields in the descriptor, 24 in the extension (20.1)" ||
	bad slot-many "$r"
r=$(region "$L" "$L_NAME")
note "$L_NAME's slot: $r"
id=$(sed -n 's/.* id=\([0-9]*\) .*/\1/p' <<<"$r")
grep -q "name=ev_name_longer_than_thirty_[a-z]*_$id nr=4 system=long_systems_na " <<<"$r" &&
	grep -q "xsystem=$L_SYS\$" <<<"$r" &&
	ok "the long-named event's slot: stand-in name and system, the long ones in the extension" ||
	bad slot-long "$r"
sleep 2
t_term_job "$fg"
la_wait_fg "$fg" 10 >/dev/null
la_wait_status "$L" "s['guest_state'] != 'tracing'" 10 >/dev/null
dir=$(la_sessions "$L" | tail -n 1)
grep -q "\"$L_NAME\"" "$dir/metadata" && grep -q "_$L_FIELD;" "$dir/metadata" &&
	grep -q "_f23;" "$dir/metadata" &&
	ok "the metadata declares the long names and the fields past 16 (K3)" ||
	bad metadata-long "$(grep -n "$L_NAME\|ev_many" "$dir/metadata" | head -n 3)"
timeout 60 babeltrace2 "$dir" >"$la_tmp/bt.out" 2>"$la_tmp/bt.err"
total=$(grep -c '^\[' "$la_tmp/bt.out")
sum=$("$GR" report --summary "$dir" 2>/dev/null |
	sed -n 's/^total: \([0-9]*\) events.*/\1/p')
nmany=$(grep -c ' ev_many: ' "$la_tmp/bt.out")
nlong=$(grep -c " $L_NAME: " "$la_tmp/bt.out")
[ "$total" = "$sum" ] && [ "$nmany" -gt 0 ] && [ "$nlong" -gt 0 ] &&
	ok "babeltrace2 reads the trace: $nmany ev_many and $nlong long-named records of $total (report --summary agrees)" ||
	bad trace-long "babeltrace2 $total ($nmany, $nlong), report '$sum'" \
		"$(head -n 3 "$la_tmp/bt.err")"
"$GR" report "$dir" >"$la_tmp/report.out" 2>&1
grep -q "$L_NAME: .*$L_FIELD=" "$la_tmp/report.out" &&
	grep -q "ev_many: .* f23=" "$la_tmp/report.out" &&
	ok "report prints the long names and the fields past 16" ||
	bad report-long "$(grep -m 2 "ev_many\|$L_NAME" "$la_tmp/report.out")"

# ---- an 8 MiB region: 576-byte slots, without the bit -------------------
la_vm N narrow
gr vm-add "$N" --plain --size 8M --events fake_seq || bad vm-add-8m "exit $rc: $err"
guest "$N"
r=$(region "$N")
grep -q '^long=0 stride=576 ' <<<"$r" &&
	ok "an 8 MiB region keeps 576-byte slots without the bit (L1)" ||
	bad narrow-published "$r"
gr enable "$N" "$L_SYS:$L_NAME" fsys:ev_many
grep -qi "refused" <<<"$out$err" && ! grep -q "added" <<<"$(grep -i 'ev_many' <<<"$out")" &&
	ok "without it both are refused with the guest's reason" ||
	bad narrow-refused "exit $rc: $err" "$out"
note "enable without the bit: $(head -n 3 <<<"$out$err" | tr '\n' ' ')"
t_term_job "$fg"
la_wait_fg "$fg" 10 >/dev/null

la_end
