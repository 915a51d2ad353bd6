/* SPDX-License-Identifier: BSD-2-Clause */
/* One guest: its RAM, its EPT, its virtual devices and its vCPUs. */
#ifndef GUEST_GUEST_H
#define GUEST_GUEST_H

#include "arch/x86/spinlock.h"
#include "boot/boot_info.h"
#include "guest/kvmclock.h"
#include "guest/msr.h"
#include "guest/pic8259.h"
#include "guest/vlapic.h"
#include "guest/uart.h"
#include "swap/guest_memory.h"
#include "vmx/vcpu.h"
#include "vmx/vmcs_setup.h"

#define GUEST_MAX_VCPUS 64
#define GUEST_END_REASON_MAX 192

enum guest_end_kind {
	GUEST_END_HALTED,               /* "guest halted: <why>" */
	GUEST_END_POWER_OFF,            /* "guest powered off" */
	GUEST_END_RESET,                /* "guest reset" */
};

/* What a vCPU is doing, as the platform sees it (SDM Vol. 3A, 9.4). */
enum vcpu_run_state {
	VCPU_RUNNABLE,
	VCPU_WAIT_FOR_SIPI,             /* an AP after INIT */
};

/* Per-vCPU platform state outside the VMCS. */
struct vcpu_platform {
	struct vlapic lapic;
	struct vcpu_msrs msrs;
	volatile enum vcpu_run_state run_state;
	volatile int sipi_vector;       /* -1: none received */
	volatile bool nmi_pending;
	volatile bool parked;           /* in HLT with interrupts disabled */
};

struct guest {
	const struct hv_config *cfg;
	struct spinlock lock;           /* guest memory and device state */
	struct ept ept;
	struct frame_pool pool;
	struct guest_memory mem;
	struct uart uart;
	struct vcpu_entry_state entry;  /* how vCPU 0 starts */
	struct vcpu *vcpus[GUEST_MAX_VCPUS];
	struct vcpu_platform plat[GUEST_MAX_VCPUS];
	struct pic pic;
	/* Makes vCPU n look at its interrupt state soon (set by the core). */
	void (*kick)(struct guest *g, unsigned n);
	/*
	 * EPT shootdown: after the daemon unmaps pages it bumps the
	 * generation; every vCPU executes INVEPT before it enters the guest
	 * with a newer generation than it has seen, and ept_flush (set by the
	 * core) waits for the vCPUs in guest mode to do so.
	 */
	volatile uint64_t ept_generation;
	void (*ept_flush)(struct guest *g);
	unsigned nvcpus;
	bool is_linux;                   /* a bzImage, not a flat test guest */
	uint32_t kvm_features;          /* CPUID 0x40000001 EAX offered */
	uint64_t start_tsc;             /* kvmclock 0 */
	uint64_t hv_start_tsc;          /* hv_main entered (after UEFI) */
	uint64_t first_entry_tsc;       /* vCPU 0's first VM entry */
	uint64_t end_tsc;               /* guest_end */
	uint64_t start_epoch_sec;       /* wall-clock time at start_tsc */
	struct pvclock_scale clock_scale;
	uint16_t pm1_status, pm1_enable, pm1_control;   /* ACPI PM1a */
	volatile bool ended;
	bool end_claimed;
	bool ended_cleanly;
	enum guest_end_kind end_kind;
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

/* As guest_end, for a power-off or reset (printed as such). */
void guest_end_as(struct guest *g, enum guest_end_kind kind, bool clean,
		  const char *fmt, ...) PRINTF_LIKE(4, 5);

/*
 * Writes into guest RAM from the hypervisor (kvmclock, later the async-PF
 * area), bringing the pages back first if the daemon evicted them.
 * Returns 0, or -1 (outside RAM, or a page that cannot come back).
 */
int guest_write(struct guest *g, uint64_t gpa, const void *src, uint64_t len);

/* Prints how the guest ended, then every counter, one per line. */
void guest_report(const struct guest *g);

#endif
