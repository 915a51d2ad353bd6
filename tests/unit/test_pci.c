/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * arch/x86/pci.c over a fake function at 00:03.0 behind ports
 * 0xCF8/0xCFC (built with tests/unit/fake_x86 first on the include path),
 * the virtio capability walk of arch/x86/virtio_pci.c and the virtio-blk
 * bring-up of swap/drivers/virtio_blk.c over it. What a device answers is not
 * trusted: a BAR's sizing mask with holes or an address with low bits set
 * decodes as the device decodes it (the lowest writable bit is the size),
 * a BAR past 2^52 decodes as unused, and a capability list that loops
 * does not hang the walk (all three found by tests/fuzz/fuzz_pci_bar.c);
 * a queue maximum of 3 is refused, not made a queue of 2 descriptors that
 * holds no request, and a common structure too short is not kept (both
 * found by tests/fuzz/fuzz_virtio_pci.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/host_paging.h"
#include "arch/x86/io.h"
#include "arch/x86/pci.h"
#include "lib/heap.h"
#include "swap/drivers/virtio_blk.h"
#include "arch/x86/virtio_pci.h"
#include "tests/unit/console_capture.h"

#define FUNCTION_00_03_0 (3u << 11)     /* CONFIG_ADDRESS bits 23:8 */

uint64_t tsc_hz = 1000000000ull;

void *hv_alloc(size_t bytes)
{
	static uint8_t heap[65536] __attribute__((aligned(4096)));
	static size_t used;
	void *p = heap + used;

	used += (bytes + 4095) & ~(size_t)4095;
	assert_true(used <= sizeof(heap));
	return p;
}

uint64_t hv_alloc_pages_low(unsigned npages)
{
	return (uintptr_t)hv_alloc(npages * 4096u);
}

static uint8_t cfg[256];
static uint32_t bar_mask[6], address;
static bool sizing[6];
static unsigned accesses;

static unsigned offset(uint16_t port)
{
	/* A walk that never ends shows as too many accesses. */
	if (++accesses > 1000000)
		fail_msg("configuration space read without end");
	return (address & 0xfc) + (port - 0xcfc);
}

/* Functions other than 00:03.0 are absent: all ones, writes dropped. */
static bool absent(void)
{
	return (address & 0xffff00) != FUNCTION_00_03_0;
}

void outl(uint16_t port, uint32_t v)
{
	unsigned off;

	if (port == 0xcf8) {
		address = v;
		return;
	}
	off = offset(port);
	if (absent())
		return;
	if (off >= PCI_BAR0 && off < PCI_BAR0 + 24) {
		unsigned i = (off - PCI_BAR0) / 4;

		sizing[i] = v == 0xffffffffu && !sizing[i];
		if (sizing[i])
			v = bar_mask[i];
	}
	memcpy(cfg + off, &v, 4);
}

void outw(uint16_t port, uint16_t v)
{
	unsigned off = offset(port);

	if (!absent())
		memcpy(cfg + off, &v, 2);
}

void outb(uint16_t port, uint8_t v)
{
	unsigned off = offset(port);

	if (!absent())
		cfg[off] = v;
}

uint32_t inl(uint16_t port)
{
	unsigned off = offset(port);
	uint32_t v = 0xffffffff;

	if (!absent())
		memcpy(&v, cfg + off, 4);
	return v;
}

uint16_t inw(uint16_t port)
{
	unsigned off = offset(port);
	uint16_t v = 0xffff;

	if (!absent())
		memcpy(&v, cfg + off, 2);
	return v;
}

uint8_t inb(uint16_t port)
{
	unsigned off = offset(port);

	return absent() ? 0xff : cfg[off];
}

bool host_paging_map_mmio(uint64_t base, uint64_t size)
{
	return host_mmio_range_ok(base, size);
}

static const struct pci_device dev = { .bus = 0, .dev = 3 };

static int setup(void **state)
{
	(void)state;
	address = 0x80000000u | FUNCTION_00_03_0;
	memset(cfg, 0, sizeof(cfg));
	memset(bar_mask, 0, sizeof(bar_mask));
	memset(sizing, 0, sizeof(sizing));
	accesses = 0;
	return 0;
}

static void set_bar(unsigned i, uint32_t value, uint32_t mask)
{
	memcpy(cfg + PCI_BAR0 + 4 * i, &value, 4);
	bar_mask[i] = mask;
}

static void bars_as_the_device_decodes_them(void **state)
{
	struct pci_bar bar;

	(void)state;
	/* A plain 32-bit 16 KiB BAR; the config space as it was after. */
	set_bar(0, 0xfebf4000, 0xffffc000);
	cfg[PCI_COMMAND] = PCI_COMMAND_MEMORY;
	assert_int_equal(pci_bar_decode(&dev, 0, &bar), 0);
	assert_true(bar.base == 0xfebf4000 && bar.size == 0x4000);
	assert_int_equal(cfg[PCI_COMMAND], PCI_COMMAND_MEMORY);
	/* A mask with holes: the lowest writable bit is the size (it was
	 * ~mask + 1 = 0x3000, no power of two). */
	set_bar(1, 0xfebf8000, 0xffffd000);
	assert_int_equal(pci_bar_decode(&dev, 1, &bar), 0);
	assert_true(bar.size == 0x1000);
	/* Address bits below the size are not the device's. */
	set_bar(2, 0xfebf4800, 0xfffff000);
	assert_int_equal(pci_bar_decode(&dev, 2, &bar), 0);
	assert_true(bar.base == 0xfebf4000 && bar.size == 0x1000);
	/* A 64-bit BAR reaching past 2^52: unused. */
	set_bar(3, 0x0000000c, 0xfffff00c);
	set_bar(4, 0x00100000, 0xffffffff);
	assert_int_equal(pci_bar_decode(&dev, 3, &bar), 0);
	assert_true(bar.is64 && bar.size == 0);
	/* Just below it: used. */
	set_bar(3, 0xffffe00c, 0xfffff00c);
	set_bar(4, 0x000fffff, 0xffffffff);
	assert_int_equal(pci_bar_decode(&dev, 3, &bar), 0);
	assert_true(bar.base == 0xfffffffffe000ull && bar.size == 0x1000);
	/* An I/O BAR of 64 bytes with low address bits set. */
	set_bar(5, 0x0000c021, 0xffffffc1);
	assert_int_equal(pci_bar_decode(&dev, 5, &bar), 0);
	assert_true(bar.io && bar.base == 0xc000 && bar.size == 64);
}

/* struct virtio_pci_cap at off: type, BAR, offset, length, next. */
static void virtio_cap(uint8_t off, uint8_t type, uint32_t bar_off,
		       uint32_t len, uint8_t next)
{
	cfg[off] = PCI_CAP_ID_VENDOR;
	cfg[off + 1] = next;
	cfg[off + 2] = 20;
	cfg[off + 3] = type;
	cfg[off + 4] = 0;                       /* BAR0 */
	memcpy(cfg + off + 8, &bar_off, 4);
	memcpy(cfg + off + 12, &len, 4);
}

static void looping_capability_list(void **state)
{
	struct virtio_pci vp;
	const char *why;

	(void)state;
	set_bar(0, 0xfe000000, 0xffffc000);
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAP_PTR] = 0x40;
	/* common -> notify -> common -> ...: no device structure ever. */
	virtio_cap(0x40, 1, 0x0000, 0x38, 0x58);
	virtio_cap(0x58, 2, 0x1000, 0x1000, 0x40);
	assert_int_equal(virtio_pci_init(&vp, &dev, &why), HV_ERR_UNSUPPORTED);
	assert_non_null(strstr(why, "no virtio 1.0 PCI capabilities"));
	/* A loop through all three structures is still a device. */
	virtio_cap(0x58, 2, 0x1000, 0x1000, 0x70);
	virtio_cap(0x70, 4, 0x2000, 0x1000, 0x40);
	accesses = 0;
	assert_int_equal(virtio_pci_init(&vp, &dev, &why), HV_OK);
	assert_true((uintptr_t)vp.devcfg == 0xfe002000);
}

/*
 * A common structure shorter than its registers is refused and not kept:
 * the refusal's FAILED status went to offset 0x14 of it, past the 16
 * bytes given -- here the BAR's last 16 bytes, so past the BAR's end
 * (found by tests/fuzz/fuzz_virtio_pci.c).
 */
static void short_common_structure(void **state)
{
	struct virtio_pci vp;
	const char *why;

	(void)state;
	set_bar(0, 0xfe000000, 0xffffc000);
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAP_PTR] = 0x40;
	virtio_cap(0x40, 1, 0x3ff0, 0x10, 0);
	assert_int_equal(virtio_pci_init(&vp, &dev, &why), HV_ERR_DEVICE);
	assert_string_equal(why, "the common configuration is too short");
	assert_null(vp.common);
}

/*
 * What host_paging_map_mmio maps at most: a device window of up to 256
 * MiB below 2^52. A 64-bit BAR of a TiB whose virtio structure claims
 * 512 MiB is refused; it was mapped 2 MiB at a time, for ever with a
 * larger claim (found by tests/fuzz/fuzz_pci_bar.c).
 */
static void device_window_too_large(void **state)
{
	struct virtio_pci vp;
	const char *why;

	(void)state;
	assert_true(host_mmio_range_ok(0xfe000000, 0x4000));
	assert_true(host_mmio_range_ok(HOST_PHYS_LIMIT - MiB(256), MiB(256)));
	assert_false(host_mmio_range_ok(HOST_PHYS_LIMIT - MiB(2), MiB(4)));
	assert_false(host_mmio_range_ok(0, MiB(256) + 1));
	assert_false(host_mmio_range_ok(0xfe000000, 0));
	assert_false(host_mmio_range_ok(~0ull - 0xfff, 0x1000));
	set_bar(0, 0x0000000c, 0x0000000c);     /* 64-bit, 2^40 bytes */
	set_bar(1, 0x00000100, 0xffffff00);
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAP_PTR] = 0x40;
	virtio_cap(0x40, 1, 0, 0x20000000, 0);
	assert_int_equal(virtio_pci_init(&vp, &dev, &why), HV_ERR_DEVICE);
	assert_non_null(strstr(why, "cannot be mapped"));
}

/*
 * A virtio-blk function whose queue 0 takes at most 3 descriptors: the
 * largest power of two below is 2, which cannot hold a request (3
 * descriptors); it was brought up with no slot, every request refused.
 */
static void queue_too_small_for_a_request(void **state)
{
	static uint8_t bar[0x4000] __attribute__((aligned(0x4000)));
	uint32_t features = 1;                  /* VERSION_1 (bit 32) */
	uint16_t qmax = 3;
	uint64_t capacity = 2048;

	(void)state;
	cfg[PCI_VENDOR_ID] = 0xf4;
	cfg[PCI_VENDOR_ID + 1] = 0x1a;          /* 1af4: virtio */
	cfg[PCI_DEVICE_ID] = 0x42;
	cfg[PCI_DEVICE_ID + 1] = 0x10;          /* 1042: block */
	cfg[PCI_STATUS] = PCI_STATUS_CAP_LIST;
	cfg[PCI_CAP_PTR] = 0x40;
	set_bar(0, (uint32_t)(uintptr_t)bar | 4, 0xffffc004);
	set_bar(1, (uint32_t)((uintptr_t)bar >> 32), 0xffffffff);
	virtio_cap(0x40, 1, 0x0000, 0x38, 0x58);
	virtio_cap(0x58, 2, 0x1000, 0x1000, 0x70);
	cfg[0x58 + 16] = 4;                     /* notify multiplier */
	virtio_cap(0x70, 4, 0x2000, 0x1000, 0);
	memcpy(bar + 0x04, &features, 4);
	memcpy(bar + 0x18, &qmax, 2);
	memcpy(bar + 0x2000, &capacity, 8);
	console_forget();
	assert_null(virtio_blk_probe());
	assert_int_equal(console_nlines, 1);
	assert_non_null(strstr(console_lines[0],
			       "queue 0 is missing or too small"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
	const struct CMUnitTest tests[] = {
		T(bars_as_the_device_decodes_them),
		T(looping_capability_list),
		T(short_common_structure),
		T(queue_too_small_for_a_request),
		T(device_window_too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
