#!/bin/bash
# Memory pressure inside the guest: stress-ng's memory stressors for a fixed
# time, allowed to be OOM-killed and restarted. Usage: mem-pressure.sh [SECONDS]
set -u
secs=${1:-30}
[[ $secs =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }
exec stress-ng --temp-path /tmp --timeout "${secs}s" --oomable --metrics-brief \
	--vm 2 --vm-bytes 60% --mmap 1 --mmap-bytes 10% --brk 1 --bigheap 1 \
	--fork 1 --pipe 1
