#!/bin/bash
# Runs inside the guest: every test-*.sh of each directory given (default:
# this one, tests/guest), each under a timeout (TEST_SECONDS, default 300),
# with ASI_EXPECT (on, off or invalid) saying how the guest was booted.
# A test passes with 0, skips with 77 and fails otherwise. One line per test
# goes to the console and to $RESULTS: "ok|not ok|skip <name>".
here=$(cd "$(dirname "$0")" && pwd)
: "${ASI_EXPECT:?set ASI_EXPECT to on, off or invalid}"
RESULTS=${RESULTS:-${ASI_OUT:?not in a vm/run.sh guest}/results}
export ASI_EXPECT
[ $# -gt 0 ] || set -- "$here"
: > "$RESULTS"
dirs=()
for dir in "$@"; do
	d=$(cd "$dir" 2>/dev/null && pwd) ||
		{ echo "not ok $dir (no such directory)" | tee -a "$RESULTS"; exit 2; }
	dirs+=("$d")
done
failed=0
for dir in "${dirs[@]}"; do
	cd "$dir" || exit 2
	for t in test-*.sh; do
		name=${t%.sh}
		echo "=== $name (asi $ASI_EXPECT)"
		timeout -k 5 "${TEST_SECONDS:-300}" bash "./$t" 2>&1
		rc=$?
		case $rc in
		0) line="ok $name" ;;
		77) line="skip $name" ;;
		*) line="not ok $name (exit $rc)"; failed=1 ;;
		esac
		echo "$line" | tee -a "$RESULTS"
	done
done
exit $failed
