#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2015 # "A && ok || fail": ok always succeeds
#
# test_anyevent.sh - any trace event found by name in the guest kernel
# (issue 25, first step: found, not recorded yet)
#
# One boot (single-threaded TCG, gr.mod=0): /gr/e2e-anyevent loads
# guestrelay.ko with anyevent= naming six events of six systems and one
# that does not exist, prints tracefs' id and field count of each and the
# module's catalogue (parameter anyevent_catalogue), then unloads the
# module. Checks:
#   - the module loads with a missing event among the names and counts it;
#   - each event tracefs has is in the catalogue with tracefs' id and the
#     number of fields of its format file;
#   - the module unloads (the event references it took are dropped);
#   - the console has no WARNING:, BUG:, Oops or Call Trace.

# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

e2e_init
start_agent
vm=$(vm_name ae)
boot_guest "$vm" --single-thread --run e2e-anyevent --append "gr.mod=0"
guest_ran "$vm" e2e-anyevent
check_console "$vm"
log=$(console "$vm")

grep -aq "GR: ANYLOAD ok" "$log" && ok "guestrelay.ko loads with anyevent=" ||
	fail "guestrelay.ko loads with anyevent=" "$(grep -a 'GR:' "$log")"
cat=$(sed -n '/GR: MARK catalogue /,/GR: MARK catalogue_end/p' "$log" | tr -d '\r')
want=$(grep -a "GR: ANYTRACE " "$log" | tr -d '\r' | wc -l)
grep -q "^found $want missing 1$" <<<"$cat" &&
	ok "catalogue: $want found, the absent event counted missing" ||
	fail "catalogue: $want found, 1 missing" "$cat"
bad=0
while read -r _ _ e _ id _ n; do
	grep -q "^$e id $id fields $n$" <<<"$cat" || {
		bad=$((bad + 1))
		echo "  tracefs: $e id $id fields $n" >&2
	}
done < <(grep -a "GR: ANYTRACE " "$log" | tr -d '\r')
[ "$want" -ge 5 ] && [ "$bad" -eq 0 ] &&
	ok "$want events: the catalogue's id and field count equal tracefs'" ||
	fail "the catalogue's id and field count equal tracefs'" \
		"$bad of $want differ" "$cat"
grep -aq "GR: ANYRMMOD ok" "$log" && ok "the module unloads" ||
	fail "the module unloads" "$(grep -a 'GR: ANYRMMOD' "$log")"
echo "# available events in this guest: $(grep -a 'GR: ANYAVAIL' "$log" | tr -d '\r' | awk '{print $3}')"
finish
