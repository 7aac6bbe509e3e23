#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot the test guest under QEMU with tracing on, run a short
# workload, stop, and show the trace. Non-interactive.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build/host-agent/guestrelay
demo=$top/build/demo
run_dir=$demo/run
store=$demo/traces
rm -rf "$demo"
mkdir -p "$run_dir" "$store"

echo "== starting the agent (traces in $store)"
"$bin" agent --run-dir "$run_dir" --store "$store" >"$demo/agent.log" 2>&1 &
agent=$!
trap 'kill "$agent" 2>/dev/null; wait "$agent" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
	"$bin" --run-dir "$run_dir" ping >/dev/null 2>&1 && break
	sleep 0.1
done
"$bin" --run-dir "$run_dir" vm-add demo --switch-timer-ms 100 \
	--events 'sched_*,irq_*,softirq_*,block_*,net_*,netif_*,kmem:mm_page_alloc,kmem:mm_page_free'

echo "== booting the test guest (QEMU, $(nproc) host CPUs, TCG); workload for 3 s"
t0=$(date +%s)
"$top/scripts/launch-guest.sh" --no-agent --name demo --run-dir "$run_dir" \
	--run workload --log "$demo/console.log"
echo "   guest ran and powered off in $(( $(date +%s) - t0 )) s (console: $demo/console.log)"

"$bin" --run-dir "$run_dir" status demo || true
# the session is closed; remove the VM so its /dev/shm file goes too
"$bin" --run-dir "$run_dir" vm-remove demo >/dev/null || true
kill "$agent"
wait "$agent" || true
trap - EXIT

trace=$(find "$store/demo" -mindepth 1 -maxdepth 1 -type d ! -name 'snapshot-*' | sort | tail -n1)
[ -n "$trace" ] || { echo "no trace was stored; see $demo/agent.log" >&2; exit 1; }
echo
echo "== the trace: $trace"
ls -l "$trace"
echo
echo "== summary"
"$bin" report --summary "$trace"
echo
echo "== first lines of: guestrelay report $trace"
{ "$bin" report "$trace" || true; } | head -n 25 || true
echo
echo "== babeltrace2 reads it:"
echo "   babeltrace2 $trace | head"
{ babeltrace2 "$trace" 2>&1 || true; } | head -n 5 || true
echo "   ($(babeltrace2 "$trace" 2>/dev/null | wc -l) events in total)"
echo
echo "== the timeline (one lane per guest CPU; open it in a browser)"
"$bin" timeline -o "$demo/timeline.html" --latency "$trace"
"$bin" timeline -o "$demo/timeline.svg" "$trace" >/dev/null
echo "   picture: $demo/timeline.html (and $demo/timeline.svg)"
