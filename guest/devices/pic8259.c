// SPDX-License-Identifier: BSD-2-Clause
/*
 * Two cascaded 8259A PICs and the ELCR. "Data sheet" below is the Intel
 * 8259A Programmable Interrupt Controller data sheet; what Linux needs of
 * the model is in arch/x86/kernel/i8259.c (probe_8259A, init_8259A,
 * mask_and_ack_8259A, i8259A_irq_real).
 */
#include "guest/devices/pic8259.h"
#include "lib/string.h"

#define MASTER 0
#define SLAVE 1
#define BIOS_MASTER_BASE 0x08
#define BIOS_SLAVE_BASE 0x70
#define SPURIOUS_IR 7

/* Command port: bit 4 selects ICW1, else bit 3 selects OCW3, else OCW2. */
#define ICW1_IC4 0x01
#define ICW1_SNGL 0x02
#define ICW1_LTIM 0x08
#define ICW1_SELECT 0x10
#define ICW4_AEOI 0x02
#define ICW4_SFNM 0x10
#define OCW3_SELECT 0x08
#define OCW3_RIS 0x01
#define OCW3_RR 0x02
#define OCW3_POLL 0x04
#define OCW3_SMM 0x20
#define OCW3_ESMM 0x40
#define POLL_REQUEST 0x80
#define VECTOR_BASE_MASK 0xf8   /* 8086 mode: ICW2 T7-T3 */

/*
 * ELCR bits that exist (PIIX/ICH): IRQ 0, 1, 2, 8 and 13 are always edge;
 * Linux masks the same bits when it saves the ELCR (save_ELCR).
 */
static const uint8_t elcr_writable[2] = { 0xf8, 0xde };

/* 0x20/0x21 -> master, 0xA0/0xA1 -> slave */
static struct pic_chip *chip_of_port(struct pic *p, uint16_t port)
{
	return &p->chip[(port & 0x80) ? SLAVE : MASTER];
}

static uint8_t level_triggered(const struct pic_chip *c)
{
	return c->ltim ? 0xff : c->elcr;
}

/* Priority 0 (highest) to 7: IR lowest + 1 comes first (rotation). */
static unsigned priority(const struct pic_chip *c, unsigned ir)
{
	return (ir - c->lowest - 1) & 7;
}

static int highest(const struct pic_chip *c, uint8_t bits)
{
	if (!bits)
		return -1;      /* the common case: nothing requested */
	for (unsigned k = 0; k < 8; k++) {
		unsigned ir = (c->lowest + 1 + k) & 7;

		if (bits & (1u << ir))
			return (int)ir;
	}
	return -1;
}

/*
 * The highest-priority unmasked request not held off by an in-service IR
 * of higher or equal priority (fully nested mode). In special mask mode
 * masked in-service IRs hold off nothing; in special fully nested mode the
 * master lets a slave interrupt through while IR2 is in service, so that
 * the slave's own priorities decide (data sheet, "Special Fully Nest Mode").
 */
static int chip_request(const struct pic_chip *c, uint8_t irr, bool master)
{
	int req = highest(c, irr & ~c->imr);
	uint8_t blocking = c->isr;
	int cur;

	if (req < 0)
		return -1;
	if (c->special_mask)
		blocking &= ~c->imr;
	cur = highest(c, blocking);
	if (cur < 0 || priority(c, (unsigned)cur) > priority(c, (unsigned)req))
		return req;
	if (cur == req && master && c->sfnm && req == PIC_CASCADE_IR)
		return req;
	return -1;
}

/*
 * The master's IR2 is the slave's INT output, recomputed rather than
 * latched: a slave request that goes away (masked, level line dropped)
 * withdraws IR2 with it, so the master never picks IR2 for a slave with
 * nothing to give (no spurious IRQ15 by construction).
 */
static bool slave_int(const struct pic *p)
{
	return chip_request(&p->chip[SLAVE], p->chip[SLAVE].irr, false) >= 0;
}

static uint8_t chip_irr(const struct pic *p, unsigned i)
{
	uint8_t cascade = 1u << PIC_CASCADE_IR;

	if (i == SLAVE)
		return p->chip[SLAVE].irr;
	return (uint8_t)((p->chip[MASTER].irr & ~cascade) |
			 (slave_int(p) ? cascade : 0));
}

static bool cascaded(const struct pic_chip *master)
{
	return !master->single && (master->icw3 & (1u << PIC_CASCADE_IR));
}

/*
 * INTA for one chip. A level-triggered request whose line is still high
 * stays in the IRR: the device must drop it before the EOI, or it
 * interrupts again (data sheet, "Edge and level triggered modes").
 */
static void chip_acknowledge(struct pic_chip *c, unsigned ir)
{
	uint8_t bit = 1u << ir;

	c->irr &= ~bit;
	c->irr |= c->lines & level_triggered(c) & bit;
	if (!c->aeoi)
		c->isr |= bit;
	else if (c->rotate_aeoi)
		c->lowest = ir;
}

void pic_init(struct pic *p)
{
	memset(p, 0, sizeof(*p));
	for (unsigned i = MASTER; i <= SLAVE; i++) {
		p->chip[i].imr = 0xff;
		p->chip[i].lowest = SPURIOUS_IR;
		p->chip[i].icw4_needed = true;
	}
	p->chip[MASTER].base = BIOS_MASTER_BASE;
	p->chip[MASTER].icw3 = 1u << PIC_CASCADE_IR;
	p->chip[SLAVE].base = BIOS_SLAVE_BASE;
	p->chip[SLAVE].icw3 = PIC_CASCADE_IR;
}

void pic_set_irq(struct pic *p, unsigned irq, bool level)
{
	struct pic_chip *c;
	uint8_t bit;

	if (irq >= PIC_NR_IRQS || irq == PIC_CASCADE_IR)
		return;
	c = &p->chip[irq / 8];
	bit = 1u << (irq % 8);
	if (level_triggered(c) & bit)
		c->irr = level ? c->irr | bit : c->irr & ~bit;
	else if (level && !(c->lines & bit))
		c->irr |= bit;
	c->lines = level ? c->lines | bit : c->lines & ~bit;
}

int pic_pending_vector(const struct pic *p)
{
	const struct pic_chip *m = &p->chip[MASTER], *s = &p->chip[SLAVE];
	int irq = chip_request(m, chip_irr(p, MASTER), true);

	if (irq < 0)
		return -1;
	if (irq == PIC_CASCADE_IR && cascaded(m))
		return s->base + chip_request(s, s->irr, false);
	return m->base + irq;
}

uint8_t pic_ack(struct pic *p)
{
	struct pic_chip *m = &p->chip[MASTER], *s = &p->chip[SLAVE];
	int irq = chip_request(m, chip_irr(p, MASTER), true);
	int sirq;

	/* Data sheet: with no request at INTA time, an IR7 vector. */
	if (irq < 0)
		return (uint8_t)(m->base + SPURIOUS_IR);
	chip_acknowledge(m, (unsigned)irq);
	if (irq != PIC_CASCADE_IR || !cascaded(m))
		return (uint8_t)(m->base + irq);
	sirq = chip_request(s, s->irr, false);
	chip_acknowledge(s, (unsigned)sirq);
	return (uint8_t)(s->base + sirq);
}

/*
 * Data sheet, ICW1: the edge sense circuit is reset (an edge line already
 * high must fall and rise again), IMR cleared, IR7 lowest priority,
 * special mask mode off, IRR selected for reads, and ICW4's functions
 * zeroed until an ICW4 sets them. This model always answers INTA in 8086
 * mode (ICW4.uPM), the only mode a PC uses.
 */
static void write_icw1(struct pic_chip *c, uint8_t val)
{
	c->ltim = val & ICW1_LTIM;
	c->single = val & ICW1_SNGL;
	c->icw4_needed = val & ICW1_IC4;
	c->irr &= c->lines & level_triggered(c);
	c->isr = 0;
	c->imr = 0;
	c->lowest = SPURIOUS_IR;
	c->special_mask = c->read_isr = c->poll = false;
	c->aeoi = c->sfnm = c->rotate_aeoi = false;
	c->init_step = 2;
}

/* ICW2 (vector base), ICW3 if cascaded, ICW4 if asked for; then OCW1. */
static void write_data(struct pic_chip *c, uint8_t val)
{
	switch (c->init_step) {
	case 2:
		c->base = val & VECTOR_BASE_MASK;
		c->init_step = !c->single ? 3 : c->icw4_needed ? 4 : 0;
		break;
	case 3:
		c->icw3 = val;
		c->init_step = c->icw4_needed ? 4 : 0;
		break;
	case 4:
		c->aeoi = val & ICW4_AEOI;
		c->sfnm = val & ICW4_SFNM;
		c->init_step = 0;
		break;
	default:
		c->imr = val;   /* OCW1 */
	}
}

/*
 * OCW2, by its R, SL, EOI bits (data sheet, Table "OCW2"). A non-specific
 * EOI retires the highest-priority in-service IR; rotation makes the
 * retired (or named) IR the lowest priority.
 */
static void write_ocw2(struct pic_chip *c, uint8_t val)
{
	unsigned named = val & 7;
	int top = highest(c, c->isr);

	switch (val >> 5) {
	case 0:                         /* rotate in AEOI mode: clear */
		c->rotate_aeoi = false;
		break;
	case 4:                         /* rotate in AEOI mode: set */
		c->rotate_aeoi = true;
		break;
	case 1:                         /* non-specific EOI */
	case 5:                         /* rotate on non-specific EOI */
		if (top < 0)
			break;
		c->isr &= ~(1u << top);
		if (val >> 5 == 5)
			c->lowest = (uint8_t)top;
		break;
	case 3:                         /* specific EOI */
	case 7:                         /* rotate on specific EOI */
		c->isr &= ~(1u << named);
		if (val >> 5 == 7)
			c->lowest = named;
		break;
	case 6:                         /* set priority */
		c->lowest = named;
		break;
	default:                        /* 2: no operation */
		break;
	}
}

/* OCW3: register select (RR/RIS), poll (P), special mask (ESMM/SMM). */
static void write_ocw3(struct pic_chip *c, uint8_t val)
{
	if (val & OCW3_POLL)
		c->poll = true;
	if (val & OCW3_RR)
		c->read_isr = val & OCW3_RIS;
	if (val & OCW3_ESMM)
		c->special_mask = val & OCW3_SMM;
}

/* A line made level-triggered requests from now on if it is high. */
static void write_elcr(struct pic_chip *c, uint8_t val, uint8_t writable)
{
	c->elcr = val & writable;
	c->irr |= c->lines & level_triggered(c);
}

void pic_write(struct pic *p, uint16_t port, uint8_t val)
{
	struct pic_chip *c = chip_of_port(p, port);

	if (port == PIC_ELCR_MASTER || port == PIC_ELCR_SLAVE) {
		write_elcr(&p->chip[port - PIC_ELCR_MASTER], val,
			   elcr_writable[port - PIC_ELCR_MASTER]);
		return;
	}
	if (port & 1)
		write_data(c, val);
	else if (val & ICW1_SELECT)
		write_icw1(c, val);
	else if (val & OCW3_SELECT)
		write_ocw3(c, val);
	else
		write_ocw2(c, val);
}

/*
 * Data sheet, "Poll command": the read acts as INTA for this chip alone
 * and returns 0x80 | the IR (or 0 with nothing to acknowledge).
 */
static uint8_t poll(struct pic *p, unsigned i)
{
	struct pic_chip *c = &p->chip[i];
	int ir = chip_request(c, chip_irr(p, i), i == MASTER);

	if (ir < 0)
		return 0;
	chip_acknowledge(c, (unsigned)ir);
	return (uint8_t)(POLL_REQUEST | ir);
}

/* Data port: IMR. Command port: poll word, or IRR/ISR as OCW3 chose. */
uint8_t pic_read(struct pic *p, uint16_t port)
{
	unsigned i = (port & 0x80) ? SLAVE : MASTER;
	struct pic_chip *c = &p->chip[i];

	if (port == PIC_ELCR_MASTER || port == PIC_ELCR_SLAVE)
		return p->chip[port - PIC_ELCR_MASTER].elcr;
	if (port & 1)
		return c->imr;
	if (c->poll) {
		c->poll = false;
		return poll(p, i);
	}
	return c->read_isr ? c->isr : chip_irr(p, i);
}
