// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/tsc_choice.h"
#include "lib/console.h"

#define HZ_PER_MHZ 1000000ull
#define HZ_PER_KHZ 1000ull

/* A rate as "2904.000": MHz with three decimals, as the log shows it. */
#define MHZ_FMT "%llu.%03llu MHz"
#define MHZ_ARGS(hz) (unsigned long long)((hz) / HZ_PER_MHZ), \
	(unsigned long long)((hz) / HZ_PER_KHZ % 1000)

static uint64_t chosen(enum tsc_source s, uint64_t hz)
{
	hv_info("tsc: " MHZ_FMT " from %s", MHZ_ARGS(hz), tsc_source_name(s));
	return hz;
}

static bool plausible_or_say(enum tsc_source s, uint64_t hz)
{
	if (tsc_hz_plausible(hz))
		return true;
	hv_error("tsc: %s gives " MHZ_FMT ", not a plausible TSC rate "
		 "(100 MHz to 10 GHz)", tsc_source_name(s), MHZ_ARGS(hz));
	return false;
}

/*
 * One timer measurement, judged; 0 when it gave no usable rate. An absent
 * timer is news (info) unless it was asked for by name; a stuck one or an
 * implausible rate is an error.
 */
static uint64_t measure(const struct tsc_timer_ops *ops, enum tsc_source s,
			bool forced)
{
	const char *why = "";
	uint64_t hz = 0;
	enum tsc_measurement m = s == TSC_SOURCE_PM_TIMER
					 ? ops->measure_pm_timer(&hz, &why)
					 : ops->measure_pit(&hz, &why);

	if (m == TSC_TIMER_ABSENT && !forced) {
		hv_info("tsc: %s: %s", tsc_source_name(s), why);
		return 0;
	}
	if (m != TSC_MEASURED) {
		hv_error("tsc: %s: %s", tsc_source_name(s), why);
		return 0;
	}
	return plausible_or_say(s, hz) ? hz : 0;
}

static void say_cpuid(const struct tsc_cpuid_leaves *l,
		      enum tsc_cpuid_method method)
{
	if (method == TSC_CPUID_CRYSTAL)
		hv_info("tsc: CPUID 0x15: crystal %u Hz, TSC/crystal ratio "
			"%u/%u", l->crystal_hz, l->ratio_num, l->ratio_den);
	else
		hv_info("tsc: CPUID 0x15: ratio %u/%u but no crystal "
			"frequency; CPUID 0x16 base frequency %u MHz",
			l->ratio_num, l->ratio_den, l->base_mhz & 0xffff);
}

/*
 * The CPU's own word, or 0. In auto mode a timer that measures checks it:
 * emulators report the rate of the CPU they imitate, not of their TSC. The
 * measurement, when it had to be taken, is kept in *measured (by source)
 * so that it is not taken twice.
 */
static uint64_t from_cpuid(const struct tsc_timer_ops *ops, bool forced,
			   enum tsc_source *check_src, uint64_t *measured)
{
	struct tsc_cpuid_leaves l = { 0 };
	enum tsc_cpuid_method method;
	const char *why = "";
	uint64_t hz;

	ops->read_cpuid(&l);
	method = tsc_cpuid_hz(&l, &hz, &why);
	if (method == TSC_CPUID_NONE) {
		if (forced)
			hv_error("tsc: CPUID 0x15: %s", why);
		else
			hv_info("tsc: CPUID 0x15: %s", why);
		return 0;
	}
	say_cpuid(&l, method);
	if (!plausible_or_say(TSC_SOURCE_CPUID, hz) || forced)
		return tsc_hz_plausible(hz) ? hz : 0;
	for (*check_src = TSC_SOURCE_PM_TIMER; *check_src <= TSC_SOURCE_PIT;
	     (*check_src)++) {
		*measured = measure(ops, *check_src, false);
		if (*measured)
			break;
	}
	if (!*measured) {
		hv_info("tsc: CPUID 0x15 not cross-checked: no timer measured");
		return hz;
	}
	if (tsc_hz_agree(hz, *measured))
		return hz;
	hv_info("tsc: CPUID 0x15 says " MHZ_FMT " but %s measures " MHZ_FMT
		": CPUID not used", MHZ_ARGS(hz), tsc_source_name(*check_src),
		MHZ_ARGS(*measured));
	return 0;
}

static uint64_t forced_source(enum tsc_source want,
			      const struct tsc_timer_ops *ops)
{
	enum tsc_source unused_src;
	uint64_t unused_hz = 0;
	uint64_t hz = want == TSC_SOURCE_CPUID
			      ? from_cpuid(ops, true, &unused_src, &unused_hz)
			      : measure(ops, want, true);

	if (hz)
		return chosen(want, hz);
	hv_error("tsc: tsc.source asks for %s, which gave no TSC rate",
		 tsc_source_name(want));
	return 0;
}

uint64_t tsc_choose_hz(enum tsc_source want, const struct tsc_timer_ops *ops)
{
	enum tsc_source checked_by = TSC_SOURCE_AUTO;
	uint64_t measured = 0, hz;

	if (want != TSC_SOURCE_AUTO)
		return forced_source(want, ops);
	hz = from_cpuid(ops, false, &checked_by, &measured);
	if (hz)
		return chosen(TSC_SOURCE_CPUID, hz);
	/* The cross-check's measurement is the next source's answer. */
	if (measured)
		return chosen(checked_by, measured);
	/* A cross-check that ran either measured or returned CPUID's rate. */
	for (enum tsc_source s = TSC_SOURCE_PM_TIMER; s <= TSC_SOURCE_PIT;
	     s++) {
		hz = measure(ops, s, false);
		if (hz)
			return chosen(s, hz);
	}
	hv_error("tsc: no source gave the TSC frequency (tried CPUID 0x15, "
		 "the ACPI PM timer and the PIT)");
	return 0;
}
