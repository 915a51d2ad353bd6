/* SPDX-License-Identifier: BSD-2-Clause */
/* A virtual CPU: its saved registers, its VMCS and its counters. */
#ifndef VMX_VCPU_H
#define VMX_VCPU_H

#include "lib/latency_hist.h"
#include "lib/counters.h"
#include "vmx/exit_stats.h"
#include "guest/vm.h"
#include "ept/ept_shootdown.h"
#include "guest/cpuid.h"
#include "guest/interrupts.h"

/* Saved by vmx/vmx_entry.asm; the offsets there must match. */
struct guest_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t cr2;
};

/*
 * Per-vCPU counters; the registry prints their sum over the vCPUs
 * ("exits.total" comes with the exit statistics: vmx/exit_stats.h).
 */
#define VCPU_COUNTERS(X)                                                     \
	X(struct vcpu_stats, io_unhandled, "io.unhandled")                    \
	X(struct vcpu_stats, string_io, "io.string_exits")                    \
	X(struct vcpu_stats, mmio_emulated, "mmio.emulated")                  \
	X(struct vcpu_stats, unclaimed_accesses, "mmio.unclaimed")            \
	X(struct vcpu_stats, msr_gp_injected, "msr.gp_injected")              \
	X(struct vcpu_stats, debug_reflected, "exception.debug_reflected")    \
	X(struct vcpu_stats, alignment_check_reflected,                       \
	  "exception.alignment_check_reflected")                              \
	X(struct vcpu_stats, irq_injected_lapic, "irq.injected_lapic")        \
	X(struct vcpu_stats, irq_injected_pic, "irq.injected_pic")            \
	X(struct vcpu_stats, nmi_injected, "nmi.injected")                    \
	X(struct vcpu_stats, requests_handled, "vcpu.requests_handled")       \
	X(struct vcpu_stats, entries_retried, "vcpu.entries_retried")         \
	X(struct vcpu_stats, apf_halts, "vcpu.apf_halts")                     \
	X(struct vcpu_stats, apf_halt_events,                                 \
	  "vcpu.apf_halts_left_for_an_event")                                 \
	X(struct vcpu_stats, invept, "vcpu.invept")                           \
	X(struct vcpu_stats, nmi_reblocked, "ept.nmi_reblocked_after_iret")  \
	X(struct vcpu_stats, mce_injected, "mce.injected")                    \
	X(struct vcpu_stats, task_switches, "vcpu.task_switches")

struct vcpu_stats {
	struct exit_stats exit;         /* per reason: count, root time */
	VCPU_COUNTERS(COUNTER_FIELD)
	/*
	 * EPT violations on guest RAM resolved without I/O (a zero fill, a
	 * page another vCPU just mapped): root-mode cycles from the exit to
	 * the page mapped ("lat.fault_minor").
	 */
	struct latency_hist minor_fault;
	/* swap.tier: those that expanded a page from the compressed tier
	 * ("lat.tier_hit"), apart from the minor faults. */
	struct latency_hist tier_hit;
};

struct percpu;

struct vcpu {
	struct guest_regs regs;         /* first: the entry stub's argument */
	unsigned id;
	uint16_t vpid;
	bool launched;
	struct vm *guest;
	struct vcpu_platform *plat;     /* guest->plat[id] */
	struct percpu *host;
	struct ept_client *tlb_client;  /* its slot in guest->tlb */
	uint64_t vmcs_pa;
	/*
	 * NMIs to inject, taken from nmis_sent: at most 2 (one delivered,
	 * one latched), 1 while the guest is in its NMI handler or one is
	 * being injected (as KVM's process_nmi).
	 */
	unsigned nmi_pending;
	bool sipi_pending;              /* taken from VCPU_REQ_SIPI */
	/*
	 * A page-ready waits for what no request announces (vm_apf_page_ready
	 * said HELD): every entry tries again until it goes.
	 */
	bool page_ready_held;
	bool halted;                    /* in vcpu_block_until_event/apf_halt */
	/* vCPU 0 without a service CPU polls the console; others: never. */
	uint64_t next_console_poll;     /* UINT64_MAX: never */
	/*
	 * From when an entry has a chore before it (vcpu_entry_chores):
	 * next_console_poll, or 0 while a page-ready is held. One compare on
	 * every full preparation covers both (vcpu_chores_changed keeps it).
	 */
	uint64_t chores_due;
	/* Fixed at creation (vcpu_events_init), read before every entry. */
	struct {
		uint64_t poll_ticks;    /* the longest stay in guest mode */
		uint64_t apf_poll_ticks; /* that, with async PFs in flight */
		/* apf_poll_ticks is shorter: the vCPUs move the swap I/O */
		bool apf_short_timer;
		unsigned rate;          /* preemption timer: TSC >> rate */
		/* poll_ticks, apf_poll_ticks as preemption-timer values */
		uint64_t poll_timer, apf_poll_timer;
	} entry_cfg;
	/* The preemption timer's VMCS value; UINT64_MAX: not written yet. */
	uint64_t timer_written;
	struct irq_poll_memo irq_memo;  /* the last interrupt poll */
	/* Until this TSC, entries need no poll (vmx/vcpu_entry.h); 0: now. */
	uint64_t fast_entry_until;
	struct cpuid_cache cpuid_cache;
	struct vcpu_stats stats;
	/* The open exit's details for its trace record (trace = on). */
	struct {
		uint64_t qualification, rip;
	} traced_exit;
};

/* Values the exit handlers read once per exit. */
struct vmx_exit {
	uint32_t reason;                /* basic reason */
	uint64_t qualification;
	uint64_t guest_rip;
	uint64_t instruction_length;    /* a 32-bit field, zero-extended */
};

/*
 * Creates the VM's vCPUs (one array, so the registry can sum their
 * counters), registers their counters and installs the kick.
 */
struct vcpu *vcpus_create(struct vm *vm);

/* Starts VMX on this host CPU and runs v until the guest ends. */
void vcpu_run(struct vcpu *v);

#endif
