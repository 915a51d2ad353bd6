// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest_memory_each_stat (swap/guest_memory.h): what the swap engine
 * counted, by the names of the counter registry - its own counters, the
 * compressed tier's, the pages per state and every transition made.
 */
#include "lib/string.h"
#include "swap/guest_memory_internal.h"

#define STAT(name, field) { name, offsetof(struct guest_memory_stats, field) }

static const struct {
	const char *name;
	size_t offset;
} swap_stats[] = {
	STAT("swap.outs", swap_outs),
	STAT("swap.ins", swap_ins),
	STAT("swap.zero_pages_skipped", zero_pages_skipped),
	STAT("swap.clean_drops", clean_drops),
	STAT("swap.evictions_cancelled", evictions_cancelled),
	STAT("swap.writeback_mapped", writeback_mapped),
	STAT("swap.evictions_aborted", evictions_aborted),
	STAT("swap.slots_freed_dirty", slots_freed_dirty),
	STAT("swap.writes_started", writes_started),
	STAT("swap.reads_started", reads_started),
	STAT("swap.io_errors", io_errors),
	STAT("swap.io_retries", io_retries),
	STAT("swap.write_failures", write_failures),
	STAT("swap.slots_retired", slots_retired),
	STAT("swap.read_failures", read_failures),
	STAT("swap.stale_completions", stale_completions),
	STAT("swap.full_events", swap_full_events),
	STAT("swap.wait_io", wait_io),
	STAT("swap.no_frame", no_frame),
	STAT("swap.clock_scanned", clock_scanned),
	STAT("swap.clock_referenced", clock_referenced),
	STAT("swap.flushes", flushes),
	STAT("swap.evict_steps_stalled", evict_steps_stalled),
	STAT("swap.frame_free_errors", frame_free_errors),
	STAT("swap.quarantine_changed", quarantine_changed),
	STAT("swap.pins", pins),
	STAT("swap.pins_not_resident", pins_not_resident),
	STAT("swap.discarded", discarded),
	STAT("swap.discard_refaults", discard_refaults),
	STAT("swap.overwrites", overwrites),
	STAT("swap.overwrites_from_tier", overwrites_from_tier),
};

void guest_memory_each_stat(const struct guest_memory *gm,
			    void (*fn)(void *ctx, const char *name,
				       uint64_t value),
			    void *ctx)
{
	char name[64];

	/* pc-testdev's page flushes (swap off: guest.testdev guests). */
	if (gm->stats.translations_dropped) {
		fn(ctx, "testdev.translations_dropped",
		   gm->stats.translations_dropped);
		fn(ctx, "testdev.dropped_refaults", gm->stats.dropped_refaults);
	}
	if (!gm->meta)
		return;
	for (unsigned i = 0; i < ARRAY_SIZE(swap_stats); i++)
		fn(ctx, swap_stats[i].name,
		   *(const uint64_t *)((const char *)&gm->stats +
				       swap_stats[i].offset));
	fn(ctx, "swap.slots_in_use", gm->slots->in_use);
	fn(ctx, "swap.slots_peak", gm->slots->peak);
	fn(ctx, "swap.slots_total", gm->slots->nslots);
	/* Only once they happen: a prefetch policy was installed, or a bug. */
	if (gm->protect_kernel) {
		fn(ctx, "swap.kernel_marked", gm->stats.kernel_marked);
		fn(ctx, "swap.kernel_spared", gm->stats.kernel_spared);
		fn(ctx, "swap.kernel_evicted", gm->stats.kernel_evicted);
	}
	if (gm->tier) {
		static const struct counter_def tier_defs[] = {
			COMPRESSED_TIER_COUNTERS(COUNTER_DEF)
		};

		for (unsigned i = 0; i < ARRAY_SIZE(tier_defs); i++)
			fn(ctx, tier_defs[i].name,
			   *(const uint64_t *)((const char *)&gm->tier->stats +
					       tier_defs[i].offset));
		fn(ctx, "tier.slots_total", gm->tier->nslots);
		fn(ctx, "tier.lost", gm->stats.tier_lost);
	}
	if (gm->stats.prefetch_reads) {
		fn(ctx, "swap.prefetch_reads", gm->stats.prefetch_reads);
		fn(ctx, "swap.prefetch_used", gm->stats.prefetch_used);
		fn(ctx, "swap.prefetch_wasted", gm->stats.prefetch_wasted);
		fn(ctx, "swap.prefetch_spared", gm->stats.prefetch_spared);
		fn(ctx, "swap.prefetch_refused", gm->stats.prefetch_refused);
		fn(ctx, "swap.prefetch_resumed", gm->stats.prefetch_resumed);
	}
	if (gm->stats.illegal_transitions)
		fn(ctx, "pages.illegal_transitions",
		   gm->stats.illegal_transitions);
	for (unsigned i = 0; i < GUEST_PAGE_STATES; i++)
		/* Without a tier, no page is ever compressed: not reported. */
		if (i != PAGE_COMPRESSED || gm->tier)
			fn(ctx, guest_page_state_counter(i), gm->count[i]);
	for (unsigned from = 0; from < GUEST_PAGE_STATES; from++) {
		for (unsigned to = 0; to < GUEST_PAGE_STATES; to++) {
			if (!gm->stats.transitions[from][to])
				continue;
			str_copy(name, guest_page_state_counter(from),
				 sizeof(name));
			str_copy(name + strlen(name), "_to_",
				 sizeof(name) - strlen(name));
			str_copy(name + strlen(name),
				 guest_page_state_name(to),
				 sizeof(name) - strlen(name));
			fn(ctx, name, gm->stats.transitions[from][to]);
		}
	}
}
