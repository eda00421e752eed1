#!/bin/bash
# `make test`: build the ASI=n variant, then boot the test kernel four times
# (asi=on with each page-allocator mode, asi=off, asi=bogus), run the KUnit
# suites built into it (asi=on boots, parsed with the tree's kunit.py) and
# tests/guest/ in each boot, and scan every console for splats. Ends with "N passed, N failed, N skipped";
# exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
cd "$TOP" || exit 1

runs=$BUILD/test
rm -rf "$runs"
mkdir -p "$runs"
passed=0 failed=0 skipped=0

result() {	# ok|not ok|skip, name
	case $1 in
	ok) passed=$((passed + 1)) ;;
	skip) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
	echo "$1 - $2"
}

# The guest tests every boot must report, known here rather than trusted to
# the guest: a runner that stops early cannot hide the tests it never ran.
GUEST_TESTS=(tests/guest/test-*.sh)

SPLATS='WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|general protection fault|Call Trace:|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|blocked for more than'

if scripts/kernel.sh noasi > "$runs/build-noasi.log" 2>&1; then
	result ok "kernel builds with CONFIG_MITIGATION_ADDRESS_SPACE_ISOLATION=n"
else
	tail -20 "$runs/build-noasi.log"
	result "not ok" "kernel builds with CONFIG_MITIGATION_ADDRESS_SPACE_ISOLATION=n (log: $runs/build-noasi.log)"
fi

kunit_results() {	# console log
	local log=$1 out
	out=$(/usr/bin/python3 "$SRC/tools/testing/kunit/kunit.py" parse "$log" 2>&1)
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
	[ "$f" = 0 ] && [ "${c:-0}" = 0 ] || echo "$out" | grep -B2 -A20 FAILED | head -60
}

boot() {	# mode (on|off|invalid), kernel parameters, [asi_alloc mode]
	local mode=$1 param=$2 alloc=${3:-} out=$runs/asi-$1${3:+-$3} rc
	note "booting with $param"
	vm/run.sh --out "$out" --timeout "${TEST_TIMEOUT:-900}" --append "$param" \
		-- env ASI_EXPECT="$mode" ASI_ALLOC="$alloc" \
		tests/guest/runner.sh > "$out.stdout" 2>&1
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
	local t name status seen
	for t in "${GUEST_TESTS[@]}"; do
		name=$(basename "$t" .sh)
		seen=$(awk -v n="$name" '($1 == "ok" || $1 == "skip") && $2 == n { print $1; exit }
			$1 == "not" && $3 == n { print "not ok"; exit }' "$out/results" 2>/dev/null)
		case $seen in
		ok) result ok "$param: $name" ;;
		skip) result skip "$param: $name" ;;
		"not ok") sed -n "/^=== $name /,/^not ok $name/p" "$out.stdout" | tail -30
			result "not ok" "$param: $name" ;;
		*) result "not ok" "$param: $name reported no result" ;;
		esac
	done
	local splats
	splats=$(grep -nE "$SPLATS" "$out/console.log" 2>/dev/null)
	if [ -n "$splats" ]; then
		echo "$splats" | head -10
		result "not ok" "boot $param: no WARN/BUG/Oops/lockdep splat in the console"
	else
		result ok "boot $param: no WARN/BUG/Oops/lockdep splat in the console"
	fi
}

boot on "asi=on asi_alloc=freelist" freelist
boot on "asi=on asi_alloc=pageflag" pageflag
boot off "asi=off kunit.enable=0"
boot invalid "asi=bogus asi_alloc=bogus kunit.enable=0"

echo "logs: $runs"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
