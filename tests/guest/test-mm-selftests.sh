#!/bin/bash
# The kernel's own mm selftests (tools/testing/selftests/mm, built on the
# host by tests/run.sh into $MM_SELFTESTS) that take seconds under TCG on
# the lean kernel: copy-on-write with THP and GUP pins, mremap, mlock,
# MADV_POPULATE, mseal, process_mrelease, MAP_DROPPABLE, memfd_secret
# (memory the kernel takes out of its own direct map) and userfaultfd. User
# pages are sensitive under ASI: each of these makes the kernel copy, zero,
# move or pin them, outside the restricted space, so the page-fault exits
# and the allocator's flips run under loads written by others. Every test
# must pass (0) or skip (4, KSFT_SKIP) in every boot.
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

# tests/run.sh builds what this runs.
if [ "${1:-}" = --binaries ]; then
	for t in "${tests[@]}"; do echo "${t%% *}"; done | sort -u
	exit 0
fi

dir=${MM_SELFTESTS:-}
[ -n "$dir" ] || { echo "MM_SELFTESTS not set (tests/run.sh builds the selftests and sets it)"; exit 77; }
[ -d "$dir" ] || { echo "FAIL: MM_SELFTESTS=$dir is not a directory here"; exit 1; }
# Fewer passes than this means tests turned into skips.
min_passed=${#tests[@]}

cd /tmp || exit 1
n=0 failed=0 skipped=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	read -r bin args <<< "$t"
	if [ ! -x "$dir/$bin" ]; then
		echo "not ok $t (not built)"
		failed=$((failed + 1))
		continue
	fi
	# shellcheck disable=SC2086 # the arguments are words
	out=$(timeout -k 5 120 "$dir/$bin" $args 2>&1 < /dev/null)
	rc=$?
	case $rc in
	0) echo "ok $t" ;;
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
