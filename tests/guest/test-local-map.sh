#!/bin/bash
# ASI local mappings (asi_map_local_page()). A pipe's buffer pages are user
# data, absent from the restricted space a process's system calls run in;
# its reads and writes copy them through the CPU's slot in the process's own
# space instead of exiting it. One writer and one reader pass N chunks
# through a pipe (pipe-copy.py): every chunk arrives intact, and beyond what
# a run of 100 chunks takes, at least one copy per chunk went through a local
# mapping and page-fault exits stay far below the two per chunk that copies
# through the direct map take. Two writing
# processes may not map what the other wrote; their chunks must still arrive
# intact. pipe-policy.py checks, one read() or write() at a time, which
# copies may be mapped (sole reader, sole writer, the pipe's own pages
# only). While a process that has slot tables holds its pipe, debug/
# asi_check.py walks every space, the slots included: no violation, no page
# left in a slot. With ASI off nothing is mapped locally.
# Under KASAN, whose shadow restricted spaces lack, system calls exit on the
# shadow before they copy, so nothing is mapped: there the counts are shown,
# not required, and pipe-policy.py does not run; the slot tables exist all
# the same (asi_map_local_page() makes them before it checks the space).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
copy=$top/tests/guest/pipe-copy.py
n=20000
. "$(dirname "$0")/lib.sh"

# One writer: page-fault exits and local mappings of N chunks, less those
# of the processes' start-up (page zeroing, copy-on-write), measured by a
# run of 100 chunks.
run_copy() {
	local l0 x0
	l0=$(vmstat asi_local_map) x0=$(vmstat asi_exit_page_fault)
	[ -n "$l0" ] && [ -n "$x0" ] || fail "no asi_local_map or asi_exit_page_fault in /proc/vmstat"
	out=$(/usr/bin/python3 "$copy" --chunks "$1") || fail "one writer: $out"
	echo "$out"
	locals=$(($(vmstat asi_local_map) - l0)) exits=$(($(vmstat asi_exit_page_fault) - x0))
}
run_copy 100
base_locals=$locals base_exits=$exits
run_copy $n
locals=$((locals - base_locals)) exits=$((exits - base_exits))
echo "one writer, $n chunks less 100: $locals local mappings, $exits page-fault exits"
if [ "$ASI_EXPECT" != on ]; then
	[ "$locals" = 0 ] || fail "$locals local mappings with ASI off"
	echo "PASS: pipes work with ASI off, nothing mapped locally"
	exit 0
fi
if kasan; then
	echo "(KASAN: the system calls exit on the shadow before they copy; counts not checked)"
else
	[ "$locals" -ge $((n - 100)) ] ||
		fail "only $locals of at least $((n - 100)) copies went through a local mapping"
	# Copies through the direct map would exit twice per chunk.
	[ "$exits" -lt $((n / 10)) ] || fail "$exits page-fault exits for $((n - 100)) chunks: the copies left the space"
fi

out=$(/usr/bin/python3 "$copy" --writers 2 --chunks $((n / 4)) --size 4096) ||
	fail "two writers: $out"
echo "$out"
if ! kasan; then
	/usr/bin/python3 "$top/tests/guest/pipe-policy.py" ||
		fail "pipe-policy.py failed (see its lines above)"
fi

coproc holder { exec /usr/bin/python3 "$copy" --chunks 100 --hold; }
# Bash unsets these once it reaps the coprocess.
pid=$holder_PID out_fd=${holder[0]} in_fd=${holder[1]}
read -r line <&"$out_fd"
echo "$line"
read -r line <&"$out_fd"
[ "$line" = "pipe-copy: holding" ] || fail "pipe-copy did not hold: '$line'"
check=$(/usr/bin/python3 /usr/bin/drgn -q -k -s "${VMLINUX:?not in a vm/run.sh guest}" \
	"$top/debug/asi_check.py" 2>&1); rc=$?
exec {in_fd}>&-
wait "$pid" || fail "pipe-copy --hold exited with $?"
echo "$check" | grep -E '^(local map|asi_check):'
[ $rc = 0 ] || { echo "$check"; fail "asi_check.py exited $rc"; }
echo "$check" | grep -Eq '^local map: [1-9][0-9]* spaces with slot tables, 0 pages in slots' ||
	fail "asi_check.py walked no slot tables, or found pages left in slots"
echo "PASS"
