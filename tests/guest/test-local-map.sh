#!/bin/bash
# ASI local mappings (asi_map_local_page()). A pipe's buffer pages are user
# data, absent from the restricted space a process's system calls run in;
# its reads and writes copy them through the CPU's slot in the process's own
# space instead of exiting it. One writer and one reader pass N chunks
# through a pipe (pipe-copy.py): every chunk arrives intact, at least N
# copies went through a local mapping, and page-fault exits stay far below
# the two per chunk that copies through the direct map take. Two writing
# processes may not map what the other wrote; their chunks must still arrive
# intact. While a process that has slot tables holds its pipe, debug/
# asi_check.py walks every space, the slots included: no violation, no page
# left in a slot. With ASI off nothing is mapped locally.
# Under KASAN, whose shadow restricted spaces lack, the copies' instrumented
# code exits anyway: there the exits are shown, not required.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
copy=$top/tests/guest/pipe-copy.py
n=20000
. "$(dirname "$0")/lib.sh"

local0=$(vmstat asi_local_map) exits0=$(vmstat asi_exit_page_fault)
[ -n "$local0" ] && [ -n "$exits0" ] || fail "no asi_local_map or asi_exit_page_fault in /proc/vmstat"
out=$(/usr/bin/python3 "$copy" --chunks $n) || fail "one writer: $out"
echo "$out"
locals=$(($(vmstat asi_local_map) - local0)) exits=$(($(vmstat asi_exit_page_fault) - exits0))
echo "one writer, $n chunks: $locals local mappings, $exits page-fault exits"
if [ "$ASI_EXPECT" != on ]; then
	[ "$locals" = 0 ] || fail "$locals local mappings with ASI off"
	echo "PASS: pipes work with ASI off, nothing mapped locally"
	exit 0
fi
[ "$locals" -ge $n ] || fail "only $locals of at least $n copies went through a local mapping"
if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	echo "(KASAN: exits not checked)"
else
	# Process start-up (page zeroing, copy-on-write) exits a few hundred times.
	[ "$exits" -lt $((n / 4)) ] || fail "$exits page-fault exits for $n chunks: the copies left the space"
fi

out=$(/usr/bin/python3 "$copy" --writers 2 --chunks $((n / 4)) --size 4096) ||
	fail "two writers: $out"
echo "$out"

coproc holder { exec /usr/bin/python3 "$copy" --chunks 100 --hold; }
pid=$holder_PID
read -r line <&"${holder[0]}"
echo "$line"
read -r line <&"${holder[0]}"
[ "$line" = "pipe-copy: holding" ] || fail "pipe-copy did not hold: '$line'"
check=$(/usr/bin/python3 /usr/bin/drgn -q -k -s "${VMLINUX:?not in a vm/run.sh guest}" \
	"$top/debug/asi_check.py" 2>&1); rc=$?
exec {holder[1]}>&-
wait "$pid" || fail "pipe-copy --hold exited with $?"
echo "$check" | grep -E '^(local map|asi_check):'
[ $rc = 0 ] || { echo "$check"; fail "asi_check.py exited $rc"; }
echo "$check" | grep -Eq '^local map: [1-9][0-9]* spaces with slot tables, 0 pages in slots' ||
	fail "asi_check.py walked no slot tables, or found pages left in slots"
echo "PASS"
