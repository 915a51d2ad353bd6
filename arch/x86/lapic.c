// SPDX-License-Identifier: BSD-2-Clause
/* SDM Vol. 3A, chapter 11 (APIC): ICR layout 11.6.1, x2APIC MSRs 11.12. */
#include "arch/x86/lapic.h"
#include "arch/x86/cpu.h"

#define XAPIC_ID        0x20
#define XAPIC_ICR_LOW   0x300
#define XAPIC_ICR_HIGH  0x310
#define XAPIC_SVR       0xf0
#define XAPIC_EOI       0xb0
#define X2APIC_MSR_BASE 0x800
#define X2APIC_ICR      0x830

#define ICR_DELIVERY_NMI     (4u << 8)
#define ICR_DELIVERY_INIT    (5u << 8)
#define ICR_DELIVERY_STARTUP (6u << 8)
#define ICR_DELIVERY_PENDING BIT(12)
#define ICR_LEVEL_ASSERT     BIT(14)
#define SVR_APIC_ENABLE      BIT(8)
#define ICR_SPIN_LIMIT       1000000

static volatile uint8_t *xapic_base;
static bool x2apic;

static uint32_t xapic_read(uint32_t reg)
{
	return *(volatile uint32_t *)(xapic_base + reg);
}

static void xapic_write(uint32_t reg, uint32_t v)
{
	*(volatile uint32_t *)(xapic_base + reg) = v;
}

void lapic_init(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	x2apic = base & APIC_BASE_X2APIC;
	xapic_base = (volatile uint8_t *)(uintptr_t)(base & ~0xfffull);
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + (XAPIC_SVR >> 4),
		      rdmsr(X2APIC_MSR_BASE + (XAPIC_SVR >> 4)) | SVR_APIC_ENABLE);
	else
		xapic_write(XAPIC_SVR, xapic_read(XAPIC_SVR) | SVR_APIC_ENABLE);
}

uint32_t lapic_read_reg(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR_BASE + (reg >> 4));
	return xapic_read(reg);
}

void lapic_write_reg(uint32_t reg, uint32_t value)
{
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + (reg >> 4), value);
	else
		xapic_write(reg, value);
}

uint32_t lapic_id(void)
{
	if (x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR_BASE + (XAPIC_ID >> 4));
	return xapic_read(XAPIC_ID) >> 24;
}

static void send_icr(uint32_t apic_id, uint32_t low)
{
	if (x2apic) {
		wrmsr(X2APIC_ICR, ((uint64_t)apic_id << 32) | low);
		return;
	}
	xapic_write(XAPIC_ICR_HIGH, apic_id << 24);
	xapic_write(XAPIC_ICR_LOW, low);
	for (int i = 0; i < ICR_SPIN_LIMIT; i++) {
		if (!(xapic_read(XAPIC_ICR_LOW) & ICR_DELIVERY_PENDING))
			break;
		cpu_relax();
	}
}

void lapic_send_init(uint32_t apic_id)
{
	send_icr(apic_id, ICR_DELIVERY_INIT | ICR_LEVEL_ASSERT);
}

void lapic_send_startup(uint32_t apic_id, uint8_t vector_page)
{
	send_icr(apic_id, ICR_DELIVERY_STARTUP | ICR_LEVEL_ASSERT | vector_page);
}

void lapic_send_nmi(uint32_t apic_id)
{
	send_icr(apic_id, ICR_DELIVERY_NMI | ICR_LEVEL_ASSERT);
}

void lapic_send_fixed(uint32_t apic_id, uint8_t vector)
{
	send_icr(apic_id, ICR_LEVEL_ASSERT | vector);
}

void lapic_eoi(void)
{
	if (x2apic)
		wrmsr(X2APIC_MSR_BASE + (XAPIC_EOI >> 4), 0);
	else
		xapic_write(XAPIC_EOI, 0);
}
