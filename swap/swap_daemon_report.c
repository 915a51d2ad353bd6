// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the paging daemon reports: its counters in the registry (its own,
 * guest memory's, the I/O queues', the device's, injected faults') and
 * the per-page figures of bench.swap.
 */
#include "swap/swap_daemon_internal.h"
#include "swap/drivers/blockdev_faults.h"
#include "lib/console.h"

static const struct counter_def daemon_counter_defs[] = {
	SWAP_DAEMON_COUNTERS(COUNTER_DEF)
};

static void each_memory_counter(const void *obj, counter_fn fn, void *ctx)
{
	guest_memory_each_stat(obj, fn, ctx);
}

static void each_queue_counter(const void *obj, counter_fn fn, void *ctx)
{
	const struct swap_io_queue *q = obj;

	fn(ctx, "swap.reads_ahead_of_writes", q->reads_ahead_of_writes);
	fn(ctx, "swap.unknown_completions", q->unknown_completions);
}

/* What the swap device's driver counted of a device that lied or hung. */
static void each_device_counter(const void *obj, counter_fn fn, void *ctx)
{
	const struct blockdev *dev = obj;

	fn(ctx, "swap.short_transfers", dev->short_transfers);
	fn(ctx, "swap.frames_held", dev->frames_held);
}

static void each_injected_counter(const void *obj, counter_fn fn, void *ctx)
{
	struct blockdev_fault_counts c = blockdev_faults_injected();

	(void)obj;
	fn(ctx, "swap.injected_read_failures", c.injected_read_failures);
	fn(ctx, "swap.injected_write_failures", c.injected_write_failures);
}

void swap_daemon_register_memory_counters(struct swap_daemon *d)
{
	d->memory_counters = (struct counter_source){
		.each = each_memory_counter,
		.obj = d->mem,
	};
	counters_register(&d->memory_counters);
}

static void each_latency_counter(const void *obj, counter_fn fn, void *ctx)
{
	const struct swap_daemon *d = obj;

	latency_hist_report(&d->wait_latency, "swap_wait", fn, ctx);
}

void swap_daemon_register_counters(struct swap_daemon *d)
{
	d->daemon_counters = (struct counter_source){
		.defs = daemon_counter_defs,
		.ndefs = ARRAY_SIZE(daemon_counter_defs),
		.obj = &d->stats,
	};
	d->queue_counters = (struct counter_source){
		.each = each_queue_counter,
		.obj = &d->io,
	};
	d->device_counters = (struct counter_source){
		.each = each_device_counter,
		.obj = d->dev,
	};
	swap_daemon_register_memory_counters(d);
	counters_register(&d->daemon_counters);
	counters_register(&d->queue_counters);
	counters_register(&d->device_counters);
	d->latency_counters = (struct counter_source){
		.each = each_latency_counter,
		.obj = d,
	};
	counters_register(&d->latency_counters);
	if (d->cfg.params.fail_reads || d->cfg.params.fail_writes) {
		d->injected_counters = (struct counter_source){
			.each = each_injected_counter,
		};
		counters_register(&d->injected_counters);
	}
}

static uint64_t per(uint64_t total, uint64_t n)
{
	return n ? total / n : 0;
}

void swap_daemon_report_bench(const struct swap_daemon *d)
{
	const struct guest_memory_stats *s = &d->mem->stats;

	if (!d->dev)
		return;
	hv_info("bench: swap-in %llu cycles/page (vCPU wait, %llu swap-ins)",
		(unsigned long long)per(d->stats.wait_tsc, s->swap_ins),
		(unsigned long long)s->swap_ins);
	hv_info("bench: swap-out %llu cycles/page batched (daemon root-mode "
		"time over %llu pages written)",
		(unsigned long long)per(d->stats.evict_tsc + d->stats.io_tsc,
					s->swap_outs),
		(unsigned long long)s->swap_outs);
	hv_info("bench: eviction candidates %llu: zero %llu%%, clean %llu%%, "
		"written %llu%%", (unsigned long long)d->stats.victims,
		(unsigned long long)per(100 * s->zero_pages_skipped,
					d->stats.victims),
		(unsigned long long)per(100 * s->clean_drops, d->stats.victims),
		(unsigned long long)per(100 * s->swap_outs, d->stats.victims));
}
