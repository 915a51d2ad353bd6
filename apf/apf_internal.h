/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared between apf/apf.c and apf/apf_msr.c; not for other folders. */
#ifndef APF_APF_INTERNAL_H
#define APF_APF_INTERNAL_H

#include "apf/apf.h"

/*
 * Forgets every token and queued page-ready (KVM's
 * kvm_clear_async_pf_completion_queue + kvm_async_pf_hash_reset); the
 * gpas whose swap-in was still in flight go to orphans.
 */
void apf_forget_all(struct apf_vcpu *v, struct apf_orphans *orphans);

/*
 * Queues the broadcast page-ready that tells the guest to retry every
 * sleeper of this vCPU, unless page-readies are queued already
 * (virt/kvm/async_pf.c: kvm_async_pf_wakeup_all). True if queued.
 */
bool apf_queue_wake_all(struct apf_vcpu *v);

#endif
