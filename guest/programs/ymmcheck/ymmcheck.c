// SPDX-License-Identifier: BSD-2-Clause
/*
 * ymmcheck: AVX registers must survive whatever takes a task off its CPU.
 *
 * Each of T threads loads its own known values into ymm0-ymm15, then, with
 * nothing but its own instructions in between, either sleeps (nanosleep),
 * yields (sched_yield) or reads a page of its buffer, which under apfvisor's
 * overcommit is likely to be in swap (an async page fault: the kernel puts
 * the task to sleep and runs another until the page is back). Then it stores
 * the sixteen registers and compares them with what it loaded. Each step is
 * one asm block, so no compiler- or libc-generated code can touch the
 * registers between the load and the check; the kernel saves and restores
 * them (XSAVE/XRSTOR in one format or another) whenever the task leaves its
 * CPU. A register that comes back wrong is printed and counted.
 *
 * ymmcheck [-t THREADS] [-m SIZE] [-n STEPS] [COMMAND...]
 *   -t  threads (default 4)
 *   -m  the buffer the threads read pages of (default 16M; K, M, G)
 *   -n  steps per thread (default 2000) when no COMMAND is given;
 *       with a COMMAND (and its arguments), the threads run until it ends
 *       (at least 100 steps each), and ymmcheck exits with its status.
 * Prints "ymmcheck: T threads, N checks (S sleeps, Y yields, P page
 * reads), mismatches M" and exits 1 if M > 0 or AVX is missing.
 *
 * Build: gcc -static -O2 -pthread (the guest image has no libc).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS_MAX 64
#define REGS 16
#define LANES 4                 /* 64-bit lanes of a ymm register */
#define REPORT_MAX 20
#define MIN_STEPS_WITH_COMMAND 100
#define PAGE 4096

enum step { STEP_SLEEP, STEP_YIELD, STEP_READ, STEP_KINDS };

struct shared {
	uint8_t *buf;
	size_t pages;
	unsigned long steps;            /* 0: until *stop */
	volatile int stop;
	uint64_t reported;              /* atomic */
};

struct worker {
	pthread_t tid;
	unsigned id;
	struct shared *sh;
	uint64_t counts[STEP_KINDS];
	uint64_t mismatches;
	uint64_t expect[REGS][LANES] __attribute__((aligned(32)));
	uint64_t got[REGS][LANES] __attribute__((aligned(32)));
};

/* Loads ymm0-15 from e, runs BODY, stores ymm0-15 to g. */
#define LOAD_YMM                                                        \
	"vmovdqa   0(%[e]), %%ymm0\n\t"  "vmovdqa  32(%[e]), %%ymm1\n\t"   \
	"vmovdqa  64(%[e]), %%ymm2\n\t"  "vmovdqa  96(%[e]), %%ymm3\n\t"   \
	"vmovdqa 128(%[e]), %%ymm4\n\t"  "vmovdqa 160(%[e]), %%ymm5\n\t"   \
	"vmovdqa 192(%[e]), %%ymm6\n\t"  "vmovdqa 224(%[e]), %%ymm7\n\t"   \
	"vmovdqa 256(%[e]), %%ymm8\n\t"  "vmovdqa 288(%[e]), %%ymm9\n\t"   \
	"vmovdqa 320(%[e]), %%ymm10\n\t" "vmovdqa 352(%[e]), %%ymm11\n\t"  \
	"vmovdqa 384(%[e]), %%ymm12\n\t" "vmovdqa 416(%[e]), %%ymm13\n\t"  \
	"vmovdqa 448(%[e]), %%ymm14\n\t" "vmovdqa 480(%[e]), %%ymm15\n\t"
#define STORE_YMM                                                       \
	"vmovdqa %%ymm0,    0(%[g])\n\t" "vmovdqa %%ymm1,   32(%[g])\n\t"  \
	"vmovdqa %%ymm2,   64(%[g])\n\t" "vmovdqa %%ymm3,   96(%[g])\n\t"  \
	"vmovdqa %%ymm4,  128(%[g])\n\t" "vmovdqa %%ymm5,  160(%[g])\n\t"  \
	"vmovdqa %%ymm6,  192(%[g])\n\t" "vmovdqa %%ymm7,  224(%[g])\n\t"  \
	"vmovdqa %%ymm8,  256(%[g])\n\t" "vmovdqa %%ymm9,  288(%[g])\n\t"  \
	"vmovdqa %%ymm10, 320(%[g])\n\t" "vmovdqa %%ymm11, 352(%[g])\n\t"  \
	"vmovdqa %%ymm12, 384(%[g])\n\t" "vmovdqa %%ymm13, 416(%[g])\n\t"  \
	"vmovdqa %%ymm14, 448(%[g])\n\t" "vmovdqa %%ymm15, 480(%[g])\n\t"
#define YMM_CLOBBERS                                                    \
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",  \
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",      \
	"xmm15", "memory"

/* A system call with two arguments inside the load/store window. */
static void held_across_syscall(struct worker *w, long nr, const void *a1,
				void *a2)
{
	register long rax __asm__("rax") = nr;
	register const void *rdi __asm__("rdi") = a1;
	register void *rsi __asm__("rsi") = a2;

	__asm__ volatile(LOAD_YMM "syscall\n\t" STORE_YMM
			 : "+r"(rax), "+r"(rdi), "+r"(rsi)
			 : [e] "r"(w->expect), [g] "r"(w->got)
			 : "rcx", "r11", "rdx", "r10", "r8", "r9",
			   YMM_CLOBBERS);
}

/* A read of one byte of page, inside the load/store window. */
static void held_across_read(struct worker *w, const volatile uint8_t *page)
{
	uint64_t sink;

	__asm__ volatile(LOAD_YMM "movzbq (%[p]), %[s]\n\t" STORE_YMM
			 : [s] "=&r"(sink)
			 : [e] "r"(w->expect), [g] "r"(w->got), [p] "r"(page)
			 : YMM_CLOBBERS);
	(void)sink;
}

static void fill_expected(struct worker *w, unsigned long step)
{
	for (unsigned r = 0; r < REGS; r++)
		for (unsigned l = 0; l < LANES; l++)
			w->expect[r][l] = 0x796d6d0000000000ULL ^
					  ((uint64_t)w->id << 32) ^
					  ((uint64_t)r << 24) ^
					  ((uint64_t)l << 20) ^ (step & 0xfffff);
}

static void compare(struct worker *w, unsigned long step, const char *what)
{
	for (unsigned r = 0; r < REGS; r++) {
		for (unsigned l = 0; l < LANES; l++) {
			if (w->got[r][l] == w->expect[r][l])
				continue;
			w->mismatches++;
			if (__atomic_fetch_add(&w->sh->reported, 1,
					       __ATOMIC_RELAXED) < REPORT_MAX)
				printf("ymmcheck: thread %u step %lu after a "
				       "%s: ymm%u lane %u is 0x%016" PRIx64
				       ", expected 0x%016" PRIx64 "\n",
				       w->id, step, what, r, l, w->got[r][l],
				       w->expect[r][l]);
		}
	}
}

static void *run_worker(void *arg)
{
	static const char *const names[STEP_KINDS] = {
		"sleep", "yield", "page read",
	};
	struct worker *w = arg;
	struct shared *sh = w->sh;
	const struct timespec nap = { .tv_sec = 0, .tv_nsec = 1000000 };
	size_t page = (size_t)w->id * 97;

	for (unsigned long step = 0;; step++) {
		if (sh->steps ? step >= sh->steps
			      : sh->stop && step >= MIN_STEPS_WITH_COMMAND)
			break;
		enum step kind = (enum step)((step + w->id) % STEP_KINDS);

		fill_expected(w, step);
		memset(w->got, 0, sizeof(w->got));
		switch (kind) {
		case STEP_SLEEP:
			held_across_syscall(w, SYS_nanosleep, &nap, NULL);
			break;
		case STEP_YIELD:
			held_across_syscall(w, SYS_sched_yield, NULL, NULL);
			break;
		default:
			page = (page + 257) % sh->pages;
			held_across_read(w, sh->buf + page * PAGE);
			break;
		}
		w->counts[kind]++;
		compare(w, step, names[kind]);
	}
	return NULL;
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	default: break;
	}
	if (*end || v < PAGE) {
		fprintf(stderr, "ymmcheck: bad size '%s'\n", s);
		exit(2);
	}
	return (size_t)v;
}

static void usage(void)
{
	fprintf(stderr, "usage: ymmcheck [-t THREADS] [-m SIZE] [-n STEPS] "
		"[COMMAND...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct worker workers[THREADS_MAX];
	struct shared sh = { .steps = 2000 };
	unsigned threads = 4;
	size_t bytes = 16u << 20;
	int opt, status = 0;

	while ((opt = getopt(argc, argv, "+t:m:n:h")) != -1) {
		switch (opt) {
		case 't': threads = (unsigned)atoi(optarg); break;
		case 'm': bytes = parse_size(optarg); break;
		case 'n': sh.steps = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (threads < 1 || threads > THREADS_MAX || !sh.steps)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx")) {
		printf("ymmcheck: this CPU has no AVX: nothing to check\n");
		return 1;
	}
	sh.pages = bytes / PAGE;
	sh.buf = mmap(NULL, sh.pages * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh.buf == MAP_FAILED) {
		perror("ymmcheck: mmap");
		return 1;
	}
	for (size_t p = 0; p < sh.pages; p++)   /* real pages, not the zero page */
		sh.buf[p * PAGE] = (uint8_t)p | 1;

	pid_t child = -1;
	if (optind < argc) {
		sh.steps = 0;
		child = fork();
		if (child == 0) {
			execvp(argv[optind], &argv[optind]);
			perror("ymmcheck: exec");
			_exit(127);
		}
	}
	printf("ymmcheck: %u threads, ymm0-15 held across sleeps, yields and "
	       "reads of a %zu KiB buffer\n", threads, sh.pages * PAGE >> 10);
	for (unsigned i = 0; i < threads; i++) {
		workers[i].id = i;
		workers[i].sh = &sh;
		pthread_create(&workers[i].tid, NULL, run_worker, &workers[i]);
	}
	if (child > 0) {
		int ws;

		waitpid(child, &ws, 0);
		status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
		sh.stop = 1;
	}
	uint64_t counts[STEP_KINDS] = { 0 }, mismatches = 0, checks = 0;
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(workers[i].tid, NULL);
		for (unsigned k = 0; k < STEP_KINDS; k++) {
			counts[k] += workers[i].counts[k];
			checks += workers[i].counts[k];
		}
		mismatches += workers[i].mismatches;
	}
	printf("ymmcheck: %u threads, %" PRIu64 " checks (%" PRIu64
	       " sleeps, %" PRIu64 " yields, %" PRIu64 " page reads), "
	       "mismatches %" PRIu64 "\n", threads, checks,
	       counts[STEP_SLEEP], counts[STEP_YIELD], counts[STEP_READ],
	       mismatches);
	if (mismatches)
		return 1;
	return status;
}
