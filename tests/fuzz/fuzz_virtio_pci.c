/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: a virtio-blk device brought up over the virtio 1.0
 * PCI transport (swap/drivers/virtio_blk.c bring_up_function, arch/x86/virtio_pci.c,
 * arch/x86/pci.c), then a few requests through its queue
 * (swap/drivers/virtio_blk_queue.c, which tests/fuzz/fuzz_virtio_blk_queue.c
 * fuzzes on its own). swap/drivers/virtio_blk.c is included here, not linked, to
 * reach its static bring-up without a bus scan; built with
 * tests/unit/fake_x86 first on the include path (port I/O, the TSC).
 *
 * The input: which BAR is the device's one memory BAR (64-bit, 4 to 16
 * KiB; the other BAR registers read as unimplemented) and the function's
 * configuration space with its capabilities
 * (tests/fuzz/fuzz_pci_device.h), then the BAR's contents (the common
 * configuration's registers, the device configuration's capacity, the
 * notify offsets: tests/fuzz/fuzz_guest_ram.h pieces, the first `pieces`
 * of them), then the block layer's steps with the device's writes into
 * its rings (pieces into the ring pages, the used ring's entries and
 * index among them).
 *
 * The BAR's memory is poisoned for AddressSanitizer but for the windows
 * the driver maps (host_paging_map_mmio): every register access of the
 * driver must lie in a structure a capability gave, within the length it
 * gave. Beyond that:
 *   - a device brought up has the queue the driver set: the addresses in
 *     the common configuration are the driver's ring pages, its size a
 *     power of two from 4 to 64, enabled; VERSION_1 the only feature
 *     taken, FEATURES_OK and DRIVER_OK set; its size whole sectors;
 *   - a device refused is one line saying why;
 *   - every request is handed back exactly once.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "swap/drivers/virtio_blk.c"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_guest_ram.h"
#include "tests/fuzz/fuzz_pages.h"
#include "tests/fuzz/fuzz_pci_device.h"
#include "tests/fuzz/fuzz_script.h"

#define BAR_MAX (16u << 10)
#define MAX_REQUESTS 64
#define MAX_ALLOCS 8

uint64_t tsc_hz = 1000000000ull;

static uint8_t bar_mem[BAR_MAX] __attribute__((aligned(BAR_MAX)));
static uint64_t bar_size;

static struct {
	struct fuzz_script *in;
	uint64_t tsc;
	void *allocs[MAX_ALLOCS];
	unsigned nallocs;
	unsigned errors;
	uint8_t *rings;
} env;

/* ---- the rest of apfvisor ---- */

uint64_t rdtsc(void)
{
	env.tsc += env.in->left ? 1000 : 1ull << 40;
	return env.tsc;
}

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

void hv_error(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	CHECK(strncmp(line, "virtio-blk 00:03.0: ", 20) == 0 && line[20]);
	env.errors++;
}

void *hv_alloc(size_t bytes)
{
	CHECK(env.nallocs < MAX_ALLOCS);
	env.allocs[env.nallocs] = calloc(1, bytes);
	CHECK(env.allocs[env.nallocs]);
	return env.allocs[env.nallocs++];
}

uint64_t hv_alloc_pages_low(unsigned npages)
{
	void *p = fuzz_pages_alloc(npages);

	CHECK(p && npages == VBLK_RING_PAGES && !env.rings);
	env.rings = p;
	return (uintptr_t)p;
}

/* A structure the driver maps: only inside the BAR, then usable. */
static void mapped(uint64_t base, uint64_t size)
{
	uintptr_t bar = (uintptr_t)bar_mem;

	CHECK(base >= bar && base - bar <= bar_size &&
	      size <= bar_size - (base - bar));
	ASAN_UNPOISON_MEMORY_REGION((void *)(uintptr_t)base, size);
}

/* ---- the block layer's side ---- */

struct request {
	uint8_t *page;
	bool out;
};

static struct request req[MAX_REQUESTS];
static unsigned nreq;

static void take_completions(struct blockdev *b, unsigned max)
{
	struct blk_completion out[VBLK_MAX_SLOTS];
	unsigned n = b->ops->poll(b, out, max);

	CHECK(n <= max);
	for (unsigned i = 0; i < n; i++) {
		struct request *r = out[i].cookie;

		CHECK(r >= req && r < req + nreq && r->out);
		CHECK(out[i].status <= BLK_OUT_OF_RANGE);
		r->out = false;
		fuzz_page_free(r->page);
	}
}

static void submit(struct blockdev *b, unsigned how)
{
	struct request *r;
	uint64_t offset = fuzz_take(env.in, 2) * PAGE_SIZE;

	if (nreq == MAX_REQUESTS)
		return;
	r = &req[nreq];
	*r = (struct request){ .page = fuzz_page_alloc(), .out = true };
	CHECK(r->page);
	if (b->ops->submit(b, &(struct blk_request){
			.op = how & 0x80 ? BLK_WRITE : BLK_READ,
			.offset = offset, .buffer_pa = (uintptr_t)r->page,
			.cookie = r })) {
		fuzz_page_free(r->page);
		return;
	}
	nreq++;
}

static uint64_t le(unsigned off, unsigned len)
{
	uint64_t v = 0;

	memcpy(&v, bar_mem + off, len);
	return v;
}

/* The queue the driver set up, as the common configuration holds it. */
static void check_queue(const struct vblk *vb)
{
	unsigned common = (unsigned)((uintptr_t)vb->vp.common -
				     (uintptr_t)bar_mem);
	uint16_t size = (uint16_t)le(common + 0x18, 2);
	uint8_t status = (uint8_t)le(common + 0x14, 1);

	/* (The device's maximum is gone: the size was written over it.) */
	CHECK(size == vb->queue.qsize && size && !(size & (size - 1)));
	CHECK(size >= 4 && size <= VBLK_QUEUE_SIZE);
	CHECK(le(common + 0x20, 8) == (uintptr_t)vb->queue.desc);
	CHECK(le(common + 0x28, 8) == (uintptr_t)vb->queue.avail);
	CHECK(le(common + 0x30, 8) == (uintptr_t)vb->queue.used);
	CHECK(fuzz_pages_holding((uintptr_t)vb->queue.desc, 16u * size) >= 0);
	CHECK(le(common + 0x0c, 4) == 1 && le(common + 0x08, 4) == 1);
	CHECK(status & VIRTIO_STATUS_DRIVER_OK);
	CHECK(status & VIRTIO_STATUS_FEATURES_OK);
	CHECK(le(common + 0x1c, 2) == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	unsigned how = 0, bar, pieces;
	struct blockdev *b;
	struct pci_device d;

	memset(&env, 0, sizeof(env));
	fuzz_pages_reset();
	env.in = &in;
	env.tsc = 1;
	nreq = 0;
	vblk_nfound = 0;
	vblk_probed = false;

	how = (unsigned)fuzz_take(&in, 1);
	bar = (how & 3) % 3 * 2;                /* BAR0, 2 or 4 (+ 1) */
	bar_size = 4096u << ((how >> 2) % 3);
	fuzz_pci_take(&in);
	/* One 64-bit memory BAR at bar_mem; the other BARs unimplemented. */
	for (unsigned i = 0; i < 6; i++) {
		uint32_t lo = 0, hi = 0, mask = 0;

		if (i == bar) {
			lo = (uint32_t)(uintptr_t)bar_mem | 0x4;
			mask = (uint32_t)~(bar_size - 1) | 0x4;
		} else if (i == bar + 1) {
			hi = (uint32_t)((uintptr_t)bar_mem >> 32);
			mask = 0xffffffff;
		}
		memcpy(fuzz_pci.cfg + PCI_BAR0 + 4 * i, i == bar + 1 ? &hi : &lo,
		       4);
		fuzz_pci.bar_mask[i] = mask;
	}
	fuzz_pci.on_map = mapped;
	d = fuzz_pci_device();
	d.header_type = 0;

	/* The device's registers, then nothing reachable until mapped. */
	pieces = (unsigned)fuzz_take(&in, 1) % 16;
	ASAN_UNPOISON_MEMORY_REGION(bar_mem, sizeof(bar_mem));
	memset(bar_mem, 0, sizeof(bar_mem));
	for (unsigned i = 0; i < pieces; i++)
		fuzz_ram_piece(&in, bar_mem, bar_size);
	ASAN_POISON_MEMORY_REGION(bar_mem, sizeof(bar_mem));

	b = bring_up_function(&d);
	if (!b) {
		CHECK(env.errors == 1);
		goto out;
	}
	CHECK(env.errors == 0);
	check_queue(b->driver);
	CHECK(b->size % 512 == 0 &&
	      b->queue_depth == ((struct vblk *)b->driver)->queue.nslots);
	while (in.left) {
		unsigned op = (unsigned)fuzz_take(&in, 1);

		switch (op & 3) {
		case 0:
			submit(b, op);
			break;
		case 1:
			take_completions(b, 1 + op % VBLK_MAX_SLOTS);
			break;
		default:                /* the device writes its rings */
			fuzz_ram_piece(&in, env.rings,
				       VBLK_RING_PAGES * PAGE_SIZE);
			break;
		}
	}
	for (unsigned n = 0; n < 4; n++)
		take_completions(b, VBLK_MAX_SLOTS);
	for (unsigned i = 0; i < nreq; i++)
		CHECK(!req[i].out);
out:
	ASAN_UNPOISON_MEMORY_REGION(bar_mem, sizeof(bar_mem));
	for (unsigned i = 0; i < env.nallocs; i++)
		free(env.allocs[i]);
	return 0;
}
