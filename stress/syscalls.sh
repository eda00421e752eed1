#!/bin/bash
# Syscall-heavy load inside the guest: the entries and exits a process's
# restricted address space sees most (fork, exec, pipe, mmap, signals,
# futex, page faults, cheap system calls), for a fixed time. stress-ng
# skips its exec stressor as root, so that one runs as nobody.
# Usage: syscalls.sh [SECONDS]
set -u
secs=${1:-15}
[[ $secs =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS]" >&2; exit 2; }
opts=(--temp-path /tmp --timeout "${secs}s" --metrics-brief)

stress-ng "${opts[@]}" --fork 1 --pipe 1 --mmap 1 --mmap-bytes 5% --sigq 1 --futex 1 --fault 1 \
	--get 1 --null 1 &
main=$!
as_nobody=()
[ "$(id -u)" = 0 ] && as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
"${as_nobody[@]}" stress-ng "${opts[@]}" --exec 1
rc=$?
wait $main || exit $?
exit $rc
