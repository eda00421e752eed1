#!/bin/bash
# stress/report.py on a recorded sample (tests/data/compare-sample.txt):
# the report has a table per scenario, the goals and a conclusion, and the
# numbers it derives are the ones worked out by hand from the sample; bad
# input gets a one-line error, and failed runs are left out.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

python3 "$top/stress/report.py" "$top/tests/data/compare-sample.txt" --out "$out" --no-plots > /dev/null ||
	fail "report.py failed on the sample"
r=$out/report.md
cat "$r"
for h in "## alternate" "## oom-grab" "## Goals" "## Conclusion"; do
	grep -qx "$h" "$r" || fail "no '$h' section"
done
# freelist: 12 + 17 flushes for 270 + 492 MiB flipped to sensitive = 39.0
# per GiB; pageflag: 832105 + 316967 flushes for 1387240 + 527577 pages
# (7.305 GiB) = 157311.3 per GiB.
grep -q 'met: over all runs, freelist made 39.0 TLB flushes per GiB made sensitive (flipped or lent); pageflag 157311.3 per GiB' "$r" ||
	fail "wrong flushes-per-GiB goal line"
# oom-grab: 860 MiB with the free lists, 900 with asi=off: 0.956, missed.
grep -q "MISSED: \`oom-grab\`: freelist obtained 860 MiB before the OOM kill, 0.956 × asi=off's 900" "$r" ||
	fail "wrong memory-obtained goal line"
grep -q 'was 0.956 × asi=off.s with the free lists and 1.000 × with the page flag' "$r" ||
	fail "the conclusion swaps the modes"
# freelist alternate lost (980820 - 972400) * 1000 / 980820 = 8.58 permille.
grep -q '^| free memory lost (permille) | 0.33 | 0.39 | 8.58 |' "$r" || fail "wrong free-memory row"
grep -q '^| ASI TLB flushes | 0 | 832105 | 12 | - | - |' "$r" || fail "wrong TLB flush row (or a ratio to a zero)"

# The plots, where gnuplot is (make deps installs it): one per charted
# metric, the flush ones too, which only one mode has each.
if command -v gnuplot > /dev/null; then
	python3 "$top/stress/report.py" "$top/tests/data/compare-sample.txt" --out "$out/plots" > /dev/null ||
		fail "report.py failed on the sample with plots"
	for p in obtained_mib oom_kill stalls psi_some_ms flushes_per_gib_sensitive flushes_per_gib_freed; do
		[ -s "$out/plots/$p.png" ] || fail "no plot $p.png"
		grep -q "($p.png)" "$out/plots/report.md" || fail "report.md does not show $p.png"
	done
else
	echo "gnuplot missing: plots not checked (make deps installs it)"
fi

# Lent pages count as made sensitive: 8 flushes for 2 MiB flipped and 512
# pages (2 MiB) lent = 2048 per GiB; the page flag's 256 flushes for 256
# pages freed = 262144 per GiB.
printf '%s\n' "RESULT scenario=t mode=freelist rc=0 s_mib=2 lent_pages=512 tlb_flush=8" \
	"RESULT scenario=t mode=pageflag rc=0 async_free=256 tlb_flush_pages=256 tlb_flush=256" > "$out/lent.txt"
python3 "$top/stress/report.py" "$out/lent.txt" --out "$out/lent" --no-plots > /dev/null ||
	fail "report.py failed on lent pages"
grep -q 'freelist made 2048.0 TLB flushes per GiB made sensitive (flipped or lent); pageflag 262144.0 per GiB' \
	"$out/lent/report.md" || fail "lent pages not counted as made sensitive"
grep -q '^| stranded memory lent to sensitive allocations (MiB) | - | - | 2 |' "$out/lent/report.md" ||
	fail "no lent-memory row"

# Bad input: a clear error, no traceback; failed runs are left out, named.
echo "RESULT scenario=x mode=bogus" > "$out/bad.txt"
msg=$(python3 "$top/stress/report.py" "$out/bad.txt" --out "$out" 2>&1) && fail "accepted an unknown mode"
[[ $msg == *"bad.txt:1:"* && $msg != *Traceback* ]] || fail "unclear error for a bad line: $msg"
msg=$(python3 "$top/stress/report.py" "$out/missing.txt" --out "$out" 2>&1) && fail "accepted a missing file"
[[ $msg == *"cannot read"* && $msg != *Traceback* ]] || fail "unclear error for a missing file: $msg"
{ cat "$top/tests/data/compare-sample.txt"; echo "RESULT scenario=alternate mode=off rc=3 oom_kill=7"; } > "$out/failed.txt"
msg=$(python3 "$top/stress/report.py" "$out/failed.txt" --out "$out" --no-plots 2>&1) || fail "a failed run stopped the report"
[[ $msg == *"failed (rc=3): left out"* ]] || fail "a failed run was not named: $msg"
! grep -q '^| OOM kills | 7' "$out/report.md" || fail "a failed run went into the report"
echo PASS
