#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages guestrelay needs, only those missing.
# Idempotent: runs `apt-get update` at most once, and only when something
# has to be installed. Usage: scripts/deps.sh [GROUP...]
#   build   compilers, liburing, libmicrohttpd, libnats (the NATS C client),
#           jansson (JSON of fleet-status entries),
#           CUnit, kernel headers, checkpatch source
#   guest   QEMU, the guest kernel, busybox initramfs tools
#   trace   babeltrace2 and its Python bindings (trace readers)
#   libvirt libvirtd, virtlogd, the QEMU driver and virsh, without
#           libvirt-daemon-system (it needs systemd, polkit and a firewall);
#           creates the libvirt-qemu account that package would create
#   metrics Prometheus (promtool and a real server) and curl, for
#           tests/integration/test_metrics.sh
#   fleet   nats-server (JetStream), for the shipping, collecting and
#           fleet-status tests (tests/fleet); strace slows the collector's
#           reads in tests/integration/test_ship_drain.sh
#   fuzz    clang and its libFuzzer runtime (tests/fuzz)
#   view    headless Chromium and a font (tests/integration/test_timeline.sh
#           renders `guestrelay timeline` pictures in it)
#   bench   valgrind (bench_core.sh counts instructions with callgrind),
#           qemu-user (qemu-x86_64 runs tests/bench/tcgcount's unit test
#           under the plugin) and
#           LTTng for the benchmarks' third tracer (tests/bench): lttng-tools
#           and lttng-modules-dkms, whose sources tests/bench builds for the
#           guest kernel itself; DKMS's own build at install is switched off
#           (see below)
#   all     build, guest, trace, metrics, fleet and fuzz (default)
set -euo pipefail

declare -A group
group[build]="build-essential pkg-config liburing-dev libmicrohttpd-dev libnats-dev libjansson-dev libxml2-dev libcunit1-dev linux-headers-amd64 linux-source-6.1 xz-utils kmod"
group[guest]="qemu-system-x86 linux-image-amd64 busybox-static cpio"
group[trace]="babeltrace2 python3-bt2"
group[metrics]="prometheus curl"
group[libvirt]="libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients adduser"
group[fleet]="nats-server curl strace"
group[fuzz]="clang libclang-rt-14-dev"
group[view]="chromium fonts-dejavu-core"
group[bench]="lttng-tools lttng-modules-dkms kmod valgrind qemu-user"

want=()
[ $# -eq 0 ] && set -- all
for g in "$@"; do
	if [ "$g" = all ]; then
		for k in build guest trace metrics fleet fuzz; do
			read -ra w <<<"${group[$k]}"
			want+=("${w[@]}")
		done
	elif [ -n "${group[$g]:-}" ]; then
		read -ra w <<<"${group[$g]}"
		want+=("${w[@]}")
	else
		echo "deps.sh: unknown group '$g' (build, guest, trace, metrics, fleet, libvirt, fuzz, view, bench, all)" >&2
		exit 2
	fi
done

# libvirt's QEMU driver runs QEMU as libvirt-qemu (group libvirt-qemu, also
# in kvm), the account libvirt-daemon-system would have created
libvirt_account() {
	[[ " ${want[*]} " == *" libvirt-daemon "* ]] || return 0
	getent passwd libvirt-qemu >/dev/null && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps.sh: no user libvirt-qemu; run as root to create it" >&2
		exit 1
	fi
	getent group kvm >/dev/null || addgroup --system --quiet kvm
	getent group libvirt-qemu >/dev/null ||
		addgroup --system --quiet libvirt-qemu
	adduser --system --ingroup libvirt-qemu --home /var/lib/libvirt \
		--no-create-home --disabled-password --quiet libvirt-qemu
	adduser --quiet libvirt-qemu kvm
}

missing=()
for p in "${want[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	libvirt_account
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: run as root (or: sudo apt-get install ${missing[*]})" >&2
	exit 1
fi
stamp=/var/lib/apt/periodic/guestrelay-update-stamp
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
	echo "deps.sh: apt-get update" >&2
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
# lttng-modules-dkms's postinst builds the modules with DKMS for the
# running kernel, or when that one is not in /lib/modules (a container's
# host kernel) for every kernel there; the Debian 6.1 guest kernel's headers
# are there and lttng-modules 2.13.9 does not build against them as shipped
# (tests/bench/lib_bench.sh builds a patched copy), so the postinst would
# fail and with it the install. /etc/dkms/no-autoinstall makes the postinst
# install the sources only; it is there only during this install.
noauto=""
if [[ " ${missing[*]} " == *" lttng-modules-dkms "* ]] &&
	[ ! -e /etc/dkms/no-autoinstall ]; then
	noauto=/etc/dkms/no-autoinstall
	mkdir -p /etc/dkms
	: >"$noauto"
	trap 'rm -f "$noauto"' EXIT
fi
echo "deps.sh: installing ${missing[*]}" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null

libvirt_account
