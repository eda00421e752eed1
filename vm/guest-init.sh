#!/bin/bash
# PID 1 of the guest (see vm/run.sh). The root is the host's, read-only:
# give the guest its own writable /tmp, /run, /dev and the kernel's pseudo
# filesystems, run the command, store its status, then reboot (which ends
# QEMU, started with -no-reboot).
#
# The tmpfs mounts hide whatever the host has under /tmp, /run, /var/tmp and
# /dev/shm, a checkout included, so vm/run.sh also shares the checkout and
# the build directory by themselves; they are mounted back at their host
# paths, and the guest sees every project path where the host does.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8
OUT=/run/asi-out
P9="trans=virtio,version=9p2000.L,msize=524288"

fail() {
	echo "guest-init: $*" >&2
	echo b > /proc/sysrq-trigger
	sleep 10
}

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
for d in /tmp /run /var/tmp; do mount -t tmpfs tmpfs "$d"; done
mkdir -p "$OUT"
mount -t 9p -o "$P9" asiout "$OUT" || fail "cannot mount the output share"
# "tag host-path" per line: the project's directories, read-only.
while read -r tag path; do
	mkdir -p "$path" && mount -t 9p -o "$P9,ro,cache=loose" "$tag" "$path" ||
		fail "cannot mount share $tag at $path"
done < "$OUT/shares"
ln -s /proc/self/fd /dev/fd 2>/dev/null
hostname asi-guest
export ASI_OUT=$OUT VMLINUX=$(cat "$OUT/vmlinux")

cd "$(cat "$OUT/cwd")" || cd /
if [ -s "$OUT/cmd" ]; then
	bash -c "$(cat "$OUT/cmd")"
	rc=$?
else
	echo "guest: interactive shell; 'exit' powers the guest off"
	setsid -c bash -i
	rc=$?
fi
echo "$rc" > "$OUT/status"
sync
echo b > /proc/sysrq-trigger
sleep 10
