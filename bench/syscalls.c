// SPDX-License-Identifier: GPL-2.0
/*
 * make bench's smallest system calls, to tell what ASI adds to every system
 * call from what it adds to a copy: "getppid N" makes N getppid() calls,
 * which touch nothing sensitive; "pipe N" writes 512 bytes into a pipe of
 * its own and reads them back, N times, two copies through the kernel's
 * pipe buffer page (user data) and no context switch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	char buf[512], *end;
	long n = 0, i;
	int p[2];

	if (argc == 3) {
		errno = 0;
		n = strtol(argv[2], &end, 10);
		if (errno || *end || end == argv[2])
			n = 0;
	}
	if (n <= 0 || n == LONG_MAX) {
		fprintf(stderr, "usage: %s getppid|pipe <count, a positive number>\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (strcmp(argv[1], "pipe")) {
		fprintf(stderr, "%s: unknown call '%s'\n", argv[0], argv[1]);
		return 2;
	}
	if (pipe(p)) {
		perror("pipe");
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < n; i++) {
		ssize_t w = write(p[1], buf, sizeof(buf));
		ssize_t r = w == sizeof(buf) ? read(p[0], buf, sizeof(buf)) : 0;

		if (r != sizeof(buf)) {
			fprintf(stderr, "%s: pipe %s returned %zd: %s\n", argv[0],
				w != sizeof(buf) ? "write" : "read",
				w != sizeof(buf) ? w : r,
				(w < 0 || r < 0) ? strerror(errno) : "short");
			return 1;
		}
	}
	return 0;
}
