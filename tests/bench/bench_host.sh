#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_host.sh - the host side of guestrelay measured against baselines
# in the same run: ingest, doorbells, event-to-disk latency, scale, loss
#
#   tests/bench/bench_host.sh          (make bench runs it)
#
# Everything runs on this machine with the real agent
# (build/host-agent/guestrelay) and real fake guests (build/tests/fakeguest:
# the guest's relay core and protocol in userspace) over real shared
# memory and eventfds; every store is a directory under /dev/shm (tmpfs),
# so the figures are the consumers' cost, not a disk's.
#
# 1. ingest: a fake guest writes as fast as it can (--max, 2 CPUs, 4000-byte
#    fake_seq events) into the agent (doorbell device, 16 MiB region),
#    in verify mode (the default: a private copy, records checked) and
#    with --verify off (zero copy, headers checked only), each with
#    --io fixed (two write_fixed per packet from registered buffers:
#    the header copy, then the content) and --io writev (one writev of
#    the same two pieces), interleaved in each repetition,
#    sub-buffers of 64 KiB, 256 KiB and 1 MiB (the host's wish). GB/s =
#    bytes stored / (guest start .. guest exit, which waits until all it
#    produced is consumed); CPU s/GB = the agent's utime+stime
#    (/proc/PID/stat) over the run / GB stored. Baselines, same geometry:
#    the copying consumer of tests/integration/copy_consumer.c (polls,
#    memcpy() + write(2) per sub-buffer), and dd of the bytes the agent
#    stored (tmpfs -> tmpfs, bs = the sub-buffer size, no producer). The
#    agent stores each packet's content, the copy consumer whole
#    sub-buffers: with 4000-byte events a full 64 KiB sub-buffer holds
#    up to 4 KiB of padding that the agent neither writes nor counts.
# 2. doorbells per sub-buffer = doorbells_in / packets of the ingest runs
#    (status --json), and event-to-disk latency of a quiet guest (1 CPU,
#    100 events/s) with the switch timer at 10 and 100 ms: latwatch.c
#    polls the stream files every 200 us and, for each event of each
#    packet that reached the file, takes now - the event's timestamp
#    (the fake guest stamps CLOCK_MONOTONIC of this machine). The same
#    runs give the bytes stored per event: the stream files' size over
#    the events the guest wrote, next to packets x sub-buffer size over
#    the same events (what storing whole sub-buffers writes), and the
#    agent's io_uring_enter calls per loop iteration (`guestrelay ping`).
# 3. scale: 1, 8, 32, 64 fake guests (1 CPU each, 2000 ticks/s of 4000 B,
#    4 MiB regions) on one fresh agent: aggregate GB/s stored, fairness
#    (max/min bytes per VM), the agent's VmRSS and RssAnon at the end
#    (VmRSS includes the pages of the VMs' shared memory it has touched,
#    RssAnon is its private memory), events kept = written / (written +
#    lost) over all guests, and stored / produced: the packets in the
#    stream files (read back by packets_check.py) over the sub-buffers
#    the guests produced (every one is on disk).
# 3b. fixed aggregate rate: 1, 8 and 64 fake guests (4 MiB regions, 1 CPU
#    each, 4000-byte events) sharing one total rate (each offers
#    total / N ticks/s), the same totals at every count, on a fresh agent:
#    the agent's CPU seconds per GB stored (utime + stime from
#    /proc/PID/stat, which keeps the time of threads that ended, as
#    io_uring's workers do; runs of FIX_SECS, 6 s quick, 10 s full, so
#    that clock ticks resolve it), over the whole run (from before the
#    guests start to the last one's exit: the sessions' start and end
#    included) and over the steady window (FIX_SECS less 2 s at the
#    start and 1 s at the end: CPU and bytes stored between those two
#    instants), and per count the highest total held without
#    loss in every repetition (a ladder of totals upwards; the first one
#    that loses ends that count's ladder). This separates the agent's
#    cost from the producers': the same bytes per second arrive however
#    many VMs send them. Each run has a fresh agent. With
#    BENCH_BASE_AGENT=PATH (another build of guestrelay, e.g. main's),
#    that agent runs every run too, the two taking turns (which goes
#    first alternates by repetition), and the table gives both.
# 4. loss: default geometry (16 MiB, 64 KiB sub-buffers, 2 CPUs, 48-byte
#    events): a ladder of --rate per CPU, then bisection: the highest rate
#    with lost == 0 in one run, then confirmed: every one of CONFIRM runs
#    must lose nothing, else the rate steps down by a quarter (up to 3
#    times); next to the fake guest's --max rate (the producer's ceiling).
# 5. verify modes (tests/bench/verify_modes.c): the consumer's work per
#    64 KiB packet of 72-byte records, with the agent's own functions, in
#    one run, modes taking turns: the zero-copy write alone, plus the
#    per-record header walk that finds content_size (--verify off
#    without GR_F_LAST_RECORD), plus the one record header the guest
#    declares instead (--verify off, v1.4, spec H31), the
#    private copy and record check (--verify on), and --verify stored,
#    the records checked as stored in the page cache without a copy
#    (host-agent/agent/stored_check.c); CPU s/GB and ns per packet.
#
# Each figure is the median of REPS runs with [min-max]. Raw rows go to
# OUT/host-raw/, the tables to OUT/host.md, plots to OUT/*.svg
# (tests/bench/host_table.py). Exit 0: tables written; 1: a run failed;
# 77: cannot run here.
#
# Environment:
#   BENCH_QUICK=1     1 s runs, 3 repetitions, fewer steps (under 3 min)
#   BENCH_REPS=N      repetitions (default 5; quick 3)
#   BENCH_OUT=DIR     output directory (default build/bench)
#   BENCH_PARTS=LIST  which of ingest,latency,scale,fixrate,loss,verify
#                     (default all)
#   BENCH_FIX_SCALE=LIST  VM counts of the fixed-rate part (default
#                     "1 8 64"; tiny "1 2")
#   BENCH_FIX_RATES=LIST  its totals in ticks/s (default quick "4000
#                     16000 64000", full "4000 8000 ... 128000")
#   BENCH_BASE_AGENT=PATH  the fixed-rate part also measures this agent
#                     binary (a baseline, e.g. main's build), run by run
#   BENCH_SCALE=LIST  VM counts (default "1 8 32 64"; quick "1 8 32")
#   BENCH_TINY=1      smallest sizes (the smoke test): 0.3 s runs, 1 rep
#   BENCH_LAT_IO=IO   the latency runs' --io (fixed or writev; default:
#                     the agent's)
#
# shellcheck disable=SC2154 # la_tmp, la_agent_pid, err: set by lib_agent.sh

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib_build.sh
. "$HERE/lib_build.sh"
bench_build_agent bench_host
# shellcheck source=tests/integration/lib_agent.sh
. "$HERE/../integration/lib_agent.sh"
la_init bench_host

QUICK=${BENCH_QUICK:-0}
TINY=${BENCH_TINY:-0}
if [ "$TINY" = 1 ]; then
	REPS=${BENCH_REPS:-1} SECS=0.3 LAT_SECS=3 SCALE_SECS=0.5
	SCALE=${BENCH_SCALE:-"1 2"} SBS="65536" LADDER="1000 1000000"
	BISECT=1 CONFIRM=1 LAT_TIMERS="10"
	FIX_SCALE=${BENCH_FIX_SCALE:-"1 2"} FIX_RATES=${BENCH_FIX_RATES:-"2000"}
	VM_PACKETS=64 FIX_SECS=0.5
elif [ "$QUICK" = 1 ]; then
	REPS=${BENCH_REPS:-3} SECS=1 LAT_SECS=2 SCALE_SECS=1
	SCALE=${BENCH_SCALE:-"1 8 32"} SBS="65536 262144 1048576"
	LADDER="10000 30000 100000 300000 1000000" BISECT=2 CONFIRM=3
	LAT_TIMERS="10 100"
	FIX_SCALE=${BENCH_FIX_SCALE:-"1 8 64"}
	FIX_RATES=${BENCH_FIX_RATES:-"4000 16000 64000"}
	VM_PACKETS=1024 FIX_SECS=6
else
	REPS=${BENCH_REPS:-5} SECS=2 LAT_SECS=5 SCALE_SECS=3
	SCALE=${BENCH_SCALE:-"1 8 32 64"} SBS="65536 262144 1048576"
	LADDER="10000 20000 50000 100000 200000 500000 1000000 2000000"
	BISECT=5 CONFIRM=5 LAT_TIMERS="10 100"
	FIX_SCALE=${BENCH_FIX_SCALE:-"1 8 64"}
	FIX_RATES=${BENCH_FIX_RATES:-"4000 8000 16000 32000 64000 128000"}
	VM_PACKETS=4096 FIX_SECS=10
fi
PARTS=${BENCH_PARTS:-ingest,latency,scale,fixrate,loss,verify}
MODE=full
[ "$QUICK" = 1 ] && MODE=quick
[ "$TINY" = 1 ] && MODE=tiny
OUT=${BENCH_OUT:-$BUILD/bench}
RAW=$OUT/host-raw
SIZE=4000
export LA_AGENT_SECS=1800	# the agent's time limit (lib_agent.sh)
mkdir -p "$RAW"
rm -f "$RAW"/*.tsv

say() { echo "bench_host: $*" >&2; }
has() { case ",$PARTS," in *",$1,"*) return 0 ;; esac; return 1; }

[ -x /usr/bin/time ] || la_skip "GNU time (/usr/bin/time) is needed"
la_shm_dir=$(mktemp -d /dev/shm/bench_host.XXXXXX) || la_skip "no /dev/shm"
STORE=$la_shm_dir/store
SCRATCH=$la_shm_dir/scratch
mkdir -p "$STORE" "$SCRATCH"

CC=${CC:-cc}
VMODES=$la_tmp/verify_modes
COPY=$la_tmp/copy_consumer
LATW=$la_tmp/latwatch
"$CC" -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$LA_TOP/spec" \
	-I"$LA_TOP/host-agent/region" -I"$LA_TOP/host-agent/common" -o "$COPY" \
	"$LA_TOP/tests/integration/copy_consumer.c" \
	"$LA_TOP/host-agent/region/validate.c" \
	"$LA_TOP/host-agent/region/validate_desc.c" \
	"$LA_TOP/host-agent/region/validate_packet.c" || { say "copy_consumer: build"; exit 1; }
"$CC" -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$LA_TOP/spec" \
	-o "$LATW" "$HERE/latwatch.c" || { say "latwatch: build"; exit 1; }
# verify_modes: the agent's checks (every file of host-agent/region/,
# whatever they are split into) and its stored_check.c
vm_inc=()
for d in "$LA_TOP"/host-agent/*/; do vm_inc+=(-I"$d"); done
"$CC" -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$LA_TOP/spec" \
	-I"$LA_TOP/tests/lib" "${vm_inc[@]}" -o "$VMODES" \
	"$HERE/verify_modes.c" "$LA_TOP/host-agent/agent/stored_check.c" \
	"$LA_TOP"/host-agent/region/*.c "$LA_TOP/tests/lib/gr_build.c" ||
	{ say "verify_modes: build"; exit 1; }

failed=0
fail() { say "FAILED: $*"; failed=1; }
now_ns() { date +%s%N; }

# agent_cpu_ticks: the agent's utime + stime (all threads), clock ticks
agent_cpu_ticks() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$la_agent_pid/stat"
}

# store_bytes DIR: bytes of the stream files under DIR
store_bytes() {
	cat "$1"/stream_* 2>/dev/null | wc -c
}

# vm_json VM KEY: a top-level or stats.KEY field of the VM's status
vm_json() {
	la_field "$1" "$2"
}

# mkvm VAR BASE: VAR receives the VM name BASE-PID, removed at exit
mkvm() {
	la_vms+=("$2-$$")
	printf -v "$1" '%s' "$2-$$"
}

# cleanup_vm VM
cleanup_vm() {
	gr vm-remove "$1" >/dev/null 2>&1
	rm -rf "${STORE:?}/$1" "/dev/shm/guestrelay-$1"
}

conditions() {
	{
		echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "nproc	$(nproc)"
		echo "cpu	$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
		echo "mem	$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
		echo "kernel	$(uname -r)"
		echo "load_$1	$(cut -d' ' -f1-3 /proc/loadavg)"
		echo "mode	$MODE"
		echo "reps	$REPS"
		echo "secs	$SECS"
	} >>"$RAW/conditions.tsv"
}

# ---- 1. ingest (and doorbells per sub-buffer) ------------------------

# ingest_agent SB on|off fixed|writev: the agent in verify mode (the
# default: one copy of each sub-buffer, every record checked) or zero copy
# (--verify off), writing from registered buffers or with writev
ingest_agent() {
	local sb=$1 verify=$2 io=$3 kind=agent vm f t0 t1 c0 c1 sess bytes lost pk dbi

	[ "$verify" = off ] && kind=agentzc
	kind=$kind-$io
	mkvm vm "bi$sb$verify$io-$rep"
	if ! gr vm-add "$vm" --events all --subbuf-size "$sb" \
		--verify "$verify" --io "$io"; then
		fail "vm-add: $err"
		return
	fi
	c0=$(agent_cpu_ticks)
	t0=$(now_ns)
	t_bg f 120 "$la_tmp/fg.log" "$FG" --socket "$RUN/$vm.sock" --cpus 2 \
		--max --size $SIZE --duration "$SECS" --linger 30 --quiet \
		--stats "$la_tmp/fg.stats"
	# the geometry the guest chose (the copy consumer asks for the same)
	# (from that status: once the guest left, status says 0)
	la_wait_status "$vm" "s.get('n_subbufs', 0) > 0" 10 &&
		NSB=$("$PY" -c 'import json, sys; print(json.loads(sys.argv[1])["n_subbufs"])' "$out")
	la_wait_fg "$f" 100 || fail "fake guest (agent, $sb): $(tail -n3 "$la_tmp/fg.log")"
	t1=$(now_ns)
	la_wait_status "$vm" "s['state'] == 'waiting' or s['guest_state'] == 'stopped'" 10
	c1=$(agent_cpu_ticks)
	sess=$(la_sessions "$vm" | tail -n1)
	bytes=$(store_bytes "$sess")
	pk=$(vm_json "$vm" stats.packets)
	dbi=$(vm_json "$vm" stats.doorbells_in)
	lost=$(la_stat "$la_tmp/fg.stats" total.lost)
	echo "$kind	$sb	$rep	$bytes	$((t1 - t0))	$((c1 - c0))	$lost	$pk	$dbi	$NSB" \
		>>"$RAW/ingest.tsv"
	[ "$bytes" -gt 0 ] || fail "agent stored nothing ($sb, verify $verify)"
	if [ "$verify" = off ] || [ "$io" = writev ]; then
		cleanup_vm "$vm"
		return
	fi
	# dd: the same bytes, tmpfs -> tmpfs, one dd per stream file
	# shellcheck disable=SC2016 # expanded by the inner shell
	/usr/bin/time -f "%e %U %S" -o "$la_tmp/dd.time" bash -c '
		for f in "$1"/stream_*; do
			dd if="$f" of="$2/dd.out" bs="$3" status=none || exit 1
			rm -f "$2/dd.out"
		done' _ "$sess" "$SCRATCH" "$sb" || fail "dd"
	read -r e u s <"$la_tmp/dd.time"
	echo "dd	$sb	$rep	$bytes	$(awk -v e="$e" 'BEGIN { printf "%d", e * 1e9 }')	$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 100 + 0.5 }')	-	-	-	$NSB" \
		>>"$RAW/ingest.tsv"
	cleanup_vm "$vm"
}

ingest_copy() {
	local sb=$1 vm shm o c f t0 t1 bytes i u s

	mkvm vm "bc$sb-$rep"
	shm=guestrelay-$vm
	o=$SCRATCH/copy
	mkdir -p "$o"
	t0=$(now_ns)
	t_bg c 120 "$la_tmp/copy.log" /usr/bin/time -f "%U %S" \
		-o "$la_tmp/copy.time" "$COPY" --shm "$shm" --out "$o" \
		--subbuf-size "$sb" --subbufs "$NSB" --events 4 --seconds 100
	for i in $(seq 200); do
		[ -e "/dev/shm/$shm" ] && break
		sleep 0.01
	done
	t_bg f 120 "$la_tmp/fgc.log" "$FG" --shm "$shm" --cpus 2 --max \
		--size $SIZE --duration "$SECS" --linger 30 --quiet \
		--stats "$la_tmp/fgc.stats"
	la_wait_fg "$f" 100 || fail "fake guest (copy, $sb): $(tail -n3 "$la_tmp/fgc.log")"
	t1=$(now_ns)
	la_wait_fg "$c" 20 || fail "copy consumer: $(tail -n3 "$la_tmp/copy.log")"
	bytes=$(store_bytes "$o")
	read -r u s <"$la_tmp/copy.time"
	echo "copy	$sb	$rep	$bytes	$((t1 - t0))	$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 100 + 0.5 }')	$(la_stat "$la_tmp/fgc.stats" total.lost)	-	-	$NSB" \
		>>"$RAW/ingest.tsv"
	[ "$bytes" -gt 0 ] || fail "copy consumer stored nothing ($sb)"
	rm -rf "$o" "/dev/shm/$shm"
}

# ---- 2. latency of a quiet guest with the switch timer --------------

# loop_counts VAR: "iterations enters" of the agent's loop (ping --json)
loop_counts() {
	if ! gr ping --json; then
		printf -v "$1" '0 0'
		return
	fi
	printf -v "$1" '%s' "$("$PY" -c 'import json, sys; l = json.loads(sys.argv[1])["loop"]; print(l["iterations"], l["enters"])' "$out")"
}

latency_run() {
	local ms=$1 vm f sess i l0 l1 i0 i1 e0 e1 sb

	mkvm vm "bl$ms-$rep"
	if ! gr vm-add "$vm" --events all --size 4M --switch-timer-ms "$ms" \
		${BENCH_LAT_IO:+--io "$BENCH_LAT_IO"}; then
		fail "vm-add: $err"
		return
	fi
	t_bg f 60 "$la_tmp/fgl.log" "$FG" --socket "$RUN/$vm.sock" --cpus 1 \
		--rate 50 --duration "$LAT_SECS" --linger 10 --quiet \
		--stats "$la_tmp/fgl.stats"
	sess=
	for i in $(seq 300); do
		sess=$(la_sessions "$vm" | tail -n1)
		[ -n "$sess" ] && break
		sleep 0.01
	done
	[ -n "$sess" ] || { fail "no session for $vm"; return; }
	sb=$(vm_json "$vm" subbuf_size)
	# 50 ticks/s x (fake_seq + one other event) = 100 events/s; the
	# watcher stops at the guest's end (its last flush is not timed)
	loop_counts l0
	"$LATW" --session "$sess" --rings 1 --seconds "$LAT_SECS" \
		>"$la_tmp/lat.out" 2>&1 || fail "latwatch: $(cat "$la_tmp/lat.out")"
	loop_counts l1
	la_wait_fg "$f" 30 || fail "fake guest (latency)"
	la_wait_status "$vm" "s['state'] == 'waiting' or s['guest_state'] == 'stopped'" 10
	# the loop's iterations and enters while latwatch watched
	read -r i0 e0 <<<"$l0"
	read -r i1 e1 <<<"$l1"
	echo "$ms	$rep	$(awk '{ printf "%s%s", (NR > 1 ? "\t" : ""), $2 }' "$la_tmp/lat.out")	$(vm_json "$vm" stats.packets)	$(vm_json "$vm" stats.doorbells_in)	$(store_bytes "$sess")	$(la_stat "$la_tmp/fgl.stats" total.written)	$sb	$((i1 - i0))	$((e1 - e0))" \
		>>"$RAW/latency.tsv"
	cleanup_vm "$vm"
}

# ---- 3. scale ---------------------------------------------------------

# fleet_run N RATE TAG [SECS]: N VMs (4 MiB regions) on the agent, one fake
# guest each (1 CPU, RATE ticks/s of SIZE-byte events, SECS s, default
# SCALE_SECS),
# started together and waited for (each waits until what it produced is
# consumed); sets vms (names) and t0, t1 (ns around the guests); returns
# 1 if a VM could not be added
fleet_run() {
	local n=$1 rate=$2 tag=$3 secs=${4:-$SCALE_SECS} i vm f fgs=()

	vms=()
	for i in $(seq "$n"); do
		mkvm vm "$tag$n-$rep-$i"
		vms+=("$vm")
		gr vm-add "$vm" --events all --size 4M >/dev/null ||
			{ fail "vm-add $vm: $err"; return 1; }
	done
	t0=$(now_ns)
	for i in $(seq "$n"); do
		t_bg f 120 "$la_tmp/fgs.$i.log" "$FG" --socket \
			"$RUN/${vms[$((i - 1))]}.sock" --cpus 1 --rate "$rate" \
			--size $SIZE --duration "$secs" --linger 30 --quiet \
			--stats "$la_tmp/fgs.$i.stats"
		fgs+=("$f")
	done
	# the caller's look while the guests run (fixrate_run's window)
	[ -z "${FLEET_MID:-}" ] || "$FLEET_MID"
	for f in "${fgs[@]}"; do
		la_wait_fg "$f" 100 || fail "fake guest ($tag $n)"
	done
	t1=$(now_ns)
}

scale_run() {
	local n=$1 i vm vms t0 t1 sess b rss off=0 pr dirs=() pk

	fleet_run "$n" 2000 bs || return
	rss=$(awk '/^VmRSS/ { r = $2 } /^RssAnon/ { a = $2 } END { print r "\t" a }' \
		"/proc/$la_agent_pid/status")
	: >"$la_tmp/per_vm"
	for i in $(seq "$n"); do
		vm=${vms[$((i - 1))]}
		sess=$(la_sessions "$vm" | tail -n1)
		b=$(store_bytes "$sess")
		[ -n "$sess" ] && dirs+=("$sess")
		pr=$(la_stat "$la_tmp/fgs.$i.stats" total.produced)
		off=$((off + ${pr:-0}))
		echo "$b $(la_stat "$la_tmp/fgs.$i.stats" total.lost) $(la_stat "$la_tmp/fgs.$i.stats" total.written)" \
			>>"$la_tmp/per_vm"
	done
	# the packets in the stream files (each stored content-only), read
	# back by packets_check.py, against the sub-buffers the guests
	# produced
	pk=$("$PY" "$PKT_CHECK" --allow-gaps "${dirs[@]}" 2>/dev/null |
		awk '/ packets in all$/ { print $1 }')
	# per VM: bytes; produced sub-buffers and stored packets; events lost
	# and written over all VMs
	echo "$n	$rep	$((t1 - t0))	$rss	$off	$(awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }' "$la_tmp/per_vm")	$(awk '{ s += $2 } END { print s + 0 }' "$la_tmp/per_vm")	$(awk '{ s += $3 } END { print s + 0 }' "$la_tmp/per_vm")	${pk:-0}" \
		>>"$RAW/scale.tsv"
	for vm in "${vms[@]}"; do
		cleanup_vm "$vm"
	done
}

# ---- 3b. scale at a fixed aggregate rate -------------------------------

# stored_now: bytes of every stream file in the store now
# shellcheck disable=SC2317 # called by fixrate_window, through FLEET_MID
stored_now() {
	find "$STORE" -maxdepth 3 -name 'stream_*' -printf '%s\n' 2>/dev/null |
		awk '{ s += $1 } END { printf "%d", s }'
}

# fixrate_window: fleet_run's FLEET_MID for fixrate_run: the agent's CPU
# ticks and the bytes stored at 2 s after the guests started and 1 s
# before their end (sets w_c0 w_b0 w_t0 w_c1 w_b1 w_t1)
# shellcheck disable=SC2317 # called through FLEET_MID
fixrate_window() {
	local s0 s1

	s0=$(awk -v s="$FIX_SECS" 'BEGIN { print (s >= 4 ? 2 : s / 4) }')
	s1=$(awk -v s="$FIX_SECS" -v a="$s0" 'BEGIN { print (s >= 4 ? s - 1 - a : s / 2) }')
	sleep "$s0"
	w_c0=$(agent_cpu_ticks) w_b0=$(stored_now) w_t0=$(now_ns)
	sleep "$s1"
	w_c1=$(agent_cpu_ticks) w_b1=$(stored_now) w_t1=$(now_ns)
}

# fixrate_run N AGG LABEL: N VMs sharing AGG ticks/s (each AGG/N) on the
# running agent; one row of fixrate.tsv: N, AGG, rep, wall ns, the
# agent's CPU ticks over the run (from before the guests start to after
# the last one left, which waits until its data is consumed), bytes
# stored, events lost, events written, LABEL (which agent), and the
# steady window: CPU ticks, bytes stored, ns
fixrate_run() {
	local n=$1 agg=$2 label=$3 i vm vms t0 t1 c0 c1 b=0 lost=0 wr=0 sess x
	local w_c0=0 w_b0=0 w_t0=0 w_c1=0 w_b1=0 w_t1=0

	c0=$(agent_cpu_ticks)
	FLEET_MID=fixrate_window fleet_run "$n" \
		"$(awk -v a="$agg" -v n="$n" 'BEGIN { printf "%.3f", a / n }')" \
		bf "$FIX_SECS" || return
	c1=$(agent_cpu_ticks)
	for i in $(seq "$n"); do
		vm=${vms[$((i - 1))]}
		sess=$(la_sessions "$vm" | tail -n1)
		x=$(store_bytes "$sess")
		b=$((b + ${x:-0}))
		x=$(la_stat "$la_tmp/fgs.$i.stats" total.lost)
		lost=$((lost + ${x:-0}))
		x=$(la_stat "$la_tmp/fgs.$i.stats" total.written)
		wr=$((wr + ${x:-0}))
	done
	echo "$n	$agg	$rep	$((t1 - t0))	$((c1 - c0))	$b	$lost	$wr	$label	$((w_c1 - w_c0))	$((w_b1 - w_b0))	$((w_t1 - w_t0))" \
		>>"$RAW/fixrate.tsv"
	for vm in "${vms[@]}"; do
		cleanup_vm "$vm"
	done
	[ "$lost" = 0 ]
}

# ---- 4. loss ----------------------------------------------------------

# loss_try RATE: one run at RATE ticks/s per CPU (0: --max); prints
# "lost events_written elapsed_ns"
loss_try() {
	local rate=$1 vm f load=() t0 t1

	mkvm vm "bx$rate-$RANDOM"
	gr vm-add "$vm" --events all >/dev/null || { fail "vm-add: $err"; return 1; }
	if [ "$rate" = 0 ]; then load=(--max); else load=(--rate "$rate"); fi
	t0=$(now_ns)
	t_bg f 120 "$la_tmp/fgx.log" "$FG" --socket "$RUN/$vm.sock" --cpus 2 \
		"${load[@]}" --duration "$SECS" --linger 30 --quiet \
		--stats "$la_tmp/fgx.stats"
	la_wait_fg "$f" 100 || fail "fake guest (loss $rate)"
	t1=$(now_ns)
	echo "$(la_stat "$la_tmp/fgx.stats" total.lost) $(la_stat "$la_tmp/fgx.stats" total.written) $((t1 - t0))"
	cleanup_vm "$vm"
}

loss_row() {
	local kind=$1 rate=$2 r

	r=$(loss_try "$rate") || return 1
	echo "$kind	$rate	$(tr ' ' '\t' <<<"$r")" >>"$RAW/loss.tsv"
	[ "${r%% *}" = 0 ]
}

# ---- run ----------------------------------------------------------------

conditions before
t_start=$(date +%s)
la_agent_start || { say "the agent did not start"; la_show_logs; exit 1; }

if has ingest; then
	say "ingest: sub-buffers $SBS, $REPS x $SECS s each"
	for rep in $(seq "$REPS"); do
		for sb in $SBS; do
			NSB=
			# fixed and writev take turns at going first
			ios="fixed writev"
			[ $((rep % 2)) = 0 ] && ios="writev fixed"
			for io in $ios; do
				ingest_agent "$sb" on "$io"
			done
			for io in $ios; do
				ingest_agent "$sb" off "$io"
			done
			[ -n "$NSB" ] && ingest_copy "$sb"
		done
	done
fi

if has latency; then
	say "latency: switch timer $LAT_TIMERS ms, $REPS x $LAT_SECS s"
	for rep in $(seq "$REPS"); do
		for ms in $LAT_TIMERS; do
			latency_run "$ms"
		done
	done
fi

if has loss; then
	say "loss: ladder $LADDER, $BISECT bisection steps, $CONFIRM confirmations"
	for rep in $(seq "$REPS"); do
		loss_row max 0
	done
	good=0 bad=
	for r in $LADDER; do
		if loss_row ladder "$r"; then good=$r; else bad=$r; break; fi
	done
	if [ -n "$bad" ]; then
		for i in $(seq "$BISECT"); do
			mid=$(((good + bad) / 2))
			if loss_row bisect "$mid"; then good=$mid; else bad=$mid; fi
		done
	fi
	# the rate found must hold in every confirmation run; if one
	# loses events, step down by a quarter and confirm again (3 times)
	for step in 1 2 3 4; do
		[ "$good" -gt 0 ] || break
		held=1
		for i in $(seq "$CONFIRM"); do
			loss_row "confirm$step" "$good" || held=0
		done
		[ "$held" = 1 ] && break
		bad=$good
		good=$((good * 3 / 4))
		[ "$step" = 4 ] && good=0
	done
	echo "result	$good	${bad:-none}" >>"$RAW/loss.tsv"
fi

if has scale; then
	say "scale: $SCALE VMs, $REPS x $SCALE_SECS s, a fresh agent"
	la_agent_stop
	la_agent_start || { say "the agent did not restart"; exit 1; }
	for rep in $(seq "$REPS"); do
		for n in $SCALE; do
			scale_run "$n"
		done
	done
fi

# fixrate_agent N AGG LABEL BINARY: one fixrate_run on a fresh agent
# BINARY (its CLI too); returns 1 if that run lost events
fixrate_agent() {
	local keep=$GR rc=0

	la_agent_stop
	GR=$4
	if ! la_agent_start; then
		GR=$keep
		say "the agent ($3) did not start"
		exit 1
	fi
	fixrate_run "$1" "$2" "$3" || rc=1
	la_agent_stop || fail "the agent ($3) exit status"
	GR=$keep
	return $rc
}

if has fixrate; then
	BASE_AGENT=${BENCH_BASE_AGENT:-}
	say "fixed aggregate rate: $FIX_SCALE VMs at $FIX_RATES ticks/s in all, $REPS x $FIX_SECS s, a fresh agent per run${BASE_AGENT:+, baseline $BASE_AGENT beside it}"
	[ -z "$BASE_AGENT" ] || [ -x "$BASE_AGENT" ] ||
		{ say "BENCH_BASE_AGENT: $BASE_AGENT is not executable"; exit 1; }
	# per VM count, the ladder upwards; a rate at which this agent lost
	# events in any repetition ends that count's ladder (the baseline
	# runs at the same points)
	for n in $FIX_SCALE; do
		for agg in $FIX_RATES; do
			held=1
			for rep in $(seq "$REPS"); do
				if [ -n "$BASE_AGENT" ] && [ $((rep % 2)) = 1 ]; then
					fixrate_agent "$n" "$agg" base "$BASE_AGENT"
				fi
				fixrate_agent "$n" "$agg" this "$GR" || held=0
				if [ -n "$BASE_AGENT" ] && [ $((rep % 2)) = 0 ]; then
					fixrate_agent "$n" "$agg" base "$BASE_AGENT"
				fi
			done
			[ "$held" = 1 ] || break
		done
	done
	la_agent_start || { say "the agent did not restart"; exit 1; }
fi

if has verify; then
	say "verify modes: $VM_PACKETS packets x $REPS, the consumer's work per packet"
	"$VMODES" --packets "$VM_PACKETS" --reps "$REPS" --dir "$SCRATCH" \
		>"$RAW/verify.txt" 2>"$la_tmp/verify.err" ||
		fail "verify_modes: $(cat "$la_tmp/verify.err")"
fi

la_agent_alive || fail "the agent died"
la_agent_stop || fail "the agent's exit status"
conditions after
echo "seconds	$(($(date +%s) - t_start))" >>"$RAW/conditions.tsv"

"$PY" "$HERE/host_table.py" "$RAW" "$OUT" || fail "host_table.py"
[ "$failed" = 0 ] || { la_show_logs; exit 1; }
exit 0
