// SPDX-License-Identifier: BSD-2-Clause
/*
 * VT-x capability checks (SDM Vol. 3C, 24.6 "Discovering Support for VMX"
 * and 24.7 "Enabling and Entering VMX Operation"; Vol. 3D, Appendix A).
 */
#include "vmx/vmx_caps.h"
#include "vmx/vmx_controls.h"
#include "arch/x86/cpu.h"
#include "lib/console.h"

struct vmx_requirement {
	uint32_t cap_msr;       /* capability MSR to read */
	bool high_half;         /* test the allowed-1 half (bits 63:32) */
	uint64_t bits;
	const char *what;
};

/* Read only after IA32_VMX_BASIC[55] said the TRUE_* MSRs exist. */
static const struct vmx_requirement requirements[] = {
	{ MSR_IA32_VMX_TRUE_PROCBASED_CTLS, true, PROC_ACTIVATE_SECONDARY,
	  "secondary processor-based VM-execution controls" },
	{ MSR_IA32_VMX_PROCBASED_CTLS2, true, PROC2_ENABLE_EPT,
	  "EPT (extended page tables)" },
	{ MSR_IA32_VMX_PROCBASED_CTLS2, true, PROC2_UNRESTRICTED_GUEST,
	  "unrestricted guest" },
	{ MSR_IA32_VMX_PROCBASED_CTLS2, true, PROC2_ENABLE_VPID, "VPID" },
	{ MSR_IA32_VMX_TRUE_PINBASED_CTLS, true, PIN_PREEMPTION_TIMER,
	  "the VMX preemption timer" },
	{ MSR_IA32_VMX_TRUE_PINBASED_CTLS, true, PIN_VIRTUAL_NMIS,
	  "virtual NMIs" },
	{ MSR_IA32_VMX_TRUE_PROCBASED_CTLS, true, PROC_NMI_WINDOW_EXITING,
	  "NMI-window exiting" },
	{ MSR_IA32_VMX_TRUE_PROCBASED_CTLS, true, PROC_USE_TSC_OFFSETTING,
	  "TSC offsetting" },
	{ MSR_IA32_VMX_TRUE_EXIT_CTLS, true,
	  EXIT_HOST_ADDR_SPACE_SIZE | EXIT_SAVE_EFER | EXIT_LOAD_EFER |
		  EXIT_SAVE_PAT | EXIT_LOAD_PAT,
	  "64-bit host and EFER/PAT save/load on VM exit" },
	{ MSR_IA32_VMX_TRUE_ENTRY_CTLS, true,
	  ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_EFER | ENTRY_LOAD_PAT,
	  "IA-32e mode guest and EFER/PAT load on VM entry" },
	{ MSR_IA32_VMX_EPT_VPID_CAP, false, EPT_CAP_WALK_LENGTH_4,
	  "EPT with a 4-level page walk" },
	{ MSR_IA32_VMX_EPT_VPID_CAP, false, EPT_CAP_MEMTYPE_WB,
	  "EPT write-back memory type" },
	{ MSR_IA32_VMX_EPT_VPID_CAP, false, EPT_CAP_ACCESSED_DIRTY,
	  "EPT accessed and dirty bits" },
	{ MSR_IA32_VMX_EPT_VPID_CAP, false,
	  EPT_CAP_INVEPT | EPT_CAP_INVEPT_SINGLE_CONTEXT,
	  "single-context INVEPT" },
	{ MSR_IA32_VMX_EPT_VPID_CAP, false, VPID_CAP_INVVPID,
	  "INVVPID" },
};

bool vmx_enable_feature_control(void)
{
	uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);

	if (fc & FEATURE_CONTROL_LOCKED)
		return fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX;
	/* OVMF leaves the MSR unlocked; the first writer decides and locks. */
	wrmsr(MSR_IA32_FEATURE_CONTROL, fc | FEATURE_CONTROL_VMX_OUTSIDE_SMX |
						FEATURE_CONTROL_LOCKED);
	return true;
}

static bool requirement_met(const struct vmx_requirement *r)
{
	uint64_t v = rdmsr(r->cap_msr);

	if (r->high_half)
		v >>= 32;
	return (v & r->bits) == r->bits;
}

/*
 * What this CPU offers beyond the requirements, in one line, for whoever
 * studies the exit path on it: the APIC virtualization that would take
 * interrupt delivery out of the exits (SDM Vol. 3C, 30: APIC-register
 * virtualization, virtual-interrupt delivery, posted interrupts) and
 * page-modification logging. apfvisor uses none of them yet.
 */
static void report_optional_features(void)
{
	uint64_t pin = rdmsr(MSR_IA32_VMX_TRUE_PINBASED_CTLS) >> 32;
	uint64_t proc2 = rdmsr(MSR_IA32_VMX_PROCBASED_CTLS2) >> 32;

	hv_info("VT-x: APIC-register virtualization %s, virtual-interrupt "
		"delivery %s, posted interrupts %s, PML %s (not used)",
		(proc2 & PROC2_APIC_REGISTER_VIRT) ? "yes" : "no",
		(proc2 & PROC2_VIRTUAL_INTR_DELIVERY) ? "yes" : "no",
		(pin & PIN_POSTED_INTERRUPTS) ? "yes" : "no",
		(proc2 & PROC2_ENABLE_PML) ? "yes" : "no");
}

bool vmx_check_support(void)
{
	struct cpuid_regs id;
	bool ok = true;

	cpuid_count(CPUID_LEAF_FEATURES, 0, &id);
	if (!(id.ecx & CPUID_1_ECX_VMX)) {
		hv_error("VT-x is not supported by this CPU "
			 "(CPUID.1:ECX.VMX[bit 5] = 0)");
		return false;
	}
	if (!vmx_enable_feature_control()) {
		hv_error("VT-x is disabled by the firmware (IA32_FEATURE_CONTROL "
			 "is locked with VMX off): enable it in the setup menu");
		return false;
	}
	if (!(rdmsr(MSR_IA32_VMX_BASIC) & VMX_BASIC_TRUE_CTLS)) {
		hv_error("VT-x lacks the TRUE_*_CTLS capability MSRs "
			 "(IA32_VMX_BASIC[55] = 0)");
		return false;
	}
	/* The secondary controls MSR exists only if the primary allows them. */
	if (!requirement_met(&requirements[0])) {
		hv_error("VT-x lacks %s", requirements[0].what);
		return false;
	}
	for (size_t i = 1; i < ARRAY_SIZE(requirements); i++) {
		if (!requirement_met(&requirements[i])) {
			hv_error("VT-x lacks %s", requirements[i].what);
			ok = false;
		}
	}
	if (ok)
		report_optional_features();
	return ok;
}
