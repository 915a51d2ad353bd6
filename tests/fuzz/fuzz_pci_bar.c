/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the PCI configuration space a device presents, as
 * arch/x86/pci.c reads it: BAR decoding with the sizing protocol
 * (pci_bar_decode of every index), the capability list (pci_next_cap),
 * and the virtio 1.0 capabilities that place a virtio-PCI device's
 * structures in its BARs (arch/x86/virtio_pci.c virtio_pci_init). The input
 * is the function (tests/fuzz/fuzz_pci_device.h: 256 bytes of
 * configuration space, then the six BARs' sizing answers), then a
 * capability ID to walk.
 *
 * Beyond the sanitizers' checks:
 *   - a decode refuses exactly the indexes a type 0 header does not have
 *     (past BAR5, the upper half of a 64-bit BAR, a 64-bit BAR in BAR5,
 *     another header type), and an accepted one leaves the configuration
 *     space as it found it;
 *   - a decoded BAR's size is 0 or a power of two, its base aligned to
 *     its size (the address bits below the size are not the device's),
 *     and base + size does not wrap;
 *   - the capability walk ends, and every capability it returns lies in
 *     the device-specific part of the space, dword aligned, with the ID
 *     asked for;
 *   - virtio_pci_init accepts a device only with its common, notify and
 *     device-specific structures, each mapped inside the memory BAR its
 *     capability names, the common one at least 0x38 bytes; a refusal
 *     says why.
 */
#include <stdint.h>
#include <string.h>

#include "arch/x86/virtio_pci.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_pci_device.h"
#include "tests/fuzz/fuzz_script.h"

#define BAR_IO 1u
#define BAR_TYPE_64 4u

/* Whether BAR index is the upper half of a 64-bit one, from BAR0 on. */
static bool upper_half(const uint8_t *cfg, unsigned index)
{
	unsigned i = 0;

	while (i < index) {
		uint32_t v;

		memcpy(&v, cfg + PCI_BAR0 + 4 * i, 4);
		i += !(v & BAR_IO) && (v & 6) == BAR_TYPE_64 ? 2 : 1;
	}
	return i > index;
}

static void check_bar(const struct pci_device *d, unsigned index,
		      struct pci_bar *bar)
{
	uint8_t before[256];
	uint32_t lo;
	bool refuse;
	int rc;

	memcpy(before, fuzz_pci.cfg, sizeof(before));
	memcpy(&lo, before + PCI_BAR0 + 4 * (index % 6), 4);
	refuse = d->header_type != 0 || index >= 6 ||
		 upper_half(before, index) ||
		 (index == 5 && !(lo & BAR_IO) && (lo & 6) == BAR_TYPE_64);
	rc = pci_bar_decode(d, index, bar);
	CHECK(rc == (refuse ? -1 : 0));
	CHECK(!memcmp(before, fuzz_pci.cfg, sizeof(before)));
	for (unsigned i = 0; i < 6; i++)
		CHECK(!fuzz_pci.sizing[i]);
	if (rc)
		return;
	CHECK((bar->size & (bar->size - 1)) == 0);
	CHECK(!bar->size || (bar->base & (bar->size - 1)) == 0);
	CHECK(bar->base + bar->size >= bar->base);
	CHECK(!bar->io || (bar->base >> 32 == 0 && !bar->is64));
}

static void check_caps(const struct pci_device *d, uint8_t id)
{
	unsigned n = 0;

	for (uint8_t cap = pci_next_cap(d, id, 0); cap;
	     cap = pci_next_cap(d, id, cap)) {
		CHECK(cap >= 0x40 && cap % 4 == 0);
		CHECK(fuzz_pci.cfg[cap] == id);
		/* A looping list must not loop the walker. */
		if (++n > 64)
			return;
	}
}

static void check_virtio(const struct pci_device *d)
{
	struct virtio_pci vp;
	struct pci_bar bars[6];
	bool bar_ok[6];
	const char *why = (const char *)1;

	for (unsigned i = 0; i < 6; i++)
		bar_ok[i] = pci_bar_decode(d, i, &bars[i]) == 0 &&
			    !bars[i].io && bars[i].size && bars[i].base;
	fuzz_pci.nmaps = 0;
	if (virtio_pci_init(&vp, d, &why)) {
		CHECK(why && why[0]);
		return;
	}
	CHECK(why == NULL);
	CHECK(vp.common && vp.notify_base && vp.devcfg);
	/* Each structure mapped lies in one usable memory BAR; the common
	 * one is at least 0x38 bytes (another may share its address). */
	bool common_long = false;

	for (unsigned m = 0; m < fuzz_pci.nmaps; m++) {
		uint64_t at = fuzz_pci.maps[m].base, len = fuzz_pci.maps[m].size;
		bool inside = false;

		for (unsigned i = 0; i < 6; i++)
			inside |= bar_ok[i] && at >= bars[i].base &&
				  at - bars[i].base <= bars[i].size &&
				  len <= bars[i].size - (at - bars[i].base);
		CHECK(inside);
		common_long |= (uintptr_t)vp.common == at && len >= 0x38;
	}
	CHECK(common_long);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	struct pci_device d;
	struct pci_bar bar;
	uint8_t id;

	fuzz_pci_take(&in);
	id = (uint8_t)fuzz_take(&in, 1);
	d = fuzz_pci_device();
	for (unsigned i = 0; i <= 6; i++)
		check_bar(&d, i, &bar);
	check_caps(&d, id);
	check_caps(&d, PCI_CAP_ID_VENDOR);
	check_virtio(&d);
	return 0;
}
