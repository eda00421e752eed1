#!/bin/bash
# A process on a 16-bit stack segment (espfix-ss16.c): the interrupts it takes
# return to user mode through the ESPFIX64 stacks, after the return path has
# loaded the process's restricted space. That space must map them: a fault
# there would leave user mode unrestricted, counted as asi_exit_user_edge.
set -u
fail() { echo "FAIL: $*"; exit 1; }
edge() { awk '$1 == "asi_exit_user_edge" { print $2 }' /proc/vmstat; }

bin=$(mktemp /tmp/espfix-ss16.XXXXXX) || fail "mktemp"
trap 'rm -f "$bin"' EXIT
gcc -O2 -Wall -o "$bin" espfix-ss16.c || fail "cannot build espfix-ss16.c"
before=$(edge)
"$bin"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "espfix-ss16 exited with $rc"
if [ "$ASI_EXPECT" = on ]; then
	after=$(edge)
	[ -n "$before" ] && [ -n "$after" ] || fail "no asi_exit_user_edge in /proc/vmstat"
	[ "$after" = "$before" ] ||
		fail "$((after - before)) faults at the user-mode boundary: ESPFIX64 stacks not mapped restricted"
fi
echo "PASS"
