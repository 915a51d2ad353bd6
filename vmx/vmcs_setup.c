// SPDX-License-Identifier: BSD-2-Clause
/*
 * VMCS contents. Every rule cited is from SDM Vol. 3C, chapter 27 ("VM
 * Entries"), whose checks the values below have to pass.
 */
#include "vmx/vmcs_setup.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmx_caps.h"
#include "vmx/vmx_controls.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/msr_bitmap.h"
#include "arch/x86/cpu.h"
#include "arch/x86/desc.h"
#include "arch/x86/percpu.h"
#include "lib/heap.h"
#include "lib/console.h"

/* Match the GDT of guest/loaders/boot_state.c (the Linux boot selectors). */
#define GUEST_CODE64_SELECTOR 0x10
#define GUEST_DATA_SELECTOR 0x18
#define GUEST_TR_SELECTOR 0x20
#define GUEST_CODE32_SELECTOR 0x08
#define AR_CODE64 0xa09b                /* P, S, code exec/read accessed, L, G */
#define AR_CODE32 0xc09b                /* P, S, code exec/read accessed, D, G */
#define AR_DATA 0xc093                  /* P, S, data r/w accessed, D/B, G */
#define AR_TSS64_BUSY 0x008b
#define AR_REAL_CODE 0x009b
#define AR_REAL_DATA 0x0093
#define AR_LDTR 0x0082
#define TSS_LIMIT 0x67
#define FLAT_LIMIT 0xffffffffu
#define REAL_LIMIT 0xffffu
#define DR7_INIT 0x400
#define PAT_POWER_ON 0x0007040600070406ull
#define VMCS_NO_LINK 0xffffffffffffffffull

extern const uint8_t vmx_exit_entry[];

static void setup_controls(uint64_t eptp, uint16_t vpid, bool long_mode)
{
	vmcs_write(VMCS_PIN_BASED_CONTROLS,
		   vmx_adjust_controls(rdmsr(MSR_IA32_VMX_TRUE_PINBASED_CTLS),
				       PIN_EXTERNAL_INTERRUPT_EXITING |
					       PIN_NMI_EXITING |
					       PIN_VIRTUAL_NMIS |
					       PIN_PREEMPTION_TIMER));
	vmcs_write(VMCS_PROC_BASED_CONTROLS,
		   vmx_adjust_controls(rdmsr(MSR_IA32_VMX_TRUE_PROCBASED_CTLS),
				       PROC_HLT_EXITING |
					       PROC_USE_TSC_OFFSETTING |
					       PROC_MWAIT_EXITING |
					       PROC_RDPMC_EXITING |
					       PROC_MONITOR_EXITING |
					       PROC_CR8_LOAD_EXITING |
					       PROC_CR8_STORE_EXITING |
					       PROC_UNCONDITIONAL_IO_EXITING |
					       PROC_USE_MSR_BITMAPS |
					       PROC_ACTIVATE_SECONDARY));
	vmcs_write(VMCS_MSR_BITMAP, msr_bitmap_create());
	vmcs_write(VMCS_PROC_BASED_CONTROLS2,
		   vmx_adjust_controls(rdmsr(MSR_IA32_VMX_PROCBASED_CTLS2),
				       PROC2_ENABLE_EPT | PROC2_ENABLE_VPID |
					       PROC2_UNRESTRICTED_GUEST |
					       PROC2_ENABLE_RDTSCP |
					       PROC2_ENABLE_INVPCID));
	vmcs_write(VMCS_EXIT_CONTROLS,
		   vmx_adjust_controls(rdmsr(MSR_IA32_VMX_TRUE_EXIT_CTLS),
				       VMX_EXIT_CONTROLS_WANTED));
	vmcs_write(VMCS_ENTRY_CONTROLS,
		   vmx_adjust_controls(rdmsr(MSR_IA32_VMX_TRUE_ENTRY_CTLS),
				       (long_mode ? ENTRY_IA32E_MODE_GUEST : 0) |
					       VMX_ENTRY_CONTROLS_WANTED));
	vmcs_write(VMCS_EXCEPTION_BITMAP, vmx_exception_intercepts());
	vmcs_write(VMCS_PF_ERROR_CODE_MASK, 0);
	vmcs_write(VMCS_PF_ERROR_CODE_MATCH, 0);
	vmcs_write(VMCS_CR3_TARGET_COUNT, 0);
	vmcs_write(VMCS_EXIT_MSR_STORE_COUNT, 0);
	vmcs_write(VMCS_EXIT_MSR_LOAD_COUNT, 0);
	vmcs_write(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, 0);
	vmcs_write(VMCS_EPT_POINTER, eptp);
	vmcs_write(VMCS_VPID, vpid);
	vmcs_write(VMCS_LINK_POINTER, VMCS_NO_LINK);
}

/* 27.2.2/27.2.3: host state loaded on every VM exit. */
static void setup_host_state(struct percpu *cpu)
{
	struct descriptor_pointer gdtr, idtr;

	read_gdtr(&gdtr);
	read_idtr(&idtr);
	vmcs_write(VMCS_HOST_CR0, read_cr0());
	vmcs_write(VMCS_HOST_CR3, read_cr3());
	vmcs_write(VMCS_HOST_CR4, read_cr4());
	vmcs_write(VMCS_HOST_CS_SELECTOR, HOST_CS_SELECTOR);
	vmcs_write(VMCS_HOST_SS_SELECTOR, HOST_DS_SELECTOR);
	vmcs_write(VMCS_HOST_DS_SELECTOR, HOST_DS_SELECTOR);
	vmcs_write(VMCS_HOST_ES_SELECTOR, HOST_DS_SELECTOR);
	vmcs_write(VMCS_HOST_FS_SELECTOR, 0);
	vmcs_write(VMCS_HOST_GS_SELECTOR, 0);
	vmcs_write(VMCS_HOST_TR_SELECTOR, HOST_TR_SELECTOR);
	vmcs_write(VMCS_HOST_FS_BASE, rdmsr(MSR_IA32_FS_BASE));
	vmcs_write(VMCS_HOST_GS_BASE, (uint64_t)(uintptr_t)cpu);
	vmcs_write(VMCS_HOST_TR_BASE, (uint64_t)(uintptr_t)&cpu->tss);
	vmcs_write(VMCS_HOST_GDTR_BASE, gdtr.base);
	vmcs_write(VMCS_HOST_IDTR_BASE, idtr.base);
	vmcs_write(VMCS_HOST_SYSENTER_CS, 0);
	vmcs_write(VMCS_HOST_SYSENTER_ESP, 0);
	vmcs_write(VMCS_HOST_SYSENTER_EIP, 0);
	vmcs_write(VMCS_HOST_IA32_EFER, rdmsr(MSR_IA32_EFER));
	vmcs_write(VMCS_HOST_IA32_PAT, rdmsr(MSR_IA32_PAT));
	vmcs_write(VMCS_HOST_RIP, (uint64_t)(uintptr_t)vmx_exit_entry);
}

static void set_segment(uint32_t selector_field, uint16_t selector,
			uint32_t limit, uint32_t access_rights)
{
	/* Selector, base, limit and AR fields are laid out in parallel. */
	unsigned index = (selector_field - VMCS_GUEST_ES_SELECTOR) / 2;

	vmcs_write(selector_field, selector);
	vmcs_write(VMCS_GUEST_ES_BASE + index * 2, 0);
	vmcs_write(VMCS_GUEST_ES_LIMIT + index * 2, limit);
	vmcs_write(VMCS_GUEST_ES_ACCESS_RIGHTS + index * 2, access_rights);
}

static void setup_segments(const struct vcpu_entry_state *s)
{
	static const uint32_t data_segments[] = {
		VMCS_GUEST_ES_SELECTOR, VMCS_GUEST_SS_SELECTOR,
		VMCS_GUEST_DS_SELECTOR, VMCS_GUEST_FS_SELECTOR,
		VMCS_GUEST_GS_SELECTOR,
	};

	if (s->long_mode || s->protected_mode) {
		if (s->long_mode)
			set_segment(VMCS_GUEST_CS_SELECTOR,
				    GUEST_CODE64_SELECTOR, FLAT_LIMIT,
				    AR_CODE64);
		else
			set_segment(VMCS_GUEST_CS_SELECTOR,
				    GUEST_CODE32_SELECTOR, FLAT_LIMIT,
				    AR_CODE32);
		for (size_t i = 0; i < ARRAY_SIZE(data_segments); i++)
			set_segment(data_segments[i], GUEST_DATA_SELECTOR,
				    FLAT_LIMIT, AR_DATA);
	} else {
		set_segment(VMCS_GUEST_CS_SELECTOR, s->real_mode_cs, REAL_LIMIT,
			    AR_REAL_CODE);
		vmcs_write(VMCS_GUEST_CS_BASE, (uint64_t)s->real_mode_cs << 4);
		for (size_t i = 0; i < ARRAY_SIZE(data_segments); i++)
			set_segment(data_segments[i], 0, REAL_LIMIT,
				    AR_REAL_DATA);
	}
	/* 27.3.1.2: TR must be usable (a busy TSS); LDTR may be unusable. */
	set_segment(VMCS_GUEST_TR_SELECTOR, s->long_mode ? GUEST_TR_SELECTOR : 0,
		    TSS_LIMIT, AR_TSS64_BUSY);
	set_segment(VMCS_GUEST_LDTR_SELECTOR, 0, 0, VMX_AR_UNUSABLE | AR_LDTR);
	vmcs_write(VMCS_GUEST_GDTR_BASE, s->gdtr_base);
	vmcs_write(VMCS_GUEST_GDTR_LIMIT, s->gdtr_limit);
	vmcs_write(VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_IDTR_LIMIT, s->idtr_limit);
}

void vmcs_load_entry_state(const struct vcpu_entry_state *s)
{
	uint32_t entry = vmcs_read32(VMCS_ENTRY_CONTROLS);

	uint64_t cr0_fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0) & ~(CR0_PE | CR0_PG);
	uint64_t cr4_fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);

	/*
	 * The guest sees its own CR0/CR4 values through the read shadows; the
	 * bits VMX forces (NE, VMXE) are owned by the host (25.6.6).
	 */
	entry = s->long_mode ? (entry | ENTRY_IA32E_MODE_GUEST)
			     : (entry & ~ENTRY_IA32E_MODE_GUEST);
	vmcs_write(VMCS_ENTRY_CONTROLS, entry);
	vmcs_write(VMCS_ENTRY_INTERRUPTION_INFO, 0);
	vmcs_write(VMCS_CR0_GUEST_HOST_MASK, cr0_fixed0);
	vmcs_write(VMCS_CR0_READ_SHADOW, s->cr0);
	vmcs_write(VMCS_GUEST_CR0, s->cr0 | cr0_fixed0);
	vmcs_write(VMCS_CR4_GUEST_HOST_MASK, cr4_fixed0);
	vmcs_write(VMCS_CR4_READ_SHADOW, s->cr4);
	vmcs_write(VMCS_GUEST_CR4, s->cr4 | cr4_fixed0);
	vmcs_write(VMCS_GUEST_CR3, s->cr3);
	vmcs_write(VMCS_GUEST_IA32_EFER, s->efer);
	vmcs_write(VMCS_GUEST_IA32_PAT, PAT_POWER_ON);
	vmcs_write(VMCS_GUEST_IA32_DEBUGCTL, 0);
	vmcs_write(VMCS_GUEST_DR7, DR7_INIT);
	vmcs_write(VMCS_GUEST_RSP, s->rsp);
	vmcs_write(VMCS_GUEST_RIP, s->rip);
	vmcs_write(VMCS_GUEST_RFLAGS, s->rflags | RFLAGS_RESERVED_1);
	vmcs_write(VMCS_GUEST_PENDING_DEBUG, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_CS, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_ESP, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_EIP, 0);
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmcs_write(VMCS_GUEST_ACTIVITY_STATE, 0);
	setup_segments(s);
}

bool vmcs_setup(struct vcpu *v, uint64_t eptp, const struct vcpu_entry_state *s)
{
	v->vmcs_pa = hv_alloc_pages_low(1);
	*(uint32_t *)(uintptr_t)v->vmcs_pa = vmx_revision_id();
	if (!vmclear(v->vmcs_pa) || !vmptrld(v->vmcs_pa)) {
		hv_error("vcpu %u: VMCLEAR/VMPTRLD of the VMCS failed", v->id);
		return false;
	}
	setup_controls(eptp, v->vpid, s->long_mode);
	/* The guest's TSC is the host's until it writes IA32_TSC(_ADJUST). */
	vmcs_write(VMCS_TSC_OFFSET, v->plat->msrs.tsc.offset);
	setup_host_state(v->host);
	vmcs_load_entry_state(s);
	return true;
}

void vcpu_sipi_entry_state(uint8_t vector, struct vcpu_entry_state *s)
{
	*s = (struct vcpu_entry_state){
		.rflags = RFLAGS_RESERVED_1,
		.cr0 = CR0_ET,
		/* After INIT (SDM Vol. 3A, Table 9-1): base 0, limit FFFFH. */
		.gdtr_limit = 0xffff,
		.idtr_limit = 0xffff,
		.real_mode_cs = (uint16_t)(vector << 8),
	};
}
