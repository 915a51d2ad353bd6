// SPDX-License-Identifier: BSD-2-Clause
/* The virtio memory balloon with free page reporting: virtio_balloon.h. */
#include "guest/devices/virtio_balloon.h"
#include "lib/string.h"

/* struct virtio_balloon_config (5.5.4): num_pages, then actual. */
#define CONFIG_NUM_PAGES 0
#define CONFIG_ACTUAL 4
#define CONFIG_LEN 8

/* One statistic in the stats buffer: le16 tag, le64 value, packed. */
#define STAT_ENTRY_BYTES 10
/* PFNs read from guest RAM at once (inflate and deflate). */
#define PFN_CHUNK 64

const struct counter_def balloon_counter_defs[] = {
	BALLOON_COUNTERS(COUNTER_DEF)
};
const unsigned balloon_counter_count = ARRAY_SIZE(balloon_counter_defs);

static uint8_t config_byte(void *dev, unsigned off)
{
	struct virtio_balloon *b = dev;
	uint8_t bytes[CONFIG_LEN] = { 0 };      /* num_pages: 0, never inflate */

	memcpy(bytes + CONFIG_ACTUAL, &b->actual, sizeof(b->actual));
	return off < CONFIG_LEN ? bytes[off] : 0;
}

static void config_write_byte(void *dev, unsigned off, uint8_t value)
{
	struct virtio_balloon *b = dev;

	/* Only actual is the driver's to write (5.5.6). */
	if (off >= CONFIG_ACTUAL && off < CONFIG_ACTUAL + 4) {
		unsigned shift = 8 * (off - CONFIG_ACTUAL);

		b->actual &= ~(0xffu << shift);
		b->actual |= (uint32_t)value << shift;
	}
}

static void device_reset(void *dev)
{
	struct virtio_balloon *b = dev;

	b->actual = 0;
	b->stats_held = false;
	b->broken_reported = false;
}

static const struct virtio_device_ops balloon_ops_table = {
	.device_id = VIRTIO_ID_BALLOON,
	.features = BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_BALLOON_F_STATS_VQ) |
		    BIT(VIRTIO_BALLOON_F_REPORTING),
	.nqueues = BALLOON_QUEUES,
	.queue_max = BALLOON_QUEUE_SIZE,
	.config_len = CONFIG_LEN,
	.config_byte = config_byte,
	.config_write_byte = config_write_byte,
	.reset = device_reset,
};

void virtio_balloon_init(struct virtio_balloon *b,
			 const struct balloon_ops *ops, uint32_t bar0,
			 uint8_t interrupt_line)
{
	memset(b, 0, sizeof(*b));
	b->ops = *ops;
	virtio_pci_device_init(&b->pci, &balloon_ops_table, b, bar0,
			       interrupt_line);
}

static void discard(struct virtio_balloon *b, uint64_t gpa, uint64_t pages)
{
	struct balloon_discard_result r = { 0 };

	if (!pages)
		return;
	b->ops.discard(b->ops.ctx, gpa, pages, &r);
	b->stats.dropped += r.dropped;
	b->stats.already_free += r.already_free;
	b->stats.busy += r.busy;
	b->stats.outside_ram += r.outside_ram;
}

/* The whole pages inside [addr, addr + len): a run the guest reported. */
static uint64_t reported_run(struct virtio_balloon *b, const struct virtq_seg *s)
{
	uint64_t first = ALIGN_UP(s->addr, PAGE_SIZE);
	uint64_t end = s->addr + s->len;
	uint64_t pages;

	if (end < s->addr || first < s->addr)
		return 0;       /* wraps: nothing of it is RAM */
	end = ALIGN_DOWN(end, PAGE_SIZE);
	pages = end > first ? (end - first) >> PAGE_SHIFT : 0;
	discard(b, first, pages);
	return pages;
}

static void serve_reporting(struct virtio_balloon *b,
			    const struct virtq_buffer *buf)
{
	b->stats.reports++;
	for (unsigned i = 0; i < buf->nsegs; i++)
		b->stats.reported_pages += reported_run(b, &buf->seg[i]);
}

/* Inflate and deflate buffers hold 32-bit page frame numbers (5.5.6). */
static void serve_pfns(struct virtio_balloon *b,
		       const struct virtq_buffer *buf, bool inflate)
{
	for (unsigned i = 0; i < buf->nsegs; i++) {
		const struct virtq_seg *s = &buf->seg[i];
		uint32_t pfn[PFN_CHUNK];
		uint64_t left = s->len / sizeof(pfn[0]);

		if (s->device_writes)
			continue;
		for (uint64_t at = 0; left;) {
			unsigned n = (unsigned)MIN(left, PFN_CHUNK);

			if (b->ops.ram.read(b->ops.ram.ctx, s->addr + at, pfn,
					    n * sizeof(pfn[0]))) {
				b->stats.outside_ram += left;
				break;
			}
			for (unsigned k = 0; k < n; k++) {
				if (inflate)
					discard(b, (uint64_t)pfn[k]
						       << VIRTIO_BALLOON_PFN_SHIFT, 1);
			}
			if (inflate)
				b->stats.inflated_pages += n;
			else
				b->stats.deflated_pages += n;
			left -= n;
			at += n * sizeof(pfn[0]);
		}
	}
}

static void read_statistics(struct virtio_balloon *b,
			    const struct virtq_buffer *buf)
{
	for (unsigned i = 0; i < buf->nsegs; i++) {
		const struct virtq_seg *s = &buf->seg[i];
		unsigned n = MIN(s->len / STAT_ENTRY_BYTES, BALLOON_STAT_TAGS);

		for (unsigned k = 0; k < n && !s->device_writes; k++) {
			uint8_t e[STAT_ENTRY_BYTES];
			uint16_t tag;

			if (b->ops.ram.read(b->ops.ram.ctx,
					    s->addr + k * STAT_ENTRY_BYTES, e,
					    sizeof(e)))
				break;
			memcpy(&tag, e, sizeof(tag));
			if (tag < BALLOON_STAT_TAGS)
				memcpy(&b->guest_stat[tag], e + 2, 8);
		}
	}
	b->stats.stats_updates++;
	b->stats.guest_free_kib = b->guest_stat[BALLOON_STAT_MEMFREE] >> 10;
	b->stats.guest_total_kib = b->guest_stat[BALLOON_STAT_MEMTOT] >> 10;
}

/* Pops and serves what queue q holds; true when a buffer went back. */
static bool serve_queue(struct virtio_balloon *b, unsigned q, uint64_t now_ns)
{
	struct virtq_device *vq = &b->pci.queue[q];
	struct virtq_buffer buf;
	enum virtq_pop got;
	bool used = false;

	while ((got = virtq_device_pop(vq, &b->ops.ram, &buf)) == VIRTQ_BUFFER) {
		if (q == BALLOON_Q_STATS) {
			/*
			 * Kept until the device wants the next statistics.
			 * A driver keeps one buffer here (5.5.6.3); a second
			 * one while the first is held sends the first back.
			 */
			if (b->stats_held)
				used |= virtq_device_push(vq, &b->ops.ram,
							  b->stats_head, 0);
			read_statistics(b, &buf);
			b->stats_held = true;
			b->stats_head = buf.head;
			b->stats_wanted_at = now_ns + BALLOON_STATS_PERIOD_NS;
			continue;
		}
		if (q == BALLOON_Q_REPORTING)
			serve_reporting(b, &buf);
		else
			serve_pfns(b, &buf, q == BALLOON_Q_INFLATE);
		used |= virtq_device_push(vq, &b->ops.ram, buf.head, 0);
	}
	if (got == VIRTQ_BROKEN && !b->broken_reported) {
		b->broken_reported = true;
		b->why_broken = vq->why_broken;
		b->stats.broken_queues++;
		virtio_pci_device_needs_reset(&b->pci);
	}
	return used && virtq_device_wants_interrupt(vq, &b->ops.ram);
}

/* Gives the statistics buffer back: the driver refills it (5.5.6.3). */
static bool ask_for_statistics(struct virtio_balloon *b, uint64_t now_ns)
{
	struct virtq_device *vq = &b->pci.queue[BALLOON_Q_STATS];

	if (!b->stats_held || now_ns < b->stats_wanted_at)
		return false;
	b->stats_held = false;
	return virtq_device_push(vq, &b->ops.ram, b->stats_head, 0) &&
	       virtq_device_wants_interrupt(vq, &b->ops.ram);
}

bool virtio_balloon_run(struct virtio_balloon *b, unsigned notified,
			uint64_t now_ns)
{
	uint8_t before = b->pci.status;
	bool interrupt = false;

	if (!virtio_pci_device_live(&b->pci))
		return false;
	for (unsigned q = 0; q < BALLOON_QUEUES; q++)
		if (notified & VIRTIO_PCI_NOTIFIED(q))
			interrupt |= serve_queue(b, q, now_ns);
	interrupt |= ask_for_statistics(b, now_ns);
	if (interrupt)
		virtio_pci_device_interrupt(&b->pci, VIRTIO_ISR_QUEUE);
	return interrupt || b->pci.status != before;
}
