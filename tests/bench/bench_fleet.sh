#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_fleet.sh - 8 agents x 8 VMs shipping to one 3-node JetStream
# cluster on this machine: aggregate rate, losses, fairness (issue 9),
# against the same 64 VMs stored locally only, in the same run
#
#   tests/bench/bench_fleet.sh          (make bench runs it)
#   BENCH_QUICK=1 tests/bench/bench_fleet.sh
#
# A real 3-node `nats-server -js` cluster on loopback (tests/lib/nats.sh,
# stores on disk), AGENTS real agents, each with its own run directory,
# store (/dev/shm) and --host name, serving VMS fake guests each (doorbell
# device, 1 CPU, 64 KiB sub-buffers, a fixed rate: RATE ticks/s of a
# SIZE-byte fake_seq and a small event, for LOAD s; chosen well below what
# saturates this machine, so that both phases store the same bytes).
#
# Two phases, one after the other, with the same load:
#   local  the agents store only
#   ship   the agents --ship to the cluster, one stream for all of them,
#          created by the first agent with --ship-replicas 3; COLLECTORS
#          `guestrelay collect` share one durable consumer (tree on
#          /dev/shm)
# Each phase: GB stored, and rates = bytes (packets) stored / (guests
# start .. every guest exited, which waits until everything is consumed);
# for ship also shipped = the same / (guests start .. backlog 0 in every
# agent's status), and the drain time after the guests; CPU s/GB of the
# agents (utime + stime of all of them, /proc/PID/stat), of the cluster's
# nodes (over the phase) and of the collectors.
# Losses: events the guests lost (status: lost by cause), invalid
# sub-buffers; for ship, packets stored (the agents' stats) against
# packets collected (the collectors' counters), and every file of every
# store compared with cmp against the collected tree: differing, missing
# and extra files. Must all be 0.
# Fairness: the stream bytes of every VM, stored and collected, walked at
# WARMUP s after the guests start and at the end of the load: per VM the
# bytes stored in that window and the bytes collected in it relative to
# them: min, max, min/max, Jain's index; the largest backlog of a VM at
# the end of the window.
# Lag (ship): tests/bench/ship_lag.py polls the first VM of every agent
# every POLL_MS ms: from a packet stored to the same packet collected,
# p50 / p99 / max.
#
# The table goes to stdout and build/bench/fleet.md. Exit 0: table
# written; 1: a run failed (or lost data: the table says what); 77: cannot
# run here.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib_build.sh
. "$HERE/lib_build.sh"
bench_build_agent bench_fleet
. "$HERE/../integration/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init bench_fleet

QUICK=${BENCH_QUICK:-0}
AGENTS=${BENCH_FLEET_AGENTS:-8}
VMS=${BENCH_FLEET_VMS:-8}
NODES=3
COLLECTORS=${BENCH_FLEET_COLLECTORS:-2}
RATE=${BENCH_FLEET_RATE:-60}
SIZE=${BENCH_FLEET_SIZE:-4000}
LOAD=${BENCH_FLEET_LOAD:-$([ "$QUICK" = 1 ] && echo 15 || echo 60)}
WARMUP=${BENCH_FLEET_WARMUP:-$([ "$QUICK" = 1 ] && echo 3 || echo 5)}
POLL_MS=${BENCH_FLEET_POLL_MS:-5}
STREAM=FLEET
OUT=$BUILD/bench
mkdir -p "$OUT"
SHM=/dev/shm/grbench-fleet-$$
mkdir -p "$SHM"
t_defer "rm -rf '$SHM'"
RES=$la_tmp/res
mkdir -p "$RES"
T_AGENT_SECS=$((LOAD + 900))
hz=$(getconf CLK_TCK)

# every byte of the ship phase stays on the cluster: room for it
export NATS_JS_MAX_FILE=${NATS_JS_MAX_FILE:-16G}
nats_start_cluster "$la_tmp/nats" "$NODES" ||
	{ echo "bench_fleet: the nats cluster did not start" >&2; exit 1; }

# cpu PID...: utime + stime of the processes, seconds (0 for one gone)
cpu() {
	local p

	for p in "$@"; do
		awk -v hz="$hz" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' \
			"/proc/$p/stat" 2>/dev/null || echo 0
	done | awk '{ s += $1 } END { printf "%.2f\n", s }'
}

# statuses DIR: every agent's `status --json` (all its VMs) to
# DIR/status.A.json
statuses() {
	local a

	for ((a = 0; a < AGENTS; a++)); do
		timeout -k 5 20 "$GR" --run-dir "${arun[$a]}" --timeout 15 \
			status --json >"$1/status.$a.json" 2>/dev/null
	done
}

# sizes FILE: the stream bytes of every VM, stored and collected
sizes() {
	local a pairs=()

	for ((a = 0; a < AGENTS; a++)); do
		pairs+=("${astore[$a]}" "$COL/h$a")
	done
	"$PY" "$HERE/fleet_table.py" sizes "$1" "${pairs[@]}"
}

# fleet_diff: ls_tree_diff of every agent's store against its host's
# collected tree; counts in $diff_n (differs, missing, extra)
fleet_diff() {
	local a

	diff_out=
	for ((a = 0; a < AGENTS; a++)); do
		STORE=${astore[$a]} HOST=h$a
		diff_out+=$(ls_tree_diff)
	done
	diff_n="differs $(grep -c '^differs' <<<"$diff_out")
missing $(grep -c '^missing' <<<"$diff_out")
extra $(grep -c '^extra' <<<"$diff_out")"
	[ -z "$diff_out" ]
}

# phase MODE: one run of the fleet; its figures in $RES/MODE/
phase() {
	local mode=$1 d=$RES/$1 a v i n t0 t1 t2 args vmargs end got
	local nats0 fgs=() cols=() watch sess lagpairs=()

	mkdir -p "$d"
	COL=$SHM/col.$mode
	mkdir -p "$COL"
	args=(--events all --subbuf-size 65536 --subbufs 16)
	[ "$mode" = ship ] && args+=(--ship "$NATS_URLS" --ship-stream "$STREAM"
		--ship-replicas "$NODES")
	for ((a = 0; a < AGENTS; a++)); do
		RUN=$la_tmp/run.$mode.$a
		STORE=$SHM/store.$mode.$a
		mkdir -p "$RUN" "$STORE"
		vmargs=()
		for ((v = 0; v < VMS; v++)); do
			la_vm n "f${mode:0:1}${a}v$v-"
			vmargs+=(--vm "$n")
			avm[a * VMS + v]=$n
		done
		t_agent_start --host "h$a" "${args[@]}" "${vmargs[@]}" ||
			return 1
		arun[a]=$RUN astore[a]=$STORE apid[a]=$T_AGENT_PID
		ajob[a]=$T_AGENT_JOB
		# the first agent creates the stream; the others find it
		if [ "$mode" = ship ] && [ "$a" = 0 ]; then
			la_wait_status "${avm[0]}" "s['ship']['connected']" 60 ||
				{ echo "bench_fleet: no stream after 60 s" >&2; return 1; }
		fi
	done
	if [ "$mode" = ship ]; then
		for ((i = 1; i <= COLLECTORS; i++)); do
			ls_collect_start "c$i" --stream "$STREAM" --durable fleet
			n=c${i}_pid
			cols+=("${!n}")
		done
	fi
	nats0=$(cpu "${nats_pid[@]}")
	t0=$(date +%s.%N)
	for ((a = 0; a < AGENTS; a++)); do
		for ((v = 0; v < VMS; v++)); do
			i=$((a * VMS + v))
			n=${avm[$i]}
			t_bg "fgs[$i]" $((LOAD + 600)) "$la_tmp/fg.$n.log" \
				"$FG" --socket "${arun[$a]}/$n.sock" --cpus 1 \
				--size "$SIZE" --rate "$RATE" --duration "$LOAD" \
				--linger 120 --stats "$la_tmp/$n.stats" --quiet
		done
	done
	sleep "$WARMUP"
	sizes "$d/sizes.a"
	if [ "$mode" = ship ]; then
		for ((a = 0; a < AGENTS; a++)); do
			STORE=${astore[$a]}
			sess=$(la_sessions "${avm[a * VMS]}" | head -n1)
			[ -n "$sess" ] || continue
			lagpairs+=("$sess/stream_0"
				"$COL/h$a/${avm[a * VMS]}/$(basename "$sess")/stream_0")
		done
		t_bg watch $((LOAD + 300)) "$d/lag.txt" "$PY" \
			"$HERE/ship_lag.py" $((LOAD + 240)) "$POLL_MS" \
			"${lagpairs[@]}"
	fi
	end=$(echo "$t0 $LOAD" | awk '{ printf "%.3f\n", $1 + $2 - 0.5 }')
	while [ "$(echo "$(date +%s.%N) $end" | awk '{ print ($1 < $2) }')" = 1 ]; do
		sleep 0.1
	done
	sizes "$d/sizes.b"
	for i in "${!fgs[@]}"; do
		la_wait_fg "${fgs[$i]}" $((LOAD + 300)) ||
			{ echo "bench_fleet: fake guest ${avm[$i]} failed ($?)" >&2; return 1; }
	done
	t1=$(date +%s.%N)
	t2=$t1
	if [ "$mode" = ship ]; then
		# backlog 0 in two answers in a row (a pass's figures are up
		# to 200 ms old); t2 is the first of them
		n=0 t2=
		while [ "$n" -lt 1200 ]; do
			n=$((n + 1))
			if statuses "$d" &&
			   "$PY" "$HERE/fleet_table.py" drained "$d"/status.*.json; then
				[ -n "$t2" ] && break
				t2=$(date +%s.%N)
			else
				t2=
			fi
			sleep 0.5
		done
		[ -n "$t2" ] && [ "$n" -lt 1200 ] ||
			{ echo "bench_fleet: backlog not 0 after 600 s" >&2; return 1; }
	fi
	statuses "$d"
	{
		echo "mode $mode"
		echo "t0 $t0"
		echo "t1 $t1"
		echo "t2 $t2"
		echo "cpu_agents $(cpu "${apid[@]}")"
		echo "cpu_nats $(echo "$(cpu "${nats_pid[@]}") $nats0" | awk '{ print $1 - $2 }')"
	} >"$d/meta.tmp"
	for ((a = 0; a < AGENTS; a++)); do
		T_AGENT_PID=${apid[$a]} T_AGENT_JOB=${ajob[$a]}
		t_agent_stop
	done
	if [ "$mode" = ship ]; then
		# every packet stored is collected, then byte for byte
		n=$("$PY" -c 'import json, sys
print(sum(v["stats"]["packets"] for p in sys.argv[1:] for v in json.load(open(p))["vms"]))' \
			"$d"/status.*.json)
		# (or until the collectors' count stalls for 20 s: the diff
		# then says what is missing)
		got=-1 end=$(($(date +%s) + 20))
		while [ "$(ls_cstat packets)" -lt "$n" ] && [ "$(date +%s)" -lt "$end" ]; do
			[ "$(ls_cstat packets)" = "$got" ] ||
				{ got=$(ls_cstat packets); end=$(($(date +%s) + 20)); }
			sleep 0.5
		done
		end=$(($(date +%s) + 60))
		until fleet_diff || [ "$(date +%s)" -ge "$end" ]; do
			sleep 1
		done
		echo "$diff_n" >"$d/diff"
		echo "cpu_col $(cpu "${cols[@]}")" >>"$d/meta.tmp"
		[ -z "$diff_out" ] || echo "bench_fleet: collected trees differ: $(head -n 20 <<<"$diff_out")" >&2
		for ((i = 1; i <= COLLECTORS; i++)); do
			ls_collect_stop "c$i"
		done
		for n in packets bytes duplicates rejected; do
			echo "$n $(ls_cstat "$n")"
		done >"$d/collect"
		la_wait_fg "$watch" 300
	fi
	[ "$mode" = ship ] || echo "cpu_col 0" >>"$d/meta.tmp"
	mv "$d/meta.tmp" "$d/meta"
	rm -rf "$SHM"/store."$mode".* "$COL"
	for i in "${!avm[@]}"; do
		rm -f "/dev/shm/guestrelay-${avm[$i]}"
	done
	[ -z "$diff_out" ]
}

{
	echo "agents $AGENTS"
	echo "vms $VMS"
	echo "agents_vms $((AGENTS * VMS))"
	echo "nodes $NODES"
	echo "collectors $COLLECTORS"
	echo "rate $RATE"
	echo "size $SIZE"
	echo "load $LOAD"
	echo "warmup $WARMUP"
	echo "poll_ms $POLL_MS"
	# a tick: the fake_seq (16-byte header + SIZE) and a small event
	echo "offered $((AGENTS * VMS * RATE * (SIZE + 16 + 64)))"
} >"$RES/config"

rc=0
diff_out=
for mode in local ship; do
	phase "$mode" || {
		echo "bench_fleet: the $mode phase failed" >&2
		la_show_logs >&2
		rc=1
		[ -f "$RES/$mode/meta" ] || break
	}
done
"$PY" "$HERE/fleet_table.py" table "$RES" | tee "$OUT/fleet.md"
echo "# table in $OUT/fleet.md"
exit $rc
