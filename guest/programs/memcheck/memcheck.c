// SPDX-License-Identifier: BSD-2-Clause
/*
 * memcheck: writes a pattern over a memory area, reads it all back and
 * counts the words that changed, for a number of passes. In apfvisor's guest
 * it proves that pages the hypervisor evicted to swap and brought back hold
 * what the guest wrote: a page that came back as another page, as zeroes, or
 * from an earlier pass is a mismatch.
 *
 * Every 8-byte word gets (pass << 48) ^ (page << 12) ^ word index: unique
 * within a pass (a word index is below 512 with 4 KiB pages, so it stays
 * under bit 12), different in every pass, and never zero.
 *
 * Modes (they combine, except -z with -s):
 *   -z  every 4th page is written with zeroes instead (which pages rotates
 *       with the pass, so from pass 2 on a zeroed page held data in the
 *       pass before): the hypervisor's "all-zero page is not written to
 *       swap" path must give back zeroes, not the page's older contents.
 *   -s  sparse: one word per page (per thread) is written in a pass, the
 *       others keep what earlier passes left there (or zero). Every word is
 *       still verified, against the last pass that wrote it, so a stale
 *       copy of the page is caught as surely as in the dense mode.
 *   -t  T threads write the SAME pages at once, thread t owning the word
 *       indexes t, t+T, t+2T, ...; after a barrier each thread verifies
 *       whole pages (every T-th page), i.e. mostly words other threads
 *       wrote. On a guest with 2 vCPUs the threads fault on one page from
 *       two vCPUs at the same time.
 *
 * Build: gcc -static -O2 -pthread (the guest image has no libc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_BYTES (200ULL << 20)
#define DEFAULT_PASSES 3
#define PASSES_MAX 65535        /* the pass number has 16 bits */
#define REPORT_MAX 10           /* mismatches printed one by one per pass */
#define THREADS_MAX 64
#define LABEL_MAX 32
#define ZERO_EVERY 4            /* -z: one page in ZERO_EVERY is zeroed */

struct check {
	uint64_t *mem;
	size_t pages, words;
	unsigned threads;
	int zero_pages, sparse;
	pthread_barrier_t barrier;
	unsigned long long passes;
	uint64_t reported;      /* mismatches printed in this pass (atomic) */
	uint64_t total;         /* mismatches in all passes */
};

struct worker {
	struct check *c;
	unsigned tid;
	uint64_t bad;           /* mismatches found in the current pass */
	pthread_t thread;
};

static char name[LABEL_MAX + 16] = "memcheck";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memcheck [-m SIZE] [-p PASSES] [-z | -s] [-t THREADS] "
		"[-l LABEL]\n"
		"  -m SIZE     memory to check, K/M/G suffixes allowed "
		"(default 200M)\n"
		"  -p PASSES   write-then-verify passes (default %d)\n"
		"  -z          zero pages: every %dth page (rotating with the "
		"pass) is\n"
		"              written with zeroes and must read back as zeroes\n"
		"  -s          sparse: write one word per page (per thread) a "
		"pass; all\n"
		"              words are verified against the pass that last "
		"wrote them\n"
		"  -t THREADS  threads writing different words of the same "
		"pages at once\n"
		"              (thread i owns words i, i+THREADS, ...), then "
		"verifying\n"
		"              after a barrier (1..%d, default 1)\n"
		"  -l LABEL    print 'memcheck[LABEL]:' instead of 'memcheck:' "
		"(to tell\n"
		"              concurrent runs apart)\n",
		DEFAULT_PASSES, ZERO_EVERY, THREADS_MAX);
}

static void bad_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "memcheck: error: %s '%s'\n", msg, arg);
	usage(stderr);
	exit(2);
}

/* A decimal number, optionally followed by K, M or G (powers of 1024). */
static unsigned long long parse_size(const char *s, int suffixes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		bad_usage("bad value", s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		bad_usage("bad value", s);
	if (suffixes && *end && !end[1]) {
		switch (*end) {
		case 'k': case 'K': shift = 10; end++; break;
		case 'm': case 'M': shift = 20; end++; break;
		case 'g': case 'G': shift = 30; end++; break;
		}
	}
	if (*end || v == 0 || v > ((SIZE_MAX / 2) >> shift))
		bad_usage("bad value", s);
	return v << shift;
}

static inline uint64_t pattern(uint64_t pass, uint64_t page, uint64_t word)
{
	return (pass << 48) ^ (page << 12) ^ word;
}

/* -z: is page p all zeroes in this pass? */
static inline int zeroed(const struct check *c, uint64_t pass, size_t p)
{
	return c->zero_pages && p % ZERO_EVERY == pass % ZERO_EVERY;
}

/*
 * -s: thread t owns the words t, t+T, ...: its j-th word is t + j*T, for
 * j below lane_words(). In pass k it writes its word j = (k + p) % n of
 * page p, so word j was last written by the largest pass k <= pass with
 * (k + p) % n == j, or never (0) when that k would be below 1.
 */
static inline size_t lane_words(const struct check *c, unsigned t)
{
	return (c->words - t + c->threads - 1) / c->threads;
}

static inline size_t sparse_index(uint64_t pass, size_t p, size_t n)
{
	return (size_t)((pass + p) % n);
}

static uint64_t sparse_expect(uint64_t pass, size_t p, size_t i,
			      const struct check *c)
{
	unsigned t = (unsigned)(i % c->threads);
	size_t n = lane_words(c, t), j = i / c->threads;
	/* Passes since word j was last chosen: (pass + p - j) mod n. */
	uint64_t back = (pass + p + n - j % n) % n;

	return back >= pass ? 0 : pattern(pass - back, p, i);
}

static inline uint64_t expected(const struct check *c, uint64_t pass,
				size_t p, size_t i)
{
	if (c->sparse)
		return sparse_expect(pass, p, i, c);
	return zeroed(c, pass, p) ? 0 : pattern(pass, p, i);
}

static void write_pass(struct worker *w, uint64_t pass)
{
	const struct check *c = w->c;
	size_t step = c->threads;

	for (size_t p = 0; p < c->pages; p++) {
		uint64_t *pg = c->mem + p * c->words;

		if (c->sparse) {
			size_t i = w->tid + step *
				sparse_index(pass, p, lane_words(c, w->tid));

			pg[i] = pattern(pass, p, i);
			continue;
		}
		if (zeroed(c, pass, p)) {
			for (size_t i = w->tid; i < c->words; i += step)
				pg[i] = 0;
			continue;
		}
		for (size_t i = w->tid; i < c->words; i += step)
			pg[i] = pattern(pass, p, i);
	}
}

static void verify_pass(struct worker *w, uint64_t pass)
{
	struct check *c = w->c;

	w->bad = 0;
	for (size_t p = w->tid; p < c->pages; p += c->threads) {
		const uint64_t *pg = c->mem + p * c->words;

		for (size_t i = 0; i < c->words; i++) {
			uint64_t want = expected(c, pass, p, i);

			if (pg[i] == want)
				continue;
			w->bad++;
			if (__atomic_fetch_add(&c->reported, 1,
					       __ATOMIC_RELAXED) < REPORT_MAX)
				printf("%s: pass %" PRIu64 ": page %zu "
				       "word %zu: got 0x%016" PRIx64
				       ", expected 0x%016" PRIx64 "\n",
				       name, pass, p, i, pg[i], want);
		}
	}
}

static void wait_all(struct check *c)
{
	if (c->threads > 1)
		pthread_barrier_wait(&c->barrier);
}

/*
 * One thread's share of every pass. Thread 0 also sums and prints each
 * pass: the other threads cannot start the next pass's verification (and
 * reset their count) before it has, as that follows the next write barrier.
 */
static void *run_worker(void *arg)
{
	struct worker *w = arg, *all = w - w->tid;
	struct check *c = w->c;

	for (uint64_t pass = 1; pass <= c->passes; pass++) {
		write_pass(w, pass);
		/*
		 * Make the compiler forget what was written (the barrier
		 * alone does with threads): the check must read memory, not
		 * values it still holds or can recompute.
		 */
		__asm__ volatile("" ::: "memory");
		wait_all(c);
		verify_pass(w, pass);
		wait_all(c);
		if (w->tid == 0) {
			uint64_t bad = 0;

			for (unsigned t = 0; t < c->threads; t++)
				bad += all[t].bad;
			printf("%s: pass %" PRIu64 ": wrote %zu pages, "
			       "mismatches %" PRIu64 "\n", name, pass,
			       c->pages, bad);
			c->total += bad;
			c->reported = 0;
		}
	}
	return NULL;
}

static void run_threads(struct check *c)
{
	struct worker w[THREADS_MAX];
	int err;

	for (unsigned t = 0; t < c->threads; t++)
		w[t] = (struct worker){ .c = c, .tid = t };
	if (c->threads == 1) {
		run_worker(&w[0]);
		return;
	}
	pthread_barrier_init(&c->barrier, NULL, c->threads);
	for (unsigned t = 1; t < c->threads; t++) {
		err = pthread_create(&w[t].thread, NULL, run_worker, &w[t]);
		if (err) {
			fprintf(stderr, "%s: error: cannot start thread %u: "
				"%s\n", name, t, strerror(err));
			exit(1);
		}
	}
	run_worker(&w[0]);
	for (unsigned t = 1; t < c->threads; t++)
		pthread_join(w[t].thread, NULL);
}

static void set_label(const char *label)
{
	if (!*label || strlen(label) > LABEL_MAX || strpbrk(label, " \t\n]"))
		bad_usage("bad label (1..32 characters, no blanks or ']')",
			  label);
	snprintf(name, sizeof(name), "memcheck[%s]", label);
}

int main(int argc, char **argv)
{
	unsigned long long bytes = DEFAULT_BYTES, threads = 1;
	struct check c = { .passes = DEFAULT_PASSES, .threads = 1 };
	size_t page_size;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opterr = 0;
	while ((opt = getopt(argc, argv, ":m:p:zst:l:h")) != -1) {
		switch (opt) {
		case 'm': bytes = parse_size(optarg, 1); break;
		case 'p':
			c.passes = parse_size(optarg, 0);
			if (c.passes > PASSES_MAX)
				bad_usage("too many passes", optarg);
			break;
		case 'z': c.zero_pages = 1; break;
		case 's': c.sparse = 1; break;
		case 't':
			threads = parse_size(optarg, 0);
			if (threads > THREADS_MAX)
				bad_usage("too many threads", optarg);
			c.threads = (unsigned)threads;
			break;
		case 'l': set_label(optarg); break;
		case 'h': usage(stdout); return 0;
		case ':':
			fprintf(stderr, "memcheck: error: -%c needs a value\n",
				optopt);
			usage(stderr);
			return 2;
		default:
			fprintf(stderr, "memcheck: error: unknown option -%c\n",
				optopt);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument", argv[optind]);
	if (c.zero_pages && c.sparse)
		bad_usage("-z and -s exclude each other", "-zs");

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	c.words = page_size / sizeof(uint64_t);
	c.pages = (size_t)((bytes + page_size - 1) / page_size);
	c.mem = mmap(NULL, c.pages * page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c.mem == MAP_FAILED) {
		fprintf(stderr, "%s: error: cannot map %zu pages: %s\n", name,
			c.pages, strerror(errno));
		return 1;
	}
	/* The first line is as it always was when no mode is chosen. */
	printf("%s: %zu pages of %zu bytes, %llu passes%s%s", name, c.pages,
	       page_size, c.passes, c.zero_pages ? ", zero pages" : "",
	       c.sparse ? ", sparse" : "");
	if (c.threads > 1)
		printf(", %u threads", c.threads);
	printf("\n");

	run_threads(&c);
	printf("%s: total mismatches %" PRIu64 "\n", name, c.total);
	return c.total ? 1 : 0;
}
