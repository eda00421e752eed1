#!/bin/bash
# A short run of the `alternate` pressure scenario (stress/scenarios/), which
# moves memory between sensitivities both ways: afterwards free memory is
# back within FREE_TOLERANCE permille, no OOM kill happened, and with ASI on
# the mode did its work within its bounds: asi_alloc=freelist flipped blocks
# both ways, with at most one TLB flush per flip to sensitive or batch of
# lent pages, at most flip_batch ranges (two pageblocks each at most) per
# flip and at most 64 pages per batch lent;
# asi_alloc=pageflag freed pages through its queue. debug/asi_check.py then
# finds the whole restricted address space clean. With ASI off it skips:
# the scenario moves no sensitivity there, and make compare measures it.
# Minutes under TCG, more on a slower host: its own budget in the runner.
# seconds: 600
set -u
. "$(dirname "$0")/lib.sh"
[ "$ASI_EXPECT" = on ] || exit 77
top=$(cd "$(dirname "$0")/../.." && pwd)
tolerance=${FREE_TOLERANCE:-20}

# Two rounds make freelist flip both ways; one is enough elsewhere, and the
# page flag's per-page flushes make each round slow.
rounds=1
[ "$(cat /sys/kernel/mm/asi/alloc_mode 2>/dev/null)" = freelist ] &&
	[ "$(cat /sys/kernel/mm/asi/enabled 2>/dev/null)" = 1 ] && rounds=2
out=$(FILL_PCT=30 ROUNDS=$rounds "$top/stress/scenario.sh" alternate $(( 12 * rounds )) 2>&1)
rc=$?
echo "$out"
[ "$rc" = 0 ] || fail "the scenario exited with $rc"
result=$(grep '^RESULT ' <<< "$out") || fail "the scenario printed no RESULT line"
declare -A r
for kv in ${result#RESULT }; do r[${kv%%=*}]=${kv#*=}; done

[ "${r[oom_kill]}" = 0 ] || fail "${r[oom_kill]} OOM kills"
lost=$(( (r[free_before_kib] - r[free_after_kib]) * 1000 / r[free_before_kib] ))
[ "$lost" -le "$tolerance" ] ||
	fail "free memory not back: ${r[free_before_kib]} kB before, ${r[free_after_kib]} kB after ($lost permille less)"

case $ASI_EXPECT/${r[mode]} in
on/freelist)
	[ "${r[ns_mib]}" -gt 0 ] || fail "no block flipped to nonsensitive"
	[ "${r[s_mib]}" -gt 0 ] || fail "no block flipped to sensitive"
	[ "${r[tlb_flush]}" -le "$(( r[flips_s] + r[lend_batches] ))" ] ||
		fail "${r[tlb_flush]} TLB flushes for ${r[flips_s]} flips to sensitive and ${r[lend_batches]} batches lent"
	[ "${r[lent_pages]}" -le "$(( r[lend_batches] * 64 ))" ] ||
		fail "${r[lent_pages]} pages lent in ${r[lend_batches]} batches of at most 64"
	batch=$(cat /sys/kernel/mm/asi/flip_batch)
	[ "$(( r[s_mib] / 2 ))" -le "$(( r[flips_s] * batch * 2 ))" ] ||
		fail "$(( r[s_mib] / 2 )) blocks flipped to sensitive in ${r[flips_s]} flips of at most $batch ranges"
	;;
on/pageflag)
	[ "${r[async_free]}" -gt 0 ] || fail "no page freed through the page-flag queue"
	[ "${r[s_mib]}" = 0 ] || fail "freelist flips in pageflag mode"
	;;
*)
	fail "booted asi $ASI_EXPECT, but the scenario ran in mode ${r[mode]}"
	;;
esac
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/asi_check.py" ||
	fail "debug/asi_check.py found violations after the scenario"
echo PASS
