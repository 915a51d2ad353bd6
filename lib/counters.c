// SPDX-License-Identifier: BSD-2-Clause
#include "lib/counters.h"

static struct counter_source *first;
static struct counter_source **last = &first;

void counters_register(struct counter_source *src)
{
	src->next = NULL;
	*last = src;
	last = &src->next;
}

void counters_reset(void)
{
	first = NULL;
	last = &first;
}

static uint64_t field_sum(const struct counter_source *src, size_t offset)
{
	unsigned n = src->instances ? src->instances : 1;
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++) {
		const char *obj = (const char *)src->obj + i * src->stride;

		sum += *(const uint64_t *)(obj + offset);
	}
	return sum;
}

void counters_each(counter_fn fn, void *ctx)
{
	for (const struct counter_source *s = first; s; s = s->next) {
		for (unsigned i = 0; i < s->ndefs; i++)
			fn(ctx, s->defs[i].name, field_sum(s, s->defs[i].offset));
		if (s->each)
			s->each(s->obj, fn, ctx);
	}
}
