/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The VM's side of async page faults (../shared/APF-PROTOCOL.md): apf/
 * decides, this file reads and writes the guest's shared area and raises
 * the page-ready vector in the virtual LAPIC. Every call is made by the
 * vCPU it names (its exits, its requests), so apf state needs no lock.
 */
#ifndef GUEST_ASYNC_PF_H
#define GUEST_ASYNC_PF_H

#include "guest/vm.h"

/*
 * An EPT violation on gpa, whose swap-in is under way, may become a
 * "page not present": when apf/ allows it, the reason is written into the
 * shared area and true returned with the token the caller injects as #PF
 * (CR2 = token, error code 0). False: wait synchronously (counted).
 * gs is the vCPU state the caller read; its area_flags is filled here.
 */
bool vm_apf_not_present(struct vm *vm, unsigned n, struct apf_guest_state *gs,
			uint64_t gpa, uint32_t *token);

/*
 * Before an entry: tokens whose swap-in has ended become ready, and the
 * next page-ready goes out (token into the area, vector into the LAPIC)
 * if the guest's slot is free. paging is the vCPU's CR0.PG now. True when
 * one went out.
 */
bool vm_apf_page_ready(struct vm *vm, unsigned n, bool paging);

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
