#!/bin/bash
# A process on a 16-bit stack segment (espfix-ss16.c): the interrupts it takes
# return to user mode through the ESPFIX64 stacks, after the return path has
# loaded the process's restricted space. That space must map them: a fault
# there would leave user mode unrestricted, counted as asi_exit_user_edge.
set -u
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")" && pwd)/espfix-ss16.c

command -v gcc >/dev/null || { echo "no gcc to build $src"; exit 77; }
bin=$(mktemp /tmp/espfix-ss16.XXXXXX) || fail "mktemp"
trap 'rm -f "$bin"' EXIT
gcc -O2 -Wall -o "$bin" "$src" || fail "cannot build $src"
edge0=$(vmstat asi_exit_user_edge) enter0=$(vmstat asi_enter)
"$bin"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "espfix-ss16 exited with $rc"
if [ "$ASI_EXPECT" = on ]; then
	edge1=$(vmstat asi_exit_user_edge) enter1=$(vmstat asi_enter)
	[ -n "$edge0" ] && [ -n "$edge1" ] || fail "no asi_exit_user_edge in /proc/vmstat"
	[ "$enter1" -gt "$enter0" ] || fail "no restricted space was entered meanwhile"
	[ "$edge1" = "$edge0" ] ||
		fail "$((edge1 - edge0)) faults at the user-mode boundary: ESPFIX64 stacks not mapped restricted"
fi
echo "PASS"
