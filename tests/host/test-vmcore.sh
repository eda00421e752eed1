#!/bin/bash
# make vmcore and make crash end to end (vm/vmcore.sh): boot BZIMAGE with
# asi=on asi_alloc=freelist and 512 MiB and have QEMU dump it (without make
# vmcore's pressure: tests/guest/test-scenario-flips.sh runs that). crash
# must open the dump and read the flip_batch value the guest set at random
# just before the dump (minimal mode: `rd`, which does without crash's gdb);
# make crash's drgn scripts must read the dump and say freelist, and its
# crash part (debug/crash-asi.cmd) must show the same flip_batch and mode,
# unless crash 8.0.2 aborted while starting on every try, which it does at
# random on this kernel (README, "Post-mortem"). debug/asi_check.py must
# read the dump and print the same whether it walks a page table reached
# through several entries once (its default) or each time (--walk-all).
# The dump and its vmlinux copy are deleted afterwards; the logs stay in DIR.
#
#   tests/host/test-vmcore.sh [BZIMAGE [DIR]]    (default: build/out-asi, build/test/vmcore)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
kernel=${1:-$top/build/out-asi/arch/x86/boot/bzImage}
dir=${2:-$top/build/test/vmcore}
mkdir -p "$dir" || fail "cannot create $dir"
trap 'rm -f "$dir/vmcore" "$dir/vmcore.tmp" "$dir/vmlinux"' EXIT

"$top/vm/vmcore.sh" dump --kernel "$kernel" --dir "$dir" --mem 512M --seconds 0 \
	> "$dir/dump.log" 2>&1 || { tail -5 "$dir/dump.log"; fail "no dump (log: $dir/dump.log)"; }
want=$(sed -n 's/^flip_batch=//p' "$dir/facts")
[ -n "$want" ] || fail "the guest reported no flip_batch ($dir/facts)"
echo "the guest set flip_batch=$want before the dump"

out=$(printf 'rd -32 -d asi_flip_batch\nquit\n' |
	crash -s --minimal "$dir/vmlinux" "$dir/vmcore" 2>&1) ||
	fail "crash cannot open the dump: $(tail -1 <<< "$out")"
got=$(awk '$1 ~ /^[0-9a-f]+:$/ { print $2 }' <<< "$out")
[ "$got" = "$want" ] || fail "crash reads asi_flip_batch = '${got:-nothing}', the guest set $want"
echo "crash reads asi_flip_batch = $got"

"$top/vm/vmcore.sh" crash --dir "$dir" > "$dir/crash.log" 2>&1
rc=$?
[ $rc = 0 ] || [ $rc = 3 ] ||
	{ tail -5 "$dir/crash.log"; fail "make crash could not read the dump (log: $dir/crash.log)"; }
grep -qx 'mode: freelist' "$dir/crash.log" ||
	fail "drgn's asi_freelists.py does not say 'mode: freelist' (log: $dir/crash.log)"
if [ $rc = 3 ]; then
	echo "make crash: crash aborted while starting on every try, drgn read the dump"
else
	got=$(sed -n 's/^asi_flip_batch = \$[0-9]* = //p' "$dir/crash.log" | tail -n 1)
	[ "$got" = "$want" ] ||
		fail "make crash reads asi_flip_batch = '${got:-nothing}', the guest set $want" \
			"(log: $dir/crash.log)"
	grep -qx 'asi_alloc_mode = \$[0-9]* = ASI_ALLOC_FREELIST' "$dir/crash.log" ||
		fail "make crash does not read asi_alloc_mode as ASI_ALLOC_FREELIST (log: $dir/crash.log)"
	echo "make crash reads asi_flip_batch = $got and ASI_ALLOC_FREELIST, drgn mode: freelist"
fi

# The checker's shortcut for repeated tables (ESPFIX64's) against a full walk.
for how in once all; do
	opt=()
	[ $how = all ] && opt=(--walk-all)
	/usr/bin/python3 /usr/bin/drgn -q -c "$dir/vmcore" -s "$dir/vmlinux" \
		"$top/debug/asi_check.py" --verbose "${opt[@]}" > "$dir/check-$how.log" 2>&1
	rc=$?
	[ $rc != 2 ] || { tail -3 "$dir/check-$how.log"; fail "asi_check.py ${opt[*]} could not read the dump"; }
	grep -q '^asi_check: freelist: ' "$dir/check-$how.log" ||
		fail "asi_check.py ${opt[*]} printed no verdict (log: $dir/check-$how.log)"
done
diff <(grep -v '^scan times' "$dir/check-once.log") <(grep -v '^scan times' "$dir/check-all.log") |
	head -5 | grep . && fail "asi_check.py prints otherwise with --walk-all (logs: $dir/check-*.log)"
echo "asi_check.py on the dump: the same with --walk-all; $(tail -n1 "$dir/check-once.log")"
echo PASS
