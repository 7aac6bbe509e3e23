#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_basic.sh - the real module in a real guest, traced by the real agent
#
# Boots the test guest (ivshmem-doorbell, 2 CPUs) running /gr/e2e-workload
# (the standard workload: fork/exec, pipes, block I/O on a loop device,
# ping) with the agent's default events and a 100 ms switch timer.
# Checks that events arrived from every CPU, of every kind the workload
# causes, including the exec of /gr/workload; that babeltrace2 reads the
# trace (exit 0) and prints exactly as many events as `guestrelay report
# --summary` counts; that nothing was lost or dropped; that the console
# has no WARNING:, BUG:, Oops or Call Trace; that the agent runs on;
# that `guestrelay timeline` draws the trace as test_timeline.sh checks
# (one lane per CPU, busy time = span minus idle, Chromium renders it);
# and that a real `babeltrace2 -i lttng-live` following the guest from
# the agent's --live port as it records printed exactly the stored trace;
# and that the clock-sync bound in the trace's metadata is at most
# GR_E2E_SYNC_BOUND_NS (default 20 us) under TCG, which takes rounds
# answered by polling (spec 1.12, GR_F_SYNC_POLL).
# Ends with "N passed, N failed"; exit 77 if it cannot run.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

# check_tsc_clock VM: the trace is stamped with the TSC at its rate: the
# metadata names clock "tsc" at the guest's TSC rate; between the marks
# the event clock (clock_now_ns) and CLOCK_MONOTONIC advanced alike; every
# exec of /bin/true by the workload lies between its marks
check_tsc_clock() {
	local dir meta s e sm em span mspan first last n

	dir=$(newest_trace "$1")
	meta=$(cat "$dir/metadata" 2>/dev/null)
	if grep -q 'name = tsc;' <<<"$meta" &&
	   ! grep -qE 'freq = 1000000000;' <<<"$meta"; then
		ok "$1: the trace's clock is the TSC ($(grep -oE 'freq = [0-9]+' <<<"$meta" | head -n 1))"
	else
		fail "$1: the trace's clock is the TSC" \
			"$(grep -A3 '^clock' <<<"$meta")"
	fi
	s=$(mark_time "$1" start) e=$(mark_time "$1" end)
	sm=$(sed -n 's/^GR: MARK start .* mono=\([0-9]*\).*/\1/p' "$tmp/$1.console")
	em=$(sed -n 's/^GR: MARK end .* mono=\([0-9]*\).*/\1/p' "$tmp/$1.console")
	if [ -n "$s" ] && [ -n "$e" ] && [ -n "$sm" ] && [ -n "$em" ]; then
		span=$((e - s)) mspan=$((em - sm))
		# reading the two clocks is tens of ms apart under a loaded TCG; a
		# wrong clock_freq is off by a factor, not by 10%
		if [ $((span * 100)) -ge $((mspan * 90)) ] &&
		   [ $((span * 100)) -le $((mspan * 110)) ]; then
			ok "$1: event clock and CLOCK_MONOTONIC agree over the workload ($((span / 1000000)) ms, $((mspan / 1000000)) ms)"
		else
			fail "$1: event clock and CLOCK_MONOTONIC agree over the workload" \
				"event clock ${span} ns, CLOCK_MONOTONIC ${mspan} ns"
		fi
	else
		fail "$1: the workload's marks carry both clocks" \
			"$(grep 'GR: MARK' "$tmp/$1.console")"
		return
	fi
	"$GR" report --events sched_process_exec "$dir" 2>/dev/null |
		grep 'filename=/bin/true$' | report_ts >"$tmp/true.ts"
	n=$(wc -l <"$tmp/true.ts")
	first=$(sort -n "$tmp/true.ts" | head -n 1)
	last=$(sort -n "$tmp/true.ts" | tail -n 1)
	if [ "$n" -gt 0 ] && [ "$first" -gt "$s" ] && [ "$last" -lt "$e" ]; then
		ok "$1: the workload's $n execs of /bin/true lie between its marks"
	else
		fail "$1: the workload's execs of /bin/true lie between its marks" \
			"$n execs, first ${first:-?}, last ${last:-?}, marks $s .. $e"
	fi
}

# live_follow VM: once the agent lists VM's session on its LTTng-live
# port, a real `babeltrace2 -i lttng-live` follows it (issue 23) until the
# session ends; sets $live_job, or says why not
live_follow() {
	local q=

	for _ in $(seq 300); do
		q=$(timeout 10 babeltrace2 query src.ctf.lttng-live sessions \
			--params "url=\"net://127.0.0.1:$LPORT\"" 2>&1)
		grep -q "url: net://127.0.0.1:$LPORT/host/$(hostname)/$1\$" <<<"$q" &&
			break
		q=
		sleep 0.3
	done
	if [ -z "$q" ]; then
		fail "$1: the live session is listed" "not within 90 s"
		return
	fi
	ok "$1: the live session is listed while the guest records"
	t_bg live_job 300 "$tmp/live-$1.txt" babeltrace2 --clock-cycles \
		-i lttng-live "net://127.0.0.1:$LPORT/host/$(hostname)/$1" \
		--params 'session-not-found-action="end"'
}

# live_check VM: the viewer ended with the session, having printed line
# for line what babeltrace2 prints of the stored trace (in clock cycles,
# as tests/integration/test_live.sh: a viewer gets the clock offset of
# when it attached, the stored metadata the one the last clock sync
# refined)
live_check() {
	local rc n

	[ -n "${live_job:-}" ] || return
	t_wait_pid "$live_job" 60 || t_term_job "$live_job"
	t_reap "$live_job"
	rc=$?
	timeout 120 babeltrace2 --clock-cycles "$(newest_trace "$1")" \
		>"$tmp/stored-$1.txt" 2>&1
	n=$(grep -c . "$tmp/stored-$1.txt")
	if [ "$rc" -eq 0 ] && [ "$n" -gt 1000 ] &&
	   cmp -s "$tmp/stored-$1.txt" "$tmp/live-$1.txt"; then
		ok "$1: the live viewer printed the stored trace, line for line ($n events)"
	else
		fail "$1: the live viewer printed the stored trace, line for line" \
			"viewer exit $rc, $n events stored, $(grep -c . "$tmp/live-$1.txt") seen live" \
			"$(diff "$tmp/stored-$1.txt" "$tmp/live-$1.txt" | head -n 5)"
	fi
}

# check_sync_bound VM: clock_error_ns of the session's metadata (the
# tightest round kept, spec 9.5) is at most SYNC_BOUND_NS; the polled
# rounds and missed spins of the agent are noted
SYNC_BOUND_NS=${GR_E2E_SYNC_BOUND_NS:-20000}
check_sync_bound() {
	local err counts

	err=$(grep -ao 'clock_error_ns = [0-9]*' "$(newest_trace "$1")/metadata" |
		head -n 1 | awk '{ print $3 }')
	counts=$(json_get "$1" 'str(v["stats"]["sync_polled"]) + " rounds polled, " + str(v["stats"]["sync_spin_missed"]) + " spins missed"')
	note "$1: clock-sync bound ${err:-none} ns ($counts)"
	[ -n "$err" ] && [ "$err" -gt 0 ] && [ "$err" -le "$SYNC_BOUND_NS" ] &&
		ok "$1: clock-sync bound at most $SYNC_BOUND_NS ns under TCG" ||
		fail "$1: clock-sync bound at most $SYNC_BOUND_NS ns under TCG" \
			"clock_error_ns ${err:-none} ($counts)"
}

e2e_init
read -r LPORT < <(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_agent --live "127.0.0.1:$LPORT"
vm=$(vm_name b)

# clocksource=tsc tsc=reliable: the kernel trusts the TSC, so the module
# stamps events with it (clock "tsc"; the other e2e guests, whose kernel
# marks the TSC unstable under TCG, use mono_fast)
boot_guest "$vm" --run e2e-workload \
	--append "gr.secs=3 clocksource=tsc tsc=reliable" \
	--vm-args "--switch-timer-ms 100"
live_follow "$vm"
guest_ran "$vm" e2e-workload
check_workload_trace "$vm"
live_check "$vm"
check_tsc_clock "$vm"
check_sync_bound "$vm"
# guestrelay timeline draws this real guest's trace; Chromium renders it
t_import "timeline of $vm's trace" env GR_TIMELINE_TRACE="$(newest_trace "$vm")" \
	GR_TIMELINE_REAL_ONLY=1 bash "$E2E_TOP/tests/integration/test_timeline.sh"
st=$(json_get "$vm" 'v["state"]+","+v["stop_reason"]')
[ "$st" = "waiting,guest" ] &&
	ok "after power-off the agent closed the session and waits" ||
	fail "after power-off the agent closed the session and waits" \
		"state,stop_reason: $st"
agent_alive && ok "the agent is still running" ||
	fail "the agent is still running" "it exited" "$(tail -n 20 "$tmp/agent.log")"
finish
