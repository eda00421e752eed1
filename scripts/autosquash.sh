#!/bin/bash
# Fold build/linux's "fixup! <subject>" (and "amend! <subject>", whose body is
# the new message) commits into the patches they fix
# (git rebase -i --autosquash from base), check that the result has the same
# tree, and move the layer tags. A rebase rewrites every file any patch
# touches; files whose content came out the same get their old modification
# time back, so the next kernel build stays incremental. --retag only moves
# the layer tags (after a rebase you finished by hand).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Each layer tag moves to the rewritten commit with its old subject.
retag() {
	local layer subj c
	for layer in "${LAYERS[@]}"; do
		subj=$(tgit log -1 --format=%s "layer-$layer")
		c=$(tgit log --format='%H %s' base..HEAD |
			awk -v s="$subj" 'substr($0, 42) == s && !c { c = $1 } END { print c }')
		[ -n "$c" ] || die "layer-$layer: no commit '$subj' after the rebase"
		tgit tag -f "layer-$layer" "$c" >/dev/null
	done
	note "$(for l in "${LAYERS[@]}"; do echo -n "layer-$l=$(tgit rev-parse --short "layer-$l") "; done)"
}

[ -d "$SRC/.git" ] || die "no kernel tree: run 'make tree' first"
if [ "${1:-}" = --retag ]; then
	retag
	exit 0
fi
[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
	die "build/linux has uncommitted changes: commit them as fixups first"
subjects() { tgit log --format=%s base..HEAD; }
[ "$(subjects | grep -cE '^(fixup|amend)! ')" -gt 0 ] || die "no fixup! or amend! commits to fold"

before=$(tgit rev-parse HEAD)
stamps=$(mktemp)
trap 'rm -f "$stamps"' EXIT
# path, blob and mtime of every file the series touches
tgit diff --name-only base HEAD | while read -r f; do
	if [ -f "$SRC/$f" ]; then
		echo "$f $(tgit rev-parse "HEAD:$f") $(stat -c %Y "$SRC/$f")"
	fi
done > "$stamps"

GIT_SEQUENCE_EDITOR=true tgit rebase -q -i --autosquash base ||
	die "the rebase stopped (conflict?): resolve it in $SRC and 'git rebase --continue', then scripts/autosquash.sh --retag; or 'git rebase --abort'"
[ -z "$(tgit diff "$before" HEAD)" ] || die "folding changed the tree: compare $before with HEAD"
[ "$(subjects | grep -cE '^(fixup|amend)! ')" = 0 ] || die "a fixup! or amend! matched no patch subject"

while read -r f blob mtime; do
	if [ "$(tgit rev-parse "HEAD:$f" 2>/dev/null)" = "$blob" ]; then
		touch -d "@$mtime" "$SRC/$f"
	fi
done < "$stamps"

retag
