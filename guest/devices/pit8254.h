/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's programmable interval timer: an Intel 82C54 at 0x40-0x43
 * (three 16-bit counters clocked at 1.193182 MHz and their control word
 * register), as on every PC and in QEMU's "pc" machine. Pure C: every call
 * gets the current TSC, and the counters are computed from it (nothing
 * ticks in the background). Counter 0's OUT is ISA IRQ 0: the caller asks
 * pit_take_irq0_edge() after each access and each interrupt poll, and
 * pit_irq0_deadline() tells when to poll next. Counter 2's gate and OUT
 * are bits of port 0x61 (guest/devices/port61.c).
 *
 * Emulated: modes 0-5 (6 and 7 are 2 and 3), the three access modes, the
 * counter latch and read-back commands (count and status, with OUT and
 * the null-count bit), the gate in every mode, a count written in modes 2
 * and 3 taking effect at the end of the current period (82C54 data sheet,
 * order no. 231244). Not emulated: BCD counting (the BCD bit is kept and
 * reported in the status byte, the count runs in binary, as QEMU's
 * hw/timer/i8254.c does); odd counts in mode 3 use equal half periods.
 */
#ifndef GUEST_PIT8254_H
#define GUEST_PIT8254_H

#include "lib/types.h"

#define PIT_INPUT_HZ 1193182ull
#define PIT_CHANNEL0_PORT 0x40
#define PIT_CONTROL_PORT 0x43
#define PIT_CHANNELS 3
#define PIT_IRQ 0
#define PIT_SPEAKER_CHANNEL 2

/* Access modes (control word bits 5-4). */
enum pit_access {
	PIT_ACCESS_LATCH = 0,
	PIT_ACCESS_LOBYTE = 1,
	PIT_ACCESS_HIBYTE = 2,
	PIT_ACCESS_WORD = 3,    /* low byte, then high byte */
};

struct pit_channel {
	uint8_t mode;           /* 0-5 */
	uint8_t access;         /* enum pit_access */
	bool bcd;
	bool gate;
	uint32_t count;         /* the running count's initial value, 1-65536 */
	uint8_t write_low;      /* low byte of a word write, when one waits */
	bool write_high_next;   /* word access: the next write is the MSB */
	bool read_high_next;    /* word access: the next read is the MSB */
	bool count_latched, status_latched;
	uint16_t latched_count;
	uint8_t latched_status;
	/*
	 * armed: a count was written since the control word. running: the
	 * counter counts (armed, gate allows, and in modes 1 and 5 a gate
	 * trigger came). Counting time: ticks_before plus the PIT clocks
	 * since run_tsc while running.
	 */
	bool armed, running;
	uint64_t written_tsc;   /* when the count was written (null count) */
	uint64_t run_tsc;
	uint64_t ticks_before;
	/* Modes 2 and 3: a count written during a period, and when it loads. */
	bool reload_pending;
	uint32_t reload_count;
	uint64_t reload_at;     /* in counting ticks */
	uint64_t edges_seen;    /* rising edges of OUT counted since the load */
	bool edge_pending;      /* counter 0: an IRQ 0 edge not yet taken */
	uint64_t edges_merged;  /* rising edges folded into a pending one */
};

/*
 * The shortest time between two IRQ 0 edges handed to the interrupt
 * controllers, as KVM's min_timer_period_us holds its i8254 and the LAPIC
 * timer (VLAPIC_PERIOD_MIN_US): a count of 1 (838 ns) would otherwise
 * keep a vCPU in timer exits.
 */
#define PIT_PERIOD_MIN_US 200

struct pit {
	struct pit_channel ch[PIT_CHANNELS];
	uint64_t tsc_hz;
	uint64_t min_edge_gap;  /* PIT_PERIOD_MIN_US in TSC cycles */
	uint64_t last_edge_tsc; /* when the last edge was reported */
	uint64_t irq0_edges;    /* edges pit_take_irq0_edge reported */
	uint64_t irq0_edges_held; /* reported later for the minimum gap */
};

/* Power-on state as QEMU leaves it: mode 3, no count, gate 2 low. */
void pit_init(struct pit *p, uint64_t tsc_hz);

static inline bool pit_owns_port(uint16_t port)
{
	return port >= PIT_CHANNEL0_PORT && port <= PIT_CONTROL_PORT;
}

uint8_t pit_read(struct pit *p, uint16_t port, uint64_t now);
void pit_write(struct pit *p, uint16_t port, uint8_t val, uint64_t now);

/* Counter n's gate input (counters 0 and 1 have theirs tied high). */
void pit_set_gate(struct pit *p, unsigned n, bool level, uint64_t now);
bool pit_gate(const struct pit *p, unsigned n);
/* Counter n's OUT pin at time now. */
bool pit_out(struct pit *p, unsigned n, uint64_t now);

/*
 * True once for every rising edge of counter 0's OUT up to now. Lost
 * ticks are not queued: when several periods went by since the last call
 * (the vCPU was busy, interrupts were off for a long time), this reports
 * one edge, as an 8259 would latch one request, and as QEMU's "discard"
 * lost-tick policy does; a guest that counts ticks to keep time falls
 * behind instead of seeing a burst of thousands of interrupts.
 */
bool pit_take_irq0_edge(struct pit *p, uint64_t now);
/*
 * TSC at which pit_take_irq0_edge() has an edge next (UINT64_MAX: never):
 * counter 0's next rising edge, but never sooner than PIT_PERIOD_MIN_US
 * after the last one reported.
 */
uint64_t pit_irq0_deadline(struct pit *p, uint64_t now);

#endif
