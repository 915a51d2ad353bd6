// SPDX-License-Identifier: BSD-2-Clause
/* debug.hypercall's operations (guest/debug_hypercall.h). */
#include "guest/debug_hypercall.h"
#include "guest/vm.h"
#include "lib/console.h"
#include "lib/counters.h"
#include "lib/ratelimit.h"

/* A test names a page or two; a looping guest gets a count. */
static struct ratelimit hc_lines = RATELIMIT("debug hypercalls", 8);

/*
 * One line per call (rate-limited): what was done to the page at gpa, or
 * why not; each format takes the page's address.
 */
static int64_t answer(bool ok, uint64_t gpa, const char *done_fmt,
		      const char *refused_fmt)
{
	if (ratelimit_allow(&hc_lines))
		hv_info(ok ? done_fmt : refused_fmt,
			(unsigned long long)ALIGN_DOWN(gpa, PAGE_SIZE));
	return ok ? 0 : -KVM_EINVAL;
}

static int64_t fail_swapin(struct vm *vm, uint64_t gpa)
{
	return answer(swap_daemon_fail_reads_of(vm->memory.swap, gpa), gpa,
		      "debug: reads of gpa 0x%llx from swap will fail",
		      "debug: reads of gpa 0x%llx from swap will fail: "
		      "refused (no swap, outside RAM or too many pages)");
}

static int64_t evict_page(struct vm *vm, uint64_t gpa)
{
	return answer(swap_daemon_evict_page(vm->memory.swap, gpa), gpa,
		      "debug: the page at gpa 0x%llx is evicted",
		      "debug: the page at gpa 0x%llx cannot be evicted (no "
		      "swap, outside RAM, not resident or pinned)");
}

static int64_t page_state(struct vm *vm, uint64_t gpa)
{
	int64_t state;

	if (!guest_memory_is_ram(&vm->memory.ram, gpa))
		return -KVM_EINVAL;
	spin_lock(&vm->memory.lock);
	state = guest_memory_page_state(&vm->memory.ram, gpa);
	spin_unlock(&vm->memory.lock);
	return state;
}

/* What a phase of a run moved: swap traffic, tokens, reported pages. */
static const char *const mark_counters[] = {
	"swap.ins", "swap.outs", "apf.not_present", "apf.page_ready",
	"balloon.reported_pages", "swap.discard_refaults", "swap.overwrites",
};

/* A benchmark marks a few phases; a looping guest gets a count. */
static struct ratelimit mark_lines = RATELIMIT("debug marks", 64);

static int64_t mark(uint64_t n)
{
	char line[CONSOLE_LINE_MAX];

	if (ratelimit_allow(&mark_lines)) {
		counters_line(line, sizeof(line), mark_counters,
			      ARRAY_SIZE(mark_counters));
		hv_info("mark %llu:%s", (unsigned long long)n, line);
	}
	return 0;
}

int64_t vm_debug_hypercall(struct vm *vm, uint64_t op, uint64_t arg)
{
	switch (op) {
	case DEBUG_HC_FAIL_SWAPIN:
		return fail_swapin(vm, arg);
	case DEBUG_HC_PAGE_STATE:
		return page_state(vm, arg);
	case DEBUG_HC_EVICT_PAGE:
		return evict_page(vm, arg);
	case DEBUG_HC_MARK:
		return mark(arg);
	default:
		return -KVM_EINVAL;
	}
}
