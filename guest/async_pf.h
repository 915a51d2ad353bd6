/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The VM's side of async page faults (../shared/APF-PROTOCOL.md): apf/
 * decides, this file reads and writes the guest's shared area and raises
 * the page-ready vector in the virtual LAPIC. vCPU n's apf state is
 * changed by its own exits and requests, and by the completion of a
 * swap-in it holds a token for (vm_apf_page_settled, on the CPU that
 * harvested it): plat[n].apf_lock serializes them (guest/vm.h).
 *
 * As KVM's async_pf (virt/kvm/async_pf.c: the worker puts the item on
 * the vCPU's done list and makes KVM_REQ_APF_READY; the vCPU drains it in
 * kvm_check_async_pf_completion), the completion goes to the waiter:
 * nothing polls the tokens before an entry.
 */
#ifndef GUEST_ASYNC_PF_H
#define GUEST_ASYNC_PF_H

#include "guest/vm.h"
#include "swap/swap_daemon.h"

/* What vm_fault_begin tried for a swap-in under way. */
struct vm_apf_try {
	uint32_t token;         /* the async PF's token, or 0: none */
	uint64_t tried;         /* trace clock before the try (0: not traced) */
	bool from_tier;         /* the page was in the compressed tier */
};

/*
 * The not-present step of an EPT violation of vCPU n at gpa (guest RAM),
 * under one hold of mem_lock: the fault is begun (swap_fault_begin_locked:
 * the page mapped, or its swap-in started or joined with n a waiter) and,
 * when the swap-in is under way and apf/ allows it, a token is taken and
 * "page not present" written into the shared area, before any completion
 * can look for the token. try->token is that token (the caller injects
 * #PF, CR2 = the token, error code 0), or 0: the caller waits as without
 * async page faults (apf_halt_allowed, swap_fault_wait); try->tried is
 * set only with the swap-in under way. gs is the vCPU state: read_state
 * fills it only when the swap-in is under way (VMREADs that a fault the
 * pool resolves at once does not pay), or, with read_state NULL, the
 * caller filled it; its area_flags is filled here.
 */
void vm_fault_swapin_locked(struct vm *vm, unsigned n, uint64_t gpa,
			    void (*read_state)(struct apf_guest_state *),
			    struct apf_guest_state *gs, struct vm_apf_try *try);

/*
 * Inline: it is the start of every EPT violation on guest RAM, and most
 * of them (zero fills, refaults) never reach the swap-in half.
 */
static inline enum guest_fault_result
vm_fault_begin(struct vm *vm, unsigned n, uint64_t gpa,
	       void (*read_state)(struct apf_guest_state *),
	       struct apf_guest_state *gs, struct vm_apf_try *try)
{
	enum guest_fault_result r;

	try->token = 0;
	spin_lock(&vm->memory.lock);
	try->from_tier = vm->memory.ram.tier &&
			 guest_memory_is_ram(&vm->memory.ram, gpa) &&
			 vm->memory.ram.state[guest_memory_index(
				 &vm->memory.ram, gpa >> PAGE_SHIFT)] ==
			 PAGE_COMPRESSED;
	r = swap_fault_begin_locked(vm->memory.swap, gpa, n);
	if (r == GUEST_FAULT_SWAPIN_STARTED || r == GUEST_FAULT_WAIT_IO)
		vm_fault_swapin_locked(vm, n, gpa, read_state, gs, try);
	spin_unlock(&vm->memory.lock);
	return r;
}

/*
 * The page at gpa, which vCPU n waited for, is settled (swap/'s
 * page_resident, under mem_lock, on any CPU): a token of n for it goes on
 * n's done list, and VCPU_REQ_PAGE_READY is set, with a kick unless
 * apf_page_completed says n's ACK exit will come anyway. A vCPU that
 * waited without a token (APF halt, synchronous wait) is kicked too.
 */
void vm_apf_page_settled(struct vm *vm, unsigned n, uint64_t gpa);

enum vm_page_ready {
	/* Nothing to send now; a request comes when there is (a completion,
	 * the guest's ACK, an EN or INT write). */
	VM_PAGE_READY_NONE,
	VM_PAGE_READY_SENT,     /* token in the word, vector in the LAPIC */
	/* One waits for what no request announces (CR0.PG, the LAPIC, a
	 * legal vector, the area's page): try again before each entry. */
	VM_PAGE_READY_HELD,
};

/*
 * VCPU_REQ_PAGE_READY's handler (vCPU n itself): the first page-ready of
 * its done list goes out if the guest's slot is free and its LAPIC takes
 * the vector: at most one at a time. paging is the vCPU's CR0.PG now.
 */
enum vm_page_ready vm_apf_page_ready(struct vm *vm, unsigned n, bool paging);

/* Whether vCPU n has tokens in flight or page-ready to send. */
static inline bool vm_apf_busy(const struct vm *vm, unsigned n)
{
	return apf_outstanding(&vm->plat[n].apf) != 0;
}

/* MSR_KVM_ASYNC_PF_*: KVM's rules; false = #GP. */
bool vm_apf_wrmsr(struct vm *vm, unsigned n, uint32_t msr, uint64_t value);
bool vm_apf_rdmsr(struct vm *vm, unsigned n, uint32_t msr, uint64_t *value);

/* INIT: the protocol is off again; swap-ins under way still complete. */
void vm_apf_reset(struct vm *vm, unsigned n);

#endif
