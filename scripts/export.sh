#!/bin/bash
# Turn the commits of build/linux back into patches-<layer>/ and their series.
# Layers are the ranges base..layer-core..layer-pagealloc..layer-transitions..
# layer-slab. New commits on top go to the highest non-empty layer, or to
# LAYER=<name>.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$SRC/.git" ] || die "no kernel tree: run 'make tree' first"
[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them first"
for l in "${LAYERS[@]}"; do
	tgit rev-parse -q --verify "layer-$l" >/dev/null || die "tag layer-$l missing in build/linux: run 'make tree'"
done
[ "$(tgit log --format=%s base..HEAD | grep -c '^fixup! ')" = 0 ] ||
	die "build/linux has fixup! commits: fold them first (make autosquash)"

if [ -n "$(tgit rev-list layer-slab..HEAD)" ]; then
	target=${LAYER:-}
	if [ -z "$target" ]; then
		target=core
		prev=base
		for l in "${LAYERS[@]}"; do
			[ "$(tgit rev-parse "layer-$l")" != "$(tgit rev-parse $prev)" ] && target=$l
			prev=layer-$l
		done
	fi
	case " ${LAYERS[*]} " in *" $target "*) ;; *) die "LAYER=$target: expected one of ${LAYERS[*]}" ;; esac
	moving=0
	for l in "${LAYERS[@]}"; do
		[ "$l" = "$target" ] && moving=1
		[ $moving = 1 ] || continue
		if [ "$l" != "$target" ] && [ "$(tgit rev-parse "layer-$l")" != "$(tgit rev-parse layer-slab)" ]; then
			die "new commits would land in $target, but layer $l above it has patches: rebase them into place and move the layer-* tags"
		fi
	done
	moving=0
	for l in "${LAYERS[@]}"; do
		[ "$l" = "$target" ] && moving=1
		[ $moving = 1 ] && tgit tag -f "layer-$l" HEAD >/dev/null
	done
	note "new commits added to layer $target"
fi

prev=base
for l in "${LAYERS[@]}"; do
	dir=$TOP/patches-$l
	mkdir -p "$dir"
	rm -f "$dir"/*.patch
	tgit format-patch -q --zero-commit --abbrev=9 --no-signature -o "$dir" "$prev..layer-$l" >/dev/null
	{
		echo "# patches-$l: applied in this order by scripts/tree.sh (git am)"
		(cd "$dir" && ls -1 -- *.patch 2>/dev/null || true)
	} > "$dir/series"
	note "patches-$l: $(grep -c '\.patch$' "$dir/series" || true) patches"
	prev=layer-$l
done
# The tree now matches the files: record it so 'make tree' leaves it alone.
"$TOP/scripts/tree.sh" --stamp-only
