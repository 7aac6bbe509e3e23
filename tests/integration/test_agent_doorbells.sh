#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_agent_doorbells.sh - under a sustained stream almost no doorbell
# rings (event-index suppression, as virtio's vring_need_event())
#
# A fake guest on the doorbell device (2 CPUs) streams into the agent
# (store on tmpfs) for 2 s in three runs: as fast as it can (--max) with
# the default geometry (64 KiB x 127 sub-buffers per CPU) and with many small
# sub-buffers (16 KiB x 64), and at a high steady rate (30000 ticks/s per
# CPU). For each run it prints, from `status --json` and the guest's own
# statistics:
#   guest -> host  doorbells_in per stored sub-buffer (the agent's count,
#                  data and status vectors), and the guest's GR_VEC_DATA
#                  doorbells per produced sub-buffer
#   host -> guest  doorbells_out per stored sub-buffer
# and asserts doorbells_in per sub-buffer < 0.2 and doorbells_out per
# sub-buffer < 1 (one doorbell per sub-buffer is what a ring without
# suppression costs), plus that each trace is whole packets with
# consecutive packet_seq_num, every sub-buffer the guest produced stored
# (the store never filled). Without suppression the guest would ring at
# every sub-buffer: 1.0.

set -u
. "$(dirname "$0")/lib_agent.sh"
la_init test_agent_doorbells

la_tmpfs_store 4096 >"$la_tmp/where"
echo "# store: $(cat "$la_tmp/where")"

table=$la_tmp/table
printf '%-30s %9s %9s %8s %8s %9s %9s\n' run packets MB/s "in/sb" \
	"out/sb" "data/sb" lost >"$table"

# py EXPR JSON: EXPR on the status object s
py() {
	"$PY" -c "import json,sys; s=json.loads(sys.argv[1]); print($1)" "$2"
}

# run NAME SUBBUF_SIZE SUBBUFS LOAD...: one VM, one fake guest for 2 s
run() {
	local name=$1 sbs=$2 nsb=$3 vm st pk in outd prod data lost

	shift 3
	la_vm vm "db$name"
	if ! gr vm-add "$vm" --events all --subbuf-size "$sbs" --subbufs "$nsb"; then
		bad "$name-vm-add" "exit $rc: $err"
		return
	fi
	t_bg f 30 "$la_tmp/fg-$name.log" "$FG" --socket "$RUN/$vm.sock" \
		--cpus 2 "$@" --duration 2 --linger 5 \
		--stats "$la_tmp/$name.stats"
	la_wait_fg "$f" 25
	rc=$?
	check "$name-fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
	la_wait_status "$vm" "s['state'] == 'waiting'" 10
	la_status "$vm"
	st=$out
	read -r pk in outd <<<"$("$PY" -c 'import json,sys; s=json.loads(sys.argv[1])["stats"]; print(s["packets"], s["doorbells_in"], s["doorbells_out"])' "$st")"
	prod=$(la_stat "$la_tmp/$name.stats" total.produced)
	data=$(la_stat "$la_tmp/$name.stats" doorbells.data_rung)
	lost=$(la_stat "$la_tmp/$name.stats" total.lost)
	el=$(la_stat "$la_tmp/$name.stats" elapsed_ns)
	awk -v n="$name" -v pk="$pk" -v in_="$in" -v o="$outd" -v pr="$prod" \
	    -v d="$data" -v l="$lost" -v sb="$sbs" -v el="$el" 'BEGIN {
		printf "%-30s %9d %9.0f %8.4f %8.4f %9.4f %9d\n", n, pk,
			pk * sb / 1e6 / (el / 1e9), in_ / (pk ? pk : 1),
			o / (pk ? pk : 1), d / (pr ? pr : 1), l }' >>"$table"
	check "$name-stored-everything (packets $pk, guest produced $prod)" \
		"[ '${pk:-0}' -gt 100 ] && [ '$pk' = '$prod' ] &&
		 [ \"\$(py \"s['stop_reason'] in ('quota', 'disk')\" '$st')\" = False ]" \
		"packets $pk, produced $prod, stop_reason $(py "s['stop_reason']" "$st")"
	check "$name-doorbells-in-per-subbuf-below-0.2 ($in / $pk)" \
		"awk -v a='$in' -v b='$pk' 'BEGIN { exit !(b > 0 && a / b < 0.2) }'" \
		"doorbells_in $in, packets $pk"
	check "$name-doorbells-out-per-subbuf-below-1 ($outd / $pk)" \
		"awk -v a='$outd' -v b='$pk' 'BEGIN { exit !(b > 0 && a / b < 1) }'" \
		"doorbells_out $outd, packets $pk"
	if la_pktcheck $(la_sessions "$vm") --content-only --subbuf-size "$sbs"; then
		ok "$name-packets-consecutive"
	else
		bad "$name-packets-consecutive" "packets_check" "$pkt_out"
	fi
	gr vm-remove "$vm"
	rm -rf "${STORE:?}/$vm"
}

la_agent_start ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
run max-64KiBx127 65536 127 --max
run max-16KiBx64 16384 64 --max
run rate30000-64KiBx127 65536 127 --rate 30000

echo "# doorbells per sub-buffer under a sustained stream (2 CPUs, 2 s;"
echo "# in/sb = guest->host doorbells_in per stored sub-buffer, out/sb ="
echo "# host->guest doorbells_out per stored sub-buffer, data/sb = the"
echo "# guest's GR_VEC_DATA doorbells per produced sub-buffer; lost ="
echo "# events the guest dropped, ring full; without suppression: 1.0)"
sed 's/^/# /' "$table"
la_agent_alive && ok agent-alive || bad agent-alive "no ping"
[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
