/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The virtio memory balloon (VIRTIO 1.2, 5.5) as apfvisor offers it: free
 * page reporting (VIRTIO_BALLOON_F_REPORTING) and the statistics queue
 * (VIRTIO_BALLOON_F_STATS_VQ), on the modern PCI transport
 * (virtio_pci_device.h). The guest's driver (Linux
 * drivers/virtio/virtio_balloon.c) puts runs of free pages of at least
 * 2^page_reporting_order pages on the reporting queue; every page of such
 * a run is discarded: its host frame and swap slot are given back and the
 * next touch is a zero fill. The balloon itself is never asked to inflate
 * (num_pages stays 0); pages the driver inflates all the same are
 * discarded too, and deflated pages come back on their next touch.
 *
 * Queues (the order the driver finds them in without FREE_PAGE_HINT):
 * 0 inflate, 1 deflate, 2 statistics, 3 reporting. Plain C: guest RAM and
 * the discard are the caller's ops.
 */
#ifndef GUEST_DEVICES_VIRTIO_BALLOON_H
#define GUEST_DEVICES_VIRTIO_BALLOON_H

#include "guest/devices/virtio_pci_device.h"
#include "lib/counters.h"

#define VIRTIO_ID_BALLOON 5
#define VIRTIO_BALLOON_F_STATS_VQ 1
#define VIRTIO_BALLOON_F_REPORTING 5
#define VIRTIO_BALLOON_PFN_SHIFT 12

enum balloon_queue {
	BALLOON_Q_INFLATE,
	BALLOON_Q_DEFLATE,
	BALLOON_Q_STATS,
	BALLOON_Q_REPORTING,
	BALLOON_QUEUES
};

#define BALLOON_QUEUE_SIZE 128  /* Linux wants >= 32 for reporting */

/* The statistics the driver sends (5.5.6.3), by tag. */
#define BALLOON_STAT_TAGS 16
#define BALLOON_STAT_MEMFREE 4
#define BALLOON_STAT_MEMTOT 5
#define BALLOON_STAT_AVAIL 6
#define BALLOON_STAT_CACHES 7

/* What one discard did to the pages it was given. */
struct balloon_discard_result {
	uint64_t dropped;       /* had a frame, a slot or a tier slot: freed */
	uint64_t already_free;  /* never touched, or discarded already */
	uint64_t busy;          /* I/O in flight or pinned: kept */
	uint64_t outside_ram;   /* not guest RAM: ignored */
};

struct balloon_ops {
	struct virtq_ram ram;
	/* Pages [gpa, gpa + pages * 4 KiB) are free in the guest. */
	void (*discard)(void *ctx, uint64_t gpa, uint64_t pages,
			struct balloon_discard_result *r);
	void *ctx;
};

#define BALLOON_COUNTERS(X)                                                  \
	X(struct balloon_stats, reports, "balloon.reports")                 \
	X(struct balloon_stats, reported_pages, "balloon.reported_pages")   \
	X(struct balloon_stats, dropped, "balloon.dropped")                 \
	X(struct balloon_stats, already_free, "balloon.already_free")       \
	X(struct balloon_stats, busy, "balloon.busy")                       \
	X(struct balloon_stats, outside_ram, "balloon.outside_ram")         \
	X(struct balloon_stats, inflated_pages, "balloon.inflated_pages")   \
	X(struct balloon_stats, deflated_pages, "balloon.deflated_pages")   \
	X(struct balloon_stats, stats_updates, "balloon.stats_updates")     \
	X(struct balloon_stats, guest_free_kib, "balloon.guest_free_kib")   \
	X(struct balloon_stats, guest_total_kib, "balloon.guest_total_kib") \
	X(struct balloon_stats, broken_queues, "balloon.broken_queues")

struct balloon_stats {
	BALLOON_COUNTERS(COUNTER_FIELD)
};

struct virtio_balloon {
	struct virtio_pci_device pci;
	struct balloon_ops ops;
	uint32_t actual;                /* config: pages the driver holds */
	/* The statistics buffer the device keeps until it wants new ones. */
	bool stats_held;
	uint16_t stats_head;
	uint64_t stats_wanted_at;       /* now_ns after which to ask again */
	uint64_t guest_stat[BALLOON_STAT_TAGS];
	struct balloon_stats stats;
	bool broken_reported;
	const char *why_broken;         /* the first broken queue's reason */
};

/* Asks the guest for statistics at most this often. */
#define BALLOON_STATS_PERIOD_NS 1000000000ull

void virtio_balloon_init(struct virtio_balloon *b,
			 const struct balloon_ops *ops, uint32_t bar0,
			 uint8_t interrupt_line);

/*
 * Serves the queues in notified (VIRTIO_PCI_NOTIFIED bits) and, when its
 * period is over, asks for statistics. True when the ISR status changed
 * (the caller re-reads the INTx level). A queue found broken makes the
 * device need a reset; b->why_broken says why (the caller prints it once).
 */
bool virtio_balloon_run(struct virtio_balloon *b, unsigned notified,
			uint64_t now_ns);

extern const struct counter_def balloon_counter_defs[];
extern const unsigned balloon_counter_count;

#endif
