// SPDX-License-Identifier: BSD-2-Clause
/* The guest's machine-check banks and the lost-page #MC (guest/mce.h). */
#include "guest/mce.h"
#include "arch/x86/cpu_defs.h"
#include "lib/string.h"

#define ALL_ONES (~(uint64_t)0)
#define FIRST_BANK_MSR MSR_IA32_MC_CTL(0)
#define LAST_BANK_MSR (MSR_IA32_MC_CTL(GUEST_MCE_BANKS) - 1)

/* What a QEMU guest with lmce=on is offered (MCE_CAP_DEF | MCG_LMCE_P). */
#define GUEST_MCG_CAP (GUEST_MCE_BANKS | MCG_CTL_P | MCG_SER_P | MCG_LMCE_P)
/*
 * IA32_FEATURE_CONTROL as the firmware leaves it: locked, local machine
 * checks allowed (Linux's lmce_supported() wants both, and warns if the
 * register is not locked). VMX stays off: the guest is offered none.
 */
#define GUEST_FEATURE_CONTROL (FEATURE_CONTROL_LOCKED | FEATURE_CONTROL_LMCE)

void guest_mce_init(struct guest_mce *m)
{
	memset(m, 0, sizeof(*m));
	m->mcg_cap = GUEST_MCG_CAP;
	/* KVM's setup_mce: reporting on everywhere until the guest says. */
	m->mcg_ctl = ALL_ONES;
	for (unsigned i = 0; i < GUEST_MCE_BANKS; i++)
		m->bank[i][MCE_CTL] = ALL_ONES;
}

bool guest_mce_owns_msr(uint32_t msr)
{
	switch (msr) {
	case MSR_IA32_FEATURE_CONTROL:
	case MSR_IA32_MCG_CAP:
	case MSR_IA32_MCG_STATUS:
	case MSR_IA32_MCG_CTL:
	case MSR_IA32_MCG_EXT_CTL:
		return true;
	}
	return msr >= FIRST_BANK_MSR && msr <= LAST_BANK_MSR;
}

static uint64_t *bank_reg(struct guest_mce *m, uint32_t msr)
{
	uint32_t n = msr - FIRST_BANK_MSR;

	return &m->bank[n / MCE_BANK_REGS][n % MCE_BANK_REGS];
}

bool guest_mce_rdmsr(const struct guest_mce *m, uint32_t msr,
		     uint64_t *value)
{
	switch (msr) {
	case MSR_IA32_FEATURE_CONTROL: *value = GUEST_FEATURE_CONTROL; break;
	case MSR_IA32_MCG_CAP: *value = m->mcg_cap; break;
	case MSR_IA32_MCG_STATUS: *value = m->mcg_status; break;
	case MSR_IA32_MCG_CTL: *value = m->mcg_ctl; break;
	case MSR_IA32_MCG_EXT_CTL: *value = m->mcg_ext_ctl; break;
	default:
		if (!guest_mce_owns_msr(msr))
			return false;
		*value = *bank_reg((struct guest_mce *)m, msr);
	}
	return true;
}

/*
 * KVM's set_msr_mce for a guest write: a CTL takes 0 or all ones (bits 0
 * and 10 may be clear: old kernels and UnixWare clear them), a STATUS
 * only 0; ADDR and MISC take anything.
 */
static bool write_bank(struct guest_mce *m, uint32_t msr, uint64_t value)
{
	uint64_t *reg = bank_reg(m, msr);
	unsigned which = (msr - FIRST_BANK_MSR) % MCE_BANK_REGS;

	if (which == MCE_CTL && value &&
	    (value | BIT(10) | BIT(0)) != ALL_ONES)
		return false;
	if (which == MCE_STATUS && value)
		return false;
	*reg = value;
	return true;
}

bool guest_mce_wrmsr(struct guest_mce *m, uint32_t msr, uint64_t value)
{
	switch (msr) {
	case MSR_IA32_FEATURE_CONTROL:          /* locked */
	case MSR_IA32_MCG_CAP:                  /* read-only */
		return false;
	case MSR_IA32_MCG_STATUS:
		m->mcg_status = value;
		return true;
	case MSR_IA32_MCG_CTL:
		if (value && value != ALL_ONES)
			return false;
		m->mcg_ctl = value;
		return true;
	case MSR_IA32_MCG_EXT_CTL:
		if (value & ~(uint64_t)MCG_EXT_CTL_LMCE_EN)
			return false;
		m->mcg_ext_ctl = value;
		return true;
	}
	if (!guest_mce_owns_msr(msr))
		return false;
	return write_bank(m, msr, value);
}

/*
 * Whether the guest can take the #MC, in KVM's order (kvm_vcpu_x86_set_mce)
 * and then apfvisor's own two cases:
 * - reporting switched off (MCG_CTL or the bank's CTL not all ones): KVM
 *   drops the error, and the guest would touch the page again for ever;
 *   here the VM ends instead;
 * - CR4.MCE clear, or a #MC already in progress: the CPU shuts down (KVM
 *   makes it a triple fault);
 * - the page was needed to deliver an event (an exception or interrupt
 *   frame, the IDT): replacing that event with the #MC would lose it;
 * - several vCPUs and no LMCE: a real CPU broadcasts the error and Linux
 *   waits for every CPU to enter its handler (mce_start), which needs a
 *   #MC on each vCPU; apfvisor raises it on one only, so it refuses.
 */
static enum mce_verdict judge(const struct guest_mce *m,
			      const struct mce_context *ctx)
{
	if (m->mcg_ctl != ALL_ONES ||
	    m->bank[GUEST_MCE_POISON_BANK][MCE_CTL] != ALL_ONES)
		return MCE_END_REPORTING_OFF;
	if (!ctx->cr4_mce)
		return MCE_END_CR4_MCE_CLEAR;
	if (m->mcg_status & MCG_STATUS_MCIP)
		return MCE_END_MCIP_SET;
	if (ctx->event_in_delivery)
		return MCE_END_EVENT_DELIVERY;
	if (ctx->nvcpus > 1 && !(m->mcg_ext_ctl & MCG_EXT_CTL_LMCE_EN))
		return MCE_END_BROADCAST;
	return MCE_INJECT;
}

enum mce_verdict guest_mce_poison(struct guest_mce *m, uint64_t gpa,
				  const struct mce_context *ctx)
{
	uint64_t *bank = m->bank[GUEST_MCE_POISON_BANK];
	uint64_t status = MCI_STATUS_VAL | MCI_STATUS_UC | MCI_STATUS_EN |
			  MCI_STATUS_MISCV | MCI_STATUS_ADDRV | MCI_STATUS_S |
			  MCI_STATUS_AR | MCE_MCACOD_DATA_LOAD;
	enum mce_verdict v = judge(m, ctx);

	if (v != MCE_INJECT)
		return v;
	/* An earlier error the guest has not cleared: it was overwritten. */
	if (bank[MCE_STATUS] & MCI_STATUS_VAL)
		status |= MCI_STATUS_OVER;
	bank[MCE_STATUS] = status;
	bank[MCE_ADDR] = gpa;
	bank[MCE_MISC] = (MCI_MISC_ADDR_MODE_PHYS << MCI_MISC_ADDR_MODE_SHIFT) |
			 MCI_MISC_ADDR_LSB_PAGE;
	/*
	 * The access faulted and can be restarted at the same instruction
	 * (an EPT violation is a fault): RIPV and EIPV, as QEMU sets them.
	 */
	m->mcg_status = MCG_STATUS_MCIP | MCG_STATUS_RIPV | MCG_STATUS_EIPV;
	if (m->mcg_ext_ctl & MCG_EXT_CTL_LMCE_EN)
		m->mcg_status |= MCG_STATUS_LMCES;
	return MCE_INJECT;
}

const char *guest_mce_verdict_text(enum mce_verdict v)
{
	switch (v) {
	case MCE_INJECT: return "";
	case MCE_END_CR4_MCE_CLEAR:
		return "the guest has CR4.MCE clear (a machine check shuts "
		       "the CPU down)";
	case MCE_END_MCIP_SET:
		return "a machine check is already in progress (MCG_STATUS."
		       "MCIP: shutdown)";
	case MCE_END_REPORTING_OFF:
		return "the guest switched machine-check reporting off "
		       "(MCG_CTL or MC9_CTL)";
	case MCE_END_EVENT_DELIVERY:
		return "the page was needed to deliver an event";
	case MCE_END_BROADCAST:
		return "the guest has several vCPUs and did not enable local "
		       "machine checks (LMCE)";
	}
	return "?";
}
