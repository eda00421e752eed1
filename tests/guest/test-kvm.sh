#!/bin/bash
# A KVM guest inside the test guest (nested SVM under TCG): kvm-hello.c runs
# a real-mode guest that makes one I/O exit per byte it writes. With asi=on
# the guest runs in its VM's restricted space (ASI's KVM class) and KVM
# handles the exits there: every VM exit comes back restricted
# (asi_vmexit_vm_space; asi_vmexit_elsewhere counts a VM entered after
# the CPU had left the space, which must not happen here). While the VM
# exists, debug/asi_check.py walks its space with the rest and finds no
# violation. Then a thread closes the vCPU and the VM while another is in
# KVM_RUN, so that KVM_RUN's own fput() destroys the VM, and its space, on
# the way back to user mode: no WARN (the space must be left first).
# With ASI off the guest runs all the same and nothing is counted.
# Under KASAN, whose shadow restricted spaces lack, KVM's instrumented code
# exits before each entry: there the counts are shown, not required.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/guest/kvm-hello.c
rounds=100
. "$(dirname "$0")/lib.sh"

need_kvm
command -v gcc >/dev/null || { echo "no gcc to build $src"; exit 77; }
bin=$(mktemp /tmp/kvm-hello.XXXXXX) || fail "mktemp"
trap 'rm -f "$bin"' EXIT
gcc -O2 -Wall -pthread -o "$bin" "$src" || fail "cannot build $src"

in0=$(vmstat asi_vmexit_vm_space) out0=$(vmstat asi_vmexit_elsewhere)
if [ "$ASI_EXPECT" != on ]; then
	"$bin" $rounds || fail "kvm-hello failed with ASI off"
	[ "$(vmstat asi_vmexit_vm_space)" = "$in0" ] &&
		[ "$(vmstat asi_vmexit_elsewhere)" = "$out0" ] ||
		fail "VM exits counted with ASI off"
	echo "PASS: a KVM guest runs with ASI off"
	exit 0
fi
[ -n "$in0" ] && [ -n "$out0" ] || fail "no asi_vmexit_* counters in /proc/vmstat"
grep -qx "kvm registered" /sys/kernel/mm/asi/classes || fail "the kvm class is not registered: $(cat /sys/kernel/mm/asi/classes)"

coproc vm { exec "$bin" --hold $rounds; }
pid=$vm_PID
read -r line <&"${vm[0]}"
echo "$line"
[ "$line" = "kvm-hello: $rounds I/O exits, then hlt" ] || fail "kvm-hello: '$line'"
read -r line <&"${vm[0]}"
[ "$line" = "kvm-hello: holding" ] || fail "kvm-hello did not hold its VM: '$line'"
in1=$(vmstat asi_vmexit_vm_space) out1=$(vmstat asi_vmexit_elsewhere)

check=$(/usr/bin/python3 /usr/bin/drgn -q -k -s "${VMLINUX:?not in a vm/run.sh guest}" \
	"$top/debug/asi_check.py" 2>&1); rc=$?
exec {vm[1]}>&-
wait "$pid" || fail "kvm-hello exited with $?"
echo "$check" | grep -E '^(spaces|asi_check):'
echo "$check" | grep -q "^spaces: .*pid $pid kvm (pgd " ||
	fail "asi_check.py did not walk the VM's space (pid $pid kvm)"
[ $rc = 0 ] || { echo "$check"; fail "asi_check.py exited $rc with the VM's space live"; }

echo "VM exits: $((in1 - in0)) back in the VM's space, $((out1 - out0)) elsewhere"
if kasan; then
	echo "PASS (KASAN: where VM exits land is not checked)"
	exit 0
fi
[ $((in1 - in0)) -ge $rounds ] || fail "fewer than $rounds VM exits came back to the VM's space"
[ "$out1" = "$out0" ] || fail "$((out1 - out0)) VM exits found the CPU out of the VM's space"

warn0=$(dmesg | grep -c -E 'WARNING:|BUG:')
for try in 1 2 3; do
	"$bin" --close-while-running
	rc=$?
	[ $rc = 3 ] || break
done
[ $rc = 0 ] || fail "kvm-hello --close-while-running exited with $rc"
[ "$(dmesg | grep -c -E 'WARNING:|BUG:')" = "$warn0" ] ||
	fail "destroying the VM from KVM_RUN's own fput() splats: $(dmesg | grep -E 'WARNING:|BUG:' | tail -1)"
echo "PASS"
