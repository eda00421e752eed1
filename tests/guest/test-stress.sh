#!/bin/bash
# stress-ng's memory stressors, then its syscall-heavy ones (fork, exec, pipe,
# mmap, signals, futex, page faults), run to completion; with ASI on, the restricted
# page tables are accounted in /proc/vmstat, the vmalloc areas stress-ng's
# forks create and free come and go without a splat (the console is scanned
# by tests/run.sh), the page allocator did its mode's work (flips, or deferred
# frees), the stressors' user mode ran in their restricted spaces (entered on
# return to user mode, never left through a fault at the user-mode boundary)
# and debug/asi_check.py finds the whole restricted address space clean.
set -u
. "$(dirname "$0")/lib.sh"
[ "$ASI_EXPECT" = invalid ] && exit 77

top=$(cd "$(dirname "$0")/../.." && pwd)
stat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# Trace the flips stress-ng causes (asi_alloc=freelist).
tr=/sys/kernel/tracing
events=
if [ "$ASI_EXPECT" = on ] && [ "$(cat /sys/kernel/mm/asi/alloc_mode)" = freelist ]; then
	mountpoint -q $tr || mount -t tracefs nodev $tr || fail "cannot mount tracefs"
	[ -d $tr/events/asi ] || fail "no asi trace events"
	# Count before tracing starts and after it stops (and in-flight flips
	# have finished), so that every traced flip is also counted.
	flips0=$(stat asi_flip_nonsensitive)
	echo 1 > $tr/events/asi/enable || fail "cannot enable the asi trace events"
	events=1
fi

enter0=$(stat asi_enter)
"$top/stress/mem-pressure.sh" "${STRESS_SECONDS:-15}" || fail "stress-ng exited with $?"
"$top/stress/syscalls.sh" "${STRESS_SECONDS:-15}" || fail "the syscall stressors exited with $?"

if [ -n "$events" ]; then
	echo 0 > $tr/events/asi/enable
	sleep 1
	flips=$(( $(stat asi_flip_nonsensitive) - flips0 ))
	traced=$(grep -c 'asi_flip: .*to=nonsensitive' $tr/trace)
	echo "flips to nonsensitive during stress: $flips counted, $traced traced"
	# The ring buffer may drop events, never invent them.
	[ "$traced" -le "$flips" ] || fail "more flips traced than counted"
	[ "$flips" = 0 ] || [ "$traced" -gt 0 ] || fail "flips counted but none traced"
fi
tables=$(awk '$1 == "nr_asi_page_table_pages" { print $2 }' /proc/vmstat)
echo "nr_asi_page_table_pages: ${tables:-absent}"
if [ "$ASI_EXPECT" != on ]; then
	[ "${tables:-0}" = 0 ] || fail "ASI page tables allocated with ASI off"
	echo "PASS"
	exit 0
fi
[ "${tables:-0}" -gt 0 ] || fail "no ASI page tables accounted with asi=on"

grep -E '^(nr_free_nonsensitive|asi_)' /proc/vmstat
case $(cat /sys/kernel/mm/asi/alloc_mode) in
freelist)
	[ "$(stat asi_flip_nonsensitive)" -gt 0 ] || fail "no pageblock became nonsensitive"
	[ "$(stat nr_free_nonsensitive)" -gt 0 ] || fail "no free nonsensitive memory"
	[ "$(stat asi_pageflag_async_free)" = 0 ] || fail "pageflag frees in freelist mode"
	grep -q '/ns ' /proc/pagetypeinfo || fail "/proc/pagetypeinfo lacks nonsensitive rows"
	;;
pageflag)
	[ "$(stat asi_pageflag_async_free)" -gt 0 ] || fail "no deferred frees in pageflag mode"
	[ "$(stat asi_flip_nonsensitive)" = 0 ] || fail "flips in pageflag mode"
	cat /sys/kernel/mm/asi/pageflag_queued
	;;
*) fail "alloc_mode is $(cat /sys/kernel/mm/asi/alloc_mode)" ;;
esac
enters=$(( $(stat asi_enter) - enter0 ))
echo "restricted spaces entered during stress: $enters"
[ "$enters" -gt 1000 ] || fail "user mode hardly ran restricted ($enters enters)"
[ "$(stat asi_exit_user_edge)" = 0 ] ||
	fail "$(stat asi_exit_user_edge) faults at the user-mode boundary left user mode unrestricted"

vmlinux=${VMLINUX:?not in a vm/run.sh guest}
out=$(/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/asi_check.py" 2>&1)
rc=$?
echo "$out"
grep -q '^asi_check: ' <<< "$out" || fail "asi_check.py did not finish (exit $rc)"
[ $rc = 0 ] || fail "asi_check.py found $rc violations"
# Processes' userspace-class spaces were among those checked.
grep -qE '^spaces: .*pid [0-9]+ userspace \(pgd' <<< "$out" ||
	fail "asi_check.py checked no process's userspace-class space"
echo "PASS"
