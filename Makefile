# SPDX-License-Identifier: GPL-2.0
#
# softiw: the Makefile for people.  kbuild reads ./Kbuild instead.
#
#   make                 module + provider for $(KVER) (default: see tools/kver.sh)
#   make deps            install every Debian package the project needs
#   make check           everything: build, host tests, fuzz, VM selftests
#   make demo            boot a VM, make two namespaces, show softiw working
#   make bench           perftest over softiw and upstream siw in a VM
#   make install         install module (depmod), provider and .driver file
#   make kernels         build the module for every installed Debian kernel
#   make debug-kernel    build the VM's debug kernel (KASAN, lockdep, ...) once
#                        into /var/cache/softiw (tools/debug-kernel.sh)
#   make check-debug     the VM selftests on the debug kernel (TESTS=... some)
#   make soak            SOAK_MINUTES (default 10) of mixed traffic there
#   make fuzz-vm         FUZZ_SECS (default 600) of the verbs fuzzer there
#   make checkpatch | sparse | w1     style and static checks of the module
#   make doc-check       the documents cite only tests that exist (host only)
#
# KVER/KDIR select the kernel; DKMS passes KERNELRELEASE.

ifneq ($(KERNELRELEASE),)
KVER ?= $(KERNELRELEASE)
endif
KVER ?= $(shell tools/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
MODSRC := drivers/infiniband/sw/softiw
# The module is built out of the source tree, one directory per kernel, so
# several kernels can be built side by side.
KBUILD_DIR = $(BUILD)/kernel-$(1)
MODULE_KO = $(call KBUILD_DIR,$(1))/$(MODSRC)/softiw.ko
# Every installed kernel that has both headers and an image.
KERNELS = $(shell for d in $$(ls -d /lib/modules/*/build 2>/dev/null | sort -V); do \
		k=$${d#/lib/modules/}; k=$${k%/build}; \
		[ -e /boot/vmlinuz-$$k ] && echo $$k; done)

PREFIX ?= /usr
LIBDIR ?= $(shell pkg-config --variable=libdir libibverbs 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)

.PHONY: rawpeer print-kernels all module provider deps check demo install uninstall kernels \
	checkpatch doc-check sparse w1 host-tests fuzz bench-proto bench vm-tests debug-kernel \
	check-debug soak fuzz-vm clean

all: module provider

define need_headers
	@if [ -z "$(KVER)" ] || [ ! -d "$(KDIR)" ]; then \
		echo "softiw: no kernel headers found (KVER='$(KVER)', KDIR='$(KDIR)')." >&2; \
		echo "softiw: install them: apt-get install linux-headers-amd64 (or run 'make deps')" >&2; \
		exit 1; \
	fi
endef

# Copy the module sources into the per-kernel build directory and run kbuild
# there; $(1) = kernel release, $(2) = extra kbuild arguments.

module:
	$(need_headers)
	@mkdir -p $(call KBUILD_DIR,$(KVER))
	@cp -a Kbuild drivers include $(call KBUILD_DIR,$(KVER))/
	$(MAKE) -C $(KDIR) M=$(call KBUILD_DIR,$(KVER)) $(KBUILD_ARGS) modules
	@ln -sf $(call MODULE_KO,$(KVER)) $(BUILD)/softiw.ko
	@echo "softiw: built $(call MODULE_KO,$(KVER))"

provider:
	$(MAKE) -C userspace

# W=1 and sparse for every installed kernel (CI runs this).
kernels:
	@[ -n "$(KERNELS)" ] || { echo "softiw: no kernel headers installed; run 'make deps'" >&2; exit 1; }
	@set -e; for k in $(KERNELS); do \
		$(MAKE) --no-print-directory module KVER=$$k KDIR=/lib/modules/$$k/build KBUILD_ARGS="W=1 C=1" ; \
	done

w1:
	$(MAKE) module KBUILD_ARGS="W=1"

sparse:
	$(MAKE) module KBUILD_ARGS="C=1"

checkpatch:
	tools/checkpatch.sh

doc-check:
	tools/doc-check.sh

deps:
	tools/deps.sh

host-tests:
	$(MAKE) -C tests check

fuzz:
	$(MAKE) -C tests fuzz

bench-proto:
	$(MAKE) -C tests bench-proto

# BENCH_KVER: kernel to benchmark on (default: the 6.1 kernel, the series
# of the published figures); BENCH_ROUNDS: rounds to take medians of
# (default 3); PEER=siw adds upstream siw, built from the kernel's
# linux-source package
bench: provider
	tools/bench/bench.sh "$(BENCH_KVER)" $(or $(BENCH_ROUNDS),3) "$(PEER)"

vm-tests: module provider rawpeer
	tools/vm/selftests.sh $(KVER)

rawpeer:
	$(MAKE) -C tools/rawpeer

# Built once per machine, outside the tree; prints its directory.  A module
# for it: make module KVER=$$(cat DIR/kver) KDIR=DIR/build
debug-kernel:
	tools/debug-kernel.sh

# The VM selftests (all, or TESTS) on the cached debug kernel, which must
# exist: make debug-kernel builds it.
check-debug: provider rawpeer
	tools/check-debug.sh $(TESTS)

# The soak (selftests/softiw/dp_soak.sh) on the debug kernel; not part of
# check-debug's suite.  Up to 40 minutes fit the test's timeout there.
SOAK_MINUTES ?= 10
soak: provider rawpeer
	DP_SOAK_MINUTES=$(SOAK_MINUTES) tools/check-debug.sh dp_soak.sh

# The verbs fuzzer (selftests/softiw/dp_fuzz.sh, 30 s in the suites) for
# longer on the debug kernel; FUZZ_SEED replays a run.
FUZZ_SECS ?= 600
fuzz-vm: provider rawpeer
	DP_FUZZ_SECS=$(FUZZ_SECS) $(if $(FUZZ_SEED),DP_FUZZ_SEED=$(FUZZ_SEED)) \
		tools/check-debug.sh dp_fuzz.sh

check:
	tools/check.sh

demo:
	tools/demo.sh

# DESTDIR stages the installation (packaging, tests): depmod then works on
# $(DESTDIR)/lib/modules/$(KVER) only.
install: all
	install -D -m 644 $(call MODULE_KO,$(KVER)) $(DESTDIR)/lib/modules/$(KVER)/extra/softiw.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)
	$(MAKE) -C userspace install LIBDIR=$(LIBDIR) DESTDIR=$(DESTDIR)

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/softiw.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)
	$(MAKE) -C userspace uninstall LIBDIR=$(LIBDIR) DESTDIR=$(DESTDIR)

print-kernels:
	@echo $(KERNELS)

clean:
	rm -rf $(BUILD)
	$(MAKE) -C userspace clean
	$(MAKE) -C tests clean
