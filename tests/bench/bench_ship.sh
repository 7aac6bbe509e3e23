#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_ship.sh - what shipping to NATS JetStream costs the agent, against
# the agent storing locally only, in the same run (issue 9)
#
#   tests/bench/bench_ship.sh          (make bench runs it)
#   BENCH_QUICK=1 tests/bench/bench_ship.sh
#
# Real agent, real fake guests (doorbell device, 2 CPUs, 4000-byte
# fake_seq events, 64 KiB sub-buffers), the agent's store on /dev/shm, one
# real `nats-server -js` on loopback (its store on disk, under the
# temporary directory) and one `guestrelay collect` (its tree on /dev/shm).
#
# 1. cost: the same load, the guest writing as fast as it goes for SECS s
#    (--max --duration), REPS times each way, interleaved:
#      local   `agent` alone
#      ship    `agent --ship`, and a collector running
#    GB/s stored = bytes stored / (guest start .. guest exit, which waits
#    until everything is consumed); for ship also GB/s shipped = bytes /
#    (guest start .. backlog 0 in status); agent CPU s/GB = the agent's
#    utime + stime (/proc/PID/stat, all its threads: the loop, the
#    shipper, libnats') over the run up to backlog 0, per GB stored.
# 2. lag: a steady load (2 CPUs x RATE ticks/s for LAG_S s, switch timer
#    100 ms) with shipping and a collector; a watcher polls the sizes of
#    the stored and the collected stream files every millisecond: for
#    every packet, the time from its end reaching the store to its end
#    reaching the collected file. p50 / p99 / max.
#
# Each figure of 1 is the median of REPS runs [min-max]. The table goes to
# stdout and build/bench/ship.md. Exit 0: table written; 1: a run failed;
# 77: cannot run here.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/bench/lib_build.sh
. "$HERE/lib_build.sh"
bench_build_agent bench_ship
. "$TOP/tests/integration/lib_agent.sh"
. "$TOP/tests/integration/lib_ship.sh"
ls_init bench_ship

QUICK=${BENCH_QUICK:-0}
REPS=${BENCH_REPS:-$([ "$QUICK" = 1 ] && echo 2 || echo 3)}
SECS=${BENCH_SECS:-$([ "$QUICK" = 1 ] && echo 2 || echo 5)}
RATE=${BENCH_RATE:-2000}
LAG_S=${BENCH_LAG_S:-$([ "$QUICK" = 1 ] && echo 6 || echo 15)}
OUT=$BUILD/bench
mkdir -p "$OUT"
SHM=/dev/shm/grbench-ship-$$
mkdir -p "$SHM"
t_defer "rm -rf '$SHM'"
LA_AGENT_SECS=900

# every run's stream stays on the server: room for all of them
export NATS_JS_MAX_FILE=${NATS_JS_MAX_FILE:-32G}
nats_start_single "$la_tmp/nats" || { echo "bench_ship: nats-server did not start" >&2; exit 1; }

hz=$(getconf CLK_TCK)
# agent_cpu: utime + stime of the agent, seconds
agent_cpu() {
	awk -v hz="$hz" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' \
		"/proc/$T_AGENT_PID/stat"
}

# run MODE N: one cost run; appends "MODE bytes wall_s ship_s cpu_s"
run() {
	local mode=$1 n=$2 t0 t1 t2 cpu bytes fg args=()

	STORE=$SHM/store.$mode.$n
	COL=$SHM/col.$mode.$n
	mkdir -p "$STORE"
	la_vm V bs
	V=$V.$mode.$n
	la_vms+=("$V")
	[ "$mode" = ship ] && args=(--ship "$NATS_URLS" --ship-stream "B${n}${mode}")
	la_agent_start "${args[@]}" --events all --subbuf-size 65536 \
		--subbufs 16 --vm "$V" || return 1
	[ "$mode" = ship ] && ls_collect_start col --stream "B${n}${mode}" \
		--durable "b$n"
	t0=$(date +%s.%N)
	t_bg fg 600 "$la_tmp/fg.$mode.$n.log" "$FG" --socket "$RUN/$V.sock" \
		--cpus 2 --size 4000 --max --duration "$SECS" --linger 60 \
		--stats "$la_tmp/fg.$mode.$n.stats" --quiet
	la_wait_fg "$fg" 600 || return 1
	t1=$(date +%s.%N)
	t2=$t1
	if [ "$mode" = ship ]; then
		la_wait_status "$V" "s['stats']['packets'] > 0 and s['ship']['backlog_bytes'] == 0" 600 ||
			return 1
		t2=$(date +%s.%N)
	fi
	cpu=$(agent_cpu)
	bytes=$(la_field "$V" stats.bytes)
	la_agent_stop
	if [ "$mode" = ship ]; then
		ls_wait_equal 300 || { echo "bench_ship: collected tree differs: $diff_out" >&2; return 1; }
		ls_collect_stop col
	fi
	echo "$mode $bytes $(echo "$t1 $t0" | awk '{ print $1 - $2 }') $(echo "$t2 $t0" | awk '{ print $1 - $2 }') $cpu" >>"$la_tmp/rows"
	rm -rf "$STORE" "$COL"
}

: >"$la_tmp/rows"
for n in $(seq "$REPS"); do
	for mode in local ship; do
		run "$mode" "$n" || { echo "bench_ship: $mode run $n failed" >&2; la_show_logs >&2; exit 1; }
	done
done

# lag: a steady load, watched
STORE=$SHM/store.lag
COL=$SHM/col.lag
mkdir -p "$STORE"
la_vm V bl
la_agent_start --ship "$NATS_URLS" --ship-stream BLAG --events all \
	--subbuf-size 65536 --subbufs 16 --switch-timer-ms 100 --vm "$V" ||
	exit 1
ls_collect_start col --stream BLAG --durable blag
t_bg fg 300 "$la_tmp/fg.lag.log" "$FG" --socket "$RUN/$V.sock" --cpus 2 \
	--size 4000 --rate "$RATE" --duration "$LAG_S" --linger 30 --quiet
la_wait_status "$V" "s['state'] == 'attached'" 20 || exit 1
sess=$(la_sessions "$V")
csess=$COL/$HOST/$V/$(basename "$sess")
t_bg watch $((LAG_S + 120)) "$la_tmp/lag.txt" "$PY" "$HERE/ship_lag.py" \
	$((LAG_S + 30)) 1 "$sess/stream_0" "$csess/stream_0" \
	"$sess/stream_1" "$csess/stream_1"
la_wait_fg "$fg" 300
la_wait_fg "$watch" $((LAG_S + 130))
ls_collect_stop col
la_agent_stop

"$PY" - "$la_tmp/rows" "$la_tmp/lag.txt" "$REPS" "$SECS" "$RATE" "$LAG_S" <<'EOF' | tee "$OUT/ship.md"
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
lag = open(sys.argv[2]).read().split()
reps, secs, rate, lag_s = sys.argv[3:7]
def fig(vals, fmt="%.3f"):
    return (fmt % statistics.median(vals)) + " [" + (fmt % min(vals)) + "-" + (fmt % max(vals)) + "]"
by = {}
for m, b, w, s, c in rows:
    b = int(b) / 1e9
    by.setdefault(m, []).append((b, float(w), float(s), float(c)))
print("## Shipping to NATS JetStream (bench_ship.sh)\n")
print("Same load each way: fake guest, 2 CPUs writing 4000-byte events as fast as they go for %s s; %s runs each, interleaved; median [min-max]. Agent store on /dev/shm, one nats-server -js on loopback (store on disk), one collector.\n" % (secs, reps))
print("| agent | GB stored | GB/s stored | GB/s shipped (to backlog 0) | agent CPU s/GB |")
print("|---|---|---|---|---|")
cpu = {}
for m, label in (("local", "local store only"), ("ship", "--ship + collector")):
    r = by.get(m, [])
    if not r:
        continue
    gb = [x[0] for x in r]
    stored = [x[0] / x[1] for x in r]
    shipped = [x[0] / x[2] for x in r]
    cpg = [x[3] / x[0] for x in r]
    cpu[m] = statistics.median(cpg)
    print("| %s | %s | %s | %s | %s |" % (label, fig(gb), fig(stored), fig(shipped) if m == "ship" else "-", fig(cpg, "%.2f")))
if "local" in cpu and "ship" in cpu and cpu["local"]:
    print("\nCPU per GB, shipping / local only: %.2fx (medians)" % (cpu["ship"] / cpu["local"]))
if len(lag) == 5:
    print("\nLag from a packet stored to the same packet collected (steady load: 2 CPUs x %s ticks/s of 4000 B for %s s, switch timer 100 ms): %s packets, p50 %s ms, p99 %s ms, max %s ms" % (rate, lag_s, lag[1], lag[2], lag[3], lag[4]))
else:
    print("\nLag: not measured (%s)" % " ".join(lag))
EOF
echo "# table in $OUT/ship.md"
exit 0
