// SPDX-License-Identifier: BSD-2-Clause
/*
 * The guest's local APIC in x2APIC mode. Section numbers are those of the
 * Intel SDM Vol. 3A, chapter 11 ("Advanced Programmable Interrupt
 * Controller"). The hypervisor owns time: every entry point that depends on
 * it takes the guest's current TSC value.
 */
#include "guest/vlapic.h"
#include "lib/string.h"

#define VEC_CLASS(v) ((uint32_t)(v) & 0xf0)
#define FIRST_LEGAL_VECTOR 16   /* 0-15 are not valid interrupts (11.5.2) */
#define MAX_TSC_PER_TICK (1ull << 20) /* keeps count * divisor * it < 2^63 */

/*
 * Writable bits of each LVT (11.5.1, Figure 11-8). Delivery status (12) and
 * remote IRR (14) are read-only: writes of them are dropped, not faulted,
 * so that software may write back what it read. Every other bit is
 * reserved and faults (11.12.1.3).
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

/* ICR in x2APIC mode (11.12.9): no delivery status; 63:32 destination. */
#define ICR_WRITABLE 0xffffffff000ccfffull
#define ICR_LOGICAL BIT(11)
#define ICR_ASSERT BIT(14)
#define ICR_LEVEL_TRIGGER BIT(15)
enum { DM_FIXED, DM_LOWEST, DM_SMI, DM_NMI = 4, DM_INIT, DM_SIPI };


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
	for (unsigned i = 0; i < VLAPIC_LVT_COUNT; i++)
		a->lvt[i] = VLAPIC_LVT_MASKED;
}

/* round(tsc_hz / 25 MHz), without overflowing for any tsc_hz */
static uint64_t tsc_per_tick_for(uint64_t tsc_hz)
{
	uint64_t n = VLAPIC_TIMER_NOMINAL_HZ;
	uint64_t r = tsc_hz / n + (tsc_hz % n >= n / 2);

	return MIN(MAX(r, 1ull), MAX_TSC_PER_TICK);
}

void vlapic_init(struct vlapic *a, uint32_t apic_id, bool bsp,
		 uint64_t tsc_hz)
{
	memset(a, 0, sizeof(*a));
	a->id = apic_id;
	a->tsc_hz = tsc_hz;
	a->tsc_per_tick = tsc_per_tick_for(tsc_hz);
	/* The guest is entered with x2APIC on, as firmware would leave it. */
	a->apic_base = VLAPIC_DEFAULT_BASE | VLAPIC_BASE_EN |
		       VLAPIC_BASE_EXTD | (bsp ? VLAPIC_BASE_BSP : 0);
	reset_registers(a);
}

void vlapic_init_signal(struct vlapic *a)
{
	reset_registers(a);
}

/* 11.12.10.2: cluster = ID[19:4] in LDR[31:16], bit ID[3:0] in LDR[15:0]. */
static uint32_t logical_id(const struct vlapic *a)
{
	return ((a->id >> 4) << 16) | (1u << (a->id & 0xf));
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
static void report_error(struct vlapic *a, uint32_t bit)
{
	uint32_t lvt = a->lvt[VLAPIC_LVT_ERROR];

	a->esr_pending |= bit;
	if (lvt & VLAPIC_LVT_MASKED)
		return;
	if ((lvt & 0xff) < FIRST_LEGAL_VECTOR)
		a->esr_pending |= VLAPIC_ESR_RECV_ILLEGAL;
	else
		vec_set(a->irr, lvt & 0xff);
}

/* 11.4.7.2, 11.5.3; see vlapic.h. */
bool vlapic_accept(struct vlapic *a, uint8_t vector)
{
	if (!vlapic_sw_enabled(a))
		return false;
	if (vector < FIRST_LEGAL_VECTOR) {
		report_error(a, VLAPIC_ESR_RECV_ILLEGAL);
		return false;
	}
	vec_set(a->irr, vector);
	return true;
}

/* 11.8.4: the TMR remembers which vectors want an EOI message. */
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
	vec_clear(a->tmr, (unsigned)v);
	a->level_eoi_vector = (uint8_t)v;
	return VLAPIC_WR_LEVEL_EOI;
}

/* A locally generated interrupt (LVT entry); masked entries do nothing. */
static void fire_lvt(struct vlapic *a, enum vlapic_lvt which)
{
	uint32_t lvt = a->lvt[which];

	if (!(lvt & VLAPIC_LVT_MASKED))
		vlapic_accept(a, lvt & 0xff);
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

static unsigned timer_mode(const struct vlapic *a)
{
	return (a->lvt[VLAPIC_LVT_TIMER] >> VLAPIC_TIMER_MODE_SHIFT) & 3;
}

/* Figure 11-10: DCR bits 3,1,0 = 000 -> /2 ... 110 -> /128, 111 -> /1. */
static uint64_t tsc_per_count(const struct vlapic *a)
{
	uint32_t code = ((a->dcr & 8) >> 1) | (a->dcr & 3);

	return a->tsc_per_tick << ((code + 1) & 7);
}

/*
 * A periodic timer fires at most every VLAPIC_PERIOD_MIN_US, as KVM's
 * (min_timer_period_us): a guest asking for a period of a few cycles would
 * otherwise spend the host CPU in timer exits and never get past its
 * interrupt handler.
 */
static uint64_t min_period(const struct vlapic *a)
{
	return a->tsc_hz / (1000000 / VLAPIC_PERIOD_MIN_US);
}

static void timer_arm(struct vlapic *a, uint64_t now, uint32_t count)
{
	uint64_t first = (uint64_t)count * tsc_per_count(a);

	a->timer_period = (uint64_t)a->initial_count * tsc_per_count(a);
	if (timer_mode(a) == VLAPIC_TIMER_PERIODIC && count &&
	    a->timer_period < min_period(a)) {
		a->timer_period = min_period(a);
		first = MAX(first, min_period(a));
		a->periods_raised++;
	}
	a->timer_next = now + first;
	a->timer_armed = count != 0;
}

static void timer_disarm(struct vlapic *a)
{
	a->timer_armed = false;
	a->tsc_deadline = 0;
}

/*
 * The count drops by one every tsc_per_count() cycles, so it is the number
 * of (partial) counts left before timer_next. A periodic timer whose
 * expiry has not been processed yet has already reloaded.
 */
static uint32_t current_count(const struct vlapic *a, uint64_t now)
{
	uint64_t per = tsc_per_count(a), left;

	if (!a->timer_armed || timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
		return 0;
	if (now < a->timer_next)
		left = a->timer_next - now;
	else if (timer_mode(a) == VLAPIC_TIMER_PERIODIC)
		left = a->timer_period -
		       (now - a->timer_next) % a->timer_period;
	else
		return 0;
	/* A raised period counts down from the initial count, no more. */
	return (uint32_t)MIN((left + per - 1) / per, a->initial_count);
}

uint64_t vlapic_timer_deadline(const struct vlapic *a)
{
	if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
		return a->tsc_deadline ? a->tsc_deadline : UINT64_MAX;
	return a->timer_armed ? a->timer_next : UINT64_MAX;
}

/*
 * A periodic timer reloads from the expiry time, not from now, so late
 * checks do not make it drift; periods missed entirely coalesce into one
 * interrupt (the IRR holds one bit per vector anyway). 11.5.4.1: a
 * TSC-deadline expiry disarms and clears IA32_TSC_DEADLINE.
 */
void vlapic_timer_check(struct vlapic *a, uint64_t now)
{
	if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE) {
		if (!a->tsc_deadline || now < a->tsc_deadline)
			return;
		a->tsc_deadline = 0;
	} else {
		if (!a->timer_armed || now < a->timer_next)
			return;
		if (timer_mode(a) == VLAPIC_TIMER_PERIODIC)
			a->timer_next += ((now - a->timer_next) /
					  a->timer_period + 1) *
					 a->timer_period;
		else
			a->timer_armed = false;
	}
	fire_lvt(a, VLAPIC_LVT_TIMER);
}

/* 11.5.4: a new initial count restarts the count; 0 stops the timer.
 * 11.5.4.1: in TSC-deadline mode the write is ignored. */
static void write_initial_count(struct vlapic *a, uint32_t val, uint64_t now)
{
	if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
		return;
	a->initial_count = val;
	timer_arm(a, now, val);
}

/* A new divisor applies from now on to what is left of the count. */
static int write_dcr(struct vlapic *a, uint64_t val, uint64_t now)
{
	uint32_t left;

	if (val & ~DCR_WRITABLE)
		return VLAPIC_GP;
	left = current_count(a, now);
	a->dcr = (uint32_t)val;
	if (a->timer_armed && timer_mode(a) != VLAPIC_TIMER_TSC_DEADLINE)
		timer_arm(a, now, left);
	return 0;
}

/* 11.5.4.1: in other modes IA32_TSC_DEADLINE reads 0 and ignores writes;
 * a deadline already reached fires at once. */
static void write_tsc_deadline(struct vlapic *a, uint64_t val, uint64_t now)
{
	if (timer_mode(a) != VLAPIC_TIMER_TSC_DEADLINE)
		return;
	a->tsc_deadline = val;
	vlapic_timer_check(a, now);
}

static int lvt_index(uint32_t msr)
{
	if (msr == VLAPIC_MSR_LVT_CMCI)
		return VLAPIC_LVT_CMCI;
	if (msr >= VLAPIC_MSR_LVT_TIMER && msr <= VLAPIC_MSR_LVT_ERROR)
		return VLAPIC_LVT_TIMER + (int)(msr - VLAPIC_MSR_LVT_TIMER);
	return -1;
}

/*
 * 11.4.7.2: while software-disabled every mask bit stays set. 11.5.4.1: a
 * write that changes the timer mode disarms the timer; mode 11b is
 * reserved and faults like a reserved bit.
 */
static int write_lvt(struct vlapic *a, int which, uint32_t val)
{
	uint32_t old_mode = timer_mode(a);

	val &= ~(uint32_t)LVT_READ_ONLY;
	if (val & ~lvt_writable[which])
		return VLAPIC_GP;
	if (which == VLAPIC_LVT_TIMER && (val >> VLAPIC_TIMER_MODE_SHIFT) == 3)
		return VLAPIC_GP;
	if (!vlapic_sw_enabled(a))
		val |= VLAPIC_LVT_MASKED;
	a->lvt[which] = val;
	if (which == VLAPIC_LVT_TIMER && timer_mode(a) != old_mode)
		timer_disarm(a);
	return 0;
}

/* 11.9: clearing SVR.8 masks every LVT entry (11.4.7.2). */
static int write_svr(struct vlapic *a, uint64_t val)
{
	bool was_enabled = a->svr & VLAPIC_SVR_ENABLE;

	if (val & ~SVR_WRITABLE)
		return VLAPIC_GP;
	a->svr = (uint32_t)val;
	if (!(val & VLAPIC_SVR_ENABLE)) {
		for (unsigned i = 0; i < VLAPIC_LVT_COUNT; i++)
			a->lvt[i] |= VLAPIC_LVT_MASKED;
		return 0;
	}
	return was_enabled ? 0 : VLAPIC_WR_SW_ENABLED;
}

/* The delivery mode, or -1 when the write sends nothing. */
static int icr_mode(struct vlapic *a, uint64_t icr)
{
	switch ((icr >> 8) & 7) {
	case DM_FIXED:
		if ((icr & 0xff) >= FIRST_LEGAL_VECTOR)
			return VLAPIC_IPI_FIXED;
		report_error(a, VLAPIC_ESR_SEND_ILLEGAL);
		return -1;
	case DM_LOWEST:
		/* 11.5.3: not processed in x2APIC mode, and no illegal-
		 * vector check either; only "redirectable IPI" is logged. */
		report_error(a, VLAPIC_ESR_REDIRECTABLE_IPI);
		return -1;
	case DM_NMI:
		return VLAPIC_IPI_NMI;
	case DM_INIT:
		/* INIT level de-assert synchronizes arbitration IDs on old
		 * buses (11.6.1); Linux still sends it after each INIT
		 * (smpboot.c: wakeup_secondary_cpu_via_init). Not an INIT. */
		if ((icr & ICR_LEVEL_TRIGGER) && !(icr & ICR_ASSERT))
			return -1;
		return VLAPIC_IPI_INIT;
	case DM_SIPI:
		return VLAPIC_IPI_SIPI;
	default:
		return -1;      /* SMI is not modelled; 011b, 111b reserved */
	}
}

/*
 * 11.12.9: one 64-bit write sends. The self and all-including-self
 * shorthands are valid only with fixed delivery (11.6.1, valid ICR
 * combinations); other combinations are dropped.
 */
static int write_icr(struct vlapic *a, uint64_t val, struct vlapic_ipi *out)
{
	struct vlapic_ipi ipi;
	int mode;

	if (val & ~ICR_WRITABLE)
		return VLAPIC_GP;
	a->icr = val;
	mode = icr_mode(a, val);
	if (mode < 0)
		return 0;
	ipi = (struct vlapic_ipi){
		.mode = (enum vlapic_ipi_mode)mode,
		.shorthand = (enum vlapic_shorthand)(val >> 18 & 3),
		.vector = val & 0xff, .logical = val & ICR_LOGICAL,
		.dest = (uint32_t)(val >> 32), .source = a->id,
	};
	if (mode != VLAPIC_IPI_FIXED && (ipi.shorthand == VLAPIC_DEST_SELF ||
					 ipi.shorthand == VLAPIC_DEST_ALL))
		return 0;
	if (out)
		*out = ipi;
	return VLAPIC_WR_IPI;
}

/* 11.12.9, 11.12.10: shorthands, broadcast, physical and logical IDs. */
bool vlapic_ipi_targets(const struct vlapic *a, const struct vlapic_ipi *ipi)
{
	uint32_t ldr = logical_id(a);

	switch (ipi->shorthand) {
	case VLAPIC_DEST_SELF:
		return a->id == ipi->source;
	case VLAPIC_DEST_ALL:
		return true;
	case VLAPIC_DEST_ALL_BUT_SELF:
		return a->id != ipi->source;
	default:
		break;
	}
	if (ipi->dest == VLAPIC_BROADCAST_ID)
		return true;
	if (!ipi->logical)
		return ipi->dest == a->id;
	return (ipi->dest >> 16) == (ldr >> 16) && (ipi->dest & ldr & 0xffff);
}

static int write_simple(struct vlapic *a, uint32_t msr, uint64_t val,
			uint64_t now)
{
	switch (msr) {
	case VLAPIC_MSR_TPR:
		if (val & ~TPR_WRITABLE)
			return VLAPIC_GP;
		a->tpr = (uint32_t)val;
		return 0;
	case VLAPIC_MSR_EOI:    /* Table 11-6: non-zero writes fault */
		if (val)
			return VLAPIC_GP;
		return eoi(a);
	case VLAPIC_MSR_SVR:
		return write_svr(a, val);
	case VLAPIC_MSR_ESR:    /* 11.5.3: only 0 in x2APIC mode */
		if (val)
			return VLAPIC_GP;
		a->esr = a->esr_pending;
		a->esr_pending = 0;
		return 0;
	case VLAPIC_MSR_TIMER_INIT:
		write_initial_count(a, (uint32_t)val, now);
		return 0;
	case VLAPIC_MSR_TIMER_DCR:
		return write_dcr(a, val, now);
	case VLAPIC_MSR_SELF_IPI:       /* 11.12.11: fixed, edge, to self */
		if (val & ~SELF_IPI_WRITABLE)
			return VLAPIC_GP;
		vlapic_accept(a, (uint8_t)val);
		return 0;
	default:        /* read-only (Table 11-6 note 1) or reserved */
		return VLAPIC_GP;
	}
}

/*
 * 11.12.5, x2APIC state transitions: x2APIC may only be left for the
 * disabled state and only entered from xAPIC; EN=0 with EXTD=1 is invalid.
 * 11.4.3: a global disable loses the register state (reset values). The
 * BSP flag is read/write (Vol. 4, IA32_APIC_BASE), as in KVM. The base is
 * checked against 52 address bits only; the xAPIC MMIO page is not
 * emulated, so a guest back in xAPIC mode has no register access.
 */
static int write_apic_base(struct vlapic *a, uint64_t val)
{
	enum apic_mode from = apic_mode(a->apic_base), to = apic_mode(val);

	if ((val & BASE_RESERVED) || to == MODE_INVALID)
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
	return apic_mode(a->apic_base) == MODE_X2APIC &&
	       msr >= VLAPIC_MSR_X2APIC_FIRST && msr <= VLAPIC_MSR_X2APIC_LAST;
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
		write_tsc_deadline(a, val, now_tsc);
		return 0;
	}
	if (!x2apic_msr_usable(a, msr))
		return VLAPIC_GP;
	if (msr == VLAPIC_MSR_ICR)
		return write_icr(a, val, ipi_out);
	/* 11.12.1.2: bits 63:32 of all registers but the ICR are reserved. */
	if (val >> 32)
		return VLAPIC_GP;
	if (lvt_index(msr) >= 0)
		return write_lvt(a, lvt_index(msr), (uint32_t)val);
	return write_simple(a, msr, val, now_tsc);
}

/* LVTs and the 256-bit ISR, TMR, IRR (0x810-0x827: 8 MSRs each). */
static bool read_array(const struct vlapic *a, uint32_t msr, uint64_t *val)
{
	const uint32_t *regs[3] = { a->isr, a->tmr, a->irr };
	int lvt = lvt_index(msr);

	if (lvt >= 0)
		*val = a->lvt[lvt];
	else if (msr >= VLAPIC_MSR_ISR0 && msr < VLAPIC_MSR_IRR0 + 8)
		*val = regs[(msr - VLAPIC_MSR_ISR0) / 8][msr % 8];
	else
		return false;
	return true;
}

static int read_x2apic(const struct vlapic *a, uint32_t msr, uint64_t now,
		       uint64_t *val)
{
	if (read_array(a, msr, val))
		return 0;
	switch (msr) {
	case VLAPIC_MSR_ID: *val = a->id; break;
	case VLAPIC_MSR_VERSION:
		*val = VLAPIC_VERSION | (VLAPIC_MAX_LVT << 16);
		break;
	case VLAPIC_MSR_TPR: *val = a->tpr; break;
	case VLAPIC_MSR_PPR: *val = vlapic_ppr(a); break;
	case VLAPIC_MSR_LDR: *val = logical_id(a); break;
	case VLAPIC_MSR_SVR: *val = a->svr; break;
	case VLAPIC_MSR_ESR: *val = a->esr; break;
	case VLAPIC_MSR_ICR: *val = a->icr; break;
	case VLAPIC_MSR_TIMER_INIT: *val = a->initial_count; break;
	case VLAPIC_MSR_TIMER_CUR: *val = current_count(a, now); break;
	case VLAPIC_MSR_TIMER_DCR: *val = a->dcr; break;
	default:        /* EOI, SELF IPI: write-only; the rest reserved */
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
		if (timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
			*val = a->tsc_deadline;
		return 0;
	}
	if (!x2apic_msr_usable(a, msr))
		return VLAPIC_GP;
	return read_x2apic(a, msr, now_tsc, val);
}
