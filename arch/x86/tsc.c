// SPDX-License-Identifier: BSD-2-Clause
/*
 * The hardware behind tsc_choose_hz: CPUID, and TSC intervals timed by the
 * ACPI PM timer (port I/O or memory, 24 or 32 bits) or by the PIT.
 */
#include "arch/x86/tsc.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/pit.h"
#include "arch/x86/tsc_choice.h"
#include "lib/format.h"

/* 3 x 20 ms: long enough for 0.1% accuracy, short under emulation. */
#define CALIBRATION_US 20000
#define CALIBRATION_ROUNDS 3
#define PM_TIMER_ROUND_TICKS (PM_TIMER_HZ / (1000000 / CALIBRATION_US))
/* Reads of an unchanged PM timer after which it counts as stopped. */
#define PM_TIMER_STUCK_READS 1000000u

uint64_t tsc_hz;

static const struct acpi_pm_timer *pm_timer;
static const char *pm_timer_absent;

static void read_cpuid(struct tsc_cpuid_leaves *l)
{
	struct cpuid_regs r;

	cpuid_count(0, 0, &r);
	l->max_leaf = r.eax;
	if (l->max_leaf >= CPUID_LEAF_TSC_CRYSTAL) {
		cpuid_count(CPUID_LEAF_TSC_CRYSTAL, 0, &r);
		l->ratio_den = r.eax;
		l->ratio_num = r.ebx;
		l->crystal_hz = r.ecx;
	}
	if (l->max_leaf >= CPUID_LEAF_FREQUENCY) {
		cpuid_count(CPUID_LEAF_FREQUENCY, 0, &r);
		l->base_mhz = r.eax;
	}
}

static uint32_t pm_timer_read(const struct acpi_pm_timer *t)
{
	if (t->mmio)
		return *(volatile uint32_t *)(uintptr_t)t->address;
	return inl((uint16_t)t->address);
}

/*
 * Waits for the counter to move, then counts its ticks read by read (so
 * a 24-bit wrap between two reads is harmless) across one round.
 */
static bool pm_timer_round(const struct acpi_pm_timer *t, uint64_t *tsc,
			   uint64_t *ticks)
{
	uint32_t last = pm_timer_read(t), now, still = 0;
	uint64_t start;

	while ((now = pm_timer_read(t)) == last)
		if (++still == PM_TIMER_STUCK_READS)
			return false;
	start = rdtsc();
	*ticks = 0;
	for (last = now; *ticks < PM_TIMER_ROUND_TICKS; last = now) {
		uint32_t d;

		now = pm_timer_read(t);
		d = pm_timer_ticks_between(last, now, t->is_32bit);
		if (d)
			still = 0;
		else if (++still == PM_TIMER_STUCK_READS)
			return false;
		*ticks += d;
	}
	*tsc = rdtsc() - start;
	return true;
}

static enum tsc_measurement measure_pm_timer(uint64_t *hz, const char **why)
{
	static char where[64];
	uint64_t rates[CALIBRATION_ROUNDS];

	if (!pm_timer) {
		*why = pm_timer_absent;
		return TSC_TIMER_ABSENT;
	}
	for (int i = 0; i < CALIBRATION_ROUNDS; i++) {
		uint64_t tsc, ticks;

		if (!pm_timer_round(pm_timer, &tsc, &ticks)) {
			fmt_snprintf(where, sizeof(where), "the counter at %s "
				 "0x%llx is not ticking",
				 pm_timer->mmio ? "address" : "port",
				 (unsigned long long)pm_timer->address);
			*why = where;
			return TSC_TIMER_STUCK;
		}
		rates[i] = tsc_hz_from_ticks(tsc, ticks, PM_TIMER_HZ);
	}
	*hz = tsc_median3(rates[0], rates[1], rates[2]);
	return TSC_MEASURED;
}

static enum tsc_measurement measure_pit(uint64_t *hz, const char **why)
{
	uint64_t best = 0;

	/* The shortest round is the one least disturbed (SMIs, emulation). */
	for (int i = 0; i < CALIBRATION_ROUNDS; i++) {
		uint64_t start = rdtsc(), ticks;

		if (!pit_delay_us(CALIBRATION_US)) {
			*why = "channel 2 never reached its terminal count "
			       "(no PIT, or one gated off)";
			return TSC_TIMER_STUCK;
		}
		ticks = rdtsc() - start;
		if (!best || ticks < best)
			best = ticks;
	}
	*hz = best * (1000000 / CALIBRATION_US);
	return TSC_MEASURED;
}

static const struct tsc_timer_ops hardware = {
	.read_cpuid = read_cpuid,
	.measure_pm_timer = measure_pm_timer,
	.measure_pit = measure_pit,
};

void tsc_delay_us(uint32_t us)
{
	uint64_t start = rdtsc(), ticks;

	if (!tsc_hz) {
		pit_delay_us(us);
		return;
	}
	ticks = tsc_hz / 1000000 * us;
	while (rdtsc() - start < ticks)
		cpu_relax();
}

bool tsc_calibrate(enum tsc_source want, const struct acpi_pm_timer *pm,
		   const char *pm_absent)
{
	pm_timer = pm;
	pm_timer_absent = pm_absent;
	tsc_hz = tsc_choose_hz(want, &hardware);
	return tsc_hz != 0;
}
