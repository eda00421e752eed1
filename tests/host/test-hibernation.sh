#!/bin/bash
# Hibernation with asi_alloc=freelist, seen from the host. A hibernation
# image is a copy of all memory in nonsensitive pages, freed unzeroed, and
# freelist keeps free nonsensitive pages mapped in the restricted spaces:
# there hibernation must be unavailable. The guest (512 MiB, no swap) holds
# a marker in a process's environment and asks for hibernation; a
# hibernation that started would make its image, fail to write it and free
# it. It cannot be checked from inside: the freeze resets the virtio 9p
# devices the guest's files come from, so the guest hangs after it. QEMU
# dumps the guest's memory instead and debug/asi_find.py searches the dump
# for the marker in every page the restricted spaces map; it must find a
# control there, the name of the guest's shell. The guest prints the
# marker reversed: what goes to the console stays in tty buffers, which
# are nonsensitive. The dump is deleted afterwards; the logs stay in DIR.
#
#   tests/host/test-hibernation.sh [BZIMAGE [DIR]]  (default: build/out-asi, build/test/hibernation)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
kernel=${1:-$top/build/out-asi/arch/x86/boot/bzImage}
dir=${2:-$top/build/test/hibernation}
vmlinux=${kernel%/arch/x86/boot/bzImage}/vmlinux
[ -f "$kernel" ] && [ -f "$vmlinux" ] || fail "no kernel and vmlinux at $kernel"
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || fail "cannot create $dir"
[[ $dir != *[[:space:]]* ]] || fail "'$dir' has white space, which QEMU's dump command cannot take"
rm -rf "$dir/run" "$dir/vmcore"
console=$dir/run/console.log
relay=$dir/run/monitor
# A request to QEMU through the guest's monitor relay (vm/run.sh --monitor
# takes requests from the host too); waits up to $2 seconds for the reply.
monitor() {
	local i
	rm -f "$relay/host.rsp"
	echo "$1" > "$relay/host.tmp" && mv "$relay/host.tmp" "$relay/host.req" || return 1
	for ((i = 0; i < $2 * 5; i++)); do
		[ -f "$relay/host.rsp" ] && return 0
		sleep 0.2
	done
	return 1
}
# Killing vm/run.sh would leave QEMU running (timeout(1) has its own
# process group): ask QEMU to quit, then wait for run.sh.
vm=
stop_vm() {
	[ -n "$vm" ] && kill -0 "$vm" 2>/dev/null || return 0
	monitor quit 2
	for ((i = 0; i < 100; i++)); do kill -0 "$vm" 2>/dev/null || break; sleep 0.1; done
	kill "$vm" 2>/dev/null
	wait "$vm" 2>/dev/null
}
trap 'stop_vm; rm -f "$dir/vmcore" "$dir/vmcore.tmp"' EXIT

# shellcheck disable=SC2016 # the guest expands it
guest='m=asi-hibernation-$(od -An -N12 -tx1 /dev/urandom | tr -d " \n")
env ASI_TEST_MARKER="$m" sleep 3600 &
c=asi$(od -An -N6 -tx1 /dev/urandom | tr -d " \n")
echo -n "$c" > /proc/$$/comm
read -r paddr _ < /sys/kernel/vmcoreinfo || paddr=
echo "hibernation-test: offers disk $(grep -cw disk /sys/power/state) vmcoreinfo $paddr reversed $(echo "$m" | rev) control $(echo "$c" | rev)"
err=$( { echo disk > /sys/power/state; } 2>&1 )
echo "hibernation-test: echo disk exited $?: ${err##*: }"
sleep 3600; : the shell stays, named $c'
"$top/vm/run.sh" --kernel "$kernel" --out "$dir/run" --mem 512M --monitor \
	--qemu "-device vmcoreinfo" --timeout 600 \
	--append "asi=on asi_alloc=freelist kunit.enable=0" -- bash -c "$guest" \
	> "$dir/vm.log" 2>&1 &
vm=$!

# Wait for the request's end: refused, or a hibernation that came back.
for ((i = 0; ; i++)); do
	grep -qE "^hibernation-test: echo disk exited|PM: hibernation: hibernation exit" \
		"$console" 2>/dev/null && break
	kill -0 $vm 2>/dev/null || { tail -5 "$dir/vm.log"; fail "the guest ended early (console: $console)"; }
	[ $i -lt 1500 ] || fail "no end of the hibernation request after 300 s (console: $console)"
	sleep 0.2
done
line=$(grep -a "^hibernation-test: offers" "$console") || fail "the guest did not start (console: $console)"
echo "$line"
grep -aE "^hibernation-test: echo disk|PM: hibernation: (hibernation entry|Image created|hibernation exit)" "$console"
[[ $line =~ reversed\ ([-0-9a-z]+) ]] || fail "no marker in: $line"
marker=$(echo "${BASH_REMATCH[1]}" | rev)
[[ $line =~ control\ ([0-9a-z]+) ]] || fail "no control in: $line"
control=$(echo "${BASH_REMATCH[1]}" | rev)
[[ $line =~ vmcoreinfo\ ([0-9a-fx]+) ]] && paddr=${BASH_REMATCH[1]} || paddr=
sleep 2	# the freed image pages reach the free lists

monitor "dump-guest-memory $dir/vmcore" 300 || fail "no reply to dump-guest-memory in 300 s"
reply=$(cat "$relay/host.rsp")
! grep -qiE '^(error|unknown command)' <<< "$reply" || fail "dump-guest-memory: $reply"
[ -s "$dir/vmcore" ] || fail "QEMU wrote no dump (monitor: $dir/run/monitor-relay.log)"
stop_vm
python3 "$top/vm/fix-vmcore.py" "$dir/vmcore" ${paddr:+--paddr "$paddr"} ||
	fail "cannot prepare the dump for drgn"
out=$(/usr/bin/python3 /usr/bin/drgn -q -c "$dir/vmcore" -s "$vmlinux" \
	"$top/debug/asi_find.py" "$control" "$marker" 2>&1)
echo "${out//$marker/MARKER}"
[[ $out =~ $control:\ [1-9][0-9]*\ hits ]] ||
	fail "asi_find.py does not find the control (the guest shell's name, a slab object) in the dump"
[[ ${out//$marker/MARKER} == *"MARKER: 0 hits"* ]] || {
	[[ ${out//$marker/MARKER} =~ MARKER:\ [1-9] ]] || fail "asi_find.py could not search the dump"
	fail "a process's marker is in pages the restricted spaces map after the hibernation request"
}
[[ $line == *"offers disk 0 "* ]] || fail "/sys/power/state offers disk with asi_alloc=freelist"
grep -aq "^hibernation-test: echo disk exited 1: Operation not permitted" "$console" ||
	fail "the hibernation request was not refused with EPERM"
echo PASS
