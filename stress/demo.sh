#!/bin/bash
# What `make demo` runs in the asi=on guest: the ASI state, the restricted
# address space before and after memory pressure, and a sensitive user page
# checked live with drgn.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
drgn_script() {
	/usr/bin/python3 /usr/bin/drgn -q -k -s "$top/build/out-asi/vmlinux" \
		"$top/debug/asi_pgtable.py" "$@"
}
section() { printf '\n===== %s\n' "$*"; }

section "ASI state"
dmesg | grep 'ASI:'
echo "/sys/kernel/mm/asi/enabled: $(cat /sys/kernel/mm/asi/enabled)"
cat /sys/kernel/mm/asi/classes
grep asi /proc/vmstat

section "restricted address space at rest (global nonsensitive)"
drgn_script ranges --limit 3

section "memory pressure: stress-ng for ${DEMO_SECONDS:-20}s"
"$top/stress/mem-pressure.sh" "${DEMO_SECONDS:-20}"
grep -E 'asi|oom_kill' /proc/vmstat

section "restricted address space after the pressure"
drgn_script ranges --limit 3

section "one page of user memory vs kernel text"
coproc holder { exec /usr/bin/python3 "$top/debug/hold_anon_page.py"; }
read -r phys <&"${holder[0]}"
drgn_script addr _stext jiffies "phys:$phys"
kill "$holder_PID"
