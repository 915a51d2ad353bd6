// SPDX-License-Identifier: BSD-2-Clause
/*
 * Recording trace events (lib/trace/trace.h): the record header around the
 * fields an emitter packed, into the ring of the CPU that runs it.
 */
#include "lib/trace/trace.h"
#include "lib/string.h"

bool trace_on;
struct trace_state trace_state;
static struct trace_enum *enums;

void trace_start(void *const bufs[], unsigned ncpus, uint32_t size,
		 bool overwrite)
{
	struct trace_state *t = &trace_state;

	if (ncpus > MAX_HOST_CPUS)
		ncpus = MAX_HOST_CPUS;
	t->ncpus = ncpus;
	t->overwrite = overwrite;
	for (unsigned i = 0; i < ncpus; i++)
		trace_ring_init(&t->rings[i], bufs[i], size, overwrite);
	__atomic_store_n(&trace_on, true, __ATOMIC_RELEASE);
}

void trace_stop(void)
{
	__atomic_store_n(&trace_on, false, __ATOMIC_RELEASE);
}

void trace_reset(void)
{
	trace_stop();
	memset(&trace_state, 0, sizeof(trace_state));
	enums = NULL;
}

uint64_t trace_lost(void)
{
	uint64_t lost = 0;

	for (unsigned i = 0; i < trace_state.ncpus; i++)
		lost += trace_state.rings[i].lost;
	return lost;
}

bool trace_any_full(void)
{
	for (unsigned i = 0; i < trace_state.ncpus; i++)
		if (trace_state.rings[i].full)
			return true;
	return false;
}

static const struct trace_platform *platform;

void trace_set_platform(const struct trace_platform *p)
{
	platform = p;
}

uint64_t trace_clock(void)
{
	return platform ? platform->clock() : 0;
}

unsigned trace_cpu(void)
{
	return platform ? platform->cpu() : 0;
}

void trace_record(unsigned event, unsigned vcpu, uint64_t tsc,
		  const void *fields, unsigned len)
{
	unsigned cpu = trace_cpu();
	uint32_t size = TRACE_RECORD_HEADER + len;
	struct trace_ring *r;
	uint8_t *p;
	uint16_t event16 = (uint16_t)event, size16 = (uint16_t)size;
	uint16_t vcpu16 = (uint16_t)vcpu;
	uint8_t cpu8 = (uint8_t)cpu, zero = 0;

	if (cpu >= trace_state.ncpus)
		return;                 /* a CPU without a ring: not traced */
	if (!tsc)
		tsc = trace_clock();
	r = &trace_state.rings[cpu];
	p = trace_ring_reserve(r, size);
	if (!p)
		return;
	memcpy(p + TRACE_REC_TSC, &tsc, 8);
	memcpy(p + TRACE_REC_EVENT, &event16, 2);
	memcpy(p + TRACE_REC_SIZE, &size16, 2);
	memcpy(p + TRACE_REC_CPU, &cpu8, 1);
	memcpy(p + TRACE_REC_CPU + 1, &zero, 1);
	memcpy(p + TRACE_REC_VCPU, &vcpu16, 2);
	memcpy(p + TRACE_RECORD_HEADER, fields, len);
	trace_ring_commit(r, size);
}

void trace_enum_register(struct trace_enum *e)
{
	struct trace_enum **link = &enums;

	for (struct trace_enum *it = enums; it; it = it->next)
		if (it == e)
			return;
	while (*link)
		link = &(*link)->next;
	e->next = NULL;
	*link = e;
}

const struct trace_enum *trace_enums(void)
{
	return enums;
}
