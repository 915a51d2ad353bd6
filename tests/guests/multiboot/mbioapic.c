// SPDX-License-Identifier: BSD-2-Clause
/*
 * mbioapic: the I/O APIC at 0xFEC00000 as a 32-bit kernel programs it:
 * its version and entry count, a redirection entry written and read back
 * (the read-only bits stay 0), a masked pin that delivers nothing, then
 * COM1's THR-empty interrupt (ISA IRQ 4, GSI 4) through the I/O APIC to
 * the boot CPU, edge-triggered and then level-triggered (remote IRR set
 * while in service, the interrupt again after the EOI while the line is
 * still high). The 8259s are masked. The local APIC is used in the mode
 * the CPU offers: x2APIC through its MSRs when CPUID has it (apfvisor),
 * xAPIC through its page otherwise (QEMU 7.2's TCG has no x2APIC).
 * Run by tests/bochs/test_multiboot.py under QEMU -kernel and apfvisor;
 * ends through port 0xf4 with value 0x31 (exit status 99).
 */
#include "mb_lib.h"

#define EXIT_VALUE 0x31

#define IOAPIC_BASE 0xfec00000u
#define IOREGSEL 0x00
#define IOWIN 0x10
#define REG_ID 0x00
#define REG_VER 0x01
#define REG_REDTBL(pin, high) (0x10 + 2 * (pin) + (high))
#define RTE_REMOTE_IRR (1u << 14)
#define RTE_LEVEL (1u << 15)
#define RTE_MASKED (1u << 16)
#define RTE_DELIVERY_STATUS (1u << 12)

#define COM1 0x3f8
#define COM1_IER (COM1 + 1)
#define COM1_IIR (COM1 + 2)
#define COM1_MCR (COM1 + 4)
#define COM1_LSR (COM1 + 5)
#define IER_THRI 0x02
#define MCR_DTR_RTS_OUT2 0x0b
#define LSR_THRE 0x20
#define COM1_GSI 4
#define COM1_VECTOR 0x41
#define SPURIOUS_VECTOR 0xff

#define MSR_APIC_BASE 0x1b
#define APIC_BASE_EN (1u << 11)
#define APIC_BASE_EXTD (1u << 10)
#define XAPIC_PAGE 0xfee00000u
/* Register offsets in the xAPIC page; x2APIC MSR = 0x800 + offset / 16. */
#define APIC_ID 0x20
#define APIC_TPR 0x80
#define APIC_EOI 0xb0
#define APIC_SVR 0xf0
#define APIC_ISR0 0x100
#define APIC_IRR0 0x200
#define SVR_ENABLE 0x100
#define CPUID_1_ECX_X2APIC (1u << 21)

#define WAIT_LOOPS 2000000

static int x2apic;
static volatile u32 interrupts, isr_seen, remote_irr_seen;
static volatile int level_phase;

static u32 ioapic_read(u32 reg)
{
	*(volatile u32 *)(IOAPIC_BASE + IOREGSEL) = reg;
	return *(volatile u32 *)(IOAPIC_BASE + IOWIN);
}

static void ioapic_write(u32 reg, u32 v)
{
	*(volatile u32 *)(IOAPIC_BASE + IOREGSEL) = reg;
	*(volatile u32 *)(IOAPIC_BASE + IOWIN) = v;
}

static u32 lapic_read(u32 offset)
{
	if (x2apic)
		return (u32)rdmsr(0x800 + offset / 16);
	return *(volatile u32 *)(XAPIC_PAGE + offset);
}

static void lapic_write(u32 offset, u32 v)
{
	if (x2apic)
		wrmsr(0x800 + offset / 16, v);
	else
		*(volatile u32 *)(XAPIC_PAGE + offset) = v;
}

static int vector_bit(u32 first_reg, u32 vector)
{
	return lapic_read(first_reg + 0x10 * (vector / 32)) >>
	       (vector % 32) & 1;
}

/* The ID an I/O APIC entry names: bits 31:24 in xAPIC mode. */
static u32 lapic_id(void)
{
	return x2apic ? lapic_read(APIC_ID) : lapic_read(APIC_ID) >> 24;
}

static void lapic_enable(void)
{
	u32 eax = 1, ebx, ecx, edx;

	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "=c"(ecx),
			 "=d"(edx));
	x2apic = !!(ecx & CPUID_1_ECX_X2APIC);
	if (x2apic && !(rdmsr(MSR_APIC_BASE) & APIC_BASE_EXTD))
		wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_EN |
			      APIC_BASE_EXTD);
	print("host: local APIC in %s mode, ID %u\n",
	      x2apic ? "x2APIC" : "xAPIC", lapic_id());
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
}

/*
 * COM1's interrupt: counts it, notes that the vector is in service and,
 * the first time in the level phase, that the entry's remote IRR is set
 * and leaves the line high (the EOI must bring the interrupt again).
 */
void com1_interrupt(void)
{
	interrupts++;
	if (vector_bit(APIC_ISR0, COM1_VECTOR))
		isr_seen++;
	if (level_phase && interrupts == 1) {
		remote_irr_seen = ioapic_read(REG_REDTBL(COM1_GSI, 0)) &
				  RTE_REMOTE_IRR;
	} else {
		inb(COM1_IIR);          /* THR empty acknowledged: line low */
		outb(COM1_IER, 0);
	}
	lapic_write(APIC_EOI, 0);
}

void spurious_interrupt(void)
{
}

MB_INTERRUPT_STUB(com1_stub, com1_interrupt);
MB_INTERRUPT_STUB(spurious_stub, spurious_interrupt);

static void idt_install(void)
{
	idt_set_gate(COM1_VECTOR, com1_stub);
	idt_set_gate(SPURIOUS_VECTOR, spurious_stub);
	idt_load();
}

static void show_registers(void)
{
	u32 ver = ioapic_read(REG_VER);

	print("mbioapic: version 0x%x, %u redirection entries\n", ver & 0xff,
	      (ver >> 16 & 0xff) + 1);
	print("host: I/O APIC ID %u\n", ioapic_read(REG_ID) >> 24 & 0xf);
	print("mbioapic: entry %u at start 0x%08x 0x%08x\n", COM1_GSI,
	      ioapic_read(REG_REDTBL(COM1_GSI, 1)),
	      ioapic_read(REG_REDTBL(COM1_GSI, 0)));
}

/* A write of every bit reads back without the read-only ones. */
static void show_write_read_back(void)
{
	ioapic_write(REG_REDTBL(COM1_GSI, 0), 0xffffffffu);
	ioapic_write(REG_REDTBL(COM1_GSI, 1), 0xff000000u);
	print("mbioapic: all ones read back 0x%08x 0x%08x\n",
	      ioapic_read(REG_REDTBL(COM1_GSI, 1)),
	      ioapic_read(REG_REDTBL(COM1_GSI, 0)));
	print("mbioapic: delivery status %u, remote IRR %u after the write\n",
	      !!(ioapic_read(REG_REDTBL(COM1_GSI, 0)) & RTE_DELIVERY_STATUS),
	      !!(ioapic_read(REG_REDTBL(COM1_GSI, 0)) & RTE_REMOTE_IRR));
}

static void route_com1(u32 low)
{
	ioapic_write(REG_REDTBL(COM1_GSI, 0), RTE_MASKED);
	ioapic_write(REG_REDTBL(COM1_GSI, 1), lapic_id() << 24);
	ioapic_write(REG_REDTBL(COM1_GSI, 0), low);
}

/* Raises COM1's line (THR empty, IER bit 1) and waits for interrupts. */
static void raise_com1_and_wait(u32 want)
{
	for (int i = 0; i < WAIT_LOOPS && !(inb(COM1_LSR) & LSR_THRE); i++)
		;
	interrupts = isr_seen = remote_irr_seen = 0;
	__asm__ volatile("sti");
	outb(COM1_IER, IER_THRI);
	for (int i = 0; i < WAIT_LOOPS && interrupts < want; i++)
		__asm__ volatile("pause");
	__asm__ volatile("cli");
	outb(COM1_IER, 0);
}

u32 mb_main(u32 magic, const void *mbi)
{
	(void)magic;
	(void)mbi;
	serial_init();
	print("mbioapic: start\n");
	outb(0x21, 0xff);               /* both 8259s masked */
	outb(0xa1, 0xff);
	lapic_enable();
	idt_install();
	show_registers();
	show_write_read_back();

	outb(COM1_MCR, MCR_DTR_RTS_OUT2);
	route_com1(RTE_MASKED | COM1_VECTOR);
	raise_com1_and_wait(1);
	print("mbioapic: masked: %u interrupts, IRR bit %d\n", interrupts,
	      vector_bit(APIC_IRR0, COM1_VECTOR));

	route_com1(COM1_VECTOR);        /* edge, active high, fixed, physical */
	raise_com1_and_wait(1);
	print("mbioapic: edge: %u interrupts on vector 0x%x, in service %u\n",
	      interrupts, COM1_VECTOR, isr_seen);

	level_phase = 1;
	route_com1(RTE_LEVEL | COM1_VECTOR);
	raise_com1_and_wait(2);
	print("mbioapic: level: %u interrupts, remote IRR in service %u, "
	      "after %u\n", interrupts, !!remote_irr_seen,
	      !!(ioapic_read(REG_REDTBL(COM1_GSI, 0)) & RTE_REMOTE_IRR));
	route_com1(RTE_MASKED);
	print("mbioapic: exit 0x%x\n", EXIT_VALUE);
	return EXIT_VALUE;
}
