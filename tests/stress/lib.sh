# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh - what the stress tests (tests/stress) share, on top of
# tests/e2e/lib.sh (sourced here; source this file instead of it):
#   stress_tpflip_guest   build tpflip.ko for the guest's kernel and make
#                         GUEST_DIR a copy of the test guest whose
#                         initramfs also holds /lib/modules/tpflip.ko
#   STRESS_TPS            the tracepoints guestrelay.ko attaches in the
#                         e2e configuration (the module's default events
#                         and the agent's), '+'-separated for tps=

# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib.sh"

STRESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STRESS_TPS=sched_switch+sched_wakeup+sched_wakeup_new+sched_process_fork
STRESS_TPS=$STRESS_TPS+sched_process_exec+sched_process_exit+sched_migrate_task
STRESS_TPS=$STRESS_TPS+irq_handler_entry+irq_handler_exit+softirq_entry
STRESS_TPS=$STRESS_TPS+softirq_exit+block_rq_issue+block_rq_complete
STRESS_TPS=$STRESS_TPS+net_dev_xmit+netif_receive_skb

# stress_tpflip_guest: after e2e_init; skips the test if tpflip.ko does
# not build. The kernel unpacks the appended initramfs over the first.
stress_tpflip_guest() {
	local kdir

	kdir=${KDIR:-/lib/modules/$("$E2E_TOP/scripts/guest-kver.sh")/build}
	cp -r "$STRESS_DIR/tpflip" "$tmp/tpflip"
	make -s -C "$tmp/tpflip" KDIR="$kdir" >"$tmp/tpflip.log" 2>&1 ||
		e2e_skip "tpflip.ko does not build: $(tail -n 3 "$tmp/tpflip.log")"
	mkdir -p "$tmp/extra/lib/modules" "$tmp/guest"
	cp "$tmp/tpflip/tpflip.ko" "$tmp/extra/lib/modules/"
	(cd "$tmp/extra" && find . | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 >"$tmp/extra.cpio.gz"
	cat "$GUEST_DIR/initrd.cpio.gz" "$tmp/extra.cpio.gz" \
		>"$tmp/guest/initrd.cpio.gz"
	ln -s "$GUEST_DIR/vmlinux" "$tmp/guest/vmlinux"
	GUEST_DIR=$tmp/guest
}
