#!/bin/bash
# What `make demo` runs in the asi=on guest: the ASI state, the page
# allocator's sensitivity free lists and restricted address space before,
# during and after a memory-pressure scenario (stress/scenarios/alternate.sh),
# where each CPU runs (each process in its own restricted space), the
# invariant checker, and a sensitive user page checked live with drgn.
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

secs=${DEMO_SECONDS:-40}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "DEMO_SECONDS must be a positive number of seconds, not '$secs'" >&2; exit 2; }
section "memory pressure: two rounds of the 'alternate' scenario (kernel-heavy, then user-heavy phases), looked at after $(( secs / 2 ))s"
log=$(mktemp)
ROUNDS=2 "$top/stress/scenario.sh" alternate "$secs" > "$log" 2>&1 &
scenario=$!
sleep $(( secs / 2 ))
section "while it runs: free lists by sensitivity (drgn)"
drgn_run asi_freelists.py lists
section "while it runs: each CPU's address space and the flips so far (drgn)"
drgn_run asi_transitions.py
counters
wait $scenario
section "what the scenario did"
grep -vE '^(stress-ng|RESULT)' "$log"
rm -f "$log"

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
