/* SPDX-License-Identifier: BSD-2-Clause */
/* One guest: its RAM, its EPT, its virtual devices and its vCPUs. */
#ifndef GUEST_GUEST_H
#define GUEST_GUEST_H

#include "arch/x86/spinlock.h"
#include "boot/boot_info.h"
#include "guest/kvmclock.h"
#include "guest/msr.h"
#include "guest/uart.h"
#include "swap/guest_memory.h"
#include "vmx/vcpu.h"
#include "vmx/vmcs_setup.h"

#define GUEST_MAX_VCPUS 64
#define GUEST_END_REASON_MAX 192

struct guest {
	const struct hv_config *cfg;
	struct spinlock lock;           /* guest memory and device state */
	struct ept ept;
	struct frame_pool pool;
	struct guest_memory mem;
	struct uart uart;
	struct vcpu_entry_state entry;  /* how vCPU 0 starts */
	struct vcpu *vcpus[GUEST_MAX_VCPUS];
	struct vcpu_msrs msrs[GUEST_MAX_VCPUS];
	unsigned nvcpus;
	uint32_t kvm_features;          /* CPUID 0x40000001 EAX offered */
	uint64_t start_tsc;             /* kvmclock 0 */
	uint64_t start_epoch_sec;       /* wall-clock time at start_tsc */
	struct pvclock_scale clock_scale;
	volatile bool ended;
	bool ended_cleanly;
	char end_reason[GUEST_END_REASON_MAX];
};

/* Builds the guest from the configuration and loads its image. */
struct guest *guest_create(const struct boot_info *bi);

/*
 * Records why the guest ends (first caller wins). clean = the guest asked
 * for it (test exit 0, HLT with interrupts off, power-off).
 */
void guest_end(struct guest *g, bool clean, const char *fmt, ...)
	PRINTF_LIKE(3, 4);

/* Prints "guest halted: <why>" and every counter, one per line. */
void guest_report(const struct guest *g);

#endif
