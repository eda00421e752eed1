#!/bin/bash
# purpose: page cache growth (ext4 on a scratch disk) against kernel-heavy churn
# Needs the scratch disk `make stress` attaches (/dev/vda).
. "$(dirname "$0")/lib.sh"
secs=${1:-60}
dev=/dev/vda
[ -b $dev ] || { echo "SKIP: no scratch disk $dev (make stress attaches one)"; exit 77; }
mnt=/tmp/scratch
mkdir -p $mnt
mkfs.ext4 -q -F $dev || exit 1
mount $dev $mnt || exit 1
trap 'umount $mnt' EXIT
ng --hdd 2 --hdd-bytes "$(pct_mib 40)m" --hdd-write-size 64k --temp-path $mnt \
	--dentry 2 --sock 1 --sock-port 23000 --timeout "${secs}s"
