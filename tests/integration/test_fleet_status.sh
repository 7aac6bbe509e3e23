#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_fleet_status.sh - `guestrelay agent --fleet-status URL` and
# `guestrelay fleet status URL` against real NATS JetStream servers
#
# A real nats-server -js (tests/lib/nats.sh) with user/password
# authorization; two real agents with real fake guests, on hosts whose
# names, joined naively with their VMs' names, would collide:
#   host "a.b": VMs c<pid>, x_2Ey<pid>    host "a": VMs b.c<pid>, x.y<pid>
# ("a.b" + "c" and "a" + "b.c" are both "a.b.c"). Checks:
#   - fleet status without credentials is refused by the server; the
#     password is in no log, no output and no process's arguments
#   - every VM of both agents is listed once, under its own key; while
#     the guests write, events/s and bytes/s are above 0
#   - once the guests stopped, the counters of fleet status --json (bytes,
#     packets, losses by cause, invalid sub-buffers) equal each agent's
#     status --json; the table lists them sorted by host, then VM
#   - garbage put into the bucket by hand (not JSON, a value under
#     another host's key, a key no agent writes, terminal escapes) is
#     listed as INVALID with its reason; the honest rows are unchanged and
#     no control character reaches the terminal
#   - latency summaries (status.latency) put by hand: the run-queue
#     table's p50/p99 in the RUNQ column and the summary in --json, "-"
#     and [] for an agent that predates them (and for the fake guests,
#     which keep no latency table), a bad summary INVALID with its reason
#   - bad options are refused (a password in a URL is never echoed); NATS
#     unreachable at start: the agent runs and logs it once
#   - NATS stopped: the agent keeps answering, logs the outage once, and
#     publishes again (says so) once NATS is back
#   - one agent killed with kill -9: its entries expire after the TTL,
#     the other agent's stay; a VM removed from a live agent: its entry
#     is deleted at the next refresh (a bucket with a TTL of 120 s); an
#     empty bucket is an empty list, a missing one exit 1; an agent that
#     asks for another TTL: the bucket keeps its own, the agent says so
#   - a 3-node JetStream cluster, an R3 bucket: the stream leader killed
#     with kill -9, the agent goes on publishing through the other nodes
# Every process runs under a time limit and is stopped at exit. Without
# nats-server (scripts/deps.sh fleet) the test is skipped.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
# shellcheck source=tests/lib/nats.sh
. "$LA_TOP/tests/lib/nats.sh"
la_init test_fleet_status
nats_need
command -v cc >/dev/null || la_skip "cc is needed (scripts/deps.sh build)"

INTERVAL=1000		# --fleet-interval-ms
TTL=4			# --fleet-ttl, seconds
SECRET="fleet-pw-$$-$RANDOM"
CREDS=$la_tmp/fleet.creds
PUT=$la_tmp/fleet_kv_put
ag_job=() ag_pid=() ag_run=()
fg1='' fg2='' fg3='' fg4='' fg5=''

printf 'authorization {\n  user: fleet\n  password: "%s"\n}\n' "$SECRET" \
	>"$la_tmp/auth.conf"
printf '# fleet status credentials, as for --ship-creds\nuser=fleet\npassword=%s\n' "$SECRET" \
	>"$CREDS"
chmod 600 "$CREDS"

cc -O2 -Wall -Wextra -D_GNU_SOURCE -I"$LA_TOP/host-agent/fleet" -o "$PUT" \
	"$LA_HERE/fleet_kv_put.c" "$LA_TOP/host-agent/fleet/nats_opts.c" \
	-lnats 2>"$la_tmp/cc.log" ||
	{ bad build-kv-put "cc failed" "$(cat "$la_tmp/cc.log")"; la_finish; }

# ag_start I HOST URLS [AGENT OPTIONS...]: agent I (t_agent_start) with
# its own run and store directories, publishing fleet status as HOST
ag_start() {
	local i=$1 host=$2 urls=$3 rc

	shift 3
	ag_run[i]=$la_tmp/run$i
	mkdir -p "${ag_run[$i]}" "$la_tmp/store$i"
	RUN=${ag_run[$i]} STORE=$la_tmp/store$i T_AGENT_SECS=300 \
	T_AGENT_LOGFILE=$la_tmp/agent$i.log t_agent_start \
		--host "$host" --fleet-status "$urls" --fleet-creds "$CREDS" \
		--fleet-interval-ms "$INTERVAL" --fleet-ttl "$TTL" \
		--events all --subbuf-size 16384 --subbufs 16 "$@"
	rc=$?
	ag_job[i]=$T_AGENT_JOB
	ag_pid[i]=$T_AGENT_PID
	T_AGENT_JOB='' T_AGENT_PID=''
	return $rc
}

# ag_stop I: t_agent_stop of agent I; its exit status
ag_stop() {
	[ -n "${ag_job[$1]:-}" ] || return 0
	T_AGENT_JOB=${ag_job[$1]} T_AGENT_PID=${ag_pid[$1]}
	ag_job[$1]=
	t_agent_stop
}

# wait_log FILE TEXT SECS: until FILE has the line TEXT (grep); 1 if not
wait_log() {
	local end=$(($(date +%s) + $3))

	until grep -q -- "$2" "$1"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# shellcheck disable=SC2317 # run at exit (t_defer)
ag_stop_all() {
	local i

	for i in "${!ag_job[@]}"; do
		ag_stop "$i"
	done
}
t_defer ag_stop_all

# fg_start VAR I VM SECS [ARGS...]: a fake guest of VM on agent I for
# SECS seconds
fg_start() {
	t_bg "$1" $(($4 + 60)) "$la_tmp/fg-$3.log" "$FG" \
		--socket "${ag_run[$2]}/$3.sock" --cpus 2 --rate 2000 \
		--duration "$4" --events 4 "${@:5}"
}

# fleet [ARGS...]: `guestrelay fleet status` with the credentials;
# $out, $err, $rc
fleet() {
	out=$(timeout -k 5 30 "$GR" fleet status "$@" --creds "$CREDS" \
	      2>"$la_tmp/fleet.err")
	rc=$?
	err=$(cat "$la_tmp/fleet.err")
	return $rc
}

# status_all I FILE: agent I's status --json into FILE
status_all() {
	timeout -k 2 20 "$GR" --run-dir "${ag_run[$1]}" --timeout 15 \
		status --json >"$2" 2>/dev/null
}

# fpy CHECK ARGS...: the Python checks of this test (below); exit 0 if
# the check holds, its message on stdout
fpy() {
	"$PY" - "$@" <<'PYEOF'
import json, sys

cmd, args = sys.argv[1], sys.argv[2:]

def load(path):
    with open(path) as f:
        return json.load(f)

def vms_of(status):
    return status["vms"] if isinstance(status, dict) else status

def rows(path):
    return load(path)

if cmd == "set":
    # fleet.json, then expected "host\tvm" pairs: the valid rows are
    # exactly these, each once, each under its own key
    got = [(r["host"], r["vm"]) for r in rows(args[0]) if r.get("valid")]
    want = [tuple(p.split("\t")) for p in args[1:]]
    keys = [r["key"] for r in rows(args[0]) if r.get("valid")]
    if sorted(got) != sorted(want) or len(set(keys)) != len(keys):
        print("got %r, keys %r" % (got, keys))
        sys.exit(1)
elif cmd == "running":
    # fleet.json: every valid row has events/s and bytes/s above 0
    bad = [(r["host"], r["vm"], r["events_per_s"], r["bytes_per_s"])
           for r in rows(args[0]) if r.get("valid") and
           not ((r["events_per_s"] or 0) > 0 and r["bytes_per_s"] > 0)]
    if bad:
        print("idle: %r" % bad)
        sys.exit(1)
elif cmd == "equal":
    # fleet.json HOST status.json: the rows of HOST carry the counters of
    # that agent's status --json
    fl = {r["vm"]: r for r in rows(args[0])
          if r.get("valid") and r["host"] == args[1]}
    st = {v["name"]: v for v in vms_of(load(args[2]))}
    msgs = []
    if sorted(fl) != sorted(st):
        msgs.append("VMs %r vs %r" % (sorted(fl), sorted(st)))
    for name, v in st.items():
        r = fl.get(name)
        if not r:
            continue
        s = v["stats"]
        pairs = [("bytes", r["status"]["stats"]["bytes"], s["bytes"]),
                 ("packets", r["status"]["stats"]["packets"], s["packets"]),
                 ("lost.full", r["lost"]["full"], s["lost_full"]),
                 ("lost.too_big", r["lost"]["too_big"], s["lost_too_big"]),
                 ("lost.nested", r["lost"]["nested"], s["lost_nested"]),
                 ("lost.overwritten", r["lost"]["overwritten"],
                  s["overwritten"]),
                 ("invalid", r["invalid"], s["invalid"]),
                 ("state", r["state"], v["state"]),
                 ("sync_error_ns", r["sync_error_ns"], v["sync_error_ns"])]
        for k, a, b in pairs:
            if a != b:
                msgs.append("%s %s: fleet %r, status %r" % (name, k, a, b))
        if s["bytes"] == 0:
            msgs.append("%s: nothing stored" % name)
    if msgs:
        print("; ".join(msgs))
        sys.exit(1)
elif cmd == "invalid":
    # fleet.json N KEY...: N rows, the KEYs (and only those) invalid,
    # each with a reason
    rs = rows(args[0])
    bad = sorted(r["key"] for r in rs if not r["valid"])
    if len(rs) != int(args[1]) or bad != sorted(args[2:]) or \
       any(not r.get("error") for r in rs if not r["valid"]):
        print("%d rows, invalid %r" % (len(rs), bad))
        sys.exit(1)
elif cmd == "value":
    # fleet.json HOST VM: the status object of that row, as an agent
    # would write the whole value (for the spoofing test)
    for r in rows(args[0]):
        if r.get("valid") and r["host"] == args[1] and r["vm"] == args[2]:
            print(json.dumps({"format": "guestrelay-fleet-status",
                              "version": 1, "host": args[1],
                              "vm": args[2], "events_per_s": None,
                              "backlog": None, "status": r["status"]}))
            sys.exit(0)
    sys.exit(1)
elif cmd == "latency":
    # fleet.json HOST VM NEWHOST LATENCY: the value of that row as an
    # agent of NEWHOST would write it, its status.latency LATENCY (JSON),
    # or without one ("absent": an agent that predates it)
    for r in rows(args[0]):
        if r.get("valid") and r["host"] == args[1] and r["vm"] == args[2]:
            st = dict(r["status"])
            st.pop("latency", None)
            if args[4] != "absent":
                st["latency"] = json.loads(args[4])
            print(json.dumps({"format": "guestrelay-fleet-status",
                              "version": 1, "host": args[3],
                              "vm": args[2], "events_per_s": None,
                              "backlog": None, "status": st}))
            sys.exit(0)
    sys.exit(1)
elif cmd == "latrows":
    # fleet.json VM LATENCY: the row of host "lat" carries LATENCY, that
    # of "old" (no status.latency) and every agent's row [], "badlat" is
    # invalid
    rs = {r["host"]: r for r in rows(args[0]) if r["vm"] == args[1]}
    msgs = []
    want = json.loads(args[2])
    if rs.get("lat", {}).get("latency") != want:
        msgs.append("lat: %r" % rs.get("lat"))
    if rs.get("old", {}).get("latency") != []:
        msgs.append("old: %r" % rs.get("old"))
    if rs.get("badlat", {}).get("valid", True):
        msgs.append("badlat: %r" % rs.get("badlat"))
    for r in rows(args[0]):
        if r.get("valid") and r["host"] not in ("lat", "old") and \
           r.get("latency") != []:
            msgs.append("%s %s: %r" % (r["host"], r["vm"],
                                       r.get("latency")))
    if msgs:
        print("; ".join(msgs))
        sys.exit(1)
elif cmd == "hosts":
    # fleet.json: the hosts of the valid rows, one a line
    for h in sorted({r["host"] for r in rows(args[0]) if r.get("valid")}):
        print(h)
elif cmd == "age":
    # fleet.json HOST VM: the row's age in ms (none: exit 1)
    for r in rows(args[0]):
        if r.get("valid") and r["host"] == args[1] and r["vm"] == args[2]:
            print(r["age_ms"])
            sys.exit(0)
    sys.exit(1)
elif cmd == "replicas":
    # jsz.json STREAM: its replicas and its leader's server name
    for acc in load(args[0]).get("account_details", []):
        for st in acc.get("stream_detail", []):
            if st.get("name") == args[1]:
                print(st["config"]["num_replicas"],
                      st.get("cluster", {}).get("leader", ""))
                sys.exit(0)
    sys.exit(1)
PYEOF
}

# fleet_json FILE: fleet status --json into FILE (of $FLEET_URL, default
# $NATS_URL, and bucket $FLEET_BUCKET); $rc
fleet_json() {
	# shellcheck disable=SC2086 # no bucket: no argument
	fleet --json "${FLEET_URL:-$NATS_URL}" ${FLEET_BUCKET:+--bucket "$FLEET_BUCKET"}
	printf '%s\n' "$out" >"$1"
	return $rc
}

# wait_fleet SECS CHECK ARGS...: until `fpy CHECK $la_tmp/f.json ARGS`
# holds on a fresh fleet status --json; $msg is its last message
wait_fleet() {
	local end=$(($(date +%s) + $1)) c=$2

	shift 2
	while :; do
		if fleet_json "$la_tmp/f.json" &&
		   msg=$(fpy "$c" "$la_tmp/f.json" "$@"); then
			return 0
		fi
		[ -n "${msg:-}" ] || msg="exit $rc: $err"
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# ---- options, and NATS unreachable at start ------------------------------------------
# agent_err EXPECTED_RC WHAT ARGS...: the agent refuses ARGS, saying WHAT
agent_err() {
	local want=$1 what=$2 e

	shift 2
	e=$(timeout -k 2 20 "$GR" agent --run-dir "$la_tmp/runx" \
		--store "$la_tmp/storex" "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -q -- "$what" <<<"$e" &&
	   ! grep -qF -- "$SECRET" <<<"$e"; then
		ok "agent-refuses $what"
	else
		bad "agent-refuses $what" "exit $rc" "$e"
	fi
}
agent_err 2 "user information" --fleet-status "nats://fleet:$SECRET@127.0.0.1:1"
agent_err 2 "nats://HOST:PORT" --fleet-status "http://127.0.0.1:1"
agent_err 2 "printable UTF-8" --host $'a\nb' --fleet-status nats://127.0.0.1:1
agent_err 2 "fleet-bucket" --fleet-bucket a.b --fleet-status nats://127.0.0.1:1
agent_err 1 "shorter than two intervals" --fleet-status nats://127.0.0.1:1 \
	--fleet-interval-ms 1000 --fleet-ttl 1
cp "$CREDS" "$la_tmp/open.creds"
chmod 644 "$la_tmp/open.creds"
agent_err 1 "readable by others" --fleet-status nats://127.0.0.1:1 \
	--fleet-creds "$la_tmp/open.creds"

read -r dead_port < <(nats_free_ports 1)
if ag_start 4 "h" "nats://127.0.0.1:$dead_port"; then
	sleep 3
	n=$(grep -c 'fleet status: cannot publish' "$la_tmp/agent4.log")
	if timeout -k 2 10 "$GR" --run-dir "${ag_run[4]}" --timeout 5 ping \
		>/dev/null 2>&1 && [ "$n" -eq 1 ]; then
		ok "agent-runs-with-nats-unreachable-logs-once"
	else
		bad "agent-runs-with-nats-unreachable-logs-once" "$n lines" \
			"$(cat "$la_tmp/agent4.log")"
	fi
else
	bad "agent-runs-with-nats-unreachable-logs-once" "no start" \
		"$(cat "$la_tmp/agent4.log")"
fi
ag_stop 4

# ---- one server, two agents --------------------------------------------------
nats_start_single "$la_tmp/nats" "$la_tmp/auth.conf" ||
	{ bad nats-starts "see above"; la_finish; }
ok nats-starts

la_vm V1 c
la_vm V2 x_2Ey
la_vm V3 b.c
la_vm V4 x.y
H1=a.b
H2=a
if ! ag_start 1 "$H1" "$NATS_URL" --vm "$V1" --vm "$V2" ||
   ! ag_start 2 "$H2" "$NATS_URL" --vm "$V3" --vm "$V4"; then
	bad agents-start "see the logs"
	la_show_logs
	la_finish
fi
ok agents-start

out=$(timeout -k 5 30 "$GR" fleet status "$NATS_URL" 2>&1)
rc=$?
check "no-credentials-refused" \
	"[ $rc -eq 1 ] && grep -qi 'authorization' <<<\"\$out\"" "exit $rc: $out"

# long enough for two refreshes on a loaded machine, not much longer
# V1's "QEMU" has one vCPU thread (it spins): its steal is in the table
fg_start fg1 1 "$V1" 15 --vcpu-threads 1
fg_start fg2 1 "$V2" 15
fg_start fg3 2 "$V3" 15
fg_start fg4 2 "$V4" 15
want=("$H1	$V1" "$H1	$V2" "$H2	$V3" "$H2	$V4")
if wait_fleet 20 set "${want[@]}"; then
	ok "every-vm-listed-once-under-its-own-key"
else
	bad "every-vm-listed-once-under-its-own-key" "$msg"
fi
if wait_fleet 14 running; then
	ok "events-and-bytes-per-second-while-writing"
else
	bad "events-and-bytes-per-second-while-writing" "$msg"
fi
# STEAL: seconds V1's vCPU thread was runnable, not running (agent/vcpu.c)
fleet "$NATS_URL"
steal=$(awk -v h="$H1" -v v="$V1" 'NR == 1 { c = index($0, " STEAL ") + 1 }
	$1 == h && $2 == v { split(substr($0, c), w, " "); print w[1] }' <<<"$out")
check "steal-of-the-vcpu-thread-in-the-table ($steal)" \
	"head -n1 <<<\"\$out\" | grep -q ' STEAL ' && [[ \"$steal\" =~ ^[0-9]+\\.[0-9]s\$ ]]" \
	"exit $rc: $out"
for j in "$fg1" "$fg2" "$fg3" "$fg4"; do
	la_wait_fg "$j" 60 || bad fakeguest-exits-0 "exit $?"
done

# the counters are still once the guests stopped: equal after a refresh
for h in 1 2; do
	host=$H1
	[ "$h" = 2 ] && host=$H2
	for try in 1 2 3 4 5; do
		sleep $((2 * INTERVAL / 1000 + 1))
		fleet_json "$la_tmp/f$h.json"
		status_all "$h" "$la_tmp/st$h.json"
		msg=$(fpy equal "$la_tmp/f$h.json" "$host" "$la_tmp/st$h.json") &&
			break
	done
	if [ -z "$msg" ]; then
		ok "counters-equal-status-json host $host"
	else
		bad "counters-equal-status-json host $host" "$msg"
	fi
done

# the table: a head and one row per VM, sorted by host, then VM
fleet "$NATS_URL"
# shellcheck disable=SC2034 # exp, got: read by check's eval
exp=$(printf '%s\n' "${want[@]}" | LC_ALL=C sort | tr '\t' ' ')
# shellcheck disable=SC2034
got=$(tail -n +2 <<<"$out" | awk '{ print $1, $2 }')
check "table-sorted-by-host-then-vm" \
	"[ $rc -eq 0 ] && [ \"\$got\" = \"\$exp\" ] && head -n1 <<<\"\$out\" | grep -q '^HOST  *VM  *STATE  *EVENTS/S  *BYTES/S'" \
	"exit $rc: $out"

# ---- garbage in the bucket ------------------------------------------------------
printf 'not json {' >"$la_tmp/g1"
fpy value "$la_tmp/f1.json" "$H1" "$V1" >"$la_tmp/g2"	# host a.b's value
printf '{"format": "\033[2J\033]0;pwned\007"}' >"$la_tmp/g3"
printf '\033[31mred' >"$la_tmp/g4"
K2=evil.$V1
put_ok=1
for kv in "zz.garbage g1" "$K2 g2" "x._41 g3" "a_2Eb.zz g4"; do
	read -r k f <<<"$kv"
	"$PUT" "$NATS_URL" "$CREDS" GUESTRELAY_STATUS "$k" "$la_tmp/$f" \
		>"$la_tmp/put.log" 2>&1 || put_ok=0
done
check "garbage-put-by-hand" "[ $put_ok = 1 ]" "$(cat "$la_tmp/put.log")"
fleet "$NATS_URL"
tout=$out trc=$rc terr=$err
check "table-with-garbage-exit-0" "[ $trc -eq 0 ]" "exit $trc: $terr"
check "garbage-counted-on-stderr" \
	"grep -q '4 of 8 entries are invalid' <<<\"\$terr\"" "$terr"
check "garbage-rows-invalid" \
	"[ \$(awk 'NR > 1 && \$3 == \"INVALID\"' <<<\"\$tout\" | wc -l) -eq 4 ] && [ \$(tail -n +2 <<<\"\$tout\" | wc -l) -eq 8 ]" \
	"$tout"
check "spoofed-host-invalid-with-reason" \
	"grep -q '^evil .* INVALID .*host and vm are not those of the key' <<<\"\$tout\"" "$tout"
if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' <<<"$tout"; then
	bad "no-control-character-on-the-terminal" "$(cat -v <<<"$tout")"
else
	ok "no-control-character-on-the-terminal"
fi
fleet_json "$la_tmp/fg.json"
if msg=$(fpy invalid "$la_tmp/fg.json" 8 zz.garbage "$K2" x._41 a_2Eb.zz) &&
   msg=$(fpy set "$la_tmp/fg.json" "${want[@]}") &&
   msg=$(fpy equal "$la_tmp/fg.json" "$H1" "$la_tmp/st1.json"); then
	ok "json-garbage-invalid-honest-rows-intact"
else
	bad "json-garbage-invalid-honest-rows-intact" "$msg"
fi

# ---- latency summaries (status.latency) put by hand -----------------------------
# the fake guests keep no latency table: values as agents of other hosts
# would write them (V1's status with another latency): one with a run-
# queue table, one from an agent that predates status.latency, one whose
# table has a negative p50
LAT='[{"name": "runq", "preset": "runq", "count": 1000, "p50_s": 4.096e-06, "p99_s": 0.001048576, "dropped": 0}, {"name": "syscall", "preset": "syscall", "count": 50, "p50_s": 1.024e-06, "p99_s": 0.000131072, "dropped": 2}]'
BADLAT='[{"name": "runq", "preset": "runq", "count": 5, "p50_s": -1, "p99_s": 0.001, "dropped": 0}]'
put_ok=1
for hv in "lat l1 $LAT" "old l2 absent" "badlat l3 $BADLAT"; do
	read -r h f l <<<"$hv"
	fpy latency "$la_tmp/f1.json" "$H1" "$V1" "$h" "$l" >"$la_tmp/$f" &&
	"$PUT" "$NATS_URL" "$CREDS" GUESTRELAY_STATUS "$h.$V1" "$la_tmp/$f" \
		>"$la_tmp/put.log" 2>&1 || put_ok=0
done
check "latency-values-put-by-hand" "[ $put_ok = 1 ]" "$(cat "$la_tmp/put.log")"
fleet "$NATS_URL"
# runq_of HOST VM: the RUNQ p50/p99 cell of that row of $out
runq_of() {
	awk -v h="$1" -v v="$2" 'NR == 1 { c = index($0, " RUNQ p50/p99 ") + 1 }
		$1 == h && $2 == v { split(substr($0, c), w, " "); print w[1] }' <<<"$out"
}
check "runq-p50-p99-in-the-table ($(runq_of lat "$V1"))" \
	"[ $rc -eq 0 ] && [ \"\$(runq_of lat '$V1')\" = 4.1us/1.0ms ]" "exit $rc: $out"
check "no-runq-table-shows-a-dash" \
	"[ \"\$(runq_of old '$V1')\" = - ] && [ \"\$(runq_of '$H1' '$V1')\" = - ] &&
	 [ \"\$(runq_of '$H2' '$V3')\" = - ]" "$out"
check "bad-latency-invalid-with-reason" \
	"grep -q '^badlat .* INVALID .*status: latency\[0\]: p50_s: not a rate' <<<\"\$out\"" \
	"$out"
fleet_json "$la_tmp/fl.json"
if msg=$(fpy latrows "$la_tmp/fl.json" "$V1" "$LAT"); then
	ok "json-latency-per-vm"
else
	bad "json-latency-per-vm" "$msg"
fi
# hand-made entries expire with the bucket's TTL, as a dead host's do
if wait_fleet $((TTL + 20)) set "${want[@]}"; then
	ok "hand-made-latency-entries-expire"
else
	bad "hand-made-latency-entries-expire" "$msg"
fi

# ---- NATS down and back ---------------------------------------------------------
nats_stop 0
sleep 4
check "agent-answers-while-nats-is-down" \
	"timeout -k 2 10 '$GR' --run-dir '${ag_run[1]}' --timeout 5 ping >/dev/null 2>&1" \
	"no ping"
n=$(grep -c 'fleet status: cannot publish' "$la_tmp/agent1.log")
check "outage-logged-once" "[ $n -eq 1 ]" \
	"$n lines: $(grep 'fleet status' "$la_tmp/agent1.log")"
nats_restart 0 30 || bad nats-restarts "see above"
if wait_log "$la_tmp/agent1.log" 'fleet status: publishing to NATS again' 60
then
	ok "publishing-again-after-the-outage"
else
	bad "publishing-again-after-the-outage" \
		"$(grep 'fleet status' "$la_tmp/agent1.log")"
fi
if wait_fleet 20 set "${want[@]}"; then
	ok "every-vm-listed-after-the-outage"
else
	bad "every-vm-listed-after-the-outage" "$msg"
fi

# ---- kill -9 of one agent: its entries expire ------------------------------------
kill -KILL "${ag_pid[2]}"
t_reap "${ag_job[2]}"
ag_job[2]=
if wait_fleet $((TTL + 30)) set "$H1	$V1" "$H1	$V2"; then
	ok "killed-agent-entries-expire-after-ttl"
else
	bad "killed-agent-entries-expire-after-ttl" "$msg"
fi
a=$(fpy age "$la_tmp/f.json" "$H1" "$V1")
check "live-agent-entries-fresh" "[ -n '$a' ] && [ '$a' -lt $((TTL * 1000)) ]" \
	"age '$a' ms"

# a VM removed from a live agent: its entry is deleted at the next
# refresh, long before the TTL (120 s here: a bucket of its own)
la_vm V6 keep
la_vm V7 gone
if ag_start 6 "h6" "$NATS_URL" --fleet-bucket LONG_TTL --fleet-ttl 120 \
	--vm "$V6" --vm "$V7" &&
   FLEET_BUCKET=LONG_TTL wait_fleet 20 set "h6	$V6" "h6	$V7" &&
   timeout -k 2 20 "$GR" --run-dir "${ag_run[6]}" --timeout 15 \
	vm-remove "$V7" >"$la_tmp/rm.log" 2>&1 &&
   FLEET_BUCKET=LONG_TTL wait_fleet 30 set "h6	$V6"; then
	ok "removed-vm-entry-deleted-not-left-to-the-ttl"
else
	bad "removed-vm-entry-deleted-not-left-to-the-ttl" "${msg:-}" \
		"$(cat "$la_tmp/rm.log" "$la_tmp/agent6.log" 2>&1)"
fi
# no VM left: an empty list, a table of its head alone
timeout -k 2 20 "$GR" --run-dir "${ag_run[6]}" --timeout 15 vm-remove "$V6" \
	>"$la_tmp/rm.log" 2>&1
end=$(($(date +%s) + 30))
while FLEET_BUCKET=LONG_TTL fleet_json "$la_tmp/f6.json" &&
      [ "$(tr -d ' \n' <"$la_tmp/f6.json")" != "[]" ] &&
      [ "$(date +%s)" -lt "$end" ]; do
	sleep 0.5
done
fleet "$NATS_URL" --bucket LONG_TTL
check "empty-bucket-empty-list-and-table" \
	"[ \"\$(tr -d ' \n' <'$la_tmp/f6.json')\" = '[]' ] && [ $rc -eq 0 ] && [ \$(wc -l <<<\"\$out\") -eq 1 ] && grep -q '^HOST' <<<\"\$out\"" \
	"exit $rc: $out / $(cat "$la_tmp/f6.json")"
ag_stop 6

# another agent asks for another TTL: the bucket keeps its own, said once
if ag_start 5 "h5" "$NATS_URL" --fleet-ttl 9 &&
   wait_log "$la_tmp/agent5.log" "bucket GUESTRELAY_STATUS has a TTL of $TTL.0 s, not --fleet-ttl 9 s: kept" 20
then
	ok "other-ttl-kept-and-said"
else
	bad "other-ttl-kept-and-said" "$(cat "$la_tmp/agent5.log")"
fi
ag_stop 5

# ---- secrets ---------------------------------------------------------------------
leak=$(grep -l -F -- "$SECRET" "$la_tmp"/agent*.log "$la_tmp"/fleet.err \
	"$la_tmp"/f*.json "$la_tmp"/fg-*.log 2>/dev/null)
# shellcheck disable=SC2034 # read by check's eval
args=$(tr '\0' ' ' <"/proc/${ag_pid[1]}/cmdline" 2>/dev/null)
check "password-in-no-log-output-or-argv" \
	"[ -z '$leak' ] && ! grep -qF -- '$SECRET' <<<\"\$args\" && ! grep -qF -- '$SECRET' <<<\"\$tout\"" \
	"in: $leak"

ag_stop 1
rc=$?
check "agent-exits-0-on-sigterm" "[ $rc -eq 0 ]" "exit $rc"
nats_stop_all

# ---- a 3-node cluster, an R3 bucket, the stream leader killed ---------------------
if ! nats_start_cluster "$la_tmp/cluster" 3 "$la_tmp/auth.conf"; then
	bad cluster-starts "see above"
	la_finish
fi
ok cluster-starts
fleet "$NATS_URLS" --bucket FLEET_R3
check "no-bucket-exit-1" "[ $rc -eq 1 ] && grep -q 'no bucket FLEET_R3' <<<\"\$err\"" \
	"exit $rc: $err"
la_vm V5 r
H3="r3 host/é"
ag_start 3 "$H3" "$NATS_URLS" --fleet-bucket FLEET_R3 --fleet-replicas 3 \
	--vm "$V5" || { bad agent-on-cluster-starts "see the log"; la_show_logs; la_finish; }
fg_start fg5 3 "$V5" 40
FLEET_URL=$NATS_URLS
FLEET_BUCKET=FLEET_R3
if wait_fleet 30 set "$H3	$V5"; then
	ok "r3-bucket-entry-listed"
else
	bad "r3-bucket-entry-listed" "$msg"
fi
nats_varz 0 'jsz?accounts=true&streams=true&config=true' >"$la_tmp/jsz.json"
read -r reps leader < <(fpy replicas "$la_tmp/jsz.json" KV_FLEET_R3)
check "bucket-has-3-replicas" "[ '${reps:-}' = 3 ]" "replicas '${reps:-}'"
kill_i=${leader#n}
[[ $kill_i =~ ^[0-2]$ ]] || kill_i=0
nats_kill "$kill_i"
t_kill=$(date +%s%N)
note "killed node n$kill_i (the stream's leader: '${leader:-?}')"
survivors=()
for i in 0 1 2; do
	[ "$i" = "$kill_i" ] || survivors+=("$i")
done
FLEET_URL=$(nats_urls "${survivors[@]}")
# an entry put after the kill: younger than the time since the kill
end=$(($(date +%s) + 90))	# a failed put is retried after 1, 2, 4... s
fresh=0
while [ "$(date +%s)" -lt "$end" ]; do
	if fleet_json "$la_tmp/f3.json" &&
	   a=$(fpy age "$la_tmp/f3.json" "$H3" "$V5"); then
		since=$((($(date +%s%N) - t_kill) / 1000000))
		if [ "$since" -gt $((a + 1000)) ]; then
			fresh=1
			break
		fi
	fi
	sleep 1
done
check "published-after-the-leader-was-killed" "[ $fresh = 1 ]" \
	"last age '${a:-}' ms, ${since:-?} ms after the kill: $err"
la_wait_fg "$fg5" 60
ag_stop 3
rc=$?
check "agent-on-cluster-exits-0" "[ $rc -eq 0 ]" "exit $rc"

[ "$t_failed" -gt 0 ] && la_show_logs
la_finish
