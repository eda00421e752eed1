// SPDX-License-Identifier: GPL-2.0
/*
 * Read the vsyscall page (vsyscall=emulate maps it readable) and then make
 * a system call, N times. Exits 77 when the page cannot be read.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define VSYSCALL_ADDR 0xffffffffff600000UL

static sigjmp_buf jb;

static void on_segv(int sig)
{
	siglongjmp(jb, 1);
}

int main(int argc, char **argv)
{
	volatile unsigned long *p = (volatile unsigned long *)VSYSCALL_ADDR;
	long i, n = argc > 1 ? atol(argv[1]) : 100;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(jb, 1)) {
		printf("the vsyscall page is not readable (not vsyscall=emulate)\n");
		return 77;
	}
	(void)*p;
	for (i = 0; i < n; i++) {
		(void)*p;
		syscall(SYS_getppid);
	}
	return 0;
}
