#!/bin/bash
# purpose: kernel-heavy then user-heavy phases: memory changes sensitivity both ways each round
# Each round fills FILL_PCT% (default 45) of the guest with nonsensitive
# kernel memory (page tables, socket buffers, inodes and dentries), frees it,
# then faults in user memory past the free sensitive pool (asi_alloc=freelist
# flips blocks back).
. "$(dirname "$0")/lib.sh"
secs=${1:-60}
rounds=${ROUNDS:-3}
per=$(( secs / rounds > 4 ? secs / rounds - 2 : 2 ))
for r in $(seq "$rounds"); do
	echo "round $r: kernel phase"
	kfill_start "$(pct_mib "${FILL_PCT:-45}")" || exit 1
	kfill_stop
	drop_caches
	echo "round $r: user phase (${per}s)"
	ng --vm 2 --vm-bytes 75% --vm-keep --timeout "${per}s" || exit 1
done
