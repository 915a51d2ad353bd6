/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A limit on the console lines of one kind that a guest can make apfvisor
 * print as often as it likes (an AP restarted by INIT and SIPI, ...): a
 * guest doing it in a loop would otherwise fill the record and keep the
 * CPU that prints busy on the serial port (87 us a byte at 115200 baud).
 *
 * The first `burst` lines of a kind are printed. After them, lines are
 * only counted, and a line "apfvisor: <kind>: N similar lines suppressed"
 * says how many were held back each time the count of lines of that kind
 * reaches a power of two, and once more at the end of the run for the
 * rest (ratelimit_report_all): 10,000 lines asked for give 8 lines and 11
 * reports with a burst of 8, and the numbers still add up to 10,000.
 * Count-based, not time-based: the same guest gives the same record on
 * every run, and no clock is needed.
 *
 * Lock-free: vCPUs on several host CPUs may count lines of one kind at
 * once; each line's fate follows from its own number alone.
 */
#ifndef LIB_RATELIMIT_H
#define LIB_RATELIMIT_H

#include "lib/types.h"

struct ratelimit {
	const char *kind;               /* names the lines in the reports */
	unsigned burst;                 /* printed in full; at least 1 */
	uint64_t lines;                 /* asked for so far (atomic) */
	struct ratelimit *next;         /* in the list of those suppressing */
};

/* A limiter, for a static variable: RATELIMIT("INIT, then SIPI", 8). */
#define RATELIMIT(kind_, burst_) { .kind = (kind_), .burst = (burst_) }

enum ratelimit_verdict {
	RATELIMIT_PRINT,        /* print the line */
	RATELIMIT_HOLD,         /* suppressed, counted */
	RATELIMIT_REPORT,       /* suppressed; say now how many were */
};

/*
 * Counts one line of the kind and says what to do with it; with
 * RATELIMIT_REPORT, *suppressed is the number of lines held back since
 * the previous report (this one included). Prints nothing.
 */
enum ratelimit_verdict ratelimit_judge(struct ratelimit *rl,
				       uint64_t *suppressed);

/*
 * ratelimit_judge() with the report printed: true when the caller is to
 * print its line.
 *
 *      if (ratelimit_allow(&restart_lines))
 *              hv_info("vcpu %u: ...", ...);
 */
bool ratelimit_allow(struct ratelimit *rl);

/* The lines held back since the last report. */
uint64_t ratelimit_unreported(const struct ratelimit *rl);

/*
 * At the end of the run: a report line for every kind with lines held
 * back since its last report.
 */
void ratelimit_report_all(void);

/* For the unit tests: forgets every limiter that suppressed lines. */
void ratelimit_forget_all(void);

#endif
