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
