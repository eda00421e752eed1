// SPDX-License-Identifier: GPL-2.0
/*
 * Run a tiny real-mode guest through /dev/kvm: it writes ROUNDS bytes to an
 * I/O port, one VM exit each, and halts. Exits 0 when every byte arrived in
 * order, 1 (saying what went wrong) otherwise, 2 when KVM refused. With
 * --hold it then prints "holding" and keeps the VM until its standard input
 * closes, for a look at the VM's restricted space. test-kvm.sh runs it in
 * the guests of make test (nested SVM under TCG).
 *
 * With --close-while-running the guest spins instead, and a second thread
 * closes every reference to the vCPU and the VM while the first is in
 * KVM_RUN, then interrupts it: KVM_RUN's own fput() destroys the VM on the
 * way back to user mode. Exits 0 when KVM_RUN came back with EINTR, 3 when
 * the close came too early to tell.
 *
 *   kvm-hello [--hold] [ROUNDS [REPEAT]]
 *         ROUNDS: 1 to 254, default 100; REPEAT: run the guest that many
 *         times over (default 1), for make bench
 *   kvm-hello --close-while-running
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PORT 0x10
#define MEM_SIZE 0x1000

static void die(const char *what)
{
	perror(what);
	exit(2);
}

struct closer {
	pthread_t runner;
	int vm, vcpu;
	void *run;
	long run_size;
};

static void on_signal(int sig)
{
}

/* Drop every reference to the vCPU and the VM, then interrupt KVM_RUN. */
static void *close_all(void *arg)
{
	struct closer *c = arg;

	sleep(2);
	munmap(c->run, c->run_size);
	close(c->vcpu);
	close(c->vm);
	pthread_kill(c->runner, SIGUSR1);
	return NULL;
}

static int close_while_running(int vm, int vcpu, void *run, long run_size)
{
	struct closer c = { pthread_self(), vm, vcpu, run, run_size };
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_t t;
	int r;

	if (sigaction(SIGUSR1, &sa, NULL) || pthread_create(&t, NULL, close_all, &c))
		die("kvm-hello: closing thread");
	r = ioctl(vcpu, KVM_RUN, 0);
	pthread_join(t, NULL);
	if (r == 0 || errno != EINTR) {
		fprintf(stderr, "kvm-hello: KVM_RUN returned %d (%s) instead of EINTR: %s\n",
			r, r ? strerror(errno) : "no error",
			errno == EBADF ? "closed before it started" : "unexpected");
		return errno == EBADF ? 3 : 1;
	}
	printf("kvm-hello: VM closed while in KVM_RUN, which returned EINTR\n");
	return 0;
}

/* Keep the VM until standard input closes. */
static int hold(void)
{
	char buf[64];

	printf("kvm-hello: holding\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	int closing = argc == 2 && !strcmp(argv[1], "--close-while-running");
	int holding = argc > 1 && !strcmp(argv[1], "--hold");
	const char *arg = argc > 1 + holding && !closing ? argv[1 + holding] : "100";
	const char *rep = argc > 2 + holding ? argv[2 + holding] : "1";
	int rounds = atoi(arg), repeat = atoi(rep), done = 0;
	/*
	 * 16-bit code at 0x0: mov $1,%al; loop: out %al,$PORT; inc %al;
	 * cmp $ROUNDS+1,%al; jne loop; hlt
	 */
	uint8_t code[] = {
		0xb0, 0x01,			/* mov $1, %al */
		0xe6, PORT,			/* out %al, $PORT */
		0xfe, 0xc0,			/* inc %al */
		0x3c, 0x00,			/* cmp $ROUNDS+1, %al */
		0x75, 0xf8,			/* jne out */
		0xf4,				/* hlt */
	};
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, seen = 0;
	long run_size;
	uint8_t *mem;

	if (rounds < 1 || rounds > 254 || repeat < 1 || argc > 3 + holding) {
		fprintf(stderr, "usage: kvm-hello [--hold] [ROUNDS [REPEAT]]  (ROUNDS: 1 to 254, REPEAT: 1 or more; got '%s' '%s')\n",
			arg, rep);
		return 2;
	}
	code[7] = rounds + 1;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("open /dev/kvm");
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		die("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		die("mmap guest memory");
	memcpy(mem, code, sizeof(code));
	if (closing)
		memcpy(mem, "\xeb\xfe", 2);	/* jmp . */
	region = (struct kvm_userspace_memory_region){
		.slot = 0, .guest_phys_addr = 0, .memory_size = MEM_SIZE,
		.userspace_addr = (uintptr_t)mem,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (long)sizeof(*run))
		die("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap kvm_run");

	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		die("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		die("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = 0;
	regs.rflags = 0x2;
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		die("KVM_SET_REGS");
	if (closing)
		return close_while_running(vm, vcpu, run, run_size);

	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0)
			die("KVM_RUN");
		switch (run->exit_reason) {
		case KVM_EXIT_IO: {
			uint8_t val = *((uint8_t *)run + run->io.data_offset);

			if (run->io.direction != KVM_EXIT_IO_OUT ||
			    run->io.port != PORT || run->io.size != 1) {
				fprintf(stderr, "kvm-hello: unexpected I/O exit: port %#x size %u\n",
					run->io.port, run->io.size);
				return 1;
			}
			if (val != seen + 1) {
				fprintf(stderr, "kvm-hello: byte %d is %u, expected %d\n",
					seen + 1, val, seen + 1);
				return 1;
			}
			seen++;
			break;
		}
		case KVM_EXIT_HLT:
			if (seen != rounds) {
				fprintf(stderr, "kvm-hello: halted after %d of %d bytes\n",
					seen, rounds);
				return 1;
			}
			if (++done < repeat) {
				seen = 0;
				if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
					die("KVM_SET_REGS");
				break;
			}
			printf("kvm-hello: %d I/O exits, then hlt\n", seen);
			fflush(stdout);
			return holding ? hold() : 0;
		default:
			fprintf(stderr, "kvm-hello: unexpected exit reason %u after %d bytes\n",
				run->exit_reason, seen);
			return 1;
		}
	}
}
