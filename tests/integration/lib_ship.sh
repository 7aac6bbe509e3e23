# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib_ship.sh - helpers of the shipping tests (test_ship_*.sh), sourced
# after lib_agent.sh: real nats-server JetStream servers (tests/lib/
# nats.sh), real agents with --ship, real `guestrelay collect` processes.
#
#   ls_init NAME           la_init, nats_need, $COL (the collectors' DIR),
#                          $HOST (the agents' host name)
#   ls_collect_start VAR [ARGS...]
#                          a collector of $NATS_URLS into $COL (t_bg job in
#                          VAR, its PID in VAR_pid, log collect.N.log)
#   ls_collect_kill9 VAR   SIGKILL that collector
#   ls_collect_stop VAR    SIGTERM, wait; a check that it ran until then
#                          and exited 0
#   ls_cstat KEY           one counter of $COL/.collect/stats.*, summed
#                          over the collectors
#   ls_tree_diff           every file of the agent's store (but .ship/) and
#                          of $COL/$HOST: prints what differs, 1 if any
#   ls_wait_equal SECS     until ls_tree_diff finds nothing; $diff_out
#   ls_collected VM        the collected sessions of VM
#   ls_check_collected VM [SECS]
#                          checks: the collected tree equals the store
#                          (within SECS, default 120), babeltrace2 reads
#                          VM's collected trace, every fake_seq its guest
#                          wrote ($la_tmp/VM.stats) is in it once, the
#                          collectors rejected nothing
#   ls_node_of NAME        the running node holding a client connection
#                          named NAME (guestrelay-agent, -collect); '' if none
#   ls_ship_start VM [AGENT OPTIONS...]
#                          an agent shipping to $NATS_URLS one plain VM
#                          (all events, 16 x 16 KiB sub-buffers) and a
#                          collector c1; the test ends if the agent fails
#   ls_guest_start VAR VM RATE SECS
#                          a fake guest of 2 CPUs writing RATE events/s
#                          for SECS into VM (t_bg job in VAR, stats in
#                          $la_tmp/VM.stats), once it stored 10 packets
#   ls_agent_node          ls_node_of guestrelay-agent, 0 if none is found
#   ls_caught_up VM SECS   until VM's status says connected and a backlog
#                          under 8 packets (out: the status)
#   ls_stream_msgs I       messages of the stream GUESTRELAY as node I sees it
#   ls_hang I / ls_unhang I
#                          SIGSTOP / SIGCONT node I (a hung server: it
#                          accepts TCP and answers nothing); every node is
#                          continued at exit
#   ls_col_bytes           bytes of the collected tree ($COL/$HOST)
#   ls_wait_more SECS BASE CMD...
#                          until CMD prints a number above BASE: prints the
#                          seconds it took (tenths), 1 after SECS
#   ls_metric PORT NAME    a metric's value on http://127.0.0.1:PORT/metrics
#                          (the first sample of NAME), '' if none
#   ls_log_count TEXT      lines of the agent's logs that hold TEXT
#   ls_nats_single         one `nats-server -js` (node 0), or the test ends
#   ls_js_state            streams and consumers as the nodes show them
#   ls_chunks DIR VM       the closed chunks of VM in the tree DIR (the
#                          store, or $COL/$HOST), oldest ID first

# shellcheck source=tests/lib/nats.sh
. "$LA_TOP/tests/lib/nats.sh"

COL=
HOST=
ls_ncol=0

ls_init() {
	la_init "$1"
	nats_need
	COL=$la_tmp/col
	HOST=$(hostname)
	[[ $HOST =~ ^[A-Za-z0-9_-][A-Za-z0-9_.-]*$ ]] ||
		t_skip "host name '$HOST' is not one the agent ships under"
}

ls_collect_start() {
	local var=$1 job

	shift
	ls_ncol=$((ls_ncol + 1))
	t_bg job 600 "$la_tmp/collect.$ls_ncol.log" "$GR" collect \
		"$NATS_URLS" --store "$COL" "$@"
	printf -v "$var" '%s' "$job"
	printf -v "${var}_pid" '%s' "$(t_child "$job")"
	printf -v "${var}_log" '%s' "$la_tmp/collect.$ls_ncol.log"
}

ls_collect_kill9() {
	local pid_var=${1}_pid

	kill -KILL "${!pid_var}" 2>/dev/null
	t_wait_pid "${!1}" 10
	t_reap "${!1}"
}

ls_collect_stop() {
	local pid_var=${1}_pid log_var=${1}_log when=at rc st fatal

	# a zombie answers kill -0: its state says it is dead
	st=$(awk '{ print $3 }' "/proc/${!pid_var}/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] || when=before
	kill -TERM "${!pid_var}" 2>/dev/null
	t_wait_pid "${!1}" 15 || t_term_job "${!1}" KILL
	t_reap "${!1}"
	rc=$?
	# a collector that died on its own collected nothing after that; a
	# crash is said in the check's name, its stack (common/crash.c) in
	# the details
	fatal=$(grep -m1 'fatal signal' "${!log_var}")
	check "collector-$1-ran-until-stopped (exit $rc $when its stop${fatal:+: $fatal})" \
		"[ $when = at ] && [ $rc -eq 0 ]" "$(tail -n 40 "${!log_var}")"
}

ls_cstat() {
	cat "$COL"/.collect/stats.* 2>/dev/null |
		awk -v k="$1" '$1 == k { n += $2 } END { print n + 0 }'
}

# ls_tree_diff: the collected tree equals the store, file for file; the
# stream files' index files (index/, trace/index.c) are derived from the
# streams and not shipped, so the collected traces have none; nor are
# the host streams (<session>/host/, agent/hosttrace.c) shipped yet
ls_tree_diff() {
	local f rel n=0

	while IFS= read -r -d '' f; do
		rel=${f#"$STORE"/}
		if [ ! -f "$COL/$HOST/$rel" ]; then
			echo "missing $rel ($(stat -c %s "$f") bytes)"
			n=$((n + 1))
		elif ! cmp -s "$f" "$COL/$HOST/$rel"; then
			echo "differs $rel ($(stat -c %s "$f") vs $(stat -c %s "$COL/$HOST/$rel") bytes)"
			n=$((n + 1))
		fi
	done < <(find "$STORE" \( -path "$STORE/.ship" -o -name index -o \
		-name host \) -prune \
		-o -type f -print0)
	while IFS= read -r -d '' f; do
		rel=${f#"$COL/$HOST"/}
		[ -f "$STORE/$rel" ] || {
			echo "extra $rel"
			n=$((n + 1))
		}
	done < <(find "$COL/$HOST" -type f -print0 2>/dev/null)
	[ "$n" -eq 0 ]
}

ls_wait_equal() {
	local end=$(($(date +%s) + $1))

	while :; do
		diff_out=$(ls_tree_diff) && return 0
		[ "$(date +%s)" -ge "$end" ] && return 1
		sleep 0.5
	done
}

ls_collected() {
	local d

	for d in "$COL/$HOST/$1"/*; do
		[ -d "$d" ] && echo "$d"
	done
}

ls_check_collected() {
	local vm=$1 sessions dropped

	if ls_wait_equal "${2:-120}"; then
		ok "collected-tree-equals-store ($(du -sb "$COL/$HOST" | cut -f1) bytes)"
	else
		bad collected-tree-equals-store "after ${2:-120} s" "$diff_out"
	fi
	sessions=$(ls_collected "$vm")
	# shellcheck disable=SC2086 # one directory per line
	la_bt $sessions && ok "$vm-babeltrace2-reads-collected" ||
		bad "$vm-babeltrace2-reads-collected" "$bt_out"
	dropped=$(la_stat "$la_tmp/$vm.stats" total.seq_dropped)
	# shellcheck disable=SC2086
	if la_btcheck $sessions --stats "$la_tmp/$vm.stats" --expect written; then
		ok "$vm-every-written-event-once ($(head -n1 <<<"$bt_out" | cut -d' ' -f1) events; the guest dropped ${dropped:-?} itself)"
	else
		bad "$vm-every-written-event-once" "bt_check" "$bt_out"
	fi
	check nothing-rejected "[ $(ls_cstat rejected) -eq 0 ]" \
		"$(cat "$COL"/.collect/stats.*)"
}

ls_node_of() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		[ -n "${nats_job[$i]}" ] || continue
		nats_varz "$i" "connz?limit=1024" | grep -q "\"name\": *\"$1\"" &&
			{ echo "$i"; return 0; }
	done
	echo ""
}

ls_ship_start() {
	local vm=$1

	shift
	la_agent_start --ship "$NATS_URLS" --events all --subbuf-size 16384 \
		--subbufs 16 --vm "$vm" --plain "$@" ||
		{ bad agent-starts "see the log"; la_show_logs; la_finish; }
	ok agent-starts
	ls_collect_start c1
}

ls_guest_start() {
	local job

	t_bg job $(($4 + 120)) "$la_tmp/fg-$2.log" "$FG" --shm "guestrelay-$2" \
		--cpus 2 --rate "$3" --duration "$4" --linger 30 \
		--stats "$la_tmp/$2.stats"
	printf -v "$1" '%s' "$job"
	la_wait_status "$2" "s['stats']['packets'] > 10" 30 || bad streams "$out"
}

ls_agent_node() {
	local k

	k=$(ls_node_of guestrelay-agent)
	[[ $k =~ ^[0-9]+$ ]] || k=0
	echo "$k"
}

ls_caught_up() {
	la_wait_status "$1" "s['ship']['connected'] and s['ship']['backlog_packets'] < 8" "$2"
}

ls_stream_msgs() {
	nats_varz "$1" "jsz?streams=true&accounts=true" | "$PY" -c '
import json, sys
def walk(d):
    if isinstance(d, dict):
        if d.get("name") == "GUESTRELAY" and isinstance(d.get("state"), dict):
            return d["state"].get("messages", 0)
        for v in d.values():
            r = walk(v)
            if r is not None:
                return r
    elif isinstance(d, list):
        for v in d:
            r = walk(v)
            if r is not None:
                return r
    return None
try:
    print(walk(json.load(sys.stdin)) or 0)
except ValueError:
    print(0)'
}

ls_hung_deferred=0
# shellcheck disable=SC2317 # run at exit (t_defer)
ls_unhang_all() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		[ -n "${nats_pid[$i]}" ] && kill -CONT "${nats_pid[$i]}" 2>/dev/null
	done
	return 0
}

ls_hang() {
	if [ "$ls_hung_deferred" = 0 ]; then
		t_defer ls_unhang_all
		ls_hung_deferred=1
	fi
	kill -STOP "${nats_pid[$1]}"
}

ls_unhang() {
	kill -CONT "${nats_pid[$1]}"
}

ls_col_bytes() {
	find "$COL/$HOST" -type f -printf '%s\n' 2>/dev/null |
		awk '{ n += $1 } END { print n + 0 }'
}

ls_wait_more() {
	local secs=$1 base=$2 t0 v

	shift 2
	t0=$(date +%s%N)
	while :; do
		v=$("$@")
		if [ "${v:-0}" -gt "$base" ]; then
			echo $((($(date +%s%N) - t0) / 100000000)) |
				sed 's/\(.\)$/.\1/; s/^\./0./'
			return 0
		fi
		[ $((($(date +%s%N) - t0) / 1000000000)) -ge "$secs" ] && return 1
		sleep 0.2
	done
}

ls_metric() {
	curl -sS -m 5 "http://127.0.0.1:$1/metrics" 2>/dev/null |
		awk -v n="$2" '$1 == n || index($1, n "{") == 1 { print $2; exit }'
}

ls_log_count() {
	cat "$la_tmp"/agent.*.log 2>/dev/null | grep -c -F -- "$1"
}

ls_nats_single() {
	nats_start_single "$la_tmp/nats" ||
		{ bad nats-starts "see above"; la_finish; }
	ok nats-starts
}

ls_chunks() {
	ls -d "$1/$2"/*/archives/*-*-* 2>/dev/null |
		awk -F- '{ print $NF " " $0 }' | sort -n | cut -d" " -f2-
}

# ls_js_state: one line per stream and consumer as the running nodes'
# monitoring ports show them (messages, last sequence; delivered, ack
# floor, pending), for the details of a failed check
ls_js_state() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		[ -n "${nats_job[$i]}" ] || continue
		curl -sS -m 5 "http://127.0.0.1:${nats_mport[$i]}/jsz?consumers=true" 2>&1 |
			python3 -c '
import json, sys
try:
    j = json.load(sys.stdin)
except ValueError:
    sys.exit(print("node '"$i"': no JetStream state"))
for a in j.get("account_details") or []:
    for s in a.get("stream_detail") or []:
        st = s["state"]
        print("node '"$i"': stream %s: %d messages, last %d" %
              (s["name"], st["messages"], st["last_seq"]))
        for c in s.get("consumer_detail") or []:
            print("node '"$i"':   consumer %s: delivered %d, ack floor %d, pending %d" %
                  (c["name"], c["delivered"]["stream_seq"],
                   c["ack_floor"]["stream_seq"], c["num_pending"]))'
	done
}
