#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print the version of the installed Debian guest kernel: the newest one that
# has both its image in /boot and its headers (a Kbuild tree). Never the host's
# running kernel, which need not be a Debian kernel at all.
set -euo pipefail
best=""
for d in /lib/modules/*/; do
	v=$(basename "$d")
	[ -e "/lib/modules/$v/build/Makefile" ] || continue
	[ -e "/boot/vmlinuz-$v" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n1)
done
if [ -z "$best" ]; then
	echo "guest-kver.sh: no kernel with both /boot/vmlinuz-VER and headers;" \
	     "run scripts/deps.sh" >&2
	exit 1
fi
echo "$best"
