# SPDX-License-Identifier: GPL-2.0
# guestrelay: trace Linux guests from the host through ivshmem relay channels.
#
#   make            build the guest module, the host tools and the tests
#   make demo       boot a test guest under QEMU, trace it, show the trace
#   make check      install what is missing, then run every test tier
#   make check-unit / check-integration / check-e2e / check-libvirt
#   make bench      benchmarks (not part of check)
#   make install    install into $(DESTDIR)$(PREFIX) and the module tree
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
	check-integration check-e2e check-libvirt bench install clean

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
guest: module
	scripts/mkguest.sh $(BUILD)/guest $(GUEST_KVER) guest-module/guestrelay.ko

demo: deps module host guest
	scripts/demo.sh

check: deps
	scripts/run-tests.sh style unit integration e2e libvirt

check-style: deps
	scripts/run-tests.sh style

check-unit: deps
	scripts/run-tests.sh unit

check-integration: deps
	scripts/run-tests.sh integration

check-e2e: deps
	scripts/run-tests.sh e2e

check-libvirt: deps
	scripts/run-tests.sh libvirt

bench: deps
	@echo "bench: no benchmarks yet (they arrive with the host agent and the guest module)"

install: all
	$(MAKE) -C guest-module dkms-src DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)$(PREFIX)/include/guestrelay
	install -m 0644 spec/guestrelay_abi.h $(DESTDIR)$(PREFIX)/include/guestrelay/
	$(MAKE) -C host-agent install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	-$(MAKE) -C guest-module KDIR=$(KDIR) clean
	rm -rf $(BUILD)
