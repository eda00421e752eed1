#!/bin/bash
# `make test` (tests/run.sh): build the ASI=n variant, then boot the test
# kernel four times (asi=on with each page-allocator mode, the second with
# 4-level paging, asi=off, asi=bogus), run the KUnit suites built into it (asi=on boots, parsed with
# the tree's kunit.py) and tests/guest/ in each boot, and scan every console
# for splats; then a fifth boot for a dump read back by crash and drgn
# (tests/host/test-vmcore.sh) and a sixth that asks for hibernation, dumped
# and searched (tests/host/test-hibernation.sh).
#
# `make test-distro` (tests/run.sh distro): build the distro-like kernel
# (scripts/kernel.sh distro: NUMA, hotplug, swap, hugetlbfs, modules, KASAN,
# DEBUG_PAGEALLOC, ...) and the test module, and boot it in both allocator
# modes (DISTRO_ALLOC="freelist pageflag", or one of them) on a two-node
# guest with a memory slot free and a balloon, running tests/guest/ and
# tests/distro/ with the kernel's checkers on.
#
# Ends with "N passed, N failed, N skipped"; exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
cd "$TOP" || exit 1

suite=${1:-lean}
case $suite in
lean|distro) ;;
*) die "tests/run.sh: unknown suite '$suite' (expected nothing or 'distro')" ;;
esac

runs=$BUILD/test
[ "$suite" = distro ] && runs+=-distro
rm -rf "$runs"
mkdir -p "$runs"
passed=0 failed=0 skipped=0
# Repeated just above the closing line: CI often shows only a log's tail.
failures=()

result() {	# ok|not ok|skip, name
	case $1 in
	ok) passed=$((passed + 1)) ;;
	skip) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)); failures+=("$2") ;;
	esac
	echo "$1 - $2"
}

# The guest tests every boot must report, known here rather than trusted to
# the guest: a runner that stops early cannot hide the tests it never ran.
GUEST_DIRS=(tests/guest)
VM_ARGS=()
KERNEL=$BUILD/out-asi/arch/x86/boot/bzImage
if [ "$suite" = distro ]; then
	GUEST_DIRS+=(tests/distro)
	KERNEL=$BUILD/out-distro/arch/x86/boot/bzImage
	# Two nodes with memory and a CPU each (one socket each, or the
	# scheduler warns that an LLC spans nodes), and a third, empty one for
	# hot-added memory; free page reporting to the balloon. KASAN's shadow
	# takes an eighth of the memory.
	VM_ARGS=(--mem 1536M,slots=2,maxmem=4G --smp 2,sockets=2 --monitor --qemu "\
-object memory-backend-ram,id=m0,size=768M -object memory-backend-ram,id=m1,size=768M \
-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
-numa node,nodeid=2 -device virtio-balloon-pci,free-page-reporting=on")
	# no5lvl: with 5-level paging, generic KASAN's outline checks can
	# report a wild access from an interrupt that lands while
	# identify_cpu() has cleared boot_cpu_data's capabilities (LA57
	# included, so pgtable_l5_enabled() reads false and direct-map
	# addresses look shadowless) before alternatives are patched. That
	# is upstream's, not ASI's; the lean suite keeps 5-level paging.
	# Not hugetlb_free_vmemmap=on yet: with debug_pagealloc and page_owner
	# freeing its huge pages reports "Bad page state" with asi=off too
	# (2026-12-05, to be bisected); test-features checks the vmemmap
	# resync when it is on.
	DISTRO_APPEND="no5lvl debug_pagealloc=on page_owner=on panic_on_warn=1 cma=64M zswap.enabled=1"
fi
GUEST_TESTS=()
for d in "${GUEST_DIRS[@]}"; do GUEST_TESTS+=("$d"/test-*.sh); done

# The last: a pageflag allocation left unmapped (its tables are allocated up
# front, so that is a bug, not memory pressure).
SPLATS='WARNING:|BUG:|Oops|Kernel panic|KASAN:|UBSAN:|general protection fault|Call Trace:|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|blocked for more than|ASI: pageflag: cannot map'

# The splats in a console log, one per line with its line number. The OOM
# killer's report prints a call trace too: stress-ng's hogs ask for it (their
# oom_score_adj is 1000), so a "Call Trace:" within a few lines after
# "invoked oom-killer" is not one. Any other splat inside it still is.
splats() {	# console log
	awk -v re="$SPLATS" '
		/invoked oom-killer/ { oom = NR }
		$0 ~ re && !(oom && NR - oom <= 5 && /Call Trace:/) { print NR ":" $0 }
	' "$1" 2>/dev/null
}

build() {	# variant, what it proves
	if scripts/kernel.sh "$1" > "$runs/build-$1.log" 2>&1; then
		result ok "$2"
	else
		tail -20 "$runs/build-$1.log"
		result "not ok" "$2 (log: $runs/build-$1.log)"
		return 1
	fi
}

if [ "$suite" = lean ]; then
	if scripts/checkpatch.sh > "$runs/checkpatch.log" 2>&1; then
		result ok "every patch is checkpatch-clean"
	else
		tail -20 "$runs/checkpatch.log"
		result "not ok" "every patch is checkpatch-clean (log: $runs/checkpatch.log)"
	fi
	if tests/host/test-report.sh > "$runs/report.log" 2>&1; then
		result ok "make compare's report generator on a recorded sample"
	else
		tail -5 "$runs/report.log"
		result "not ok" "make compare's report generator on a recorded sample (log: $runs/report.log)"
	fi
	build noasi "kernel builds with CONFIG_MITIGATION_ADDRESS_SPACE_ISOLATION=n"
else
	# Booting a stale kernel would test something else: stop here.
	if ! build distro "distro-like kernel builds"; then
		echo "$passed passed, $failed failed, $skipped skipped"
		exit 1
	fi
	if tests/module/build.sh "$BUILD/out-distro" > "$runs/build-module.log" 2>&1; then
		result ok "test module builds"
	else
		cat "$runs/build-module.log"
		result "not ok" "test module builds (tests/distro/test-module.sh will fail)"
	fi
fi

# The kernel's own selftests that the guest runs, built here once into
# $BUILD/selftests-DIR against the UAPI headers of the kernel under test
# (installed into its build directory: they are newer than the host's).
# build_selftests DIR WHAT HINT TARGET...: HINT says what a failure may lack.
kout=${KERNEL%/arch/x86/boot/bzImage}
hdr_log=$runs/build-headers.log hdr_ok=1
make -s -C "$SRC" O="$kout" headers > "$hdr_log" 2>&1 || { tail -5 "$hdr_log"; hdr_ok=; }
build_selftests() {
	local dir=$1 what=$2 hint=$3 out=$BUILD/selftests-$1
	local log=$runs/build-$1-selftests.log
	shift 3
	# The selftests' makefiles do not track the UAPI headers: what was
	# built against older ones (or ones not known) is built again.
	local stamp=$out/.headers
	if [ ! -e "$stamp" ] || [ -n "$(find "$kout/usr/include" -newer "$stamp" -print -quit)" ]; then
		rm -rf "$out"
	fi
	mkdir -p "$out" && touch "$stamp"
	# No target: the guest script's --binaries failed; make would build "all".
	if [ -n "$hdr_ok" ] && [ $# -gt 0 ] &&
		make -C "$SRC/tools/testing/selftests/$dir" OUTPUT="$out" \
		KHDR_INCLUDES="-isystem $kout/usr/include" "$@" > "$log" 2>&1; then
		result ok "tools/testing/selftests/$dir builds ($what)"
	else
		[ $# -gt 0 ] || { hint=; log="none: tests/guest/test-$dir-selftests.sh --binaries named no program"; }
		[ -z "$hdr_ok" ] && { hint=; log="$hdr_log: the kernel's UAPI headers did not install (make O=$kout headers; its tail is above)"; }
		tail -5 "$log" 2> /dev/null
		result "not ok" "tools/testing/selftests/$dir builds ($what$hint; log: $log)"
	fi
}
X86_SELFTESTS=$BUILD/selftests-x86 MM_SELFTESTS=$BUILD/selftests-mm
KVM_SELFTESTS=$BUILD/selftests-kvm
# x86 entry tests (tests/guest/test-x86-selftests.sh): named targets, as
# "all" leaves the 32-bit ones out quietly where gcc cannot build them.
build_selftests x86 "32- and 64-bit" ", with make deps's gcc-multilib" all_32 all_64
mapfile -t mm_selftests < <(tests/guest/test-mm-selftests.sh --binaries)
build_selftests mm "the ${#mm_selftests[@]} programs the guest runs" \
	", with make deps's libcap-dev" "${mm_selftests[@]/#/"$MM_SELFTESTS"/}"
mapfile -t kvm_selftests < <(tests/guest/test-kvm-selftests.sh --binaries)
build_selftests kvm "the ${#kvm_selftests[@]} programs the guest runs" "" \
	"${kvm_selftests[@]/#/"$KVM_SELFTESTS"/}"

kunit_results() {	# console log
	local log=$1 out
	# The boot-time run only: guest tests run suites of their own through
	# debugfs (test-asi-transition), which print KTAP to the console too.
	out=$(sed '/^=== test-/,$d' "$log" |
		/usr/bin/python3 "$SRC/tools/testing/kunit/kunit.py" parse 2>&1)
	echo "$out" > "${log%.log}.kunit"
	local summary
	summary=$(echo "$out" | grep -E 'Testing complete\. Ran [0-9]+ tests' | tail -1)
	if [ -z "$summary" ]; then
		echo "$out" | tail -20
		result "not ok" "kunit: no KTAP results in the console"
		return
	fi
	echo "$out" | grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]' | sed 's/^/    /'
	local p f s c
	p=$(echo "$summary" | grep -oE 'passed: [0-9]+' | grep -oE '[0-9]+' || echo 0)
	f=$(echo "$summary" | grep -oE 'failed: [0-9]+' | grep -oE '[0-9]+' || echo 0)
	s=$(echo "$summary" | grep -oE 'skipped: [0-9]+' | grep -oE '[0-9]+' || echo 0)
	c=$(echo "$summary" | grep -oE '(crashed|errors): [0-9]+' | grep -oE '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
	passed=$((passed + p)); failed=$((failed + f + ${c:-0})); skipped=$((skipped + s))
	echo "kunit: $summary"
	[ "$f" = 0 ] && [ "${c:-0}" = 0 ] && return
	echo "$out" | grep -B2 -A20 -E 'FAILED|CRASHED' | head -60
	local bad
	bad=$(echo "$out" | grep -oE '\[(FAILED|CRASHED)\] [^ ]+' | awk '{ print $2 }' | paste -sd' ')
	failures+=("kunit in $log: ${bad:-see ${log%.log}.kunit}")
}

# tests/host/test-<name>.sh on the test kernel, its output in $runs/<name>.log.
host_test() {	# name, what it checks
	local log=$runs/$1.log
	if "tests/host/test-$1.sh" "$KERNEL" "$runs/$1" > "$log" 2>&1; then
		result ok "$2"
	else
		tail -5 "$log"
		result "not ok" "$2 (log: $log)"
	fi
}

boot() {	# mode (on|off|invalid), kernel parameters, [asi_alloc mode]
	local mode=$1 param=$2 alloc=${3:-} out=$runs/asi-$1${3:+-$3} rc
	note "booting with $param"
	vm/run.sh --kernel "$KERNEL" "${VM_ARGS[@]}" --out "$out" \
		--timeout "${TEST_TIMEOUT:-1800}" --append "$param" \
		-- env ASI_EXPECT="$mode" ASI_ALLOC="$alloc" TEST_SECONDS="${TEST_SECONDS:-300}" \
		X86_SELFTESTS="$X86_SELFTESTS" MM_SELFTESTS="$MM_SELFTESTS" \
		KVM_SELFTESTS="$KVM_SELFTESTS" \
		tests/guest/runner.sh "${GUEST_DIRS[@]/#/"$TOP"/}" > "$out.stdout" 2>&1
	rc=$?
	# The runner exits 0 (all passed) or 1 (some failed) after writing one
	# line per test; anything else means it did not run them all.
	case $rc in
	0|1) result ok "boot $param: guest ran the tests and reported" ;;
	124) result "not ok" "boot $param: guest timed out (console: $out/console.log)" ;;
	255) result "not ok" "boot $param: guest died before reporting (console: $out/console.log)" ;;
	*) tail -5 "$out.stdout"
	   result "not ok" "boot $param: the guest's test runner exited $rc (output: $out.stdout)" ;;
	esac
	[ "$mode" = on ] && kunit_results "$out/console.log"
	local t name seen took
	for t in "${GUEST_TESTS[@]}"; do
		name=$(basename "$t" .sh)
		# Its status, then the runner's "(N s)" or "(exit N, N s)".
		seen=$(awk -v n="$name" '
			($1 == "ok" || $1 == "skip") && $2 == n { s = $1 }
			$1 == "not" && $3 == n { s = "not ok" }
			s { print s "\t" (match($0, /\([^()]*\)$/) ? substr($0, RSTART) : ""); exit }' \
			"$out/results" 2>/dev/null)
		took=${seen#*$'\t'}
		case ${seen%%$'\t'*} in
		ok) result ok "$param: $name${took:+ $took}" ;;
		skip) result skip "$param: $name${took:+ $took}" ;;
		"not ok") sed -n "/^=== $name /,/^not ok $name/p" "$out.stdout" | tail -30
			result "not ok" "$param: $name${took:+ $took}" ;;
		*) result "not ok" "$param: $name reported no result" ;;
		esac
	done
	local splats ooms
	splats=$(splats "$out/console.log")
	ooms=$(grep -c 'invoked oom-killer' "$out/console.log" 2>/dev/null)
	[ "${ooms:-0}" = 0 ] || echo "OOM killer invoked ${ooms} times (its reports' call traces are not splats)"
	if [ -n "$splats" ]; then
		echo "$splats" | head -10
		result "not ok" "boot $param: no WARN/BUG/Oops/lockdep splat in the console"
	else
		result ok "boot $param: no WARN/BUG/Oops/lockdep splat in the console"
	fi
}

if [ "$suite" = lean ]; then
	# The free-list shuffle on, as distributions build it (KUnit checks it).
	# asi_ioremap=uncached: TCG's CPU says it runs under a hypervisor, which
	# keeps ioremap() areas out by default (the pageflag boot checks that).
	boot on "asi=on asi_alloc=freelist page_alloc.shuffle=1 asi_ioremap=uncached" freelist
	# 4-level paging (TCG's -cpu max has 5): the p4d is then the pgd entry,
	# which the userspace class mirrors through set_p4d() instead. pti=on:
	# asi=on wins, and asi=off leaves PTI alone. vsyscall=emulate: a user
	# read of the vsyscall page exits (test-vsyscall-taint).
	boot on "asi=on asi_alloc=pageflag no5lvl pti=on vsyscall=emulate" pageflag
	boot off "asi=off pti=on kunit.enable=0"
	boot invalid "asi=bogus asi_alloc=bogus asi_ioremap=bogus kunit.enable=0"
	# make vmcore and make crash: one more boot (512 MiB), QEMU dumps it,
	# crash and drgn read it back (tests/host/test-vmcore.sh).
	note "booting for a dump"
	host_test vmcore "a dump of an asi=on guest reads back in crash and drgn"
	# Hibernation with asi_alloc=freelist, one more boot (512 MiB) and a
	# dump searched for what an image would have left mapped
	# (tests/host/test-hibernation.sh).
	note "booting to ask for hibernation"
	host_test hibernation "hibernation is refused with asi_alloc=freelist and leaves no copy mapped"
else
	# Everything is slower under KASAN and debug_pagealloc.
	: "${TEST_TIMEOUT:=3600}" "${TEST_SECONDS:=900}"
	for alloc in ${DISTRO_ALLOC:-freelist pageflag}; do
		case $alloc in
		freelist|pageflag) boot on "asi=on asi_alloc=$alloc $DISTRO_APPEND" "$alloc" ;;
		*) result "not ok" "DISTRO_ALLOC: unknown allocator mode '$alloc' (expected freelist and/or pageflag)" ;;
		esac
	done
fi

echo "logs: $runs"
for f in "${failures[@]}"; do echo "failed: $f"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
