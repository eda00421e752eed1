#!/bin/bash
# PID 1 of the guest (see vm/run.sh). The root is the host's, read-only:
# give the guest its own writable /tmp, /run, /dev and the kernel's pseudo
# filesystems, run the command, store its status, then reboot (which ends
# QEMU, started with -no-reboot).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=${TERM:-linux} LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs shm /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
for d in /tmp /run /var/tmp; do mount -t tmpfs tmpfs "$d"; done
mkdir /tmp/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 asiout /tmp/out || {
	echo "guest-init: cannot mount the output share" >&2
	echo b > /proc/sysrq-trigger
}
ln -s /proc/self/fd /dev/fd 2>/dev/null
hostname asi-guest

cd "$(cat /tmp/out/cwd)" || cd /
if [ -s /tmp/out/cmd ]; then
	bash -c "$(cat /tmp/out/cmd)"
	rc=$?
else
	echo "guest: interactive shell; 'exit' powers the guest off"
	setsid -c bash -i
	rc=$?
fi
echo "$rc" > /tmp/out/status
sync
echo b > /proc/sysrq-trigger
sleep 10
