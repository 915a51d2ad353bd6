// SPDX-License-Identifier: BSD-2-Clause
/* debug.hypercall's operations (guest/debug_hypercall.h). */
#include "guest/debug_hypercall.h"
#include "guest/vm.h"
#include "lib/console.h"
#include "lib/ratelimit.h"

/* A test names a page or two; a looping guest gets a count. */
static struct ratelimit hc_lines = RATELIMIT("debug hypercalls", 8);

static int64_t fail_swapin(struct vm *vm, uint64_t gpa)
{
	bool ok = swap_daemon_fail_reads_of(vm->memory.swap, gpa);

	if (ratelimit_allow(&hc_lines))
		hv_info("debug: reads of gpa 0x%llx from swap will fail%s",
			(unsigned long long)ALIGN_DOWN(gpa, PAGE_SIZE),
			ok ? "" : ": refused (no swap, outside RAM or too "
			     "many pages)");
	return ok ? 0 : -KVM_EINVAL;
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

int64_t vm_debug_hypercall(struct vm *vm, uint64_t op, uint64_t arg)
{
	switch (op) {
	case DEBUG_HC_FAIL_SWAPIN:
		return fail_swapin(vm, arg);
	case DEBUG_HC_PAGE_STATE:
		return page_state(vm, arg);
	default:
		return -KVM_EINVAL;
	}
}
