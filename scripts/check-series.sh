#!/bin/bash
# Build every patch boundary of build/linux (each commit from base to HEAD),
# with ASI and without, incrementally in build/out-series-{min-asi,noasi}
# (build-only configs: configs/min.config), and name the first commit that
# does not build. The tree goes back to where it
# was. Config options a fragment asks for that this commit's Kconfig does
# not define yet (tests added by a later patch) are left out.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no kernel tree: run 'make tree' first"
[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit or stash them first"
orig=$(tgit symbolic-ref -q --short HEAD || tgit rev-parse HEAD)
trap 'tgit checkout -q "$orig"' EXIT

logs=$BUILD/series
mkdir -p "$logs"
n=0
for c in $(tgit rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subj=$(tgit log -1 --format=%s "$c")
	tgit checkout -q --detach "$c"
	for v in min-asi noasi; do
		log=$logs/$(printf %02d $n)-$v.log
		if ! KCONFIG_ONLY_KNOWN=1 OUT=$BUILD/out-series-$v "$TOP/scripts/kernel.sh" "$v" > "$log" 2>&1; then
			grep -E 'error|Error' "$log" | head -10 >&2
			die "patch $n does not build ($v): $(tgit log -1 --format='%h %s' "$c") (log: $log)"
		fi
	done
	echo "ok $n - builds with and without ASI: $subj"
done
echo "all $n patches build"
