#!/bin/bash
# debug/asi_freelists.py and debug/asi_check.py, run live. With asi=on and
# asi_alloc=freelist the free lists hold nonsensitive pages, the pageblock map
# shows blocks of both sensitivities, a page of this test's anonymous memory
# sits in a sensitive block and is not mapped in the restricted space, and the
# invariant checker finds nothing (--verbose: with the mapped ranges and scan
# times). With asi_alloc=pageflag the checker finds
# nothing and `pfn` tells the same about the anonymous page. With ASI off both
# scripts exit 2 saying so.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
drgn_script() {	# script, arguments...
	local script=$1
	shift
	/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/$script" "$@"
}
. "$(dirname "$0")/lib.sh"

if [ "$ASI_EXPECT" != on ]; then
	for script in asi_freelists.py asi_check.py; do
		out=$(drgn_script $script 2>&1); rc=$?
		echo "$out"
		[ $rc = 2 ] && [[ $out == *"ASI is off"* ]] ||
			fail "with ASI off $script should exit 2 saying so (rc=$rc)"
	done
	echo "PASS: both scripts say ASI is off"
	exit 0
fi

mode=$(cat /sys/kernel/mm/asi/alloc_mode) || fail "/sys/kernel/mm/asi/alloc_mode missing"
echo "alloc_mode: $mode"
case $mode in
freelist|pageflag) ;;
*) fail "alloc_mode is '$mode' with asi=on" ;;
esac

out=$(drgn_script asi_freelists.py pfn 0x10000000000 2>&1); rc=$?
echo "$out"
[ $rc = 2 ] && [[ $out == *"no struct page"* ]] || fail "a pfn beyond memory should exit 2 (rc=$rc)"

if [ "$mode" = freelist ]; then
	out=$(drgn_script asi_freelists.py lists 2>&1) || fail "lists failed: $out"
	echo "$out"
	echo "$out" | grep -q "^mode: freelist" || fail "lists does not say mode freelist"
	echo "$out" | grep -Eq '^Movable/ns ' || fail "no nonsensitive free-list rows"
	echo "$out" | grep -Eq '^nonsensitive free: [1-9][0-9]* pages' ||
		fail "no zone has nonsensitive free pages"
	echo "$out" | grep -Eq '^misplaced entries: [1-9]' &&
		fail "free pages on the wrong sensitivity's list"

	out=$(drgn_script asi_freelists.py blocks 2>&1) || fail "blocks failed: $out"
	echo "$out"
	map=$(echo "$out" | grep -E '^0x[0-9a-f]+ ')
	echo "$map" | grep -q '[A-Z]' || fail "no sensitive pageblock in the map"
	echo "$map" | grep -q '[a-z]' || fail "no nonsensitive pageblock in the map"
fi

# Hold an anonymous page (user data: sensitive) and look at its pfn.
coproc holder { exec /usr/bin/python3 "$top/debug/hold_anon_page.py"; }
read -r phys <&"${holder[0]}"
[ -n "$phys" ] || fail "could not read the anonymous page's physical address"
pfn=$(printf '%#x' $((phys >> 12)))
out=$(drgn_script asi_freelists.py pfn "$pfn" 2>&1); rc=$?
kill "$holder_PID"
echo "$out"
[ $rc = 0 ] || fail "pfn $pfn failed"
echo "$out" | grep -q "^pfn $pfn " || fail "pfn $pfn not described"
echo "$out" | grep -Eq '^  refcount: [1-9]' || fail "the held page has no reference"
echo "$out" | grep -q '^  free: no (allocated)' || fail "the held page is not reported allocated"
echo "$out" | grep -q '^  PG_asi_nonsensitive: no' ||
	fail "the anonymous page is flagged nonsensitive"
echo "$out" | grep -q '^  restricted: not mapped' || fail "the anonymous page is mapped restricted"
if [ "$mode" = freelist ]; then
	echo "$out" | grep -Eq '^  pageblock 0x[0-9a-f]+-0x[0-9a-f]+: [A-Za-z]+, sensitive$' ||
		fail "the anonymous page is not in a sensitive pageblock"
fi

out=$(drgn_script asi_check.py --verbose 2>&1); rc=$?
echo "$out"
echo "$out" | grep -Eq '^ranges: image: [1-9]' || fail "asi_check.py --verbose printed no image ranges"
echo "$out" | grep -Eq '^scan times: [0-9.]+ s' || fail "asi_check.py --verbose printed no scan times"
echo "$out" | grep -Eq "^asi_check: $mode: 0 violations \(checked [1-9][0-9]* leaves, [1-9][0-9]* pages\)$" ||
	fail "asi_check.py did not report 0 violations in $mode mode"
[ $rc = 0 ] || fail "asi_check.py exited $rc"
echo "PASS: $mode mode: free lists, pageblocks and page $pfn as expected, invariants hold"
