// SPDX-License-Identifier: BSD-2-Clause
/*
 * The guest exceptions apfvisor intercepts (the exception bitmap) and
 * RDPMC.
 *
 * #AC and #DB are intercepted only to be given back to the guest, as KVM
 * does (CVE-2015-5307, CVE-2015-8104, Xen XSA-156): a guest that makes the
 * delivery of #AC or #DB raise the same exception again (#AC with a
 * misaligned stack for a handler at CPL 3; #DB from a data breakpoint on
 * the stack the delivery writes) keeps the CPU in microcode with no VM
 * exit, for ever, and the next TLB shootdown that waits on that CPU waits
 * for ever too. Intercepted, each delivery attempt is a VM exit: the
 * guest may loop, but the host CPU comes back every time.
 *
 * A machine check in guest mode is the host's hardware failing: it is
 * logged with the bank registers and the VM ends. RDPMC exits so that a
 * guest, offered no PMU, never reads the host's counters: #GP.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vcpu.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "guest/vm.h"
#include "lib/console.h"

uint32_t vmx_exception_intercepts(void)
{
	return BIT(EXC_DEBUG) | BIT(EXC_ALIGNMENT_CHECK) |
	       BIT(EXC_MACHINE_CHECK);
}

uint64_t vmx_dr6_after_debug_exit(uint64_t dr6, uint64_t qualification)
{
	uint64_t hit = qualification & (DR6_TRAP_BITS | DR6_BD | DR6_BS |
					 DR6_RTM);

	/*
	 * What the CPU would have written had the #DB not exited (SDM Vol.
	 * 3C, 27.1: the exit leaves DR6 alone and reports in the
	 * qualification): the breakpoint bits are replaced, BD and BS
	 * added, the reserved bits read as ones, and RTM, which is active
	 * low, cleared when the qualification sets it.
	 */
	dr6 &= ~(DR6_TRAP_BITS | DR6_RTM);
	dr6 |= (DR6_FIXED_ONES & ~DR6_RTM) | (hit & ~DR6_RTM);
	if (!(hit & DR6_RTM))
		dr6 |= DR6_RTM;
	return dr6;
}

/*
 * The CPU clears DR7.GD when it enters a #DB handler, so that the handler
 * may use the debug registers (SDM Vol. 3B, 17.2.4); a #DB that exits
 * leaves DR7 as it was (SDM Vol. 3C, 28.1). KVM clears GD itself when it
 * injects a #DB (arch/x86/kvm/x86.c, kvm_check_and_inject_events).
 */
static void clear_general_detect(void)
{
	vmcs_write(VMCS_GUEST_DR7, vmcs_read(VMCS_GUEST_DR7) & ~DR7_GD);
}

/* INT1 (ICEBP) is a privileged software exception: given back as one. */
static void reflect_icebp(const struct vmx_exit *e)
{
	clear_general_detect();
	vmcs_write(VMCS_ENTRY_INSTRUCTION_LENGTH, e->instruction_length);
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, INTR_INFO_VALID |
		   INTR_TYPE_PRIV_SW_EXCEPTION | EXC_DEBUG);
}

static void reflect_debug(struct vcpu *v, const struct vmx_exit *e)
{
	uint32_t blocking = vmcs_read32(VMCS_GUEST_INTERRUPTIBILITY);

	write_dr6(vmx_dr6_after_debug_exit(read_dr6(), e->qualification));
	clear_general_detect();
	/*
	 * A single step over STI or MOV SS: VM entry checks that a pending
	 * single-step #DB is recorded while TF and that blocking are set
	 * (SDM Vol. 3C, 26.3.1.5), so record it, as KVM does.
	 */
	if ((vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_TF) &&
	    (blocking & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS)))
		vmcs_write(VMCS_GUEST_PENDING_DEBUG,
			   vmcs_read(VMCS_GUEST_PENDING_DEBUG) | DR6_BS);
	vmx_inject_exception(EXC_DEBUG, false, 0);
	v->stats.debug_reflected++;
}

/*
 * #AC is a fault: vmx_inject_exception sets RF in the RFLAGS its handler
 * sees, as the CPU delivering it itself would. The error code is 0.
 */
static void reflect_alignment_check(struct vcpu *v)
{
	vmx_inject_exception(EXC_ALIGNMENT_CHECK, true, 0);
	v->stats.alignment_check_reflected++;
}

bool vmx_host_has_machine_check_banks(void)
{
	struct cpuid_regs r;

	cpuid_count(CPUID_LEAF_FEATURES, 0, &r);
	return (r.edx & (CPUID_1_EDX_MCE | CPUID_1_EDX_MCA)) ==
	       (CPUID_1_EDX_MCE | CPUID_1_EDX_MCA);
}

unsigned vmx_log_machine_check(void)
{
	unsigned banks, logged = 0;

	if (!vmx_host_has_machine_check_banks()) {
		hv_error("machine check: this CPU reports no banks (CPUID "
			 "MCE/MCA clear)");
		return 0;
	}
	banks = (unsigned)(rdmsr(MSR_IA32_MCG_CAP) & MCG_CAP_COUNT_MASK);
	hv_error("machine check: MCG_STATUS 0x%llx, %u banks",
		 (unsigned long long)rdmsr(MSR_IA32_MCG_STATUS), banks);
	for (unsigned i = 0; i < banks; i++) {
		uint64_t status = rdmsr(MSR_IA32_MC_STATUS(i));

		if (!(status & MCI_STATUS_VAL))
			continue;
		logged++;
		hv_error("machine check: bank %u status 0x%llx addr 0x%llx "
			 "misc 0x%llx", i, (unsigned long long)status,
			 (unsigned long long)((status & MCI_STATUS_ADDRV) ?
					      rdmsr(MSR_IA32_MC_ADDR(i)) : 0),
			 (unsigned long long)((status & MCI_STATUS_MISCV) ?
					      rdmsr(MSR_IA32_MC_MISC(i)) : 0));
	}
	return logged;
}

enum exit_action handle_machine_check(struct vcpu *v, const struct vmx_exit *e)
{
	vmx_log_machine_check();
	vm_end(v->guest, false, "machine check on host cpu while vcpu %u ran "
	       "the guest at rip 0x%llx (a host hardware error)", v->id,
	       (unsigned long long)e->guest_rip);
	return EXIT_STOP;
}

enum exit_action handle_guest_exception(struct vcpu *v,
					const struct vmx_exit *e,
					uint32_t info)
{
	uint32_t type = info & INTR_TYPE_MASK;
	uint8_t vector = info & INTR_VECTOR_MASK;

	/*
	 * Both are benign: raised while another event was being delivered,
	 * the CPU delivers them and abandons that event, so the vectoring
	 * information (if any) is left as it is.
	 */
	if (vector == EXC_DEBUG && type == INTR_TYPE_PRIV_SW_EXCEPTION) {
		reflect_icebp(e);
		v->stats.debug_reflected++;
		return EXIT_RESUME;
	}
	if (type != INTR_TYPE_HW_EXCEPTION)
		return handle_unexpected(v, e);
	switch (vector) {
	case EXC_DEBUG:
		reflect_debug(v, e);
		return EXIT_RESUME;
	case EXC_ALIGNMENT_CHECK:
		reflect_alignment_check(v);
		return EXIT_RESUME;
	case EXC_MACHINE_CHECK:
		return handle_machine_check(v, e);
	default:
		return handle_unexpected(v, e);
	}
}

enum exit_action handle_rdpmc(struct vcpu *v, const struct vmx_exit *e)
{
	(void)v;
	(void)e;
	vmx_inject_exception(EXC_GENERAL_PROTECTION, true, 0);
	return EXIT_RESUME;
}
