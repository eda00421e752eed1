#!/bin/bash
# Runs the CPU in restricted address spaces: the asi_transition KUnit suite.
# It needs the kernel image mapped in the restricted spaces, which happens
# after the boot-time KUnit run, so it runs here through KUnit's debugfs
# files. Every case must pass; only the mm-switch, lazy-TLB, irq, both CR3,
# local-map, local-copy, kept-space and probe cases may skip, and only under
# KASAN (their instrumented paths exit on KASAN's shadow first), and the NMI
# and kept-space cases on a single CPU. The probe case's counts of bytes read
# are shown. Then debug/asi_transitions.py must find no CPU left in a test's
# space and the counters /proc/vmstat shows; a process sleeping 400 times on
# one CPU must cause far fewer switch exits, and survive that CPU going
# offline and back; and while a process spins in user mode, drgn must see a
# CPU in that process's userspace-class space. With ASI off the script must
# say so.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
. "$(dirname "$0")/lib.sh"
transitions_cmd=(/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/asi_transitions.py")
transitions() { "${transitions_cmd[@]}"; }

if [ "$ASI_EXPECT" != on ]; then
	out=$(transitions 2>&1); rc=$?
	echo "$out"
	[ $rc = 2 ] && [[ $out == *"ASI is off"* ]] || fail "with ASI off the script should exit 2 saying so (rc=$rc)"
	exit 0
fi

d=/sys/kernel/debug/kunit/asi_transition
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	fail "cannot mount debugfs"
[ -w "$d/run" ] || fail "$d/run missing: needs CONFIG_KUNIT_DEBUGFS and CONFIG_ASI_KUNIT_TEST"
before=$(grep -E '^asi_(enter|restore|exit_[a-z0-9_]+) ' /proc/vmstat)
echo 1 > "$d/run" || fail "writing $d/run failed"
results=$(cat "$d/results") || fail "cannot read $d/results"
echo "$results"
dmesg | grep -E 'space: [0-9]+ of [0-9]+ bytes of another process|flush_taints: CPU:' | tail -3
echo "vmstat before the run:" $before
echo "vmstat after the run: " $(grep -E '^asi_(enter|restore|exit_[a-z0-9_]+) ' /proc/vmstat)

! grep -qE '^[[:space:]]*not ok ' <<< "$results" || fail "a case failed (see above)"
kasan=
kasan && kasan=1
for c in asi_runs_restricted asi_sensitive_read_exits asi_genuine_fault_handled \
	asi_mm_switch_exits asi_lazy_tlb_exits asi_irq_restores asi_nmi_restores \
	asi_cr3_users_stay_restricted asi_cr3_fast_is_stable asi_guest_exit_agrees \
	asi_guest_entry_reloads \
	asi_userspace_shares_user_half asi_local_map_stays asi_local_copy_helpers \
	asi_switch_keeps_process_space \
	asi_probe_reads_nonsensitive_only \
	asi_transitions_flush_taints asi_pcid_bookkeeping; do
	line=$(grep -E "^[[:space:]]*ok [0-9]+ $c( |$)" <<< "$results") ||
		fail "no result for $c"
	case $c:$line in
	asi_mm_switch_exits:*"# SKIP"*KASAN* | asi_lazy_tlb_exits:*"# SKIP"*KASAN* | \
	asi_irq_restores:*"# SKIP"*KASAN* | asi_cr3_users_stay_restricted:*"# SKIP"*KASAN* | \
	asi_cr3_fast_is_stable:*"# SKIP"*KASAN* | asi_local_map_stays:*"# SKIP"*KASAN* | \
	asi_local_copy_helpers:*"# SKIP"*KASAN* | \
	asi_switch_keeps_process_space:*"# SKIP"*KASAN* | \
	asi_probe_reads_nonsensitive_only:*"# SKIP"*KASAN*)
		[ -n "$kasan" ] || fail "$c skipped for KASAN without KASAN: $line" ;;
	asi_nmi_restores:*"# SKIP"*"second CPU"* | \
	asi_switch_keeps_process_space:*"# SKIP"*"second CPU"*)
		[ "$(nproc)" = 1 ] || fail "$c skipped with $(nproc) CPUs: $line" ;;
	*"# SKIP"*) fail "$c skipped: $line" ;;
	esac
done

declare -A low
for c in asi_enter asi_restore asi_exit_page_fault asi_exit_end asi_flush_rsb; do
	low[$c]=$(vmstat $c)
done
out=$(transitions 2>&1) || fail "asi_transitions.py failed: $out"
echo "$out"
[ "$(grep -cE '^[0-9]+ +(unrestricted|userspace of mm 0x[0-9a-f]+) ' <<< "$out")" = "$(nproc)" ] ||
	fail "a CPU is in another space than its process's, or unlisted"
for c in "${!low[@]}"; do
	got=$(awk -v c="$c" '$1 == c { print $2 }' <<< "$out") high=$(vmstat $c)
	[ -n "$got" ] && [ "$got" -ge "${low[$c]}" ] && [ "$got" -le "$high" ] ||
		fail "asi_transitions.py shows $c=${got:-nothing}, /proc/vmstat ${low[$c]}..$high"
done
[ "$(vmstat asi_restore)" -gt 0 ] || fail "no restore counted after the interrupt cases"
# Every exit after user mode ran flushes its predictor training.
[ "$(vmstat asi_flush_rsb)" -gt 0 ] || fail "no RSB fill counted"

# A process that sleeps while its CPU idles leaves the CPU in its space: the
# switches to the idle task and back cost no exit. Far fewer switch exits
# than sleeps, whatever else the guest does meanwhile.
n=400
s0=$(vmstat asi_exit_switch)
taskset -c "$(( $(nproc) - 1 ))" /usr/bin/python3 -c "import time
for _ in range($n): time.sleep(0.002)" || fail "the sleeping process failed"
sw=$(( $(vmstat asi_exit_switch) - s0 ))
echo "$n sleeps of a process: $sw switch exits"
[ "$sw" -lt $((n / 4)) ] || fail "$sw switch exits for $n sleeps: a sleep left the process's space"

# CPU hotplug: the CPU such a process sleeps on goes offline and comes back,
# three times (cpu_disable_common() leaves a space the stopper kept). The
# process goes on elsewhere; the console must stay free of splats.
last=$(( $(nproc) - 1 ))
online=/sys/devices/system/cpu/cpu$last/online
if [ "$last" -ge 1 ] && [ -w "$online" ]; then
	taskset -c "$last" /usr/bin/python3 -c "import time
for _ in range(300): time.sleep(0.002)" &
	sleeper=$!
	for _ in 1 2 3; do
		sleep 0.3
		echo 0 > "$online" || fail "cannot take CPU $last offline"
		echo 1 > "$online" || fail "cannot bring CPU $last back online"
	done
	wait $sleeper || fail "the sleeping process failed across CPU hotplug"
	echo "CPU $last offline and back three times under a sleeping process"
fi

# The userspace class: user mode runs in the process's own space. The
# spinner has the last CPU, drgn the others; a tick can catch the spinner in
# the kernel, so a few tries.
if [ "$last" -lt 1 ]; then
	echo "one CPU: the spinning-process check needs two"
	echo "PASS"
	exit 0
fi
taskset -c "$last" sh -c 'while :; do :; done' &
spin=$!
trap 'kill $spin 2>/dev/null' EXIT
sleep 1
for try in 1 2 3 4 5; do
	out=$(taskset -c 0-$((last - 1)) "${transitions_cmd[@]}" 2>&1); rc=$?
	[ $rc = 0 ] || { echo "$out"; fail "asi_transitions.py failed with a process spinning (rc=$rc)"; }
	grep -qE "^ +$spin +sh +userspace of mm 0x[0-9a-f]+ +critical" <<< "$out" &&
		grep -qE "^$last +userspace of mm 0x[0-9a-f]+ +$spin " <<< "$out" && break
	[ $try = 5 ] && { echo "$out"; fail "CPU $last never seen running the spinning process $spin in its space"; }
done
echo "$out"
echo "PASS (try $try)"
