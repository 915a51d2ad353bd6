// SPDX-License-Identifier: BSD-2-Clause
/*
 * The guest's virtio balloon (guest/devices/virtio_balloon.c) over its
 * PCI transport (virtio_pci_device.c) and split queues (virtq_device.c),
 * driven as Linux's virtio_pci and virtio_balloon drivers drive it: the
 * capability walk, BAR sizing, feature negotiation, queue setup, a free
 * page report, inflate and deflate, the statistics buffer - and what a
 * hostile driver can write into the rings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/virtio_balloon.h"

#define RAM_SIZE (1u << 20)
#define QSIZE 64
/* Each queue's rings: desc at base, avail at +0x400, used at +0x800. */
#define QBASE(q) (0x10000u + 0x1000u * (q))
#define BAR 0xfebf0000u
#define GSI 11

struct fixture {
	uint8_t ram[RAM_SIZE];
	struct virtio_balloon b;
	struct { uint64_t gpa, pages; } discards[64];
	unsigned ndiscards;
	uint16_t avail_idx[BALLOON_QUEUES];
};

static int ram_read(void *ctx, uint64_t gpa, void *dst, uint64_t len)
{
	struct fixture *f = ctx;

	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(dst, f->ram + gpa, len);
	return 0;
}

static int ram_write(void *ctx, uint64_t gpa, const void *src, uint64_t len)
{
	struct fixture *f = ctx;

	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(f->ram + gpa, src, len);
	return 0;
}

static void discard(void *ctx, uint64_t gpa, uint64_t pages,
		    struct balloon_discard_result *r)
{
	struct fixture *f = ctx;

	if (f->ndiscards < 64) {
		f->discards[f->ndiscards].gpa = gpa;
		f->discards[f->ndiscards].pages = pages;
	}
	f->ndiscards++;
	r->dropped += pages;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const struct balloon_ops ops = {
		.ram = { .read = ram_read, .write = ram_write, .ctx = f },
		.discard = discard,
		.ctx = f,
	};

	virtio_balloon_init(&f->b, &ops, BAR, GSI);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static uint32_t cfg(struct fixture *f, unsigned off, unsigned size)
{
	return virtio_pci_device_config_read(&f->b.pci, off, size);
}

static uint64_t rd(struct fixture *f, uint64_t off, unsigned size)
{
	unsigned events;

	return virtio_pci_device_mmio_read(&f->b.pci, off, size, &events);
}

/* A write to BAR0; runs the device as the VM glue does. */
static unsigned wr(struct fixture *f, uint64_t off, unsigned size,
		   uint64_t value, uint64_t now_ns)
{
	unsigned ev = virtio_pci_device_mmio_write(&f->b.pci, off, size, value);

	if ((ev & ~VIRTIO_PCI_IRQ_CHANGED) &&
	    virtio_balloon_run(&f->b, ev & ~VIRTIO_PCI_IRQ_CHANGED, now_ns))
		ev |= VIRTIO_PCI_IRQ_CHANGED;
	return ev;
}

/* Linux's vp_modern_probe: the capability chain. */
static void test_config_space(void **state)
{
	struct fixture *f = *state;
	unsigned found = 0;

	assert_int_equal(cfg(f, 0, 4), 0x10451af4);
	assert_int_equal(cfg(f, 0x08, 4), 0x00ff0001);  /* class, revision 1 */
	assert_int_equal(cfg(f, 0x06, 2) & 0x10, 0x10); /* capability list */
	assert_int_equal(cfg(f, 0x3d, 1), 1);           /* INTA# */
	assert_int_equal(cfg(f, 0x3c, 1), GSI);
	for (unsigned at = cfg(f, 0x34, 1); at; at = cfg(f, at + 1, 1)) {
		unsigned type = cfg(f, at + 3, 1);

		assert_int_equal(cfg(f, at, 1), 0x09);
		assert_int_equal(cfg(f, at + 4, 1), 0); /* BAR0 */
		found |= 1u << type;
		if (type == VIRTIO_PCI_CAP_COMMON_CFG) {
			assert_int_equal(cfg(f, at + 8, 4), 0);
			assert_int_equal(cfg(f, at + 12, 4), 0x38);
		} else if (type == VIRTIO_PCI_CAP_NOTIFY_CFG) {
			assert_int_equal(cfg(f, at + 2, 1), 20);
			assert_int_equal(cfg(f, at + 8, 4), 0x3000);
			assert_int_equal(cfg(f, at + 16, 4), 4);
		} else if (type == VIRTIO_PCI_CAP_DEVICE_CFG) {
			assert_int_equal(cfg(f, at + 12, 4), 8);
		}
	}
	assert_int_equal(found, 0x1e);
	/* BAR sizing: all ones read back as the size mask. */
	assert_int_equal(cfg(f, 0x10, 4), BAR);
	virtio_pci_device_config_write(&f->b.pci, 0x10, 4, 0xffffffff);
	assert_int_equal(cfg(f, 0x10, 4), (uint32_t)~(VIRTIO_PCI_DEVICE_BAR_SIZE - 1));
	virtio_pci_device_config_write(&f->b.pci, 0x10, 4, BAR);
	/* Decoding only with the memory bit; writes to IDs are dropped. */
	uint64_t base;
	assert_false(virtio_pci_device_bar(&f->b.pci, &base));
	virtio_pci_device_config_write(&f->b.pci, 0x04, 2, 0x0006);
	assert_true(virtio_pci_device_bar(&f->b.pci, &base));
	assert_int_equal(base, BAR);
	virtio_pci_device_config_write(&f->b.pci, 0x00, 4, 0);
	assert_int_equal(cfg(f, 0, 4), 0x10451af4);
	/* Past the space, nothing. */
	assert_int_equal(cfg(f, 0xfe, 4), 0);
}

static void set_queue(struct fixture *f, unsigned q, uint16_t size)
{
	wr(f, VIRTIO_COMMON_QUEUE_SELECT, 2, q, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_QUEUE_SIZE, 2), BALLOON_QUEUE_SIZE);
	assert_int_equal(rd(f, VIRTIO_COMMON_QUEUE_NOTIFY_OFF, 2), q);
	wr(f, VIRTIO_COMMON_QUEUE_SIZE, 2, size, 0);
	/* Two 32-bit halves, as vp_iowrite64_twopart. */
	wr(f, VIRTIO_COMMON_QUEUE_DESC, 4, QBASE(q), 0);
	wr(f, VIRTIO_COMMON_QUEUE_DESC + 4, 4, 0, 0);
	wr(f, VIRTIO_COMMON_QUEUE_DRIVER, 4, QBASE(q) + 0x400, 0);
	wr(f, VIRTIO_COMMON_QUEUE_DRIVER + 4, 4, 0, 0);
	wr(f, VIRTIO_COMMON_QUEUE_DEVICE, 4, QBASE(q) + 0x800, 0);
	wr(f, VIRTIO_COMMON_QUEUE_DEVICE + 4, 4, 0, 0);
	wr(f, VIRTIO_COMMON_QUEUE_ENABLE, 2, 1, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_QUEUE_ENABLE, 2), 1);
}

/* virtio_dev_probe + virtballoon_probe, as far as the device sees. */
static void bring_up(struct fixture *f)
{
	uint64_t want = BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_BALLOON_F_STATS_VQ) |
			BIT(VIRTIO_BALLOON_F_REPORTING);

	virtio_pci_device_config_write(&f->b.pci, 0x04, 2, 0x0006);
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0, 0);
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, VIRTIO_STATUS_ACKNOWLEDGE |
	   VIRTIO_STATUS_DRIVER, 0);
	wr(f, VIRTIO_COMMON_DEVICE_FEATURE_SELECT, 4, 0, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_DEVICE_FEATURE, 4), 0x22);
	wr(f, VIRTIO_COMMON_DEVICE_FEATURE_SELECT, 4, 1, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_DEVICE_FEATURE, 4), 1);
	for (unsigned half = 0; half < 2; half++) {
		wr(f, VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 4, half, 0);
		wr(f, VIRTIO_COMMON_DRIVER_FEATURE, 4,
		   (uint32_t)(want >> (32 * half)), 0);
	}
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0b, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_DEVICE_STATUS, 1), 0x0b);
	assert_int_equal(rd(f, VIRTIO_COMMON_NUM_QUEUES, 2), BALLOON_QUEUES);
	for (unsigned q = 0; q < BALLOON_QUEUES; q++)
		set_queue(f, q, QSIZE);
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0f, 0);
}

static void put_desc(struct fixture *f, unsigned q, unsigned i, uint64_t addr,
		     uint32_t len, uint16_t flags, uint16_t next)
{
	struct virtq_desc d = { addr, len, flags, next };

	memcpy(f->ram + QBASE(q) + 16 * i, &d, sizeof(d));
}

/* Makes chain head available and notifies queue q. */
static unsigned offer(struct fixture *f, unsigned q, uint16_t head,
		      uint64_t now_ns)
{
	uint16_t idx = f->avail_idx[q];

	memcpy(f->ram + QBASE(q) + 0x400 + 4 + 2 * (idx % QSIZE), &head, 2);
	idx++;
	f->avail_idx[q] = idx;
	memcpy(f->ram + QBASE(q) + 0x400 + 2, &idx, 2);
	return wr(f, VIRTIO_PCI_DEVICE_NOTIFY + 4 * q, 2, q, now_ns);
}

static uint16_t used_idx(struct fixture *f, unsigned q)
{
	uint16_t v;

	memcpy(&v, f->ram + QBASE(q) + 0x800 + 2, 2);
	return v;
}

static void test_negotiation(void **state)
{
	struct fixture *f = *state;

	virtio_pci_device_config_write(&f->b.pci, 0x04, 2, 0x0006);
	/* Without VERSION_1, FEATURES_OK does not hold. */
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 3, 0);
	wr(f, VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 4, 0, 0);
	wr(f, VIRTIO_COMMON_DRIVER_FEATURE, 4, 0x22, 0);
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0b, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_DEVICE_STATUS, 1), 0x03);
	/* A feature never offered: neither. */
	wr(f, VIRTIO_COMMON_DRIVER_FEATURE_SELECT, 4, 1, 0);
	wr(f, VIRTIO_COMMON_DRIVER_FEATURE, 4, 3, 0);
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0b, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_DEVICE_STATUS, 1), 0x03);
	/* A queue size that is no power of two, or too big, is not taken. */
	wr(f, VIRTIO_COMMON_QUEUE_SELECT, 2, 3, 0);
	wr(f, VIRTIO_COMMON_QUEUE_SIZE, 2, 48, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_QUEUE_SIZE, 2), BALLOON_QUEUE_SIZE);
	wr(f, VIRTIO_COMMON_QUEUE_SIZE, 2, 256, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_QUEUE_SIZE, 2), BALLOON_QUEUE_SIZE);
	/* A queue that does not exist reads as size 0. */
	wr(f, VIRTIO_COMMON_QUEUE_SELECT, 2, 9, 0);
	assert_int_equal(rd(f, VIRTIO_COMMON_QUEUE_SIZE, 2), 0);
	/* No MSI-X: every vector reads as none. */
	assert_int_equal(rd(f, VIRTIO_COMMON_MSIX_CONFIG, 2), VIRTIO_MSI_NO_VECTOR);
	/* Notifications before DRIVER_OK run nothing. */
	assert_int_equal(wr(f, VIRTIO_PCI_DEVICE_NOTIFY + 12, 2, 3, 0), 0);
}

static void test_free_page_report(void **state)
{
	struct fixture *f = *state;

	bring_up(f);
	/* Two runs in one buffer: 2 MiB at 4 MiB, and an unaligned one. */
	put_desc(f, 3, 5, 0x400000, 0x200000, VIRTQ_DESC_F_WRITE |
		 VIRTQ_DESC_F_NEXT, 6);
	put_desc(f, 3, 6, 0x801001, 0x3000, VIRTQ_DESC_F_WRITE, 0);
	assert_true(offer(f, 3, 5, 0) & VIRTIO_PCI_IRQ_CHANGED);
	assert_int_equal(f->ndiscards, 2);
	assert_int_equal(f->discards[0].gpa, 0x400000);
	assert_int_equal(f->discards[0].pages, 512);
	assert_int_equal(f->discards[1].gpa, 0x802000);
	assert_int_equal(f->discards[1].pages, 2);
	assert_int_equal(used_idx(f, 3), 1);
	assert_int_equal(*(uint32_t *)(f->ram + QBASE(3) + 0x800 + 4), 5);
	assert_int_equal(f->b.stats.reports, 1);
	assert_int_equal(f->b.stats.reported_pages, 514);
	assert_int_equal(f->b.stats.dropped, 514);
	/* The line is up until the driver reads the ISR. */
	assert_true(virtio_pci_device_irq_level(&f->b.pci));
	assert_int_equal(cfg(f, 0x06, 2) & 0x08, 0x08);
	assert_int_equal(rd(f, VIRTIO_PCI_DEVICE_ISR, 1), VIRTIO_ISR_QUEUE);
	assert_false(virtio_pci_device_irq_level(&f->b.pci));
	assert_int_equal(rd(f, VIRTIO_PCI_DEVICE_ISR, 1), 0);
	/* INTx disabled: no line, whatever the ISR says. */
	put_desc(f, 3, 0, 0x100000, 0x1000, VIRTQ_DESC_F_WRITE, 0);
	virtio_pci_device_config_write(&f->b.pci, 0x04, 2, 0x0406);
	offer(f, 3, 0, 0);
	assert_false(virtio_pci_device_irq_level(&f->b.pci));
	/* NO_INTERRUPT: used, but no interrupt. */
	rd(f, VIRTIO_PCI_DEVICE_ISR, 1);
	*(uint16_t *)(f->ram + QBASE(3) + 0x400) = VIRTQ_AVAIL_F_NO_INTERRUPT;
	offer(f, 3, 0, 0);
	assert_int_equal(used_idx(f, 3), 3);
	assert_int_equal(rd(f, VIRTIO_PCI_DEVICE_ISR, 1), 0);
}

static void test_inflate_deflate(void **state)
{
	struct fixture *f = *state;
	uint32_t pfns[3] = { 0x100, 0x101, 0x7ffff };

	bring_up(f);
	memcpy(f->ram + 0x20000, pfns, sizeof(pfns));
	put_desc(f, 0, 0, 0x20000, sizeof(pfns), 0, 0);
	offer(f, 0, 0, 0);
	assert_int_equal(f->ndiscards, 3);
	assert_int_equal(f->discards[2].gpa, 0x7ffffull << 12);
	assert_int_equal(f->b.stats.inflated_pages, 3);
	put_desc(f, 1, 0, 0x20000, 8, 0, 0);
	offer(f, 1, 0, 0);
	assert_int_equal(f->ndiscards, 3);      /* deflate: nothing to do */
	assert_int_equal(f->b.stats.deflated_pages, 2);
	assert_int_equal(used_idx(f, 0), 1);
	assert_int_equal(used_idx(f, 1), 1);
	/* actual is the driver's to write; num_pages stays 0. */
	wr(f, VIRTIO_PCI_DEVICE_CONFIG + 4, 4, 3, 0);
	assert_int_equal(rd(f, VIRTIO_PCI_DEVICE_CONFIG + 4, 4), 3);
	wr(f, VIRTIO_PCI_DEVICE_CONFIG, 4, 99, 0);
	assert_int_equal(rd(f, VIRTIO_PCI_DEVICE_CONFIG, 4), 0);
}

/* Linux's init_vqs primes the statistics queue before DRIVER_OK. */
static void test_statistics(void **state)
{
	struct fixture *f = *state;
	uint8_t stats[20] = { 0 };
	uint64_t memfree = 123ull << 20, memtot = 256ull << 20;
	bring_up(f);
	/* As before DRIVER_OK (the status goes back for the test). */
	wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0b, 0);
	stats[0] = BALLOON_STAT_MEMFREE;
	memcpy(stats + 2, &memfree, 8);
	stats[10] = BALLOON_STAT_MEMTOT;
	memcpy(stats + 12, &memtot, 8);
	memcpy(f->ram + 0x30000, stats, sizeof(stats));
	put_desc(f, 2, 0, 0x30000, sizeof(stats), 0, 0);
	offer(f, 2, 0, 1000);
	assert_int_equal(f->b.stats.stats_updates, 0);
	/* DRIVER_OK: the buffer the driver added before it is taken. */
	assert_true(wr(f, VIRTIO_COMMON_DEVICE_STATUS, 1, 0x0f, 1000) &
		    VIRTIO_PCI_NOTIFIED(2));
	/* Read and kept: no used buffer yet. */
	assert_int_equal(f->b.stats.guest_free_kib, 123 * 1024);
	assert_int_equal(f->b.stats.guest_total_kib, 256 * 1024);
	assert_int_equal(used_idx(f, 2), 0);
	/* A report within the period does not ask again; one after does. */
	put_desc(f, 3, 0, 0x100000, 0x1000, VIRTQ_DESC_F_WRITE, 0);
	offer(f, 3, 0, 2000);
	assert_int_equal(used_idx(f, 2), 0);
	offer(f, 3, 0, 1000 + BALLOON_STATS_PERIOD_NS);
	assert_int_equal(used_idx(f, 2), 1);
	assert_int_equal(f->b.stats.stats_updates, 1);
	/*
	 * A second buffer while one is held (Linux keeps one): the held one
	 * goes back, the new one is kept; the ring never holds more than
	 * the queue's size, however often the guest does it.
	 */
	offer(f, 2, 0, 2000 + BALLOON_STATS_PERIOD_NS);
	for (unsigned i = 0; i < 3 * QSIZE; i++)
		offer(f, 2, 0, 3000 + BALLOON_STATS_PERIOD_NS);
	assert_int_equal(used_idx(f, 2), 1 + 3 * QSIZE);
	assert_false(f->b.pci.queue[2].broken);
	assert_int_equal(f->b.stats.stats_updates, 2 + 3 * QSIZE);
}

static void test_hostile_rings(void **state)
{
	struct fixture *f = *state;

	bring_up(f);
	/* A chain that loops on itself. */
	put_desc(f, 3, 0, 0x100000, 0x1000, VIRTQ_DESC_F_WRITE |
		 VIRTQ_DESC_F_NEXT, 0);
	assert_true(offer(f, 3, 0, 0) & VIRTIO_PCI_IRQ_CHANGED);
	assert_non_null(f->b.why_broken);
	assert_int_equal(f->b.stats.broken_queues, 1);
	assert_true(rd(f, VIRTIO_COMMON_DEVICE_STATUS, 1) &
		    VIRTIO_STATUS_NEEDS_RESET);
	assert_int_equal(rd(f, VIRTIO_PCI_DEVICE_ISR, 1), VIRTIO_ISR_CONFIG);
	assert_int_equal(f->ndiscards, 0);
	/* Nothing more is served until a reset; the reset clears it. */
	put_desc(f, 3, 1, 0x100000, 0x1000, VIRTQ_DESC_F_WRITE, 0);
	offer(f, 3, 1, 0);
	assert_int_equal(f->ndiscards, 0);
	memset(f->avail_idx, 0, sizeof(f->avail_idx));
	memset(f->ram + 0x10000, 0, 0x4000);
	bring_up(f);
	assert_false(rd(f, VIRTIO_COMMON_DEVICE_STATUS, 1) &
		     VIRTIO_STATUS_NEEDS_RESET);
	put_desc(f, 3, 1, 0x100000, 0x1000, VIRTQ_DESC_F_WRITE, 0);
	offer(f, 3, 1, 0);
	assert_int_equal(f->ndiscards, 1);

	/* A head past the queue; an indirect descriptor; rings outside RAM. */
	const struct { uint16_t head; uint16_t flags; uint64_t desc; } cases[] = {
		{ QSIZE, 0, QBASE(3) },
		{ 2, VIRTQ_DESC_F_INDIRECT, QBASE(3) },
		{ 2, VIRTQ_DESC_F_WRITE, RAM_SIZE - 8 },
	};
	for (unsigned c = 0; c < 3; c++) {
		memset(f->avail_idx, 0, sizeof(f->avail_idx));
		memset(f->ram + 0x10000, 0, 0x4000);
		bring_up(f);
		put_desc(f, 3, 2, 0x100000, 0x1000, cases[c].flags, 0);
		f->b.pci.queue[3].desc = cases[c].desc;
		offer(f, 3, cases[c].head, 0);
		assert_true(f->b.pci.queue[3].broken);
	}
	/* The driver claims more new buffers than the queue holds. */
	memset(f->avail_idx, 0, sizeof(f->avail_idx));
	memset(f->ram + 0x10000, 0, 0x4000);
	bring_up(f);
	f->avail_idx[3] = QSIZE + 5;
	offer(f, 3, 0, 0);
	assert_true(f->b.pci.queue[3].broken);
	/* The driver offers more chains than it has descriptors for. */
	memset(f->avail_idx, 0, sizeof(f->avail_idx));
	memset(f->ram + 0x10000, 0, 0x4000);
	bring_up(f);
	f->b.pci.queue[0].next_avail = QSIZE;   /* QSIZE chains held */
	put_desc(f, 0, 0, 0x100000, 4, 0, 0);
	f->avail_idx[0] = QSIZE;
	offer(f, 0, 0, 0);
	assert_true(f->b.pci.queue[0].broken);
	assert_non_null(strstr(f->b.pci.queue[0].why_broken, "outstanding"));
	/* A read-only segment after a writable one. */
	memset(f->avail_idx, 0, sizeof(f->avail_idx));
	memset(f->ram + 0x10000, 0, 0x4000);
	bring_up(f);
	put_desc(f, 0, 0, 0x100000, 4, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 1);
	put_desc(f, 0, 1, 0x100000, 4, 0, 0);
	offer(f, 0, 0, 0);
	assert_true(f->b.pci.queue[0].broken);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_space, setup, teardown),
		cmocka_unit_test_setup_teardown(test_negotiation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_page_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inflate_deflate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_statistics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_rings, setup, teardown),
	};

	return cmocka_run_group_tests_name("virtio_balloon", tests, NULL, NULL);
}
