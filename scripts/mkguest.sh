#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the bootable test guest from Debian's kernel:
#   OUT/vmlinux        uncompressed kernel for a fast PVH boot (-kernel)
#   OUT/initrd.cpio.gz busybox initramfs: /init, workloads, loop.ko and,
#                      when given, guestrelay.ko with the example client
#                      grclient.ko built beside it (examples/grclient/),
#                      and its reader /gr/grread (built static here),
#                      and the test tracepoint grtp.ko (tests/e2e/grtp/)
#                      when built
# Usage: scripts/mkguest.sh OUT KVER [guestrelay.ko]
# Rebuilds only what is older than its inputs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1 kver=$2 mod=${3:-}
mkdir -p "$out"

vmlinuz=/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || { echo "mkguest.sh: no $vmlinuz; run scripts/deps.sh guest" >&2; exit 1; }

# 1. vmlinux, extracted with the kernel's own extract-vmlinux
if [ ! -s "$out/vmlinux" ] || [ "$vmlinuz" -nt "$out/vmlinux" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
	[ -n "$tarball" ] || { echo "mkguest.sh: no linux-source tarball; run scripts/deps.sh build" >&2; exit 1; }
	tools="$out/tools"
	mkdir -p "$tools"
	if [ ! -x "$tools/extract-vmlinux" ]; then
		inner=$(basename "$tarball" .tar.xz)
		tar -xJf "$tarball" -C "$tools" --strip-components=2 \
			"$inner/scripts/extract-vmlinux"
	fi
	"$tools/extract-vmlinux" "$vmlinuz" >"$out/vmlinux.tmp"
	mv "$out/vmlinux.tmp" "$out/vmlinux"
fi

# 2. initramfs
initrd="$out/initrd.cpio.gz"
inputs=("$here/mkguest.sh" "$here"/guest/* /bin/busybox)
client=""
if [ -n "$mod" ]; then
	inputs+=("$mod")
	client=$(dirname "$mod")/examples/grclient/grclient.ko
	[ -e "$client" ] && inputs+=("$client") || client=""
fi
grtp=$here/../tests/e2e/grtp/grtp.ko
[ -e "$grtp" ] && inputs+=("$grtp") || grtp=""
grread=$here/../guest-module/examples/grclient/grread.c
inputs+=("$grread" "$here/../guest-module/include/guestrelay/relay_file.h")
stale=0
[ -s "$initrd" ] || stale=1
for f in "${inputs[@]}"; do
	[ "$f" -nt "$initrd" ] && stale=1
done
[ "$stale" -eq 0 ] && exit 0

root=$(mktemp -d "$out/root.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,root,etc,gr,lib/modules}
cp /bin/busybox "$root/bin/busybox"
for f in "$here"/guest/*; do
	case "$f" in
	*/init) install -m 0755 "$f" "$root/init" ;;
	*) install -m 0755 "$f" "$root/gr/" ;;
	esac
done
moddir=/lib/modules/$kver/kernel
for m in drivers/block/loop.ko; do
	if [ -e "$moddir/$m" ]; then
		cp "$moddir/$m" "$root/lib/modules/"
	elif [ -e "$moddir/$m.xz" ]; then
		xz -dc "$moddir/$m.xz" >"$root/lib/modules/$(basename "$m")"
	fi
done
[ -n "$mod" ] && cp "$mod" "$root/lib/modules/guestrelay.ko"
[ -n "$client" ] && cp "$client" "$root/lib/modules/grclient.ko"
[ -n "$grtp" ] && cp "$grtp" "$root/lib/modules/grtp.ko"
# the example's user side; a host without a static libc goes without it
${CC:-cc} -static -O2 -I"$here/../guest-module/include" -o "$root/gr/grread" \
	"$grread" 2>/dev/null ||
	echo "mkguest.sh: no static libc: the guest has no /gr/grread" >&2
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -1 >"$initrd.tmp"
mv "$initrd.tmp" "$initrd"
