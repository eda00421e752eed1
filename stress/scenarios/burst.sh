#!/bin/bash
# purpose: a burst of frees then a burst of allocations (a deferred-free queue starves the allocator)
# Kernel memory is freed all at once and user memory allocated right after:
# asi_alloc=pageflag frees nonsensitive pages from a workqueue, so they may
# not be free yet when the allocations come.
. "$(dirname "$0")/lib.sh"
secs=${1:-60}
rounds=${ROUNDS:-3}
per=$(( secs / rounds > 4 ? secs / rounds - 2 : 2 ))
for r in $(seq "$rounds"); do
	kfill_start "$(pct_mib "${FILL_PCT:-55}")" || exit 1
	echo "round $r: free it all, then allocate at once (${per}s)"
	kfill_stop
	ng --vm 2 --vm-bytes 80% --vm-keep --vm-populate --timeout "${per}s" || exit 1
done
