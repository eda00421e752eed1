#!/bin/bash
# Run one memory-pressure scenario (stress/scenarios/NAME.sh) in the guest
# and report what the kernel did meanwhile: OOM kills, allocation failures
# and stalls, pageblock flips each way with their latency (the asi_flip
# trace event) and the TLB flushes and shootdown IPIs they cost, the peak of
# nonsensitive memory stranded in partly used pageblocks, the page-flag
# queue's high-water mark, and whether free memory came back afterwards.
#
#   scenario.sh list                 the scenarios and their purpose
#   scenario.sh NAME [SECONDS]       run one; SECONDS (default 60) bounds its
#                                    load phases, filling kernel memory adds
#
# The last line is machine-readable: RESULT key=value ..., including what
# the scenario itself printed as "RESULT+ key=value" lines. TRACE_KIB
# (default 1024) sizes the trace buffer a CPU, in every mode alike.
set -u
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: $0 list | NAME [SECONDS]" >&2; exit 2; }

list() {
	local f
	for f in "$here"/scenarios/*.sh; do
		[ "$(basename "$f")" = lib.sh ] && continue
		printf '  %-12s %s\n' "$(basename "$f" .sh)" \
			"$(sed -n 's/^# purpose: //p' "$f")"
	done
}

[ $# -ge 1 ] || usage
[[ ${TRACE_KIB:-1024} =~ ^[1-9][0-9]*$ ]] ||
	{ echo "$0: TRACE_KIB must be a positive number of KiB, not '$TRACE_KIB'" >&2; exit 2; }
if [ "$1" = list ]; then
	list
	exit 0
fi
name=$1 secs=${2:-60}
script=$here/scenarios/$name.sh
if [ ! -x "$script" ] || [ "$name" = lib ]; then
	echo "unknown scenario '$name'; the scenarios are:" >&2
	list >&2
	exit 2
fi
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "SECONDS must be a positive integer, not '$secs'" >&2; exit 2; }

asi=/sys/kernel/mm/asi
if [ "$(cat $asi/enabled 2>/dev/null)" = 1 ]; then
	mode=$(cat $asi/alloc_mode)
else
	mode=off
fi

vm() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' /proc/vmstat; }
mem_kib() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# Free memory: MemFree plus the per-CPU free lists, which MemFree leaves out
# and which grow under load.
free_kib() {
	echo $(( $(mem_kib MemFree) + $(awk '$1 == "count:" { s += $2 } END { print s + 0 }' /proc/zoneinfo) * $(getconf PAGESIZE) / 1024 ))
}
stalls() { awk '$1 ~ /^allocstall_/ { s += $2 } END { print s + 0 }' /proc/vmstat; }
psi_us() {	# some|full
	awk -v k="$1" '$1 == k { sub("total=", "", $5); print $5 }' /proc/pressure/memory 2>/dev/null || echo 0
}
queued() {
	local q=0
	[ -r $asi/pageflag_queued ] && read -r q _ < $asi/pageflag_queued
	echo "${q:-0}"
}
ipis() { awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }
alloc_failures() { dmesg | grep -c 'page allocation failure'; }
# Percentiles of the traced flips' durations, and the longest with
# interrupts off, in microseconds: "p50 p99 irqsoff_max" (- if none).
flip_latency() {
	local all sorted n p50 p99 m
	all=$(grep -o 'ns=[0-9]* irqs_off=[01]' "$1")
	[ -n "$all" ] || { echo "- - -"; return; }
	sorted=$(sed 's/ns=\([0-9]*\).*/\1/' <<< "$all" | sort -n)
	n=$(wc -l <<< "$sorted")
	p50=$(sed -n "$(( (n + 1) / 2 ))p" <<< "$sorted")
	p99=$(sed -n "$(( (n * 99 + 99) / 100 ))p" <<< "$sorted")
	m=$(grep 'irqs_off=1' <<< "$all" | sed 's/ns=\([0-9]*\).*/\1/' | sort -n | tail -n 1)
	echo "$(( p50 / 1000 )) $(( p99 / 1000 )) $(( ${m:-0} / 1000 ))"
}

# Free memory comes back once caches are dropped and the page-flag queue
# has drained (it frees from a workqueue).
settle() {
	local i
	sync
	echo 3 > /proc/sys/vm/drop_caches
	for i in $(seq 100); do
		[ "$(queued)" = 0 ] && break
		sleep 0.1
	done
}

counters=(oom_kill asi_flip_nonsensitive asi_flip_nonsensitive_blocks asi_flip_sensitive
	  asi_flip_sensitive_blocks asi_flip_sensitive_fail asi_tlb_flush asi_tlb_flush_pages
	  asi_tlb_flush_coalesced
	  asi_pages_zeroed asi_pageflag_async_free asi_exit_page_fault asi_lend asi_lend_pages)
# The trace buffer is kernel memory that no counter shows: it is sized the
# same in every mode, traced or not, or the mode that traces would reach
# the OOM killer that much sooner (4 MiB a CPU cost freelist 2% of
# oom-grab at 512 MiB). TRACE_KIB a CPU holds some 15,000 flips. Sized
# before free memory is first measured, and given back after the last.
tr=/sys/kernel/tracing
traced= bufsize=
if { mountpoint -q $tr || mount -t tracefs nodev $tr 2>/dev/null; } &&
   [ -w $tr/buffer_size_kb ]; then
	# Restored as "7 (expanded: 1408)" would grow on first use: 1408;
	# "X" if the CPUs' sizes differ (then left as set here).
	bufsize=$(sed -n 's/.*expanded: \([0-9]*\).*/\1/p; t; /^[0-9][0-9]*$/p' $tr/buffer_size_kb)
	echo "${TRACE_KIB:-1024}" > $tr/buffer_size_kb
	: > $tr/trace
fi
declare -A before
settle
for c in "${counters[@]}"; do before[$c]=$(vm "$c"); done
free0=$(free_kib) stall0=$(stalls) some0=$(psi_us some) full0=$(psi_us full)

ipis0=$(ipis) fail0=$(alloc_failures)
[ "$mode" = freelist ] && [ -d $tr/events/asi/asi_flip ] &&
	echo 1 > $tr/events/asi/asi_flip/enable && traced=1
# The peaks of stranded memory and of the page-flag queue, sampled (the
# kernel's queue high-water mark is since boot).
peak=$(mktemp)
( smax=0 qmax=0
  while :; do
	v=$(vm nr_free_nonsensitive_stranded) q=$(queued)
	[ "$v" -gt "$smax" ] && smax=$v
	[ "$q" -gt "$qmax" ] && qmax=$q
	echo "$smax $qmax" > "$peak.new" && mv "$peak.new" "$peak"
	sleep 0.5
  done ) &
sampler=$!
cleanup() {
	kill $sampler 2>/dev/null
	[ -n "$traced" ] && echo 0 > $tr/events/asi/asi_flip/enable
	[ -n "$bufsize" ] && echo "$bufsize" > $tr/buffer_size_kb
	rm -f "$peak" "$peak.new" "${own:-}"
}
trap cleanup EXIT

echo "scenario $name: ${secs}s, asi mode $mode, $(( $(mem_kib MemTotal) / 1024 )) MiB"
own=$(mktemp)
start=$(date +%s)
"$script" "$secs" | tee "$own"
rc=${PIPESTATUS[0]}
elapsed=$(( $(date +%s) - start ))
kill $sampler 2>/dev/null
wait $sampler 2>/dev/null
read -r peak_pages queue_max < "$peak" 2>/dev/null
stranded_kib=$(( ${peak_pages:-0} * $(getconf PAGESIZE) / 1024 ))
extra=$(sed -n 's/^RESULT+ //p' "$own" | tr '\n' ' ')
latency="- - -"
if [ -n "$traced" ]; then
	echo 0 > $tr/events/asi/asi_flip/enable
	latency=$(flip_latency $tr/trace)
	lost=$(awk '$1 == "overrun:" { s += $2 } END { print s + 0 }' $tr/per_cpu/cpu*/stats)
	[ "$lost" = 0 ] ||
		echo "warning: the trace buffer overran ($lost events lost): flip latencies from the rest"
	traced=
fi
read -r p50 p99 irqsoff <<< "$latency"
settle

declare -A d
for c in "${counters[@]}"; do d[$c]=$(( $(vm "$c") - before[$c] )); done
free1=$(free_kib)
if [ -n "$bufsize" ]; then
	: > $tr/trace
	echo "$bufsize" > $tr/buffer_size_kb
	bufsize=
fi
ns_mib=$(( d[asi_flip_nonsensitive_blocks] * 2 ))
s_mib=$(( d[asi_flip_sensitive_blocks] * 2 ))
# Made sensitive: flipped whole, or lent a page at a time (KiB).
made_kib=$(( s_mib * 1024 + d[asi_lend_pages] * $(getconf PAGESIZE) / 1024 ))
flushes_per_gib=-
[ "$made_kib" -gt 0 ] && flushes_per_gib=$(( d[asi_tlb_flush] * 1048576 / made_kib ))
freed_per_gib=-
[ "${d[asi_pageflag_async_free]}" -gt 0 ] && freed_per_gib=$(( d[asi_tlb_flush] * 262144 / d[asi_pageflag_async_free] ))

printf '%-34s %s\n' \
	"exit status" "$rc" \
	"elapsed (s)" "$elapsed" \
	"OOM kills" "${d[oom_kill]}" \
	"direct reclaim stalls" "$(( $(stalls) - stall0 ))" \
	"PSI memory some/full (ms)" "$(( ($(psi_us some) - some0) / 1000 ))/$(( ($(psi_us full) - full0) / 1000 ))" \
	"free memory before/after (MiB)" "$(( free0 / 1024 ))/$(( free1 / 1024 )) ($(( (free1 - free0) * 1000 / free0 )) permille)" \
	"flips to nonsensitive (MiB)" "$ns_mib in ${d[asi_flip_nonsensitive]} flips" \
	"flips to sensitive (MiB)" "$s_mib in ${d[asi_flip_sensitive]} flips, ${d[asi_flip_sensitive_fail]} failed" \
	"stranded pages lent to sensitive" "${d[asi_lend_pages]} in ${d[asi_lend]} batches" \
	"pages zeroed" "${d[asi_pages_zeroed]}" \
	"pageflag async frees (pages)" "${d[asi_pageflag_async_free]}" \
	"pageflag queue, peak (pages)" "${queue_max:-0}" \
	"ASI TLB flushes" "${d[asi_tlb_flush]} (${d[asi_tlb_flush_pages]} pages; ${d[asi_tlb_flush_coalesced]} more served by them)" \
	"  per GiB made sensitive" "$flushes_per_gib" \
	"  per GiB freed through the queue" "$freed_per_gib" \
	"page-fault exits" "${d[asi_exit_page_fault]}" \
	"allocation-failure warnings" "$(( $(alloc_failures) - fail0 ))" \
	"TLB shootdown IPIs" "$(( $(ipis) - ipis0 ))" \
	"flip latency p50/p99 (us)" "$p50/$p99" \
	"worst interrupts-off flip (us)" "$irqsoff" \
	"stranded nonsensitive, peak (KiB)" "$stranded_kib"
na() { [ "$2" = - ] || printf '%s=%s ' "$1" "$2"; }
echo "RESULT scenario=$name mode=$mode rc=$rc secs=$elapsed oom_kill=${d[oom_kill]}" \
	"alloc_fail=$(( $(alloc_failures) - fail0 ))" \
	"stalls=$(( $(stalls) - stall0 )) psi_some_us=$(( $(psi_us some) - some0 ))" \
	"psi_full_us=$(( $(psi_us full) - full0 ))" \
	"free_before_kib=$free0 free_after_kib=$free1 ns_mib=$ns_mib s_mib=$s_mib" \
	"flips_s=${d[asi_flip_sensitive]} flip_s_fail=${d[asi_flip_sensitive_fail]}" \
	"lent_pages=${d[asi_lend_pages]} lend_batches=${d[asi_lend]}" \
	"tlb_flush=${d[asi_tlb_flush]} tlb_flush_pages=${d[asi_tlb_flush_pages]}" \
	"tlb_coalesced=${d[asi_tlb_flush_coalesced]} tlb_ipis=$(( $(ipis) - ipis0 ))" \
	"async_free=${d[asi_pageflag_async_free]} queue_hwm=${queue_max:-0} stranded_max_kib=$stranded_kib" \
	"$(na flip_p50_us "$p50")$(na flip_p99_us "$p99")$(na flip_irqsoff_max_us "$irqsoff")$extra"
exit "$rc"
