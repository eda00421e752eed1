#!/bin/bash
# Build every patch boundary of build/linux (each commit from base to HEAD),
# with ASI and without, incrementally in build/out-series-{min-asi,noasi}
# (build-only configs: configs/min.config), and name the first commit that
# does not build. The commits are checked out in a worktree of their own,
# build/series-tree, so build/linux stays as it is and can be worked on
# meanwhile; only committed work is built. Config options a fragment asks
# for that this commit's Kconfig does not define yet (tests added by a later
# patch) are left out.
#
# FROM=<n> starts at patch n of the whole series (1 = the first core patch),
# for when the patches before it have not changed since a full run; the
# first boundary built is then patch n itself. TO=<n> stops after patch n
# (default: the last), for one new patch in the middle of the series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no kernel tree: run 'make tree' first"
[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
	note "build/linux has uncommitted changes: they are not built"
head=$(tgit rev-parse HEAD)
total=$(tgit rev-list --count "base..$head")
from=${FROM:-1} to=${TO:-$total}
[[ $from =~ ^[0-9]+$ ]] && [ "$from" -ge 1 ] && [ "$from" -le "$total" ] ||
	die "FROM=$from: expected a patch number from 1 to $total"
[[ $to =~ ^[0-9]+$ ]] && [ "$to" -ge "$from" ] && [ "$to" -le "$total" ] ||
	die "TO=$to: expected a patch number from $from (FROM) to $total"
tree=$BUILD/series-tree
if ! git -C "$tree" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$tree"
	tgit worktree prune
	tgit worktree add -q --detach "$tree" base
	# Objects built from another source tree: their dependency files
	# name that tree's sources, so nothing would be rebuilt.
	rm -rf "$BUILD/out-series-min-asi" "$BUILD/out-series-noasi"
fi

logs=$BUILD/series
mkdir -p "$logs"
n=0
for c in $(tgit rev-list --reverse "base..$head"); do
	n=$((n + 1))
	[ "$n" -ge "$from" ] || continue
	[ "$n" -le "$to" ] || break
	subj=$(tgit log -1 --format=%s "$c")
	git -C "$tree" checkout -q --detach "$c"
	for v in min-asi noasi; do
		log=$logs/$(printf %02d $n)-$v.log
		if ! SRC=$tree KCONFIG_ONLY_KNOWN=1 OUT=$BUILD/out-series-$v \
		     "$TOP/scripts/kernel.sh" "$v" > "$log" 2>&1; then
			grep -E 'error|Error' "$log" | head -10 >&2
			die "patch $n does not build ($v): $(tgit log -1 --format='%h %s' "$c") (log: $log)"
		fi
	done
	echo "ok $n - builds with and without ASI: $subj"
done
n=$to
if [ "$from" = 1 ] && [ "$to" = "$total" ]; then
	echo "all $n patches build"
else
	echo "patches $from to $to of $total build (the others not rebuilt: FROM=$from TO=$to)"
fi
