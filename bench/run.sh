#!/bin/bash
# `make bench`: one kernel (the bench variant, configs/bench.config), three
# boots (asi=off, asi=on asi_alloc=pageflag, asi=on asi_alloc=freelist),
# bench/guest.sh in each; then bench/report.sh prints the tables and the
# ratios against the goals. A benchmark, not a test: it fails only when a
# boot does not report. Results and logs go to build/bench/.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
cd "$TOP" || exit 1

for v in BENCH_PAGES BENCH_ROUNDS BENCH_REPEATS BENCH_SECONDS BENCH_TIMEOUT; do
	[[ ${!v:-1} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive whole number, not '${!v}'"
done

# The bench variant (configs/bench.config): the test kernel's debugging
# would weigh on every mode alike and hide what ASI costs.
kernel=$BUILD/out-bench/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel at $kernel: run 'scripts/kernel.sh bench' (make bench does)"
runs=$BUILD/bench
rm -rf "$runs"
mkdir -p "$runs"
modes=(off pageflag freelist)
# A boot's guest time grows with the runs: 14 lone stressors, each
# BENCH_REPEATS runs of a third of BENCH_SECONDS, and the rest.
timeout=${BENCH_TIMEOUT:-$((600 + 20 * ${BENCH_REPEATS:-3} * ${BENCH_SECONDS:-20}))}
# asi_ioremap=uncached: TCG's CPU says it runs under a hypervisor, where
# ioremap() areas stay out by default; bare metal maps uncached ones.
declare -A param=([off]="asi=off" [pageflag]="asi=on asi_alloc=pageflag asi_ioremap=uncached"
		  [freelist]="asi=on asi_alloc=freelist asi_ioremap=uncached")

for m in "${modes[@]}"; do
	note "bench: booting with ${param[$m]}"
	vm/run.sh --kernel "$kernel" --out "$runs/$m" --timeout "$timeout" \
		--append "${param[$m]} kunit.enable=0" -- \
		env BENCH_PAGES="${BENCH_PAGES:-200000}" BENCH_ROUNDS="${BENCH_ROUNDS:-3}" \
		BENCH_REPEATS="${BENCH_REPEATS:-3}" \
		BENCH_SECONDS="${BENCH_SECONDS:-20}" bench/guest.sh \
		> "$runs/$m.stdout" 2>&1 ||
		die "bench: the ${param[$m]} boot failed (see $runs/$m.stdout, $runs/$m/console.log)"
	[ -s "$runs/$m/bench.txt" ] || die "bench: no results from the ${param[$m]} boot"
done

"$TOP/bench/report.sh"
