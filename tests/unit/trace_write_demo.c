// SPDX-License-Identifier: BSD-2-Clause
/*
 * trace_write_demo DIR: writes trace files with the hypervisor's own
 * writer (lib/trace*.c) for tests/unit/test_apftrace_roundtrip.py:
 *   DIR/demo.apft    known events with known values on two vCPUs
 *   DIR/extra.apft   the same plus what a newer apfvisor might write: an
 *                    event declared in the table that no decoder knows,
 *                    an event not declared at all, and a vm_exit record
 *                    with a field after the declared ones
 *   DIR/major2.apft  demo.apft claiming format 2.0
 * Not a test itself: the decoder's test checks what these decode to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/bytes.h"
#include "lib/counters.h"
#include "lib/trace/trace_file.h"
#include "tests/unit/trace_host.h"

#define FILE_MAX (1 << 20)

static uint64_t rings[3][4096];
static uint8_t file[FILE_MAX];
static size_t file_len;

static void put(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	if (file_len + len > FILE_MAX) {
		fprintf(stderr, "trace_write_demo: file too large\n");
		exit(1);
	}
	memcpy(file + file_len, buf, len);
	file_len += len;
}

static const char *exit_label(unsigned v)
{
	switch (v) {
	case 10: return "cpuid";
	case 12: return "hlt";
	case 48: return "ept_violation";
	default: return NULL;
	}
}

static struct trace_enum exit_enum = { "exit_reason", 64, exit_label, NULL };

static void demo_counters(const void *obj, counter_fn fn, void *ctx)
{
	(void)obj;
	fn(ctx, "exit.cpuid", 3);
	fn(ctx, "exit.hlt", 1);
	fn(ctx, "exit.ept_violation", 1);
}

static struct counter_source demo_source = { .each = demo_counters };

/* Two vCPUs on host CPUs 1 and 2, the daemon on CPU 0; TSC at 1 GHz. */
static void record_demo(void)
{
	trace_host_cpu = 1;
	trace_vm_exit_at(1000000, 0, 10, 0, 0x1000, 100);
	trace_vm_exit_at(2000000, 0, 10, 0, 0x1002, 300);
	trace_vm_exit_at(3000000, 0, 10, 0, 0x1004, 200);
	trace_vm_exit_at(4000000, 0, 48, 0x181, 0x2000, 5000);
	trace_ept_violation_at(4000100, 0, 0x7000, 3, 6);
	trace_try_async_get_page_at(4000200, 0, 0x7000, 1);
	trace_async_pf_not_present_at(4000300, 0, 0x1000, 0x7000);
	trace_irq_inject_at(9000000, 0, 0xec);
	trace_async_pf_ready_at(9000100, 0, 0x1000, 0x7000);
	trace_vm_exit_at(9500000, 0, 12, 0, 0x1010, 4000);
	trace_vcpu_halt_at(9500100, 0);
	trace_vcpu_wake_at(9600100, 0, 100000);
	trace_host_cpu = 2;
	trace_async_pf_not_present_at(5000000, 1, 0x1001, 0x9000);
	trace_async_pf_ready_at(7000000, 1, 0x1001, 0x9000);
	trace_host_cpu = 0;
	trace_swap_in_submit_at(4000400, TRACE_NO_VCPU, 0x7000, 17);
	trace_swap_in_done_at(8000400, TRACE_NO_VCPU, 0x7000, 17, 1, 4000000);
	trace_async_pf_completed_at(8000500, 0, 0x1000, 0x7000);
	trace_swap_out_submit_at(3500000, TRACE_NO_VCPU, 0x3000, 5);
	trace_swap_out_done_at(3600000, TRACE_NO_VCPU, 0x3000, 5, 1, 100000);
	trace_evict_step_at(3400000, TRACE_NO_VCPU, 64, 8, 5, 3);
	trace_shootdown_at(3450000, TRACE_NO_VCPU, 7, 3);
	trace_guest_end_at(9900000, TRACE_NO_VCPU, 1, 1);
}

static void record_extra(void)
{
	struct trace_fields_vm_exit f = { 10, 0, 0x1006, 400 };
	uint8_t longer[sizeof(f) + 8];
	uint8_t future[12] = { 7, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0 };
	uint8_t undeclared[4] = { 0xde, 0xad, 0xbe, 0xef };

	memcpy(longer, &f, sizeof(f));
	memset(longer + sizeof(f), 0xab, 8);
	trace_host_cpu = 1;
	trace_record(1, 0, 9700000, longer, sizeof(longer));
	trace_record(99, 0, 9710000, future, sizeof(future));
	trace_record(98, 1, 9720000, undeclared, sizeof(undeclared));
}

static uint64_t get(const uint8_t *p, unsigned n)
{
	return le_get(p, 0, n);
}

static void set(uint8_t *p, uint64_t v, unsigned n)
{
	le_put(p, 0, n, v);
}

/*
 * What a newer writer's table would say: text appended to the descriptor
 * section, every later section moved along (all offsets stay 8-aligned).
 */
static void declare_more(const char *text)
{
	uint64_t desc_off = get(file + TRACE_OFF_DESC, 8);
	uint64_t desc_len = get(file + TRACE_OFF_DESC + 8, 8);
	size_t add = strlen(text);
	uint64_t old_end = (desc_off + desc_len + 7) & ~7ull;
	uint64_t new_end = (desc_off + desc_len + add + 7) & ~7ull;
	uint64_t shift = new_end - old_end;
	static const unsigned moved[] = { TRACE_OFF_CONFIG, TRACE_OFF_RECORDS,
					  TRACE_OFF_COUNTERS };

	memmove(file + new_end, file + old_end, file_len - old_end);
	memcpy(file + desc_off + desc_len, text, add);
	memset(file + desc_off + desc_len + add, 0,
	       new_end - (desc_off + desc_len + add));
	file_len += shift;
	set(file + TRACE_OFF_DESC + 8, desc_len + add, 8);
	for (unsigned i = 0; i < 3; i++)
		set(file + moved[i], get(file + moved[i], 8) + shift, 8);
	set(file + TRACE_OFF_FILE_SIZE, file_len, 8);
}

static void write_out(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(file, 1, file_len, f) != file_len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void build(const char *dir, const char *name)
{
	static char counters[4096];
	const char cfg[] = "guest.kernel = vmlinuz\napf = on\ntrace = on\n";
	struct trace_file_info info = {
		.tsc_hz = 1000000000, .vcpus = 2,
		.config = cfg, .config_len = strlen(cfg),
		.counters = counters,
	};
	struct trace_sink sink = { put, NULL };
	struct trace_file_result res;

	info.counters_len = trace_counters_text(counters, sizeof(counters));
	file_len = 0;
	if (trace_file_write(&info, &sink, &res)) {
		fprintf(stderr, "trace_write_demo: the writer failed\n");
		exit(1);
	}
	write_out(dir, name);
}

int main(int argc, char **argv)
{
	void *bufs[3] = { rings[0], rings[1], rings[2] };

	if (argc != 2) {
		fprintf(stderr, "usage: trace_write_demo DIR\n");
		return 2;
	}
	counters_register(&demo_source);
	trace_enum_register(&exit_enum);
	trace_start(bufs, 3, sizeof(rings[0]), false);
	record_demo();
	build(argv[1], "demo.apft");
	set(file + TRACE_OFF_MAJOR, 2, 2);
	write_out(argv[1], "major2.apft");
	record_extra();
	build(argv[1], "extra.apft");
	declare_more("event 99 future_thing 3 alpha:u32 beta:u64\n");
	write_out(argv[1], "extra.apft");
	return 0;
}
