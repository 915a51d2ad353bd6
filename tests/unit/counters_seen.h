/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A counter_fn for host tests: appends "NAME=VALUE;" to a string, so a
 * test compares a whole walk with one string.
 */
#ifndef TESTS_UNIT_COUNTERS_SEEN_H
#define TESTS_UNIT_COUNTERS_SEEN_H

#include <stdio.h>
#include <string.h>

#include "lib/counters.h"

struct seen {
	char text[2048];
};

static inline void record(void *ctx, const char *name, uint64_t value)
{
	struct seen *s = ctx;
	size_t len = strlen(s->text);

	snprintf(s->text + len, sizeof(s->text) - len, "%s=%llu;", name,
		 (unsigned long long)value);
}

#endif
