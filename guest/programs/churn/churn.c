// SPDX-License-Identifier: BSD-2-Clause
/*
 * churn: takes memory and gives it back, round after round, so that the
 * guest kernel has freed pages to report to a virtio-balloon device with
 * free page reporting (VIRTIO_BALLOON_F_REPORTING).
 *
 * A round maps -m MiB of anonymous memory, writes every word of every page,
 * reads it all back and compares, unmaps it and sleeps -s seconds. Linux
 * reports free pages from a delayed work item that runs about two seconds
 * after pages were freed (mm/page_reporting.c: PAGE_REPORTING_DELAY), so
 * the default sleep of 3 s lets each round's pages be reported before the
 * next round takes them again; a page the hypervisor dropped meanwhile must
 * come back as zeroes, and then as what this round writes.
 *
 * The word at index w of page p in round r holds mix(r, p, w): different
 * for every word of a round and from one round to the next, so a page that
 * came back from an earlier round, as another page, or as zeroes is a
 * mismatch.
 *
 * Build: gcc -static -O2 (the guest image has no libc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_MIB 100
#define DEFAULT_ROUNDS 5
#define DEFAULT_SECONDS 3
#define MIB_MAX (1UL << 20)     /* 1 TiB: a page index fits in 28 bits */
#define ROUNDS_MAX 1000000      /* a round number fits in 20 bits */
#define REPORT_MAX 10           /* mismatches printed one by one */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: churn [-m MIB] [-r ROUNDS] [-s SECONDS]\n"
		"  -m MIB      memory mapped, written, checked and unmapped "
		"each round\n"
		"              (default %d)\n"
		"  -r ROUNDS   rounds (default %d)\n"
		"  -s SECONDS  sleep after each round's munmap, for free page "
		"reporting\n"
		"              (default %d; 0: no sleep)\n",
		DEFAULT_MIB, DEFAULT_ROUNDS, DEFAULT_SECONDS);
}

/* OPTARG as a number in [min, max], or exits with a message. */
static unsigned long number(int opt, const char *optarg, unsigned long min,
			    unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(optarg, &end, 10);
	if (errno || end == optarg || *end || optarg[0] == '-' || v < min ||
	    v > max) {
		fprintf(stderr,
			"churn: error: -%c '%s': expected a number from %lu "
			"to %lu\n",
			opt, optarg, min, max);
		exit(2);
	}
	return v;
}

/*
 * Round, page and word packed into disjoint bits (the word index is below
 * 512 with 4 KiB pages) and scrambled with splitmix64's finalizer, which is
 * a bijection: no two words of any rounds hold the same value.
 */
static uint64_t mix(uint64_t round, uint64_t page, uint64_t word)
{
	uint64_t x = (round << 44) ^ (page << 12) ^ word;

	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * One round over a fresh mapping of PAGES pages; returns the mismatches,
 * or -1 when the memory could not be mapped or unmapped.
 */
static long long one_round(unsigned long round, size_t pages,
			   size_t page_words, unsigned long long *reported)
{
	size_t bytes = pages * page_words * sizeof(uint64_t);
	long long bad = 0;
	uint64_t *mem;

	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "churn: error: round %lu: mmap of %zu bytes: "
			"%s\n", round, bytes, strerror(errno));
		return -1;
	}
	for (size_t p = 0; p < pages; p++) {
		uint64_t *page = mem + p * page_words;

		for (size_t w = 0; w < page_words; w++)
			page[w] = mix(round, p, w);
	}
	for (size_t p = 0; p < pages; p++) {
		const volatile uint64_t *page = mem + p * page_words;

		for (size_t w = 0; w < page_words; w++) {
			uint64_t want = mix(round, p, w), got = page[w];

			if (got == want)
				continue;
			bad++;
			if ((*reported)++ < REPORT_MAX)
				printf("churn: error: round %lu: page %zu word "
				       "%zu: read 0x%016" PRIx64 ", wrote "
				       "0x%016" PRIx64 "\n",
				       round, p, w, got, want);
		}
	}
	if (munmap(mem, bytes) != 0) {
		fprintf(stderr, "churn: error: round %lu: munmap: %s\n", round,
			strerror(errno));
		return -1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long mib = DEFAULT_MIB, rounds = DEFAULT_ROUNDS;
	unsigned long seconds = DEFAULT_SECONDS;
	unsigned long long total_bad = 0, total_pages = 0, reported = 0;
	long page_size = sysconf(_SC_PAGESIZE);
	size_t page_words, pages;
	int opt;

	while ((opt = getopt(argc, argv, "m:r:s:h")) != -1) {
		switch (opt) {
		case 'm':
			mib = number(opt, optarg, 1, MIB_MAX);
			break;
		case 'r':
			rounds = number(opt, optarg, 1, ROUNDS_MAX);
			break;
		case 's':
			seconds = number(opt, optarg, 0, UINT_MAX);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "churn: error: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	/* mix() has 12 bits for the word index. */
	if (page_size <= 0 || page_size % (long)sizeof(uint64_t) != 0 ||
	    page_size / (long)sizeof(uint64_t) > 4096) {
		fprintf(stderr, "churn: error: page size %ld\n", page_size);
		return 1;
	}
	page_words = (size_t)page_size / sizeof(uint64_t);
	pages = (size_t)(mib << 20) / (size_t)page_size;
	if (pages == 0)
		pages = 1;

	/* Line by line even into a pipe: a test reads rounds as they end. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (unsigned long r = 1; r <= rounds; r++) {
		long long bad = one_round(r, pages, page_words, &reported);

		if (bad < 0)
			return 1;
		total_bad += (unsigned long long)bad;
		total_pages += pages;
		if (bad == 0)
			printf("churn: round %lu: %lu MiB ok\n", r, mib);
		else
			printf("churn: error: round %lu: %lld mismatches in "
			       "%lu MiB\n", r, bad, mib);
		if (seconds > 0)
			sleep((unsigned int)seconds);
	}
	printf("churn: total: %lu rounds, %llu pages, %llu mismatches\n",
	       rounds, total_pages, total_bad);
	return total_bad == 0 ? 0 : 1;
}
