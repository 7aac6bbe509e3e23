#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_hist_prom.sh - run-queue latency counted in real guests' code,
# read by a real Prometheus from two agents
#
# Two real agents (each its run directory, store and --metrics port on
# 127.0.0.1) serve three VMs each; every VM's guest is a real fake guest
# with --sched (the guest's own gr_hist.c over its hist area; each CPU
# wakes a task per tick and switches to it 1..8 ticks later). Checks:
#   - `guestrelay hist VM --latency runq` runs on all six guests, and
#     `hist VM runq` shows hits in several log2 buckets for each
#   - recording off on one VM (`disable VM all`): its table keeps
#     filling while the agent stores nothing more for it and the guest
#     records nothing (stats.bytes, stats.guest_events stay; those of a
#     recording VM grow meanwhile)
#   - a real `prometheus` scrapes both agents' /metrics every second;
#     histogram_quantile(0.99, sum by (vm, le)
#     (rate(guestrelay_vm_hist_runq_seconds_bucket[5s]))) through its
#     HTTP API is a finite latency (0 < p99 < 1 s) for each of the six VMs
#   - the guests end cleanly, both agents exit 0 on SIGTERM
# Every process runs under a time limit and is stopped at exit. Without
# prometheus (scripts/deps.sh metrics) the test is skipped.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
la_init test_hist_prom
out='' err='' rc=0 prom='' bytes1='' bytes2='' events1='' events2=''
hits1='' hits2='' rec1='' rec2=''	# set by gr, t_bg and sample

command -v curl >/dev/null || la_skip "curl is needed (scripts/deps.sh metrics)"
PROM=$(command -v prometheus) ||
	la_skip "prometheus is needed (scripts/deps.sh metrics: Debian package prometheus)"

LA_AGENT_SECS=90
read -r MPORT1 MPORT2 PPORT < <(la_free_ports 3)
la_vm A1 hpa
la_vm A2 hpb
la_vm A3 hpc
la_vm B1 hpd
la_vm B2 hpe
la_vm B3 hpf
VMS1=("$A1" "$A2" "$A3")
VMS2=("$B1" "$B2" "$B3")
OFF=$B3				# recording off, aggregation on
declare -A ag_pid ag_job ag_of fgs

# agent_use N: gr, la_* and the end act on agent N (its run directory)
agent_use() {
	RUN=$la_tmp/run$1
	STORE=$la_tmp/store$1
	T_AGENT_PID=${ag_pid[$1]:-}
	T_AGENT_JOB=${ag_job[$1]:-}
	# shellcheck disable=SC2034 # lib_agent.sh's
	la_agent_pid=$T_AGENT_PID
	# shellcheck disable=SC2034 # lib_agent.sh's
	la_agent_tpid=$T_AGENT_JOB
}

# agent_up N PORT VM...: agent N with /metrics on PORT serving the VMs
agent_up() {
	local n=$1 port=$2 v args=()

	shift 2
	for v in "$@"; do
		args+=(--vm "$v")
		ag_of[$v]=$n
	done
	agent_use "$n"
	mkdir -p "$RUN" "$STORE"
	la_agent_start --metrics "127.0.0.1:$port" "${args[@]}" || return 1
	ag_pid[$n]=$T_AGENT_PID
	ag_job[$n]=$T_AGENT_JOB
}

# on VM: agent_use of the agent that serves VM
on() {
	agent_use "${ag_of[$1]}"
}

# hist_json VM: `hist VM runq --json` as "state hits buckets" in $out
hist_json() {
	on "$1"
	gr --json hist "$1" runq || return 1
	out=$("$PY" - "$out" <<'EOF'
import json, sys
try:
    h = json.loads(sys.argv[1])["hists"][0]
    print(h["state"], h["totals"]["hits"], len(h["entries"]))
except (ValueError, KeyError, IndexError):
    print("none 0 0")
EOF
)
}

# ---- two agents, three guests each ---------------------------------------------
agent_up 1 "$MPORT1" "${VMS1[@]}" ||
	{ bad agent-1-starts "see the log"; la_show_logs; la_finish; }
agent_up 2 "$MPORT2" "${VMS2[@]}" ||
	{ bad agent-2-starts "see the log"; la_show_logs; la_finish; }
ok "two-agents-start"
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	on "$v"
	t_bg "fgs[$v]" 60 "$la_tmp/fg-$v.log" "$FG" --socket "$RUN/$v.sock" \
		--cpus 2 --rate 500 --events 1 --sched --duration 45 \
		--linger 2 --stats "$la_tmp/$v.stats"
done
n=0
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	on "$v"
	la_wait_status "$v" "s['state'] == 'attached'" 15 && n=$((n + 1))
done
check "six-guests-attached" "[ $n -eq 6 ]" "$n attached"

# ---- recording off on one VM; runq on all ---------------------------------------
on "$OFF"
gr disable "$OFF" all
check "recording-off-$OFF" "[ $rc -eq 0 ]" "exit $rc: $err"
n=0
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	on "$v"
	gr hist "$v" --latency runq && n=$((n + 1))
done
check "runq-requested-on-six" "[ $n -eq 6 ]" "$n accepted: $err"
n=0
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	for _ in $(seq 50); do
		hist_json "$v"
		read -r st hits _ <<<"$out"
		[ "$st" = running ] && [ "$hits" -gt 0 ] && break
		sleep 0.2
	done
	[ "$st" = running ] && [ "$hits" -gt 0 ] && n=$((n + 1))
done
check "runq-runs-and-counts-on-six" "[ $n -eq 6 ]" "$n of 6 (last: $out)"
# sample N: what the stopped VM stored (bytesN, eventsN) and counted
# (hitsN), and what a recording VM recorded (recN)
sample() {
	local b e h r

	on "$OFF"
	b=$(la_field "$OFF" stats.bytes)
	e=$(la_field "$OFF" stats.guest_events)
	hist_json "$OFF"
	read -r _ h _ <<<"$out"
	on "$A1"
	r=$(la_field "$A1" stats.guest_events)
	printf -v "bytes$1" '%s' "$b"
	printf -v "events$1" '%s' "$e"
	printf -v "hits$1" '%s' "$h"
	printf -v "rec$1" '%s' "$r"
}
# from here on the stopped VM stores nothing more
sleep 1
sample 1

# ---- a real Prometheus scrapes both agents -----------------------------------------
la_prom_config "127.0.0.1:$MPORT1" "127.0.0.1:$MPORT2"
la_prom_start prom "$PPORT"
P99='histogram_quantile(0.99, sum by (vm, le) (rate(guestrelay_vm_hist_runq_seconds_bucket[5s])))'
# p99_all: "VALUE VM" per series of the query, in $qv
p99_all() {
	qv=$(la_prom_query "$PPORT" "$P99")
}
# finite_for_all: every VM has a finite p99 in (0, 1) s in $qv
finite_for_all() {
	"$PY" - "$qv" "${VMS1[@]}" "${VMS2[@]}" <<'EOF'
import json, math, sys
got = {}
for line in sys.argv[1].splitlines():
    v, vm = line.split(" ", 1)
    got[json.loads(vm)] = float(v)
sys.exit(0 if all(vm in got and math.isfinite(got[vm]) and
                  0 < got[vm] < 1 for vm in sys.argv[2:]) else 1)
EOF
}
end=$(($(date +%s) + 30))
while [ "$(date +%s)" -le "$end" ]; do
	p99_all
	finite_for_all && break
	sleep 1
done
if finite_for_all; then
	ok "prometheus-p99-finite-for-six-vms ($(tr '\n' ' ' <<<"$qv"))"
else
	bad "prometheus-p99-finite-for-six-vms" "got: $qv" \
		"$(tail -n 5 "$la_tmp/prometheus.log")"
fi
la_prom_stop "$prom"

# ---- each table: hits in several buckets; the stopped VM stored nothing -----------
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	on "$v"
	gr hist "$v" runq
	nb=$(grep -c '^{ delta: ~ 2^' <<<"$out")
	hits=$(awk '$1 == "Hits:" { print $2 }' <<<"$out")
	check "hist-$v-hits-in-buckets" "[ '${hits:-0}' -gt 0 ] && [ $nb -ge 3 ]" \
		"hits '$hits', $nb buckets: $out"
done
sample 2
check "recording-on-records-meanwhile ($rec1 -> $rec2 events)" \
	"[ '${rec2:-0}' -gt '${rec1:-0}' ]" "guest events $rec1 -> $rec2"
check "recording-off-counts-on ($hits1 -> $hits2 hits)" \
	"[ '${hits1:-0}' -gt 0 ] && [ '${hits2:-0}' -gt '${hits1:-0}' ]" \
	"hits $hits1 -> $hits2"
check "recording-off-stores-nothing ($bytes1 B, $events1 events)" \
	"[ -n '$bytes1' ] && [ '$bytes1' = '$bytes2' ] && [ '$events1' = '$events2' ]" \
	"stored bytes $bytes1 -> $bytes2, guest events $events1 -> $events2"

# ---- the end ---------------------------------------------------------------------
n=0
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	t_term_job "${fgs[$v]}"
done
for v in "${VMS1[@]}" "${VMS2[@]}"; do
	la_wait_fg "${fgs[$v]}" 15
	rc=$?
	[ "$rc" -eq 0 ] && n=$((n + 1))
done
check "fakeguests-exit-0" "[ $n -eq 6 ]" "$n of 6"
agent_use 1
if la_agent_alive; then
	ok agent-1-alive
else
	bad agent-1-alive "no ping"
fi
la_agent_stop
rc=$?
check agent-1-exits-0-on-sigterm "[ $rc -eq 0 ]" "exit $rc"
agent_use 2
la_end
