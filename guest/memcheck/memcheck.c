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
 * Build: gcc -static -O2 (the guest image has no libc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memcheck [-m SIZE] [-p PASSES]\n"
		"  -m SIZE    memory to check, K/M/G suffixes allowed "
		"(default 200M)\n"
		"  -p PASSES  write-then-verify passes (default %d)\n",
		DEFAULT_PASSES);
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

static void write_pass(uint64_t *mem, size_t pages, size_t words,
		       uint64_t pass)
{
	for (size_t p = 0; p < pages; p++) {
		uint64_t *w = mem + p * words;

		for (size_t i = 0; i < words; i++)
			w[i] = pattern(pass, p, i);
	}
}

static uint64_t verify_pass(const uint64_t *mem, size_t pages, size_t words,
			    uint64_t pass)
{
	uint64_t bad = 0;

	for (size_t p = 0; p < pages; p++) {
		const uint64_t *w = mem + p * words;

		for (size_t i = 0; i < words; i++) {
			uint64_t want = pattern(pass, p, i);

			if (w[i] == want)
				continue;
			if (bad < REPORT_MAX)
				printf("memcheck: pass %" PRIu64 ": page %zu "
				       "word %zu: got 0x%016" PRIx64
				       ", expected 0x%016" PRIx64 "\n",
				       pass, p, i, w[i], want);
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long long bytes = DEFAULT_BYTES, passes = DEFAULT_PASSES;
	uint64_t total = 0;
	size_t page_size, pages, words;
	uint64_t *mem;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opterr = 0;
	while ((c = getopt(argc, argv, ":m:p:h")) != -1) {
		switch (c) {
		case 'm': bytes = parse_size(optarg, 1); break;
		case 'p':
			passes = parse_size(optarg, 0);
			if (passes > PASSES_MAX)
				bad_usage("too many passes", optarg);
			break;
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

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	words = page_size / sizeof(uint64_t);
	pages = (size_t)((bytes + page_size - 1) / page_size);
	mem = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "memcheck: error: cannot map %zu pages: %s\n",
			pages, strerror(errno));
		return 1;
	}
	printf("memcheck: %zu pages of %zu bytes, %llu passes\n", pages,
	       page_size, passes);

	for (uint64_t pass = 1; pass <= passes; pass++) {
		uint64_t bad;

		write_pass(mem, pages, words, pass);
		/*
		 * Make the compiler forget what it wrote: the check must read
		 * memory, not values it still holds or can recompute.
		 */
		__asm__ volatile("" ::: "memory");
		bad = verify_pass(mem, pages, words, pass);
		printf("memcheck: pass %" PRIu64 ": wrote %zu pages, "
		       "mismatches %" PRIu64 "\n", pass, pages, bad);
		total += bad;
	}
	printf("memcheck: total mismatches %" PRIu64 "\n", total);
	return total ? 1 : 0;
}
