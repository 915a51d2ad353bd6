/* SPDX-License-Identifier: BSD-2-Clause */
/* One handler per VM-exit reason; vmx/exit_dispatch.c holds the table. */
#ifndef VMX_EXIT_HANDLERS_H
#define VMX_EXIT_HANDLERS_H

#include "vmx/vcpu.h"
#include "vmx/vmx_ops.h"

enum exit_action {
	EXIT_RESUME,            /* enter the guest again */
	EXIT_STOP,              /* the guest has ended (guest_end was called) */
	EXIT_WAIT_FOR_SIPI,     /* the handler took an INIT: wait for a SIPI */
};

typedef enum exit_action (*exit_handler_fn)(struct vcpu *v,
					    const struct vmx_exit *e);

enum exit_action handle_cpuid(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_hlt(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_io(struct vcpu *v, const struct vmx_exit *e);
/* INS/OUTS, REP or not (vmx/exit_string_io.c). */
enum exit_action handle_string_io(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_rdmsr(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_wrmsr(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_ept_violation(struct vcpu *v, const struct vmx_exit *e);
/*
 * Emulated MMIO pages outside guest RAM (vmx/exit_mmio.c): whether gpa
 * lies on one, and the EPT violation there, decoded and performed.
 */
bool vmx_owns_mmio(struct vcpu *v, uint64_t gpa);
enum exit_action handle_mmio(struct vcpu *v, const struct vmx_exit *e,
			     uint64_t gpa);
enum exit_action handle_ept_misconfig(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_exception_nmi(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_external_interrupt(struct vcpu *v,
					   const struct vmx_exit *e);
enum exit_action handle_triple_fault(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_interrupt_window(struct vcpu *v,
					 const struct vmx_exit *e);
enum exit_action handle_preemption_timer(struct vcpu *v,
					 const struct vmx_exit *e);
enum exit_action handle_cr_access(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_xsetbv(struct vcpu *v, const struct vmx_exit *e);
/*
 * VMCALL: KVM's error code in RAX; the VMX instructions, GETSEC, MONITOR
 * and MWAIT: #UD.
 */
enum exit_action handle_vmcall(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_invalid_opcode(struct vcpu *v,
				       const struct vmx_exit *e);
enum exit_action handle_unexpected(struct vcpu *v, const struct vmx_exit *e);

/*
 * Moves the guest RIP past the exiting instruction. Inline: every
 * instruction exit ends here.
 */
static inline void vcpu_skip_instruction(const struct vmx_exit *e)
{
	uint32_t blocking = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);

	vmcs_write(VMCS_GUEST_RIP, e->guest_rip + e->instruction_length);
	/* STI/MOV SS blocking covers only the instruction just skipped. */
	if (blocking & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
		vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
			   blocking & ~(INTERRUPTIBILITY_STI |
					INTERRUPTIBILITY_MOV_SS));
}

/* Prints guest state, controls and host state, one "vmcs:" line each. */
void vmcs_dump(void);

/* Queues a hardware exception for the next VM entry (SDM Vol. 3C, 26.6). */
void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code);

#endif
