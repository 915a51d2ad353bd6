/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Paravirtual EOI (KVM_FEATURE_PV_EOI, MSR_KVM_PV_EOI_EN in
 * Documentation/virt/kvm/x86/msr.rst; Linux's kvm_guest_apic_eoi_write in
 * arch/x86/kernel/kvm.c). The guest names a 32-bit word in its memory;
 * when the hypervisor sets bit 0 there, the guest's EOI only clears the
 * bit instead of writing the EOI register, which would exit. apfvisor
 * sets it before an entry when the EOI of what is in service has no
 * effect beyond ending it (vlapic_eoi_can_be_deferred: one vector in
 * service, edge-triggered, nothing requested) and, at the next exit,
 * makes the EOI itself if the guest cleared the bit. Each async page
 * fault's page-ready interrupt saves its EOI exit this way, as does each
 * timer tick.
 *
 * Unlike KVM, the bit is not taken back at every exit: only vCPU n's own
 * code and the hypervisor on vCPU n's behalf touch the word, and before
 * the next entry the decision is made again whenever the LAPIC changed
 * (vcpu_poll_and_inject). The word's page stays pinned while it is on.
 * All functions are vCPU n's own; pv_eoi_arm runs under the devices lock.
 */
#ifndef GUEST_PV_EOI_H
#define GUEST_PV_EOI_H

#include "guest/msr.h"
#include "lib/types.h"

#define MSR_KVM_PV_EOI_EN 0x4b564d04u
#define PV_EOI_ENABLED BIT(0)           /* the MSR's bit 0 */
#define PV_EOI_PENDING 0x1u             /* bit 0 of the guest's word */

struct pv_eoi {
	uint64_t msr;                   /* MSR_KVM_PV_EOI_EN as written */
	uint64_t pin;                   /* the pinned page's gpa */
	bool pinned;
	/* The word through the pin; NULL while off or the pin failed. */
	volatile uint32_t *word;
	bool armed;                     /* bit 0 of *word is ours, set */
	uint64_t deferred_eois;         /* EOIs made through the word */
};

struct vm;

enum msr_result pv_eoi_wrmsr(struct vm *g, unsigned n, uint64_t value);
uint64_t pv_eoi_rdmsr(const struct vm *g, unsigned n);

/* Before an entry, with the devices lock held: set or take back the bit. */
void pv_eoi_arm(struct vm *g, unsigned n);

/*
 * At an exit while armed: whether the guest made its EOI through the word
 * (the LAPIC then has it). The next entry need poll again only when a
 * vector was requested meanwhile: it may now get in. With none, the EOI
 * changed nothing a poll would find (the vector was alone in service, and
 * whatever requests one later moves irq_gen or asks for a poll itself),
 * which spares the ACK exit of every async-PF page-ready a poll.
 */
enum pv_eoi_collected {
	PV_EOI_NOT_YET = 0,             /* the bit is still set */
	PV_EOI_DONE,                    /* EOI made; nothing requested */
	PV_EOI_DONE_POLL,               /* EOI made; a vector is requested */
};

enum pv_eoi_collected pv_eoi_collect(struct vm *g, unsigned n);

static inline bool pv_eoi_armed(const struct pv_eoi *p)
{
	return p->armed;
}

/* INIT: off, the bit taken back, the page unpinned. */
void pv_eoi_reset(struct vm *g, unsigned n);

#endif
