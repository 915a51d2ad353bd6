/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local APIC timer (SDM Vol. 3A 11.5.4): one-shot, periodic and
 * TSC-deadline modes over the register state of struct vlapic. Used by
 * guest/devices/vlapic.c only, which checks the values' reserved bits first;
 * vlapic_timer_deadline() and vlapic_timer_check() are public (vlapic.h).
 */
#ifndef GUEST_VLAPIC_TIMER_H
#define GUEST_VLAPIC_TIMER_H

#include "guest/devices/vlapic.h"

/* TSC cycles per tick of the timer clock for a TSC of tsc_hz. */
uint64_t vlapic_timer_tsc_per_tick(uint64_t tsc_hz);
/* The LVT timer's mode field (VLAPIC_TIMER_*). */
unsigned vlapic_timer_mode(const struct vlapic *a);
uint32_t vlapic_timer_current_count(const struct vlapic *a, uint64_t now);
void vlapic_timer_write_initial_count(struct vlapic *a, uint32_t val,
				      uint64_t now);
void vlapic_timer_write_dcr(struct vlapic *a, uint32_t dcr, uint64_t now);
void vlapic_timer_write_tsc_deadline(struct vlapic *a, uint64_t val,
				     uint64_t now);
/* A write to the LVT timer entry changed the mode: the timer stops. */
void vlapic_timer_disarm(struct vlapic *a);
/* The LVT timer's mode changed from old_mode (see write_lvt). */
void vlapic_timer_mode_changed(struct vlapic *a, unsigned old_mode);

#endif
