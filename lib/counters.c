// SPDX-License-Identifier: BSD-2-Clause
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/string.h"

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

struct counter_search {
	const char *name;
	uint64_t value;
	unsigned found;
};

static void match_counter(void *ctx, const char *name, uint64_t value)
{
	struct counter_search *cs = ctx;

	if (!strcmp(name, cs->name)) {
		cs->value = value;
		cs->found++;
	}
}

unsigned counters_find(const char *name, uint64_t *value)
{
	struct counter_search cs = { .name = name };

	counters_each(match_counter, &cs);
	*value = cs.value;
	return cs.found;
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

size_t counters_line(char *buf, size_t cap, const char *const *names,
		     unsigned n)
{
	size_t len = 0;

	if (!cap)
		return 0;
	buf[0] = 0;
	for (unsigned i = 0; i < n && len + 1 < cap; i++) {
		uint64_t value;
		int wrote;

		if (!counters_find(names[i], &value))
			continue;
		wrote = fmt_snprintf(buf + len, cap - len, " %s %llu", names[i],
				     (unsigned long long)value);
		len = wrote < 0 ? len : MIN(len + (size_t)wrote, cap - 1);
	}
	return len;
}
