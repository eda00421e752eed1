#!/bin/bash
# asi_alloc=freelist lends single pages of partly used nonsensitive blocks to
# sensitive requests once no block may flip. While a process holds lent
# pages, debug/asi_check.py walks every restricted pgd: it must see the lent
# pages (PG_asi_lent) and find none of them mapped anywhere, nor any other
# violation. The pages are lent for real: kernel memory fills the guest,
# half of its page tables are freed (kfill.py --strand), then user memory is
# taken (grab.py) until the kernel has lent LEND_PAGES pages, and the
# taker is stopped, holding them. User memory held from before the taker
# started is then let go, so that less of the checker's own memory has to
# be lent while it reads (the checker copes with what is). The count asked
# of the checker, half of LEND_PAGES, includes the zones' spares and
# pages lent to the checker itself. Nothing may give the held pages back
# meanwhile (a CI run's checker saw 14 of 1,024, khugepaged having
# collapsed the rest into huge pages): the taker pins them (grab.py --pin:
# locked, no THP; compaction leaves locked pages alone for the test), and
# where its pages are must not change while the checker runs.
set -u
. "$(dirname "$0")/lib.sh"
[ "$ASI_EXPECT" = on ] && [ "$(cat /sys/kernel/mm/asi/alloc_mode)" = freelist ] || exit 77
top=$(cd "$(dirname "$0")/../.." && pwd)
want=${LEND_PAGES:-512}
cd "$top/stress/scenarios" && . ./lib.sh

# Compaction leaves locked pages alone while the test runs.
unevictable=/proc/sys/vm/compact_unevictable_allowed
unevictable_was=$(cat "$unevictable" 2>/dev/null)
grab_pid= cushion_pid=
cleanup() {
	local pid
	[ -n "$unevictable_was" ] && echo "$unevictable_was" > "$unevictable"
	for pid in $grab_pid $cushion_pid; do
		kill -CONT "$pid" 2>/dev/null
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	rm -f /tmp/cushion /tmp/grab
	kfill_cleanup
}
trap cleanup EXIT
[ -z "$unevictable_was" ] || echo 0 > "$unevictable" || fail "cannot write 0 to $unevictable"

kfill_start "$(pct_mib 60)" --strand || fail "kfill.py could not fill kernel memory"
grep -E '^(nr_free_nonsensitive|nr_free_nonsensitive_stranded) ' /proc/vmstat

# A process's state letter; alive: running, stopped or sleeping, not gone
# nor a zombie (kill -0 passes those).
state() { awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null; }
alive() { [[ "$(state "$1")" =~ ^[RSDT]$ ]]; }
cushion=$(pct_mib 10)
rm -f /tmp/cushion
python3 "$top/stress/grab.py" --hold 1 "$cushion" > /tmp/cushion &
cushion_pid=$!
until [ "$(tail -n1 /tmp/cushion)" = "$cushion" ]; do
	alive "$cushion_pid" || fail "grab.py could not take $cushion MiB"
	sleep 0.2
done
# What the taker holds, as its status tells.
held() {
	echo "$(tail -n1 /tmp/grab) MiB taken, $(grep -E '^(State|VmRSS|VmLck|VmSwap):' \
		"/proc/$grab_pid/status" | tr -s ' \t\n' ' ')"
}
python3 "$top/stress/grab.py" --pin 1 > /tmp/grab &
grab_pid=$!
# Counted from its first MiB, once it is pinned: under KASAN its start-up
# alone (interpreter, libraries) was lent 648 pages before it had pinned any.
until [ -s /tmp/grab ]; do
	alive "$grab_pid" || fail "grab.py --pin ended before it took any memory"
	sleep 0.1
done
lent0=$(vmstat nr_asi_lent)
lent=0
while alive "$grab_pid"; do
	lent=$(( $(vmstat nr_asi_lent) - lent0 ))
	[ "$lent" -ge "$want" ] && break
	sleep 0.1
done
alive "$grab_pid" && kill -STOP "$grab_pid" ||
	fail "grab.py ended (OOM-killed?) with $lent of $want pages lent to it"
until [ "$(state "$grab_pid")" = T ]; do
	alive "$grab_pid" || fail "grab.py ended as it was stopped"
	sleep 0.1
done
[ "$(awk '$1 == "VmLck:" { print $2 }' "/proc/$grab_pid/status")" -gt 0 ] ||
	fail "grab.py is not pinned: $(held)"
echo "grab.py stopped, about $lent lent pages more than before it ran; $(held)"
kill -KILL "$cushion_pid" && wait "$cushion_pid" 2>/dev/null
cushion_pid=

# What could move lent pages out from under the checker.
movers() {
	local k
	for k in nr_asi_lent pgmigrate_success compact_stall compact_daemon_wake \
		 thp_collapse_alloc; do
		printf '%s %s  ' "$k" "$(vmstat $k)"
	done
	echo
}
vmlinux=${VMLINUX:?not in a vm/run.sh guest}
echo "as the checker starts: $(movers)"
where=$(python3 "$top/tests/guest/pfn-digest.py" "$grab_pid") || fail "cannot read grab.py's pagemap"
echo "grab.py: $where; $(held)"
out=$(/usr/bin/python3 /usr/bin/drgn -q -k -s "$vmlinux" "$top/debug/asi_check.py")
rc=$?
echo "$out"
echo "as the checker ends: $(movers)"
alive "$grab_pid" || fail "grab.py was killed while the checker ran"
now=$(python3 "$top/tests/guest/pfn-digest.py" "$grab_pid")
[ "$now" = "$where" ] || fail "grab.py's pages moved while the checker ran: $now; $(held)"
seen=$(grep -oE '[0-9]+ pages lent from nonsensitive blocks' <<< "$out" | cut -d' ' -f1)
[ "$rc" = 0 ] || fail "debug/asi_check.py found violations while lent pages were held (exit $rc)"
[ "${seen:-0}" -ge $(( want / 2 )) ] ||
	fail "debug/asi_check.py saw ${seen:-no count} lent pages, not the $want or so held; now: $(movers)"
echo PASS
