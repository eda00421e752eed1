#!/bin/bash
# Hibernation is unavailable with asi_alloc=freelist: "disk" is not in
# /sys/power/state, /sys/power/disk reads [disabled], and asking for it or
# opening /dev/snapshot fails with EPERM at once, before any image is made
# (tests/host/test-hibernation.sh shows what an image would leave behind).
# With asi_alloc=pageflag and with ASI off it is offered as usual; it is not
# attempted there (the freeze resets the virtio 9p devices this guest's
# files come from).
set -u
. "$(dirname "$0")/lib.sh"
[ -e /sys/power/disk ] || { echo "the kernel has no hibernation (CONFIG_HIBERNATION)"; exit 77; }
states=$(cat /sys/power/state) || fail "cannot read /sys/power/state"
echo "/sys/power/state: $states; /sys/power/disk: $(cat /sys/power/disk)"
mode=off
[ "$ASI_EXPECT" = on ] && { mode=$(cat /sys/kernel/mm/asi/alloc_mode) || fail "no alloc_mode"; }
case $mode in
off|pageflag)
	grep -qw disk <<< "$states" || fail "hibernation is not offered (asi_alloc: $mode)"
	echo "PASS: hibernation offered (asi_alloc: $mode)" ;;
freelist)
	! grep -qw disk <<< "$states" || fail "/sys/power/state offers disk with asi_alloc=freelist"
	out=$( { echo disk > /sys/power/state; } 2>&1 ) && fail "echo disk > /sys/power/state succeeded"
	echo "echo disk > /sys/power/state: $out"
	[[ $out == *"Operation not permitted"* ]] || fail "hibernation was not refused with EPERM"
	grep -qx '\[disabled\]' /sys/power/disk || fail "/sys/power/disk does not read [disabled]"
	# uswsusp makes and restores images through /dev/snapshot.
	if [ -c /dev/snapshot ]; then
		out=$( { exec 3< /dev/snapshot; } 2>&1 ) && fail "/dev/snapshot opened"
		echo "open /dev/snapshot: $out"
		[[ $out == *"Operation not permitted"* ]] || fail "/dev/snapshot was not refused with EPERM"
	fi
	echo "PASS: hibernation unavailable with asi_alloc=freelist" ;;
*) fail "alloc_mode is '$mode' with asi=on" ;;
esac
