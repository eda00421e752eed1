#!/bin/bash
# The kernel reports the ASI state it was booted with: one boot line saying
# whether ASI is on and why, /sys/kernel/mm/asi/enabled, and the cpu flag.
set -u
fail() { echo "FAIL: $*"; exit 1; }

line=$(dmesg | grep -E 'ASI: (enabled|disabled)')
[ "$(echo "$line" | grep -c .)" = 1 ] || fail "expected exactly one ASI boot line, got: '$line'"
echo "boot line: $line"
enabled=$(cat /sys/kernel/mm/asi/enabled) || fail "/sys/kernel/mm/asi/enabled missing"
grep -qw asi /proc/cpuinfo && flag=1 || flag=0

case $ASI_EXPECT in
on)
	[[ $line == *"enabled (asi=on)"* ]] || fail "boot line does not say enabled (asi=on)"
	want=1 ;;
off)
	[[ $line == *"disabled (asi=off)"* ]] || fail "boot line does not say disabled (asi=off)"
	want=0 ;;
invalid)
	[[ $line == *'unknown value "bogus"'* ]] || fail "boot line does not name the bad value"
	want=0 ;;
*) fail "ASI_EXPECT=$ASI_EXPECT" ;;
esac
[ "$enabled" = $want ] || fail "/sys/kernel/mm/asi/enabled is $enabled, want $want"
[ "$flag" = $want ] || fail "the asi cpu flag is $flag, want $want"
cat /sys/kernel/mm/asi/classes
echo "PASS: ASI $ASI_EXPECT reported consistently"
