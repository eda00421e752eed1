#!/bin/bash
# purpose: kernel-heavy then user-heavy phases: memory changes sensitivity both ways each round
# Each round fills FILL_PCT% (default 45) of the guest with nonsensitive
# kernel memory (page tables, socket buffers, inodes and dentries), frees it,
# then faults in 75% of the guest's memory as user memory, past the free
# sensitive pool (asi_alloc=freelist flips blocks back or lends stranded
# pages), every page of it however long that takes: a stressor stopped on
# time faults in less the slower the machine. Rounds are sized by memory,
# not by SECONDS.
. "$(dirname "$0")/lib.sh"
rounds=${ROUNDS:-3}
for r in $(seq "$rounds"); do
	echo "round $r: kernel phase"
	kfill_start "$(pct_mib "${FILL_PCT:-45}")" || exit 1
	kfill_stop
	drop_caches
	echo "round $r: user phase ($(pct_mib 75) MiB)"
	python3 "$here/grab.py" 4 "$(pct_mib 75)" > /dev/null || exit 1
done
