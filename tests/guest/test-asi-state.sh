#!/bin/bash
# The kernel reports the ASI state it was booted with: one boot line saying
# whether ASI is on and why, /sys/kernel/mm/asi/enabled, and the cpu flag;
# with ASI on, one line and alloc_mode naming the page allocator's mode
# (ASI_ALLOC), one line saying which ioremap() areas are mapped, and bad
# asi_alloc= and asi_ioremap= values are named in warnings; asi=on
# turns PTI off, in one line, and the ASI line says whether spaces get
# PCIDs of their own.
set -u
. "$(dirname "$0")/lib.sh"

line=$(dmesg | grep -E 'ASI: (enabled|disabled)')
[ "$(echo "$line" | grep -c .)" = 1 ] || fail "expected exactly one ASI boot line, got: '$line'"
echo "boot line: $line"
enabled=$(cat /sys/kernel/mm/asi/enabled) || fail "/sys/kernel/mm/asi/enabled missing"
grep -qw asi /proc/cpuinfo && flag=1 || flag=0

case $ASI_EXPECT in
on)
	[[ $line == *"enabled (asi=on)"* ]] || fail "boot line does not say enabled (asi=on)"
	# It says how the TLB keeps spaces apart, which depends on PCID.
	if grep -qw pcid /proc/cpuinfo; then
		[[ $line == *"a PCID per space"* ]] || fail "a CPU with PCID, but the boot line does not say ASI uses it"
	else
		[[ $line == *"no PCID"* ]] || fail "a CPU without PCID, but the boot line does not say so"
	fi
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

mode=$(cat /sys/kernel/mm/asi/alloc_mode) || fail "/sys/kernel/mm/asi/alloc_mode missing"
alloc_line=$(dmesg | grep -E 'ASI: page allocator:')
if [ $want = 1 ]; then
	[ "$mode" = "${ASI_ALLOC:-freelist}" ] || fail "alloc_mode is $mode, want ${ASI_ALLOC:-freelist}"
	[ "$(echo "$alloc_line" | grep -c .)" = 1 ] || fail "expected one page allocator line, got '$alloc_line'"
	[[ $alloc_line == *"asi_alloc=$mode"* ]] || fail "page allocator line does not name asi_alloc=$mode"
	echo "allocator: $alloc_line"
else
	[ "$mode" = off ] || fail "alloc_mode is $mode with ASI off"
	[ -z "$alloc_line" ] || fail "page allocator line with ASI off: $alloc_line"
fi
if [ "$mode" = freelist ]; then
	# flip_batch takes 1 to 64 and keeps its value on bad input.
	knob=/sys/kernel/mm/asi/flip_batch
	old=$(cat $knob)
	for bad in 0 65 abc -1; do
		echo "$bad" > $knob 2>/dev/null && fail "flip_batch accepted '$bad'"
	done
	[ "$(cat $knob)" = "$old" ] || fail "flip_batch changed on bad input"
	echo 3 > $knob && [ "$(cat $knob)" = 3 ] || fail "flip_batch refused 3"
	echo "$old" > $knob
	# flip_hold_ms takes 0 to 10000, 100 by default.
	knob=/sys/kernel/mm/asi/flip_hold_ms
	old=$(cat $knob)
	[ "$old" = 100 ] || fail "flip_hold_ms is '$old', want 100 by default"
	for bad in 10001 abc -1 ''; do
		echo "$bad" > $knob 2>/dev/null && fail "flip_hold_ms accepted '$bad'"
	done
	[ "$(cat $knob)" = "$old" ] || fail "flip_hold_ms changed on bad input"
	echo 0 > $knob && [ "$(cat $knob)" = 0 ] || fail "flip_hold_ms refused 0"
	echo "$old" > $knob
fi
# asi=on turns PTI off, saying so in one line, whatever pti= says; without
# it PTI does what it always did (the asi=off boot asks for pti=on).
pti_line=$(dmesg | grep -E 'page tables isolation: disabled: asi=on')
grep -qw pti /proc/cpuinfo && pti=1 || pti=0
if [ $want = 1 ]; then
	[ "$(echo "$pti_line" | grep -c .)" = 1 ] || fail "expected one line saying asi=on turned PTI off, got '$pti_line'"
	[ $pti = 0 ] || fail "the pti cpu flag is set with ASI on"
	echo "pti: $pti_line"
else
	[ -z "$pti_line" ] || fail "PTI turned off for asi=on with ASI off: $pti_line"
	if grep -qw 'pti=on' /proc/cmdline; then
		[ $pti = 1 ] || fail "pti=on without ASI, but the pti cpu flag is clear"
	fi
fi
if grep -qw 'asi_alloc=bogus' /proc/cmdline; then
	dmesg | grep -q 'unknown value "bogus" for asi_alloc=' || fail "no warning naming the bad asi_alloc= value"
fi
# Which ioremap() areas restricted spaces map: uncached ones on bare metal or
# with asi_ioremap=uncached, none by default under a hypervisor (the guest's
# memory types may not hold), in one line.
io_line=$(dmesg | grep -E 'ASI: (uncached )?ioremap\(\) areas')
io_param=$(grep -oE '(^| )asi_ioremap=[^ ]*' /proc/cmdline | tail -1 | cut -d= -f2)
if [ $want = 1 ]; then
	[ "$(echo "$io_line" | grep -c .)" = 1 ] || fail "expected one ioremap() line, got '$io_line'"
	case $io_param in
	uncached) io_want="uncached ioremap() areas are mapped" ;;
	none) io_want="are not mapped in restricted address spaces" ;;
	*)	if grep -qw hypervisor /proc/cpuinfo; then
			io_want="are not mapped*asi_ioremap=uncached"
		else
			io_want="uncached ioremap() areas are mapped"
		fi ;;
	esac
	# shellcheck disable=SC2053 # io_want is a pattern
	[[ $io_line == *$io_want* ]] || fail "ioremap() line '$io_line', want '$io_want'"
	echo "ioremap: $io_line"
else
	[ -z "$io_line" ] || fail "ioremap() line with ASI off: $io_line"
fi
if grep -qw 'asi_ioremap=bogus' /proc/cmdline; then
	dmesg | grep -q 'unknown value "bogus" for asi_ioremap=' || fail "no warning naming the bad asi_ioremap= value"
fi
cat /sys/kernel/mm/asi/classes
echo "PASS: ASI $ASI_EXPECT reported consistently"
