/* SPDX-License-Identifier: BSD-2-Clause */
/* One handler per VM-exit reason; vmx/exit_dispatch.c holds the table. */
#ifndef VMX_EXIT_HANDLERS_H
#define VMX_EXIT_HANDLERS_H

#include "vmx/vcpu.h"
#include "vmx/vmx_ops.h"
#include "guest/io_mmio.h"

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
 * Emulated MMIO pages outside guest RAM (vmx/exit_mmio.c): the MMIO range
 * gpa lies in for this vCPU (false: none; every registered page, the
 * xAPIC page in every mode: disabled or in x2APIC mode it is a hole,
 * guest/devices/vlapic_mmio.h, handled here rather than sent through the
 * swap layer's "not RAM" path, as KVM keeps the page on its APIC device
 * in every mode), and the EPT violation at gpa there, decoded and
 * performed.
 */
static inline bool vmx_mmio_range(struct vcpu *v, uint64_t gpa,
				  struct guest_mmio_hit *hit)
{
	return guest_mmio_find(v->guest, v->id, gpa, hit);
}
static inline bool vmx_owns_mmio(struct vcpu *v, uint64_t gpa)
{
	struct guest_mmio_hit hit;

	return vmx_mmio_range(v, gpa, &hit);
}
/* hit NULL: nothing there (a load reads all ones, a store is dropped). */
enum exit_action handle_mmio(struct vcpu *v, const struct vmx_exit *e,
			     uint64_t gpa, const struct guest_mmio_hit *hit);
/*
 * An EPT violation on a guest page lost to a failed swap-in
 * (vmx/exit_lost_page.c): a machine check for the guest, or the VM's end.
 */
enum exit_action handle_lost_page(struct vcpu *v, const struct vmx_exit *e,
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
/*
 * A task switch (vmx/exit_task_switch.c): JMP, CALL, IRET with NT, or a
 * task gate in the IDT, carried out by guest/task_switch.c.
 */
enum exit_action handle_task_switch(struct vcpu *v, const struct vmx_exit *e);
enum exit_action handle_unexpected(struct vcpu *v, const struct vmx_exit *e);

/*
 * Guest exceptions and RDPMC (vmx/exit_exception.c): the exception bitmap
 * (#DB, #AC, #MC), what DR6 becomes when a #DB is given back, a hardware
 * or privileged software exception that exited (#DB, #AC given back, #MC
 * ends the VM), a machine check during VM entry, and RDPMC (#GP: no PMU
 * is offered).
 */
uint32_t vmx_exception_intercepts(void);
uint64_t vmx_dr6_after_debug_exit(uint64_t dr6, uint64_t qualification);
enum exit_action handle_guest_exception(struct vcpu *v,
					const struct vmx_exit *e,
					uint32_t info);
enum exit_action handle_machine_check(struct vcpu *v,
				      const struct vmx_exit *e);
/* Logs MCG_STATUS and every valid bank; returns how many banks. */
unsigned vmx_log_machine_check(void);
bool vmx_host_has_machine_check_banks(void);
enum exit_action handle_rdpmc(struct vcpu *v, const struct vmx_exit *e);

/* CS is a 64-bit code segment of a guest in IA-32e mode. */
static inline bool vcpu_in_64bit_code(void)
{
	return (vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA) &&
	       (vmcs_read32(VMCS_GUEST_CS_ACCESS_RIGHTS) & SEGMENT_AR_L);
}

/*
 * Moves the guest RIP past the exiting instruction, as finishing it on the
 * CPU would have. Inline: every instruction exit ends here.
 */
static inline void vcpu_skip_instruction(const struct vmx_exit *e)
{
	uint32_t blocking = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);
	uint64_t next = e->guest_rip + e->instruction_length;

	/* Outside 64-bit code the instruction pointer is EIP: it wraps. */
	if ((next >> 32) && !vcpu_in_64bit_code())
		next = (uint32_t)next;
	vmcs_write(VMCS_GUEST_RIP, next);
	/* STI/MOV SS blocking covers only the instruction just skipped. */
	if (blocking & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
		vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
			   blocking & ~(INTERRUPTIBILITY_STI |
					INTERRUPTIBILITY_MOV_SS));
	/*
	 * Single-stepping (TF): the instruction, done here, traps after it
	 * as it would have on the CPU. A pending single-step debug
	 * exception is delivered right after VM entry (SDM Vol. 3C,
	 * 26.7.3); the #DB exits and goes back to the guest with DR6.BS.
	 */
	if (vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_TF)
		vmcs_write(VMCS_GUEST_PENDING_DEBUG,
			   vmcs_read(VMCS_GUEST_PENDING_DEBUG) | DR6_BS);
}

/*
 * CPUID answered from the vCPU's cache (guest/cpuid.h), the instruction
 * skipped; false when the cache does not hold the leaf (handle_cpuid then
 * asks the host and the policy). Inline: the exit dispatch calls it
 * directly (vmx/exit_dispatch.h).
 */
static inline bool cpuid_answer_cached(struct vcpu *v,
				       const struct vmx_exit *e)
{
	const struct cpuid_regs *answer =
		cpuid_cache_find(&v->cpuid_cache, (uint32_t)v->regs.rax,
				 (uint32_t)v->regs.rcx);

	if (!answer)
		return false;
	v->regs.rax = answer->eax;
	v->regs.rbx = answer->ebx;
	v->regs.rcx = answer->ecx;
	v->regs.rdx = answer->edx;
	vcpu_skip_instruction(e);
	return true;
}

/* INVD: skipped, as KVM does (no cache of the guest's is ever dropped). */
enum exit_action handle_invd(struct vcpu *v, const struct vmx_exit *e);

/* Prints guest state, controls and host state, one "vmcs:" line each. */
void vmcs_dump(void);

/*
 * Queues a hardware exception for the next VM entry (SDM Vol. 3C, 27.6),
 * with RF set in the RFLAGS it pushes when vmx_exception_sets_rf says the
 * CPU would have set it (vmx/exception_inject.c).
 */
void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code);
bool vmx_exception_sets_rf(uint8_t vector);

#endif
