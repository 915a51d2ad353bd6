/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's local APIC, in xAPIC mode (its registers in a 4 KiB page,
 * guest/devices/vlapic_mmio.h) or x2APIC mode (MSRs, SDM Vol. 3A 11.12). Pure C:
 * the hypervisor intercepts every guest RDMSR/WRMSR and every access to
 * the xAPIC page (no APIC virtualization hardware), passes them here with
 * the current TSC, routes the IPIs a write reports, and injects what
 * vlapic_pending_vector() returns (then calls vlapic_ack()). Both access
 * paths go through vlapic_reg_read()/vlapic_reg_write(), which apply the
 * rules of the mode the APIC is in.
 *
 * Timer clock: the "bus" clock the divide configuration divides is a
 * crystal-like clock of about 25 MHz, exactly tsc_hz / tsc_per_tick with
 * tsc_per_tick an integer (round(tsc_hz / 25 MHz), at least 1). One timer
 * tick is then a whole number of TSC cycles, so deadlines are exact and a
 * periodic timer never drifts. CPUID 0x15 can expose it as EAX = 1,
 * EBX = tsc_per_tick, ECX = vlapic_timer_hz(): Linux then sets
 * lapic_timer_period = ECX / HZ (arch/x86/kernel/tsc.c:
 * native_calibrate_tsc), which must be this rate (APF-PROTOCOL.md 8.B).
 */
#ifndef GUEST_VLAPIC_H
#define GUEST_VLAPIC_H

#include "lib/types.h"

#define VLAPIC_TIMER_NOMINAL_HZ 25000000ull

/* MSRs the model answers (SDM Vol. 3A 11.4.4, 11.5.4.1, 11.12.1.2). */
#define VLAPIC_MSR_APIC_BASE 0x1b
#define VLAPIC_MSR_TSC_DEADLINE 0x6e0
#define VLAPIC_MSR_X2APIC_FIRST 0x800
#define VLAPIC_MSR_X2APIC_LAST 0xbff
/* x2APIC MSR = 0x800 + (xAPIC MMIO offset >> 4) */
#define VLAPIC_MSR_ID 0x802
#define VLAPIC_MSR_VERSION 0x803
#define VLAPIC_MSR_TPR 0x808
#define VLAPIC_MSR_PPR 0x80a
#define VLAPIC_MSR_EOI 0x80b
#define VLAPIC_MSR_LDR 0x80d
#define VLAPIC_MSR_SVR 0x80f
#define VLAPIC_MSR_ISR0 0x810
#define VLAPIC_MSR_TMR0 0x818
#define VLAPIC_MSR_IRR0 0x820
#define VLAPIC_MSR_ESR 0x828
#define VLAPIC_MSR_LVT_CMCI 0x82f
#define VLAPIC_MSR_ICR 0x830
#define VLAPIC_MSR_LVT_TIMER 0x832
#define VLAPIC_MSR_LVT_THERMAL 0x833
#define VLAPIC_MSR_LVT_PERF 0x834
#define VLAPIC_MSR_LVT_LINT0 0x835
#define VLAPIC_MSR_LVT_LINT1 0x836
#define VLAPIC_MSR_LVT_ERROR 0x837
#define VLAPIC_MSR_TIMER_INIT 0x838
#define VLAPIC_MSR_TIMER_CUR 0x839
#define VLAPIC_MSR_TIMER_DCR 0x83e
#define VLAPIC_MSR_SELF_IPI 0x83f

/*
 * A register's number: its xAPIC MMIO offset / 16, its x2APIC MSR - 0x800
 * (11.12.1.2). Two registers exist in xAPIC mode only (Table 11-1).
 */
#define VLAPIC_REG(msr_name) (VLAPIC_MSR_##msr_name - VLAPIC_MSR_X2APIC_FIRST)
#define VLAPIC_REG_DFR 0x0e
#define VLAPIC_REG_ICR_HIGH 0x31

/* IA32_APIC_BASE (SDM Vol. 3A 11.4.4, Figure 11-5) */
#define VLAPIC_BASE_BSP BIT(8)
#define VLAPIC_BASE_EXTD BIT(10)
#define VLAPIC_BASE_EN BIT(11)
#define VLAPIC_DEFAULT_BASE 0xfee00000ull
#define VLAPIC_BASE_ADDR_MASK 0x000ffffffffff000ull  /* 52 address bits */

/* Version register: xAPIC/x2APIC version 0x14, 7 LVTs (CMCI included). */
#define VLAPIC_VERSION 0x14
#define VLAPIC_MAX_LVT 6

/* LVT fields (SDM Vol. 3A 11.5.1, Figure 11-8) */
#define VLAPIC_LVT_MASKED BIT(16)
#define VLAPIC_LVT_DM_SHIFT 8
#define VLAPIC_LVT_DM_EXTINT 7
#define VLAPIC_TIMER_ONESHOT 0
#define VLAPIC_TIMER_PERIODIC 1
#define VLAPIC_TIMER_TSC_DEADLINE 2
#define VLAPIC_TIMER_MODE_SHIFT 17

#define VLAPIC_SVR_ENABLE BIT(8)

/* ESR bits that x2APIC mode can set (SDM Vol. 3A 11.5.3, Figure 11-9) */
#define VLAPIC_ESR_REDIRECTABLE_IPI BIT(4)
#define VLAPIC_ESR_SEND_ILLEGAL BIT(5)
#define VLAPIC_ESR_RECV_ILLEGAL BIT(6)

/* What vlapic_wrmsr() returns: -1, or 0 with these flags or'ed in. */
#define VLAPIC_GP (-1)
#define VLAPIC_WR_IPI 1         /* *ipi_out holds an IPI to route */
#define VLAPIC_WR_SW_ENABLED 2  /* SVR.8 went 0 -> 1: recheck held APF events */
#define VLAPIC_WR_LEVEL_EOI 4   /* EOI of a level vector: level_eoi_vector */

enum vlapic_ipi_mode {
	VLAPIC_IPI_FIXED,
	VLAPIC_IPI_NMI,
	VLAPIC_IPI_INIT,
	VLAPIC_IPI_SIPI,        /* vector = start page (CS = vector << 8) */
	VLAPIC_IPI_LOWEST,      /* fixed, to one of the destinations (xAPIC) */
};

enum vlapic_shorthand {
	VLAPIC_DEST_FIELD,      /* no shorthand: dest (+ logical) decide */
	VLAPIC_DEST_SELF,
	VLAPIC_DEST_ALL,
	VLAPIC_DEST_ALL_BUT_SELF,
};

#define VLAPIC_BROADCAST_ID 0xffffffffu       /* every APIC, either mode */

struct vlapic_ipi {
	enum vlapic_ipi_mode mode;
	enum vlapic_shorthand shorthand;
	uint8_t vector;
	/*
	 * Logical destination: an x2APIC target reads dest as cluster << 16
	 * | 16-bit member mask, an xAPIC target as the 8-bit MDA its LDR and
	 * DFR match (11.6.2.2). Physical: an APIC ID.
	 */
	bool logical;
	uint32_t dest;          /* 0xffffffff: broadcast in either mode */
	uint32_t source;        /* the sender's x2APIC ID */
};

/* The 256-bit IRR/ISR/TMR as their eight 32-bit registers. */
#define VLAPIC_VEC_WORDS 8
#define VLAPIC_FIRST_LEGAL_VECTOR 16    /* 0-15 are not interrupts (11.5.2) */

enum vlapic_lvt {
	VLAPIC_LVT_CMCI,
	VLAPIC_LVT_TIMER,
	VLAPIC_LVT_THERMAL,
	VLAPIC_LVT_PERF,
	VLAPIC_LVT_LINT0,
	VLAPIC_LVT_LINT1,
	VLAPIC_LVT_ERROR,
	VLAPIC_LVT_COUNT,
};

/* The shortest period of a periodic timer (KVM's min_timer_period_us). */
#define VLAPIC_PERIOD_MIN_US 200

struct vlapic {
	uint32_t id;
	uint64_t apic_base;
	/*
	 * IA32_APIC_BASE bits at and above the guest's MAXPHYADDR, which a
	 * write must leave clear (SDM Vol. 4); 0: only bits 63:52 checked.
	 */
	uint64_t base_above_maxphyaddr;
	uint64_t tsc_hz;
	uint64_t tsc_per_tick;          /* TSC cycles per timer-clock tick */
	/* From tpr on: register state, zero after reset but for svr, lvt. */
	uint32_t tpr, svr;
	uint32_t ldr, dfr;              /* xAPIC mode's; x2APIC derives LDR */
	uint32_t esr;                   /* what reads return */
	uint32_t esr_pending;           /* errors since the last ESR write */
	uint32_t lvt[VLAPIC_LVT_COUNT];
	uint64_t icr;                   /* xAPIC: ICR high's 31:24 in 39:32 */
	uint32_t irr[VLAPIC_VEC_WORDS];
	uint32_t isr[VLAPIC_VEC_WORDS];
	uint32_t tmr[VLAPIC_VEC_WORDS]; /* level-triggered (IOAPIC) vectors */
	uint32_t dcr, initial_count;
	/* one-shot/periodic: next expiry, and the reload for periodic */
	bool timer_armed;
	uint64_t timer_next, timer_period;
	uint64_t periods_raised;        /* periodic timers below the minimum */
	/* IA32_TSC_DEADLINE in host time (guest/msr.c); 0 = disarmed */
	uint64_t tsc_deadline;
	uint8_t level_eoi_vector;       /* the last VLAPIC_WR_LEVEL_EOI's */
};

/*
 * Power-up state (SDM Vol. 3A 11.4.7.1): xAPIC mode at 0xfee00000, as a PC
 * (and QEMU) starts; the guest turns x2APIC on itself (11.12.1).
 */
void vlapic_init(struct vlapic *a, uint32_t apic_id, bool bsp,
		 uint64_t tsc_hz);
/* An INIT signal: as power-up, but ID and IA32_APIC_BASE kept (11.4.7.3). */
void vlapic_init_signal(struct vlapic *a);
/* The guest's MAXPHYADDR (CPUID 0x80000008 EAX[7:0]) for APIC_BASE. */
void vlapic_set_maxphyaddr(struct vlapic *a, unsigned bits);

static inline bool vlapic_owns_msr(uint32_t msr)
{
	return msr == VLAPIC_MSR_APIC_BASE || msr == VLAPIC_MSR_TSC_DEADLINE ||
	       (msr >= VLAPIC_MSR_X2APIC_FIRST &&
		msr <= VLAPIC_MSR_X2APIC_LAST);
}

/*
 * The register logic both access paths share; reg is VLAPIC_REG(...).
 * VLAPIC_GP means #GP(0) for an MSR access; the xAPIC page drops the write
 * (or reads 0) instead. In xAPIC mode reserved bits of a written value are
 * ignored, in x2APIC mode they fault (11.12.1.3).
 */
int vlapic_reg_read(const struct vlapic *a, unsigned reg, uint64_t now_tsc,
		    uint64_t *val);
int vlapic_reg_write(struct vlapic *a, unsigned reg, uint64_t val,
		     uint64_t now_tsc, struct vlapic_ipi *ipi_out);

/* 0, or VLAPIC_GP: inject #GP(0). now_tsc serves the current count. */
int vlapic_rdmsr(const struct vlapic *a, uint32_t msr, uint64_t now_tsc,
		 uint64_t *val);
/* VLAPIC_GP, or 0 | VLAPIC_WR_* flags. */
int vlapic_wrmsr(struct vlapic *a, uint32_t msr, uint64_t val,
		 uint64_t now_tsc, struct vlapic_ipi *ipi_out);
/*
 * CR8 is the TPR's priority class (TPR[7:4], SDM Vol. 3A 10.8.6.1) in any
 * APIC mode. vlapic_write_cr8 returns false (#GP) for bits 63:4.
 */
uint64_t vlapic_read_cr8(const struct vlapic *a);
bool vlapic_write_cr8(struct vlapic *a, uint64_t val);
/* Whether this APIC is a destination of ipi (its sender's ID in source). */
bool vlapic_ipi_targets(const struct vlapic *a, const struct vlapic_ipi *ipi);

/*
 * A fixed, edge interrupt arrives (an IPI, the APF vector, a device).
 * Returns false when it is lost: a software-disabled APIC responds only to
 * INIT, NMI, SMI and start-up messages (SDM 11.4.7.2; KVM's
 * __apic_accept_irq drops them too), which is why async-PF "page ready"
 * must wait for vlapic_sw_enabled() (APF-PROTOCOL.md 5). Vectors 0-15 are
 * refused and logged as "received illegal vector" (11.5.3).
 */
bool vlapic_accept(struct vlapic *a, uint8_t vector);
/* As vlapic_accept, for a level-triggered interrupt (an I/O APIC pin). */
bool vlapic_accept_level(struct vlapic *a, uint8_t vector);
/*
 * The vector to inject next, or -1: the highest IRR vector whose priority
 * class is above PPR[7:4] (11.8.4). IRR bits latched before a software
 * disable are still handed out ("held and require masking or handling by
 * the CPU", 11.4.7.2); a hardware-disabled APIC has none (its state is
 * reset).
 */
int vlapic_pending_vector(const struct vlapic *a);
/* The CPU takes the vector: IRR -> ISR. Call when injecting it. */
void vlapic_ack(struct vlapic *a, uint8_t vector);
uint32_t vlapic_ppr(const struct vlapic *a);
/*
 * PV EOI (guest/pv_eoi.c): may the EOI of what is in service be left to
 * the guest's flag in memory? Then, once the guest cleared the flag, the
 * EOI it made that way.
 */
bool vlapic_eoi_can_be_deferred(const struct vlapic *a);
/* Any vector in the IRR, whatever its priority. */
bool vlapic_has_requests(const struct vlapic *a);
void vlapic_deferred_eoi(struct vlapic *a);

/* IA32_APIC_BASE.EN (11.4.3) */
static inline bool vlapic_hw_enabled(const struct vlapic *a)
{
	return a->apic_base & VLAPIC_BASE_EN;
}

/* IA32_APIC_BASE.EN and EXTD (11.12.1, Figure 11-27). */
static inline bool vlapic_x2apic_mode(const struct vlapic *a)
{
	return vlapic_hw_enabled(a) && (a->apic_base & VLAPIC_BASE_EXTD);
}

static inline bool vlapic_xapic_mode(const struct vlapic *a)
{
	return vlapic_hw_enabled(a) && !(a->apic_base & VLAPIC_BASE_EXTD);
}

/* SVR.8 of a hardware-enabled APIC (11.4.7.2): the APF delivery gate. */
static inline bool vlapic_sw_enabled(const struct vlapic *a)
{
	return vlapic_hw_enabled(a) && (a->svr & VLAPIC_SVR_ENABLE);
}

/*
 * Whether the 8259's INTR reaches this CPU: LINT0 unmasked in ExtINT mode
 * (virtual wire mode, MP spec 3.6.2.2), or the APIC disabled, globally or
 * by software, so that the INTR pin goes straight to the CPU (11.4.3).
 * KVM (kvm_apic_accept_pic_intr) counts only the global disable; the
 * software-disabled case is included so that a guest that has not yet
 * programmed LINT0 can use the PIC.
 */
bool vlapic_accepts_pic_interrupts(const struct vlapic *a);

/* The timer clock (before the divide configuration), for CPUID 0x15. */
static inline uint64_t vlapic_timer_hz(const struct vlapic *a)
{
	return a->tsc_hz / a->tsc_per_tick;
}

/* TSC value of the next timer expiry, UINT64_MAX when not armed. */
uint64_t vlapic_timer_deadline(const struct vlapic *a);
/*
 * Fires the timer if due. Call it on every exit before asking for pending
 * vectors; vlapic_wrmsr() calls it first itself, so that no write (a mode
 * change, a new count) can swallow an expiry that is already due.
 */
void vlapic_timer_check(struct vlapic *a, uint64_t now_tsc);

#endif
