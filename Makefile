# SPDX-License-Identifier: GPL-2.0
#
# svmtune top-level Makefile. The modules themselves are described in Kbuild
# files; this file only drives kbuild and the test tools.
#
#   make                       build the modules against the test kernel
#   make KDIR=/lib/modules/$(uname -r)/build
#                              build them against another configured tree
#   make check                 build everything, run every test in the VM
#   make run                   boot the VM and show what svmtune does
#   make help                  all targets

KVER ?= 6.12
export KVER

# KDIR is the configured kernel tree to build against. When it is not given,
# the svmtune test kernel is used; tools/testvm/build-kernel builds it on
# first use (15-30 minutes) and then returns its cached tree at once.
# (The $(eval) makes the lookup happen once, and only for targets that use it.)
ifeq ($(origin KDIR),undefined)
KDIR = $(eval KDIR := $(shell $(CURDIR)/tools/testvm/build-kernel))$(KDIR)
endif

MAKEFLAGS += --no-print-directory

all: modules

modules:
	@test -f "$(KDIR)/Makefile" || \
		{ echo "KDIR='$(KDIR)' is not a kernel tree (pass KDIR=/lib/modules/<release>/build)"; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" modules

kernel:
	tools/testvm/build-kernel

selftests:
	$(MAKE) -C selftests/svmtune KSRC="$(KDIR)"

check:
	tools/check

lint:
	KDIR="$(KDIR)" tools/lint

dkms-test:
	KDIR="$(KDIR)" tools/dkms-test

run:
	tools/run-demo

bench:
	tools/bench/run

bench-smoke:
	tools/bench/run --smoke

bench-kfd:
	tools/bench/run --kfd-only

bench-storm:
	tools/bench/run --storm-only

stress: modules selftests
	tools/stress

check-alone: modules selftests
	tools/check-alone

check-6.1:
	tools/check-kver 6.1

check-7.3:
	tools/check-kver 7.3

# User-space pieces (the modules are installed by DKMS or modules_install).
PREFIX ?= /usr/local
install:
	$(MAKE) -C tools/svmtunectl install PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)"

install-headers:
	install -D -m 0644 -t "$(DESTDIR)$(PREFIX)/include/linux" \
		include/uapi/linux/svmtune.h include/uapi/linux/svmtune_emu.h

# Removes what kbuild leaves in the tree without needing a kernel tree.
clean:
	find drivers \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'modules.order' -o -name '.*.d' \) -delete
	rm -f Module.symvers modules.order
	rm -rf .tmp_versions
	$(MAKE) -C selftests/svmtune clean KSRC=unused
	$(MAKE) -C tools/bench clean

help:
	@echo 'Targets:'
	@echo '  modules (default)  build svmtune modules against KDIR (default: the test kernel)'
	@echo '  kernel             build or find the cached test kernel (KVER=6.12 or 6.1)'
	@echo '  selftests          build the kselftests against KDIR'
	@echo '  check              build everything and run every test in the test VM'
	@echo '  lint               checkpatch, sparse, kernel-doc, clang-format, ABI and reST checks'
	@echo '  dkms-test          dkms add/build/install/remove, in private trees'
	@echo '  run                boot the test VM, load svmtune and show what it does'
	@echo '  bench              time and bytes moved per workload and policy, and KFD fault throughput by window, in the test VM;'
	@echo '                     tables, CSV and plots in bench-results/<time>/'
	@echo '  bench-smoke        a tiny make bench and a check of its output'"'"'s shape (in make check)'
	@echo '  bench-kfd          make bench'"'"'s KFD test bed part only: kfd.md, kfd-throughput.md, kfd-storm.md'
	@echo '  bench-storm        the fault storm on the KFD test bed only: kfd-storm.md (STORM_WAVES, STORM_ROUNDS, STORM_CONFIGS)'
	@echo '  stress             the seeded fuzzer, long, in several processes on four small emulated GPUs, under reclaim'
	@echo '                     (STRESS_OPS, STRESS_PROCS, STRESS_SEED, STRESS_SECONDS, STRESS_MEMCG_MB, STRESS_VRAM_MB)'
	@echo '  check-alone        every test of the VM suite run on its own, twice (ALONE_ROUNDS), to find order-dependent or flaky tests'
	@echo '  check-6.1          the test VM suite on the 6.1 test kernel and its amdgpu (builds that kernel once, 30-50 minutes)'
	@echo '  check-7.3          the test VM suite and the KFD test bed on the 7.3 test kernel, its amdgpu and its KFD'
	@echo '  install            install svmtunectl and its man page (PREFIX, DESTDIR)'
	@echo '  install-headers    install the uapi headers <linux/svmtune.h>, <linux/svmtune_emu.h>'
	@echo '  clean              remove build products'
	@echo 'Variables: KDIR=<kernel tree>  KVER=6.12|6.1  W=1'

.PHONY: all modules kernel selftests check lint dkms-test run bench bench-smoke bench-kfd bench-storm stress check-alone check-6.1 check-7.3 install install-headers clean help
