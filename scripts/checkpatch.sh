#!/bin/bash
# Run the kernel's checkpatch.pl over every patch of patches-*/series, in
# series order; exit non-zero if any has an error or warning.
#
# Ignored, on purpose:
#  --max-line-length=100  the kernel's limit since 2020 (80 is a preference);
#  FILE_PATH_CHANGES      "does MAINTAINERS need updating?": --no-tree cannot
#                         see that patches-core/0001 adds the F: patterns that
#                         cover every new file;
#  include/trace/events/mmflags.h
#                         its flag-name lists are built with macros that start
#                         with a comma (IF_HAVE_PG_MLOCK and friends), which
#                         checkpatch always flags; ours follow that idiom.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cp=$SRC/scripts/checkpatch.pl
[ -f "$cp" ] || die "$cp is missing: run 'make tree' first"
bad=0 n=0
for l in "${LAYERS[@]}"; do
	[ -f "$TOP/patches-$l/series" ] || continue
	while read -r p; do
		n=$((n + 1))
		# checkpatch names the file it read in its report: give it the patch.
		out=$(perl "$cp" --no-tree --quiet --max-line-length=100 \
		      --ignore FILE_PATH_CHANGES "$TOP/patches-$l/$p" 2>&1 |
		      awk -v RS= -v ORS='\n\n' '/^(ERROR|WARNING|CHECK):/ &&
			  !/FILE: include\/trace\/events\/mmflags\.h:/') || true
		[ -z "$out" ] && continue
		bad=$((bad + 1))
		echo "== patches-$l/$p"
		echo "$out"
	done < <(grep -vE '^[[:space:]]*(#|$)' "$TOP/patches-$l/series")
done
echo "checkpatch: $n patches, $bad with errors or warnings"
[ "$bad" = 0 ]
