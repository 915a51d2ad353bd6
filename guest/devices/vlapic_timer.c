// SPDX-License-Identifier: BSD-2-Clause
/*
 * The local APIC timer. Section numbers are those of the Intel SDM
 * Vol. 3A, chapter 11. The hypervisor owns time: every entry point takes
 * the host's current TSC value, and tsc_deadline is in host time too
 * (guest/msr.c converts IA32_TSC_DEADLINE with the vCPU's TSC offset).
 */
#include "guest/devices/vlapic_timer.h"

#define MAX_TSC_PER_TICK (1ull << 20) /* keeps count * divisor * it < 2^63 */

/* round(tsc_hz / 25 MHz), without overflowing for any tsc_hz */
uint64_t vlapic_timer_tsc_per_tick(uint64_t tsc_hz)
{
	uint64_t n = VLAPIC_TIMER_NOMINAL_HZ;
	uint64_t r = tsc_hz / n + (tsc_hz % n >= n / 2);

	return MIN(MAX(r, 1ull), MAX_TSC_PER_TICK);
}

unsigned vlapic_timer_mode(const struct vlapic *a)
{
	return (a->lvt[VLAPIC_LVT_TIMER] >> VLAPIC_TIMER_MODE_SHIFT) & 3;
}

/* Figure 11-10: DCR bits 3,1,0 = 000 -> /2 ... 110 -> /128, 111 -> /1. */
static uint64_t tsc_per_count(const struct vlapic *a)
{
	uint32_t code = ((a->dcr & 8) >> 1) | (a->dcr & 3);

	return a->tsc_per_tick << ((code + 1) & 7);
}

/*
 * A periodic timer fires at most every VLAPIC_PERIOD_MIN_US, as KVM's
 * (min_timer_period_us): a guest asking for a period of a few cycles would
 * otherwise spend the host CPU in timer exits and never get past its
 * interrupt handler.
 */
static uint64_t min_period(const struct vlapic *a)
{
	return a->tsc_hz / (1000000 / VLAPIC_PERIOD_MIN_US);
}

static void timer_arm(struct vlapic *a, uint64_t now, uint32_t count)
{
	uint64_t first = (uint64_t)count * tsc_per_count(a);

	a->timer_period = (uint64_t)a->initial_count * tsc_per_count(a);
	if (vlapic_timer_mode(a) == VLAPIC_TIMER_PERIODIC && count &&
	    a->timer_period < min_period(a)) {
		a->timer_period = min_period(a);
		first = MAX(first, min_period(a));
		a->periods_raised++;
	}
	a->timer_next = now + first;
	a->timer_armed = count != 0;
}

void vlapic_timer_disarm(struct vlapic *a)
{
	a->timer_armed = false;
	a->tsc_deadline = 0;
}

void vlapic_timer_mode_changed(struct vlapic *a, unsigned old_mode)
{
	if (old_mode == VLAPIC_TIMER_TSC_DEADLINE ||
	    vlapic_timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE) {
		vlapic_timer_disarm(a);
		a->initial_count = 0;
		return;
	}
	/* One-shot <-> periodic: the period, raised if periodic and short. */
	a->timer_period = (uint64_t)a->initial_count * tsc_per_count(a);
	if (vlapic_timer_mode(a) == VLAPIC_TIMER_PERIODIC &&
	    a->initial_count && a->timer_period < min_period(a)) {
		a->timer_period = min_period(a);
		a->periods_raised++;
	}
}

/*
 * The count drops by one every tsc_per_count() cycles, so it is the number
 * of (partial) counts left before timer_next. A periodic timer whose
 * expiry has not been processed yet has already reloaded.
 */
uint32_t vlapic_timer_current_count(const struct vlapic *a, uint64_t now)
{
	uint64_t per = tsc_per_count(a), left;

	if (!a->timer_armed ||
	    vlapic_timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
		return 0;
	if (now < a->timer_next)
		left = a->timer_next - now;
	else if (vlapic_timer_mode(a) == VLAPIC_TIMER_PERIODIC)
		left = a->timer_period -
		       (now - a->timer_next) % a->timer_period;
	else
		return 0;
	/* A raised period counts down from the initial count, no more. */
	return (uint32_t)MIN((left + per - 1) / per, a->initial_count);
}

uint64_t vlapic_timer_deadline(const struct vlapic *a)
{
	if (vlapic_timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
		return a->tsc_deadline ? a->tsc_deadline : UINT64_MAX;
	return a->timer_armed ? a->timer_next : UINT64_MAX;
}

/* A locally generated interrupt (11.5.1); a masked entry does nothing. */
static void fire(struct vlapic *a)
{
	uint32_t lvt = a->lvt[VLAPIC_LVT_TIMER];

	if (!(lvt & VLAPIC_LVT_MASKED))
		vlapic_accept(a, lvt & 0xff);
}

/*
 * A periodic timer reloads from the expiry time, not from now, so late
 * checks do not make it drift; periods missed entirely coalesce into one
 * interrupt (the IRR holds one bit per vector anyway). 11.5.4.1: a
 * TSC-deadline expiry disarms and clears IA32_TSC_DEADLINE.
 */
void vlapic_timer_check(struct vlapic *a, uint64_t now)
{
	unsigned mode = vlapic_timer_mode(a);

	if (mode == VLAPIC_TIMER_TSC_DEADLINE) {
		if (!a->tsc_deadline || now < a->tsc_deadline)
			return;
		a->tsc_deadline = 0;
	} else {
		if (!a->timer_armed || now < a->timer_next)
			return;
		if (mode == VLAPIC_TIMER_PERIODIC)
			a->timer_next += ((now - a->timer_next) /
					  a->timer_period + 1) *
					 a->timer_period;
		else
			a->timer_armed = false;
	}
	fire(a);
}

/* 11.5.4: a new initial count restarts the count; 0 stops the timer.
 * 11.5.4.1: in TSC-deadline mode the write is ignored. */
void vlapic_timer_write_initial_count(struct vlapic *a, uint32_t val,
				      uint64_t now)
{
	if (vlapic_timer_mode(a) == VLAPIC_TIMER_TSC_DEADLINE)
		return;
	a->initial_count = val;
	timer_arm(a, now, val);
}

/* A new divisor applies from now on to what is left of the count. */
void vlapic_timer_write_dcr(struct vlapic *a, uint32_t dcr, uint64_t now)
{
	uint32_t left = vlapic_timer_current_count(a, now);

	a->dcr = dcr;
	if (a->timer_armed &&
	    vlapic_timer_mode(a) != VLAPIC_TIMER_TSC_DEADLINE)
		timer_arm(a, now, left);
}

/* 11.5.4.1: in other modes IA32_TSC_DEADLINE reads 0 and ignores writes;
 * a deadline already reached fires at once. */
void vlapic_timer_write_tsc_deadline(struct vlapic *a, uint64_t val,
				     uint64_t now)
{
	if (vlapic_timer_mode(a) != VLAPIC_TIMER_TSC_DEADLINE)
		return;
	a->tsc_deadline = val;
	vlapic_timer_check(a, now);
}
