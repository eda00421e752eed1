#!/bin/bash
# purpose: anonymous memory held near the guest's limit, with kernel allocations on top
. "$(dirname "$0")/lib.sh"
secs=${1:-60}
ng --vm 2 --vm-bytes 90% --vm-keep --bigheap 1 --brk 1 --pipe 1 --timeout "${secs}s"
