/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's I/O APIC: an Intel 82093AA as QEMU's PC models it
 * (hw/intc/ioapic.c): version 0x20 (with the EOI register at offset 0x40),
 * 24 pins, at 0xFEC00000. Registers through IOREGSEL (offset 0x00) and
 * IOWIN (0x10): ID, VER, ARB and the redirection table, two 32-bit halves
 * per pin. Pure C: the hypervisor forwards the page's accesses, drives the
 * pins with ioapic_set_pin(), passes each EOI of a level-triggered vector
 * on with ioapic_eoi(), and delivers the messages this model hands to its
 * deliver callback to the local APICs they name.
 *
 * Reset state: ID 0, every pin masked, edge-triggered, active high.
 * Delivery status always reads 0: a message reaches its APIC at once.
 */
#ifndef GUEST_IOAPIC_H
#define GUEST_IOAPIC_H

#include "lib/types.h"

#define IOAPIC_BASE 0xfec00000ull
#define IOAPIC_PAGE_SIZE 0x1000ull
#define IOAPIC_PINS 24
#define IOAPIC_VERSION 0x20

/* Offsets in the page (QEMU decodes only the low 8 bits of the offset). */
#define IOAPIC_IOREGSEL 0x00
#define IOAPIC_IOWIN 0x10
#define IOAPIC_EOI 0x40

/* Registers behind IOWIN (82093AA datasheet, 3.2). */
#define IOAPIC_REG_ID 0x00
#define IOAPIC_REG_VER 0x01
#define IOAPIC_REG_ARB 0x02
#define IOAPIC_REG_REDTBL 0x10  /* pin n: 0x10 + 2n (low), 0x11 + 2n (high) */
#define IOAPIC_ID_SHIFT 24
#define IOAPIC_VER_ENTRIES_SHIFT 16

/* Redirection table entry (datasheet 3.2.4). */
#define IOAPIC_RTE_VECTOR_MASK 0xffull
#define IOAPIC_RTE_DELIVERY_SHIFT 8
#define IOAPIC_RTE_DELIVERY_MASK (7ull << IOAPIC_RTE_DELIVERY_SHIFT)
#define IOAPIC_RTE_LOGICAL BIT(11)
#define IOAPIC_RTE_DELIVERY_STATUS BIT(12)
#define IOAPIC_RTE_ACTIVE_LOW BIT(13)
#define IOAPIC_RTE_REMOTE_IRR BIT(14)
#define IOAPIC_RTE_LEVEL BIT(15)
#define IOAPIC_RTE_MASKED BIT(16)
#define IOAPIC_RTE_DEST_SHIFT 56
#define IOAPIC_RTE_READ_ONLY \
	(IOAPIC_RTE_DELIVERY_STATUS | IOAPIC_RTE_REMOTE_IRR)

enum ioapic_delivery {
	IOAPIC_DELIVERY_FIXED = 0,
	IOAPIC_DELIVERY_LOWEST = 1,
	IOAPIC_DELIVERY_SMI = 2,
	IOAPIC_DELIVERY_NMI = 4,
	IOAPIC_DELIVERY_INIT = 5,
	IOAPIC_DELIVERY_EXTINT = 7,
};

/* One interrupt message, as a redirection entry makes it. */
struct ioapic_message {
	uint8_t vector;
	enum ioapic_delivery delivery;
	bool logical;
	bool level;
	uint8_t dest;           /* bits 63:56 of the entry */
	unsigned pin;
};

/* Delivers a message to the APICs it names. */
typedef void (*ioapic_deliver_fn)(void *ctx, const struct ioapic_message *m);

struct ioapic {
	uint8_t id;
	uint8_t ioregsel;
	uint32_t lines;                 /* pins asserted */
	uint32_t pending;               /* requests not yet delivered (IRR) */
	uint64_t redirection[IOAPIC_PINS];
	uint64_t messages;              /* interrupt messages sent */
	ioapic_deliver_fn deliver;
	void *deliver_ctx;
};

void ioapic_init(struct ioapic *io, ioapic_deliver_fn deliver, void *ctx);

static inline bool ioapic_owns_address(uint64_t gpa)
{
	return gpa >= IOAPIC_BASE && gpa < IOAPIC_BASE + IOAPIC_PAGE_SIZE;
}

/* An access of size bytes at offset in the page (as QEMU: IOWIN 4 only). */
uint32_t ioapic_read(const struct ioapic *io, uint64_t offset, unsigned size);
void ioapic_write(struct ioapic *io, uint64_t offset, unsigned size,
		  uint32_t value);

/*
 * Drives input pin (0-23): level = the device asserts it (polarity is not
 * applied, as in QEMU). Edge-triggered entries deliver on a rising
 * edge while unmasked; level-triggered ones deliver while asserted and
 * remote IRR is clear, and set remote IRR.
 */
void ioapic_set_pin(struct ioapic *io, unsigned pin, bool level);

/*
 * A local APIC retired level-triggered vector (EOI broadcast, or a write
 * of the EOI register): every level entry with that vector clears remote
 * IRR, and one whose pin is still asserted delivers again.
 */
void ioapic_eoi(struct ioapic *io, uint8_t vector);

#endif
