#!/bin/bash
# What `make demo` runs in the asi=on guest: the ASI state, the page
# allocator's sensitivity free lists and restricted address space before and
# after memory pressure, where each CPU runs (each process in its own
# restricted space), the invariant checker, and a sensitive user page
# checked live with drgn.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
drgn_run() {	# script, arguments
	local script=$1
	shift
	/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/$script" "$@"
}
section() { printf '\n===== %s\n' "$*"; }
counters() { grep -E '^(nr_free_nonsensitive|nr_asi_page_table_pages|asi_|oom_kill)' /proc/vmstat; }

section "ASI state"
dmesg | grep 'ASI:'
echo "/sys/kernel/mm/asi/enabled: $(cat /sys/kernel/mm/asi/enabled)"
echo "/sys/kernel/mm/asi/alloc_mode: $(cat /sys/kernel/mm/asi/alloc_mode)"
cat /sys/kernel/mm/asi/classes
counters

section "free lists by sensitivity at rest (drgn)"
drgn_run asi_freelists.py lists

section "restricted address space at rest (global nonsensitive)"
drgn_run asi_pgtable.py ranges --limit 3

section "memory pressure: stress-ng for ${DEMO_SECONDS:-20}s"
"$top/stress/mem-pressure.sh" "${DEMO_SECONDS:-20}"
counters

section "after the pressure: free lists, pageblock map of DMA32, restricted space"
drgn_run asi_freelists.py lists
drgn_run asi_freelists.py blocks --zone DMA32
drgn_run asi_pgtable.py ranges --limit 3

section "each CPU's address space and each process's target, one process spinning in user mode (drgn)"
sh -c 'while :; do :; done' &
spin=$!
sleep 1
drgn_run asi_transitions.py
kill $spin

section "invariant check: no sensitive page mapped, every nonsensitive one mapped"
drgn_run asi_check.py
echo "asi_check.py exit status: $?"

section "one page of user memory vs kernel text"
coproc holder { exec /usr/bin/python3 "$top/debug/hold_anon_page.py"; }
read -r phys <&"${holder[0]}"
drgn_run asi_pgtable.py addr _stext jiffies "phys:$phys"
drgn_run asi_freelists.py pfn $((phys >> 12))
kill "$holder_PID"
