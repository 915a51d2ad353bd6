/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's legacy interrupt controller: two cascaded 8259A PICs, the
 * master at 0x20/0x21, the slave at 0xA0/0xA1 wired to the master's IR2,
 * plus the edge/level control registers (ELCR) at 0x4D0/0x4D1 of PC
 * chipsets. Pure C: the hypervisor forwards port I/O, drives the IRQ lines
 * with pic_set_irq(), and when pic_pending_vector() is not -1 and the
 * LAPIC passes it (vlapic_accepts_pic_interrupts), injects pic_ack()'s
 * vector. Register semantics: Intel 8259A data sheet (order no. 231468).
 *
 * Reset state: both chips initialized as a PC BIOS leaves them (master
 * vectors 0x08-0x0F, slave 0x70-0x77, slave on IR2, 8086 mode, normal EOI),
 * every IRQ masked, every line edge-triggered. Linux reprograms them
 * (arch/x86/kernel/i8259.c: init_8259A), but probes them first with
 * OCW1 writes that only a chip outside its ICW sequence answers.
 */
#ifndef GUEST_PIC8259_H
#define GUEST_PIC8259_H

#include "lib/types.h"

#define PIC_MASTER_CMD 0x20
#define PIC_MASTER_DATA 0x21
#define PIC_SLAVE_CMD 0xa0
#define PIC_SLAVE_DATA 0xa1
#define PIC_ELCR_MASTER 0x4d0
#define PIC_ELCR_SLAVE 0x4d1
#define PIC_CASCADE_IR 2
#define PIC_NR_IRQS 16

struct pic_chip {
	uint8_t irr, isr, imr;
	uint8_t lines;          /* input levels, to see rising edges */
	uint8_t elcr;           /* 1 = level-triggered (ELCR) */
	uint8_t base;           /* ICW2: vector of IR0 */
	uint8_t icw3;           /* master: IRs with a slave; slave: its ID */
	uint8_t init_step;      /* 0, or the ICW (2, 3, 4) expected next */
	uint8_t lowest;         /* the IR of lowest priority (rotation) */
	bool single, icw4_needed, ltim;
	bool aeoi, sfnm, rotate_aeoi;
	bool read_isr, poll, special_mask;
};

struct pic {
	struct pic_chip chip[2];        /* master, slave */
};

void pic_init(struct pic *p);

static inline bool pic_owns_port(uint16_t port)
{
	return port == PIC_MASTER_CMD || port == PIC_MASTER_DATA ||
	       port == PIC_SLAVE_CMD || port == PIC_SLAVE_DATA ||
	       port == PIC_ELCR_MASTER || port == PIC_ELCR_SLAVE;
}

/* Not const: a read after an OCW3 poll command acknowledges. */
uint8_t pic_read(struct pic *p, uint16_t port);
void pic_write(struct pic *p, uint16_t port, uint8_t val);

/*
 * Drives ISA IRQ line irq (0-15). Edge-triggered lines latch a request on
 * a rising edge and keep it when the line falls before the acknowledge (as
 * PC chipsets do); level-triggered ones (ELCR, or ICW1.LTIM) request while
 * high. IRQ 2 is the cascade wire, not a line: it is ignored.
 */
void pic_set_irq(struct pic *p, unsigned irq, bool level);
/* The vector an INTA cycle would return now, or -1 if INTR is low. */
int pic_pending_vector(const struct pic *p);
/*
 * The INTA cycle: IRR -> ISR (not in AEOI mode) on the master, and on the
 * slave when the master picks IR2, and returns the vector. With no request
 * the master answers with its IR7 vector and sets nothing (the "spurious
 * IRQ7" of the data sheet, which Linux checks for in mask_and_ack_8259A).
 */
uint8_t pic_ack(struct pic *p);

#endif
