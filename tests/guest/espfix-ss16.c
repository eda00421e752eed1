// SPDX-License-Identifier: GPL-2.0
/*
 * Spins on a 16-bit stack segment (an LDT data segment, as Wine and DOSEMU
 * use), so that the interrupts it takes return to user mode through the
 * kernel's ESPFIX64 stacks. Exits 77 when the kernel has no LDT.
 */
#include <asm/ldt.h>
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS	200
#define SPINS	500000

int main(void)
{
	struct user_desc desc = {
		.entry_number = 0, .limit = 0xfffff, .seg_32bit = 0,
		.contents = 0 /* data */, .limit_in_pages = 1, .useable = 1,
	};
	unsigned short ss16 = 0 << 3 | 4 | 3;	/* LDT entry 0, RPL 3 */
	unsigned short ss, seen;
	unsigned long round, i;

	if (syscall(SYS_modify_ldt, 1, &desc, sizeof(desc))) {
		if (errno == ENOSYS) {
			printf("this kernel has no LDT (CONFIG_MODIFY_LDT_SYSCALL)\n");
			return 77;
		}
		perror("modify_ldt");
		return 1;
	}
	asm volatile("mov %%ss, %0" : "=r" (ss));
	for (round = 0; round < ROUNDS; round++) {
		/* No system call in between: SYSRET would load the flat SS. */
		asm volatile("mov %0, %%ss" : : "r" (ss16));
		for (i = 0; i < SPINS; i++)
			asm volatile("" : : : "memory");
		asm volatile("mov %%ss, %0" : "=r" (seen));
		asm volatile("mov %0, %%ss" : : "r" (ss));
		if (seen != ss16) {
			fprintf(stderr, "SS was %#x, not %#x, after round %lu\n",
				seen, ss16, round);
			return 1;
		}
	}
	printf("%d rounds of %d spins on a 16-bit stack segment\n", ROUNDS, SPINS);
	return 0;
}
