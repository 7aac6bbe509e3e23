# SPDX-License-Identifier: GPL-2.0
#
# lib_agent.sh - shared helpers of the agent integration tests
# (tests/integration/test_agent_*.sh); source it, then call la_init.
#
# The tests run the real agent (build/host-agent/guestrelay) and real fake
# guests (build/tests/fakeguest: the guest relay core and protocol in
# userspace) over real shared memory and eventfds, and read the traces
# with babeltrace2 and python3-bt2 (bt_check.py, packets_check.py).
#
# Every process runs under timeout(1) and is ended by its PID at exit;
# the VMs' /dev/shm/guestrelay-<vm> files, tmpfs mounts and the temporary
# directory are removed by the EXIT trap, even on failure. KEEP=1 keeps
# the temporary directory (and prints its path).
#
# Environment: BUILD (default TOP/build), GUESTRELAY, FAKEGUEST (binaries),
# PYTHON (default /usr/bin/python3), KEEP.

LA_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for LA_TOP in "$LA_HERE/../.." "$LA_HERE/../../.."; do
	[ -f "$LA_TOP/host-agent/agent/agent.h" ] && break
done
LA_TOP=$(cd "$LA_TOP" && pwd)
BUILD=${BUILD:-$LA_TOP/build}
GR=${GUESTRELAY:-$BUILD/host-agent/guestrelay}
FG=${FAKEGUEST:-$BUILD/tests/fakeguest}
[ -d "$FG" ] && FG=$FG/fakeguest
PY=${PYTHON:-/usr/bin/python3}
BT_CHECK=$LA_HERE/bt_check.py
PKT_CHECK=$LA_HERE/packets_check.py

# shellcheck source=tests/lib/lib.sh
. "$LA_TOP/tests/lib/lib.sh"

la_tmp=
RUN=
STORE=
la_agent_pid=		# the agent itself (not its timeout)
la_agent_tpid=		# its t_bg job
la_vms=()		# VM names: /dev/shm/guestrelay-<vm> removed at exit
la_mounts=()		# tmpfs mounts: unmounted at exit
la_shm_dir=		# a store under /dev/shm: removed at exit

# la_skip REASON: cannot run here (exit 77)
la_skip() {
	t_skip "$@"
}

# shellcheck disable=SC2317 # run at exit (t_defer)
la_cleanup() {
	local m v

	t_agent_stop
	for m in "${la_mounts[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	for v in "${la_vms[@]}"; do
		rm -f "/dev/shm/guestrelay-$v"
	done
	[ -n "${la_shm_dir:-}" ] && rm -rf "$la_shm_dir"
}

# la_init NAME: checks, temporary run and store directories, the trap
la_init() {
	t_init "$1"
	[ -x "$GR" ] || la_skip "no agent binary at $GR (make -C host-agent)"
	[ -x "$FG" ] || la_skip "no fake guest at $FG (make -C tests/fakeguest)"
	command -v timeout >/dev/null || la_skip "timeout(1) is needed"
	command -v babeltrace2 >/dev/null || la_skip "babeltrace2 is needed"
	[ -x "$PY" ] || la_skip "no $PY"
	"$PY" -c 'import bt2' 2>/dev/null || la_skip "python3-bt2 is needed"
	[ -d /dev/shm ] && [ -w /dev/shm ] || la_skip "/dev/shm is not writable"
	t_tmpdir "$1"
	la_tmp=$T_TMP
	RUN=$la_tmp/run
	STORE=$la_tmp/store
	# the working directory of every process started: stays empty
	mkdir -p "$RUN" "$STORE"
	t_defer la_cleanup
}

# la_vm VAR BASE: VAR receives a VM name unique to this run (BASE and
# the PID), registered for cleanup
la_vm() {
	local v=$2$$

	la_vms+=("$v")
	printf -v "$1" '%s' "$v"
}

# bad NAME WHY [DETAIL...]: a failed check (fail of tests/lib/lib.sh)
bad() {
	fail "$@"
}

# check NAME COND WHY: ok if the shell condition (a string) holds
check() {
	if eval "$2"; then
		ok "$1"
	else
		bad "$1" "$3"
	fi
}

# la_finish: the closing line and the exit status
la_finish() {
	finish
}

# la_end: the agent still answers and exits 0 on SIGTERM; the logs if
# anything failed; the closing line and the exit status
la_end() {
	local rc

	la_agent_alive && ok agent-alive || bad agent-alive "no ping"
	la_agent_stop
	rc=$?
	check agent-exits-0-on-sigterm "[ $rc -eq 0 ]" "exit $rc"
	[ "$t_failed" -gt 0 ] && la_show_logs
	la_finish
}

# la_same_soon A B: files A and B are equal within 20 s (a follower
# prints what it has read at its next poll); sets same=1 if so, else ''
la_same_soon() {
	same=
	for _ in $(seq 100); do
		cmp -s "$1" "$2" && { same=1; return 0; }
		sleep 0.2
	done
	return 1
}

# la_wait_grep FILE PATTERN SECS: FILE has a line matching PATTERN (grep's
# basic regular expression) within SECS; 1 on timeout
la_wait_grep() {
	local end=$(($(date +%s) + $3))

	while [ "$(date +%s)" -le "$end" ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# la_free_ports N: N TCP ports free on loopback now, on one line
la_free_ports() {
	"$PY" - "$1" <<'EOF'
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s:
    x.bind(('127.0.0.1', 0))
print(*[x.getsockname()[1] for x in s])
EOF
}

# la_wait_fg JOB SECS: wait for a t_bg job (a fake guest...) to end;
# returns its exit status (124 on timeout, after SIGTERM, then SIGKILL)
la_wait_fg() {
	if ! t_wait_pid "$1" "$2"; then
		t_term_job "$1"
		t_wait_pid "$1" 5 || t_term_job "$1" KILL
		t_reap "$1"
		return 124
	fi
	t_reap "$1"
}

# la_fg_stop_session JOB VM: end a fake "QEMU" that runs until told
# (SIGTERM), check that it exits 0, wait for its VM to be waiting; sets
# $sess to the VM's last session
la_fg_stop_session() {
	kill -TERM "$(t_child "$1")" 2>/dev/null
	la_wait_fg "$1" 30
	rc=$?
	check fakeguest-exits-0 "[ $rc -eq 0 ]" "exit $rc"
	la_wait_status "$2" "s['state'] == 'waiting'" 15
	sess=$(la_sessions "$2" | tail -n 1)
}

# gr ARGS...: the CLI with this test's run directory (20 s at most);
# sets $out (stdout), $err (stderr), $rc
gr() {
	out=$(timeout -k 5 20 "$GR" --run-dir "$RUN" --timeout 15 "$@" \
	      2>"$la_tmp/gr.err")
	rc=$?
	err=$(cat "$la_tmp/gr.err")
	return $rc
}

# la_agent_start [AGENT OPTIONS...]: t_agent_start with this test's
# run and store directories; LA_AGENT_SECS is its time limit (default
# 120); sets la_agent_pid and LA_AGENT_LOG
la_agent_start() {
	local rc

	T_AGENT_SECS=${LA_AGENT_SECS:-120}
	t_agent_start "$@"
	rc=$?
	la_agent_pid=$T_AGENT_PID
	la_agent_tpid=$T_AGENT_JOB
	LA_AGENT_LOG=$T_AGENT_LOG
	return $rc
}

# la_agent_alive: the agent process runs and answers `ping`
la_agent_alive() {
	t_agent_alive && gr ping >/dev/null 2>&1
}

# la_agent_kill9: SIGKILL the agent itself (not its timeout)
la_agent_kill9() {
	t_agent_kill9
	la_agent_pid= la_agent_tpid=
}

# la_agent_stop: SIGTERM, wait (10 s); returns the agent's exit status
la_agent_stop() {
	t_agent_stop
	local rc=$?

	la_agent_pid= la_agent_tpid=
	return $rc
}

# la_status VM: the VM's status as one JSON object in $out (rc 1 if none)
la_status() {
	gr status --json "$1" || return 1
	out=$("$PY" - "$1" "$out" <<'EOF'
import json, sys
vm, text = sys.argv[1], sys.argv[2]
try:
    d = json.loads(text)
except ValueError:
    sys.exit(1)
if isinstance(d, dict) and "vms" in d:
    d = [v for v in d["vms"] if v.get("name") == vm]
    d = d[0] if d else None
if not isinstance(d, dict):
    sys.exit(1)
print(json.dumps(d))
EOF
) || return 1
}

# la_field VM KEY: one status field (dotted: stats.packets); empty if none
la_field() {
	la_status "$1" || { echo ""; return 1; }
	"$PY" - "$2" "$out" <<'EOF'
import json, sys
d = json.loads(sys.argv[2])
for k in sys.argv[1].split("."):
    d = d.get(k) if isinstance(d, dict) else None
print("" if d is None else d)
EOF
}

# la_wait_status VM PYEXPR SECS: wait until PYEXPR holds on the status
# object `s` (e.g. "s['state'] == 'attached'"); 1 on timeout
la_wait_status() {
	local vm=$1 expr=$2 end=$(($(date +%s) + $3))

	while [ "$(date +%s)" -le "$end" ]; do
		if la_status "$vm" &&
		   "$PY" -c "import json,sys; s=json.loads(sys.argv[1]); sys.exit(0 if ($expr) else 1)" \
			"$out" 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# la_stat FILE KEY: one value of a fake guest --stats file
la_stat() {
	awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "" }' "$1"
}

# la_sessions VM: the VM's recording sessions (not snapshots), oldest first
la_sessions() {
	local d

	for d in "$STORE/$1"/[0-9]*; do
		[ -d "$d" ] && echo "$d"
	done
}

# la_host_stream_needs: what the host stream (hosttrace.c) needs here,
# or the test is skipped: root (perf events of host tracepoints, chrt
# -f), taskset, chrt, 2 CPUs, and tracefs mounted on $RUN/tracefs, where
# the agent looks first (unmounted at exit)
la_host_stream_needs() {
	[ "$(id -u)" = 0 ] || la_skip "needs root (perf events of host tracepoints, chrt -f)"
	command -v taskset >/dev/null || la_skip "taskset is needed"
	command -v chrt >/dev/null || la_skip "chrt is needed"
	[ "$(nproc)" -ge 2 ] || la_skip "needs 2 CPUs"
	mkdir -p "$RUN/tracefs"
	if mount -t tracefs nodev "$RUN/tracefs" 2>/dev/null; then
		la_mounts+=("$RUN/tracefs")
	else
		la_skip "cannot mount tracefs"
	fi
	[ -r "$RUN/tracefs/events/sched/sched_switch/id" ] ||
		la_skip "tracefs has no sched events"
}

# la_bt [-o dummy] TRACE_DIR...: babeltrace2 reads the traces (text
# output, or none with -o dummy: faster, the same decoding): exit 0 and
# no ERROR (its warnings, e.g. about discarded packets, are allowed);
# $bt_out gets its stderr
la_bt() {
	bt_out=$(timeout -k 5 60 babeltrace2 "$@" 2>&1 >/dev/null)
	local rc=$?
	[ "$rc" -eq 0 ] && ! grep -q ERROR <<<"$bt_out" && return 0
	# the end of babeltrace2's error: the innermost cause
	bt_out="exit $rc: $(tail -n 8 <<<"$bt_out")"
	return 1
}

# la_bt_clean TRACE_DIR...: as la_bt, and babeltrace2 says nothing at all
# (no discarded events or packets)
la_bt_clean() {
	la_bt "$@" && [ -z "$bt_out" ] && return 0
	bt_out="not silent: $bt_out"
	return 1
}

# la_btcheck ARGS...: bt_check.py (see its --help); output in $bt_out;
# LA_BT_SECS bounds it (default 60; long fault loops store millions of
# events); a timeout says so in $bt_out
la_btcheck() {
	local rc

	bt_out=$(timeout -k 5 "${LA_BT_SECS:-60}" "$PY" "$BT_CHECK" "$@" 2>&1)
	rc=$?
	[ "$rc" -eq 124 ] && bt_out="bt_check timed out after ${LA_BT_SECS:-60} s $bt_out"
	return $rc
}

# la_new_guest_exact VM FIRST STATS: after a re-publication, VM has one
# session besides FIRST (the sessions before it), whose trace holds every
# fake_seq the new guest (its --stats file STATS) wrote once, and the
# agent counted nothing invalid in it
la_new_guest_exact() {
	local sess n inv

	sess=$(la_sessions "$1" | grep -vxF "$2")
	n=$(grep -c . <<<"$sess")
	[ "$n" -eq 1 ] && ok "one new session for the new guest" ||
		bad new-session "$n new sessions: $sess"
	if [ "$n" -eq 1 ] &&
	   la_btcheck $sess --stats "$3" --expect written; then
		ok "the new guest's trace holds every fake_seq it wrote once"
	else
		bad new-trace-exact "$bt_out"
	fi
	inv=$(la_field "$1" stats.invalid)
	[ "$inv" = 0 ] && ok "nothing invalid in the new session" ||
		bad no-invalid "invalid $inv"
}

# la_pktcheck ARGS...: packets_check.py; output in $pkt_out
la_pktcheck() {
	pkt_out=$(timeout -k 5 60 "$PY" "$PKT_CHECK" "$@" 2>&1)
}

# la_show_logs: the end of the agent's and fake guests' logs, for a FAIL
la_show_logs() {
	local f

	for f in "$la_tmp"/*.log; do
		[ -f "$f" ] || continue
		echo "    --- $(basename "$f")"
		tail -n 15 "$f" | sed 's/^/    | /'
	done
}

# la_sampler_start VAR VM FILE: sample the VM's status --json five times a
# second into FILE (one compact JSON line each) until t_term_job VAR
la_sampler_start() {
	t_bg "$1" 120 "$3.log" bash -c '
		while :; do
			"$0" --run-dir "$1" --timeout 5 status --json "$2" 2>/dev/null |
			"$3" -c "import json,sys
try:
    print(json.dumps(json.load(sys.stdin)))
except ValueError:
    pass" >>"$4"
			sleep 0.2
		done' "$GR" "$RUN" "$2" "$PY" "$3"
}

# la_sampled_max FILE KEY...: the largest value of each stats KEY (or of
# a sum "a+b") over the samples of a VM, printed as "KEY=VALUE ..."
la_sampled_max() {
	"$PY" - "$@" <<'PYEOF'
import json, sys
path, keys = sys.argv[1], sys.argv[2:]
best = {k: 0 for k in keys}
try:
    lines = open(path).read().splitlines()
except OSError:
    lines = []
for line in lines:
    try:
        d = json.loads(line)
    except ValueError:
        continue
    vms = d.get("vms", [d]) if isinstance(d, dict) else []
    for vm in vms:
        st = vm.get("stats", {})
        for k in keys:
            v = sum(st.get(p, 0) for p in k.split("+"))
            best[k] = max(best[k], v)
print(" ".join("%s=%d" % (k, best[k]) for k in keys))
PYEOF
}

# la_prom_config TARGET...: $la_tmp/prom/prometheus.yml, a Prometheus
# that scrapes the TARGETs (HOST:PORT) every second as job guestrelay;
# a test may append more jobs before la_prom_start
la_prom_config() {
	local t

	mkdir -p "$la_tmp/prom"
	{
		printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
		printf 'scrape_configs:\n  - job_name: guestrelay\n'
		printf '    static_configs:\n      - targets:\n'
		for t in "$@"; do
			printf "          - '%s'\n" "$t"
		done
	} >"$la_tmp/prom/prometheus.yml"
}

# la_prom_start VAR PORT: the real prometheus ($PROM) of la_prom_config's
# file on 127.0.0.1:PORT, 60 s at most, as t_bg job VAR (stop it with
# la_prom_stop); its log is $la_tmp/prometheus.log
la_prom_start() {
	t_bg "$1" 60 "$la_tmp/prometheus.log" "$PROM" \
		--config.file="$la_tmp/prom/prometheus.yml" \
		--storage.tsdb.path="$la_tmp/prom/data" \
		--web.listen-address="127.0.0.1:$2" \
		--storage.tsdb.retention.time=1h
}

# la_prom_query PORT PROMQL: the query through the HTTP API of the
# Prometheus on 127.0.0.1:PORT, one line "VALUE VM" per series, VM the
# vm label as a JSON string ("" without one); nothing if no result (yet)
la_prom_query() {
	curl -sS -m 5 -G "http://127.0.0.1:$1/api/v1/query" \
		--data-urlencode "query=$2" 2>/dev/null |
		"$PY" -c 'import json, sys
try:
    d = json.load(sys.stdin)
    for r in d["data"]["result"] if d.get("status") == "success" else []:
        print(r["value"][1], json.dumps(r["metric"].get("vm", "")))
except (ValueError, KeyError, IndexError, TypeError):
    pass'
}

# la_prom_stop JOB: SIGTERM (then SIGKILL after 10 s) and reap
la_prom_stop() {
	t_term_job "$1"
	t_wait_pid "$1" 10 || t_term_job "$1" KILL
	t_reap "$1"
}

# la_tmpfs_store MiB: put STORE on a tmpfs of that size (mounted here and
# unmounted at exit), or, without the right to mount, in a directory
# under /dev/shm (removed at exit); prints which
la_tmpfs_store() {
	local m=$la_tmp/tmpfs

	mkdir -p "$m"
	if mount -t tmpfs -o "size=${1}m" tmpfs "$m" 2>/dev/null; then
		la_mounts+=("$m")
		STORE=$m/store
		echo "tmpfs of $1 MiB at $m"
	else
		la_shm_dir=$(mktemp -d "/dev/shm/$la_name.XXXXXX")
		STORE=$la_shm_dir/store
		echo "$la_shm_dir (/dev/shm)"
	fi
	mkdir -p "$STORE"
}
