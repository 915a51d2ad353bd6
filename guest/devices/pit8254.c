// SPDX-License-Identifier: BSD-2-Clause
/*
 * The 82C54 as a function of time: a counter keeps when it started
 * counting and derives its count, its OUT pin and OUT's rising edges from
 * the PIT clocks elapsed since. Mode behaviour: 82C54 data sheet, "Modes"
 * and figures 10-15; the values read while counting follow QEMU's
 * hw/timer/i8254.c, the reference platform.
 */
#include "guest/devices/pit8254.h"

#define CONTROL_SELECT_SHIFT 6
#define CONTROL_SELECT_READ_BACK 3
#define CONTROL_ACCESS_SHIFT 4
#define CONTROL_MODE_SHIFT 1
#define CONTROL_BCD 0x01
#define READ_BACK_NO_COUNT 0x20
#define READ_BACK_NO_STATUS 0x10
#define STATUS_OUT 0x80
#define STATUS_NULL_COUNT 0x40
#define MAX_COUNT 0x10000u      /* a count of 0 */

/* PIT clocks in the TSC interval [from, to), rounded down. */
static uint64_t pit_ticks(const struct pit *p, uint64_t from, uint64_t to)
{
	uint64_t delta = to > from ? to - from : 0;

	/* Split so that no product overflows 64 bits. */
	return delta / p->tsc_hz * PIT_INPUT_HZ +
	       delta % p->tsc_hz * PIT_INPUT_HZ / p->tsc_hz;
}

/* The TSC cycles until the ticks-th PIT clock, rounded up. */
static uint64_t tsc_cycles(const struct pit *p, uint64_t ticks)
{
	uint64_t part = ticks % PIT_INPUT_HZ * p->tsc_hz;

	return ticks / PIT_INPUT_HZ * p->tsc_hz +
	       (part + PIT_INPUT_HZ - 1) / PIT_INPUT_HZ;
}

static bool periodic(const struct pit_channel *c)
{
	return c->mode == 2 || c->mode == 3;
}

/* Modes 1 and 5 count only after a rising edge on the gate. */
static bool gate_triggered(const struct pit_channel *c)
{
	return c->mode == 1 || c->mode == 5;
}

static uint64_t elapsed(const struct pit *p, const struct pit_channel *c,
			uint64_t now)
{
	if (!c->running)
		return c->ticks_before;
	return c->ticks_before + pit_ticks(p, c->run_tsc, now);
}

static uint64_t tsc_at_elapsed(const struct pit *p,
			       const struct pit_channel *c, uint64_t ticks)
{
	return c->run_tsc + tsc_cycles(p, ticks - c->ticks_before);
}

/* Rising edges of OUT after counting ticks clocks. */
static uint64_t rising_edges(const struct pit_channel *c, uint64_t ticks)
{
	switch (c->mode) {
	case 0:
	case 1:
		return ticks >= c->count;
	case 2:
	case 3:
		return ticks / c->count;
	default:        /* 4, 5: one clock low at the terminal count */
		return ticks > c->count;
	}
}

/* The counting tick of the next rising edge, or UINT64_MAX. */
static uint64_t next_edge_tick(const struct pit_channel *c)
{
	if (periodic(c))
		return (c->edges_seen + 1) * c->count;
	if (c->edges_seen)
		return UINT64_MAX;
	return c->mode <= 1 ? c->count : c->count + 1;
}

static void restart(struct pit_channel *c, uint64_t now)
{
	c->run_tsc = now;
	c->ticks_before = 0;
	c->edges_seen = 0;
	c->running = true;
}

static void note_edges(struct pit_channel *c, uint64_t ticks)
{
	uint64_t edges = rising_edges(c, ticks);

	if (edges <= c->edges_seen)
		return;
	c->edges_merged += edges - c->edges_seen - (c->edge_pending ? 0 : 1);
	c->edge_pending = true;
	c->edges_seen = edges;
}

/*
 * Brings counter c up to time now: a count written in modes 2 and 3
 * loads at the end of the period it was written in, and OUT's rising
 * edges since the last call are noted.
 */
static void sync(const struct pit *p, struct pit_channel *c, uint64_t now)
{
	if (!c->running)
		return;
	if (c->reload_pending && periodic(c) &&
	    elapsed(p, c, now) >= c->reload_at) {
		note_edges(c, c->reload_at);
		c->run_tsc = tsc_at_elapsed(p, c, c->reload_at);
		c->ticks_before = 0;
		c->edges_seen = 0;
		c->count = c->reload_count;
		c->reload_pending = false;
	}
	note_edges(c, elapsed(p, c, now));
}

static void channel_reset(struct pit_channel *c, uint8_t mode)
{
	c->mode = mode;
	c->armed = false;
	c->running = false;
	c->reload_pending = false;
	c->count_latched = false;
	c->status_latched = false;
	c->write_high_next = false;
	c->read_high_next = false;
	c->ticks_before = 0;
	c->edges_seen = 0;
}

void pit_init(struct pit *p, uint64_t tsc_hz)
{
	for (unsigned n = 0; n < PIT_CHANNELS; n++) {
		struct pit_channel *c = &p->ch[n];

		channel_reset(c, 3);
		c->access = PIT_ACCESS_WORD;
		c->bcd = false;
		c->count = MAX_COUNT;
		c->gate = n != PIT_SPEAKER_CHANNEL;
		c->edge_pending = false;
		c->edges_merged = 0;
		c->written_tsc = 0;
		c->run_tsc = 0;
		c->reload_count = MAX_COUNT;
		c->reload_at = 0;
		c->write_low = 0;
		c->latched_count = 0;
		c->latched_status = 0;
	}
	p->tsc_hz = tsc_hz ? tsc_hz : 1;
	p->min_edge_gap = p->tsc_hz / (1000000 / PIT_PERIOD_MIN_US);
	p->last_edge_tsc = 0;
	p->irq0_edges = 0;
	p->irq0_edges_held = 0;
}

/* The earliest TSC at which the next edge may be reported. */
static uint64_t next_edge_allowed(const struct pit *p)
{
	return p->irq0_edges ? p->last_edge_tsc + p->min_edge_gap : 0;
}

static bool out_level(const struct pit *p, const struct pit_channel *c,
		      uint64_t now)
{
	uint64_t t;

	if (!c->armed)
		return c->mode != 0;    /* a mode 0 control word drives OUT low */
	if (!c->running && (periodic(c) || gate_triggered(c)))
		return true;            /* gate low, or waiting for a trigger */
	t = elapsed(p, c, now);
	switch (c->mode) {
	case 0:
	case 1:
		return t >= c->count;
	case 2:
		return c->count == 1 || t % c->count != c->count - 1;
	case 3:
		return t % c->count < (c->count + 1) / 2;
	default:
		return t != c->count;
	}
}

static uint16_t count_now(const struct pit *p, const struct pit_channel *c,
			  uint64_t now)
{
	uint64_t t;

	if (!c->armed || (!c->running && gate_triggered(c)))
		return (uint16_t)c->count;
	t = elapsed(p, c, now);
	switch (c->mode) {
	case 2:
		return (uint16_t)(c->count - t % c->count);
	case 3:
		/* Two per clock; QEMU computes odd counts this way too. */
		return (uint16_t)(c->count - 2 * t % c->count);
	default:
		/* Modes 0, 1, 4, 5 wrap past zero and keep counting. */
		return (uint16_t)(c->count - t);
	}
}

/* Null count: a count was written and has not reached the counter yet. */
static bool null_count(const struct pit *p, const struct pit_channel *c,
		       uint64_t now)
{
	return !c->armed || c->reload_pending ||
	       (!c->running && gate_triggered(c)) ||
	       pit_ticks(p, c->written_tsc, now) < 1;
}

static void latch_count(const struct pit *p, struct pit_channel *c,
			uint64_t now)
{
	/* A second latch before the first was read is ignored. */
	if (c->count_latched)
		return;
	c->latched_count = count_now(p, c, now);
	c->count_latched = true;
}

static void latch_status(const struct pit *p, struct pit_channel *c,
			 uint64_t now)
{
	if (c->status_latched)
		return;
	c->latched_status = (uint8_t)((out_level(p, c, now) ? STATUS_OUT : 0) |
		(null_count(p, c, now) ? STATUS_NULL_COUNT : 0) |
		c->access << CONTROL_ACCESS_SHIFT |
		c->mode << CONTROL_MODE_SHIFT | (c->bcd ? CONTROL_BCD : 0));
	c->status_latched = true;
}

/* One byte of value as the access mode and the read flip-flop say. */
static uint8_t read_byte(struct pit_channel *c, uint16_t value, bool *done)
{
	bool high = c->access == PIT_ACCESS_HIBYTE ||
		    (c->access == PIT_ACCESS_WORD && c->read_high_next);

	if (c->access == PIT_ACCESS_WORD)
		c->read_high_next = !c->read_high_next;
	*done = c->access != PIT_ACCESS_WORD || !c->read_high_next;
	return high ? (uint8_t)(value >> 8) : (uint8_t)value;
}

uint8_t pit_read(struct pit *p, uint16_t port, uint64_t now)
{
	struct pit_channel *c;
	bool done;
	uint8_t byte;

	/* The control word register is write-only; QEMU's reads as 0. */
	if (port == PIT_CONTROL_PORT)
		return 0;
	c = &p->ch[port - PIT_CHANNEL0_PORT];
	sync(p, c, now);
	/* A latched status is read first, then a latched count. */
	if (c->status_latched) {
		c->status_latched = false;
		return c->latched_status;
	}
	if (c->count_latched) {
		byte = read_byte(c, c->latched_count, &done);
		if (done)
			c->count_latched = false;
		return byte;
	}
	return read_byte(c, count_now(p, c, now), &done);
}

static void load_count(struct pit *p, struct pit_channel *c, uint32_t count,
		       uint64_t now)
{
	if (!count)
		count = MAX_COUNT;
	c->written_tsc = now;
	/*
	 * While counting, a new count waits: for the end of the period in
	 * modes 2 and 3, for the next trigger in modes 1 and 5.
	 */
	if (c->armed && c->running && (periodic(c) || gate_triggered(c))) {
		c->reload_pending = true;
		c->reload_count = count;
		c->reload_at = periodic(c) ? (elapsed(p, c, now) / c->count + 1) *
						     c->count
					   : UINT64_MAX;
		return;
	}
	c->count = count;
	c->armed = true;
	c->reload_pending = false;
	restart(c, now);
	c->running = !gate_triggered(c) && c->gate;
}

static void write_count(struct pit *p, struct pit_channel *c, uint8_t val,
			uint64_t now)
{
	switch (c->access) {
	case PIT_ACCESS_LOBYTE:
		load_count(p, c, val, now);
		break;
	case PIT_ACCESS_HIBYTE:
		load_count(p, c, (uint32_t)val << 8, now);
		break;
	default:
		if (!c->write_high_next) {
			c->write_low = val;
			c->write_high_next = true;
		} else {
			c->write_high_next = false;
			load_count(p, c, c->write_low | (uint32_t)val << 8,
				   now);
		}
	}
}

static void read_back(struct pit *p, uint8_t val, uint64_t now)
{
	for (unsigned n = 0; n < PIT_CHANNELS; n++) {
		struct pit_channel *c = &p->ch[n];

		if (!(val & (2u << n)))
			continue;
		sync(p, c, now);
		if (!(val & READ_BACK_NO_COUNT))
			latch_count(p, c, now);
		if (!(val & READ_BACK_NO_STATUS))
			latch_status(p, c, now);
	}
}

static void write_control(struct pit *p, uint8_t val, uint64_t now)
{
	unsigned select = val >> CONTROL_SELECT_SHIFT;
	unsigned access = (val >> CONTROL_ACCESS_SHIFT) & 3;
	unsigned mode = (val >> CONTROL_MODE_SHIFT) & 7;
	struct pit_channel *c;

	if (select == CONTROL_SELECT_READ_BACK) {
		read_back(p, val, now);
		return;
	}
	c = &p->ch[select];
	sync(p, c, now);
	if (access == PIT_ACCESS_LATCH) {
		latch_count(p, c, now);
		return;
	}
	channel_reset(c, (uint8_t)(mode > 5 ? mode - 4 : mode));
	c->access = (uint8_t)access;
	c->bcd = val & CONTROL_BCD;
	c->written_tsc = now;
}

void pit_write(struct pit *p, uint16_t port, uint8_t val, uint64_t now)
{
	if (port == PIT_CONTROL_PORT)
		write_control(p, val, now);
	else
		write_count(p, &p->ch[port - PIT_CHANNEL0_PORT], val, now);
}

static void gate_rises(struct pit_channel *c, uint64_t now)
{
	if (gate_triggered(c) || periodic(c)) {
		/* Modes 1, 2, 3, 5 (re)start with the count register. */
		if (c->reload_pending) {
			c->count = c->reload_count;
			c->reload_pending = false;
		}
		restart(c, now);
	} else if (!c->running) {
		/* Modes 0 and 4 go on from where the gate stopped them. */
		c->run_tsc = now;
		c->running = true;
	}
}

static void gate_falls(const struct pit *p, struct pit_channel *c,
		       uint64_t now)
{
	/* Modes 1 and 5 ignore a low gate once triggered. */
	if (gate_triggered(c) || !c->running)
		return;
	c->ticks_before = elapsed(p, c, now);
	c->running = false;
}

void pit_set_gate(struct pit *p, unsigned n, bool level, uint64_t now)
{
	struct pit_channel *c = &p->ch[n];

	sync(p, c, now);
	if (c->armed && level && !c->gate)
		gate_rises(c, now);
	else if (c->armed && !level && c->gate)
		gate_falls(p, c, now);
	c->gate = level;
}

bool pit_gate(const struct pit *p, unsigned n)
{
	return p->ch[n].gate;
}

bool pit_out(struct pit *p, unsigned n, uint64_t now)
{
	sync(p, &p->ch[n], now);
	return out_level(p, &p->ch[n], now);
}

bool pit_take_irq0_edge(struct pit *p, uint64_t now)
{
	struct pit_channel *c = &p->ch[0];
	bool edge;

	sync(p, c, now);
	edge = c->edge_pending;
	if (!edge)
		return false;
	if (now < next_edge_allowed(p)) {
		p->irq0_edges_held++;   /* stays pending until allowed */
		return false;
	}
	c->edge_pending = false;
	p->irq0_edges++;
	p->last_edge_tsc = now;
	return true;
}

uint64_t pit_irq0_deadline(struct pit *p, uint64_t now)
{
	struct pit_channel *c = &p->ch[0];
	uint64_t tick;

	sync(p, c, now);
	if (c->edge_pending)
		return MAX(now, next_edge_allowed(p));
	if (!c->armed || !c->running)
		return UINT64_MAX;
	tick = next_edge_tick(c);
	return tick == UINT64_MAX ? UINT64_MAX :
	       MAX(tsc_at_elapsed(p, c, tick), next_edge_allowed(p));
}
