/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hardware task switching of a 32-bit protected-mode guest (SDM Vol. 3A,
 * 7.3 "Task Switching"), carried out by the hypervisor: VMX makes every
 * attempt at a task switch a VM exit (SDM Vol. 3C, 26.4.2 / exit reason
 * 9). Plain C over a state struct and guest-physical read/write callbacks
 * (the linear addresses of the GDT, LDT and TSSs go through the guest's
 * own page tables, guest/guest_pagewalk.c), so that tests/unit and the
 * fuzzer drive it without hardware; vmx/exit_task_switch.c is the VMCS
 * edge. The same checks, order and outcome as KVM's emulator_task_switch
 * (arch/x86/kvm/emulate.c), with the SDM's Table 7-1 where they differ.
 * Everything read from the guest (descriptors, TSSs) is untrusted.
 */
#ifndef GUEST_TASK_SWITCH_H
#define GUEST_TASK_SWITCH_H

#include "lib/types.h"

/* Bits 31:30 of the exit qualification (SDM Vol. 3C, Table 28-2). */
enum ts_source {
	TS_FROM_CALL = 0,
	TS_FROM_IRET = 1,
	TS_FROM_JMP = 2,
	TS_FROM_IDT = 3,        /* a task gate in the IDT (an event) */
};

/* The segment registers in the VMCS's order (ES = 0 ... TR = 7). */
enum ts_seg {
	TS_ES, TS_CS, TS_SS, TS_DS, TS_FS, TS_GS, TS_LDTR, TS_TR,
	TS_SEG_COUNT
};

/* Access rights in the VMCS format (SDM Vol. 3C, 25.4.1, Table 25-2). */
#define TS_AR_TYPE_MASK 0xfu
#define TS_AR_S         BIT(4)          /* code or data, not system */
#define TS_AR_DPL_SHIFT 5
#define TS_AR_P         BIT(7)
#define TS_AR_DB        BIT(14)
#define TS_AR_UNUSABLE  BIT(16)
#define TS_AR_TSS32_BUSY 0x8bu          /* present 32-bit busy TSS */
#define TS_AR_VM86      0xf3u           /* every segment in virtual-8086 */

struct ts_segment {
	uint16_t selector;
	uint32_t base, limit;           /* limit in bytes (G applied) */
	uint32_t ar;
};

/* EAX, ECX, EDX, EBX, ESP, EBP, ESI, EDI: the SDM's numbering. */
enum { TS_EAX, TS_ECX, TS_EDX, TS_EBX, TS_ESP, TS_EBP, TS_ESI, TS_EDI,
       TS_GPR_COUNT };

/* What a task switch reads and changes of the vCPU. */
struct ts_state {
	uint32_t gpr[TS_GPR_COUNT];
	uint32_t eip, eflags;
	struct ts_segment seg[TS_SEG_COUNT];
	uint64_t cr0, cr3, cr4, efer;
	uint64_t pdpte[4];              /* loaded with CR3 under PAE paging */
	uint64_t gdtr_base, idtr_base;
	uint32_t gdtr_limit, idtr_limit;
	uint64_t dr7;
};

struct ts_request {
	uint16_t selector;              /* the new TSS */
	enum ts_source source;
	/* The EIP the old task resumes at (after CALL, JMP, IRET, INT n). */
	uint32_t return_eip;
	/* INT n through a task gate: its vector, for the gate's DPL check. */
	int soft_int_vector;            /* -1: none */
	/* An exception whose error code goes onto the new task's stack. */
	bool push_error_code;
	uint32_t error_code;
	/* A hardware event caused it: EXT in the error codes of faults. */
	bool external;
};

/* Guest-physical memory: 0, or -1 where there is no RAM. */
struct ts_memory {
	int (*read)(void *ctx, uint64_t gpa, void *buf, unsigned len);
	int (*write)(void *ctx, uint64_t gpa, const void *buf, unsigned len);
	void *ctx;
};

enum ts_outcome {
	TS_SWITCHED,            /* the new task runs */
	TS_FAULT,               /* fault to inject (in the state returned) */
	TS_TABLES_OUTSIDE_RAM,  /* the guest's page tables are not in RAM */
	TS_16BIT_TSS,           /* a 16-bit TSS: not emulated */
};

struct ts_result {
	/* TS_FAULT: the exception; cr2 with a #PF. */
	uint8_t vector;
	bool has_error_code;
	uint32_t error_code;
	uint64_t cr2;
	/* The fault came after the commit point: the new task took it. */
	bool committed;
	bool cr3_changed;
	/* The new TSS's T bit: a debug trap (#DB, DR6.BT) follows. */
	bool debug_trap;
};

/*
 * Switches s to the task whose TSS r->selector names. s->eip is the EIP
 * of the instruction or event that caused the switch (a fault before the
 * commit point is taken there, with s unchanged); after the commit point
 * s holds the new task, also when its segments then fault.
 */
enum ts_outcome task_switch(struct ts_state *s, const struct ts_request *r,
			    const struct ts_memory *m, struct ts_result *out);

#endif
