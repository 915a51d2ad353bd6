// SPDX-License-Identifier: BSD-2-Clause
/*
 * VMCALL and the VMX instructions, answered as KVM answers a guest that it
 * offers no hypercall and no nested VMX: VMCALL returns an error code in
 * RAX (-KVM_EPERM from CPL > 0, else -KVM_ENOSYS; arch/x86/kvm/x86.c,
 * kvm_emulate_hypercall) and the guest goes on; VMXON, VMREAD and the rest
 * raise #UD (kvm_handle_invalid_op / handle_vmx_instruction). Neither ends
 * the VM, whatever the CPL. The exceptions: KVM_HC_SEND_IPI from CPL 0,
 * answered as KVM answers it (guest/pv_send_ipi.h), and debug.hypercall's
 * number when the configuration turns it on (guest/debug_hypercall.c). MONITOR and MWAIT, which CPUID leaf 1 hides,
 * raise #UD as on a CPU without them (KVM without its never-#UD quirk):
 * run natively, MWAIT would park the host CPU until a write or an
 * interrupt, holding back the hypervisor's own work on it.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/exceptions.h"
#include "guest/vm.h"
#include "guest/debug_hypercall.h"
#include "guest/pv_send_ipi.h"

#define SEG_AR_DPL(ar) (((ar) >> 5) & 3)

enum exit_action handle_vmcall(struct vcpu *v, const struct vmx_exit *e)
{
	unsigned cpl = SEG_AR_DPL(vmcs_read32(VMCS_GUEST_SS_ACCESS_RIGHTS));
	bool long_cs = vmcs_read32(VMCS_GUEST_CS_ACCESS_RIGHTS) & SEGMENT_AR_L;
	int64_t ret = cpl ? -KVM_EPERM : -KVM_ENOSYS;
	/* Outside 64-bit code the registers are 32 bits wide (as KVM). */
	uint64_t mask = long_cs ? ~0ull : 0xffffffffull;

	if (v->guest->config.debug_hypercall &&
	    (v->regs.rax & mask) == APFVISOR_HC_DEBUG)
		ret = vm_debug_hypercall(v->guest, v->regs.rbx & mask,
					 v->regs.rcx & mask);
	else if (!cpl && (v->regs.rax & mask) == KVM_HC_SEND_IPI)
		ret = guest_pv_send_ipi(v->guest, v->id, v->regs.rbx & mask,
					v->regs.rcx & mask, v->regs.rdx & mask,
					v->regs.rsi & mask, long_cs);
	v->regs.rax = long_cs ? (uint64_t)ret : (uint32_t)ret;
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}

enum exit_action handle_invd(struct vcpu *v, const struct vmx_exit *e)
{
	(void)v;
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}

enum exit_action handle_invalid_opcode(struct vcpu *v,
				       const struct vmx_exit *e)
{
	(void)v;
	(void)e;
	vmx_inject_exception(EXC_INVALID_OPCODE, false, 0);
	return EXIT_RESUME;
}
