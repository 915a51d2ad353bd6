/* SPDX-License-Identifier: BSD-2-Clause */
/* A virtual CPU: its saved registers, its VMCS and its counters. */
#ifndef VMX_VCPU_H
#define VMX_VCPU_H

#include "lib/types.h"
#include "vmx/exit_reasons.h"

/* Saved by vmx/vmx_entry.asm; the offsets there must match. */
struct guest_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t cr2;
};

struct vcpu_stats {
	uint64_t exits[VMX_EXIT_REASON_MAX];
	uint64_t exits_total;
	uint64_t io_unhandled;
	uint64_t msr_gp_injected;
	uint64_t irq_injected_lapic;    /* local APIC (timer, IPIs) */
	uint64_t irq_injected_pic;      /* 8259 through LINT0 (UART) */
};

struct guest;
struct percpu;

struct vcpu {
	struct guest_regs regs;         /* first: the entry stub's argument */
	unsigned id;
	uint16_t vpid;
	bool launched;
	struct guest *guest;
	struct percpu *host;
	uint64_t vmcs_pa;
	volatile bool in_guest;         /* between VM entry and exit */
	volatile uint64_t ept_seen;     /* ept_generation flushed up to */
	struct vcpu_stats stats;
};

/* Values the exit handlers read once per exit. */
struct vmx_exit {
	uint32_t reason;                /* basic reason */
	uint64_t qualification;
	uint64_t guest_rip;
	uint32_t instruction_length;
};

/* Starts VMX on this host CPU and runs v until the guest ends. */
void vcpu_run(struct vcpu *v);

/* Moves the guest RIP past the exiting instruction. */
void vcpu_skip_instruction(const struct vmx_exit *e);

#endif
