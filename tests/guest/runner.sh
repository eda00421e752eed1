#!/bin/bash
# Runs inside the guest: every test-*.sh of each directory given (default:
# this one, tests/guest), each under a timeout: TEST_SECONDS (default 300),
# or more where the test's header (its first comment lines) asks for more
# with a "# seconds: N" line.
# ASI_EXPECT (on, off or invalid) says how the guest was booted.
# A test passes with 0, skips with 77 and fails otherwise. One line per test
# goes to the console and to $RESULTS: "ok|not ok|skip <name>", then how long
# it took, so the slow ones show before they meet their timeout.
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
		secs=${TEST_SECONDS:-300}
		own=$(sed -n '/^[^#]/q; s/^# seconds: \([0-9][0-9]*\)$/\1/p' "$t" | head -1)
		[ -n "$own" ] && [ "$own" -gt "$secs" ] && secs=$own
		echo "=== $name (asi $ASI_EXPECT, at most $secs s)"
		start=$SECONDS
		timeout -k 5 "$secs" bash "./$t" 2>&1
		rc=$? took=$((SECONDS - start))
		# timeout's own status (124, or 137 after its KILL) once time is up.
		[ "$took" -ge "$secs" ] && { [ $rc = 124 ] || [ $rc = 137 ]; } && rc=timeout
		case $rc in
		0) line="ok $name ($took s)" ;;
		77) line="skip $name ($took s)" ;;
		timeout) line="not ok $name (timed out, $took s)"; failed=1 ;;
		*) line="not ok $name (exit $rc, $took s)"; failed=1 ;;
		esac
		echo "$line" | tee -a "$RESULTS"
	done
done
exit $failed
