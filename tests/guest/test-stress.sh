#!/bin/bash
# stress-ng's memory stressors run to completion; with ASI on, the restricted
# page tables are accounted in /proc/vmstat and the vmalloc areas stress-ng's
# forks create and free come and go without a splat (the console is scanned
# by tests/run.sh).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$ASI_EXPECT" = invalid ] && exit 77

top=$(cd ../.. && pwd)
"$top/stress/mem-pressure.sh" "${STRESS_SECONDS:-15}" || fail "stress-ng exited with $?"
tables=$(awk '$1 == "nr_asi_page_table_pages" { print $2 }' /proc/vmstat)
echo "nr_asi_page_table_pages: ${tables:-absent}"
if [ "$ASI_EXPECT" = on ]; then
	[ "${tables:-0}" -gt 0 ] || fail "no ASI page tables accounted with asi=on"
else
	[ "${tables:-0}" = 0 ] || fail "ASI page tables allocated with ASI off"
fi
echo "PASS"
