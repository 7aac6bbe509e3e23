#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_ship_creds.sh - shipping to a server that wants TLS and a user and
# password (issue 9): a real `nats-server -js` with a certificate of a CA
# made here (openssl) and `authorization { user, password }`; the agent
# gets a tls:// URL and --ship-creds FILE (user=, password=, ca=), the
# collector --creds FILE. Checks: the trace is collected byte for byte;
# wrong credentials ship nothing (and the agent keeps storing); the
# password is in no log, no `status` output (text or --json), no /metrics
# page and no process's command line.

set -u
. "$(dirname "$0")/lib_agent.sh"
. "$LA_HERE/lib_ship.sh"
ls_init test_ship_creds
command -v openssl >/dev/null || la_skip "openssl is needed"

PASS="s3cret-$$-$RANDOM"
C=$la_tmp/tls
mkdir -p "$C"
if ! {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=grtest-ca" \
		-keyout "$C/ca.key" -out "$C/ca.pem" &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
		-keyout "$C/server.key" -out "$C/server.csr" &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$C/ext" &&
	openssl x509 -req -in "$C/server.csr" -CA "$C/ca.pem" \
		-CAkey "$C/ca.key" -CAcreateserial -days 2 \
		-extfile "$C/ext" -out "$C/server.pem"
} >"$la_tmp/openssl.log" 2>&1; then
	la_skip "openssl could not make a CA and a certificate: $(tail -n 3 "$la_tmp/openssl.log")"
fi
cat >"$la_tmp/secure.conf" <<EOF
tls {
  cert_file: "$C/server.pem"
  key_file: "$C/server.key"
  timeout: 5
}
authorization { user: fleet, password: "$PASS" }
EOF
nats_start_single "$la_tmp/nats" "$la_tmp/secure.conf" ||
	{ bad nats-starts "see above"; la_finish; }
ok nats-starts-with-tls-and-auth
URL=tls://127.0.0.1:${nats_port[0]}
printf 'user=fleet\npassword=%s\nca=%s\n' "$PASS" "$C/ca.pem" >"$la_tmp/creds"
printf 'user=fleet\npassword=wrong\nca=%s\n' "$C/ca.pem" >"$la_tmp/bad.creds"
chmod 600 "$la_tmp/creds" "$la_tmp/bad.creds"

la_vm V sc
MPORT=$(nats_free_ports 1)
LA_BT_SECS=${LA_BT_SECS:-180}
LA_AGENT_SECS=300
# first with a wrong password: stores, ships nothing
la_agent_start --ship "$URL" --ship-creds "$la_tmp/bad.creds" \
	--events all --subbuf-size 16384 --subbufs 16 --vm "$V" --plain ||
	{ bad agent-starts "see the log"; la_show_logs; la_finish; }
t_bg fv 120 "$la_tmp/fg-$V.log" "$FG" --shm "guestrelay-$V" --cpus 2 \
	--rate 2000 --duration 14 --linger 15 --stats "$la_tmp/$V.stats"
la_wait_status "$V" "s['stats']['packets'] > 10" 15 || bad streams "$out"
sleep 2
la_field "$V" ship.backlog_bytes >/dev/null
con=$(la_field "$V" ship.connected)
bl=$(la_field "$V" ship.backlog_bytes)
check "wrong-password-not-connected (backlog $bl bytes)" \
	"[ '$con' = False ] && [ ${bl:-0} -gt 0 ]" "$out"
grep -q "NATS unreachable" "$LA_AGENT_LOG" && ok wrong-password-logged ||
	bad wrong-password-logged "$(cat "$LA_AGENT_LOG")"

# then the right one: everything is collected
la_agent_stop
la_agent_start --ship "$URL" --ship-creds "$la_tmp/creds" \
	--metrics "127.0.0.1:$MPORT" --events all --subbuf-size 16384 \
	--subbufs 16 --vm "$V" --plain ||
	{ bad agent-restarts "see the log"; la_show_logs; la_finish; }
ok agent-restarts-with-the-right-password
ls_collect_start c1 --creds "$la_tmp/creds"
# the restarted agent's shipper connects over TLS in its own time (under
# load, after the first status once: "NATS unreachable")
la_wait_status "$V" "s['ship']['connected']" 30 ||
	bad shipper-connects "$out"
gr status "$V"
st_text=$out
gr status --json
st_json=$out
page=$(curl -sS -m 5 "http://127.0.0.1:$MPORT/metrics" 2>&1)
cmdlines=$(for p in /proc/[0-9]*; do
	{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null
	echo
done)
la_wait_fg "$fv" 60 || bad fakeguest-exits "exit $?"
la_wait_status "$V" "s['state'] == 'waiting'" 20 || bad session-closed "$out"
if ls_wait_equal 90; then
	ok "collected-over-tls-equals-store ($(du -sb "$COL/$HOST" | cut -f1) bytes)"
else
	bad collected-over-tls-equals-store "after 90 s" "$diff_out"
fi
la_bt $(ls_collected "$V") && ok babeltrace2-reads-collected ||
	bad babeltrace2-reads-collected "$bt_out"
grep -Eq "shipping +connected, backlog" <<<"$st_text" &&
	ok status-shows-shipping ||
	bad status-shows-shipping "$st_text"

ls_collect_stop c1
la_agent_stop
leaks=$(grep -l -- "$PASS" "$la_tmp"/*.log 2>/dev/null)
check password-in-no-log "[ -z '$leaks' ]" "$leaks"
check password-not-in-status "! grep -q -- '$PASS' <<<\"\$st_text\$st_json\"" \
	"status shows it"
check password-not-in-metrics "! grep -q -- '$PASS' <<<\"\$page\"" \
	"/metrics shows it"
check password-in-no-command-line "! grep -q -- '$PASS' <<<\"\$cmdlines\"" \
	"a process's arguments show it"
"$GR" agent --run-dir "$la_tmp/x" --store "$la_tmp/x" \
	--ship "nats://fleet:$PASS@127.0.0.1:${nats_port[0]}" >"$la_tmp/url.out" 2>&1
rc=$?
check "password-in-url-refused (exit $rc)" "[ $rc -eq 2 ]" "$(cat "$la_tmp/url.out")"
rm -f "$la_tmp/url.out"
finish
