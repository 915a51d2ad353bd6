// SPDX-License-Identifier: BSD-2-Clause
/*
 * Tracing for a run (boot/hv_trace.h): the owner of the rings' memory,
 * the enums that give numbers in the trace their names, and the moment
 * the trace goes to its disk.
 */
#include "boot/hv_trace.h"
#include "arch/x86/percpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/heap.h"
#include "lib/string.h"
#include "lib/trace/trace.h"
#include "swap/guest_memory.h"
#include "boot/trace_disk.h"
#include "vmx/exit_reasons.h"

#define COUNTERS_TEXT_MAX (256u << 10)

static struct trace_disk disk;
static bool recording;
static bool wrote_when_full;

static const char *end_kind_label(unsigned v)
{
	static const char *const names[] = { "halted", "power_off", "reset" };

	return v < ARRAY_SIZE(names) ? names[v] : NULL;
}

/* Unnamed reasons get no label (the decoder shows their number). */
static const char *exit_reason_label(unsigned v)
{
	const char *name = vmx_exit_reason_name(v);

	return strcmp(name, "unknown") ? name : NULL;
}

static const char *page_state_label(unsigned v)
{
	return guest_page_state_name((enum guest_page_state)v);
}

static const char *fault_outcome_label(unsigned v)
{
	return guest_fault_result_name((enum guest_fault_result)v);
}

static struct trace_enum enum_exit_reason = {
	"exit_reason", VMX_EXIT_REASON_MAX, exit_reason_label, NULL,
};
static struct trace_enum enum_page_state = {
	"page_state", GUEST_PAGE_STATES, page_state_label, NULL,
};
static struct trace_enum enum_fault_outcome = {
	"fault_outcome", GUEST_FAULT_IO_ERROR + 1, fault_outcome_label, NULL,
};
static struct trace_enum enum_end_kind = {
	"end_kind", 3, end_kind_label, NULL,
};

void hv_trace_start(const struct boot_info *bi, unsigned nvcpus,
		    const struct blockdev *swap_dev)
{
	void *bufs[MAX_HOST_CPUS];
	/* The CPUs that run the VM: a vCPU each, and the service CPU. */
	unsigned ncpus = MIN(host_cpu_count, nvcpus + 1);
	uint32_t size = (uint32_t)bi->cfg.trace_buffer;

	if (!bi->cfg.trace)
		return;
	ncpus = MIN(ncpus, MAX_HOST_CPUS);
	if (trace_disk_open(&disk, swap_dev))
		return;
	if ((uint64_t)size * ncpus + (4ull << 20) > hv_heap_free_bytes()) {
		hv_error("trace: %u rings of %u KiB do not fit in the "
			 "hypervisor heap (%llu MiB free): lower trace.buffer; "
			 "the run is not traced", ncpus, size >> 10,
			 (unsigned long long)(hv_heap_free_bytes() >> 20));
		return;
	}
	for (unsigned i = 0; i < ncpus; i++)
		bufs[i] = hv_alloc(size);
	trace_enum_register(&enum_exit_reason);
	trace_enum_register(&enum_page_state);
	trace_enum_register(&enum_fault_outcome);
	trace_enum_register(&enum_end_kind);
	trace_start(bufs, ncpus, size, bi->cfg.trace_overwrite);
	recording = true;
	hv_info("trace: recording, %u ring%s of %u KiB, %s when full", ncpus,
		ncpus == 1 ? "" : "s", size >> 10,
		bi->cfg.trace_overwrite ? "overwrite" : "stop");
}

/* The trace as it stands, with the counters as they stand, to the disk. */
static int write_trace(const struct boot_info *bi, unsigned nvcpus,
		       struct trace_file_result *res)
{
	static char *counters;
	struct trace_file_info info = {
		.tsc_hz = tsc_hz,
		.vcpus = nvcpus,
		.config = bi->config_text,
		.config_len = bi->config_len,
	};

	if (!counters)
		counters = hv_alloc(COUNTERS_TEXT_MAX);
	info.counters = counters;
	info.counters_len = trace_counters_text(counters, COUNTERS_TEXT_MAX);
	return trace_disk_write(&disk, &info, res);
}

void hv_trace_poll(const struct boot_info *bi, unsigned nvcpus)
{
	struct trace_file_result res;

	if (!recording || wrote_when_full || bi->cfg.trace_overwrite ||
	    !trace_any_full())
		return;
	wrote_when_full = true;
	if (write_trace(bi, nvcpus, &res))
		return;
	hv_info("trace: a ring is full (trace.mode = stop): later events are "
		"not recorded; the %llu records so far are on %s, and the "
		"trace is written again at the end",
		(unsigned long long)res.records, disk.dev->name);
}

void hv_trace_finish(const struct boot_info *bi, unsigned nvcpus)
{
	struct trace_file_result res;

	if (!recording)
		return;
	recording = false;
	trace_stop();
	if (write_trace(bi, nvcpus, &res))
		return;
	hv_info("trace: %llu records (%llu lost%s) in %llu bytes on %s",
		(unsigned long long)res.records, (unsigned long long)res.lost,
		res.truncated ? ", the disk was too small for all" : "",
		(unsigned long long)res.size, disk.dev->name);
}
