// SPDX-License-Identifier: BSD-2-Clause
/* Console lines a guest can cause, limited (lib/ratelimit.h). */
#include "lib/ratelimit.h"
#include "lib/console.h"

/*
 * The limiters that have held back a line, for the report at the end.
 * A limiter joins once, when its first line is suppressed (only one CPU
 * gets that line's number), and never leaves.
 */
static struct ratelimit *suppressing;

static void remember(struct ratelimit *rl)
{
	struct ratelimit *head = __atomic_load_n(&suppressing,
						 __ATOMIC_RELAXED);

	do
		rl->next = head;
	while (!__atomic_compare_exchange_n(&suppressing, &head, rl, true,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static bool power_of_two(uint64_t n)
{
	return n && !(n & (n - 1));
}

/*
 * The number of the last line that a report covered, when `lines` lines
 * have been counted past the burst: the largest power of two up to it
 * that is past the burst, or the burst.
 */
static uint64_t last_reported(const struct ratelimit *rl, uint64_t lines)
{
	uint64_t top = 1;

	while (top <= lines / 2)
		top *= 2;
	return MAX(top, (uint64_t)rl->burst);
}

enum ratelimit_verdict ratelimit_judge(struct ratelimit *rl,
				       uint64_t *suppressed)
{
	uint64_t n = __atomic_add_fetch(&rl->lines, 1, __ATOMIC_RELAXED);

	if (n <= rl->burst)
		return RATELIMIT_PRINT;
	if (n == (uint64_t)rl->burst + 1)
		remember(rl);
	if (!power_of_two(n))
		return RATELIMIT_HOLD;
	/* The previous report was at n / 2, or there was none yet. */
	*suppressed = n - MAX(n / 2, (uint64_t)rl->burst);
	return RATELIMIT_REPORT;
}

static void report(const struct ratelimit *rl, uint64_t suppressed)
{
	hv_info("%s: %llu similar line%s suppressed", rl->kind,
		(unsigned long long)suppressed, suppressed == 1 ? "" : "s");
}

bool ratelimit_allow(struct ratelimit *rl)
{
	uint64_t suppressed;

	switch (ratelimit_judge(rl, &suppressed)) {
	case RATELIMIT_PRINT:
		return true;
	case RATELIMIT_REPORT:
		report(rl, suppressed);
		return false;
	default:
		return false;
	}
}

uint64_t ratelimit_unreported(const struct ratelimit *rl)
{
	uint64_t n = __atomic_load_n(&rl->lines, __ATOMIC_RELAXED);

	return n <= rl->burst ? 0 : n - last_reported(rl, n);
}

void ratelimit_report_all(void)
{
	for (struct ratelimit *rl = __atomic_load_n(&suppressing,
						    __ATOMIC_ACQUIRE);
	     rl; rl = rl->next) {
		uint64_t unreported = ratelimit_unreported(rl);

		if (unreported)
			report(rl, unreported);
	}
}

void ratelimit_forget_all(void)
{
	__atomic_store_n(&suppressing, NULL, __ATOMIC_RELAXED);
}
