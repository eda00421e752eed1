#!/bin/bash
# Boot the test kernel with asi=on and run one pressure scenario in it, with
# a scratch disk attached for the page-cache scenario. What `make stress` runs.
#   stress/vm.sh SCENARIO [SECONDS] [APPEND...]
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

if [ $# -lt 1 ] || [ -z "$1" ]; then
	echo "usage: make stress SCENARIO=<name> [DURATION=seconds] [APPEND='asi_alloc=pageflag ...']" >&2
	echo "scenarios:" >&2
	"$TOP/stress/scenario.sh" list >&2
	exit 2
fi
scenario=$1 secs=${2:-60}
shift 2 2>/dev/null || shift $#
# Bad names and durations fail here, before a boot.
known=$("$TOP/stress/scenario.sh" list)
if ! awk -v s="$scenario" '$1 == s { f = 1 } END { exit !f }' <<< "$known"; then
	echo "error: unknown scenario '$scenario'; the scenarios are:" >&2
	echo "$known" >&2
	exit 2
fi
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "DURATION must be a positive number of seconds, not '$secs'"

out=$BUILD/stress/$scenario-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || die "cannot create $out"
truncate -s 1G "$out/scratch.img" || die "cannot create the scratch disk in $out"
"$TOP/vm/run.sh" --out "$out" --timeout $(( secs * 2 + 900 )) \
	--append "asi=on kunit.enable=0 $*" \
	--qemu "-drive file=$out/scratch.img,if=virtio,format=raw,cache=unsafe" \
	-- "$TOP/stress/scenario.sh" "$scenario" "$secs"
rc=$?
rm -f "$out/scratch.img"
echo "console: $out/console.log"
exit $rc
