/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/interrupts.c, the platform's interrupt routing: the UART's IRQ 4
 * through the 8259 to the boot vCPU only (virtual wire), the LAPIC before
 * the PIC, and IPIs to their destinations (fixed, NMI, INIT ignored by the
 * BSP, SIPI with its vector), each announced through the request word;
 * PIT counter 0's edges as IRQ 0 and its deadline on vCPU 0 only.
 * ISA IRQs through the I/O APIC to the vCPU an entry names, IRQ 0 on
 * GSI 2, level entries and the EOI that reaches the I/O APIC.
 * vm_request is faked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/interrupts.h"
#include "guest/vm.h"

#define TSC_HZ 2500000000ull

static struct vm vm;
static uint64_t requests[2];

void vm_request(struct vm *g, unsigned n, enum vcpu_request req)
{
	assert_ptr_equal(g, &vm);
	assert_true(n < 2);
	requests[n] |= BIT(req);
}

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	memset(requests, 0, sizeof(requests));
	vm.nvcpus = 2;
	guest_interrupts_init(&vm, TSC_HZ);
	/* x2APIC mode, as Linux under apfvisor turns it on. */
	for (unsigned n = 0; n < vm.nvcpus; n++)
		vlapic_wrmsr(&vm.plat[n].lapic, VLAPIC_MSR_APIC_BASE,
			     vm.plat[n].lapic.apic_base | VLAPIC_BASE_EXTD, 0,
			     NULL);
	return 0;
}

/* The 8259 pair as Linux programs it: vectors 0x30.., all masked but one. */
static void program_pics(uint8_t master_imr)
{
	static const uint8_t icw[2][4] = {
		{ 0x11, 0x30, 0x04, 0x01 }, { 0x11, 0x38, 0x02, 0x01 },
	};

	for (unsigned c = 0; c < 2; c++) {
		uint16_t base = c ? 0xa0 : 0x20;

		pic_write(&vm.dev.pic, base, icw[c][0]);
		for (unsigned i = 1; i < 4; i++)
			pic_write(&vm.dev.pic, base + 1, icw[c][i]);
	}
	pic_write(&vm.dev.pic, 0x21, master_imr);
	pic_write(&vm.dev.pic, 0xa1, 0xff);
}

/* The UART asks for its THR-empty interrupt (IER bit 1, OUT2). */
static void uart_interrupt_on(void)
{
	uart_write(&vm.dev.uart, 4, 0x08);
	uart_write(&vm.dev.uart, 1, 0x02);
}

static void enable_lapic(unsigned n)
{
	struct vlapic_ipi ipi;

	vlapic_wrmsr(&vm.plat[n].lapic, 0x80f, 0x1ff, 0, &ipi);
}

static void nothing_pending_at_start(void **state)
{
	struct pending_interrupt p;

	(void)state;
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(p.vector, -1);
	assert_true(guest_timer_deadline(&vm, 0, 0) == UINT64_MAX);
}

static void uart_irq_reaches_the_bsp_only(void **state)
{
	struct pending_interrupt p;

	(void)state;
	program_pics(0xef);                     /* IRQ 4 unmasked */
	uart_interrupt_on();
	guest_update_irq_lines(&vm);
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(p.vector, 0x34);
	assert_int_equal(p.source, INTERRUPT_FROM_PIC);
	assert_int_equal(guest_poll_interrupts(&vm, 1, 0).vector, -1);
	assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x34);
	/* Masked at the PIC: nothing. */
	pic_write(&vm.dev.pic, 0x20, 0x20);         /* EOI */
	pic_write(&vm.dev.pic, 0x21, 0xff);
	assert_int_equal(guest_poll_interrupts(&vm, 0, 0).vector, -1);
}

/*
 * A level-triggered 8259 input asks again after its INTA while the line
 * stays high; once it went low, nothing is left (the lines are copied
 * only when one is or was high).
 */
static void level_pic_input_asks_again_while_high(void **state)
{
	struct pending_interrupt p;

	(void)state;
	program_pics(0xef);
	pic_write(&vm.dev.pic, PIC_ELCR_MASTER, 0x10);      /* IRQ 4 level */
	uart_interrupt_on();
	for (unsigned i = 0; i < 2; i++) {
		p = guest_poll_interrupts(&vm, 0, 0);
		assert_int_equal(p.vector, 0x34);
		assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x34);
		pic_write(&vm.dev.pic, 0x20, 0x20);         /* EOI */
	}
	uart_read(&vm.dev.uart, 2);     /* IIR: THR empty taken, line low */
	assert_int_equal(guest_poll_interrupts(&vm, 0, 0).vector, -1);
	assert_false(vm.dev.com1_line);
	assert_int_equal(guest_poll_interrupts(&vm, 0, 0).vector, -1);
}

static void lapic_goes_before_the_pic(void **state)
{
	struct pending_interrupt p;

	(void)state;
	program_pics(0xef);
	uart_interrupt_on();
	enable_lapic(0);
	/* The BSP's LINT0 stays ExtINT (virtual wire) after the SVR write. */
	vm.plat[0].lapic.lvt[VLAPIC_LVT_LINT0] = VLAPIC_LVT_DM_EXTINT <<
						 VLAPIC_LVT_DM_SHIFT;
	vlapic_accept(&vm.plat[0].lapic, 0x41);
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(p.vector, 0x41);
	assert_int_equal(p.source, INTERRUPT_FROM_LAPIC);
	assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x41);
	/* In service at the LAPIC: the PIC's request comes next. */
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(p.vector, 0x34);
	assert_int_equal(p.source, INTERRUPT_FROM_PIC);
}

static struct vlapic_ipi ipi(enum vlapic_ipi_mode mode, uint8_t vector,
			     uint32_t dest)
{
	return (struct vlapic_ipi){
		.mode = mode, .vector = vector, .dest = dest,
	};
}

/*
 * What may follow the vector just taken, without a poll: a higher class
 * in the APIC or the 8259's request; not a lower class, which waits for
 * the EOI (and the EOI asks for the poll).
 */
static void pending_after_an_injection(void **state)
{
	struct vlapic *a = &vm.plat[0].lapic;
	struct pending_interrupt p;

	(void)state;
	enable_lapic(0);
	enable_lapic(1);
	assert_false(guest_interrupt_pending(&vm, 0));
	vlapic_accept(a, 0x61);
	vlapic_accept(a, 0x41);
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x61);
	assert_false(guest_interrupt_pending(&vm, 0));  /* 0x41 is below */
	vlapic_accept(a, 0xf3);
	assert_true(guest_interrupt_pending(&vm, 0));
	assert_false(guest_interrupt_pending(&vm, 1));
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0xf3);
	assert_false(guest_interrupt_pending(&vm, 0));
	/* The 8259 through the BSP's LINT0 (virtual wire): not held back. */
	program_pics(0xef);
	uart_interrupt_on();
	vm.plat[0].lapic.lvt[VLAPIC_LVT_LINT0] = VLAPIC_LVT_DM_EXTINT <<
						 VLAPIC_LVT_DM_SHIFT;
	guest_update_irq_lines(&vm);
	assert_true(guest_interrupt_pending(&vm, 0));
	assert_false(guest_interrupt_pending(&vm, 1));
}

static void ipis_reach_their_destinations(void **state)
{
	struct vlapic_ipi i;

	(void)state;
	enable_lapic(0);
	enable_lapic(1);
	i = ipi(VLAPIC_IPI_FIXED, 0x51, 1);
	guest_deliver_ipi(&vm, &i);
	assert_int_equal(requests[0], 0);
	assert_int_equal(requests[1], BIT(VCPU_REQ_EVENT));
	assert_int_equal(guest_poll_interrupts(&vm, 1, 0).vector, 0x51);
	i = ipi(VLAPIC_IPI_NMI, 0, 0);
	guest_deliver_ipi(&vm, &i);
	assert_true(requests[0] & BIT(VCPU_REQ_NMI));
	/* Broadcast: both. */
	memset(requests, 0, sizeof(requests));
	i = ipi(VLAPIC_IPI_FIXED, 0x52, 0xffffffff);
	guest_deliver_ipi(&vm, &i);
	assert_int_equal(requests[0], BIT(VCPU_REQ_EVENT));
	assert_int_equal(requests[1], BIT(VCPU_REQ_EVENT));
}

static void init_and_sipi(void **state)
{
	struct vlapic_ipi i;

	(void)state;
	/* The BSP ignores INIT here; an AP goes back to wait for SIPI. */
	i = ipi(VLAPIC_IPI_INIT, 0, 0);
	guest_deliver_ipi(&vm, &i);
	assert_int_equal(requests[0], 0);
	i = ipi(VLAPIC_IPI_INIT, 0, 1);
	guest_deliver_ipi(&vm, &i);
	assert_int_equal(requests[1], BIT(VCPU_REQ_INIT));
	i = ipi(VLAPIC_IPI_SIPI, 0x08, 1);
	guest_deliver_ipi(&vm, &i);
	assert_true(requests[1] & BIT(VCPU_REQ_SIPI));
	assert_int_equal(vm.plat[1].sipi_vector, 0x08);
}

/*
 * Guests that stay in xAPIC mode (the reset state): an INIT/SIPI through
 * the xAPIC ICR reaches the AP, lowest priority goes to one APIC only,
 * and a logical IPI matches the targets' flat-model LDRs.
 */
static void xapic_icr_ipis(void **state)
{
	struct vlapic *bsp = &vm.plat[0].lapic, *ap = &vm.plat[1].lapic;
	struct vlapic_ipi i;
	int rc;

	(void)state;
	guest_interrupts_init(&vm, TSC_HZ);     /* back to xAPIC mode */
	vlapic_reg_write(bsp, VLAPIC_REG(SVR), 0x1ff, 0, NULL);
	vlapic_reg_write(bsp, VLAPIC_REG_ICR_HIGH, 1u << 24, 0, NULL);
	rc = vlapic_reg_write(bsp, VLAPIC_REG(ICR), 0x4500, 0, &i);
	guest_lapic_written(&vm, bsp, rc, &i);
	assert_int_equal(requests[1], BIT(VCPU_REQ_INIT));
	rc = vlapic_reg_write(bsp, VLAPIC_REG(ICR), 0x4608, 0, &i);
	guest_lapic_written(&vm, bsp, rc, &i);
	assert_true(requests[1] & BIT(VCPU_REQ_SIPI));
	assert_int_equal(vm.plat[1].sipi_vector, 0x08);
	memset(requests, 0, sizeof(requests));
	/* The INIT reset the AP's APIC: software-enable it again. */
	vlapic_reg_write(ap, VLAPIC_REG(SVR), 0x1ff, 0, NULL);
	/* Both in logical flat group 1: lowest priority reaches one. */
	vlapic_reg_write(bsp, VLAPIC_REG(LDR), 1u << 24, 0, NULL);
	vlapic_reg_write(ap, VLAPIC_REG(LDR), 1u << 24, 0, NULL);
	rc = vlapic_reg_write(bsp, VLAPIC_REG(ICR), 0x4961, 0, &i);
	guest_lapic_written(&vm, bsp, rc, &i);
	assert_int_equal(requests[0], BIT(VCPU_REQ_EVENT));
	assert_int_equal(requests[1], 0);
	rc = vlapic_reg_write(bsp, VLAPIC_REG(ICR), 0x4862, 0, &i); /* fixed */
	guest_lapic_written(&vm, bsp, rc, &i);
	assert_int_equal(requests[1], BIT(VCPU_REQ_EVENT));
	assert_int_equal(guest_poll_interrupts(&vm, 1, 0).vector, 0x62);
}

/*
 * vmx/ skips the poll before an entry when it cannot find anything new:
 * only after a quiet poll, with irq_gen where that poll saw it, and before
 * the vCPU's timer deadline.
 */
static void poll_needed_only_when_something_may_have_changed(void **state)
{
	struct irq_poll_memo m = { .quiet = true, .irq_gen = 7,
				   .deadline = 1000 };

	(void)state;
	assert_false(irq_poll_needed(&m, 7, 0));
	assert_false(irq_poll_needed(&m, 7, 999));
	assert_true(irq_poll_needed(&m, 7, 1000));      /* the timer is due */
	assert_true(irq_poll_needed(&m, 8, 0));         /* a device changed */
	m.quiet = false;        /* something was left pending, or a request */
	assert_true(irq_poll_needed(&m, 7, 0));
	m = (struct irq_poll_memo){ .quiet = true, .irq_gen = 7,
				    .deadline = UINT64_MAX };
	assert_false(irq_poll_needed(&m, 7, UINT64_MAX - 1));  /* no timer */
}

/*
 * Counter 0 in mode 2 at 1 kHz: vCPU 0 (the 8259's only vCPU) has the
 * next edge as its deadline, and a poll then finds IRQ 0; a late poll
 * finds one IRQ 0 for many periods.
 */
static void pit_irq0_reaches_the_bsp_at_its_deadline(void **state)
{
	const uint64_t period = TSC_HZ * 1193 / PIT_INPUT_HZ;  /* ~1 ms */
	struct pending_interrupt p;
	uint64_t deadline;

	(void)state;
	program_pics(0xfe);                     /* IRQ 0 unmasked */
	pit_write(&vm.dev.pit, 0x43, 0x34, 0);  /* counter 0, word, mode 2 */
	pit_write(&vm.dev.pit, 0x40, 1193 & 0xff, 0);
	pit_write(&vm.dev.pit, 0x40, 1193 >> 8, 0);
	deadline = guest_timer_deadline(&vm, 0, 0);
	assert_true(deadline >= period && deadline <= period + 1);
	assert_true(guest_timer_deadline(&vm, 1, 0) == UINT64_MAX);
	assert_int_equal(guest_poll_interrupts(&vm, 0, deadline - 1).vector,
			 -1);
	p = guest_poll_interrupts(&vm, 0, deadline);
	assert_int_equal(p.vector, 0x30);
	assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x30);
	assert_int_equal(guest_poll_interrupts(&vm, 0, deadline).vector, -1);
	pic_write(&vm.dev.pic, 0x20, 0x20);         /* EOI */
	/* 1000 periods later: one IRQ 0, then nothing until the next edge. */
	p = guest_poll_interrupts(&vm, 0, deadline + 1000 * period);
	assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x30);
	pic_write(&vm.dev.pic, 0x20, 0x20);
	assert_int_equal(
		guest_poll_interrupts(&vm, 0, deadline + 1000 * period).vector,
		-1);
	assert_true(guest_timer_deadline(&vm, 0, deadline + 1000 * period) >
		    deadline + 1000 * period);
}

/*
 * IRQ 0 masked at the 8259 and at the I/O APIC: the PIT may count at its
 * fastest without a single timer exit (no deadline), and the edge it
 * latched meanwhile is there once IRQ 0 is unmasked.
 */
static void masked_pit_irq0_wakes_nobody(void **state)
{
	struct pending_interrupt p;

	(void)state;
	program_pics(0xff);                     /* every IRQ masked */
	pit_write(&vm.dev.pit, 0x43, 0x34, 0);  /* counter 0, word, mode 2 */
	pit_write(&vm.dev.pit, 0x40, 2, 0);         /* 1.7 us periods */
	pit_write(&vm.dev.pit, 0x40, 0, 0);
	assert_true(guest_timer_deadline(&vm, 0, 0) == UINT64_MAX);
	assert_true(guest_timer_deadline(&vm, 0, TSC_HZ) == UINT64_MAX);
	assert_int_equal(guest_poll_interrupts(&vm, 0, TSC_HZ).vector, -1);
	pic_write(&vm.dev.pic, 0x21, 0xfe);         /* IRQ 0 unmasked */
	assert_true(guest_timer_deadline(&vm, 0, TSC_HZ) != UINT64_MAX);
	p = guest_poll_interrupts(&vm, 0, TSC_HZ);
	assert_int_equal(p.vector, 0x30);
}

static void ioapic_entry(unsigned pin, uint64_t rte)
{
	ioapic_write(&vm.dev.ioapic, IOAPIC_IOREGSEL, 4, 0x11 + 2 * pin);
	ioapic_write(&vm.dev.ioapic, IOAPIC_IOWIN, 4, (uint32_t)(rte >> 32));
	ioapic_write(&vm.dev.ioapic, IOAPIC_IOREGSEL, 4, 0x10 + 2 * pin);
	ioapic_write(&vm.dev.ioapic, IOAPIC_IOWIN, 4, (uint32_t)rte);
}

static void uart_irq_reaches_the_named_vcpu_through_the_ioapic(void **state)
{
	struct pending_interrupt p;

	(void)state;
	enable_lapic(0);
	enable_lapic(1);
	program_pics(0xff);             /* the 8259s masked */
	ioapic_entry(4, 1ull << IOAPIC_RTE_DEST_SHIFT | 0x41);
	uart_interrupt_on();
	guest_update_irq_lines(&vm);
	assert_true(requests[1] & BIT(VCPU_REQ_EVENT));
	assert_false(requests[0] & BIT(VCPU_REQ_EVENT));
	p = guest_poll_interrupts(&vm, 1, 0);
	assert_int_equal(p.vector, 0x41);
	assert_int_equal(p.source, INTERRUPT_FROM_LAPIC);
	assert_int_equal(guest_ack_interrupt(&vm, 1, p), 0x41);
	assert_int_equal(guest_poll_interrupts(&vm, 0, 0).vector, -1);
	/* The line stays high: an edge entry does not deliver again. */
	assert_int_equal(guest_poll_interrupts(&vm, 1, 0).vector, -1);
}

/* The UART's IRQ as a guest drives it: one interrupt per rising edge. */
static void uart_edge_delivers_once(void **state)
{
	struct pending_interrupt p;
	struct vlapic_ipi ipi;
	unsigned taken = 0;

	(void)state;
	enable_lapic(0);
	program_pics(0xff);
	uart_write(&vm.dev.uart, 4, 0x0b);
	/* All ones first (level, active low, masked), as mbioapic does. */
	ioapic_entry(4, 0xff000000ffffffffull);
	guest_update_irq_lines(&vm);
	ioapic_entry(4, IOAPIC_RTE_MASKED | 0x41);
	uart_write(&vm.dev.uart, 1, 0x02);          /* masked: dropped */
	guest_update_irq_lines(&vm);
	uart_write(&vm.dev.uart, 1, 0x00);
	guest_update_irq_lines(&vm);
	uart_write(&vm.dev.uart, 0, 'x');           /* THR written, IER off */
	guest_update_irq_lines(&vm);
	ioapic_entry(4, 0x41);
	assert_int_equal(guest_poll_interrupts(&vm, 0, 0).vector, -1);
	uart_write(&vm.dev.uart, 1, 0x02);
	guest_update_irq_lines(&vm);
	for (unsigned i = 0; i < 4; i++) {
		p = guest_poll_interrupts(&vm, 0, 0);
		if (p.vector < 0)
			continue;
		assert_int_equal(guest_ack_interrupt(&vm, 0, p), 0x41);
		taken++;
		uart_read(&vm.dev.uart, 2);         /* IIR: THR empty taken */
		guest_update_irq_lines(&vm);
		uart_write(&vm.dev.uart, 1, 0x00);
		guest_update_irq_lines(&vm);
		vlapic_wrmsr(&vm.plat[0].lapic, VLAPIC_MSR_EOI, 0, 0, &ipi);
	}
	assert_int_equal(taken, 1);
}

static void isa_irq0_is_gsi2_and_level_eoi_redelivers(void **state)
{
	struct vlapic_ipi ipi;
	struct pending_interrupt p;
	int rc;

	(void)state;
	enable_lapic(0);
	assert_int_equal(guest_isa_irq_to_gsi(0), 2);
	assert_int_equal(guest_isa_irq_to_gsi(9), 9);
	ioapic_entry(2, 0x30);
	guest_isa_irq_set(&vm, 0, true);
	assert_int_equal(vlapic_pending_vector(&vm.plat[0].lapic), 0x30);
	vlapic_ack(&vm.plat[0].lapic, 0x30);
	/* Level, active high, on pin 9; held high over the EOI. */
	ioapic_entry(9, IOAPIC_RTE_LEVEL | 0x59);
	guest_isa_irq_set(&vm, 9, true);
	p = guest_poll_interrupts(&vm, 0, 0);
	assert_int_equal(p.vector, 0x59);
	guest_ack_interrupt(&vm, 0, p);
	rc = vlapic_wrmsr(&vm.plat[0].lapic, VLAPIC_MSR_EOI, 0, 0, &ipi);
	assert_true(rc & VLAPIC_WR_LEVEL_EOI);
	assert_int_equal(vm.plat[0].lapic.level_eoi_vector, 0x59);
	guest_level_eoi(&vm, 0x59);
	assert_int_equal(vlapic_pending_vector(&vm.plat[0].lapic), 0x59);
	/* An edge vector's EOI sends no message. */
	rc = vlapic_wrmsr(&vm.plat[0].lapic, VLAPIC_MSR_EOI, 0, 0, &ipi);
	assert_false(rc & VLAPIC_WR_LEVEL_EOI);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(nothing_pending_at_start),
		T(uart_irq_reaches_the_bsp_only),
		T(lapic_goes_before_the_pic),
		T(level_pic_input_asks_again_while_high),
		T(pending_after_an_injection),
		T(ipis_reach_their_destinations),
		T(init_and_sipi),
		T(xapic_icr_ipis),
		T(poll_needed_only_when_something_may_have_changed),
		T(pit_irq0_reaches_the_bsp_at_its_deadline),
		T(masked_pit_irq0_wakes_nobody),
		T(uart_irq_reaches_the_named_vcpu_through_the_ioapic),
		T(isa_irq0_is_gsi2_and_level_eoi_redelivers),
		T(uart_edge_delivers_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
