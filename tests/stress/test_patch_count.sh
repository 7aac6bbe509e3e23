#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015,SC2119 # "A && ok || fail": ok always succeeds
#
# test_patch_count.sh - how much kernel text guestrelay.ko patches when
# it loads, against the least any module attached to the same
# tracepoints can patch (issue 27)
#
# Every first probe of a tracepoint makes the kernel retarget its static
# call (the trampoline and each inline call site: one text_poke_bp()
# each) and enable its static key (one text_poke_bp_batch() of all its
# sites); each text_poke_bp_batch() sends three rounds of sync_core IPIs
# to every other CPU. Two boots (gr.mod=0) count text_poke_bp_batch()
# calls with a kprobe event (/gr/stress-patches):
#   guestrelay: insmod guestrelay.ko beside a real agent, whose control
#               block adds its default events 3 s later;
#   tpflip:     insmod tests/stress/tpflip with an empty probe on each of
#               the same tracepoints (STRESS_TPS), one at a time.
# Checks: both counts are there; guestrelay.ko patches no more than
# tpflip.ko does for the same tracepoints, plus the static calls of its
# own text the kernel fixes up when it loads a module (counted apart, by
# the batches whose stack holds load_module; GR_PATCH_SLACK, default 0,
# more). The counts and their split by cause are printed.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

slack=${GR_PATCH_SLACK:-0}
vm_args="--mode flight --subbufs 4 --subbuf-size 65536 --switch-timer-ms 100"

e2e_init
stress_tpflip_guest
start_agent

# patches MODE [launch-guest.sh options]: boot once; the console's counts
# and stacks stay in $tmp/patches-MODE.console
patches() {
	local mode=$1 vm

	shift
	vm=$(vm_name "p${mode:0:1}")
	boot_guest "$vm" --run stress-patches --vm-args "$vm_args" \
		--append "gr.mod=0 gr.stress=$mode gr.stacks=1" "$@"
	wait_guest "$vm"
	cp "$(console "$vm")" "$tmp/patches-$mode.console"
	gr vm-remove "$vm" >/dev/null 2>&1
}

# count MODE PHASE: the batches the console gives for PHASE
count() {
	sed -n "s/^GR: PATCHES $2 batches \([0-9]*\).*/\1/p" \
		"$tmp/patches-$1.console" | head -n 1
}

# causes MODE: the batches of the trace by cause ("static_call",
# "jump_label", each with what started it)
causes() {
	awk '
		{ sub(/\r$/, "") }
		/ grbatch: / { if (n) print kind " " who; n = 1; kind = "other"; who = "?"; next }
		/^ => / {
			f = $2
			if (f == "__static_call_transform") kind = "static_call"
			if (f == "arch_jump_label_transform_apply") kind = "jump_label"
			if (f == "load_module") who = "module load"
			else if (f ~ /^gr_ctl_(prepare|pass)$/) who = f
			else if (f == "tracepoint_probe_register" && who == "?") who = "tracepoint_probe_register"
			else if (f == "vfs_write" && who == "?") who = "tracefs write (the kprobe event)"
		}
		END { if (n) print kind " " who }
	' "$tmp/patches-$1.console" | sort | uniq -c | sort -rn
}

patches guestrelay
patches tpflip --modargs "tps=$STRESS_TPS"

g=$(count guestrelay host)
t=$(count tpflip host)
if [ -z "$g" ] || [ -z "$t" ]; then
	fail "both boots counted their text patches" \
		"guestrelay '${g:-none}', tpflip '${t:-none}'" \
		"$(tail -n 8 "$tmp/patches-guestrelay.console")" \
		"$(tail -n 8 "$tmp/patches-tpflip.console")"
	finish
fi
ok "both boots counted their text patches"
note "guestrelay.ko: $g text_poke_bp_batch() calls, by cause:"
causes guestrelay | sed 's/^/#   /'
note "tpflip.ko on the same $(tr '+' '\n' <<<"$STRESS_TPS" | wc -l) tracepoints: $t, by cause:"
causes tpflip | sed 's/^/#   /'
# what neither module did: enabling the kprobe event itself
gk=$(causes guestrelay | awk '/tracefs write/ { n += $1 } END { print n + 0 }')
tk=$(causes tpflip | awk '/tracefs write/ { n += $1 } END { print n + 0 }')
gl=$(causes guestrelay | awk '/module load/ { n += $1 } END { print n + 0 }')
tl=$(causes tpflip | awk '/module load/ { n += $1 } END { print n + 0 }')
ga=$((g - gk - gl))
ta=$((t - tk - tl))
[ "$ga" -le $((ta + slack)) ] &&
	ok "guestrelay.ko's attach patches no more than tpflip.ko's ($ga <= $ta; module load: $gl and $tl)" ||
	fail "guestrelay.ko's attach patches no more than tpflip.ko's" \
		"$ga > $ta (slack $slack)"
finish
