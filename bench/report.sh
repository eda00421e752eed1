#!/bin/bash
# The tables and ratios of `make bench` (bench/run.sh runs this last), from
# the results its boots left in build/bench/<mode>/bench.txt: the allocator
# microbenchmark and the pressure run per mode, then every stressor's
# asi=on/asi=off ratio per allocator mode and, for freelist mode, how often
# its processes left their restricted spaces (all exits, page faults, mm
# switches) and flushed on transitions, per op and per second. Run alone, it
# prints the last run's report again.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

runs=$BUILD/bench
modes=(off pageflag freelist)
for m in "${modes[@]}"; do
	[ -s "$runs/$m/bench.txt" ] || die "no results in $runs/$m/bench.txt: run 'make bench'"
done

get() { awk -v k="$2" '$1 == k { print $2 }' "$runs/$1/bench.txt"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
stressors="vm mmap brk fork"
# Geometric mean over the lone stressors of mode $1's rate over mode $2's.
geo() {
	local st pairs=
	for st in $stressors; do
		pairs="$pairs $(get "$1" "stress_${st}_ops_per_sec"):$(get "$2" "stress_${st}_ops_per_sec")"
	done
	# A stressor missing or without a bogo-op in either mode makes it meaningless.
	echo "$pairs" | awk '{ s = 0; n = 0; for (i = 1; i <= NF; i++) {
			split($i, r, ":")
			if (r[1] == "" || r[2] == "" || r[1] <= 0 || r[2] <= 0) {
				print "n/a (a stressor has no bogo-op rate)"; exit }
			s += log(r[1] / r[2]); n++ }
		if (n) printf "%.2f", exp(s / n); else print "n/a" }'
}

printf '%-9s %13s %12s' mode "alloc+free/s" "flushes/1e6"
for st in $stressors; do printf ' %9s' "$st/s"; done
printf ' %10s %15s %10s\n' "OOM kills" "pressure flush" "queue hwm"
for m in "${modes[@]}"; do
	printf '%-9s %13s %12s' "$m" "$(get $m alloc_free_pages_per_sec)" "$(get $m flushes_per_million_frees)"
	for st in $stressors; do printf ' %9s' "$(get $m "stress_${st}_ops_per_sec")"; done
	printf ' %10s %15s %10s\n' "$(get $m pressure_oom_kills)" \
		"$(get $m pressure_asi_tlb_flushes)" "$(get $m pageflag_queue_hwm)"
done
fl=$(get freelist alloc_free_pages_per_sec)
echo
echo "freelist/asi=off alloc+free:  $(ratio "$fl" "$(get off alloc_free_pages_per_sec)") (goal >= 0.97)"
echo "freelist/pageflag alloc+free: $(ratio "$fl" "$(get pageflag alloc_free_pages_per_sec)") (goal >= 3)"
echo "freelist flushes per 10^6 frees: $(get freelist flushes_per_million_frees) (goal <= 1000)"
echo "freelist/asi=off stress-ng (geomean of $stressors):   $(geo freelist off)"
echo "freelist/pageflag stress-ng (geomean of $stressors):  $(geo freelist pageflag)"

# Every stressor: asi=on/asi=off per allocator mode, and how often the
# stressor's processes left their restricted spaces.
echo
printf '%-8s %10s %10s %10s %13s %13s %9s %9s %9s %9s %10s %10s\n' stressor "off/s" \
	"pageflag/s" "freelist/s" "pageflag/off" "freelist/off" "exits/op" "faults/op" \
	"switch/op" "flush/op" "exits/s" "flushes/s"
per_op() {	# stressor, key: freelist's count per bogo-op
	awk -v x="$(get freelist "stress_$1_$2")" -v n="$(get freelist "stress_$1_ops")" \
		'BEGIN { if (n > 0 && x != "") printf "%.2f", x / n; else print "n/a" }'
}
per_sec() {	# stressor, key: freelist's count per second of its run
	awk -v x="$(get freelist "stress_$1_$2")" -v n="$(get freelist "stress_$1_ops")" \
		-v r="$(get freelist "stress_$1_ops_per_sec")" \
		'BEGIN { if (n > 0 && x != "" && r != "") printf "%.0f", x * r / n; else print "n/a" }'
}
# Mode $1's slowest run of stressor $2 over its fastest: how far one run
# can be from another under TCG.
spread() {
	awk -v k="stress_$2_runs" '$1 == k && NF > 1 { lo = hi = $2
			for (i = 3; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i } }
		END { if (hi > 0) printf "%.2f", lo / hi; else print "n/a" }' "$runs/$1/bench.txt"
}
for st in vm mmap brk fork get null pipe sigq futex read4k read64k getppid pipe1 kvm; do
	off=$(get off "stress_${st}_ops_per_sec") pf=$(get pageflag "stress_${st}_ops_per_sec")
	fl=$(get freelist "stress_${st}_ops_per_sec")
	printf '%-8s %10s %10s %10s %13s %13s %9s %9s %9s %9s %10s %10s\n' "$st" "$off" "$pf" \
		"$fl" "$(ratio "$pf" "$off")" "$(ratio "$fl" "$off")" "$(per_op $st exits)" \
		"$(per_op $st fault_exits)" "$(per_op $st switch_exits)" "$(per_op $st flushes)" \
		"$(per_sec $st exits)" "$(per_sec $st flushes)"
done
echo "(goal: asi=on/asi=off >= 0.95 for each stressor; exits and flushes are those of freelist mode;"
echo " read4k/read64k: pages dd reads from a tmpfs file 4/64 KiB at a time; getppid: calls;"
echo " pipe1: 512-byte writes+reads of a pipe by one process; kvm: a real-mode KVM guest's I/O"
echo " exits, each a round trip to user space)"
echo
echo "slowest run over fastest, per mode (the best run counts above):"
printf '  %-8s %8s %8s %8s\n' stressor off pageflag freelist
for st in vm mmap brk fork get null pipe sigq futex read4k read64k getppid pipe1 kvm; do
	printf '  %-8s %8s %8s %8s\n' "$st" "$(spread off $st)" "$(spread pageflag $st)" \
		"$(spread freelist $st)"
done
echo
echo "each stressor's most frequent page-fault exit in freelist mode (region, site, count):"
for st in vm mmap brk fork get null pipe sigq futex; do
	awk -v k="top_exit_$st" -v st="$st" '$1 == k { printf "  %-7s %-10s %s (%s)\n", st, $2, $3, $4 }' \
		"$runs/freelist/bench.txt"
done
echo "results: $runs"
