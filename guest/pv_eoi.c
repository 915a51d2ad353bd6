// SPDX-License-Identifier: BSD-2-Clause
#include "guest/pv_eoi.h"
#include "guest/cpuid.h"
#include "guest/vm.h"
#include "lib/console.h"
#include "lib/ratelimit.h"

static bool offered(const struct vm *g)
{
	return g->config.kvm_features & KVM_FEATURE_PV_EOI;
}

/* Takes the bit back: the guest's next EOI writes the register again. */
static void disarm(struct pv_eoi *p)
{
	if (p->armed)
		__atomic_and_fetch(p->word, ~PV_EOI_PENDING, __ATOMIC_RELAXED);
	p->armed = false;
}

static void unpin(struct vm *g, struct pv_eoi *p)
{
	disarm(p);
	p->word = NULL;
	if (p->pinned)
		vm_unpin_ram(g, p->pin);
	p->pinned = false;
}

static struct ratelimit unpinned_lines = RATELIMIT("PV EOI words not pinned",
						   8);

/*
 * KVM's kvm_lapic_set_pv_eoi: bit 0 enables, the rest is the word's
 * address, which must be 4-byte aligned (else #GP) and in RAM. A word
 * whose page cannot be pinned is taken, but the bit is never set in it:
 * the guest's EOIs then all exit, as without the feature.
 */
enum msr_result pv_eoi_wrmsr(struct vm *g, unsigned n, uint64_t value)
{
	struct pv_eoi *p = &g->plat[n].pv_eoi;
	uint64_t gpa = value & ~PV_EOI_ENABLED;

	if (!offered(g) || (gpa & 3))
		return MSR_RAISE_GP;
	if ((value & PV_EOI_ENABLED) &&
	    !guest_ram_contains(&g->memory.ram.ram, gpa))
		return MSR_RAISE_GP;
	unpin(g, p);
	p->msr = value;
	if (!(value & PV_EOI_ENABLED))
		return MSR_HANDLED;
	if (vm_pin_ram(g, gpa)) {
		if (ratelimit_allow(&unpinned_lines))
			hv_info("vcpu %u: PV EOI word at gpa 0x%llx not "
				"pinned; its EOIs exit", n,
				(unsigned long long)gpa);
		return MSR_HANDLED;
	}
	p->pinned = true;
	p->pin = gpa;
	p->word = vm_pinned_page(g, gpa);
	if (p->word)
		p->word = (volatile uint32_t *)((uint8_t *)p->word +
						(gpa & (PAGE_SIZE - 1)));
	return MSR_HANDLED;
}

uint64_t pv_eoi_rdmsr(const struct vm *g, unsigned n)
{
	return g->plat[n].pv_eoi.msr;
}

void pv_eoi_arm(struct vm *g, unsigned n)
{
	struct pv_eoi *p = &g->plat[n].pv_eoi;
	bool want;

	if (!p->word)
		return;
	want = vlapic_eoi_can_be_deferred(&g->plat[n].lapic);
	if (want == p->armed)
		return;
	if (want)
		__atomic_or_fetch(p->word, PV_EOI_PENDING, __ATOMIC_RELAXED);
	else
		__atomic_and_fetch(p->word, ~PV_EOI_PENDING, __ATOMIC_RELAXED);
	p->armed = want;
}

enum pv_eoi_collected pv_eoi_collect(struct vm *g, unsigned n)
{
	struct pv_eoi *p = &g->plat[n].pv_eoi;
	bool requested;

	if (!p->armed ||
	    (__atomic_load_n(p->word, __ATOMIC_RELAXED) & PV_EOI_PENDING))
		return PV_EOI_NOT_YET;
	p->armed = false;
	p->deferred_eois++;
	vm_devices_lock(g);
	vlapic_deferred_eoi(&g->plat[n].lapic);
	requested = vlapic_has_requests(&g->plat[n].lapic);
	vm_devices_unlock(g, false);    /* an edge EOI concerns vCPU n only */
	return requested ? PV_EOI_DONE_POLL : PV_EOI_DONE;
}

void pv_eoi_reset(struct vm *g, unsigned n)
{
	struct pv_eoi *p = &g->plat[n].pv_eoi;

	unpin(g, p);
	p->msr = 0;
}
