// SPDX-License-Identifier: BSD-2-Clause
#include "guest/async_pf.h"
#include "arch/x86/cpu.h"
#include "lib/console.h"
#include "lib/ratelimit.h"
#include "lib/trace/trace.h"

static int read_area_u32(struct vm *vm, const struct apf_vcpu *a,
			 uint64_t offset, uint32_t *value)
{
	return vm_read_ram(vm, apf_area_gpa(a) + offset, value, sizeof(*value));
}

static int write_area_u32(struct vm *vm, const struct apf_vcpu *a,
			  uint64_t offset, uint32_t value)
{
	return vm_write_ram(vm, apf_area_gpa(a) + offset, &value,
			    sizeof(value));
}

bool vm_apf_not_present(struct vm *vm, unsigned n, struct apf_guest_state *gs,
			uint64_t gpa, uint32_t *token)
{
	struct apf_vcpu *a = &vm->plat[n].apf;

	gs->area_flags = 0;
	if (apf_enabled(a) &&
	    read_area_u32(vm, a, KVM_APF_AREA_FLAGS_OFFSET, &gs->area_flags))
		return false;
	if (apf_not_present(a, gs, ALIGN_DOWN(gpa, PAGE_SIZE), rdtsc(),
			    token) != APF_DELIVER)
		return false;
	if (write_area_u32(vm, a, KVM_APF_AREA_FLAGS_OFFSET,
			   KVM_PV_REASON_PAGE_NOT_PRESENT)) {
		apf_not_present_abandoned(a, *token);
		return false;
	}
	trace_async_pf_not_present(n, *token, ALIGN_DOWN(gpa, PAGE_SIZE));
	return true;
}

/* Tokens whose page has no I/O in flight any more are ready. */
static void collect_completions(struct vm *vm, unsigned n,
				struct apf_vcpu *a)
{
	spin_lock(&vm->memory.lock);
	for (unsigned i = 0; i < APF_SLOTS; i++) {
		const struct apf_entry *e = &a->entries[i];

		if (e->state == APF_ENTRY_OUTSTANDING &&
		    !guest_memory_io_busy(&vm->memory.ram, e->gpa)) {
			trace_async_pf_completed(n, e->token, e->gpa);
			apf_page_completed(a, e->gpa);
		}
	}
	spin_unlock(&vm->memory.lock);
}

/*
 * The page-ready leaves the queue only once its token is in the word and
 * the LAPIC took the vector; else it stays first in line for the next
 * entry. The LAPIC was found enabled just before, but an INIT from
 * another vCPU may reset it in between.
 */
bool vm_apf_page_ready(struct vm *vm, unsigned n, bool paging)
{
	struct vcpu_platform *p = &vm->plat[n];
	struct apf_vcpu *a = &p->apf;
	struct apf_ready_state rs = { .paging = paging };
	struct apf_page_ready out;
	bool accepted;

	if (!apf_outstanding(a))
		return false;
	collect_completions(vm, n, a);
	if (!apf_has_page_ready(a))
		return false;
	if (read_area_u32(vm, a, KVM_APF_AREA_TOKEN_OFFSET, &rs.area_token))
		return false;
	vm_devices_lock(vm);
	rs.lapic_enabled = vlapic_sw_enabled(&p->lapic);
	vm_devices_unlock(vm, false);
	if (apf_peek_page_ready(a, &rs, &out) != APF_READY_DELIVER)
		return false;
	if (write_area_u32(vm, a, KVM_APF_AREA_TOKEN_OFFSET, out.token))
		return false;
	vm_devices_lock(vm);
	accepted = vlapic_accept(&p->lapic, out.vector);
	vm_devices_unlock(vm, accepted);
	if (!accepted) {
		/* The guest has not run since: the word is still ours. */
		write_area_u32(vm, a, KVM_APF_AREA_TOKEN_OFFSET, 0);
		return false;
	}
	apf_page_ready_sent(a, rdtsc());
	trace_async_pf_ready(n, out.token, out.gpa);
	return true;
}

/*
 * The guest chooses when to turn the protocol on: a line for each time
 * the pin failed would be a line for each WRMSR (lib/ratelimit.h).
 */
static struct ratelimit unpinned_area_lines =
	RATELIMIT("async-PF areas not pinned", 8);

/*
 * The area's page stays resident while the protocol is on. Only a pin
 * that was taken is given back: one that failed (a page that could not
 * come back) is tried again at the next write, and an unpin in its place
 * would take away another holder's pin of that page (a kvmclock record,
 * another vCPU's area).
 */
static void repin_area(struct vm *vm, unsigned n)
{
	struct vcpu_platform *p = &vm->plat[n];
	bool on = apf_enabled(&p->apf);
	uint64_t gpa = apf_area_gpa(&p->apf);

	if (p->apf_area_pinned && (!on || gpa != p->apf_area_pin)) {
		vm_unpin_ram(vm, p->apf_area_pin);
		p->apf_area_pinned = false;
	}
	if (!on || p->apf_area_pinned)
		return;
	if (vm_pin_ram(vm, gpa)) {
		if (ratelimit_allow(&unpinned_area_lines))
			hv_info("vcpu %u: async-PF area at gpa 0x%llx not "
				"pinned; it is brought back when needed",
				p->apf.vcpu_id, (unsigned long long)gpa);
		return;
	}
	p->apf_area_pinned = true;
	p->apf_area_pin = gpa;
}

bool vm_apf_wrmsr(struct vm *vm, unsigned n, uint32_t msr, uint64_t value)
{
	struct apf_vcpu *a = &vm->plat[n].apf;
	struct apf_msr_effect effect;

	if (apf_wrmsr(a, &vm->apf.env, msr, value, &effect) != APF_MSR_OK)
		return false;
	repin_area(vm, n);
	/* If this write fails, so does the read before each page-ready. */
	if (effect.clear_token)
		write_area_u32(vm, a, KVM_APF_AREA_TOKEN_OFFSET, 0);
	if (effect.check_page_ready)
		vm_request(vm, n, VCPU_REQ_PAGE_READY);
	return true;
}

bool vm_apf_rdmsr(struct vm *vm, unsigned n, uint32_t msr, uint64_t *value)
{
	return apf_rdmsr(&vm->plat[n].apf, &vm->apf.env, msr, value) ==
	       APF_MSR_OK;
}

void vm_apf_reset(struct vm *vm, unsigned n)
{
	struct apf_orphans orphans;

	apf_vcpu_reset(&vm->plat[n].apf, &orphans);
	repin_area(vm, n);
}
