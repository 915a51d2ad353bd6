/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/trace/trace_ring.c, lib/trace/trace.c and lib/trace/trace_file.c: records wrap at a
 * gap, a full ring keeps the oldest (stop) or the newest (overwrite),
 * each CPU writes its own ring, emitters pack the declared fields, and
 * the file holds a header whose offsets lead to the descriptor table,
 * the config, every record and the counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lib/bytes.h"
#include "lib/counters.h"
#include "lib/trace/trace_file.h"
#include "tests/unit/trace_host.h"

static uint64_t le(const uint8_t *p, unsigned n)
{
	return le_get(p, 0, n);
}

/* -------------------------------------------------------------- rings */

static void put(struct trace_ring *r, uint64_t tsc, uint16_t size)
{
	uint8_t *p = trace_ring_reserve(r, size);

	if (!p)
		return;
	memset(p, 0, size);
	memcpy(p + TRACE_REC_TSC, &tsc, 8);
	memcpy(p + TRACE_REC_SIZE, &size, 2);
	trace_ring_commit(r, size);
}

struct seen {
	uint64_t tsc[256];
	unsigned n;
};

static void collect(void *ctx, const uint8_t *rec, uint32_t size)
{
	struct seen *s = ctx;

	(void)size;
	s->tsc[s->n++] = le(rec + TRACE_REC_TSC, 8);
}

static struct seen walk(const struct trace_ring *r)
{
	struct seen s = { .n = 0 };

	trace_ring_walk(r, trace_ring_snapshot(r), collect, &s);
	return s;
}

static void ring_wraps_at_a_gap(void **state)
{
	uint64_t buf[32];               /* 256 bytes */
	struct trace_ring r;
	struct seen s;

	(void)state;
	trace_ring_init(&r, buf, sizeof(buf), true);
	/* 24-byte records take 24 bytes each: ten fill 240, the 11th wraps. */
	for (uint64_t i = 1; i <= 14; i++)
		put(&r, i, 24);
	s = walk(&r);
	/* The 16-byte gap at the end and the oldest records made room. */
	assert_true(s.n >= 8);
	assert_int_equal(s.tsc[s.n - 1], 14);
	for (unsigned i = 1; i < s.n; i++)
		assert_int_equal(s.tsc[i], s.tsc[i - 1] + 1);
	assert_int_equal(r.kept, s.n);
	assert_int_equal(r.lost, 14 - s.n);
	assert_false(r.full);
}

static void stop_mode_keeps_the_oldest(void **state)
{
	uint64_t buf[32];
	struct trace_ring r;
	struct seen s;

	(void)state;
	trace_ring_init(&r, buf, sizeof(buf), false);
	for (uint64_t i = 1; i <= 40; i++)
		put(&r, i, 16);
	s = walk(&r);
	assert_int_equal(s.n, 16);      /* 256 / 16 */
	assert_int_equal(s.tsc[0], 1);
	assert_int_equal(s.tsc[15], 16);
	assert_int_equal(r.lost, 24);
	assert_true(r.full);
}

static void overwrite_mode_keeps_the_newest(void **state)
{
	uint64_t buf[32];
	struct trace_ring r;
	struct seen s;

	(void)state;
	trace_ring_init(&r, buf, sizeof(buf), true);
	for (uint64_t i = 1; i <= 1000; i++)
		put(&r, i, (uint16_t)(16 + (i % 3) * 8));  /* 16, 24, 32 */
	s = walk(&r);
	assert_int_equal(s.tsc[s.n - 1], 1000);
	for (unsigned i = 1; i < s.n; i++)
		assert_int_equal(s.tsc[i], s.tsc[i - 1] + 1);
	assert_int_equal(r.kept + r.lost, 1000);
	assert_true(r.used <= r.size);
}

static void an_empty_ring_walks_nothing(void **state)
{
	uint64_t buf[8];
	struct trace_ring r;

	(void)state;
	trace_ring_init(&r, buf, sizeof(buf), false);
	assert_int_equal(walk(&r).n, 0);
}

/* ----------------------------------------------------- emitters, file */

static uint64_t rings[4][512];

static void start(bool overwrite)
{
	void *bufs[4] = { rings[0], rings[1], rings[2], rings[3] };

	trace_reset();
	counters_reset();
	trace_host_cpu = 0;
	trace_start(bufs, 4, sizeof(rings[0]), overwrite);
}

static void off_means_nothing_recorded(void **state)
{
	(void)state;
	start(false);
	trace_stop();
	trace_irq_inject(0, 32);
	assert_int_equal(trace_state.rings[0].kept, 0);
}

static void each_cpu_writes_its_own_ring(void **state)
{
	(void)state;
	start(false);
	trace_host_cpu = 1;
	trace_irq_inject(0, 32);
	trace_host_cpu = 3;
	trace_irq_inject(1, 33);
	trace_irq_inject(1, 34);
	trace_host_cpu = 7;             /* no ring: not traced, no harm */
	trace_irq_inject(1, 35);
	assert_int_equal(trace_state.rings[0].kept, 0);
	assert_int_equal(trace_state.rings[1].kept, 1);
	assert_int_equal(trace_state.rings[3].kept, 2);
}

static void an_emitter_packs_its_fields(void **state)
{
	const uint8_t *p;

	(void)state;
	start(false);
	trace_vm_exit_at(12345, 2, 48, 0x181, 0xffffffff81000000ull, 777);
	p = (const uint8_t *)rings[0];
	assert_int_equal(le(p + TRACE_REC_TSC, 8), 12345);
	assert_int_equal(le(p + TRACE_REC_EVENT, 2), 1);
	/* 16 + reason u16 + three u64 */
	assert_int_equal(le(p + TRACE_REC_SIZE, 2), 16 + 2 + 24);
	assert_int_equal(p[TRACE_REC_CPU], 0);
	assert_int_equal(le(p + TRACE_REC_VCPU, 2), 2);
	assert_int_equal(le(p + 16, 2), 48);
	assert_int_equal(le(p + 18, 8), 0x181);
	assert_int_equal(le(p + 26, 8), 0xffffffff81000000ull);
	assert_int_equal(le(p + 34, 8), 777);
}

/* The sink: a growing buffer. */
struct mem {
	uint8_t buf[1 << 16];
	size_t len;
};

static void mem_put(void *ctx, const void *buf, size_t len)
{
	struct mem *m = ctx;

	assert_true(m->len + len <= sizeof(m->buf));
	memcpy(m->buf + m->len, buf, len);
	m->len += len;
}

static uint64_t demo_value = 42;

static void demo_counters(const void *obj, counter_fn fn, void *ctx)
{
	(void)obj;
	fn(ctx, "demo.value", demo_value);
}

static struct counter_source demo_source = { .each = demo_counters };

static const char *color_label(unsigned v)
{
	static const char *const names[] = { "red", NULL, "light blue" };

	return names[v];
}

static struct trace_enum color_enum = { "color", 3, color_label, NULL };

static struct mem *write_file(uint64_t capacity, struct trace_file_result *res)
{
	static struct mem m;
	static char counters[4096];
	struct trace_sink sink = { mem_put, &m };
	const char cfg[] = "guest.kernel = k\ntrace = on\n";
	struct trace_file_info info = {
		.tsc_hz = 2000000000, .vcpus = 2,
		.config = cfg, .config_len = strlen(cfg),
		.capacity = capacity,
	};

	m.len = 0;
	info.counters = counters;
	info.counters_len = trace_counters_text(counters, sizeof(counters));
	assert_int_equal(trace_file_write(&info, &sink, res), 0);
	return &m;
}

static const uint8_t *section(const struct mem *m, unsigned off,
			      uint64_t *len)
{
	uint64_t at = le(m->buf + off, 8);

	*len = le(m->buf + off + 8, 8);
	assert_true(at % 8 == 0);
	assert_true(at + *len <= m->len);
	return m->buf + at;
}

static void the_file_describes_itself(void **state)
{
	struct trace_file_result res;
	const struct mem *m;
	const uint8_t *p;
	uint64_t len;
	char text[8192];

	(void)state;
	start(false);
	counters_register(&demo_source);
	trace_enum_register(&color_enum);
	trace_irq_inject(0, 32);
	trace_host_cpu = 1;
	trace_ept_violation(1, 0x5000, 3, 6);
	trace_vcpu_halt(1);
	m = write_file(0, &res);
	assert_int_equal(res.records, 3);
	assert_int_equal(res.lost, 0);
	assert_int_equal(res.size, m->len);

	assert_memory_equal(m->buf, "APFTRACE", 8);
	assert_int_equal(le(m->buf + TRACE_OFF_MAJOR, 2), 1);
	assert_int_equal(le(m->buf + TRACE_OFF_HEADER_SIZE, 4), 128);
	assert_int_equal(le(m->buf + TRACE_OFF_TSC_HZ, 8), 2000000000);
	assert_int_equal(le(m->buf + TRACE_OFF_CPUS, 4), 4);
	assert_int_equal(le(m->buf + TRACE_OFF_VCPUS, 4), 2);
	assert_int_equal(le(m->buf + TRACE_OFF_FLAGS, 4), 0);
	assert_int_equal(le(m->buf + TRACE_OFF_RECORDS_KEPT, 8), 3);
	assert_int_equal(le(m->buf + TRACE_OFF_FILE_SIZE, 8), m->len);

	p = section(m, TRACE_OFF_DESC, &len);
	memcpy(text, p, len);
	text[len] = '\0';
	assert_non_null(strstr(text, "event 1 vm_exit 1 reason:u16:exit_reason "
				     "qualification:u64 rip:u64 cycles:u64\n"));
	assert_non_null(strstr(text, "event 10 vcpu_halt 1\n"));
	assert_non_null(strstr(text, "event 14 async_pf_not_present 1 "
				     "token:u32 gpa:u64\n"));
	/* No label: no entry; a space in a label would split the word. */
	assert_non_null(strstr(text, "enum color 0=red 2=light_blue\n"));

	p = section(m, TRACE_OFF_CONFIG, &len);
	assert_int_equal(len, strlen("guest.kernel = k\ntrace = on\n"));
	assert_memory_equal(p, "guest.kernel = k\n", 17);

	p = section(m, TRACE_OFF_RECORDS, &len);
	assert_int_equal(len, 24 + 32 + 16);    /* 17, 26 and 16 bytes */
	assert_int_equal(le(p + TRACE_REC_EVENT, 2), 9);
	assert_int_equal(p[16], 32);
	assert_int_equal(le(p + 24 + TRACE_REC_EVENT, 2), 2);
	assert_int_equal(p[24 + TRACE_REC_CPU], 1);
	assert_int_equal(le(p + 24 + 16, 8), 0x5000);

	p = section(m, TRACE_OFF_COUNTERS, &len);
	assert_int_equal(len, strlen("demo.value 42\n"));
	assert_memory_equal(p, "demo.value 42\n", len);
}

static void a_small_disk_takes_what_fits(void **state)
{
	struct trace_file_result whole, cut;
	uint64_t full_size;

	(void)state;
	start(false);
	for (int i = 0; i < 50; i++)
		trace_irq_inject(0, (uint8_t)i);
	full_size = write_file(0, &whole)->len;
	assert_int_equal(whole.records, 50);
	/* Room for ten records less. */
	const struct mem *m = write_file(full_size - 10 * 24, &cut);

	assert_true(cut.truncated);
	assert_int_equal(cut.records, 40);
	assert_int_equal(cut.lost, 10);
	assert_true(m->len <= full_size - 10 * 24);
	assert_int_equal(le(m->buf + TRACE_OFF_FLAGS, 4), TRACE_FLAG_TRUNCATED);
	assert_int_equal(le(m->buf + TRACE_OFF_RECORDS_LOST, 8), 10);
}

static void a_full_stop_ring_says_so(void **state)
{
	struct trace_file_result res;
	const struct mem *m;

	(void)state;
	start(false);
	for (int i = 0; i < 1000; i++)
		trace_irq_inject(0, 1);
	assert_true(trace_any_full());
	m = write_file(0, &res);
	assert_int_equal(res.records, sizeof(rings[0]) / 24);
	assert_int_equal(res.lost, 1000 - res.records);
	assert_int_equal(le(m->buf + TRACE_OFF_FLAGS, 4), TRACE_FLAG_FULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ring_wraps_at_a_gap),
		cmocka_unit_test(stop_mode_keeps_the_oldest),
		cmocka_unit_test(overwrite_mode_keeps_the_newest),
		cmocka_unit_test(an_empty_ring_walks_nothing),
		cmocka_unit_test(off_means_nothing_recorded),
		cmocka_unit_test(each_cpu_writes_its_own_ring),
		cmocka_unit_test(an_emitter_packs_its_fields),
		cmocka_unit_test(the_file_describes_itself),
		cmocka_unit_test(a_small_disk_takes_what_fits),
		cmocka_unit_test(a_full_stop_ring_says_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
