// SPDX-License-Identifier: BSD-2-Clause
/*
 * The 82093AA I/O APIC (see guest/devices/ioapic.h). Behaviour where the datasheet
 * leaves room follows QEMU's hw/intc/ioapic.c: ID and ARB read the same,
 * IOWIN and EOI take 4-byte accesses only, an edge request on a masked pin
 * is dropped, an entry switched to edge loses its remote IRR (Linux
 * clears a stuck remote IRR that way: io_apic.c __eoi_ioapic_pin), and the
 * polarity bit is kept but not applied: a pin's level is whether its
 * device asserts it (QEMU and KVM do the same; ISA IRQs are active high,
 * so a guest that asks for active low would only get an interrupt storm).
 */
#include "guest/devices/ioapic.h"

#define ID_MASK 0x0f            /* 82093AA: a 4-bit APIC ID */

static uint32_t pin_bit(unsigned pin)
{
	return 1u << pin;
}

void ioapic_init(struct ioapic *io, ioapic_deliver_fn deliver, void *ctx)
{
	*io = (struct ioapic){ .deliver = deliver, .deliver_ctx = ctx };
	for (unsigned i = 0; i < IOAPIC_PINS; i++)
		io->redirection[i] = IOAPIC_RTE_MASKED;
}

static struct ioapic_message message_of(uint64_t rte, unsigned pin)
{
	return (struct ioapic_message){
		.vector = (uint8_t)(rte & IOAPIC_RTE_VECTOR_MASK),
		.delivery = (enum ioapic_delivery)((rte &
			IOAPIC_RTE_DELIVERY_MASK) >> IOAPIC_RTE_DELIVERY_SHIFT),
		.logical = rte & IOAPIC_RTE_LOGICAL,
		.level = rte & IOAPIC_RTE_LEVEL,
		.dest = (uint8_t)(rte >> IOAPIC_RTE_DEST_SHIFT),
		.pin = pin,
	};
}

/* Sends what the pending pins ask for (QEMU: ioapic_service). */
static void service(struct ioapic *io)
{
	/* Only the pending pins: this runs on every UART register access. */
	for (uint32_t todo = io->pending; todo; todo &= todo - 1) {
		unsigned pin = (unsigned)__builtin_ctz(todo);
		uint64_t *rte = &io->redirection[pin];
		struct ioapic_message m;

		if (*rte & IOAPIC_RTE_MASKED)
			continue;
		if (*rte & IOAPIC_RTE_LEVEL) {
			if (*rte & IOAPIC_RTE_REMOTE_IRR)
				continue;       /* the last one is in service */
			*rte |= IOAPIC_RTE_REMOTE_IRR;
		} else {
			io->pending &= ~pin_bit(pin);
		}
		m = message_of(*rte, pin);
		io->messages++;
		if (io->deliver)
			io->deliver(io->deliver_ctx, &m);
	}
}

static uint32_t read_register(const struct ioapic *io)
{
	unsigned reg = io->ioregsel, pin;

	switch (reg) {
	case IOAPIC_REG_ID:
	case IOAPIC_REG_ARB:
		return (uint32_t)io->id << IOAPIC_ID_SHIFT;
	case IOAPIC_REG_VER:
		return IOAPIC_VERSION |
		       ((IOAPIC_PINS - 1) << IOAPIC_VER_ENTRIES_SHIFT);
	}
	if (reg < IOAPIC_REG_REDTBL)
		return 0;
	pin = (reg - IOAPIC_REG_REDTBL) / 2;
	if (pin >= IOAPIC_PINS)
		return 0;
	return (uint32_t)(io->redirection[pin] >> (reg & 1 ? 32 : 0));
}

static void write_redirection(struct ioapic *io, unsigned pin, bool high,
			      uint32_t value)
{
	uint64_t *rte = &io->redirection[pin];
	uint64_t kept = *rte & IOAPIC_RTE_READ_ONLY;
	uint64_t v = high ? (*rte & 0xffffffffull) | (uint64_t)value << 32
			  : (*rte & ~0xffffffffull) | value;

	*rte = (v & ~IOAPIC_RTE_READ_ONLY) | kept;
	if (!(*rte & IOAPIC_RTE_LEVEL))
		*rte &= ~IOAPIC_RTE_REMOTE_IRR;
	/* A level pin that is asserted asks again (an unmask delivers it). */
	if ((*rte & IOAPIC_RTE_LEVEL) && (io->lines & pin_bit(pin)))
		io->pending |= pin_bit(pin);
	service(io);
}

static void write_register(struct ioapic *io, uint32_t value)
{
	unsigned reg = io->ioregsel;

	if (reg == IOAPIC_REG_ID) {
		io->id = (value >> IOAPIC_ID_SHIFT) & ID_MASK;
		return;
	}
	if (reg < IOAPIC_REG_REDTBL ||
	    (reg - IOAPIC_REG_REDTBL) / 2 >= IOAPIC_PINS)
		return;         /* VER, ARB: read-only; the rest: nothing */
	write_redirection(io, (reg - IOAPIC_REG_REDTBL) / 2, reg & 1, value);
}

uint32_t ioapic_read(const struct ioapic *io, uint64_t offset, unsigned size)
{
	switch (offset & 0xff) {
	case IOAPIC_IOREGSEL:
		return io->ioregsel;
	case IOAPIC_IOWIN:
		return size == 4 ? read_register(io) : 0;
	default:
		return 0;
	}
}

void ioapic_write(struct ioapic *io, uint64_t offset, unsigned size,
		  uint32_t value)
{
	switch (offset & 0xff) {
	case IOAPIC_IOREGSEL:
		io->ioregsel = (uint8_t)value;
		break;
	case IOAPIC_IOWIN:
		if (size == 4)
			write_register(io, value);
		break;
	case IOAPIC_EOI:
		if (size == 4)
			ioapic_eoi(io, (uint8_t)value);
		break;
	}
}

void ioapic_set_pin(struct ioapic *io, unsigned pin, bool level)
{
	uint64_t rte;
	bool was;

	if (pin >= IOAPIC_PINS)
		return;
	rte = io->redirection[pin];
	was = io->lines & pin_bit(pin);
	if (level == was)
		return;         /* a line held where it was changes nothing */
	if (level)
		io->lines |= pin_bit(pin);
	else
		io->lines &= ~pin_bit(pin);
	if (rte & IOAPIC_RTE_LEVEL) {
		if (level)
			io->pending |= pin_bit(pin);
		else
			io->pending &= ~pin_bit(pin);
	} else if (level && !was && !(rte & IOAPIC_RTE_MASKED)) {
		io->pending |= pin_bit(pin);
	}
	service(io);
}

void ioapic_eoi(struct ioapic *io, uint8_t vector)
{
	for (unsigned pin = 0; pin < IOAPIC_PINS; pin++) {
		uint64_t *rte = &io->redirection[pin];

		if ((*rte & IOAPIC_RTE_VECTOR_MASK) != vector ||
		    !(*rte & IOAPIC_RTE_LEVEL))
			continue;
		*rte &= ~IOAPIC_RTE_REMOTE_IRR;
	}
	service(io);
}
