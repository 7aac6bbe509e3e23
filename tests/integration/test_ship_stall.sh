#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_stall.sh - status and /metrics tell the truth while nothing
# is acknowledged (issue 19)
#
# A real `nats-server -js` (one node, so nothing can take over), an agent
# with --metrics shipping a fake guest's trace. The server is stopped
# (SIGSTOP: connections stay open, nothing answers) for 8 s while the
# guest keeps writing; ship_sampler.py reads `status --json` and /metrics
# every 200 ms throughout. Every sample taken more than a second into the
# stall must show
#   - a backlog of at least the packets stored since the stall began, as
#     they were 1.5 s earlier (nothing can have been acknowledged; the
#     counter thread recounts every 200 ms, plus one walk of the store,
#     which on this 2-CPU machine under a whole `make check` once took
#     long enough for a sample to lag 1.12 s), in status and in /metrics
#     alike;
#   - not connected (status "connected": false, metric 0) once 1.5 s have
#     passed (1 s of late acks plus one sampling period and slack).
# Then the server continues, the backlog drains, and the collected tree
# equals the store.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_stall

nats_start_single "$la_tmp/nats" || { bad nats-starts "see above"; la_finish; }
ok nats-starts

la_vm V sst
MPORT=$(nats_free_ports 1)
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=300
ls_ship_start "$V" --metrics "127.0.0.1:$MPORT"

ls_guest_start fv "$V" 1500 25
SAMPLES=$la_tmp/samples.jsonl
t_bg samp 120 "$la_tmp/sampler.log" "$PY" "$LA_HERE/ship_sampler.py" \
	"$GR" "$RUN" "$V" "$MPORT" "$SAMPLES"
sleep 2
mono() { "$PY" -c 'import time; print(time.monotonic())'; }

ls_hang 0
t_stop=$(mono)
ok "nats-hung at $(la_field "$V" stats.packets) packets stored"
sleep 8
t_cont=$(mono)
ls_unhang 0
ok nats-continued
sleep 1
t_term_job "$samp"
t_reap "$samp"

res=$("$PY" - "$SAMPLES" "$t_stop" "$t_cont" <<'PYEOF'
import json, sys
path, t_stop, t_cont = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
s = []
for line in open(path):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if d.get("stored") is not None:
        s.append(d)
def stored_at(t):
    v = None
    for d in s:
        if d["t"] <= t:
            v = d["stored"]
    return v
base = stored_at(t_stop)
stall = [d for d in s if t_stop + 1.0 <= d["t"] <= t_cont]
errs = []
for d in stall:
    need = (stored_at(d["t"] - 1.5) or 0) - (base or 0)
    for k in ("backlog", "m_backlog"):
        if d.get(k) is None or d[k] < need:
            errs.append("t+%.1f %s %s < %d" % (d["t"] - t_stop, k, d.get(k), need))
    if d["t"] >= t_stop + 1.5:
        if d.get("connected") is not False:
            errs.append("t+%.1f connected %s" % (d["t"] - t_stop, d.get("connected")))
        if d.get("m_connected") != 0:
            errs.append("t+%.1f metric connected %s" % (d["t"] - t_stop, d.get("m_connected")))
grew = (stored_at(t_cont) or 0) - (base or 0)
last = stall[-1] if stall else {}
print("samples %d stored+%d last_backlog %s last_metric %s errors %d %s" % (
    len(stall), grew, last.get("backlog"), last.get("m_backlog"), len(errs),
    "; ".join(errs[:6])))
PYEOF
)
read -r _ ns grew _ _ _ _ _ nerr _ <<<"$res"
check "sampled-every-200ms-during-the-stall ($ns samples)" "[ ${ns:-0} -ge 25 ]" "$res"
check "guest-kept-storing (${grew:-?})" "[ '${grew#stored+}' -ge 5 ]" "$res"
check "backlog-and-connection-true-within-1.5s ($res)" "[ '${nerr:-x}' = 0 ]" "$res"

la_wait_status "$V" "s['ship']['backlog_packets'] == 0 and s['ship']['connected']" 60 &&
	ok "backlog-drains-after-the-stall" || bad backlog-drains-after-the-stall "$out"
la_wait_fg "$fv" 80 || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
ls_check_collected "$V"
grep -h "ship:" "$la_tmp"/agent.*.log | sed 's/^/# /'

ls_collect_stop c1
la_end
