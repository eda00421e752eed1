#!/bin/bash
# The guest side of vm/vmcore.sh (make vmcore): a round of the
# `alternate` pressure scenario so that pageblocks flip both ways, then a
# random asi flip_batch, what the guest reads of ASI to $ASI_OUT/facts
# (key=value: flip_batch, alloc_mode, the VMCOREINFO note's physical
# address, the ASI counters of /proc/vmstat), and last a dump of the
# guest's memory by QEMU to DUMP, a host path (dump-guest-memory, through
# vm/monitor-relay.py: vm/run.sh --monitor). QEMU stops the guest while it
# writes the dump, so the dump shows the guest as the facts describe it.
#
#   vm/vmcore-guest.sh DUMP SECONDS      (0: no pressure; else one round)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "vmcore-guest: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: vm/vmcore-guest.sh DUMP SECONDS"
dump=$1 secs=$2
asi=/sys/kernel/mm/asi
out=${ASI_OUT:?not in a vm/run.sh guest}

# One QEMU monitor (HMP) command through vm/monitor-relay.py; prints the reply.
hmp() {
	local dir=$out/monitor id=$$-$RANDOM i reply
	[ -d "$dir" ] || die "no monitor relay: vm/run.sh needs --monitor"
	echo "$*" > "$dir/$id.tmp" && mv "$dir/$id.tmp" "$dir/$id.req"
	for ((i = 0; i < 1500; i++)); do	# 5 minutes: a big dump takes a while
		if [ -f "$dir/$id.rsp" ]; then
			reply=$(cat "$dir/$id.rsp")
			rm -f "$dir/$id.rsp"
			! grep -qiE '^(error|unknown command)' <<< "$reply" || die "monitor: '$*': $reply"
			echo "$reply"
			return 0
		fi
		sleep 0.2
	done
	die "monitor: no reply to '$*'"
}

[ "$(cat $asi/enabled 2>/dev/null)" = 1 ] || die "ASI is off in this guest (boot with asi=on)"
if [ "$secs" -gt 0 ]; then
	FILL_PCT=30 ROUNDS=1 "$here/../stress/scenario.sh" alternate "$secs" ||
		die "the pressure scenario failed"
fi

# A value only this boot has, for the host to find in the dump.
old=$(cat $asi/flip_batch)
batch=$(( RANDOM % 63 + 2 ))
[ "$batch" != "$old" ] || batch=$(( batch % 64 + 1 ))
echo "$batch" > $asi/flip_batch
read -r paddr _ < /sys/kernel/vmcoreinfo 2>/dev/null || paddr=
{
	echo "flip_batch=$(cat $asi/flip_batch)"
	echo "alloc_mode=$(cat $asi/alloc_mode)"
	echo "vmcoreinfo=$paddr"
	awk '$1 ~ /^(nr_free_nonsensitive|asi_flip|asi_tlb_flush)/ { print $1 "=" $2 }' /proc/vmstat
} > "$out/facts"
echo "vmcore-guest: the guest's view before the dump:"
sed 's/^/  /' "$out/facts"
echo "vmcore-guest: dump-guest-memory $dump"
hmp "dump-guest-memory $dump"
