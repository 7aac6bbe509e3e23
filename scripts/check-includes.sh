#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The host agent's folders are layers: a file may include headers of its
# own folder and of the folders below it, never of one above. Checked for
# every #include "..." of host-agent/ that names one of its own headers
# (spec/ and qemu-device/ are below them all). Prints each include that
# runs up and "N passed, N failed" (one check).
#
# The order, bottom first: what each folder is (README, Layout)
layers=(common region trace filter live agent control fleet metrics libvirt cli .)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top/host-agent" || exit 1
declare -A rank where
for i in "${!layers[@]}"; do
	rank[${layers[$i]}]=$i
done
while IFS= read -r f; do
	d=$(dirname "$f")
	where[$(basename "$f")]=${d#./}
done < <(find . -name '*.h')
bad=0
while IFS= read -r f; do
	d=$(dirname "$f")
	d=${d#./}
	[ -n "${rank[$d]+x}" ] || { echo "$f: folder '$d' has no layer"; bad=$((bad + 1)); continue; }
	while IFS= read -r h; do
		t=${where[$(basename "$h")]:-}
		[ -n "$t" ] || continue
		if [ "${rank[$t]}" -gt "${rank[$d]}" ]; then
			echo "$f includes $h: $t/ is above $d/"
			bad=$((bad + 1))
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done < <(find . -name '*.[ch]' | sort)
if [ "$bad" -eq 0 ]; then
	echo "ok - no include runs up a folder (${layers[*]})"
	echo "1 passed, 0 failed"
	exit 0
fi
echo "0 passed, 1 failed"
exit 1
