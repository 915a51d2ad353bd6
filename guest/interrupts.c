// SPDX-License-Identifier: BSD-2-Clause
#include "guest/interrupts.h"
#include "guest/vm.h"
#include "guest/vlapic.h"

#define LVT_DELIVERY_NMI (4u << VLAPIC_LVT_DM_SHIFT)
#define LVT_DELIVERY_EXTINT (VLAPIC_LVT_DM_EXTINT << VLAPIC_LVT_DM_SHIFT)

void guest_interrupts_init(struct vm *g, uint64_t tsc_hz)
{
	for (unsigned i = 0; i < VM_MAX_VCPUS; i++)
		vlapic_init(&g->plat[i].lapic, i, i == 0, tsc_hz);
	/*
	 * What firmware leaves for an OS in virtual-wire mode (MP spec 3.6.2.2):
	 * the BSP's LINT0 takes the 8259's ExtINT, LINT1 the NMI. Linux keeps
	 * LINT0 unmasked only if it finds it so (setup_local_APIC).
	 */
	g->plat[0].lapic.lvt[VLAPIC_LVT_LINT0] = LVT_DELIVERY_EXTINT;
	g->plat[0].lapic.lvt[VLAPIC_LVT_LINT1] = LVT_DELIVERY_NMI;
	pic_init(&g->pic);
	pit_init(&g->pit, tsc_hz);
	port61_init(&g->port61);
}

void guest_update_irq_lines(struct vm *g)
{
	pic_set_irq(&g->pic, GUEST_COM1_IRQ, uart_irq_line(&g->uart));
}

/*
 * The 8259's output reaches the BSP's LINT0 only (MP spec virtual-wire
 * mode, which Linux uses when the MADT lists no I/O APIC).
 */
static bool pic_reaches(struct vm *g, unsigned vcpu)
{
	return vcpu == 0 &&
	       vlapic_accepts_pic_interrupts(&g->plat[0].lapic);
}

/*
 * The one place an edge of PIT counter 0's OUT reaches an interrupt
 * controller: ISA IRQ 0 of the 8259 pair (an edge-triggered input latches
 * the rising edge even though the line drops again at once).
 */
static void pit_irq0_edge(struct vm *g)
{
	pic_set_irq(&g->pic, PIT_IRQ, true);
	pic_set_irq(&g->pic, PIT_IRQ, false);
}

bool guest_pit_update(struct vm *g, uint64_t now)
{
	if (!pit_take_irq0_edge(&g->pit, now))
		return false;
	pit_irq0_edge(g);
	return true;
}

struct pending_interrupt guest_poll_interrupts(struct vm *g, unsigned vcpu,
					       uint64_t now)
{
	struct vlapic *a = &g->plat[vcpu].lapic;
	struct pending_interrupt p = { -1, INTERRUPT_FROM_LAPIC };

	vlapic_timer_check(a, now);
	guest_pit_update(g, now);
	guest_update_irq_lines(g);
	p.vector = vlapic_pending_vector(a);
	if (p.vector < 0 && pic_reaches(g, vcpu)) {
		p.vector = pic_pending_vector(&g->pic);
		p.source = INTERRUPT_FROM_PIC;
	}
	return p;
}

uint8_t guest_ack_interrupt(struct vm *g, unsigned vcpu,
			    struct pending_interrupt p)
{
	/* The INTA cycle decides (a vanished request gives IRQ 7's vector). */
	if (p.source == INTERRUPT_FROM_PIC)
		return pic_ack(&g->pic);
	vlapic_ack(&g->plat[vcpu].lapic, (uint8_t)p.vector);
	return (uint8_t)p.vector;
}

uint64_t guest_timer_deadline(struct vm *g, unsigned vcpu, uint64_t now)
{
	uint64_t lapic = vlapic_timer_deadline(&g->plat[vcpu].lapic);

	/* IRQ 0 reaches vCPU 0 only (through the 8259, see pic_reaches). */
	if (vcpu != 0)
		return lapic;
	return MIN(lapic, pit_irq0_deadline(&g->pit, now));
}

static void deliver_to(struct vm *g, unsigned n, const struct vlapic_ipi *ipi)
{
	struct vcpu_platform *p = &g->plat[n];

	switch (ipi->mode) {
	case VLAPIC_IPI_FIXED:
		vlapic_accept(&p->lapic, ipi->vector);
		vm_request(g, n, VCPU_REQ_EVENT);
		break;
	case VLAPIC_IPI_NMI:
		vm_request(g, n, VCPU_REQ_NMI);
		break;
	case VLAPIC_IPI_INIT:
		/* The BSP ignores INIT here; an AP waits for a SIPI again. */
		if (n != 0) {
			vlapic_init_signal(&p->lapic);
			vm_request(g, n, VCPU_REQ_INIT);
		}
		break;
	case VLAPIC_IPI_SIPI:
		/*
		 * Only a CPU waiting for one takes a SIPI (SDM Vol. 3A 9.4.4):
		 * the target decides when it takes the request, after an
		 * INIT that came with it.
		 */
		p->sipi_vector = ipi->vector;
		vm_request(g, n, VCPU_REQ_SIPI);
		break;
	}
}

void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	for (unsigned n = 0; n < g->nvcpus; n++)
		if (vlapic_ipi_targets(&g->plat[n].lapic, ipi))
			deliver_to(g, n, ipi);
}
