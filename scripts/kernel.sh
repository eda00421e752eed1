#!/bin/bash
# Configure and build one kernel variant out of tree: build/out-<variant>.
#   asi     - the test kernel: base + debug + ASI (default)
#   noasi   - build-only: min + ASI compiled out; proves the generic stubs
#             build (no drivers or debug info, so it is fast)
#   min-asi - build-only: min + ASI and its KUnit tests (check-series.sh)
#   distro  - asi + what a distribution kernel has (NUMA, hotplug, swap,
#             hugetlbfs, modules, ...) and KASAN/DEBUG_PAGEALLOC (make test-distro)
#   bench   - base + ASI without the debugging (make bench)
# OUT=dir builds elsewhere (e.g. to keep another build's output).
# Fails, naming them, if options the fragments ask for did not survive.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

variant=${1:-asi}
case "$variant" in
asi)     frags=(base debug asi) ;;
noasi)   frags=(min noasi) ;;
min-asi) frags=(min asi) ;;
distro)  frags=(base debug asi distro) ;;
bench)   frags=(base asi bench) ;;
*) die "unknown kernel variant '$variant' (expected asi, noasi, min-asi, distro or bench)" ;;
esac
[ -f "$SRC/Makefile" ] || die "no kernel tree in $SRC: run 'make tree' first"

out=$(realpath -m "${OUT:-$BUILD/out-$variant}")
mkdir -p "$out"
files=()
for f in "${frags[@]}"; do files+=("$TOP/configs/$f.config"); done

# Reconfigure only when a fragment changed, so rebuilds stay incremental.
# A patch that adds an option a fragment asks for also makes it reconfigure.
stamp=$(cat "${files[@]}" "$SRC/arch/x86/Kconfig" "$SRC/mm/Kconfig" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.config-fragments" 2>/dev/null)" != "$stamp" ]; then
	note "configuring $variant from: ${frags[*]}"
	# A configuration that fails its checks must not look done next time.
	rm -f "$out/.config-fragments"
	make -s -C "$SRC" O="$out" tinyconfig >/dev/null
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${files[@]}" >/dev/null
	make -s -C "$SRC" O="$out" olddefconfig >/dev/null
	missing=0
	for f in "${files[@]}"; do
		while read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
				opt=${BASH_REMATCH[1]}
				# check-series.sh builds commits from before an option existed.
				if [ -n "${KCONFIG_ONLY_KNOWN:-}" ] &&
				   ! grep -rqE "^(menu)?config ${opt#CONFIG_}\b" --include='Kconfig*' "$SRC"; then
					continue
				fi
				grep -qx "$line" "$out/.config" || {
					echo "error: $(basename "$f"): $line requested, .config has: $(grep -E "^(# )?$opt[= ]" "$out/.config" || echo nothing)" >&2
					missing=1
				}
			elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
				opt=${BASH_REMATCH[1]}
				! grep -qE "^$opt=[ym]" "$out/.config" || {
					echo "error: $(basename "$f"): $opt must be off but is on" >&2
					missing=1
				}
			fi
		done < "$f"
	done
	[ $missing = 0 ] || die "the final .config lacks requested options (see above): check their dependencies"
	echo "$stamp" > "$out/.config-fragments"
fi

export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=true
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
note "building $variant kernel in $out"
targets=(bzImage)
# Modules: modpost checks what they use is exported; the distro kernel's
# Module.symvers is for the out-of-tree test module (tests/module).
grep -q '^CONFIG_MODULES=y' "$out/.config" && targets+=(modules)
make -C "$SRC" O="$out" -j"$(($(nproc) + 1))" CC="$cc" "${targets[@]}"
