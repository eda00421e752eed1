#!/bin/bash
# debug/asi_pgtable.py, run live: kernel text is mapped in the restricted space,
# freed init memory and a page of this test's anonymous memory (sensitive
# user data) are not, though the unrestricted tables map them. With ASI off the script must say so.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
drgn_script() { /usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/asi_pgtable.py" "$@"; }
. "$(dirname "$0")/lib.sh"

if [ "$ASI_EXPECT" != on ]; then
	out=$(drgn_script ranges 2>&1); rc=$?
	echo "$out"
	[ $rc = 2 ] && [[ $out == *"ASI is off"* ]] || fail "with ASI off the script should exit 2 saying so (rc=$rc)"
	exit 0
fi

out=$(drgn_script ranges 2>&1) || fail "ranges failed: $out"
echo "$out"
echo "$out" | grep -Eq '^text: [1-9][0-9]* ranges' || fail "no kernel text in the restricted space"
echo "$out" | grep -Eq '^vmalloc: [1-9][0-9]* ranges' || fail "no vmalloc area in the restricted space"

# Init memory went back to the page allocator after boot: its image mapping
# must not reach restricted spaces, though without PTI the unrestricted
# tables keep it.
out=$(drgn_script addr __init_begin 2>&1) || fail "addr failed: $out"
echo "$out"
echo "$out" | grep -q 'restricted (global nonsensitive): not mapped' ||
	fail "freed init memory (__init_begin) is mapped restricted"

# Hold an anonymous page and find its physical address through pagemap.
coproc holder { exec /usr/bin/python3 "$top/debug/hold_anon_page.py"; }
read -r phys <&"${holder[0]}"
[ -n "$phys" ] || fail "could not read the anonymous page's physical address"
out=$(drgn_script addr _stext "phys:$phys" 2>&1); rc=$?
kill "$holder_PID"
echo "$out"
[ $rc = 0 ] || fail "addr failed"
text=$(echo "$out" | sed -n '/^_stext/,/unrestricted/p')
anon=$(echo "$out" | sed -n "/^phys:$phys/,/unrestricted/p")
echo "$text" | grep -q 'restricted (global nonsensitive): mapped' || fail "_stext not mapped restricted"
echo "$anon" | grep -q 'restricted (global nonsensitive): not mapped' || fail "anonymous page mapped restricted"
echo "$anon" | grep -q 'unrestricted: mapped' || fail "anonymous page not mapped unrestricted"
echo "PASS: text mapped restricted; user page $phys only unrestricted"
