// SPDX-License-Identifier: BSD-2-Clause
/*
 * The guest's local APIC, its registers in xAPIC and x2APIC mode and its
 * interrupt flow; the timer is guest/devices/vlapic_timer.c, the xAPIC page
 * guest/devices/vlapic_mmio.c. Section numbers are those of the Intel SDM Vol. 3A,
 * chapter 11 ("Advanced Programmable Interrupt Controller"). The
 * hypervisor owns time: every entry point that depends on it takes the
 * host's current TSC value (guest/msr.c turns IA32_TSC_DEADLINE, a value
 * of the guest's TSC, into host time with the vCPU's TSC offset).
 */
#include "guest/devices/vlapic.h"
#include "guest/devices/vlapic_ipi.h"
#include "guest/devices/vlapic_timer.h"
#include "lib/string.h"

#define VEC_CLASS(v) ((uint32_t)(v) & 0xf0)

/*
 * Writable bits of each LVT (11.5.1, Figure 11-8). Delivery status (12) and
 * remote IRR (14) are read-only: writes of them are dropped, not faulted,
 * so that software may write back what it read. Every other bit is
 * reserved (see fit_writable).
 */
#define LVT_READ_ONLY (BIT(12) | BIT(14))
static const uint32_t lvt_writable[VLAPIC_LVT_COUNT] = {
	[VLAPIC_LVT_CMCI] = 0x107ff,
	[VLAPIC_LVT_TIMER] = 0x700ff,   /* vector, mask, timer mode */
	[VLAPIC_LVT_THERMAL] = 0x107ff, /* vector, delivery mode, mask */
	[VLAPIC_LVT_PERF] = 0x107ff,
	[VLAPIC_LVT_LINT0] = 0x1a7ff,   /* + polarity, trigger mode */
	[VLAPIC_LVT_LINT1] = 0x1a7ff,
	[VLAPIC_LVT_ERROR] = 0x100ff,   /* vector, mask */
};

#define TPR_WRITABLE 0xffull
/* Vector, enable, focus checking; bit 12 (EOI-broadcast suppression) is
 * reserved because VERSION bit 24 says it is not supported (11.9). */
#define SVR_WRITABLE 0x3ffull
#define SVR_RESET 0xffu
#define DCR_WRITABLE 0xbull     /* bit 2 is reserved (11.5.4, Figure 11-10) */
#define SELF_IPI_WRITABLE 0xffull

#define XAPIC_ID_SHIFT 24       /* xAPIC ID and LDR: bits 31:24 */
#define LDR_XAPIC_WRITABLE 0xff000000u
#define DFR_RESERVED_ONES 0x0fffffffu  /* 11.6.2.2, Figure 11-14 */

/* IA32_APIC_BASE: bits 0-7, 9 and 52-63 are reserved (11.4.4). */
#define BASE_RESERVED (0xffull | BIT(9) | (~0ull << 52))
enum apic_mode { MODE_DISABLED, MODE_INVALID, MODE_XAPIC, MODE_X2APIC };

static void vec_set(uint32_t *bm, unsigned v)
{
	bm[v / 32] |= 1u << (v % 32);
}

static void vec_clear(uint32_t *bm, unsigned v)
{
	bm[v / 32] &= ~(1u << (v % 32));
}

static int vec_highest(const uint32_t *bm)
{
	for (int i = VLAPIC_VEC_WORDS - 1; i >= 0; i--)
		if (bm[i])
			return i * 32 + 31 - __builtin_clz(bm[i]);
	return -1;
}

static enum apic_mode apic_mode(uint64_t base)
{
	return (enum apic_mode)(((base & VLAPIC_BASE_EN) ? 2 : 0) |
				((base & VLAPIC_BASE_EXTD) ? 1 : 0));
}

/* 11.4.7.1: the power-up/reset values, which an INIT also loads. */
static void reset_registers(struct vlapic *a)
{
	size_t regs = offsetof(struct vlapic, tpr);

	memset((char *)a + regs, 0, sizeof(*a) - regs);
	a->svr = SVR_RESET;
	a->dfr = ~0u;
	for (unsigned i = 0; i < VLAPIC_LVT_COUNT; i++)
		a->lvt[i] = VLAPIC_LVT_MASKED;
}

void vlapic_init(struct vlapic *a, uint32_t apic_id, bool bsp,
		 uint64_t tsc_hz)
{
	memset(a, 0, sizeof(*a));
	a->id = apic_id;
	a->tsc_hz = tsc_hz;
	a->tsc_per_tick = vlapic_timer_tsc_per_tick(tsc_hz);
	a->apic_base = VLAPIC_DEFAULT_BASE | VLAPIC_BASE_EN |
		       (bsp ? VLAPIC_BASE_BSP : 0);
	reset_registers(a);
}

void vlapic_set_maxphyaddr(struct vlapic *a, unsigned bits)
{
	a->base_above_maxphyaddr = bits && bits < 64 ? ~0ull << bits : 0;
}

void vlapic_init_signal(struct vlapic *a)
{
	reset_registers(a);
}

/* 11.8.3.1: PPR = TPR if TPR[7:4] >= ISRV[7:4], else ISRV[7:4] << 4. */
uint32_t vlapic_ppr(const struct vlapic *a)
{
	int isrv = vec_highest(a->isr);
	uint32_t isr_class = isrv < 0 ? 0 : VEC_CLASS(isrv);

	if (VEC_CLASS(a->tpr) >= isr_class)
		return a->tpr & 0xff;
	return isr_class;
}

/*
 * 11.5.3: errors collect in esr_pending until the next ESR write makes them
 * readable, and each one raises the LVT error interrupt. An illegal vector
 * in the LVT error entry itself is only logged, not signalled again.
 */
void vlapic_report_error(struct vlapic *a, uint32_t bit)
{
	uint32_t lvt = a->lvt[VLAPIC_LVT_ERROR];

	a->esr_pending |= bit;
	if (lvt & VLAPIC_LVT_MASKED)
		return;
	if ((lvt & 0xff) < VLAPIC_FIRST_LEGAL_VECTOR)
		a->esr_pending |= VLAPIC_ESR_RECV_ILLEGAL;
	else
		vec_set(a->irr, lvt & 0xff);
}

/* 11.4.7.2, 11.5.3; see vlapic.h. */
bool vlapic_accept(struct vlapic *a, uint8_t vector)
{
	if (!vlapic_sw_enabled(a))
		return false;
	if (vector < VLAPIC_FIRST_LEGAL_VECTOR) {
		vlapic_report_error(a, VLAPIC_ESR_RECV_ILLEGAL);
		return false;
	}
	vec_set(a->irr, vector);
	/* 11.8.4: accepting an edge-triggered vector clears its TMR bit. */
	vec_clear(a->tmr, vector);
	return true;
}

/*
 * 11.8.4: the TMR remembers which vectors want an EOI message; it is set
 * and cleared only when a vector is accepted (an EOI leaves it), as the
 * guest can see by reading it.
 */
bool vlapic_accept_level(struct vlapic *a, uint8_t vector)
{
	if (!vlapic_accept(a, vector))
		return false;
	vec_set(a->tmr, vector);
	return true;
}

/* 11.8.4: the highest IRR vector, if its class is above PPR[7:4]. */
int vlapic_pending_vector(const struct vlapic *a)
{
	int v = vec_highest(a->irr);

	if (!vlapic_hw_enabled(a) || v < 0 ||
	    VEC_CLASS(v) <= VEC_CLASS(vlapic_ppr(a)))
		return -1;
	return v;
}

/* 11.8.4: on acknowledge the vector moves from IRR to ISR. */
void vlapic_ack(struct vlapic *a, uint8_t vector)
{
	vec_clear(a->irr, vector);
	vec_set(a->isr, vector);
}

/*
 * 11.8.5: an EOI retires the highest-priority in-service vector; for a
 * level-triggered one (TMR set) the APIC sends an EOI message to the I/O
 * APICs. Returns VLAPIC_WR_LEVEL_EOI then, with the vector in
 * a->level_eoi_vector.
 */
static int eoi(struct vlapic *a)
{
	int v = vec_highest(a->isr);

	if (v < 0)
		return 0;
	vec_clear(a->isr, (unsigned)v);
	if (!(a->tmr[v / 32] & (1u << (v % 32))))
		return 0;
	a->level_eoi_vector = (uint8_t)v;
	return VLAPIC_WR_LEVEL_EOI;
}

/*
 * KVM's apic_sync_pv_eoi_to_guest: one vector in service, edge-triggered
 * (no EOI message owed to an I/O APIC), and nothing requested that its
 * EOI could let through.
 */
bool vlapic_eoi_can_be_deferred(const struct vlapic *a)
{
	int v = vec_highest(a->isr);

	if (v < 0 || (a->tmr[v / 32] & (1u << (v % 32))))
		return false;
	for (unsigned i = 0; i < VLAPIC_VEC_WORDS; i++) {
		if (a->irr[i])
			return false;
		/* v is the highest: any other bit makes a second vector. */
		if (a->isr[i] & ~(i == (unsigned)v / 32 ? 1u << (v % 32) : 0))
			return false;
	}
	return true;
}

bool vlapic_has_requests(const struct vlapic *a)
{
	uint32_t any = 0;

	for (unsigned i = 0; i < VLAPIC_VEC_WORDS; i++)
		any |= a->irr[i];
	return any != 0;
}

/*
 * The EOI the guest made by clearing its flag: it ends the vector in
 * service. That vector was edge-triggered when the flag was set; if it
 * has been accepted again since as level-triggered, the EOI message is
 * owed by the EOI of that later delivery, not by this one.
 */
void vlapic_deferred_eoi(struct vlapic *a)
{
	int v = vec_highest(a->isr);

	if (v >= 0)
		vec_clear(a->isr, (unsigned)v);
}

/* 11.4.3 and the MP spec's virtual wire mode; see vlapic.h. */
bool vlapic_accepts_pic_interrupts(const struct vlapic *a)
{
	uint32_t lint0 = a->lvt[VLAPIC_LVT_LINT0];
	uint32_t dm = (lint0 >> VLAPIC_LVT_DM_SHIFT) & 7;

	if (!vlapic_sw_enabled(a))
		return true;
	return !(lint0 & VLAPIC_LVT_MASKED) && dm == VLAPIC_LVT_DM_EXTINT;
}

/*
 * A reserved bit set in a written value: #GP in x2APIC mode (11.12.1.3);
 * an xAPIC register write cannot fault and the bit is ignored, as KVM's
 * and QEMU's xAPIC pages ignore it. False means #GP.
 */
static bool fit_writable(const struct vlapic *a, uint64_t *val,
			 uint64_t writable)
{
	if (!(*val & ~writable))
		return true;
	if (vlapic_x2apic_mode(a))
		return false;
	*val &= writable;
	return true;
}

static int lvt_index(unsigned reg)
{
	if (reg == VLAPIC_REG(LVT_CMCI))
		return VLAPIC_LVT_CMCI;
	if (reg >= VLAPIC_REG(LVT_TIMER) && reg <= VLAPIC_REG(LVT_ERROR))
		return VLAPIC_LVT_TIMER + (int)(reg - VLAPIC_REG(LVT_TIMER));
	return -1;
}

/*
 * 11.4.7.2: while software-disabled every mask bit stays set. 11.5.4.1: a
 * write that switches into or out of TSC-deadline mode disarms the timer
 * and clears the initial count (as KVM's apic_update_lvtt); between
 * one-shot and periodic the count goes on where it was (kvm-unit-tests'
 * apic "TMCCT" checks); mode 11b is reserved and faults like a reserved
 * bit.
 */
static int write_lvt(struct vlapic *a, int which, uint64_t val)
{
	uint32_t old_mode = vlapic_timer_mode(a);

	val &= ~(uint64_t)LVT_READ_ONLY;
	if (!fit_writable(a, &val, lvt_writable[which]))
		return VLAPIC_GP;
	if (which == VLAPIC_LVT_TIMER && (val >> VLAPIC_TIMER_MODE_SHIFT) == 3)
		return VLAPIC_GP;
	if (!vlapic_sw_enabled(a))
		val |= VLAPIC_LVT_MASKED;
	a->lvt[which] = (uint32_t)val;
	if (which == VLAPIC_LVT_TIMER && vlapic_timer_mode(a) != old_mode)
		vlapic_timer_mode_changed(a, old_mode);
	return 0;
}

/* 11.9: clearing SVR.8 masks every LVT entry (11.4.7.2). */
static int write_svr(struct vlapic *a, uint64_t val)
{
	bool was_enabled = a->svr & VLAPIC_SVR_ENABLE;

	if (!fit_writable(a, &val, SVR_WRITABLE))
		return VLAPIC_GP;
	a->svr = (uint32_t)val;
	if (!(val & VLAPIC_SVR_ENABLE)) {
		for (unsigned i = 0; i < VLAPIC_LVT_COUNT; i++)
			a->lvt[i] |= VLAPIC_LVT_MASKED;
		return 0;
	}
	return was_enabled ? 0 : VLAPIC_WR_SW_ENABLED;
}

/* Registers whose layout only xAPIC mode has (11.4.6, 11.6.2.2, 11.6.1). */
static int write_xapic_only(struct vlapic *a, unsigned reg, uint32_t val)
{
	switch (reg) {
	case VLAPIC_REG(ID):    /* kept read-only: IPIs route by this ID */
		return 0;
	case VLAPIC_REG(LDR):
		a->ldr = val & LDR_XAPIC_WRITABLE;
		return 0;
	case VLAPIC_REG_DFR:
		a->dfr = val | DFR_RESERVED_ONES;
		return 0;
	case VLAPIC_REG_ICR_HIGH:
		vlapic_icr_high_write(a, val);
		return 0;
	default:
		return VLAPIC_GP;
	}
}

static int write_simple(struct vlapic *a, unsigned reg, uint64_t val,
			uint64_t now)
{
	bool x2apic = vlapic_x2apic_mode(a);

	switch (reg) {
	case VLAPIC_REG(TPR):
		if (!fit_writable(a, &val, TPR_WRITABLE))
			return VLAPIC_GP;
		a->tpr = (uint32_t)val;
		return 0;
	case VLAPIC_REG(EOI):   /* Table 11-6: non-zero writes fault */
		if (val && x2apic)
			return VLAPIC_GP;
		return eoi(a);
	case VLAPIC_REG(SVR):
		return write_svr(a, val);
	case VLAPIC_REG(ESR):   /* 11.5.3: only 0 in x2APIC mode */
		if (val && x2apic)
			return VLAPIC_GP;
		a->esr = a->esr_pending;
		a->esr_pending = 0;
		return 0;
	case VLAPIC_REG(TIMER_INIT):
		vlapic_timer_write_initial_count(a, (uint32_t)val, now);
		return 0;
	case VLAPIC_REG(TIMER_DCR):
		if (!fit_writable(a, &val, DCR_WRITABLE))
			return VLAPIC_GP;
		vlapic_timer_write_dcr(a, (uint32_t)val, now);
		return 0;
	case VLAPIC_REG(SELF_IPI):      /* 11.12.11: fixed, edge, to self */
		if (!x2apic || (val & ~SELF_IPI_WRITABLE))
			return VLAPIC_GP;
		vlapic_accept(a, (uint8_t)val);
		return 0;
	default:        /* read-only (Table 11-6 note 1) or reserved */
		if (x2apic)
			return VLAPIC_GP;
		return write_xapic_only(a, reg, (uint32_t)val);
	}
}

int vlapic_reg_write(struct vlapic *a, unsigned reg, uint64_t val,
		     uint64_t now_tsc, struct vlapic_ipi *ipi_out)
{
	vlapic_timer_check(a, now_tsc);
	if (reg == VLAPIC_REG(ICR))
		return vlapic_icr_write(a, val, ipi_out);
	/* 11.12.1.2: bits 63:32 of all registers but the ICR are reserved. */
	if (val >> 32)
		return VLAPIC_GP;
	if (lvt_index(reg) >= 0)
		return write_lvt(a, lvt_index(reg), val);
	return write_simple(a, reg, val, now_tsc);
}

/*
 * 11.12.5, x2APIC state transitions (Figure 11-28): x2APIC may only be
 * left for the disabled state and only entered from xAPIC; EN=0 with
 * EXTD=1 is invalid. 11.4.3: a global disable loses the register state
 * (reset values). The BSP flag is read/write (Vol. 4, IA32_APIC_BASE), as
 * in KVM. The base may move in any mode (11.4.4); the xAPIC page follows
 * it (guest/devices/vlapic_mmio.h).
 */
static int write_apic_base(struct vlapic *a, uint64_t val)
{
	enum apic_mode from = apic_mode(a->apic_base), to = apic_mode(val);

	if ((val & (BASE_RESERVED | a->base_above_maxphyaddr)) ||
	    to == MODE_INVALID)
		return VLAPIC_GP;
	if (from == MODE_X2APIC && to == MODE_XAPIC)
		return VLAPIC_GP;
	if (from == MODE_DISABLED && to == MODE_X2APIC)
		return VLAPIC_GP;
	a->apic_base = val;
	if (to == MODE_DISABLED && from != MODE_DISABLED)
		reset_registers(a);
	return 0;
}

/* 11.12.1.2: the x2APIC MSRs fault unless the APIC is in x2APIC mode. */
static bool x2apic_msr_usable(const struct vlapic *a, uint32_t msr)
{
	return vlapic_x2apic_mode(a) && msr >= VLAPIC_MSR_X2APIC_FIRST &&
	       msr <= VLAPIC_MSR_X2APIC_LAST;
}

uint64_t vlapic_read_cr8(const struct vlapic *a)
{
	return (a->tpr >> 4) & 0xf;
}

bool vlapic_write_cr8(struct vlapic *a, uint64_t val)
{
	if (val & ~0xfull)
		return false;
	a->tpr = (uint32_t)val << 4;
	return true;
}

int vlapic_wrmsr(struct vlapic *a, uint32_t msr, uint64_t val,
		 uint64_t now_tsc, struct vlapic_ipi *ipi_out)
{
	vlapic_timer_check(a, now_tsc);
	if (msr == VLAPIC_MSR_APIC_BASE)
		return write_apic_base(a, val);
	if (msr == VLAPIC_MSR_TSC_DEADLINE) {
		vlapic_timer_write_tsc_deadline(a, val, now_tsc);
		return 0;
	}
	if (!x2apic_msr_usable(a, msr))
		return VLAPIC_GP;
	return vlapic_reg_write(a, msr - VLAPIC_MSR_X2APIC_FIRST, val, now_tsc,
				ipi_out);
}

/* LVTs and the 256-bit ISR, TMR, IRR (8 registers each). */
static bool read_array(const struct vlapic *a, unsigned reg, uint64_t *val)
{
	const uint32_t *regs[3] = { a->isr, a->tmr, a->irr };
	unsigned first = VLAPIC_REG(ISR0), end = VLAPIC_REG(IRR0) + 8;
	int lvt = lvt_index(reg);

	if (lvt >= 0)
		*val = a->lvt[lvt];
	else if (reg >= first && reg < end)
		*val = regs[(reg - first) / 8][reg % 8];
	else
		return false;
	return true;
}

/* ID, LDR and ICR as each mode lays them out; DFR is xAPIC's only. */
static bool read_addressing(const struct vlapic *a, unsigned reg,
			    uint64_t *val)
{
	bool x2apic = vlapic_x2apic_mode(a);

	switch (reg) {
	case VLAPIC_REG(ID):
		*val = x2apic ? a->id : a->id << XAPIC_ID_SHIFT;
		return true;
	case VLAPIC_REG(LDR):
		*val = x2apic ? vlapic_x2apic_ldr(a) : a->ldr;
		return true;
	case VLAPIC_REG(ICR):
		*val = vlapic_icr_read(a);
		return true;
	case VLAPIC_REG_DFR:
		*val = a->dfr;
		return !x2apic;
	case VLAPIC_REG_ICR_HIGH:
		*val = vlapic_icr_high_read(a);
		return !x2apic;
	default:
		return false;
	}
}

int vlapic_reg_read(const struct vlapic *a, unsigned reg, uint64_t now,
		    uint64_t *val)
{
	*val = 0;
	if (read_array(a, reg, val) || read_addressing(a, reg, val))
		return 0;
	switch (reg) {
	case VLAPIC_REG(VERSION):
		*val = VLAPIC_VERSION | (VLAPIC_MAX_LVT << 16);
		break;
	case VLAPIC_REG(TPR): *val = a->tpr; break;
	case VLAPIC_REG(PPR): *val = vlapic_ppr(a); break;
	case VLAPIC_REG(SVR): *val = a->svr; break;
	case VLAPIC_REG(ESR): *val = a->esr; break;
	case VLAPIC_REG(TIMER_INIT): *val = a->initial_count; break;
	case VLAPIC_REG(TIMER_CUR):
		*val = vlapic_timer_current_count(a, now);
		break;
	case VLAPIC_REG(TIMER_DCR): *val = a->dcr; break;
	default:        /* EOI, SELF IPI: write-only; the rest reserved */
		*val = 0;
		return VLAPIC_GP;
	}
	return 0;
}

int vlapic_rdmsr(const struct vlapic *a, uint32_t msr, uint64_t now_tsc,
		 uint64_t *val)
{
	*val = 0;
	if (msr == VLAPIC_MSR_APIC_BASE) {
		*val = a->apic_base;
		return 0;
	}
	if (msr == VLAPIC_MSR_TSC_DEADLINE) {
		if (vlapic_timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
			*val = a->tsc_deadline;
		return 0;
	}
	if (!x2apic_msr_usable(a, msr))
		return VLAPIC_GP;
	return vlapic_reg_read(a, msr - VLAPIC_MSR_X2APIC_FIRST, now_tsc, val);
}
