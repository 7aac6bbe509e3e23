#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_metrics.sh - `guestrelay agent --metrics ADDR:PORT` serves the
# agent's counters to a real Prometheus
#
# The real agent serves one VM fed by a real fake guest for 3 s, with
# /metrics on a free loopback port. Checks:
#   - a bad --metrics address is refused with a clear message (exit 2),
#     a port in use with "cannot serve metrics" (exit 1)
#   - GET /metrics: the 0.0.4 content type, `promtool check metrics`
#     passes, every family has HELP and TYPE, the stored-bytes and
#     packets counters equal `status --json`; other paths 404, POST 405;
#     the loop-iterations counter grows; the clock-sync error (while the
#     guest runs) is status's; a half-sent request stalls
#     neither the page nor the agent
#   - label values with `"`, `\` and line feeds are escaped: the page of
#     two hostile VM names (build/tests/unit/test_metrics --page) passes
#     promtool (the agent itself refuses such names: vm-add says why)
#   - a real `prometheus` on loopback scrapes the agent every second; the
#     PromQL query guestrelay_vm_stored_bytes_total{vm="..."} through its
#     HTTP API returns what `status --json` says; it also scrapes the
#     hostile page (served as a file), and a query for the VM name
#     a"b\c<LF>d finds its value: the escaping round-trips
#   - [::1]: a second agent serves /metrics on IPv6 loopback
# Every process runs under a time limit and is stopped at exit. Without
# promtool and prometheus (scripts/deps.sh metrics) the test is skipped.

set -u
# shellcheck source=tests/integration/lib_agent.sh
. "$(dirname "$0")/lib_agent.sh"
la_init test_metrics
out='' err='' fg='' prom='' a6='' hsrv=''	# set by gr, la_status and t_bg

command -v curl >/dev/null || la_skip "curl is needed (scripts/deps.sh metrics)"
command -v promtool >/dev/null ||
	la_skip "promtool is needed (scripts/deps.sh metrics: Debian package prometheus)"
PROM=$(command -v prometheus) ||
	la_skip "prometheus is needed (scripts/deps.sh metrics: Debian package prometheus)"
UNIT_METRICS=$BUILD/tests/unit/test_metrics

# free_port: a TCP port of 127.0.0.1 that nothing listens on now
free_port() {
	"$PY" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# scrape URL FILE: GET URL into FILE (10 s at most); the HTTP status in $code
scrape() {
	code=$(curl -sS -m 10 -o "$2" -w '%{http_code}' -D "$2.hdr" "$1" 2>&1)
}

# metric FILE SERIES: the value of one exposition line (SERIES with labels)
metric() {
	awk -v s="$2" 'index($0, s " ") == 1 { print $NF; exit }' "$1"
}

la_vm A met
MPORT=$(free_port)
MURL=http://127.0.0.1:$MPORT/metrics

# ---- bad addresses --------------------------------------------------------------
for a in 127.0.0.1 1.2.3:80 localhost:9464 '[::1]' 127.0.0.1:0 127.0.0.1:70000; do
	e=$(timeout -k 2 10 "$GR" agent --run-dir "$RUN/bad" --store "$STORE" \
		--metrics "$a" 2>&1)
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF "bad address '$a'" <<<"$e" &&
	   grep -q 'IPV4:PORT or \[IPV6\]:PORT' <<<"$e"; then
		ok "bad-address-refused '$a'"
	else
		bad "bad-address-refused '$a'" "exit $rc" "$e"
	fi
done

# ---- the agent, a fake guest ----------------------------------------------------
la_agent_start --metrics "127.0.0.1:$MPORT" --events all \
	--subbuf-size 16384 --subbufs 16 --vm "$A" ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
ok agent-starts
check "agent-logs-metrics-address" \
	"grep -q 'metrics at http://127.0.0.1:$MPORT/metrics' '$LA_AGENT_LOG'" \
	"not in the log"

e=$(timeout -k 2 10 "$GR" agent --run-dir "$RUN/busy" --store "$STORE" \
	--metrics "127.0.0.1:$MPORT" 2>&1)
rc=$?
check "port-in-use-refused" "[ $rc -eq 1 ] && grep -q 'cannot serve metrics on 127.0.0.1:$MPORT: .*in use' <<<\"\$e\"" \
	"exit $rc: $e"

t_bg fg 40 "$la_tmp/fg-$A.log" "$FG" --socket "$RUN/$A.sock" --cpus 2 \
	--rate 2000 --duration 3 --events 4 --stats "$la_tmp/$A.stats"
# while the guest runs: the clock-sync error bound, in seconds, is the
# one status shows (read before and after the scrape: a sync may land
# in between)
if la_wait_status "$A" "s.get('sync_error_ns', 0) > 0" 3; then
	se1=$(la_field "$A" sync_error_ns)
	scrape "$MURL" "$la_tmp/metrics-live.txt"
	se2=$(la_field "$A" sync_error_ns)
	m=$(metric "$la_tmp/metrics-live.txt" "guestrelay_vm_clock_sync_error_seconds{vm=\"$A\"}")
	if "$PY" -c 'import sys
m = float(sys.argv[1])
sys.exit(0 if min(abs(m * 1e9 - int(v)) for v in sys.argv[2:]) < 0.5 else 1)' \
		"${m:-nan}" "$se1" "$se2" 2>/dev/null; then
		ok "clock-sync-error-equals-status ($m s)"
	else
		bad "clock-sync-error-equals-status" \
			"metrics '$m' s, status --json $se1 / $se2 ns"
	fi
else
	bad "clock-sync-error-equals-status" "the clock was not synchronized"
fi
la_wait_fg "$fg" 40
rc=$?
check "fakeguest-exits-0" "[ $rc -eq 0 ]" "exit $rc"
la_wait_status "$A" "s['state'] == 'waiting' and not s.get('session')" 10 ||
	bad "session-closed" "still open: $out"
bytes=$(la_field "$A" stats.bytes)
packets=$(la_field "$A" stats.packets)
check "status-has-traffic" "[ \"\${bytes:-0}\" -gt 0 ] && [ \"\${packets:-0}\" -gt 0 ]" \
	"bytes '$bytes', packets '$packets'"

# ---- /metrics -------------------------------------------------------------------
page=$la_tmp/metrics.txt
scrape "$MURL" "$page"
check "metrics-200" "[ '$code' = 200 ]" "HTTP $code"
check "content-type-0.0.4" \
	"grep -qi '^content-type: text/plain; version=0.0.4' '$page.hdr'" \
	"$(cat "$page.hdr")"
if pt=$(timeout -k 2 30 promtool check metrics <"$page" 2>&1); then
	ok "promtool-check-metrics"
else
	bad "promtool-check-metrics" "promtool says" "$pt"
fi
for fam in guestrelay_build_info guestrelay_vms \
	   guestrelay_loop_iterations_total guestrelay_write_errors \
	   guestrelay_vm_events_recorded_total guestrelay_vm_stored_bytes_total \
	   guestrelay_vm_stored_packets_total guestrelay_vm_events_lost_total \
	   guestrelay_vm_subbuffers_overwritten_total \
	   guestrelay_vm_subbuffers_invalid_total guestrelay_vm_doorbells_total \
	   guestrelay_vm_subbuffers_rewritten_total \
	   guestrelay_vm_last_record_refused_total \
	   guestrelay_vm_polls_total guestrelay_vm_clock_sync_error_seconds \
	   guestrelay_vm_guest_state guestrelay_vm_sessions; do
	grep -q "^# HELP $fam " "$page" && grep -q "^# TYPE $fam " "$page" &&
		continue
	bad "family-$fam" "no HELP or TYPE line"
	fam=
	break
done
[ -n "$fam" ] && ok "families-have-help-and-type"
m=$(metric "$page" "guestrelay_vm_stored_bytes_total{vm=\"$A\"}")
check "stored-bytes-equal-status" "[ '$m' = '$bytes' ]" \
	"metrics '$m', status --json '$bytes'"
m=$(metric "$page" "guestrelay_vm_stored_packets_total{vm=\"$A\"}")
check "stored-packets-equal-status" "[ '$m' = '$packets' ]" \
	"metrics '$m', status --json '$packets'"
m=$(metric "$page" "guestrelay_vm_sessions{vm=\"$A\",kind=\"recording\"}")
n=$(la_sessions "$A" | grep -c .)
check "sessions-equal-store" "[ '$m' = '$n' ]" "metrics '$m', store $n"
m=$(metric "$page" "guestrelay_vm_doorbells_total{vm=\"$A\",direction=\"guest_to_host\"}")
d=$(la_field "$A" stats.doorbells_in)
check "doorbells-equal-status" "[ '$m' = '$d' ]" "metrics '$m', status '$d'"
m=$(metric "$page" "guestrelay_vm_clock_sync_error_seconds{vm=\"$A\"}")
check "clock-sync-error-absent-when-detached" "[ -z '$m' ]" "metrics '$m'"
check "build-info" "grep -q '^guestrelay_build_info{version=\"[0-9.]*\",abi=\"[0-9.]*\",host=\".*\"} 1$' '$page'" \
	"$(grep build_info "$page")"
i1=$(metric "$page" guestrelay_loop_iterations_total)
sleep 0.3
scrape "$MURL" "$la_tmp/metrics2.txt"
i2=$(metric "$la_tmp/metrics2.txt" guestrelay_loop_iterations_total)
check "loop-iterations-grow" "[ \"\${i2:-0}\" -gt \"\${i1:-0}\" ]" "$i1 then $i2"
# a client that sends half a request and waits stalls neither the page
# nor the agent (MHD runs on the loop without blocking)
if exec 9<>"/dev/tcp/127.0.0.1/$MPORT"; then
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&9
	scrape "$MURL" "$la_tmp/metrics3.txt"
	check "half-request-does-not-stall-page" "[ '$code' = 200 ]" "HTTP $code"
	check "half-request-does-not-stall-agent" "gr ping" "no ping: $err"
	exec 9>&-
else
	bad "half-request-does-not-stall-page" "cannot connect"
fi
scrape "http://127.0.0.1:$MPORT/other" "$la_tmp/404.txt"
check "other-path-404" "[ '$code' = 404 ]" "HTTP $code"
code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' -X POST -d x=1 "$MURL" 2>&1)
check "post-405" "[ '$code' = 405 ]" "HTTP $code"

# ---- hostile label values -------------------------------------------------------
gr vm-add 'bad"name\x'
check "vm-add-refuses-quote-and-backslash" "[ $rc -ne 0 ] && grep -qi 'bad VM name' <<<\"\$err\"" \
	"exit $rc: $err"
if [ -x "$UNIT_METRICS" ]; then
	"$UNIT_METRICS" --page "$la_tmp/hostile.prom" >/dev/null 2>&1
	if pt=$(timeout -k 2 30 promtool check metrics <"$la_tmp/hostile.prom" 2>&1) &&
	   grep -qF 'guestrelay_vm_stored_bytes_total{vm="a\"b\\c\nd"} 123456789' \
		"$la_tmp/hostile.prom"; then
		ok "hostile-names-escaped-promtool-passes"
	else
		bad "hostile-names-escaped-promtool-passes" "promtool or escaping" \
			"$pt" "$(grep stored_bytes "$la_tmp/hostile.prom")"
	fi
else
	skip_check "hostile-names-escaped-promtool-passes" \
		"no $UNIT_METRICS (make -C tests unit)"
fi

# ---- a real Prometheus scrapes the agent ----------------------------------------
# and, as a second target, the hostile page as a file (python's http.server)
PPORT=$(free_port)
HPORT=
mkdir -p "$la_tmp/hostile"
if [ -s "$la_tmp/hostile.prom" ]; then
	cp "$la_tmp/hostile.prom" "$la_tmp/hostile/metrics"
	HPORT=$(free_port)
	t_bg hsrv 60 "$la_tmp/hostile-http.log" "$PY" -m http.server \
		--bind 127.0.0.1 --directory "$la_tmp/hostile" "$HPORT"
fi
la_prom_config "127.0.0.1:$MPORT"
[ -n "$HPORT" ] && cat >>"$la_tmp/prom/prometheus.yml" <<EOF
  - job_name: hostile
    static_configs:
      - targets: ['127.0.0.1:$HPORT']
EOF
la_prom_start prom "$PPORT"
# query PROMQL: the first result's value in $qv ("" if none yet)
query() {
	qv=$(la_prom_query "$PPORT" "$1" | awk 'NR == 1 { print $1 }')
}
# query_wait PROMQL SECS: query until it has a result (SECS at most)
query_wait() {
	local end=$(($(date +%s) + $2))

	qv=
	while [ "$(date +%s)" -le "$end" ]; do
		query "$1"
		[ -n "$qv" ] && return 0
		sleep 0.5
	done
	return 1
}
query_wait "guestrelay_vm_stored_bytes_total{vm=\"$A\"}" 40
if [ -n "$qv" ] && [ "$qv" = "$bytes" ]; then
	ok "prometheus-query-equals-status ($qv bytes)"
else
	bad "prometheus-query-equals-status" \
		"PromQL '$qv', status --json '$bytes'" \
		"$(tail -n 5 "$la_tmp/prometheus.log")"
fi
query "up{job=\"guestrelay\"}"
check "prometheus-target-up" "[ '$qv' = 1 ]" "up = '$qv'"
query "sum by (cause) (guestrelay_vm_events_lost_total{vm=\"$A\",cause=\"full\"})"
check "prometheus-lost-by-cause" "[ -n '$qv' ]" "no series"
if [ -n "$HPORT" ]; then
	# the VM name a"b\c<LF>d, written as a PromQL string
	hq='guestrelay_vm_stored_bytes_total{job="hostile",vm="a\"b\\c\nd"}'
	query_wait "$hq" 20
	check "prometheus-reads-hostile-names-back" "[ '$qv' = 123456789 ]" \
		"$hq = '$qv'"
	t_term_job "$hsrv"
	t_wait_pid "$hsrv" 10 || t_term_job "$hsrv" KILL
	t_reap "$hsrv"
else
	skip_check "prometheus-reads-hostile-names-back" "no hostile page"
fi
la_prom_stop "$prom"

# ---- IPv6 loopback --------------------------------------------------------------
if "$PY" -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	P6=$(free_port)
	t_bg a6 30 "$la_tmp/agent6.log" "$GR" agent --run-dir "$RUN/v6" \
		--store "$STORE/v6" --metrics "[::1]:$P6"
	n=50
	code=
	while [ "$n" -gt 0 ] && [ "$code" != 200 ]; do
		sleep 0.1
		n=$((n - 1))
		code=$(curl -sS -g -m 5 -o "$la_tmp/v6.txt" -w '%{http_code}' \
			"http://[::1]:$P6/metrics" 2>/dev/null)
	done
	check "ipv6-loopback-serves" "[ '$code' = 200 ] && grep -q '^guestrelay_vms 0$' '$la_tmp/v6.txt'" \
		"HTTP '$code'" "$(cat "$la_tmp/agent6.log")"
	t_term_job "$a6"
	t_wait_pid "$a6" 10 || t_term_job "$a6" KILL
	t_reap "$a6"
	rc=$?
	check "ipv6-agent-exits-0" "[ $rc -eq 0 ]" "exit $rc"
else
	skip_check "ipv6-loopback-serves" "no IPv6 loopback here"
fi

la_end
