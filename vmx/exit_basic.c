// SPDX-License-Identifier: BSD-2-Clause
/* Handlers for CPUID, HLT, RDMSR/WRMSR and the event-related exits. */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_controls.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/exceptions.h"
#include "arch/x86/platform.h"
#include "guest/cpuid.h"
#include "guest/vm.h"
#include "swap/swap_daemon.h"
#include "vmx/vcpu_events.h"
#include "arch/x86/lapic.h"
#include "lib/console.h"

#define XSAVE_LEGACY_AND_HEADER 576
#define XSAVEC_SUPPORTED BIT(1)
#define XSAVE_COMPONENT_ALIGN64 BIT(1)

static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * CPUID.(0xD,1):EBX is the XSAVEC (compacted) area size for the features
 * enabled now, i.e. the guest's XCR0, which is the CPU's since its XSETBV
 * (KVM recomputes it the same way; SDM Vol. 1, 13.4.3). Bochs reports the
 * standard size there, which Linux's fpu__init_system_xstate warns about.
 */
static uint32_t xsave_compacted_size(void)
{
	uint64_t xcr0 = read_xcr0();
	uint32_t size = XSAVE_LEGACY_AND_HEADER;

	for (unsigned i = 2; i < 63; i++) {
		struct cpuid_regs c;

		if (!(xcr0 & BIT(i)))
			continue;
		cpuid_count(CPUID_LEAF_XSAVE, i, &c);
		if (c.ecx & XSAVE_COMPONENT_ALIGN64)
			size = (uint32_t)ALIGN_UP(size, 64);
		size += c.eax;
	}
	return size;
}

/* The guest's answer, from the host's and the policy (guest/cpuid.c). */
static void compute_cpuid(struct vcpu *v, uint32_t leaf, uint32_t subleaf,
			  struct cpuid_regs *out)
{
	struct cpuid_regs host;
	struct vm *g = v->guest;
	const struct cpuid_context ctx = {
		.vcpu_id = v->id,
		.nvcpus = g->nvcpus,
		.guest_osxsave = vmcs_read(VMCS_GUEST_CR4) & CR4_OSXSAVE,
		.kvm_features = g->config.kvm_features,
		.hide_xsavec = g->config.hide_xsavec,
		.apic_disabled = !vlapic_hw_enabled(&v->plat->lapic),
		.no_rdtscp = !(vmcs_read(VMCS_PROC_BASED_CONTROLS2) &
			       PROC2_ENABLE_RDTSCP),
	};

	cpuid_count(leaf, subleaf, &host);
	guest_cpuid(&ctx, leaf, subleaf, &host, out);
	if (leaf == CPUID_LEAF_XSAVE && subleaf == 1 &&
	    (out->eax & XSAVEC_SUPPORTED) && ctx.guest_osxsave)
		out->ebx = xsave_compacted_size();
	cpuid_cache_store(&v->cpuid_cache, leaf, subleaf, out);
}

static NOINLINE enum exit_action handle_uncached_cpuid(struct vcpu *v,
						       const struct vmx_exit *e)
{
	struct cpuid_regs out;

	compute_cpuid(v, (uint32_t)v->regs.rax, (uint32_t)v->regs.rcx, &out);
	v->regs.rax = out.eax;
	v->regs.rbx = out.ebx;
	v->regs.rcx = out.ecx;
	v->regs.rdx = out.edx;
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}

/* Most CPUIDs ask again what was asked before: the cache answers them. */
enum exit_action handle_cpuid(struct vcpu *v, const struct vmx_exit *e)
{
	if (!cpuid_answer_cached(v, e))
		return handle_uncached_cpuid(v, e);
	return EXIT_RESUME;
}

/*
 * HLT with interrupts enabled waits in the hypervisor for an interrupt.
 * With interrupts disabled only an NMI or INIT can wake the vCPU: it parks,
 * and when every running vCPU is parked that way the guest has stopped
 * itself (how a test guest ends, or a kernel after a panic).
 */
enum exit_action handle_hlt(struct vcpu *v, const struct vmx_exit *e)
{
	vcpu_skip_instruction(e);
	/*
	 * Single-stepped (or a data breakpoint hit on the way): the #DB
	 * trap after HLT is delivered now, and the halt ends with it (its
	 * IRET returns past the HLT). Waiting first would let the
	 * interrupt that ends the wait go in ahead of it and drop it (an
	 * injection drops pending debug exceptions). KVM does not halt a
	 * vCPU with an exception queued (arch/x86/kvm/x86.c,
	 * kvm_skip_emulated_instruction, kvm_vcpu_has_events).
	 */
	if (vcpu_debug_trap_pending())
		return EXIT_RESUME;
	if (vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_IF)
		vcpu_block_until_event(v);
	else
		vcpu_park(v);
	if (v->guest->end.ended)
		return EXIT_STOP;
	/* The wait takes requests: an INIT among them sends an AP back. */
	return v->plat->run_state == VCPU_WAIT_FOR_SIPI ? EXIT_WAIT_FOR_SIPI
							: EXIT_RESUME;
}

/*
 * With "acknowledge interrupt on exit" the host interrupt is already taken
 * off the LAPIC; nothing in the hypervisor uses device interrupts yet.
 */
enum exit_action handle_external_interrupt(struct vcpu *v,
					   const struct vmx_exit *e)
{
	(void)v;
	(void)e;
	/* Acknowledged on exit; only kicks (HV_KICK_VECTOR) arrive here. */
	lapic_eoi();
	return EXIT_RESUME;
}

/*
 * The guest can take the interrupt (or, NMI-window exit, the NMI) now:
 * vcpu_prepare_entry injects it.
 */
enum exit_action handle_interrupt_window(struct vcpu *v,
					 const struct vmx_exit *e)
{
	(void)v;
	(void)e;
	return EXIT_RESUME;
}

/*
 * The APIC timer is due, or it is time to poll input (vcpu_events.c) and,
 * without a service CPU, to run the paging daemon.
 */
enum exit_action handle_preemption_timer(struct vcpu *v,
					 const struct vmx_exit *e)
{
	(void)e;
	swap_daemon_work_as(v->guest->memory.swap, SWAP_WORKER_VCPU);
	return EXIT_RESUME;
}

/*
 * NMI exiting is on: a host NMI (another CPU stopping us) lands here, and
 * so do the guest exceptions of the exception bitmap (vmx/exit_exception.c).
 */
enum exit_action handle_exception_nmi(struct vcpu *v, const struct vmx_exit *e)
{
	uint32_t info = vmcs_read32(VMCS_EXIT_INTERRUPTION_INFO);

	if ((info & INTR_TYPE_MASK) == INTR_TYPE_NMI) {
		if (platform_stopping())
			cpu_halt_forever();
		return handle_unexpected(v, e);
	}
	return handle_guest_exception(v, e, info);
}

enum exit_action handle_triple_fault(struct vcpu *v, const struct vmx_exit *e)
{
	hv_info("vcpu %u: triple fault at rip 0x%llx", v->id,
		(unsigned long long)e->guest_rip);
	vmcs_dump();
	vm_end(v->guest, false, "triple fault at rip 0x%llx",
		  (unsigned long long)e->guest_rip);
	return EXIT_STOP;
}

enum exit_action handle_ept_misconfig(struct vcpu *v, const struct vmx_exit *e)
{
	uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDRESS);

	hv_error("vcpu %u: EPT misconfiguration at gpa 0x%llx (a bug in "
		 "ept/)", v->id, (unsigned long long)gpa);
	return handle_unexpected(v, e);
}
