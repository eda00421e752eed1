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
# The module's source lives here, not as files in the checkout: kernel
# sources belong to the build directory.
echo 'obj-m := asi_test_mod.o' > "$dir/Kbuild"
cat > "$dir/asi_test_mod.c" <<'SRC'
// SPDX-License-Identifier: GPL-2.0
/*
 * A module with text, read-only data and data, for tests/distro/test-module.sh:
 * while it is loaded they are in ASI's global nonsensitive space (module
 * memory is vmalloc'ed from nonsensitive pages), and after unloading no
 * restricted page table maps them any more. The addresses come from
 * /sys/module/asi_test_mod/sections/.
 */
#include <linux/init.h>
#include <linux/module.h>

static const char asi_test_rodata[] = "asi test module read-only data";
static char asi_test_data[64] = "asi test module data";

static int __init asi_test_mod_init(void)
{
	pr_info("asi_test_mod: loaded (%s, %s)\n", asi_test_rodata, asi_test_data);
	return 0;
}

static void __exit asi_test_mod_exit(void)
{
	pr_info("asi_test_mod: unloaded\n");
}

module_init(asi_test_mod_init);
module_exit(asi_test_mod_exit);
MODULE_DESCRIPTION("ASI test module: module memory in the restricted space");
MODULE_LICENSE("GPL");
SRC
make -C "$SRC" O="$kout" M="$dir" modules
ls -l "$dir/asi_test_mod.ko"
