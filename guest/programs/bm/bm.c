// SPDX-License-Identifier: BSD-2-Clause
/*
 * bm: the benchmark of the 2010 KVM series that introduced asynchronous page
 * faults ("Add host swap event notifications for PV guest"), rewritten for
 * apfvisor's guest image with the same options and output (see
 * ../shared/APF-PROTOCOL.md, section 12), plus a line per faulting thread
 * and their sum (`touched: N`) before the score (`total: N`).
 *
 * Faulting threads write one byte at random pages of a large array that the
 * host has partly swapped out; working threads only count. Without async
 * page faults a vCPU stalls while the host swaps a page in, and the working
 * threads on it stall too; with them, the guest runs the working threads
 * meanwhile. The sum of the working threads' counts is the score; the pages
 * the faulting threads wrote are printed too (the whole picture: async page
 * faults must not buy the workers' progress with the faulters').
 *
 * Build: gcc -static -O2 -pthread (the guest image has no libc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CACHE_LINE 64
#define THREADS_MAX 4096
#define DEFAULT_BYTES (1ULL << 30)
#define DEFAULT_SECS 5

struct settings {
	unsigned long faulting;
	unsigned long working;
	unsigned long long bytes;
	unsigned long secs;
	int verbose;
};

/*
 * One working thread's counter, alone on its cache line so that the threads
 * do not slow each other down by bouncing a shared line. It is volatile: the
 * loop increments the counter in memory each time round, as the original
 * program did, rather than in a register.
 */
struct worker {
	_Alignas(CACHE_LINE) volatile unsigned long long count;
};

/*
 * A faulting thread's random number state. random() takes a lock shared by
 * all threads; with several faulting threads that lock (and its cache line)
 * would be the bottleneck and the threads would mostly wait for each other
 * instead of touching pages. random_r() over a per-thread state draws from
 * the same generator without any sharing.
 */
struct faulter {
	_Alignas(CACHE_LINE) struct random_data rd;
	char state[64];
	unsigned int seed;
	unsigned long long touched;     /* pages written */
};

static struct settings cfg;
static char *array;
static size_t pages;
static size_t page_size;
static pthread_barrier_t start_barrier;
static pthread_barrier_t stop_barrier;
static atomic_int stop;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bm [-f N] [-w N] [-m BYTES] [-t SECS] [-v]\n"
		"  -f N      faulting threads (default 1)\n"
		"  -w N      working threads (default 1)\n"
		"  -m BYTES  size of the shared array, K/M/G suffixes allowed "
		"(default 1G)\n"
		"  -t SECS   run time in seconds (default %d)\n"
		"  -v        print the settings first\n",
		DEFAULT_SECS);
}

static void bad_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "bm: error: %s '%s'\n", msg, arg);
	usage(stderr);
	exit(2);
}

/* A whole decimal number, nothing before or after it. */
static int parse_number(const char *s, unsigned long long *out, char **end)
{
	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	*out = strtoull(s, end, 10);
	return errno == 0;
}

static unsigned long parse_count(const char *s, unsigned long max)
{
	unsigned long long v;
	char *end;

	if (!parse_number(s, &v, &end) || *end || v > max)
		bad_usage("bad number", s);
	return (unsigned long)v;
}

/* BYTES, or a number followed by K, M or G (powers of 1024). */
static unsigned long long parse_bytes(const char *s)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!parse_number(s, &v, &end))
		bad_usage("bad size", s);
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	default: bad_usage("bad size", s);
	}
	if (shift && end[1])
		bad_usage("bad size", s);
	/* The array is mapped whole, so it must fit the address space. */
	if (v == 0 || v > ((SIZE_MAX / 2) >> shift))
		bad_usage("bad size", s);
	return v << shift;
}

static void parse_args(int argc, char **argv)
{
	int c;

	cfg.faulting = 1;
	cfg.working = 1;
	cfg.bytes = DEFAULT_BYTES;
	cfg.secs = DEFAULT_SECS;
	opterr = 0;
	while ((c = getopt(argc, argv, ":f:w:m:t:vh")) != -1) {
		switch (c) {
		case 'f': cfg.faulting = parse_count(optarg, THREADS_MAX); break;
		case 'w': cfg.working = parse_count(optarg, THREADS_MAX); break;
		case 'm': cfg.bytes = parse_bytes(optarg); break;
		case 't': cfg.secs = parse_count(optarg, 365UL * 24 * 3600); break;
		case 'v': cfg.verbose = 1; break;
		case 'h': usage(stdout); exit(0);
		case ':':
			fprintf(stderr, "bm: error: -%c needs a value\n", optopt);
			usage(stderr);
			exit(2);
		default:
			fprintf(stderr, "bm: error: unknown option -%c\n", optopt);
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument", argv[optind]);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bm: error: %s: %s\n", what, strerror(err));
	exit(1);
}

static void *faulting_thread(void *arg)
{
	struct faulter *f = arg;
	unsigned long long touched = 0;
	int32_t r;

	pthread_barrier_wait(&start_barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		random_r(&f->rd, &r);
		/* The page's first byte: one write, one (possible) fault. */
		((volatile char *)array)[((size_t)r % pages) * page_size] =
			(char)r;
		touched++;
	}
	f->touched = touched;
	pthread_barrier_wait(&stop_barrier);
	return NULL;
}

static void *working_thread(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&start_barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		w->count++;
	pthread_barrier_wait(&stop_barrier);
	return NULL;
}

/* Sleeps the whole time even when a signal interrupts the sleep. */
static void sleep_seconds(unsigned long secs)
{
	struct timespec left = { .tv_sec = (time_t)secs, .tv_nsec = 0 };

	while (nanosleep(&left, &left) == -1 && errno == EINTR)
		;
}

static void prefault(void)
{
	size_t len = pages * page_size;

	array = mmap(NULL, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (array == MAP_FAILED)
		die("cannot map the array", errno);
	/* Every page exists in the guest before the timed part. */
	memset(array, 1, len);
}

static void start_threads(pthread_t *tids, struct faulter *faulters,
			  struct worker *workers)
{
	unsigned long i;
	int err;

	for (i = 0; i < cfg.faulting; i++) {
		struct faulter *f = &faulters[i];

		/* Thread 0 draws what random() would after srandom(1). */
		f->seed = (unsigned int)(i + 1);
		if (initstate_r(f->seed, f->state, sizeof(f->state), &f->rd))
			die("initstate_r", errno);
		err = pthread_create(&tids[i], NULL, faulting_thread, f);
		if (err)
			die("cannot start a faulting thread", err);
	}
	for (i = 0; i < cfg.working; i++) {
		err = pthread_create(&tids[cfg.faulting + i], NULL,
				     working_thread, &workers[i]);
		if (err)
			die("cannot start a working thread", err);
	}
}

int main(int argc, char **argv)
{
	unsigned long threads, i;
	unsigned long long total = 0, touched = 0;
	struct faulter *faulters;
	struct worker *workers;
	pthread_t *tids;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	pages = (size_t)((cfg.bytes + page_size - 1) / page_size);
	threads = cfg.faulting + cfg.working;
	if (cfg.verbose)
		printf("bm: faulting threads %lu, working threads %lu, "
		       "array %llu bytes (%zu pages of %zu), time %lu s\n",
		       cfg.faulting, cfg.working, cfg.bytes, pages, page_size,
		       cfg.secs);

	prefault();
	faulters = aligned_alloc(CACHE_LINE, (cfg.faulting + 1) *
				 sizeof(*faulters));
	workers = aligned_alloc(CACHE_LINE, (cfg.working + 1) *
				sizeof(*workers));
	tids = calloc(threads + 1, sizeof(*tids));
	if (!faulters || !workers || !tids)
		die("out of memory", ENOMEM);
	memset(faulters, 0, (cfg.faulting + 1) * sizeof(*faulters));
	memset(workers, 0, (cfg.working + 1) * sizeof(*workers));

	/* Both barriers count every thread plus main. */
	err = pthread_barrier_init(&start_barrier, NULL, threads + 1);
	if (!err)
		err = pthread_barrier_init(&stop_barrier, NULL, threads + 1);
	if (err)
		die("pthread_barrier_init", err);
	start_threads(tids, faulters, workers);

	printf("start\n");
	pthread_barrier_wait(&start_barrier);
	sleep_seconds(cfg.secs);
	atomic_store_explicit(&stop, 1, memory_order_relaxed);
	pthread_barrier_wait(&stop_barrier);

	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	for (i = 0; i < cfg.faulting; i++) {
		printf("faulter %lu: %llu pages\n", i, faulters[i].touched);
		touched += faulters[i].touched;
	}
	for (i = 0; i < cfg.working; i++) {
		printf("worker %lu: %llu\n", i, workers[i].count);
		total += workers[i].count;
	}
	/* The faulting threads' pages, then the score, last as always. */
	printf("touched: %llu\n", touched);
	printf("total: %llu\n", total);
	return 0;
}
