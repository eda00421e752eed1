#!/bin/bash
# Runs inside the guest: every tests/guest/test-*.sh, each under a timeout,
# with ASI_EXPECT (on, off or invalid) saying how the guest was booted.
# A test passes with 0, skips with 77 and fails otherwise. One line per test
# goes to the console and to $RESULTS: "ok|not ok|skip <name>".
cd "$(dirname "$0")"
: "${ASI_EXPECT:?set ASI_EXPECT to on, off or invalid}"
RESULTS=${RESULTS:-${ASI_OUT:?not in a vm/run.sh guest}/results}
export ASI_EXPECT
: > "$RESULTS"
failed=0
for t in test-*.sh; do
	name=${t%.sh}
	echo "=== $name (asi $ASI_EXPECT)"
	timeout -k 5 300 bash "./$t" 2>&1
	rc=$?
	case $rc in
	0) line="ok $name" ;;
	77) line="skip $name" ;;
	*) line="not ok $name (exit $rc)"; failed=1 ;;
	esac
	echo "$line" | tee -a "$RESULTS"
done
exit $failed
