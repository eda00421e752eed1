#!/bin/bash
# The kernel's own KVM selftests (tools/testing/selftests/kvm, built on the
# host by tests/run.sh into $KVM_SELFTESTS) that run in seconds under
# nested SVM on TCG: vCPU and memslot set-up, register and state save and
# restore, SMM, nested SVM, I/O and MSR exits to user space, the APIC, the
# clocks, Hyper-V emulation. With asi=on each guest runs in its VM's
# restricted space (ASI's KVM class), so every VM entry, exit and exit to
# user space here crosses ASI's KVM transitions, with guests and exits
# written by others. Every test must pass (0) in every boot; with asi=on
# VM exits must have come back in the VM's space and never elsewhere.
# Left out, with ASI off as well under TCG: tests whose guests take
# unexpected exceptions there (debug_regs, nested_exceptions_test,
# svm_nested_soft_inject_test, monitor_mwait_test), that need more memory
# than a 1 GiB guest (dirty_log_test, demand_paging_test and the other
# tests of large memslots) or minutes (set_memory_region_test, rseq_test,
# hardware_disable_test, memslot_perf_test, max_guest_memory_test); and
# tests that skip on the lean config (guest_memfd_test,
# access_tracking_perf_test). kvm_clock_test checks that the guest's clock
# reads between two host readings, which the emulated TSC missed once in a
# slow pageflag boot (passing in three other boots): too tight for TCG.
# And, to keep make test's boots short, four that pass but take 14-19 s
# each under TCG without crossing ASI in ways the others do not
# (kvm_create_max_vcpus, xapic_state_test, hyperv_features,
# recalc_apic_map_test). Not in the asi=bogus boot, which is asi=off again.
# Minutes under TCG, more on a slower host: its own budget in the runner.
# seconds: 600
set -u

tests=(
	guest_print_test kvm_binary_stats_test coalesced_io_test
	pre_fault_memory_test steal_time system_counter_offset_test
	x86_64/userspace_io_test x86_64/sync_regs_test x86_64/cpuid_test
	x86_64/set_sregs_test x86_64/state_test x86_64/smm_test
	x86_64/svm_vmcall_test x86_64/svm_int_ctl_test
	x86_64/svm_nested_shutdown_test x86_64/triple_fault_event_test
	x86_64/tsc_msrs_test x86_64/xapic_ipi_test x86_64/fix_hypercall_test
	x86_64/userspace_msr_exit_test x86_64/platform_info_test
	x86_64/exit_on_emulation_failure_test x86_64/hwcr_msr_test
	x86_64/hyperv_svm_test
)

# Tests that fail now and then under TCG whatever ASI does, and how: a test
# here whose output has that text (a timeout never does) is run once more;
# a second failure counts, and a pass on the second try is said.
# - xapic_ipi_test: a guest-side deadline in TSC ticks, about a second on
#   hardware, which a loaded host can miss nested under TCG (once, in a
#   pageflag boot, on 2026-12-06).
# - state_test: now and then its guest takes #UD on the first AVX
#   instruction after its XSETBV (2026-12-06: 4 runs of 250 with asi=off,
#   3 of 140 with asi=on, always there), as if TCG ran it with AVX off.
declare -A tcg_flaky=(
	[x86_64/xapic_ipi_test]="==== Test Assertion Failure"
	[x86_64/state_test]="Unhandled exception '0x6'"
)
# An assertion's lines that are not its backtrace; the guest's own message
# comes last.
assertion() {
	sed -n '/==== Test Assertion Failure/,$p' <<< "$1" | grep -E '^(====|  [^ 0-9])' | head -8
}

# What a test's tasks are doing when it has run for 25 s (these take a few
# seconds each): fix_hypercall_test once stalled to the harness's 30 s
# timeout in both its cases (2026-12-07, freelist boot; 1 s otherwise, and
# not reproduced in 8 targeted runs). Printed if the test then fails.
stall_counters() {	# vmstat's and KVM's (all VMs and vCPUs), as "name value"
	grep -E '^(asi_|pgfault |allocstall|compact_stall|pgscan_direct )' /proc/vmstat
	grep -H . /sys/kernel/debug/kvm/* 2>/dev/null | sed 's|^/sys/kernel/debug/kvm/||'
}
stall_report() {	# test name
	local comm=${1##*/} task a b
	comm=${comm:0:15}
	echo "still running after 25 s; its tasks (state, wchan, kernel stack):"
	for task in /proc/[0-9]*/task/[0-9]*; do
		[ "$(cat "$task/comm" 2>/dev/null)" = "$comm" ] || continue
		echo "  ${task#/proc/}: state $(cut -d' ' -f3 "$task/stat" 2>/dev/null)," \
			"wchan $(cat "$task/wchan" 2>/dev/null)"
		sed 's/^/    /' "$task/stack" 2>/dev/null
	done
	# Or is something else keeping the vCPUs busy? (cat goes on past the
	# tasks that end meanwhile; awk would stop at the first.)
	echo "  load $(cut -d' ' -f1-4 /proc/loadavg); running:" \
		"$(cat /proc/[0-9]*/task/[0-9]*/stat 2>/dev/null |
			awk '$3 == "R" { printf "%s%s", s, $2; s = " " }')"
	# Spinning (VM exits, emulation, ASI exits, faults) or asleep (reclaim,
	# compaction, flips): what moves in 3 s, and where the page faults of
	# those 3 s left restricted spaces (a running task's stack says little).
	{ echo 1 > /sys/kernel/debug/asi/fault_exits; } 2>/dev/null
	a=$(stall_counters)
	sleep 3
	b=$(stall_counters)
	echo "  counters that moved in 3 s:"
	paste -d' ' <(tr : ' ' <<< "$a") <(tr : ' ' <<< "$b") |
		awk '$4 != $2 { print "    " $1 " +" $4 - $2 }'
	sed -n '/^top sites:/,$p' /sys/kernel/debug/asi/fault_exits 2>/dev/null | head -6
}

# tests/run.sh builds what this runs.
if [ "${1:-}" = --binaries ]; then
	printf '%s\n' "${tests[@]}"
	exit 0
fi
[ "${ASI_EXPECT:-}" = invalid ] && { echo "the asi=off boot runs them"; exit 77; }

. "$(dirname "$0")/lib.sh"

: "${ASI_EXPECT:?set by tests/run.sh: on, off or invalid}"
need_kvm
dir=${KVM_SELFTESTS:-}
[ -n "$dir" ] || { echo "KVM_SELFTESTS not set (tests/run.sh builds the selftests and sets it)"; exit 77; }
[ -d "$dir" ] || fail "KVM_SELFTESTS=$dir is not a directory here"

if [ "$ASI_EXPECT" = on ] && [ "$(grep -c '^asi_vmexit_' /proc/vmstat)" != 2 ]; then
	fail "no asi_vmexit_* counters in /proc/vmstat"
fi
in0=$(vmstat asi_vmexit_vm_space) out0=$(vmstat asi_vmexit_elsewhere)
# 0 where ASI is compiled out.
in0=${in0:-0} out0=${out0:-0}
cd /tmp || exit 1
n=0 failed=0
for t in "${tests[@]}"; do
	n=$((n + 1))
	if [ ! -x "$dir/$t" ]; then
		echo "not ok $t (not built)"
		failed=$((failed + 1))
		continue
	fi
	# The watchdog's sleep is killed with it (the trap) when the test ends
	# first; a report once begun is finished.
	rm -f /tmp/kvm-stall
	(trap 'kill ${!:-} 2>/dev/null; exit' TERM; sleep 25 & wait $!
	 trap '' TERM; stall_report "$t") \
		> /tmp/kvm-stall 2>&1 < /dev/null &
	watchdog=$!
	out=$(timeout -k 5 120 "$dir/$t" 2>&1 < /dev/null)
	rc=$?
	kill $watchdog 2>/dev/null
	wait $watchdog 2>/dev/null
	if [ $rc != 0 ] && [ $rc != 124 ] && [ -n "${tcg_flaky[$t]:-}" ] &&
	   grep -qF "${tcg_flaky[$t]}" <<< "$out"; then
		echo "    first try: exit $rc"
		assertion "$out" | sed 's/^/    first try: /'
		rm -f /tmp/kvm-stall
		out=$(timeout -k 5 120 "$dir/$t" 2>&1 < /dev/null)
		rc=$?
		[ $rc = 0 ] && echo "    $t passed on its second try (flaky under TCG)"
	fi
	if [ $rc = 0 ]; then
		echo "ok $t"
	else
		# A harness test says why it failed on the lines before its "not ok".
		{ grep -q '==== Test Assertion Failure' <<< "$out" && assertion "$out" ||
			grep -B8 '^not ok' <<< "$out" || tail -3 <<< "$out"; } | sed 's/^/    /'
		sed 's/^/    /' /tmp/kvm-stall
		echo "not ok $t (exit $rc)"
		failed=$((failed + 1))
	fi
done
echo "$n KVM selftests: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ] || fail "KVM selftests failed"

in=$(( $(vmstat asi_vmexit_vm_space) + 0 - in0 ))
out=$(( $(vmstat asi_vmexit_elsewhere) + 0 - out0 ))
echo "VM exits: $in back in the VM's space, $out elsewhere"
if [ "$ASI_EXPECT" != on ]; then
	[ "$in" = 0 ] && [ "$out" = 0 ] || fail "VM exits counted with ASI off"
elif kasan; then
	# KASAN's shadow is not in restricted spaces: KVM's instrumented code
	# exits before entries (see test-kvm.sh).
	echo "PASS (KASAN: where VM exits land is not checked)"
	exit 0
else
	[ "$in" -gt 0 ] || fail "no VM exit came back in a VM's restricted space"
	[ "$out" = 0 ] || fail "$out VM exits came back outside the VM's space"
fi
echo "PASS"
