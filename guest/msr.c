// SPDX-License-Identifier: BSD-2-Clause
#include "guest/msr.h"
#include "guest/async_pf.h"
#include "guest/cpuid.h"
#include "guest/vm.h"
#include "guest/interrupts.h"
#include "guest/kvmclock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/register_rules.h"
#include "arch/x86/tsc.h"
#include "lib/string.h"

/* MTRRcap: fixed ranges supported, write-combining, no variable ranges. */
#define MTRRCAP_FIXED BIT(8)
#define MTRRCAP_WC BIT(10)
#define MTRR_DEF_TYPE_WB 0x6
#define MTRR_DEF_TYPE_FE BIT(10)
#define MTRR_DEF_TYPE_E BIT(11)
#define MISC_ENABLE_FAST_STRING BIT(0)
#define MISC_ENABLE_BTS_UNAVAILABLE BIT(11)
#define MISC_ENABLE_PEBS_UNAVAILABLE BIT(12)
/* Bit 0 is the enable bit; the record may lie anywhere in RAM (KVM masks
 * only that bit; msr.rst asks the guest for 4-byte alignment). */
#define KVMCLOCK_GPA_MASK (~0x1ull)

void vcpu_msrs_init(struct vcpu_msrs *m)
{
	memset(m, 0, sizeof(*m));
	/* Memory is all RAM and all write-back: MTRRs on, default WB. */
	m->mtrr_def_type = MTRR_DEF_TYPE_E | MTRR_DEF_TYPE_WB;
	m->misc_enable = MISC_ENABLE_FAST_STRING | MISC_ENABLE_BTS_UNAVAILABLE |
			 MISC_ENABLE_PEBS_UNAVAILABLE;
	guest_mce_init(&m->mce);
}

static int fixed_mtrr_index(uint32_t msr)
{
	if (msr == MSR_IA32_MTRR_FIX64K)
		return 0;
	if (msr == MSR_IA32_MTRR_FIX16K_80000 ||
	    msr == MSR_IA32_MTRR_FIX16K_A0000)
		return 1 + (int)(msr - MSR_IA32_MTRR_FIX16K_80000);
	if (msr >= MSR_IA32_MTRR_FIX4K_FIRST && msr <= MSR_IA32_MTRR_FIX4K_LAST)
		return 3 + (int)(msr - MSR_IA32_MTRR_FIX4K_FIRST);
	return -1;
}

/*
 * KVM's kvm_setup_guest_pvclock: version odd while the record changes,
 * even when done. One record per enable: the TSC is invariant and never
 * offset, so it stays valid.
 */
/* The one or two pages of a time record at gpa. */
static uint64_t record_last_page(uint64_t gpa)
{
	return ALIGN_DOWN(gpa + sizeof(struct pvclock_vcpu_time_info) - 1,
			  PAGE_SIZE);
}

static int pin_record(struct vm *g, uint64_t gpa)
{
	uint64_t last = record_last_page(gpa);

	if (last < gpa && last != ALIGN_DOWN(gpa, PAGE_SIZE))
		return -1;                      /* wraps around */
	if (vm_pin_ram(g, gpa))
		return -1;
	if (last != ALIGN_DOWN(gpa, PAGE_SIZE) && vm_pin_ram(g, last)) {
		vm_unpin_ram(g, gpa);
		return -1;
	}
	return 0;
}

static void unpin_record(struct vm *g, uint64_t gpa)
{
	vm_unpin_ram(g, gpa);
	if (record_last_page(gpa) != ALIGN_DOWN(gpa, PAGE_SIZE))
		vm_unpin_ram(g, record_last_page(gpa));
}

static enum msr_result write_system_time(struct vm *g,
					 struct vcpu_msrs *m, uint64_t value)
{
	struct pvclock_vcpu_time_info ti;
	uint64_t now = rdtsc();

	/* The record's pages stay resident while kvmclock is on. */
	if (m->kvmclock_system_time & KVM_SYSTEM_TIME_ENABLE)
		unpin_record(g, m->kvmclock_system_time & KVMCLOCK_GPA_MASK);
	m->kvmclock_system_time = value;
	if (!(value & KVM_SYSTEM_TIME_ENABLE))
		return MSR_HANDLED;
	if (pin_record(g, value & KVMCLOCK_GPA_MASK)) {
		m->kvmclock_system_time = 0;    /* nothing pinned to undo */
		return MSR_RAISE_GP;
	}
	m->kvmclock_version += 2;
	pvclock_fill(&ti, m->kvmclock_version, now,
		     pvclock_ticks_to_ns(now - g->clock.start_tsc, g->clock.scale),
		     g->clock.scale, PVCLOCK_TSC_STABLE_BIT);
	return vm_write_ram(g, value & KVMCLOCK_GPA_MASK, &ti, sizeof(ti))
		       ? MSR_RAISE_GP : MSR_HANDLED;
}

/* The wall-clock time at kvmclock 0 (Documentation/virt/kvm/x86/msr.rst). */
static enum msr_result write_wall_clock(struct vm *g, uint64_t gpa)
{
	struct pvclock_wall_clock wc = {
		.version = 2,
		.sec = (uint32_t)g->clock.start_epoch_sec,
	};

	return vm_write_ram(g, gpa, &wc, sizeof(wc)) ? MSR_RAISE_GP
						    : MSR_HANDLED;
}

static bool kvmclock_offered(const struct vm *g)
{
	return g->kvm_features & KVM_FEATURE_CLOCKSOURCE2;
}

static enum msr_result lapic_rdmsr(struct vm *g, unsigned vcpu,
				   uint32_t msr, uint64_t *value)
{
	int rc;

	vm_devices_lock(g);
	rc = vlapic_rdmsr(&g->plat[vcpu].lapic, msr, rdtsc(), value);
	vm_devices_unlock(g, false);    /* vlapic_rdmsr changes nothing */
	return rc == VLAPIC_GP ? MSR_RAISE_GP : MSR_HANDLED;
}

static enum msr_result lapic_wrmsr(struct vm *g, unsigned vcpu,
				   uint32_t msr, uint64_t value)
{
	struct vlapic_ipi ipi;
	int rc;

	vm_devices_lock(g);
	rc = vlapic_wrmsr(&g->plat[vcpu].lapic, msr, value, rdtsc(), &ipi);
	guest_lapic_written(g, &g->plat[vcpu].lapic, rc, &ipi);
	vm_devices_unlock(g, true);
	return rc == VLAPIC_GP ? MSR_RAISE_GP : MSR_HANDLED;
}

enum msr_result guest_rdmsr(struct vm *g, unsigned vcpu, uint32_t msr,
			    uint64_t *value)
{
	struct vcpu_msrs *m = &g->plat[vcpu].msrs;
	int fixed = fixed_mtrr_index(msr);

	if (vlapic_owns_msr(msr))
		return lapic_rdmsr(g, vcpu, msr, value);
	if (apf_msr_is_async_pf(msr))
		return vm_apf_rdmsr(g, vcpu, msr, value) ? MSR_HANDLED
							 : MSR_RAISE_GP;
	if (guest_mce_owns_msr(msr))
		return guest_mce_rdmsr(&m->mce, msr, value) ? MSR_HANDLED
							    : MSR_RAISE_GP;

	if (fixed >= 0) {
		*value = m->mtrr_fixed[fixed];
		return MSR_HANDLED;
	}
	switch (msr) {
	case MSR_IA32_TSC: *value = rdtsc(); return MSR_HANDLED;
	case MSR_IA32_PLATFORM_ID: *value = 0; return MSR_HANDLED;
	case MSR_IA32_BIOS_SIGN_ID: *value = 0; return MSR_HANDLED;
	case MSR_IA32_MTRRCAP:
		*value = MTRRCAP_FIXED | MTRRCAP_WC;
		return MSR_HANDLED;
	case MSR_IA32_MTRR_DEF_TYPE: *value = m->mtrr_def_type; return MSR_HANDLED;
	case MSR_IA32_MISC_ENABLE: *value = m->misc_enable; return MSR_HANDLED;
	case MSR_KVM_SYSTEM_TIME_NEW:
		if (!kvmclock_offered(g))
			return MSR_RAISE_GP;
		*value = m->kvmclock_system_time;
		return MSR_HANDLED;
	default:
		return MSR_RAISE_GP;
	}
}

enum msr_result guest_wrmsr(struct vm *g, unsigned vcpu, uint32_t msr,
			    uint64_t value)
{
	struct vcpu_msrs *m = &g->plat[vcpu].msrs;
	int fixed = fixed_mtrr_index(msr);

	if (vlapic_owns_msr(msr))
		return lapic_wrmsr(g, vcpu, msr, value);
	if (apf_msr_is_async_pf(msr))
		return vm_apf_wrmsr(g, vcpu, msr, value) ? MSR_HANDLED
							 : MSR_RAISE_GP;
	if (guest_mce_owns_msr(msr))
		return guest_mce_wrmsr(&m->mce, msr, value) ? MSR_HANDLED
							    : MSR_RAISE_GP;

	if (fixed >= 0) {
		if (!mtrr_fixed_value_valid(value))
			return MSR_RAISE_GP;
		m->mtrr_fixed[fixed] = value;
		return MSR_HANDLED;
	}
	switch (msr) {
	case MSR_IA32_BIOS_SIGN_ID:     /* microcode update probe */
		return MSR_HANDLED;
	case MSR_IA32_MTRR_DEF_TYPE:
		/* As KVM: reserved bits or a reserved type are #GP. */
		if ((value & ~(uint64_t)(MTRR_DEF_TYPE_E | MTRR_DEF_TYPE_FE |
					 0xff)) ||
		    !mtrr_type_valid((uint8_t)value))
			return MSR_RAISE_GP;
		m->mtrr_def_type = value;
		return MSR_HANDLED;
	case MSR_IA32_MISC_ENABLE:
		/* KVM keeps the value; nothing here changes behaviour. */
		m->misc_enable = value;
		return MSR_HANDLED;
	case MSR_KVM_SYSTEM_TIME_NEW:
		return kvmclock_offered(g) ? write_system_time(g, m, value)
					   : MSR_RAISE_GP;
	case MSR_KVM_WALL_CLOCK_NEW:
		return kvmclock_offered(g) ? write_wall_clock(g, value)
					   : MSR_RAISE_GP;
	default:
		return MSR_RAISE_GP;
	}
}
