// SPDX-License-Identifier: BSD-2-Clause
/* Exit reason names and the per-reason counters (vmx/exit_stats.h). */
#include "vmx/exit_stats.h"
#include "lib/format.h"

#define VMX_EXIT_NAME(suffix, number, name) [number] = name,

static const char *const exit_reason_names[VMX_EXIT_REASON_MAX] = {
	VMX_EXIT_REASONS(VMX_EXIT_NAME)
};

const char *vmx_exit_reason_name(unsigned reason)
{
	if (reason < VMX_EXIT_REASON_MAX && exit_reason_names[reason])
		return exit_reason_names[reason];
	return "unknown";
}

/* Core exit reasons are always listed, the others when they occurred. */
static bool always_listed(unsigned reason)
{
	return reason == VMX_EXIT_CPUID || reason == VMX_EXIT_HLT ||
	       reason == VMX_EXIT_IO || reason == VMX_EXIT_EPT_VIOLATION ||
	       reason == VMX_EXIT_RDMSR || reason == VMX_EXIT_WRMSR;
}

static const struct exit_stats *instance(const struct exit_stats *first,
					 size_t stride, unsigned i)
{
	return (const struct exit_stats *)((const char *)first + i * stride);
}

void exit_stats_each(const struct exit_stats *first, unsigned n,
		     size_t stride, counter_fn fn, void *ctx)
{
	char name[48];

	for (unsigned r = 0; r < VMX_EXIT_REASON_MAX; r++) {
		uint64_t count = 0, cycles = 0, handler = 0;

		for (unsigned i = 0; i < n; i++) {
			const struct exit_stats *s = instance(first, stride, i);

			count += s->count[r];
			cycles += s->root_tsc[r];
			handler += s->handler_tsc[r];
		}
		if (!count && !always_listed(r))
			continue;
		fmt_snprintf(name, sizeof(name), "exit.%s",
			     vmx_exit_reason_name(r));
		fn(ctx, name, count);
		fmt_snprintf(name, sizeof(name), "exit.%s.root_tsc",
			     vmx_exit_reason_name(r));
		fn(ctx, name, cycles);
		fmt_snprintf(name, sizeof(name), "exit.%s.handler_tsc",
			     vmx_exit_reason_name(r));
		fn(ctx, name, handler);
	}
}
