# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# nats.sh - real NATS JetStream servers for the fleet tests (sourced after
# tests/lib/lib.sh, which it sources itself if needed): one
# `nats-server -js`, or a JetStream cluster of N nodes, on loopback, each
# node with its own store directory, under a time limit, ended at exit
# whatever happened (lib.sh's EXIT trap).
#
# Client and monitoring ports are never guessed: a node first starts on
# port -1 (the kernel picks free ones) and writes them to a ports file;
# its configuration is then rewritten with those ports, so that a node
# killed and restarted comes back on the same ports (the clients' URL
# lists stay valid). A JetStream cluster needs its routes configured
# before it starts: the cluster ports are picked free just before (a
# start that loses that race is retried with new ones).
#
#   nats_need                     exit 77 unless nats-server (2.9+), curl
#                                 and python3 (free cluster ports)
#   nats_start_single DIR [EXTRA] one `nats-server -js` in DIR; node 0
#   nats_start_cluster DIR N [EXTRA]
#                                 N nodes (N >= 3 for R3) named n0..n<N-1>,
#                                 cluster "grtest", full mesh of routes
#   nats_wait_ready I [SECS]      node I answers /healthz with JetStream
#                                 (in a cluster: it has a meta leader)
#   nats_wait_all [SECS]          every running node is ready
#   nats_kill I                   kill -9 node I (and its timeout(1))
#   nats_restart I [SECS]         start node I again (same ports, store)
#   nats_stop I                   SIGTERM node I, SIGKILL after 10 s
#   nats_stop_all                 every node (also run at exit); another
#                                 nats_start_* may follow
#   nats_urls [I...]              nats://127.0.0.1:P[,...] (default: all)
#   nats_varz I PATH              GET http://monitor/PATH of node I
#
# After a start: NATS_URL (node 0), NATS_URLS (every node, commas),
# NATS_N (nodes), nats_port[I], nats_mport[I] (monitoring), nats_cport[I]
# (cluster), nats_dir[I], nats_conf[I], nats_log[I].
#
# EXTRA is a file of nats-server configuration appended to every node's
# file, e.g.  max_payload: 65536  or
#   authorization { user: fleet, password: s3cret }
# Environment: NATS_SERVER (default: nats-server on PATH), NATS_SECS (the
# time limit of a node, default 900), NATS_JS_MAX_FILE (default 1G).

if ! declare -F t_bg >/dev/null; then
	# shellcheck source=tests/lib/lib.sh
	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
fi

NATS_URL=
NATS_URLS=
NATS_N=0
nats_job=()	# t_bg job of each node ('' when not running)
nats_pid=()	# the nats-server process of each node
nats_port=()
nats_mport=()
nats_cport=()
nats_dir=()
nats_conf=()
nats_log=()
nats_extra=
nats_cluster=0
nats_deferred=0

nats_need() {
	NATS_SERVER=${NATS_SERVER:-$(command -v nats-server)}
	[ -x "${NATS_SERVER:-/nonexistent}" ] ||
		t_skip "nats-server is needed (scripts/deps.sh fleet: Debian package nats-server)"
	command -v curl >/dev/null || t_skip "curl is needed"
	command -v timeout >/dev/null || t_skip "timeout(1) is needed"
	command -v python3 >/dev/null || t_skip "python3 is needed"
}

# nats_free_ports N: N distinct TCP ports of 127.0.0.1 free now
nats_free_ports() {
	python3 -c 'import socket, sys
s = []
for _ in range(int(sys.argv[1])):
    k = socket.socket()
    k.bind(("127.0.0.1", 0))
    s.append(k)
print(" ".join(str(k.getsockname()[1]) for k in s))' "$1"
}

# nats_conf_write I ROUTES: node I's configuration file (ports not yet
# known: -1)
nats_conf_write() {
	local i=$1 f=${nats_conf[$1]} r

	{
		echo "server_name: n$i"
		echo "listen: 127.0.0.1:${nats_port[$i]:--1}"
		echo "http: 127.0.0.1:${nats_mport[$i]:--1}"
		echo "ports_file_dir: \"${nats_dir[$i]}\""
		echo "jetstream {"
		echo "  store_dir: \"${nats_dir[$i]}/js\""
		echo "  max_memory_store: 256MB"
		echo "  max_file_store: ${NATS_JS_MAX_FILE:-1G}"
		echo "}"
		if [ "$nats_cluster" = 1 ]; then
			echo "cluster {"
			echo "  name: grtest"
			echo "  listen: 127.0.0.1:${nats_cport[$i]:--1}"
			echo "  routes: ["
			for r in $2; do
				echo "    nats-route://127.0.0.1:$r"
			done
			echo "  ]"
			echo "}"
		fi
		[ -n "$nats_extra" ] && cat "$nats_extra"
	} >"$f"
}

# nats_ports_read I: the ports node I listens on, from its ports file
# (written once it is ready to accept them); 1 if none within 20 s
nats_ports_read() {
	local i=$1 n=400 f j

	while [ "$n" -gt 0 ]; do
		f=${nats_dir[$i]}/nats-server_${nats_pid[$i]}.ports
		if [ -s "$f" ] && grep -q monitoring "$f"; then
			j=$(cat "$f")
			if [ "$nats_cluster" = 1 ] && [[ $j != *cluster* ]]; then
				:
			else
				nats_port[i]=$(sed -n 's|.*"nats":\["[a-z]*://127\.0\.0\.1:\([0-9]*\)".*|\1|p' <<<"$j")
				nats_mport[i]=$(sed -n 's|.*"monitoring":\["http://127\.0\.0\.1:\([0-9]*\)".*|\1|p' <<<"$j")
				[ "$nats_cluster" = 1 ] &&
					nats_cport[i]=$(sed -n 's|.*"cluster":\["nats://127\.0\.0\.1:\([0-9]*\)".*|\1|p' <<<"$j")
				[ -n "${nats_port[$i]}" ] && [ -n "${nats_mport[$i]}" ] && return 0
			fi
		fi
		kill -0 "${nats_job[$i]}" 2>/dev/null || break
		n=$((n - 1))
		sleep 0.05
	done
	nats_said "$i" "did not start"
}

# nats_said I WHY: node I failed: WHY and the end of its log on stderr; 1
nats_said() {
	echo "$T_NAME: nats node $1 $2:" >&2
	tail -n 30 "${nats_log[$1]}" | sed 's/^/    | /' >&2
	return 1
}

# nats_launch I: run node I's configuration under timeout(1)
nats_launch() {
	local i=$1

	rm -f "${nats_dir[$i]}"/nats-server_*.ports
	t_bg "nats_job[$i]" "${NATS_SECS:-900}" "${nats_log[$i]}" \
		"$NATS_SERVER" -c "${nats_conf[$i]}"
	nats_pid[i]=$(t_child "${nats_job[$i]}")
	if [ "$nats_deferred" = 0 ]; then
		t_defer nats_stop_all
		nats_deferred=1
	fi
	[ -n "${nats_pid[$i]}" ] || {
		echo "$T_NAME: nats node $i: no process" >&2
		return 1
	}
}

# nats_setup DIR N EXTRA: directories and names of N nodes
nats_setup() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		[ -z "${nats_job[$i]}" ] || {
			echo "$T_NAME: nats servers already running" >&2
			return 1
		}
	done
	nats_need
	nats_extra=${3:-}
	[ -z "$nats_extra" ] || [ -r "$nats_extra" ] || {
		echo "$T_NAME: no configuration file $nats_extra" >&2
		return 1
	}
	NATS_N=$2
	for ((i = 0; i < NATS_N; i++)); do
		nats_dir[i]=$1/nats$i
		nats_conf[i]=${nats_dir[$i]}/server.conf
		nats_log[i]=${nats_dir[$i]}/server.log
		nats_port[i]=
		nats_mport[i]=
		nats_cport[i]=
		nats_job[i]=
		mkdir -p "${nats_dir[$i]}/js" || return 1
	done
}

nats_urls() {
	local i s='' l

	if [ $# -eq 0 ]; then
		l=$(seq 0 $((NATS_N - 1)))
	else
		l="$*"
	fi
	for i in $l; do
		s=$s${s:+,}nats://127.0.0.1:${nats_port[$i]}
	done
	echo "$s"
}

# nats_routes I: the cluster ports of every node but I
nats_routes() {
	local j routes=

	for ((j = 0; j < NATS_N; j++)); do
		[ "$j" = "$1" ] || routes="$routes ${nats_cport[$j]}"
	done
	echo "$routes"
}

# nats_fix_ports: rewrite every node's configuration with the ports it got
nats_fix_ports() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		nats_conf_write "$i" "$(nats_routes "$i")"
	done
	# shellcheck disable=SC2034 # for the tests
	NATS_URL=$(nats_urls 0)
	# shellcheck disable=SC2034
	NATS_URLS=$(nats_urls)
}

nats_start_single() {
	nats_cluster=0
	nats_setup "$1" 1 "${2:-}" || return 1
	nats_conf_write 0 ""
	nats_launch 0 && nats_ports_read 0 || return 1
	nats_fix_ports
	nats_wait_ready 0 30
}

# nats_start_cluster DIR N [EXTRA]: every node routes to every other
# node's cluster port (picked free now); 3 tries if a port was taken
nats_start_cluster() {
	local i n=$2 try

	nats_cluster=1
	nats_setup "$1" "$n" "${3:-}" || return 1
	for try in 1 2 3; do
		read -r -a nats_cport <<<"$(nats_free_ports "$n")"
		[ "${#nats_cport[@]}" = "$n" ] || return 1
		for ((i = 0; i < n; i++)); do
			nats_port[i]=
			nats_mport[i]=
			nats_conf_write "$i" "$(nats_routes "$i")"
			nats_launch "$i" || break
		done
		for ((i = 0; i < n; i++)); do
			nats_ports_read "$i" || break
		done
		[ "$i" = "$n" ] && break
		note "nats cluster start $try failed: retrying with other ports"
		nats_stop_all
	done
	[ "$i" = "$n" ] || return 1
	nats_fix_ports
	nats_wait_all 60
}

# nats_varz I PATH: the body of GET PATH on node I's monitoring port
nats_varz() {
	curl -sS -m 5 "http://127.0.0.1:${nats_mport[$1]}/$2" 2>/dev/null
}

nats_wait_ready() {
	local i=$1 n=$((${2:-30} * 10)) body

	while [ "$n" -gt 0 ]; do
		body=$(nats_varz "$i" healthz)
		[[ $body == *'"ok"'* ]] && return 0
		kill -0 "${nats_job[$i]:-0}" 2>/dev/null || break
		n=$((n - 1))
		sleep 0.1
	done
	nats_said "$i" "not ready (${body:-no answer})"
}

nats_wait_all() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		[ -n "${nats_job[$i]}" ] || continue
		nats_wait_ready "$i" "${1:-60}" || return 1
	done
}

nats_kill() {
	local i=$1

	[ -n "${nats_job[$i]}" ] || return 0
	t_term_job "${nats_job[$i]}" KILL
	t_wait_pid "${nats_job[$i]}" 10
	t_reap "${nats_job[$i]}"
	nats_job[i]=
	return 0
}

nats_stop() {
	local i=$1

	[ -n "${nats_job[$i]}" ] || return 0
	kill -TERM "${nats_pid[$i]}" 2>/dev/null
	t_wait_pid "${nats_job[$i]}" 10 || t_term_job "${nats_job[$i]}" KILL
	t_reap "${nats_job[$i]}"
	nats_job[i]=
	return 0
}

nats_restart() {
	local i=$1

	[ -z "${nats_job[$i]}" ] || nats_kill "$i"
	nats_launch "$i" || return 1
	nats_wait_ready "$i" "${2:-60}"
}

# shellcheck disable=SC2317 # run at exit (t_defer)
nats_stop_all() {
	local i

	for ((i = 0; i < NATS_N; i++)); do
		[ -n "${nats_job[$i]}" ] &&
			kill -TERM "${nats_pid[$i]}" 2>/dev/null
	done
	for ((i = 0; i < NATS_N; i++)); do
		nats_stop "$i"
	done
}
