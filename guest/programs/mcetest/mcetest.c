// SPDX-License-Identifier: BSD-2-Clause
/*
 * mcetest: a process whose page the hypervisor cannot read back from swap
 * must get SIGBUS (BUS_MCEERR_AR) and nothing else may suffer. Needs
 * apfvisor with debug.hypercall = on and swap (the overcommit tests), and
 * root for the physical address in /proc/self/pagemap.
 *
 * A child process writes a page-sized buffer, finds its physical address
 * (the guest-physical address apfvisor knows), asks apfvisor to fail
 * every swap-in of that page (guest/debug_hypercall.h), asks it to evict
 * the page (or, should it refuse, touches other memory until the page is
 * pushed out) and waits until apfvisor says the page is in swap, and
 * reads the buffer. apfvisor's read fails, the page is lost, and the guest gets an
 * action-required machine check for it; Linux's memory_failure() kills
 * the child with SIGBUS. The child's handler prints what it got and dies
 * of the signal; the parent prints how the child ended and exits 0 when
 * it was killed by SIGBUS, 1 otherwise.
 *
 *   mcetest [-m CHURN_MIB]   at most CHURN_MIB MiB touched to push the
 *                            page out when apfvisor does not evict it
 *                            on request (default 160)
 *
 * Build: gcc -static -O2 (the guest image has no libc).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096ul
#define MIB (1ul << 20)
#define APFVISOR_HC_DEBUG 0x41504601l
#define DEBUG_HC_FAIL_SWAPIN 1
#define DEBUG_HC_PAGE_STATE 2
#define DEBUG_HC_EVICT_PAGE 3
#define PAGE_WRITEBACK 2
#define PAGE_SWAPPED 3
#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_PFN_MASK ((1ull << 55) - 1)
#define STATE_CHECK_EVERY (MIB / PAGE)
#ifndef BUS_MCEERR_AR
#define BUS_MCEERR_AR 4
#endif

static volatile uint8_t *buffer;

static long hypercall(long op, unsigned long arg)
{
	long rax = APFVISOR_HC_DEBUG;

	__asm__ volatile("vmcall" : "+a"(rax) : "b"(op), "c"(arg) : "memory");
	return rax;
}

/* Async-signal-safe: formats with snprintf into a stack buffer only. */
static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char line[160];
	int n;

	(void)uc;
	n = snprintf(line, sizeof(line), "mcetest: SIGBUS, si_code %d%s, at "
		     "%s\n", si->si_code,
		     si->si_code == BUS_MCEERR_AR ? " (BUS_MCEERR_AR)" : "",
		     (uint8_t *)si->si_addr == buffer ? "the buffer" :
		     "another address");
	if (n > 0)
		(void)!write(1, line, (size_t)n);
	/* SA_RESETHAND: the default action now; die of the signal. */
	raise(sig);
}

static uint64_t physical_address(const volatile void *va)
{
	uint64_t entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t at = (off_t)((uintptr_t)va / PAGE * sizeof(entry));

	if (fd < 0 || pread(fd, &entry, sizeof(entry), at) != sizeof(entry)) {
		perror("mcetest: /proc/self/pagemap");
		exit(2);
	}
	close(fd);
	if (!(entry & PAGEMAP_PRESENT) || !(entry & PAGEMAP_PFN_MASK)) {
		printf("mcetest: no frame number in pagemap (0x%llx): not "
		       "root?\n", (unsigned long long)entry);
		exit(2);
	}
	return (entry & PAGEMAP_PFN_MASK) * PAGE;
}

#define WRITE_WAIT_TRIES 1000000

/* Evicted on request: true once its write reached swap. */
static bool evicted(uint64_t gpa)
{
	if (hypercall(DEBUG_HC_EVICT_PAGE, gpa) != 0)
		return false;
	for (long i = 0; i < WRITE_WAIT_TRIES; i++) {
		long state = hypercall(DEBUG_HC_PAGE_STATE, gpa);

		if (state == PAGE_SWAPPED)
			return true;
		if (state != PAGE_WRITEBACK)
			return false;
		sched_yield();
	}
	return false;
}

/* Touches fresh memory until the page at gpa is in swap; its MiB, or -1. */
static long push_out(uint64_t gpa, unsigned long churn_mib)
{
	size_t len = churn_mib * MIB;
	uint8_t *churn = mmap(NULL, len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long mib = -1;

	if (churn == MAP_FAILED) {
		perror("mcetest: mmap");
		exit(2);
	}
	for (size_t p = 0; p < len / PAGE; p++) {
		if (p % STATE_CHECK_EVERY == 0 &&
		    hypercall(DEBUG_HC_PAGE_STATE, gpa) == PAGE_SWAPPED) {
			mib = (long)(p * PAGE / MIB);
			break;
		}
		((volatile uint8_t *)churn)[p * PAGE] = 0;
	}
	munmap(churn, len);
	return mib;
}

static int child(unsigned long churn_mib)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_RESETHAND |
					    SA_NODEFER };
	uint64_t gpa;
	long rc, mib;
	unsigned sum = 0;

	buffer = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buffer == MAP_FAILED) {
		perror("mcetest: mmap");
		return 2;
	}
	for (unsigned long i = 0; i < PAGE; i++)
		buffer[i] = (uint8_t)(i * 7 + 1);       /* never all zero */
	gpa = physical_address(buffer);
	printf("mcetest: buffer at pfn 0x%llx\n",
	       (unsigned long long)(gpa / PAGE));
	rc = hypercall(DEBUG_HC_FAIL_SWAPIN, gpa);
	if (rc) {
		printf("mcetest: the hypervisor refused (%ld): is "
		       "debug.hypercall on?\n", rc);
		return 2;
	}
	if (evicted(gpa)) {
		printf("mcetest: the page is in swap (evicted on request); "
		       "reading it\n");
		goto read_it;
	}
	mib = push_out(gpa, churn_mib);
	if (mib < 0) {
		printf("mcetest: the page was not swapped out after %lu "
		       "MiB\n", churn_mib);
		return 3;
	}
	printf("mcetest: the page is in swap after %ld MiB; reading it\n",
	       mib);
read_it:
	fflush(stdout);
	sigaction(SIGBUS, &sa, NULL);
	for (unsigned long i = 0; i < PAGE; i++)
		sum += buffer[i];
	printf("mcetest: read the page back (sum %u): no machine check\n",
	       sum);
	return 4;
}

int main(int argc, char **argv)
{
	unsigned long churn_mib = 160;
	int opt, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "m:")) != -1) {
		if (opt != 'm') {
			fprintf(stderr, "usage: mcetest [-m CHURN_MIB]\n");
			return 2;
		}
		churn_mib = strtoul(optarg, NULL, 0);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pid = fork();
	if (pid < 0) {
		perror("mcetest: fork");
		return 2;
	}
	if (pid == 0)
		exit(child(churn_mib));
	if (waitpid(pid, &status, 0) != pid) {
		perror("mcetest: waitpid");
		return 2;
	}
	if (WIFSIGNALED(status)) {
		printf("mcetest: child killed by signal %d (%s)\n",
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
		return WTERMSIG(status) == SIGBUS ? 0 : 1;
	}
	printf("mcetest: child exited with status %d\n", WEXITSTATUS(status));
	return 1;
}
