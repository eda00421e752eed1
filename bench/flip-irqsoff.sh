#!/bin/bash
# Guest side: how long pageblock flips to nonsensitive run, and how long with
# interrupts off (asi_alloc=freelist). Traces asi:asi_flip while phases of
# user memory (flips to sensitive) and kernel memory (dentries, pipes, page
# tables: flips to nonsensitive) alternate, then prints "key value" lines:
#   flips_nonsensitive N, max_ns N, flips_irqs_off N, max_irqs_off_ns N
# Usage: flip-irqsoff.sh [ROUNDS] [SECONDS per phase]
set -u
rounds=${1:-3} secs=${2:-5}
for v in "$rounds" "$secs"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [ROUNDS] [SECONDS]" >&2; exit 2; }
done
[ "$(cat /sys/kernel/mm/asi/alloc_mode 2>/dev/null)" = freelist ] ||
	{ echo "flip-irqsoff: needs asi=on asi_alloc=freelist" >&2; exit 2; }
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs nodev $tr || exit 1
echo 8192 > $tr/buffer_size_kb
: > $tr/trace
echo 1 > $tr/events/asi/asi_flip/enable
for _ in $(seq "$rounds"); do
	stress-ng --temp-path /tmp --timeout "${secs}s" --oomable --quiet \
		--vm 1 --vm-bytes 70% --vm-keep >/dev/null 2>&1
	stress-ng --temp-path /tmp --timeout "${secs}s" --oomable --quiet \
		--dentry 2 --pipe 1 --mmap 1 --mmap-bytes 1% >/dev/null 2>&1
done
echo 0 > $tr/events/asi/asi_flip/enable
awk '/asi_flip: .*to=nonsensitive/ {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		n++; if (f["ns"] > max) max = f["ns"]
		if (f["irqs_off"] == 1) { off++; if (f["ns"] > maxoff) maxoff = f["ns"] }
	}
	END { printf "flips_nonsensitive %d\nmax_ns %d\nflips_irqs_off %d\nmax_irqs_off_ns %d\n",
		n, max, off, maxoff }' $tr/trace
