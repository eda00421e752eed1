#!/bin/bash
# purpose: right after a kernel-heavy phase is freed, take user memory until the first OOM kill: memory obtained
# The result line gains obtained_mib: what grab.py held when it was killed.
# Memory the kernel just freed is nonsensitive (asi_alloc=freelist must flip
# it back) or still queued for unmapping (asi_alloc=pageflag).
. "$(dirname "$0")/lib.sh"
secs=${1:-60}
kfill_start "$(pct_mib "${FILL_PCT:-50}")" || exit 1
kfill_stop
log=$(mktemp)
# At least two minutes: the point is to run out of memory, not of time.
timeout $(( secs > 120 ? secs : 120 )) python3 "$here/grab.py" 4 > "$log"
rc=$?
obtained=$(tail -n 1 "$log")
rm -f "$log"
echo "grab.py: ${obtained:-0} MiB obtained, exit status $rc"
# report.py counts obtained_mib only from runs the OOM killer ended (137).
echo "RESULT+ obtained_mib=${obtained:-0} grab_rc=$rc"
[ "$rc" = 137 ] || [ "$rc" = 124 ]
