#!/bin/bash
# Another process's memory read through /proc (environ, cmdline, mem) must
# not stay in a page the restricted address spaces map. procfs copies it
# through a page of its own; were that page nonsensitive, asi_alloc=freelist
# would free it, unzeroed, to the nonsensitive lists, which stay mapped
# (pageflag maps it while the read runs and until its worker unmaps it,
# before any search could look: the test skips there). Each way in reads
# a marker of its own from a process that keeps it (environment or command
# line), from 8 readers per CPU at once, then debug/asi_find.py searches
# every RAM page the kernel halves of the restricted spaces map for it.
# drgn starts first and waits: its start-up allocates pages and would
# reuse the very pages it looks for. A control, a task's name, must be
# found in the direct map. The markers never reach the console (tty
# buffers are nonsensitive): output shows them as MARKER.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
. "$(dirname "$0")/lib.sh"
find_cmd=(/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/asi_find.py")

if [ "$ASI_EXPECT" != on ]; then
	out=$("${find_cmd[@]}" asi-find-test 2>&1); rc=$?
	echo "$out"
	[ $rc = 2 ] && [[ $out == *"ASI is off"* ]] || fail "with ASI off asi_find.py should exit 2 saying so (rc=$rc)"
	echo "PASS: asi_find.py says ASI is off"
	exit 0
fi

# pageflag unmaps a page as it is freed: what the reads leave behind is
# never mapped there, with or without procfs's sensitive pages.
[ "$(cat /sys/kernel/mm/asi/alloc_mode)" = pageflag ] &&
	{ echo "asi_alloc=pageflag leaves nothing for this test to find"; exit 77; }
new_marker() { echo "asi-proc-$1-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"; }
m_environ=$(new_marker environ) m_cmdline=$(new_marker cmdline) m_mem=$(new_marker mem)
pids=()
errors=$(mktemp) || fail "cannot make a file in /tmp"
coproc FIND { exec "${find_cmd[@]}" --stdin 2>"$errors"; }
find_pid=$FIND_PID	# bash unsets FIND and FIND_PID when it ends
cleanup() {
	disown -a	# no "Terminated" for each
	kill "${pids[@]}" "$find_pid" 2>/dev/null
	rm -f "$errors"
}
trap cleanup EXIT
# Each value is the marker 256 times over (12 KiB): a read copies several pages.
times256() { local s=$1; for _ in 1 2 3 4 5 6 7 8; do s=$s$s; done; echo "$s"; }
env ASI_TEST_MARKER="$(times256 "$m_environ")" sleep 600 & pids+=($!)
/usr/bin/python3 -c 'import time; time.sleep(600)' "$(times256 "$m_cmdline")" & pids+=($!)
env ASI_TEST_MARKER="$(times256 "$m_mem")" sleep 600 & pids+=($!)

# Lines from asi_find.py up to "asi_find: searched" (or "ready"), markers hidden.
find_out=
await() {	# what it should end with
	local line fd=${FIND[0]:-}
	find_out=
	while [ -n "$fd" ] && IFS= read -r -t 600 -u "$fd" line; do
		line=${line//$m_environ/MARKER} line=${line//$m_cmdline/MARKER}
		line=${line//$m_mem/MARKER}
		find_out+="$line"$'\n'
		[ "$line" = "asi_find: $1" ] && return 0
	done
	echo "$find_out"
	cat "$errors"
	fail "asi_find.py stopped before saying '$1'"
}
ask() {	# patterns
	[ -n "${FIND[1]:-}" ] || { cat "$errors"; fail "asi_find.py has exited"; }
	echo "$1" >&"${FIND[1]}"
}
await ready
# A first search, which grows drgn's heap before the ones that count, is
# for a control the kernel keeps in nonsensitive memory of the direct map:
# this shell's name in /proc/PID/comm (its task_struct, a slab object).
# It must be found there.
control=asi$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
me=$BASHPID
comm=$(cat "/proc/$me/comm")
echo -n "$control" > "/proc/$me/comm" || fail "cannot rename this shell"
ask "$control"
await searched
echo -n "$comm" > "/proc/$me/comm"
echo "--- control: a task's name"
echo -n "$find_out"
[[ $find_out == *"(direct map)"* ]] ||
	fail "asi_find.py does not find a task's name in the direct map: it cannot find what it looks for"

# Print what process $2's /proc/$2/$1 holds, reading it on CPU $3.
read_way() {
	local env_start env_end stat
	if [ "$1" = mem ]; then
		# env_start and env_end: fields 50 and 51 of /proc/PID/stat.
		read -r -a stat < "/proc/$2/stat" || return 1
		env_start=${stat[49]} env_end=${stat[50]}
		taskset -c "$3" dd if="/proc/$2/mem" bs=4096 iflag=skip_bytes,count_bytes \
			skip="$env_start" count=$((env_end - env_start)) status=none
	else
		taskset -c "$3" cat "/proc/$2/$1"
	fi
}
READERS_PER_CPU=8
ncpu=$(nproc)
found=0
for way in environ cmdline mem; do
	case $way in
	environ) pid=${pids[0]} marker=$m_environ ;;
	cmdline) pid=${pids[1]} marker=$m_cmdline ;;
	mem) pid=${pids[2]} marker=$m_mem ;;
	esac
	# Readers on every CPU at once: each holds a page of its own while it
	# copies, so several such pages are freed as they finish, more than the
	# few that the rest of the test allocates before the search.
	readers=()
	for ((cpu = 0; cpu < ncpu * READERS_PER_CPU; cpu++)); do
		for _ in 1 2 3; do
			read_way $way "$pid" $((cpu % ncpu)) > /dev/null || exit 1
		done &
		readers+=($!)
	done
	for r in "${readers[@]}"; do
		wait "$r" || fail "cannot read /proc/$pid/$way"
	done
	# The reads get the marker (asi_find.py's own reads must not).
	read_way $way $pid 0 | grep -aqF -- "$marker" ||
		fail "/proc/$pid/$way does not show the marker: the test reads the wrong thing"
	ask "$marker"
	await searched
	echo "--- /proc/PID/$way"
	echo -n "$find_out"
	[[ $find_out == *"MARKER: 0 hits"* ]] || {
		echo "FAIL: what /proc/PID/$way read from another process is mapped in the restricted spaces"
		found=1
	}
done
[ $found = 0 ] || exit 1
echo "PASS: no marker read through /proc is mapped in a restricted space"
