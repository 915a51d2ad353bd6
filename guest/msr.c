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

/*
 * The vCPU's kvmclock record for host TSC m->kvmclock_host_tsc (KVM's
 * kvm_setup_guest_pvclock): system_time is the host's clock then, and
 * tsc_timestamp the guest's TSC then, which is what the guest subtracts
 * from its RDTSC. The TSC is invariant, so one record per enable stays
 * valid until the vCPU's TSC offset changes. Only the vCPU itself writes
 * it, while it is out of the guest: it is written whole, with an even
 * version.
 */
static int write_time_record(struct vm *g, struct vcpu_msrs *m)
{
	struct pvclock_vcpu_time_info ti;
	uint64_t host = m->kvmclock_host_tsc;

	m->kvmclock_version += 2;
	pvclock_fill(&ti, m->kvmclock_version, vcpu_tsc_guest(&m->tsc, host),
		     pvclock_ticks_to_ns(host - g->clock.start_tsc,
					 g->clock.scale),
		     g->clock.scale, PVCLOCK_TSC_STABLE_BIT);
	return vm_write_ram(g, m->kvmclock_system_time & KVMCLOCK_GPA_MASK,
			    &ti, sizeof(ti));
}

static enum msr_result write_system_time(struct vm *g,
					 struct vcpu_msrs *m, uint64_t value)
{
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
	m->kvmclock_host_tsc = rdtsc();
	return write_time_record(g, m) ? MSR_RAISE_GP : MSR_HANDLED;
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
	return g->config.kvm_features & KVM_FEATURE_CLOCKSOURCE2;
}

/*
 * The LAPIC timer runs on the host's TSC; IA32_TSC_DEADLINE holds a value
 * of the guest's (SDM Vol. 3A 11.5.4.1), converted here both ways. A
 * deadline already reached becomes "now" and fires at once (then reads
 * 0, as the MSR does after it fires).
 */
static enum msr_result lapic_rdmsr(struct vm *g, unsigned vcpu,
				   uint32_t msr, uint64_t *value)
{
	int rc;

	vm_devices_lock(g);
	rc = vlapic_rdmsr(&g->plat[vcpu].lapic, msr, rdtsc(), value);
	vm_devices_unlock(g, false);    /* vlapic_rdmsr changes nothing */
	if (msr == VLAPIC_MSR_TSC_DEADLINE && *value)
		*value = vcpu_tsc_guest(&g->plat[vcpu].msrs.tsc, *value);
	return rc == VLAPIC_GP ? MSR_RAISE_GP : MSR_HANDLED;
}

static enum msr_result lapic_wrmsr(struct vm *g, unsigned vcpu,
				   uint32_t msr, uint64_t value)
{
	struct vlapic_ipi ipi;
	uint64_t now = rdtsc();
	int rc;

	if (msr == VLAPIC_MSR_TSC_DEADLINE && value)
		value = vcpu_tsc_to_host(&g->plat[vcpu].msrs.tsc, value, now);
	vm_devices_lock(g);
	rc = vlapic_wrmsr(&g->plat[vcpu].lapic, msr, value, now, &ipi);
	guest_lapic_written(g, &g->plat[vcpu].lapic, rc, &ipi);
	vm_devices_unlock(g, true);
	return rc == VLAPIC_GP ? MSR_RAISE_GP : MSR_HANDLED;
}

/*
 * The vCPU's TSC moved by the offset change from old_offset, at host TSC
 * now. An armed IA32_TSC_DEADLINE still names the same value of the
 * guest's TSC, so it comes due at another host time; the kvmclock record
 * gets the new tsc_timestamp for the same instant, so the guest's clock
 * does not jump (KVM asks for KVM_REQ_CLOCK_UPDATE for the same reason).
 */
static void tsc_moved(struct vm *g, unsigned vcpu, uint64_t old_offset,
		      uint64_t now)
{
	struct vcpu_msrs *m = &g->plat[vcpu].msrs;
	struct vlapic *a = &g->plat[vcpu].lapic;
	uint64_t host;

	vm_devices_lock(g);
	vlapic_timer_check(a, now);     /* what was due before the write */
	vlapic_rdmsr(a, VLAPIC_MSR_TSC_DEADLINE, now, &host);
	if (host)
		vlapic_wrmsr(a, VLAPIC_MSR_TSC_DEADLINE,
			     vcpu_tsc_to_host(&m->tsc, host + old_offset, now),
			     now, NULL);
	vm_devices_unlock(g, true);
	/* The record's pages are pinned while it is on: the write succeeds. */
	if (m->kvmclock_system_time & KVM_SYSTEM_TIME_ENABLE)
		(void)write_time_record(g, m);
}

/* WRMSR IA32_TSC or IA32_TSC_ADJUST: any value (KVM's rule). */
static enum msr_result write_tsc(struct vm *g, unsigned vcpu, uint32_t msr,
				 uint64_t value)
{
	struct vcpu_tsc *t = &g->plat[vcpu].msrs.tsc;
	uint64_t old_offset = t->offset, now = rdtsc();

	if (msr == MSR_IA32_TSC)
		vcpu_tsc_write(t, value, now);
	else
		vcpu_tsc_write_adjust(t, value);
	if (t->offset != old_offset)
		tsc_moved(g, vcpu, old_offset, now);
	return MSR_HANDLED;
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
	if (msr == MSR_KVM_PV_EOI_EN) {
		if (!(g->config.kvm_features & KVM_FEATURE_PV_EOI))
			return MSR_RAISE_GP;
		*value = pv_eoi_rdmsr(g, vcpu);
		return MSR_HANDLED;
	}
	if (guest_mce_owns_msr(msr))
		return guest_mce_rdmsr(&m->mce, msr, value) ? MSR_HANDLED
							    : MSR_RAISE_GP;

	if (fixed >= 0) {
		*value = m->mtrr_fixed[fixed];
		return MSR_HANDLED;
	}
	switch (msr) {
	case MSR_IA32_TSC:
		*value = vcpu_tsc_guest(&m->tsc, rdtsc());
		return MSR_HANDLED;
	case MSR_IA32_TSC_ADJUST: *value = m->tsc.adjust; return MSR_HANDLED;
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
	if (msr == MSR_KVM_PV_EOI_EN)
		return pv_eoi_wrmsr(g, vcpu, value);
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
	case MSR_IA32_TSC:
	case MSR_IA32_TSC_ADJUST:
		return write_tsc(g, vcpu, msr, value);
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
