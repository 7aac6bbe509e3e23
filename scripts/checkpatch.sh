#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl --strict on guest-module sources.
# checkpatch comes from Debian's linux-source-6.1 tarball, extracted once into
# build/tools/checkpatch/. Usage: scripts/checkpatch.sh [FILE...]
# (default: every .c and .h under guest-module/). Prints one line per file and
# the closing "N passed, N failed" line; exits non-zero if any file fails.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build/tools/checkpatch"
cp="$dir/scripts/checkpatch.pl"

if [ ! -x "$cp" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
	if [ -z "$tarball" ]; then
		echo "checkpatch.sh: no /usr/src/linux-source-*.tar.xz; run scripts/deps.sh build" >&2
		exit 1
	fi
	mkdir -p "$dir"
	inner=$(basename "$tarball" .tar.xz)
	tar -xJf "$tarball" -C "$dir" --strip-components=1 \
		"$inner/scripts/checkpatch.pl" "$inner/scripts/spelling.txt" \
		"$inner/scripts/const_structs.checkpatch"
	chmod +x "$cp"
fi

if [ $# -eq 0 ]; then
	mapfile -t files < <(cd "$top" && find guest-module -name '*.[ch]' \
		-not -name '*.mod.c' | sort)
else
	files=("$@")
fi

pass=0
fail=0
for f in "${files[@]}"; do
	if out=$(cd "$top" && perl "$cp" --strict --no-tree --terse \
			--ignore SPDX_LICENSE_TAG -f "$f" 2>&1); then
		echo "checkpatch: ok   $f"
		pass=$((pass + 1))
	else
		echo "checkpatch: FAIL $f"
		echo "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
