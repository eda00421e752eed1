#!/bin/bash
# `make vmcore` and `make crash`: a dump of a running asi=on guest's memory,
# and crash and drgn on it.
#
#   vm/vmcore.sh dump  [--kernel BZIMAGE] [--dir DIR] [--mem SIZE] [--seconds N] [--append ARGS]
#   vm/vmcore.sh crash [--dir DIR]
#
# dump: boots BZIMAGE (default build/out-asi/arch/x86/boot/bzImage) with
#   asi=on asi_alloc=freelist (ARGS are added), SIZE of memory (default
#   512M: the dump is as big) and QEMU's monitor, runs a round of the
#   `alternate` pressure scenario (none if N is 0), and has QEMU dump the guest's
#   memory (vm/vmcore-guest.sh). DIR (default build/vmcore) then holds
#   vmcore (ELF, fixed up for drgn by vm/fix-vmcore.py), vmlinux (a copy of
#   the one matching BZIMAGE, so a rebuild does not orphan the dump), facts
#   (what the guest read of ASI just before the dump) and run/ (console).
# crash: crash with debug/crash-asi.cmd on DIR's dump, then drgn:
#   debug/asi_transitions.py (each CPU's space, the transition counters)
#   and debug/asi_freelists.py lists (the free lists by sensitivity, which
#   crash cannot tell apart: README, "Post-mortem"). crash 8.0.2 aborts
#   while starting on about half its runs on a dump of this kernel whose
#   CPUs were running tasks: it is run again, up to 5 times. Exits with 0,
#   1 if crash or drgn could not read the dump, 3 if crash aborted 5 times.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

usage() { die "usage: vm/vmcore.sh dump|crash [options] (see the top of vm/vmcore.sh)"; }
[ $# -ge 1 ] || usage
what=$1
shift
kernel=$BUILD/out-asi/arch/x86/boot/bzImage dir=$BUILD/vmcore mem=512M secs=10 append=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--seconds) secs=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	*) usage ;;
	esac
done
DRGN=(/usr/bin/python3 /usr/bin/drgn -q)

# crash 8.0.2 on this kernel: --no_kmem_cache, as CONFIG_SLUB_TINY's
# kmem_cache has no cpu_slab and crash takes it for the old SLAB and stops;
# --no_panic, as looking for a panic task (there is none) runs a bt that
# corrupts crash's heap. See README, "Post-mortem".
CRASH_OPTS=(-s --no_kmem_cache --no_panic)

dump() {
	[[ $secs =~ ^[0-9]+$ ]] || die "--seconds wants a number, not '$secs'"
	[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel'"
	local vmlinux=${kernel%/arch/x86/boot/bzImage}/vmlinux
	[ -f "$vmlinux" ] || die "no vmlinux next to $kernel (expected $vmlinux)"
	mkdir -p "$dir" || die "cannot create $dir"
	dir=$(cd "$dir" && pwd)
	# The path goes to QEMU as an HMP argument, which ends at white space.
	[[ $dir != *[[:space:]]* ]] ||
		die "the dump directory '$dir' has white space: pick another with --dir"
	rm -rf "$dir/vmcore" "$dir/vmlinux" "$dir/facts" "$dir/run"
	note "booting $kernel with asi=on asi_alloc=freelist ${append:+$append }and $mem;" \
		"$([ "$secs" = 0 ] && echo "no pressure" || echo "a round of pressure"), then a dump"
	# -device vmcoreinfo: with CONFIG_FW_CFG_SYSFS the guest kernel tells
	# QEMU where its VMCOREINFO note is, and the dump has it (fix-vmcore.py).
	"$TOP/vm/run.sh" --kernel "$kernel" --out "$dir/run" --mem "$mem" --monitor \
		--qemu "-device vmcoreinfo" --timeout $(( secs * 3 + 600 )) \
		--append "asi=on asi_alloc=freelist kunit.enable=0 $append" \
		-- "$TOP/vm/vmcore-guest.sh" "$dir/vmcore" "$secs" ||
		die "the guest did not finish the dump (console: $dir/run/console.log)"
	[ -s "$dir/vmcore" ] ||
		die "QEMU wrote no dump to $dir/vmcore (monitor: $dir/run/monitor-relay.log)"
	mv "$dir/run/facts" "$dir/facts"
	local paddr
	paddr=$(sed -n 's/^vmcoreinfo=//p' "$dir/facts")
	python3 "$TOP/vm/fix-vmcore.py" "$dir/vmcore" ${paddr:+--paddr "$paddr"}
	cp "$vmlinux" "$dir/vmlinux"
	echo "vmcore: $dir/vmcore ($(du -h "$dir/vmcore" | cut -f1)), vmlinux: $dir/vmlinux," \
		"the guest's view before the dump: $dir/facts; 'make crash' reads it"
}

crash_dump() {
	[ -f "$dir/vmcore" ] && [ -f "$dir/vmlinux" ] || die "no dump in $dir: run 'make vmcore' first"
	command -v crash > /dev/null || die "crash is not installed: run 'make deps'"
	[ -x /usr/bin/drgn ] || die "drgn is not installed: run 'make deps'"
	local rc=0 try crc
	note "crash $(crash --version | awk 'NF { print $2; exit }'): debug/crash-asi.cmd"
	for try in 1 2 3 4 5; do
		# It runs the file, then reads stdin: quit, or it exits with 1.
		crc=0
		crash "${CRASH_OPTS[@]}" -i "$TOP/debug/crash-asi.cmd" "$dir/vmlinux" \
			"$dir/vmcore" <<< quit || crc=$?
		[ $crc -ge 128 ] || break
		note "crash aborted (signal $((crc - 128)); README, \"Post-mortem\"), run $try of 5"
	done
	[ $crc = 0 ] || rc=$(( crc >= 128 ? 3 : 1 ))
	note "drgn: debug/asi_transitions.py"
	"${DRGN[@]}" -c "$dir/vmcore" -s "$dir/vmlinux" "$TOP/debug/asi_transitions.py" ||
		rc=1
	note "drgn: debug/asi_freelists.py lists"
	"${DRGN[@]}" -c "$dir/vmcore" -s "$dir/vmlinux" "$TOP/debug/asi_freelists.py" lists ||
		rc=1
	echo "interactive: crash ${CRASH_OPTS[*]:1} $dir/vmlinux $dir/vmcore"
	echo "             drgn -c $dir/vmcore -s $dir/vmlinux [debug/asi_*.py ...]"
	return $rc
}

case $what in
dump) dump ;;
crash) crash_dump ;;
*) usage ;;
esac
