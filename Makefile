# ASI research branch: patches, a lean kernel config, a QEMU harness and tests.
# `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
.PHONY: help deps tree export autosquash kernel kernel-noasi check-series checkpatch run demo stress compare vmcore crash test test-distro bench clean

KERNEL := build/out-asi/arch/x86/boot/bzImage
APPEND ?=
# CMD reaches the guest's shell as written: taken unexpanded, so make does
# not eat its $variables, and passed through the environment.
override CMD := $(value CMD)
export CMD
TIMEOUT ?= 900
SCENARIO ?=
# Seconds per scenario run: make stress defaults to 60, make compare to 30
# (alternate sizes its rounds by memory instead); make vmcore: 0 for no
# pressure before the dump.
DURATION ?=
DEMO_SECONDS ?= 40
REPEATS ?= 3
SCENARIOS ?=

help:
	@echo "make deps          install the Debian packages the project uses (apt)"
	@echo "make tree          extract linux-source-6.12 into build/linux and apply patches-*/"
	@echo "make export        write build/linux's commits back to patches-*/ (LAYER=<name> for new ones)"
	@echo "make autosquash    fold build/linux's 'fixup! <subject>' commits into the patches they fix"
	@echo "make kernel        build the test kernel (build/out-asi)"
	@echo "make kernel-noasi  build the kernel with ASI compiled out (build/out-noasi)"
	@echo "make check-series  build every patch, with and without ASI; names the first that fails (FROM=n TO=m: patches n to m)"
	@echo "make checkpatch    run the kernel's checkpatch.pl over every patch (ignored checks: scripts/checkpatch.sh)"
	@echo "make run           boot it with asi=on; CMD='...' runs a command, APPEND='...' adds parameters"
	@echo "make demo          boot asi=on under memory pressure and show what ASI is doing"
	@echo "make stress        one memory-pressure scenario in an asi=on guest: SCENARIO=<name> [DURATION=60] [APPEND=...]"
	@stress/scenario.sh list
	@echo "make compare       OOM behaviour, asi=off vs pageflag vs freelist: [SCENARIOS=...] REPEATS=3 DURATION=30 [MEM=1G]; report + plots"
	@echo "make vmcore        boot asi=on, a round of memory pressure (DURATION=0: none), then QEMU dumps the guest's memory to build/vmcore/"
	@echo "make crash         read build/vmcore with crash (debug/crash-asi.cmd) and drgn (per-CPU state, free lists)"
	@echo "make test          everything: builds, KUnit, guest tests in four boots, a dump in a fifth; 'N passed, N failed'"
	@echo "make test-distro   distro-like kernel (NUMA, hotplug, swap, hugetlbfs, modules, KASAN, ...): both modes (DISTRO_ALLOC=freelist: one)"
	@echo "make bench         its own kernel, asi=off vs asi_alloc=pageflag vs freelist: alloc/free rate, TLB flushes, stress-ng, system calls, KVM round trips"

deps:
	@scripts/deps.sh

tree: deps
	@scripts/tree.sh

export:
	@scripts/export.sh

autosquash:
	@scripts/autosquash.sh

kernel: tree
	@scripts/kernel.sh asi

kernel-noasi: tree
	@scripts/kernel.sh noasi

check-series: tree
	@scripts/check-series.sh

checkpatch: tree
	@scripts/checkpatch.sh

run: kernel
	@if [ -n "$$CMD" ]; then \
		vm/run.sh --timeout $(TIMEOUT) --append "asi=on $(APPEND)" -- bash -c "$$CMD"; \
	else \
		vm/run.sh --timeout $(TIMEOUT) --append "asi=on $(APPEND)"; \
	fi

demo: kernel
	@vm/run.sh --timeout $(TIMEOUT) --append "asi=on kunit.enable=0 $(APPEND)" -- \
		env DEMO_SECONDS="$(DEMO_SECONDS)" stress/demo.sh

stress: kernel
	@stress/vm.sh "$(SCENARIO)" "$(DURATION)" $(APPEND)

compare: kernel
	@MEM="$(MEM)" stress/compare.sh "$(REPEATS)" "$(DURATION)" $(SCENARIOS)

vmcore: kernel
	@vm/vmcore.sh dump --kernel $(KERNEL) --append "$(APPEND)" $(if $(DURATION),--seconds $(DURATION))

crash:
	@vm/vmcore.sh crash

test: kernel
	@tests/run.sh

test-distro: tree
	@tests/run.sh distro

bench: tree
	@scripts/kernel.sh bench
	@bench/run.sh

clean:
	rm -rf build/out-asi build/out-noasi build/out-distro build/out-series-min-asi \
		build/out-series-noasi build/out-bench build/series build/series-tree build/selftests-x86 build/selftests-mm build/selftests-kvm build/vm build/test build/test-distro build/bench build/stress build/compare \
		build/vmcore
