#!/bin/bash
# stress/report.py on a recorded sample (tests/data/compare-sample.txt):
# the report has a table per scenario, the goals and a conclusion, and the
# numbers it derives are the ones worked out by hand from the sample.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

python3 "$top/stress/report.py" "$top/tests/data/compare-sample.txt" --out "$out" --no-plots > /dev/null ||
	fail "report.py failed on the sample"
r=$out/report.md
cat "$r"
for h in "## alternate" "## Goals" "## Conclusion"; do
	grep -qx "$h" "$r" || fail "no '$h' section"
done
# pageflag: 422177 flushes for 422164 pages (1.610 GiB) = 262152.1 per GiB;
# freelist: 10 flushes for 256 MiB flipped to sensitive = 40.0 per GiB.
grep -q 'met: over all runs, freelist made 40.0 TLB flushes per GiB flipped to sensitive; pageflag 262152.1 per GiB' "$r" ||
	fail "wrong flushes-per-GiB goal line"
# freelist lost (980856 - 980636) * 1000 / 980856 = 0.22 permille.
grep -q '^| free memory lost (permille) | 0.09 | 0.26 | 0.22 |' "$r" || fail "wrong free-memory row"
grep -q '^| ASI TLB flushes | 0 | 422177 | 10 | - | - |' "$r" || fail "wrong TLB flush row (or a ratio to a zero)"

# Bad input: a clear error, no traceback.
echo "RESULT scenario=x mode=bogus" > "$out/bad.txt"
msg=$(python3 "$top/stress/report.py" "$out/bad.txt" --out "$out" 2>&1) && fail "accepted an unknown mode"
[[ $msg == *"bad.txt:1:"* && $msg != *Traceback* ]] || fail "unclear error for a bad line: $msg"
echo PASS
