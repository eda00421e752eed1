#!/bin/bash
# Build tests/module against a kernel build directory (make test-distro):
#   tests/module/build.sh build/out-distro
# The objects go to <kernel build dir>/asi-test-module, never into the checkout.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
kout=$(realpath "${1:?usage: tests/module/build.sh KERNEL_BUILD_DIR}")
[ -f "$kout/Module.symvers" ] || die "no Module.symvers in $kout: build it with scripts/kernel.sh distro"
dir=$kout/asi-test-module
rm -rf "$dir"
mkdir -p "$dir"
cp "$TOP/tests/module/asi_test_mod.c" "$TOP/tests/module/Kbuild" "$dir/"
make -C "$SRC" O="$kout" M="$dir" modules
ls -l "$dir/asi_test_mod.ko"
