#!/bin/bash
# `make compare`: OOM behaviour of the sensitivity free lists against the
# page-flag baseline and asi=off. One build, three boots with the same guest
# memory (asi=off; asi=on asi_alloc=pageflag; asi=on asi_alloc=freelist),
# each running every scenario REPEATS times for DURATION seconds; then
# stress/report.py writes report.md and the plots into the run's directory.
#
#   [MEM=size] stress/compare.sh [REPEATS [DURATION [SCENARIO...]]]
#
# Defaults: 3 repeats of 30 s, every scenario in stress/scenarios/, 1 GiB
# guests. The scenarios size themselves by the guest's memory, and filling
# and freeing it is what takes the time under TCG: MEM=512M halves a run
# that takes hours at 1G.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

repeats=${1:-3} secs=${2:-30}
shift $(( $# < 2 ? $# : 2 ))
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die "REPEATS must be a positive integer, not '$repeats'"
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "DURATION must be a positive number of seconds, not '$secs'"
mem=${MEM:-1G}
[[ $mem =~ ^([1-9][0-9]*)([MG])$ ]] || die "MEM must be a size in MiB or GiB such as 512M or 1G, not '$mem'"
mem_mib=${BASH_REMATCH[1]} mem_words="${BASH_REMATCH[1]} ${BASH_REMATCH[2]}iB"
[ "${BASH_REMATCH[2]}" = G ] && mem_mib=$(( mem_mib * 1024 ))
(( mem_mib >= 256 && mem_mib <= 8192 )) || die "MEM=$mem: from 256M to 8G, please"
known=$("$TOP/stress/scenario.sh" list | awk '{ print $1 }')
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || read -ra scenarios <<< "$(echo $known)"
for s in "${scenarios[@]}"; do
	grep -qxF -e "$s" <<< "$known" || die "unknown scenario '$s' (known: $(echo $known))"
done
built=$BUILD/out-asi
[ -f "$built/arch/x86/boot/bzImage" ] || die "no kernel at $built/arch/x86/boot/bzImage: run 'make kernel'"

out=$BUILD/compare/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out/kernel/arch/x86/boot" || die "cannot create $out"
# The run takes hours: boot a copy, so that rebuilding build/out-asi meanwhile
# cannot give the three boots different kernels. vm/run.sh finds the
# vmlinux beside the bzImage's arch/ directory.
# The copy goes when the run ends, but for a failed boot, whose console
# log it belongs to.
keep_kernel=0
trap '[ $keep_kernel = 1 ] || rm -rf "$out/kernel"' EXIT
cp "$built/arch/x86/boot/bzImage" "$out/kernel/arch/x86/boot/" &&
	cp "$built/vmlinux" "$out/kernel/" || die "cannot copy the kernel into $out/kernel"
kernel=$out/kernel/arch/x86/boot/bzImage
{
	echo "# Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) host cores, QEMU TCG, 2 vCPUs, $mem_words guest."
	echo "# Kernel: $(cat "$built/include/config/kernel.release" 2>/dev/null)" \
	     "($(git -C "$SRC" describe --always --tags 2>/dev/null))."
	echo "# Command: make compare REPEATS=$repeats DURATION=$secs SCENARIOS='${scenarios[*]}'${MEM:+ MEM=$mem}."
} > "$out/results.txt"

# The guest's loop: every scenario, REPEATS times, interleaved so that a
# slow drift of the guest's state spreads over all of them.
guest='repeats=$1 secs=$2; shift 2
for r in $(seq "$repeats"); do
	for s in "$@"; do
		echo "=== $s, run $r of $repeats"
		"$0" "$s" "$secs" 2>&1 | tee -a "$ASI_OUT/scenarios.log" | grep "^RESULT " >> "$ASI_OUT/results"
	done
done'
# Filling and freeing kernel memory takes minutes under TCG whatever SECONDS
# is, and the page flag's per-page flushes slow it further.
per_boot=$(( repeats * ${#scenarios[@]} * (secs * 2 + 420 * (mem_mib > 1024 ? mem_mib / 1024 : 1)) + 300 ))
failed=0
for mode in off pageflag freelist; do
	case $mode in
	off) append="asi=off" ;;
	*) append="asi=on asi_alloc=$mode" ;;
	esac
	note "boot $mode ($append): ${#scenarios[@]} scenarios x $repeats, at most ${per_boot}s"
	mkdir -p "$out/$mode"
	# pagecache writes 80% of the guest's memory to it.
	truncate -s $(( mem_mib > 512 ? mem_mib * 2 : 1024 ))M "$out/$mode/scratch.img" || die "cannot create a scratch disk in $out/$mode"
	"$TOP/vm/run.sh" --kernel "$kernel" --mem "$mem" --out "$out/$mode" --timeout "$per_boot" --append "$append kunit.enable=0" \
		--qemu "-drive file=$out/$mode/scratch.img,if=virtio,format=raw,cache=unsafe" \
		-- bash -c "$guest" "$TOP/stress/scenario.sh" "$repeats" "$secs" "${scenarios[@]}" \
		> "$out/$mode/stdout" 2>&1
	rc=$?
	rm -f "$out/$mode/scratch.img"
	# Only runs that completed in the mode the boot asked for count.
	got=$(grep -c "^RESULT .* mode=$mode rc=0 " "$out/$mode/results" 2>/dev/null)
	if [ "$rc" != 0 ] || [ "${got:-0}" != $(( repeats * ${#scenarios[@]} )) ]; then
		echo "error: boot $mode: exit $rc, ${got:-0} of $(( repeats * ${#scenarios[@]} )) runs completed in mode $mode (console: $out/$mode/console.log, output: $out/$mode/scenarios.log)" >&2
		failed=1 keep_kernel=1
	fi
	cat "$out/$mode/results" >> "$out/results.txt" 2>/dev/null
done
[ $keep_kernel = 0 ] || note "kept the kernel the boots ran, for their console logs: $out/kernel"
python3 "$TOP/stress/report.py" "$out/results.txt" --out "$out" || failed=1
exit $failed
