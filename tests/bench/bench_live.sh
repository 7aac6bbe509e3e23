#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_live.sh - watching a guest live (issue 23): delay from a guest's
# event to a live viewer's line against the switch timer, and what
# viewers cost the agent
#
#   tests/bench/bench_live.sh          (make bench runs it)
#   BENCH_QUICK=1 tests/bench/bench_live.sh
#
# Real agent (`agent --live`, store on /dev/shm), real fake guests (2 CPUs,
# 48-byte fake_seq events, 16 KiB sub-buffers), real viewers.
#
# 1. delay: a steady load (2 CPUs x LAT_RATE ticks/s for LAT_S s) with the
#    switch timer at 100 ms and at 20 ms; one `babeltrace2 --clock-cycles
#    -i lttng-live` and one `guestrelay report --follow` follow the VM,
#    their output read by live_lat.py as it comes. The fake guest stamps
#    each event with CLOCK_MONOTONIC of this machine, so "now - the
#    event's timestamp" when its line arrives is the delay from the write
#    in the guest to the line on the screen: the switch timer (a partly
#    filled sub-buffer waits for it), the agent storing and indexing the
#    packet, and the viewer's polling (babeltrace2 retries every 100 ms
#    when the server has nothing new; the follower reads the index files
#    every 100 ms). p50, p99 and max, and p50 / timer.
# 2. CPU: the same load (2 CPUs x CPU_RATE ticks/s of CPU_SIZE bytes, 1000
#    x 4000 B, for CPU_S s, switch timer 100 ms) with 0, 1 and 8 viewers (babeltrace2 -i
#    lttng-live into a dummy sink, attached before the guest starts, each
#    following the session to its end); a fresh agent per run, runs
#    interleaved, REPS each. Agent CPU seconds = its utime + stime
#    (/proc/PID/stat, all threads: the loop and the live server) from its
#    start until every viewer has ended (the session closed and served to
#    its end); the baseline is 0 viewers, measured in the same run.
#
# The table goes to stdout and build/bench/live.md. Exit 0: table
# written; 1: a run failed; 77: cannot run here.
#
# Environment: BENCH_QUICK=1 (shorter runs, 1 repetition), BENCH_REPS=N,
# BENCH_OUT=DIR (default build/bench).
#
# shellcheck disable=SC2154 # fg, vw, fw: set by t_bg (tests/lib/lib.sh)

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/bench/lib_build.sh
. "$HERE/lib_build.sh"
bench_build_agent bench_live
# shellcheck source=tests/integration/lib_agent.sh
. "$TOP/tests/integration/lib_agent.sh"
la_init bench_live
command -v stdbuf >/dev/null || la_skip "stdbuf (coreutils) is needed"

QUICK=${BENCH_QUICK:-0}
REPS=${BENCH_REPS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
LAT_S=${BENCH_LAT_S:-$([ "$QUICK" = 1 ] && echo 8 || echo 20)}
LAT_RATE=${BENCH_LAT_RATE:-200}
CPU_S=${BENCH_CPU_S:-$([ "$QUICK" = 1 ] && echo 4 || echo 10)}
CPU_RATE=${BENCH_CPU_RATE:-1000}
CPU_SIZE=${BENCH_CPU_SIZE:-4000}
VIEWERS="0 1 8"
TIMERS="100 20"
OUT=${BENCH_OUT:-$BUILD/bench}
mkdir -p "$OUT"
SHM=/dev/shm/grbench-live-$$
mkdir -p "$SHM"
t_defer "rm -rf '$SHM'"
export LA_AGENT_SECS=900
host=$(hostname)
hz=$(getconf CLK_TCK)

say() { echo "bench_live: $*" >&2; }
# agent_cpu: utime + stime of the agent, seconds
agent_cpu() {
	awk -v hz="$hz" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' \
		"/proc/$T_AGENT_PID/stat"
}
# start_agent NAME TIMER_MS SUBBUFS: a fresh agent serving VM NAME live
# on $PORT (16 KiB sub-buffers)
start_agent() {
	STORE=$SHM/store.$1
	mkdir -p "$STORE"
	PORT=$(la_free_ports 1)
	la_agent_start --live "127.0.0.1:$PORT" --events fake_seq \
		--switch-timer-ms "$2" --subbuf-size 16384 --subbufs "$3" \
		--vm "$1"
}
# wait_listed VM: the live server lists VM's session
wait_listed() {
	local q

	for _ in $(seq 100); do
		q=$(timeout 10 babeltrace2 query src.ctf.lttng-live sessions \
			--params "url=\"net://127.0.0.1:$PORT\"" 2>/dev/null)
		grep -q "/host/$host/$1\$" <<<"$q" && return 0
		sleep 0.1
	done
	return 1
}

# 1. delay
: >"$la_tmp/lat.rows"
for timer in $TIMERS; do
	la_vm V bl
	V=$V.t$timer
	la_vms+=("$V")
	start_agent "$V" "$timer" 64 || { la_show_logs >&2; exit 1; }
	t_bg fg 300 "$la_tmp/fg.lat.$timer.log" "$FG" --socket "$RUN/$V.sock" \
		--cpus 2 --rate "$LAT_RATE" --duration "$LAT_S" --quiet
	wait_listed "$V" || { say "session of $V not listed"; la_show_logs >&2; exit 1; }
	t_bg vw $((LAT_S + 120)) "$la_tmp/viewer.$timer.log" bash -c \
		'stdbuf -oL babeltrace2 --clock-cycles -i lttng-live "$0" --params "session-not-found-action=\"end\"" | "$1" "$2" cycles 1 "$3"' \
		"net://127.0.0.1:$PORT/host/$host/$V" "$PY" "$HERE/live_lat.py" \
		"$la_tmp/lat.viewer.$timer"
	t_bg fw $((LAT_S + 120)) "$la_tmp/follow.$timer.log" bash -c \
		'"$0" --run-dir "$1" report --follow "$2" | "$3" "$4" report 1 "$5"' \
		"$GR" "$RUN" "$V" "$PY" "$HERE/live_lat.py" "$la_tmp/lat.follow.$timer"
	la_wait_fg "$fg" $((LAT_S + 60)) || { say "the guest failed"; exit 1; }
	la_wait_status "$V" "not s.get('session')" 30
	la_wait_fg "$vw" 60
	# the follower runs until told: its last session is over; SIGTERM
	# to it (not to the shell of its pipe), live_lat.py then ends
	sleep 1
	fsh=$(t_child "$fw")
	fpid=$(ps -o pid=,comm= --ppid "$fsh" | awk '$2 == "guestrelay" { print $1 }')
	[ -n "$fpid" ] && kill -TERM "$fpid"
	la_wait_fg "$fw" 20
	la_agent_stop
	echo "$timer $(cat "$la_tmp/lat.viewer.$timer" 2>/dev/null || echo lat none) $(cat "$la_tmp/lat.follow.$timer" 2>/dev/null || echo lat none)" \
		>>"$la_tmp/lat.rows"
	rm -rf "$STORE"
done

# 2. CPU with 0, 1, 8 viewers
: >"$la_tmp/cpu.rows"
for n in $(seq "$REPS"); do
	for nv in $VIEWERS; do
		la_vm V bc
		V=$V.$nv.$n
		la_vms+=("$V")
		start_agent "$V" 100 256 || { la_show_logs >&2; exit 1; }
		vws=()
		# the viewers attach once the guest's session is listed
		t_bg fg 300 "$la_tmp/fg.cpu.$nv.$n.log" "$FG" --socket "$RUN/$V.sock" \
			--cpus 2 --rate "$CPU_RATE" --size "$CPU_SIZE" \
			--duration "$CPU_S" --quiet \
			--stats "$la_tmp/fg.cpu.$nv.$n.stats"
		wait_listed "$V" || { say "session of $V not listed"; exit 1; }
		for i in $(seq "$nv"); do
			t_bg vw 600 "$la_tmp/v.$nv.$n.$i.log" babeltrace2 \
				-i lttng-live "net://127.0.0.1:$PORT/host/$host/$V" \
				--params 'session-not-found-action="end"' \
				-c sink.utils.dummy
			vws+=("$vw")
		done
		la_wait_fg "$fg" $((CPU_S + 120)) || { say "the guest failed"; exit 1; }
		la_wait_status "$V" "not s.get('session')" 30
		for vw in "${vws[@]}"; do
			la_wait_fg "$vw" 300 || say "a viewer did not end"
		done
		cpu=$(agent_cpu)
		bytes=$(du -sb "$STORE/$V" | cut -f1)
		la_agent_stop
		echo "$nv $n $cpu $bytes $(la_stat "$la_tmp/fg.cpu.$nv.$n.stats" total.written)" \
			>>"$la_tmp/cpu.rows"
		rm -rf "$STORE"
	done
done

"$PY" - "$la_tmp/lat.rows" "$la_tmp/cpu.rows" "$LAT_S" "$LAT_RATE" \
	"$CPU_S" "$CPU_RATE" "$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)" \
	"$CPU_SIZE" <<'EOF' | tee "$OUT/live.md"
import statistics, sys
lat = [l.split() for l in open(sys.argv[1]) if l.strip()]
cpu = [l.split() for l in open(sys.argv[2]) if l.strip()]
lat_s, lat_rate, cpu_s, cpu_rate, reps, load, cpu_size = sys.argv[3:10]
print("## Watching a guest live (bench_live.sh)\n")
print("Delay from a guest's event to its line in a live viewer: fake guest, 2 CPUs x %s events/s (48 B) for %s s, agent `--live` (store on /dev/shm, 16 KiB sub-buffers); `babeltrace2 --clock-cycles -i lttng-live` and `guestrelay report --follow` read in the same run; events of the first second after attaching left out. Load average at the end: %s.\n" % (lat_rate, lat_s, load))
print("| switch timer | viewer | events | p50 (ms) | p99 (ms) | max (ms) | p50 / timer | p99 / timer |")
print("|---|---|---|---|---|---|---|---|")
for row in lat:
    timer = float(row[0])
    rest = row[1:]
    views = []
    while rest:
        if rest[1] == "none":
            views.append(None)
            rest = rest[2:]
        else:
            views.append(rest[1:5])
            rest = rest[5:]
    for name, v in zip(("babeltrace2 lttng-live", "report --follow"), views):
        if v is None:
            print("| %g ms | %s | 0 | - | - | - | - | - |" % (timer, name))
            continue
        n, p50, p99, mx = v
        print("| %g ms | %s | %s | %s | %s | %s | %.2f | %.2f |" % (timer, name, n, p50, p99, mx, float(p50) / timer, float(p99) / timer))
by = {}
for nv, rep, c, b, ev in cpu:
    by.setdefault(int(nv), []).append((float(c), int(b), int(ev or 0)))
print("\nAgent CPU with viewers attached: the same load each run (2 CPUs x %s events/s of %s B for %s s, switch timer 100 ms, 256 x 16 KiB sub-buffers per CPU), a fresh agent per run, 0/1/8 viewers (babeltrace2 -i lttng-live into a dummy sink, each following the session to its end), %s run(s) each, interleaved; CPU = the agent's utime + stime from its start until every viewer ended; median [min-max].\n" % (cpu_rate, cpu_size, cpu_s, reps))
print("| viewers | events stored | MB stored | agent CPU (s) | vs 0 viewers | extra CPU s per viewer per MB |")
print("|---|---|---|---|---|---|")
base = statistics.median([x[0] for x in by.get(0, [(0, 0, 0)])])
for nv in sorted(by):
    r = by[nv]
    cs = [x[0] for x in r]
    med = statistics.median(cs)
    mb = statistics.median([x[1] for x in r]) / 1e6
    ev = int(statistics.median([x[2] for x in r]))
    ratio = ("%.2fx" % (med / base)) if base else "-"
    per = ("%.4f" % ((med - base) / nv / mb)) if nv and mb else "-"
    print("| %d | %d | %.1f | %.2f [%.2f-%.2f] | %s | %s |" % (nv, ev, mb, med, min(cs), max(cs), ratio, per))
EOF
echo "# table in $OUT/live.md"
exit 0
