#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015 # "A && ok || fail": ok always succeeds
#
# test_relay_client.sh - another guest module's relay channel, read in the
# guest, and klog (issue 24)
#
# One boot (single-threaded TCG): guestrelay.ko with klog=1, then
# /gr/e2e-relay loads the example client grclient.ko three times with
# guest_read=1 (per-CPU no-overwrite, overwrite with 4 sub-buffers,
# no-overwrite again), reads every relay file
# /sys/kernel/debug/guestrelay/grclient/grclient<cpu> (dd with 777-byte
# reads; cat; the example reader grread with poll(), mmap(), read() and
# sendfile()), then loads it a fourth time published to the host (spec
# 16, GR_F_CLIENT), a fifth time while this test holds the agent stopped
# (SIGSTOP), flushes the klog channel, also published, and a sixth time,
# with the agent stopped, before it unbinds the device.
# relay_check.py checks:
#   - each relay file holds exactly the client's messages of that CPU,
#     byte for byte, padding removed (overwrite: the newest 3 finished
#     sub-buffers), and a second read returns nothing (read() consumes);
#   - poll() says readable when finished sub-buffers wait and not after
#     they were read, and wakes a sleeping reader at a flush; mmap() maps
#     the buffer read-only (a writable map is refused) and shows what
#     read() returned; sendfile() copies a file;
#   - the files go away when the client is unloaded;
#   - load4: the guest's open() of a published channel is refused, and
#     the host stored <session>/channels/grclient/grclient_<cpu> holding
#     exactly the client's messages of that CPU, padding removed;
#   - klog, stored by the host as text lines (channels/klog/klog_0.txt),
#     holds the client's lines of the four loads in order, each with a
#     guest timestamp, non-decreasing;
#   - the console has no WARNING:, BUG:, Oops or Call Trace.
#   - load5, written while the agent is held stopped (SIGSTOP): per CPU
#     the host stored exactly the first messages, and the messages lost
#     (status: lost_full) are exactly the rest, as many as the client
#     counted dropped;
#   - load6, published while the agent is stopped, then the device
#     unbound: the guest's relay files hold every message of each CPU
#     (the rings came back into guest memory) and the host stored none;
# Before load5 the test rotates the session (`guestrelay rotate`): the
# channels' files go on in the new chunk, the first chunk is archived with
# its channels, and the checks above read each channel's files of both
# chunks concatenated.
# Then `status --json` lists the channels with the bytes stored.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

MSGS=500
MSGS2=2000
MSGS5=2000
e2e_init
[ -e "$GUEST_DIR/initrd.cpio.gz" ] &&
	gzip -dc "$GUEST_DIR/initrd.cpio.gz" | cpio -t 2>/dev/null |
	grep -q 'lib/modules/grclient.ko' ||
	e2e_skip "the test guest has no grclient.ko (make guest)"
start_agent
vm=$(vm_name rc)
boot_guest "$vm" --single-thread --run e2e-relay \
	--append "gr.modargs=klog=1 gr.msgs=$MSGS gr.msgs2=$MSGS2 gr.msgs5=$MSGS5"
# the host stopped on purpose twice (load5, load6): SIGSTOP when the guest
# says stop-hostN, SIGCONT at resume-hostN (or when the guest is gone)
t_defer "kill -CONT $AGENT_PID 2>/dev/null"
for n in 1 2; do
	if wait_console "$vm" "GR: RELAY stop-host$n" 240; then
		# the session goes into chunks: load5 is stored in the next one
		[ "$n" = 1 ] && { gr rotate "$vm" >"$tmp/rotate.out" 2>&1 ||
			fail "rotate $vm" "$(cat "$tmp/rotate.out")"; }
		kill -STOP "$AGENT_PID"
		wait_console "$vm" "GR: RELAY resume-host$n" 120 ||
			fail "the guest said resume-host$n" "not within 120 s"
		kill -CONT "$AGENT_PID"
	else
		fail "the guest said stop-host$n" "not within 240 s"
	fi
done
guest_ran "$vm" e2e-relay
check_console "$vm"
log=$(console "$vm")
# the session's chunks: the first (archived at the rotation) holds loads
# 1-4, the active one load5; each channel's files concatenated in chunk
# order are what the client wrote
chans=$tmp/channels
/usr/bin/python3 - "$STORE/$vm" "$chans" >"$tmp/chunks.out" 2>&1 <<'PY'
import glob, os, sys
store, out = sys.argv[1], sys.argv[2]
dirs = []
for d in glob.glob(store + '/*/archives/*/channels') + \
        glob.glob(store + '/*/*/channels'):
    chunk = os.path.basename(os.path.dirname(d))
    if '/archives/' in d or chunk.count('-') == 1:
        dirs.append((int(chunk.rsplit('-', 1)[1]), d))
dirs.sort()
print(' '.join('%d:%s' % (i, ','.join(sorted(os.listdir(d))))
               for i, d in dirs))
for _, d in dirs:
    for name in sorted(os.listdir(d)):
        os.makedirs(os.path.join(out, name), exist_ok=True)
        for f in sorted(os.listdir(os.path.join(d, name))):
            with open(os.path.join(out, name, f), 'ab') as o:
                o.write(open(os.path.join(d, name, f), 'rb').read())
PY
chunks=$(cat "$tmp/chunks.out")
# chunk 0: grclient (load4) and klog; chunk 1: grloss (load5) and klog
[ "$chunks" = "0:grclient,klog 1:grloss,klog" ] &&
	ok "the channels went on in the new chunk at the rotation" ||
	fail "the channels went on in the new chunk at the rotation" \
		"channels per chunk: $chunks"
gr status --json "$vm" >"$tmp/status.json" 2>&1
python3 "$(dirname "$0")/relay_check.py" "$log" "$MSGS" "$MSGS2" \
	"$chans" "$MSGS5" "$tmp/status.json" \
	>"$tmp/relay_check.out" 2>&1
take_checks "$tmp/relay_check.out" $? "relay_check.py"

# status lists each channel with the bytes it stored
listed=$(json_get "$vm" \
	'sorted("%s:%d" % (c["name"], c["bytes"]) for c in v["channels"])')
want=""
for c in grclient grloss klog; do
	sum=0
	for f in "$chans/$c/${c}"_*; do
		[ -e "$f" ] && sum=$((sum + $(stat -c %s "$f")))
	done
	want="$want${want:+,}$c:$sum"
done
[ "$listed" = "$want" ] &&
	ok "status --json lists the channels with their stored bytes" ||
	fail "status --json lists the channels with their stored bytes" \
		"listed '$listed', files '$want'"
finish
