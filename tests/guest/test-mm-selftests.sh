#!/bin/bash
# The kernel's own mm selftests (tools/testing/selftests/mm, built on the
# host by tests/run.sh into $MM_SELFTESTS) that take seconds under TCG on
# the lean kernel: copy-on-write with THP and vmsplice pins, mremap, mlock,
# MADV_POPULATE, mseal, process_mrelease, MAP_DROPPABLE, memfd_secret
# (memory the kernel takes out of its own direct map) and userfaultfd. User
# pages are sensitive under ASI: each of these makes the kernel copy, zero,
# move or pin them, outside the restricted space, so the page-fault exits
# and the allocator's flips run under loads written by others. Every test
# must exit 0 and report at least as many passed subtests as below (or one):
# they skip what the lean kernel lacks (GUP_TEST, hugetlbfs, swap, io_uring)
# and still exit 0, so the exit status alone would hide a test that ran
# nothing.
set -u

# Name and arguments. uffd-unit-tests runs a few of its tests (-f matches a
# name's substring): the others (move, minor, events, poison) take minutes
# under TCG with ASI off too.
tests=(
	cow madv_populate map_fixed_noreplace map_populate mdwe_test mkdirty
	mlock2-tests mremap_dontunmap mrelease_test mseal_test droppable
	seal_elf memfd_secret va_high_addr_switch pkey_sighandler_tests_64
	"uffd-unit-tests -f register-ioctls" "uffd-unit-tests -f zeropage"
	"uffd-unit-tests -f move-pmd" "uffd-unit-tests -f wp-fork"
	"uffd-unit-tests -f wp-unpopulated"
)

# Passed subtests each must report, where more than one (measured on the
# lean kernel: cow 211, mseal_test 88, mdwe_test 32).
declare -A min_subtests=(
	[cow]=200 [mseal_test]=80 [mdwe_test]=30 [madv_populate]=16
	[mlock2-tests]=13 [map_fixed_noreplace]=9
)

# tests/run.sh builds what this runs.
if [ "${1:-}" = --binaries ]; then
	for t in "${tests[@]}"; do echo "${t%% *}"; done | sort -u
	exit 0
fi
leave_out() {	# test, why
	local i
	echo "$1 not run: $2"
	for i in "${!tests[@]}"; do
		[ "${tests[$i]}" = "$1" ] && unset 'tests[i]'
	done
}
# Its addresses above 47 bits need 5-level paging (the boot without no5lvl).
grep -qw la57 /proc/cpuinfo || leave_out va_high_addr_switch "no 5-level paging in this boot"
# It seals every read-only mapping /proc/self/maps names, and mseal() of the
# emulated vsyscall page (r-x there) fails, whatever the kernel.
grep -qw vsyscall=emulate /proc/cmdline && leave_out seal_elf "it cannot seal [vsyscall] under vsyscall=emulate"

# The asi=bogus boot is asi=off again: that boot runs them.
[ "${ASI_EXPECT:-}" = invalid ] && { echo "the asi=off boot runs them"; exit 77; }
dir=${MM_SELFTESTS:-}
[ -n "$dir" ] || { echo "MM_SELFTESTS not set (tests/run.sh builds the selftests and sets it)"; exit 77; }
[ -d "$dir" ] || { echo "FAIL: MM_SELFTESTS=$dir is not a directory here"; exit 1; }
# Fewer passes than this means tests turned into skips.
min_passed=${#tests[@]}

cd /tmp || exit 1
# cow's THP cases skip (and its count falls short) when no 2 MiB block can
# be had; the tests before this one leave memory fragmented.
echo 1 > /proc/sys/vm/compact_memory
n=0 failed=0 skipped=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	read -r bin args <<< "$t"
	if [ ! -x "$dir/$bin" ]; then
		echo "not ok $t (not built)"
		failed=$((failed + 1))
		continue
	fi
	# uffd-unit-tests (not PIE) asks for its shmem areas at 1 GiB, and the
	# kernel places its heap anywhere in the first GiB past its image
	# (arch_randomize_brk()): now and then the heap sits there and the test
	# fails ("mmap of memfd failed at 0x40000000"). Its heap stays put
	# without address-space randomization.
	norand=()
	[ "$bin" = uffd-unit-tests ] && norand=(setarch "$(uname -m)" -R)
	# shellcheck disable=SC2086 # the arguments are words
	out=$(timeout -k 5 120 "${norand[@]}" "$dir/$bin" $args 2>&1 < /dev/null)
	rc=$?
	# kselftest's "# Totals: pass:N ...", or uffd-unit-tests' "pass=N,".
	subtests=$(sed -nE 's/^# Totals: pass:([0-9]+).*/\1/p; s/.*unit tests: pass=([0-9]+),.*/\1/p' <<< "$out" | tail -1)
	want=${min_subtests[$bin]:-1}
	if [ $rc = 0 ] && [ -n "$subtests" ] && [ "$subtests" -lt "$want" ]; then
		echo "    $subtests subtests passed, $want expected: the others skipped"
		rc=1
	fi
	case $rc in
	0) echo "ok $t${subtests:+ ($subtests subtests passed)}" ;;
	4) echo "skip $t"; skipped=$((skipped + 1)) ;;
	*)
		{ grep -E '^not ok|FAIL|Bail out' <<< "$out" || tail -3 <<< "$out"; } |
			head -5 | sed 's/^/    /'
		echo "not ok $t (exit $rc)"
		failed=$((failed + 1))
		;;
	esac
done
passed=$((n - failed - skipped))
echo "$n mm selftests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] || { echo "FAIL: mm selftests failed"; exit 1; }
[ "$passed" -ge "$min_passed" ] || { echo "FAIL: only $passed passed, $min_passed expected"; exit 1; }
echo "PASS"
