/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Interrupt routing of the virtual platform: each vCPU's local APIC
 * (guest/devices/vlapic.c, xAPIC or x2APIC mode, timer included), the legacy 8259 pair
 * (guest/devices/pic8259.c) that carries the UART's IRQ 4 to the boot vCPU's LINT0
 * in virtual-wire mode, the I/O APIC (guest/devices/ioapic.c) that carries the
 * same ISA IRQs to the local APICs its redirection entries name, and IPIs
 * between vCPUs. Pure C: vmx/ asks what to
 * inject and kicks the vCPUs this code names. The caller holds g->dev.lock.
 */
#ifndef GUEST_INTERRUPTS_H
#define GUEST_INTERRUPTS_H

#include "guest/devices/vlapic.h"
#include "lib/types.h"

struct vm;

enum interrupt_source {
	INTERRUPT_FROM_LAPIC,
	INTERRUPT_FROM_PIC,
};

struct pending_interrupt {
	int vector;                     /* -1: nothing to deliver */
	enum interrupt_source source;
};

/*
 * What a vCPU keeps of its last interrupt poll, to skip the next one when
 * it cannot find anything new (vmx/vcpu_events.c).
 */
struct irq_poll_memo {
	bool quiet;             /* nothing was pending, no NMI waited */
	uint64_t irq_gen;       /* dev.irq_gen the poll saw, under dev.lock */
	uint64_t deadline;      /* the vCPU's timer expiry then (TSC) */
};

/*
 * Whether a vCPU must poll again before entering the guest at TSC now.
 * What a poll finds changes only through a dev.lock section that moves
 * irq_gen (the devices, IPIs, async-PF page-ready, console input), through
 * the vCPU's timer reaching its deadline, or through the vCPU's own
 * requests (NMI, INIT, SIPI, ...), which clear quiet when it takes them.
 * A poll that left something pending (an interrupt waiting for a window,
 * an NMI held off) never counts as quiet.
 */
static inline bool irq_poll_needed(const struct irq_poll_memo *m,
				   uint64_t irq_gen, uint64_t now)
{
	return !m->quiet || irq_gen != m->irq_gen || now >= m->deadline;
}

/* Resets every vCPU's APIC (vCPU 0 is the BSP) and the PICs. */
void guest_interrupts_init(struct vm *g, uint64_t tsc_hz);

/*
 * Every vCPU's APIC from its reset state (xAPIC) to x2APIC mode, as the
 * firmware of a machine that needs x2APIC leaves it. The Linux boot
 * protocol stands in for firmware: Linux then keeps x2APIC ("x2apic:
 * enabled by BIOS") even with `noapic`, which stops it from turning
 * x2APIC on itself (arch/x86/kernel/apic/apic.c: enable_IR_x2apic), and
 * its APIC accesses stay WRMSRs instead of emulated MMIO.
 */
void guest_lapics_enter_x2apic(struct vm *g);

/*
 * Brings device inputs up to date at time now: the APIC timer of vcpu,
 * the UART's IRQ line into the PIC. Returns what vcpu should take next.
 */
struct pending_interrupt guest_poll_interrupts(struct vm *g, unsigned vcpu,
					       uint64_t now);

/*
 * vcpu takes the interrupt now (IRR -> ISR in the APIC, or the PIC's INTA
 * cycle); returns the vector to inject.
 */
uint8_t guest_ack_interrupt(struct vm *g, unsigned vcpu,
			    struct pending_interrupt p);

/*
 * Whether vcpu has another interrupt to take now, as the controllers stand
 * (no device input brought up to date): after guest_ack_interrupt, the
 * vector that can follow the one just taken (a higher class than its own
 * in the APIC, or the 8259's next request).
 */
bool guest_interrupt_pending(struct vm *g, unsigned vcpu);

/*
 * TSC value at which a timer of vcpu fires next (UINT64_MAX: never): its
 * APIC timer, and for vCPU 0 the PIT's next IRQ 0 edge.
 */
uint64_t guest_timer_deadline(struct vm *g, unsigned vcpu, uint64_t now);

/*
 * Passes a rising edge of PIT counter 0's OUT up to now on to IRQ 0; true
 * if there was one (the interrupt state changed).
 */
bool guest_pit_update(struct vm *g, uint64_t now);

/*
 * Routes an IPI from an ICR write to every destination vCPU: fixed
 * interrupts into their APIC, NMI, INIT and SIPI into their run state.
 * Each destination hears of it through its request word (vm_request).
 */
void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi);

/*
 * ISA IRQ line irq (0-15) changed to level: to the 8259 pair, and to the
 * I/O APIC's pin for it (ISA IRQ 0 to GSI 2, the others identity, as the
 * MADT's Interrupt Source Override says).
 */
void guest_isa_irq_set(struct vm *g, unsigned irq, bool level);

/* The GSI (I/O APIC pin) ISA IRQ irq reaches. */
static inline unsigned guest_isa_irq_to_gsi(unsigned irq)
{
	return irq == 0 ? 2 : irq;
}

/* vcpu's APIC retired level-triggered vector: the EOI message. */
void guest_level_eoi(struct vm *g, uint8_t vector);

/*
 * What a write to a local APIC register (an x2APIC WRMSR or a store in the
 * xAPIC page) returned asks of the platform: to route its IPI, to send
 * the EOI message of a level-triggered vector.
 */
static inline void guest_lapic_written(struct vm *g, const struct vlapic *a,
				       int rc, const struct vlapic_ipi *ipi)
{
	if (rc == VLAPIC_GP)
		return;
	if (rc & VLAPIC_WR_IPI)
		guest_deliver_ipi(g, ipi);
	if (rc & VLAPIC_WR_LEVEL_EOI)
		guest_level_eoi(g, a->level_eoi_vector);
}

/* Reevaluates the device lines after a device register changed. */
void guest_update_irq_lines(struct vm *g);

#endif
