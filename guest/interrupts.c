// SPDX-License-Identifier: BSD-2-Clause
#include "guest/interrupts.h"
#include "guest/balloon.h"
#include "guest/vm.h"
#include "guest/devices/vlapic.h"

#define LVT_DELIVERY_NMI (4u << VLAPIC_LVT_DM_SHIFT)
#define LVT_DELIVERY_EXTINT (VLAPIC_LVT_DM_EXTINT << VLAPIC_LVT_DM_SHIFT)
#define IOAPIC_BROADCAST_DEST 0xff

static void deliver_ioapic_message(void *ctx, const struct ioapic_message *m);

void guest_interrupts_init(struct vm *g, uint64_t tsc_hz)
{
	for (unsigned i = 0; i < MAX_VCPUS; i++)
		vlapic_init(&g->plat[i].lapic, i, i == 0, tsc_hz);
	/*
	 * What firmware leaves for an OS in virtual-wire mode (MP spec 3.6.2.2):
	 * the BSP's LINT0 takes the 8259's ExtINT, LINT1 the NMI. Linux keeps
	 * LINT0 unmasked only if it finds it so (setup_local_APIC).
	 */
	g->plat[0].lapic.lvt[VLAPIC_LVT_LINT0] = LVT_DELIVERY_EXTINT;
	g->plat[0].lapic.lvt[VLAPIC_LVT_LINT1] = LVT_DELIVERY_NMI;
	pic_init(&g->dev.pic);
	pit_init(&g->dev.pit, tsc_hz);
	port61_init(&g->dev.port61);
	ioapic_init(&g->dev.ioapic, deliver_ioapic_message, g);
}

void guest_lapics_enter_x2apic(struct vm *g)
{
	for (unsigned i = 0; i < MAX_VCPUS; i++) {
		struct vlapic *a = &g->plat[i].lapic;

		vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE,
			     a->apic_base | VLAPIC_BASE_EXTD, 0, NULL);
	}
}

void guest_isa_irq_set(struct vm *g, unsigned irq, bool level)
{
	pic_set_irq(&g->dev.pic, irq, level);
	ioapic_set_pin(&g->dev.ioapic, guest_isa_irq_to_gsi(irq), level);
}

/*
 * A line that was low at the last copy and is low now changes nothing in
 * either controller: the 8259 drops no request for it (a level input's
 * IRR bit went with the line, an edge input has no edge), and the I/O
 * APIC sees its pin where it was. Every poll of every vCPU comes here,
 * and both lines are low nearly always. A high line is copied each time,
 * as before: pc-testdev's line writes reach the same ISA inputs, and the
 * device's level must win over them again at the next poll.
 */
static void copy_line(struct vm *g, unsigned irq, bool level, bool *copied)
{
	if (!level && !*copied)
		return;
	*copied = level;
	guest_isa_irq_set(g, irq, level);
}

void guest_update_irq_lines(struct vm *g)
{
	copy_line(g, GUEST_COM1_IRQ, uart_irq_line(&g->dev.uart),
		  &g->dev.com1_line);
	/* PCI INTA# of the balloon: a level line, wired to its GSI. */
	if (g->dev.balloon)
		copy_line(g, PCI_BALLOON_GSI,
			  vm_balloon_irq_level(g->dev.balloon),
			  &g->dev.balloon_line);
}

void guest_level_eoi(struct vm *g, uint8_t vector)
{
	ioapic_eoi(&g->dev.ioapic, vector);
}

/*
 * The APICs an I/O APIC message names, as an interrupt message's
 * destination (SDM Vol. 3A 11.6.2): an 8-bit physical ID (0xff: all), or
 * in logical mode a member mask of x2APIC cluster 0 (KVM's kvm_apic_mda
 * reads an x2APIC's 8-bit logical destination so).
 */
static bool ioapic_message_targets(const struct vlapic *a,
				   const struct ioapic_message *m)
{
	struct vlapic_ipi as_ipi = {
		.mode = VLAPIC_IPI_FIXED, .shorthand = VLAPIC_DEST_FIELD,
		.vector = m->vector, .logical = m->logical,
		.dest = m->dest == IOAPIC_BROADCAST_DEST ? VLAPIC_BROADCAST_ID
							 : m->dest,
	};

	return vlapic_ipi_targets(a, &as_ipi);
}

/*
 * Fixed messages go to every APIC named, lowest-priority ones to the
 * first (a fixed choice is a valid arbitration), NMIs as NMIs. SMI, INIT
 * and ExtINT entries are not modelled: they are dropped.
 */
static void deliver_ioapic_message(void *ctx, const struct ioapic_message *m)
{
	struct vm *g = ctx;

	for (unsigned n = 0; n < g->nvcpus; n++) {
		struct vlapic *a = &g->plat[n].lapic;

		if (!ioapic_message_targets(a, m))
			continue;
		switch (m->delivery) {
		case IOAPIC_DELIVERY_FIXED:
		case IOAPIC_DELIVERY_LOWEST:
			if (m->level)
				vlapic_accept_level(a, m->vector);
			else
				vlapic_accept(a, m->vector);
			vm_request(g, n, VCPU_REQ_EVENT);
			break;
		case IOAPIC_DELIVERY_NMI:
			vm_send_nmi(g, n);
			break;
		default:
			return;
		}
		if (m->delivery == IOAPIC_DELIVERY_LOWEST)
			return;
	}
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
/* A rising edge on ISA IRQ 0: the 8259's IRQ 0 and the I/O APIC's GSI 2. */
static void pit_irq0_edge(struct vm *g)
{
	guest_isa_irq_set(g, PIT_IRQ, true);
	guest_isa_irq_set(g, PIT_IRQ, false);
}

bool guest_pit_update(struct vm *g, uint64_t now)
{
	if (!pit_take_irq0_edge(&g->dev.pit, now))
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
		p.vector = pic_pending_vector(&g->dev.pic);
		p.source = INTERRUPT_FROM_PIC;
	}
	return p;
}

uint8_t guest_ack_interrupt(struct vm *g, unsigned vcpu,
			    struct pending_interrupt p)
{
	/* The INTA cycle decides (a vanished request gives IRQ 7's vector). */
	if (p.source == INTERRUPT_FROM_PIC)
		return pic_ack(&g->dev.pic);
	vlapic_ack(&g->plat[vcpu].lapic, (uint8_t)p.vector);
	return (uint8_t)p.vector;
}

bool guest_interrupt_pending(struct vm *g, unsigned vcpu)
{
	return vlapic_pending_vector(&g->plat[vcpu].lapic) >= 0 ||
	       (pic_reaches(g, vcpu) && pic_pending_vector(&g->dev.pic) >= 0);
}

/*
 * Whether an IRQ 0 edge can interrupt anyone: the 8259's IRQ 0 unmasked,
 * or the I/O APIC pin of its GSI. While neither is, the PIT may count as
 * fast as it likes without waking a vCPU (an edge-triggered 8259 input
 * latches one request meanwhile, which guest_poll_interrupts still finds).
 */
static bool pit_irq0_unmasked(const struct vm *g)
{
	return !(g->dev.pic.chip[0].imr & BIT(PIT_IRQ)) ||
	       !(g->dev.ioapic.redirection[guest_isa_irq_to_gsi(PIT_IRQ)] &
		 IOAPIC_RTE_MASKED);
}

uint64_t guest_timer_deadline(struct vm *g, unsigned vcpu, uint64_t now)
{
	uint64_t lapic = vlapic_timer_deadline(&g->plat[vcpu].lapic);

	/* IRQ 0 reaches vCPU 0 only (through the 8259, see pic_reaches). */
	if (vcpu != 0 || !pit_irq0_unmasked(g))
		return lapic;
	return MIN(lapic, pit_irq0_deadline(&g->dev.pit, now));
}

static void deliver_to(struct vm *g, unsigned n, const struct vlapic_ipi *ipi)
{
	struct vcpu_platform *p = &g->plat[n];

	switch (ipi->mode) {
	case VLAPIC_IPI_FIXED:
	case VLAPIC_IPI_LOWEST:
		vlapic_accept(&p->lapic, ipi->vector);
		vm_request(g, n, VCPU_REQ_EVENT);
		break;
	case VLAPIC_IPI_NMI:
		vm_send_nmi(g, n);
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

/* A lowest-priority IPI goes to the first destination, as I/O APIC
 * messages do (deliver_ioapic_message). */
void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	for (unsigned n = 0; n < g->nvcpus; n++) {
		if (!vlapic_ipi_targets(&g->plat[n].lapic, ipi))
			continue;
		deliver_to(g, n, ipi);
		if (ipi->mode == VLAPIC_IPI_LOWEST)
			return;
	}
}
