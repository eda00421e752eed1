#!/bin/bash
# Runs the CPU in restricted address spaces: the asi_transition KUnit suite.
# It needs the kernel image mapped in the restricted spaces, which happens
# after the boot-time KUnit run, so it runs here through KUnit's debugfs
# files. Every case must pass; only the mm-switch and lazy-TLB cases may
# skip, and only under KASAN (their instrumented paths exit on KASAN's
# shadow first).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$ASI_EXPECT" = on ] || exit 77

d=/sys/kernel/debug/kunit/asi_transition
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	fail "cannot mount debugfs"
[ -w "$d/run" ] || fail "$d/run missing: needs CONFIG_KUNIT_DEBUGFS and CONFIG_ASI_KUNIT_TEST"
before=$(grep -E '^asi_(enter|exit_[a-z_]+) ' /proc/vmstat)
echo 1 > "$d/run" || fail "writing $d/run failed"
results=$(cat "$d/results") || fail "cannot read $d/results"
echo "$results"
echo "vmstat before the run:" $before
echo "vmstat after the run: " $(grep -E '^asi_(enter|exit_[a-z_]+) ' /proc/vmstat)

! grep -qE '^[[:space:]]*not ok ' <<< "$results" || fail "a case failed (see above)"
kasan=
dmesg | grep -q 'KernelAddressSanitizer initialized' && kasan=1
for c in asi_runs_restricted asi_sensitive_read_exits asi_genuine_fault_handled \
	asi_mm_switch_exits asi_lazy_tlb_exits; do
	line=$(grep -E "^[[:space:]]*ok [0-9]+ $c( |$)" <<< "$results") ||
		fail "no result for $c"
	case $c:$line in
	asi_mm_switch_exits:*"# SKIP"*KASAN* | asi_lazy_tlb_exits:*"# SKIP"*KASAN*)
		[ -n "$kasan" ] || fail "$c skipped for KASAN without KASAN: $line" ;;
	*"# SKIP"*) fail "$c skipped: $line" ;;
	esac
done
echo "PASS"
