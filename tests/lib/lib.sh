# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - the one shell library of guestrelay's script tests (sourced):
# results and the closing line, skipping, a clean-up registry, processes
# under a time limit, and starting/stopping an agent. The integration
# (tests/integration/lib_agent.sh), end-to-end (tests/e2e/lib.sh), libvirt
# and benchmark scripts source it and add only what is theirs.
#
#   t_init NAME            name for messages; installs the EXIT trap
#   t_tmpdir PREFIX        $T_TMP, a fresh temporary directory removed at
#                          exit (kept, and its path printed, with KEEP=1 or
#                          GR_KEEP=1)
#   t_defer CMD            run the shell text CMD at exit (last in, first run)
#   ok NAME / fail NAME WHY [DETAIL...] / skip_check NAME WHY / note TEXT
#   t_skip WHY             the whole test cannot run here: exit 77
#   finish                 "N passed, N failed[, N skipped]" and the status:
#                          1 on a failure or if nothing ran, 77 if all skipped
#   t_bg VAR SECS LOG CMD...   CMD under timeout(1) in the background
#   t_child JOB / t_term_job JOB [SIG] / t_wait_pid PID SECS / t_reap JOB
#   stop_pid PID [SECS]    SIGTERM, SIGKILL after SECS (default 5)
#   t_agent_start [OPTS]   `guestrelay agent` on $RUN/$STORE, waits for ping
#   t_agent_stop           SIGTERM, then SIGKILL after 10 s; its exit status
#   t_agent_kill9          SIGKILL to the agent itself (not its timeout)
#
# Every process started by t_bg is ended at exit, whatever happened.

T_NAME=$(basename "$0" .sh)
T_TMP=
T_T0=$(date +%s.%N)
t_passed=0
t_failed=0
t_skipped=0
t_deferred=()
t_jobs=()		# every t_bg job (a subshell running timeout(1))
declare -A t_reaped	# jobs already waited for (their PIDs may be reused)
T_AGENT_PID=		# the agent itself (not its timeout)
T_AGENT_JOB=		# its t_bg job
T_AGENT_N=0
T_AGENT_WRAP=()		# a command prefix for the agent (setpriv ...)

t_elapsed() {
	echo "$(date +%s.%N) $T_T0" | awk '{ printf "%.1f", $1 - $2 }'
}

# ---- results --------------------------------------------------------------

ok() {
	echo "ok - $1"
	t_passed=$((t_passed + 1))
}

# fail NAME WHY [DETAIL...]: one FAIL line, then the details indented
fail() {
	local l name=$1 why=$2

	shift 2
	echo "FAIL - $name: $why"
	for l in "$@"; do
		printf '%s\n' "$l" | head -n 40 | sed 's/^/    | /'
	done
	t_failed=$((t_failed + 1))
}

# skip_check NAME WHY: one check that cannot run here (never a pass)
skip_check() {
	echo "skip - $1: $2"
	t_skipped=$((t_skipped + 1))
}

note() {
	echo "# $*"
}

# t_import LABEL CMD...: run another test script's checks as part of this
# one: its lines are shown indented, and its closing "N passed, N failed[,
# N skipped]" is added to this test's counts; a script that skipped
# whole (exit 77) counts as one skipped check, one that ended without a
# closing line as one failure
t_import() {
	local label=$1 out rc line p f s
	shift
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed 's/^/    /'
	if [ "$rc" -eq 77 ]; then
		skip_check "$label" "$(printf '%s\n' "$out" | tail -n 1)"
		return
	fi
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		fail "$label" "exit $rc without a closing line"
		return
	fi
	read -r p _ f _ <<<"${line//,/}"
	s=$(sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p' <<<"$line")
	t_passed=$((t_passed + p))
	t_failed=$((t_failed + f))
	t_skipped=$((t_skipped + ${s:-0}))
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || fail "$label" "exit $rc"
}

t_skip() {
	echo "$T_NAME: skipped: $*"
	exit 77
}

finish() {
	local line="$t_passed passed, $t_failed failed"

	[ "$t_skipped" -gt 0 ] && line="$line, $t_skipped skipped"
	echo "# $T_NAME: $(t_elapsed) s"
	echo "$line"
	[ "$t_failed" -gt 0 ] && exit 1
	[ "$t_passed" -gt 0 ] && exit 0
	[ "$t_skipped" -gt 0 ] && exit 77
	exit 1
}

# ---- clean-up -------------------------------------------------------------

t_defer() {
	t_deferred+=("$1")
}

# shellcheck disable=SC2317 # run by the EXIT trap
t_cleanup() {
	local rc=$? i p

	trap - EXIT INT TERM HUP
	for ((i = ${#t_deferred[@]} - 1; i >= 0; i--)); do
		eval "${t_deferred[$i]}"
	done
	for p in "${t_jobs[@]}"; do
		[ -n "${t_reaped[$p]:-}" ] || t_term_job "$p"
	done
	for p in "${t_jobs[@]}"; do
		[ -n "${t_reaped[$p]:-}" ] && continue
		t_wait_pid "$p" 10 || t_term_job "$p" KILL
		wait "$p" 2>/dev/null
	done
	if [ -n "$T_TMP" ] && [ -d "$T_TMP" ]; then
		if [ "${KEEP:-${GR_KEEP:-0}}" = 1 ]; then
			echo "# kept $T_TMP"
		else
			rm -rf "$T_TMP"
		fi
	fi
	exit "$rc"
}

t_init() {
	T_NAME=$1
	trap t_cleanup EXIT
	trap 'echo "$T_NAME: interrupted"; exit 130' INT TERM HUP
}

t_tmpdir() {
	T_TMP=$(mktemp -d "/tmp/$1.XXXXXX") || t_skip "no temporary directory"
	chmod 755 "$T_TMP"
	mkdir -p "$T_TMP/cwd"	# where every t_bg job runs: stays empty
}

# ---- processes ------------------------------------------------------------

# t_wait_pid PID SECS: wait for a process to end (or be a zombie); 1 if it
# still runs after SECS
t_wait_pid() {
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

# stop_pid PID [SECS]: SIGTERM, then SIGKILL after SECS (default 5)
stop_pid() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	t_wait_pid "$1" "${2:-5}" || kill -9 "$1" 2>/dev/null
	return 0
}

# t_child JOB: the command a t_bg job runs (JOB is the job's subshell,
# whose child is timeout(1), whose child is the command)
t_child() {
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

# t_reap JOB: wait for a finished t_bg job; returns its exit status
t_reap() {
	wait "$1" 2>/dev/null
	local rc=$?

	t_reaped[$1]=1
	return $rc
}

# t_term_job JOB [SIGNAL]: signal (default TERM) the command of a t_bg
# job once (timeout(1) would pass a signal on twice: to the command and
# to its process group); KILL goes to the command and its timeout(1)
t_term_job() {
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

# t_bg VAR SECS LOG CMD...: run CMD under timeout in the background (in a
# subshell, so that a SIGKILL of CMD is an exit status, not a message), in
# the empty directory $T_TMP/cwd; VAR receives the job's PID: `wait` on
# it (or t_reap) gives CMD's exit status
t_bg() {
	local var=$1 secs=$2 log=$3

	shift 3
	: >>"$log"
	(
		cd "${T_TMP:-/}/cwd" 2>/dev/null || cd / || exit 1
		timeout -k 5 "$secs" "$@" >>"$log" 2>&1 </dev/null
		exit $?
	) 2>>"$log" &
	t_jobs+=("$!")
	printf -v "$var" '%s' "$!"
}

# ---- the agent ------------------------------------------------------------

# t_ping: the agent on $RUN answers
t_ping() {
	timeout -k 2 10 "$GR" --run-dir "$RUN" --timeout 5 ping >/dev/null 2>&1
}

# t_agent_start [AGENT OPTIONS...]: `guestrelay agent` with $RUN and
# $STORE, run through ${T_AGENT_WRAP[@]} (e.g. setpriv), limited to
# T_AGENT_SECS (default 600; a wrapper must exec the agent, as setpriv
# does, so that $T_AGENT_PID is the agent); the log is $T_AGENT_LOG:
# $T_AGENT_LOGFILE (appended to) or a new file per start. Waits up to
# 10 s for ping; 1 (the log on stderr) if it did not come.
t_agent_start() {
	local n=100

	T_AGENT_N=$((T_AGENT_N + 1))
	T_AGENT_LOG=${T_AGENT_LOGFILE:-$T_TMP/agent.$T_AGENT_N.log}
	t_bg T_AGENT_JOB "${T_AGENT_SECS:-600}" "$T_AGENT_LOG" \
		"${T_AGENT_WRAP[@]}" "$GR" agent --run-dir "$RUN" \
		--store "$STORE" "$@"
	T_AGENT_PID=$(t_child "$T_AGENT_JOB")
	while [ "$n" -gt 0 ]; do
		[ -S "$RUN/agent.sock" ] && t_ping && return 0
		kill -0 "$T_AGENT_JOB" 2>/dev/null || break
		n=$((n - 1))
		sleep 0.1
	done
	echo "$T_NAME: the agent did not start:" >&2
	sed 's/^/    | /' "$T_AGENT_LOG" >&2
	return 1
}

# t_agent_alive: the agent process runs
t_agent_alive() {
	[ -n "$T_AGENT_PID" ] && kill -0 "$T_AGENT_PID" 2>/dev/null
}

# t_agent_kill9: SIGKILL to the agent itself (not its timeout), reaped
t_agent_kill9() {
	[ -n "$T_AGENT_JOB" ] || return 0
	kill -KILL "$T_AGENT_PID" 2>/dev/null
	t_reap "$T_AGENT_JOB"
	T_AGENT_PID=
	T_AGENT_JOB=
}

# t_agent_stop: SIGTERM, wait (10 s, then SIGKILL); the agent's status
t_agent_stop() {
	[ -n "$T_AGENT_JOB" ] || return 0
	kill -TERM "$T_AGENT_PID" 2>/dev/null
	t_wait_pid "$T_AGENT_JOB" 10 || t_term_job "$T_AGENT_JOB" KILL
	t_reap "$T_AGENT_JOB"
	local rc=$?

	T_AGENT_PID=
	T_AGENT_JOB=
	return $rc
}
