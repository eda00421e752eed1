#!/bin/bash
# Extract Debian's linux-source-6.12 into build/linux (a git repository with a
# `base` tag) and apply patches-{core,pagealloc,transitions,slab}/series with
# `git am`, tagging layer-<name> after each layer. Re-running does nothing
# while the patch files are unchanged, and refuses to throw away work in the
# tree.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TARBALL=/usr/src/linux-source-6.12.tar.xz
STAMP=$SRC/.git/asi-applied

patch_hash() {
	local l
	for l in "${LAYERS[@]}"; do
		[ -f "$TOP/patches-$l/series" ] || continue
		echo "== $l"
		series_files "$l" | while read -r p; do cat "$TOP/patches-$l/$p"; done
	done | sha256sum | cut -d' ' -f1
}

series_files() {
	[ -f "$TOP/patches-$1/series" ] || return 0
	grep -vE '^[[:space:]]*(#|$)' "$TOP/patches-$1/series" || true
}

extract() {
	[ -f "$TARBALL" ] || die "$TARBALL is missing: run 'make deps' (apt-get install linux-source-6.12)"
	local tmp=$SRC.extract
	rm -rf "$tmp"
	mkdir -p "$tmp"
	note "extracting $TARBALL"
	tar -xf "$TARBALL" -C "$tmp" --strip-components=1
	SRC=$tmp tgit init -q -b asi
	SRC=$tmp tgit add -A -f
	SRC=$tmp tgit commit -q -m "base: Debian linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null)"
	# Debian's .gitignore ignores every top-level entry; keep the kernel's own rules.
	sed -i '/^# Debian packaging/,$d' "$tmp/.gitignore"
	sed -i '${/^#$/d}' "$tmp/.gitignore"
	SRC=$tmp tgit commit -q -a -m "base: drop Debian's ignore-everything rule so new files can be committed"
	SRC=$tmp tgit tag base
	mv "$tmp" "$SRC"
}

[ -d "$SRC/.git" ] || extract

want=$(patch_hash)
if [ "${1:-}" = --stamp-only ]; then	# from export.sh: the tree is the files
	echo "$want" > "$STAMP"
	exit 0
fi
if [ "$(cat "$STAMP" 2>/dev/null)" = "$want" ]; then
	note "kernel tree is up to date with the patch series"
	exit 0
fi

# Never lose work: no uncommitted changes, no commits that were not exported.
if [ -n "$(tgit status --porcelain)" ]; then
	tgit status --short | head -20 >&2
	die "build/linux has uncommitted changes: commit them and run 'make export', or discard them yourself"
fi
if [ -f "$STAMP" ] && tgit rev-parse -q --verify layer-slab >/dev/null &&
   [ "$(tgit rev-parse HEAD)" != "$(tgit rev-parse layer-slab)" ]; then
	tgit log --oneline layer-slab..HEAD >&2 || true
	die "build/linux has commits that are not in the patch files: run 'make export' first"
fi

[ -d "$SRC/.git/rebase-apply" ] && tgit am --abort
tgit checkout -q -B asi base
for layer in "${LAYERS[@]}"; do
	while read -r p; do
		f=$TOP/patches-$layer/$p
		[ -f "$f" ] || die "patches-$layer/series names $p, which does not exist"
		if ! out=$(tgit am -q --whitespace=nowarn "$f" 2>&1); then
			tgit am --abort 2>/dev/null || true
			echo "$out" >&2
			die "patches-$layer/$p does not apply to the tree (see above); the tree is left at the last patch that applied"
		fi
	done < <(series_files "$layer")
	tgit tag -f "layer-$layer" >/dev/null
	note "layer $layer: $(series_files "$layer" | wc -l) patches applied"
done
echo "$want" > "$STAMP"
