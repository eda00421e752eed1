#!/bin/bash
# A module's text, read-only data and data are in the global nonsensitive
# space while it is loaded (module memory is vmalloc'ed), and no restricted
# table maps them after it is unloaded (vfree() unmaps and the pages go back
# to the allocator, where they may later hold sensitive data).
. ./lib.sh
ko=${vmlinux%/vmlinux}/asi-test-module/asi_test_mod.ko
[ -f "$ko" ] || fail "no $ko: tests/module/build.sh did not run"
insmod "$ko" || fail "insmod failed"
s=/sys/module/asi_test_mod/sections
addrs=()
for sec in .text .rodata .data; do
	[ -r "$s/$sec" ] || continue
	addrs+=("$(cat "$s/$sec")")
done
echo "sections: ${addrs[*]}"
[ ${#addrs[@]} -ge 2 ] || { rmmod asi_test_mod; fail "cannot read the module's section addresses"; }
if [ "$ASI_EXPECT" != on ]; then rmmod asi_test_mod; exit 0; fi
out=$(drgn_script asi_pgtable.py addr "${addrs[@]}"); rc=$?
echo "$out"
[ $rc = 0 ] || { rmmod asi_test_mod; fail "addr failed"; }
n=$(echo "$out" | grep -c 'restricted (global nonsensitive): mapped')
[ "$n" = ${#addrs[@]} ] || { rmmod asi_test_mod; fail "only $n of ${#addrs[@]} module sections mapped restricted"; }
check_clean "with the module loaded"
rmmod asi_test_mod || fail "rmmod failed"
# vunmap unmaps the restricted entries together with the unrestricted ones.
out=$(drgn_script asi_pgtable.py addr "${addrs[@]}") || fail "addr failed: $out"
echo "$out"
! echo "$out" | grep -q 'restricted (global nonsensitive): mapped' ||
	fail "unloaded module memory still mapped restricted"
echo "PASS"
