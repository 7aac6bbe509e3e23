#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_wide_agent.sh - more than 256 event ids (spec 19, v1.13,
# GR_F_WIDE_EVENTS), the agent's side against the fake guest: a plain VM
# of 4 MiB whose fake guest (--anyevent --wide --catalogue 400) lays out
# the wide area (910 descriptor slots). Checks:
#   - the header has the bit, wide_capacity 910, desc_capacity at most
#     256 (X1; a 1.12 host would accept it)
#   - `enable VM '*'` adds every event of the catalogue (more than 256
#     ids) and none is refused for want of a slot
#   - the agent writes the enable bits of ids above 255 into the wide
#     area, the first 256 into ctrl.enable too (X3); the guest's enabled
#     bits in the wide area name them, status.desc_live stops at
#     desc_capacity while the wide area's counts all (W2)
#   - `status` lists the events the guest records, from the wide area
#   - the trace holds records of ids above 255: babeltrace2 reads it and
#     counts what report --summary counts
#   - a region of 1 MiB gets no wide area (1.12 layout): the bit is not
#     published and the slots past desc_capacity are refused (ENOSPC)
# Every process runs under a time limit and is stopped at exit.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
la_init test_wide_agent
out='' err='' rc=0 fg=''

command -v babeltrace2 >/dev/null || la_skip "babeltrace2 is needed"

# VM OPTIONS...: its fake guest (the job in $fg), attached
guest() {
	local vm=$1

	shift
	t_bg fg 60 "$la_tmp/fg-$vm.log" "$FG" --shm "guestrelay-$vm" --cpus 1 \
		--rate 20 --duration 40 --linger 1 --anyevent --wide "$@"
	la_wait_status "$vm" "s['state'] == 'attached'" 10 || bad "attached-$vm" "$out"
}

# region VM: the header's and both bitmaps' facts, one line of key=value
region() {
	"$PY" - "/dev/shm/guestrelay-$1" <<'EOF'
import struct, sys
r = open(sys.argv[1], "rb").read()
feat, = struct.unpack_from("<Q", r, 0x18)
dcap, wcap, woff = struct.unpack_from("<IIQ", r, 0x198)
st_live, = struct.unpack_from("<I", r, 0x200 + 0xd0)
st_en = struct.unpack_from("<4Q", r, 0x200 + 0x38)
ct_en = struct.unpack_from("<4Q", r, 0x1000 + 0x30)
bits = lambda ws: sum(bin(w).count("1") for w in ws)
out = {"wide": feat >> 19 & 1, "dcap": dcap, "wcap": wcap,
       "st_live": st_live, "st_enabled": bits(st_en),
       "ctrl_enable": bits(ct_en)}
if feat >> 19 & 1:
    w_en = struct.unpack_from("<16Q", r, woff)
    w_live, = struct.unpack_from("<I", r, woff + 0x800)
    w_on = struct.unpack_from("<16Q", r, woff + 0x808)
    out.update(w_live=w_live, w_enable=bits(w_en), w_high=bits(w_en[4:]),
               w_enabled=bits(w_on), w_low_same=int(w_en[:4] == ct_en))
print(" ".join("%s=%s" % kv for kv in out.items()))
EOF
}

la_agent_start || { bad agent-starts "see the log"; la_show_logs; la_finish; }

# ---- a 4 MiB region: the wide area ------------------------------------------
la_vm W wide
gr vm-add "$W" --plain --size 4M --events fake_seq || bad vm-add "exit $rc: $err"
guest "$W" --catalogue 400
r=$(region "$W")
note "published: $r"
grep -q 'wide=1 dcap=[0-9]* wcap=910 ' <<<"$r" &&
	[ "$(sed -n 's/.*dcap=\([0-9]*\).*/\1/p' <<<"$r")" -le 256 ] &&
	ok "the guest publishes GR_F_WIDE_EVENTS, 910 slots, desc_capacity <= 256" ||
	bad wide-published "$r"

gr enable "$W" '*'
note "enable: $(head -n 2 <<<"$out" | tr '\n' ' ')"
[ "$rc" -eq 0 ] && ! grep -q 'No space' <<<"$out$err" &&
	ok "enable '*' adds the whole catalogue, none refused for want of a slot" ||
	bad enable-all "exit $rc: $err" "$out"
la_wait_status "$W" "len(s['events']) > 300" 10
n=$(gr --json status "$W" && "$PY" -c '
import json, sys
d = json.loads(sys.argv[1]); v = d["vms"][0] if "vms" in d else d
print(len(v["events"]))' "$out")
[ "${n:-0}" -gt 300 ] &&
	ok "status lists the events the guest records: $n (the wide area's enabled bits)" ||
	bad status-events "${n:-?} events"
r=$(region "$W")
note "enabled: $r"
"$PY" - "$r" <<'EOF' &&
import sys
v = dict(kv.split("=") for kv in sys.argv[1].split())
v = {k: int(x) for k, x in v.items()}
assert v["w_high"] > 0, v		# ids above 255 in the wide area only
assert v["w_low_same"] == 1, v		# the first 256 in ctrl.enable too
assert v["w_enabled"] == v["w_enable"], v
assert v["st_enabled"] <= 256 and v["st_enabled"] == v["ctrl_enable"], v
assert v["w_live"] > 256 and v["st_live"] == v["dcap"], v
EOF
	ok "enable bits above 255 in the wide area, the first 256 in ctrl.enable; enabled and desc_live in both places" ||
	bad wide-bits "$r"
sleep 2
t_term_job "$fg"
la_wait_fg "$fg" 10 >/dev/null
la_wait_status "$W" "s['guest_state'] != 'tracing'" 10 >/dev/null
dir=$(la_sessions "$W" | tail -n 1)
# the catalogue's order: fsys:ev_ints, ev_comm, ev_msg and other:thing
# take ids 4..7, bulk:ev<k> id 8 + k, so ev248 and later are above 255
timeout 60 babeltrace2 "$dir" >"$la_tmp/bt.out" 2>/dev/null
total=$(grep -c '^\[' "$la_tmp/bt.out")
n=$(grep -o ' ev[0-9]*: ' "$la_tmp/bt.out" | tr -dc '0-9\n' |
	awk '$1 >= 248 { n++; if ($1 > m) m = $1 } END { print n + 0, m + 0 }')
sum=$("$GR" report --summary "$dir" 2>/dev/null |
	sed -n 's/^total: \([0-9]*\) events.*/\1/p')
note "records of bulk events ev248 and later (ids above 255), the last: $n"
[ "${n%% *}" -gt 0 ] && [ "$total" = "$sum" ] &&
	ok "the trace holds records of ids above 255 (${n%% *} of $total; report --summary agrees)" ||
	bad trace-high-ids "records above 255: $n, babeltrace2 $total, report '$sum'" \
		"$(grep -o ' [a-z_0-9]*: ' "$la_tmp/bt.out" | sort | uniq -c | sort -rn | head -n 5)"

# ---- a 1 MiB region: the 1.12 layout ----------------------------------------
la_vm N narrow
gr vm-add "$N" --plain --size 1M --events fake_seq || bad vm-add-1m "exit $rc: $err"
guest "$N" --catalogue 400
r=$(region "$N")
grep -q '^wide=0 ' <<<"$r" &&
	ok "a 1 MiB region gets no wide area (227 slots would not be more than 256)" ||
	bad narrow-published "$r"
gr enable "$N" '*'
grep -q 'No space' <<<"$out$err" &&
	ok "without it the slots end at desc_capacity: the rest is refused (ENOSPC)" ||
	bad narrow-enospc "exit $rc: $err" "$out"
t_term_job "$fg"
la_wait_fg "$fg" 10 >/dev/null

la_end
