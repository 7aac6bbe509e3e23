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

la_name=
la_tmp=
RUN=
STORE=
la_passed=0
la_failed=0
la_skipped=0
la_agent_pid=		# the agent itself (not its timeout)
la_agent_tpid=		# its la_bg job
la_agent_n=0
la_pids=()		# every la_bg job (subshell running timeout(1))
declare -A la_reaped	# jobs already waited for (their PIDs may be reused)
la_vms=()		# VM names: /dev/shm/guestrelay-<vm> removed at exit
la_mounts=()		# tmpfs mounts: unmounted at exit
la_shm_dir=		# a store under /dev/shm: removed at exit
la_t0=$(date +%s.%N)

# la_skip REASON: cannot run here (exit 77)
la_skip() {
	echo "$la_name: skipped: $*"
	exit 77
}

la_cleanup() {
	local p m v

	for p in "${la_pids[@]}"; do
		[ -n "${la_reaped[$p]:-}" ] || la_term_job "$p"
	done
	for p in "${la_pids[@]}"; do
		[ -n "${la_reaped[$p]:-}" ] && continue
		la_wait_pid "$p" 10 || la_term_job "$p" KILL
		wait "$p" 2>/dev/null
	done
	for m in "${la_mounts[@]}"; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	for v in "${la_vms[@]}"; do
		rm -f "/dev/shm/guestrelay-$v"
	done
	[ -n "${la_shm_dir:-}" ] && rm -rf "$la_shm_dir"
	if [ -n "$la_tmp" ]; then
		if [ "${KEEP:-0}" = 1 ]; then
			echo "kept $la_tmp"
		else
			rm -rf "$la_tmp"
		fi
	fi
}

# la_init NAME: checks, temporary run and store directories, the trap
la_init() {
	la_name=$1
	[ -x "$GR" ] || la_skip "no agent binary at $GR (make -C host-agent)"
	[ -x "$FG" ] || la_skip "no fake guest at $FG (make -C tests/fakeguest)"
	command -v timeout >/dev/null || la_skip "timeout(1) is needed"
	command -v babeltrace2 >/dev/null || la_skip "babeltrace2 is needed"
	[ -x "$PY" ] || la_skip "no $PY"
	"$PY" -c 'import bt2' 2>/dev/null || la_skip "python3-bt2 is needed"
	[ -d /dev/shm ] && [ -w /dev/shm ] || la_skip "/dev/shm is not writable"
	la_tmp=$(mktemp -d "/tmp/$la_name.XXXXXX") || la_skip "no temp dir"
	chmod 755 "$la_tmp"
	RUN=$la_tmp/run
	STORE=$la_tmp/store
	# the working directory of every process started: stays empty
	mkdir -p "$RUN" "$STORE" "$la_tmp/cwd"
	trap la_cleanup EXIT
	trap 'exit 130' INT TERM
}

# la_vm VAR BASE: VAR receives a VM name unique to this run (BASE and
# the PID), registered for cleanup
la_vm() {
	local v=$2$$

	la_vms+=("$v")
	printf -v "$1" '%s' "$v"
}

ok() {
	echo "ok - $1"
	la_passed=$((la_passed + 1))
}

# bad NAME WHY [DETAIL...]: a failed check; details are indented
bad() {
	local l name=$1 why=$2

	shift 2
	echo "FAIL - $name: $why"
	for l in "$@"; do
		printf '%s\n' "$l" | head -n 40 | sed 's/^/    | /'
	done
	la_failed=$((la_failed + 1))
}

# skip_check NAME WHY: a check that cannot run here (never a pass)
skip_check() {
	echo "skip - $1: $2"
	la_skipped=$((la_skipped + 1))
}

# check NAME COND WHY: ok if the shell condition (a string) holds
check() {
	if eval "$2"; then
		ok "$1"
	else
		bad "$1" "$3"
	fi
}

la_elapsed() {
	echo "$(date +%s.%N) $la_t0" | awk '{ printf "%.1f", $1 - $2 }'
}

# la_finish: the closing line and the exit status
la_finish() {
	local line="$la_passed passed, $la_failed failed"

	[ "$la_skipped" -gt 0 ] && line="$line, $la_skipped skipped"
	echo "# $la_name: $(la_elapsed) s"
	echo "$line"
	[ "$la_failed" -eq 0 ] && exit 0
	exit 1
}

# la_wait_pid PID SECS: wait for a process to end; 1 if still running
la_wait_pid() {
	local pid=$1 n=$(($2 * 20))

	while kill -0 "$pid" 2>/dev/null; do
		[ -e "/proc/$pid/stat" ] &&
			[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = Z ] &&
			return 0
		n=$((n - 1))
		[ "$n" -le 0 ] && return 1
		sleep 0.05
	done
	return 0
}

# la_child PID: the command a la_bg job runs (PID is the job's subshell,
# whose child is timeout(1), whose child is the command); waits for it
la_child() {
	local c p=$1 depth=0 n=150

	while [ "$n" -gt 0 ] && [ "$depth" -lt 2 ]; do
		c=$(ps -o pid= --ppid "$p" 2>/dev/null | head -n1 | tr -d ' ')
		if [ -n "$c" ]; then
			p=$c
			depth=$((depth + 1))
			continue
		fi
		n=$((n - 1))
		sleep 0.02
	done
	[ "$depth" -eq 2 ] || return 1
	echo "$p"
}

# la_reap JOB: wait for a finished la_bg job; returns its exit status
la_reap() {
	wait "$1" 2>/dev/null
	local rc=$?

	la_reaped[$1]=1
	return $rc
}

# la_term_job JOB [SIGNAL]: signal (default TERM) the command of a la_bg
# job, once (timeout(1) would pass a signal on twice: to the command and
# to its process group); KILL goes to the command and its timeout(1)
la_term_job() {
	local t c sig=${2:-TERM}

	t=$(ps -o pid= --ppid "$1" 2>/dev/null | head -n1 | tr -d ' ')
	if [ -z "$t" ]; then
		kill -"$sig" "$1" 2>/dev/null
		return
	fi
	c=$(ps -o pid= --ppid "$t" 2>/dev/null | head -n1 | tr -d ' ')
	if [ -n "$c" ]; then
		kill -"$sig" "$c" 2>/dev/null
		[ "$sig" = KILL ] && kill -KILL "$t" 2>/dev/null
	else
		kill -"$sig" "$t" 2>/dev/null
	fi
}

# la_bg VAR SECS LOG CMD...: run CMD under timeout in the background (in
# a subshell, so that a SIGKILL of CMD is an exit status, not a message),
# in the empty directory $la_tmp/cwd; VAR receives the job's PID: `wait`
# on it gives CMD's exit status
la_bg() {
	local var=$1 secs=$2 log=$3

	shift 3
	: >"$log"
	(
		cd "$la_tmp/cwd" || exit 1
		timeout -k 5 "$secs" "$@" >>"$log" 2>&1 </dev/null
		exit $?
	) 2>>"$log" &
	la_pids+=("$!")
	printf -v "$var" '%s' "$!"
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

# la_agent_start [AGENT OPTIONS...]: start `guestrelay agent` with this
# test's run and store directories, wait for `ping`. LA_AGENT_SECS is its
# time limit (default 120).
la_agent_start() {
	local n=100

	la_agent_n=$((la_agent_n + 1))
	LA_AGENT_LOG=$la_tmp/agent.$la_agent_n.log
	la_bg la_agent_tpid "${LA_AGENT_SECS:-120}" "$LA_AGENT_LOG" \
		"$GR" agent --run-dir "$RUN" --store "$STORE" "$@"
	la_agent_pid=$(la_child "$la_agent_tpid")
	while [ "$n" -gt 0 ]; do
		if [ -S "$RUN/agent.sock" ] && gr ping >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$la_agent_tpid" 2>/dev/null || break
		n=$((n - 1))
		sleep 0.05
	done
	echo "$la_name: the agent did not start:" >&2
	sed 's/^/    | /' "$LA_AGENT_LOG" >&2
	return 1
}

# la_agent_alive: the agent process runs and answers `ping`
la_agent_alive() {
	[ -n "$la_agent_pid" ] && kill -0 "$la_agent_pid" 2>/dev/null &&
		gr ping >/dev/null 2>&1
}

# la_agent_kill9: SIGKILL the agent itself (not its timeout)
la_agent_kill9() {
	kill -KILL "$la_agent_pid" 2>/dev/null
	la_reap "$la_agent_tpid"
	la_agent_pid=
}

# la_agent_stop: SIGTERM, wait (10 s); returns the agent's exit status
la_agent_stop() {
	local rc

	[ -n "$la_agent_tpid" ] || return 0
	kill -TERM "$la_agent_pid" 2>/dev/null
	la_wait_pid "$la_agent_tpid" 10 || la_term_job "$la_agent_tpid" KILL
	la_reap "$la_agent_tpid"
	rc=$?
	la_agent_pid=
	la_agent_tpid=
	return $rc
}

# la_wait_fg JOB SECS: wait for a la_bg job (a fake guest...) to end;
# returns its exit status (124 on timeout, after SIGTERM, then SIGKILL)
la_wait_fg() {
	if ! la_wait_pid "$1" "$2"; then
		la_term_job "$1"
		la_wait_pid "$1" 5 || la_term_job "$1" KILL
		la_reap "$1"
		return 124
	fi
	la_reap "$1"
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

# la_btcheck ARGS...: bt_check.py (see its --help); output in $bt_out
la_btcheck() {
	bt_out=$(timeout -k 5 60 "$PY" "$BT_CHECK" "$@" 2>&1)
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
# second into FILE (one compact JSON line each) until la_term_job VAR
la_sampler_start() {
	la_bg "$1" 120 "$3.log" bash -c '
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
