# SPDX-License-Identifier: GPL-2.0
# guestrelay: trace Linux guests from the host through ivshmem relay channels.
#
#   make            build the guest module, the host tools and the tests
#   make demo       boot a test guest under QEMU, trace it, show the trace
#   make check      install what is missing, then run every test tier
#   make check-unit / check-integration / check-e2e / check-libvirt
#   make check-stress GR_STRESS_BOOTS=100   guest boots loading the module
#                   under load, 100 per mode (check runs 10 per mode)
#   make bench      benchmarks (not part of check)
#   make install    install into $(DESTDIR)$(PREFIX) and the module tree
#   make uninstall  remove what install put in place (not config, user, traces)
#   make clean

PREFIX ?= /usr/local
DESTDIR ?=
BUILD := $(CURDIR)/build
export BUILD

# The guest kernel (Debian's, from /boot and /lib/modules), never `uname -r`
# of this host; override with GUEST_KVER=... or KDIR=...
GUEST_KVER ?= $(shell scripts/guest-kver.sh 2>/dev/null)
KDIR ?= /lib/modules/$(GUEST_KVER)/build
export GUEST_KVER KDIR

.PHONY: all deps module host guest tests demo check check-style check-unit \
	check-integration check-e2e check-stress check-libvirt check-fuzz fuzz \
	bench install \
	uninstall clean

all: module host tests guest

deps:
	scripts/deps.sh

module: deps
	$(MAKE) -C guest-module KDIR=$(KDIR)

host: deps
	$(MAKE) -C host-agent

tests: deps
	$(MAKE) -C tests

# the bootable test guest: Debian's kernel + busybox initramfs + the module
# (and grtp.ko, the e2e tests' tracepoint with dynamic arrays)
guest: module
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/e2e/grtp modules
	scripts/mkguest.sh $(BUILD)/guest $(GUEST_KVER) guest-module/guestrelay.ko

demo: deps module host guest
	scripts/demo.sh

check: deps
	scripts/run-tests.sh style unit fuzz integration e2e stress libvirt

check-style: deps
	scripts/run-tests.sh style

check-unit: deps
	scripts/run-tests.sh unit

check-integration: deps
	scripts/run-tests.sh integration

check-e2e: deps
	scripts/run-tests.sh e2e

# the boot stress tier (tests/stress): GR_STRESS_BOOTS boots per mode
# (default 10), GR_STRESS_ACCELS="mttcg single" to compare TCG flavours
check-stress: deps
	scripts/run-tests.sh stress

check-libvirt: deps
	scripts/run-tests.sh libvirt

check-fuzz: deps
	scripts/run-tests.sh fuzz

# the libFuzzer targets, FUZZ_SECONDS each (default 300; tests/fuzz/run.sh)
fuzz: deps
	$(MAKE) -C tests/fuzz
	tests/fuzz/run.sh

# benchmarks: tables with ratios from the same run, never pass/fail on
# times (BENCH_QUICK=1 make bench for a short run; tests/bench/README.md)
# (each benchmark builds what it needs; one that cannot run here is
# reported as skipped and the others go on: tests/bench/run.sh)
bench: deps
	tests/bench/run.sh

# where `make install` puts the systemd unit, the sysusers file, the
# libvirt hook and its settings (systemd and libvirt read these paths)
BINDIR ?= $(PREFIX)/bin
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
LIBVIRT_HOOKDIR ?= /etc/libvirt/hooks/qemu.d
CONFDIR ?= /etc/guestrelay
DKMS_DIR ?= $(DESTDIR)/usr/src/guestrelay-1.0

install: all
	$(MAKE) -C guest-module dkms-src DESTDIR=$(DESTDIR) DKMS_DIR=$(DKMS_DIR)
	install -d $(DESTDIR)$(PREFIX)/include/guestrelay
	install -m 0644 spec/guestrelay_abi.h $(DESTDIR)$(PREFIX)/include/guestrelay/
	$(MAKE) -C host-agent install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(LIBVIRT_HOOKDIR) $(DESTDIR)$(CONFDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' scripts/guestrelay-agent.service \
		>$(DESTDIR)$(UNITDIR)/guestrelay-agent.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/guestrelay-agent.service
	install -m 0644 scripts/guestrelay.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/guestrelay.conf
	printf '#!/bin/sh\n# guestrelay: trace the domains that opt in (guestrelay help libvirt-hook)\nexec %s/guestrelay libvirt-hook "$$@"\n' \
		'$(BINDIR)' >$(DESTDIR)$(LIBVIRT_HOOKDIR)/guestrelay
	chmod 0755 $(DESTDIR)$(LIBVIRT_HOOKDIR)/guestrelay
	[ -e $(DESTDIR)$(CONFDIR)/hook.conf ] || \
		install -m 0644 scripts/hook.conf $(DESTDIR)$(CONFDIR)/hook.conf
	@# the agent's account: systemd-sysusers where systemd runs, else
	@# adduser (Debian); a package (DESTDIR set) does it in its postinst
	@if [ -n "$(DESTDIR)" ]; then \
		echo "install: create the guestrelay user (member of kvm) at package installation"; \
	elif getent passwd guestrelay >/dev/null; then :; \
	elif [ -d /run/systemd/system ] && command -v systemd-sysusers >/dev/null; then \
		systemd-sysusers $(SYSUSERSDIR)/guestrelay.conf; \
	else \
		getent group kvm >/dev/null || addgroup --system --quiet kvm; \
		adduser --system --group --home /var/lib/guestrelay \
			--no-create-home --disabled-password --quiet guestrelay && \
		adduser --quiet guestrelay kvm; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl daemon-reload; \
		echo "install: systemctl enable --now guestrelay-agent; then kill -HUP libvirtd (or restart it) so that it sees the hook"; \
	fi

# keeps /etc/guestrelay/hook.conf, the guestrelay user and the traces in
# /var/lib/guestrelay (remove them by hand to purge)
uninstall:
	-[ -n "$(DESTDIR)" ] || [ ! -d /run/systemd/system ] || \
		systemctl disable --now guestrelay-agent 2>/dev/null
	rm -f $(DESTDIR)$(BINDIR)/guestrelay \
		$(DESTDIR)$(UNITDIR)/guestrelay-agent.service \
		$(DESTDIR)$(SYSUSERSDIR)/guestrelay.conf \
		$(DESTDIR)$(LIBVIRT_HOOKDIR)/guestrelay \
		$(DESTDIR)$(PREFIX)/include/guestrelay/guestrelay_abi.h
	-rmdir $(DESTDIR)$(PREFIX)/include/guestrelay 2>/dev/null
	rm -rf $(DKMS_DIR)

clean:
	-$(MAKE) -C guest-module KDIR=$(KDIR) clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/e2e/grtp clean
	rm -rf $(BUILD)
