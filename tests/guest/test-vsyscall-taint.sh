#!/bin/bash
# A process that reads the vsyscall page, which vsyscall=emulate maps in the
# kernel's tables only (vsyscall-read.c), then makes a system call, N times.
# Each read faults and exits the process's restricted space, and the process
# runs on unrestricted until its next entry, training the predictors: that
# entry must flush them (an RSB fill, IBPB where the CPU has it) before the
# kernel runs. So fills outnumber page-fault exits by about N (one per
# system call); without the taint on that exit they did by about none.
# Runs in the boot that has vsyscall=emulate (tests/run.sh), skips elsewhere.
set -u
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")" && pwd)/vsyscall-read.c
n=1000

[ "$ASI_EXPECT" = on ] || { echo "ASI is off"; exit 77; }
grep -qw "vsyscall=emulate" /proc/cmdline || { echo "needs vsyscall=emulate"; exit 77; }
# This boot is the one meant to run it: not being able to is a failure.
command -v gcc >/dev/null || fail "no gcc to build $src"

bin=$(mktemp /tmp/vsyscall-read.XXXXXX) || fail "mktemp"
trap 'rm -f "$bin"' EXIT
gcc -O2 -Wall -o "$bin" "$src" || fail "cannot build $src"

fills0=$(vmstat asi_flush_rsb) exits0=$(vmstat asi_exit_page_fault)
[ -n "$fills0" ] && [ -n "$exits0" ] || fail "no asi_flush_rsb or asi_exit_page_fault in /proc/vmstat"
"$bin" $n || fail "vsyscall-read exited with $?"
fills=$(($(vmstat asi_flush_rsb) - fills0)) exits=$(($(vmstat asi_exit_page_fault) - exits0))
echo "$n reads and system calls: $exits page-fault exits, $fills RSB fills"
[ "$exits" -ge $n ] || fail "only $exits page-fault exits for $n reads of the vsyscall page"
# Half: other processes' exits without a fill must not make this flaky.
[ $((fills - exits)) -ge $((n / 2)) ] ||
	fail "$((fills - exits)) fills beyond the exits' own: system calls after unrestricted user mode did not flush"
echo "PASS"
