// SPDX-License-Identifier: BSD-2-Clause
#include "guest/io_mmio.h"

/* The table's entry for the xAPIC page (guest_mmio_access calls it directly). */
static enum io_claim lapic_mmio(struct vm *g, void *opaque, unsigned vcpu,
				uint64_t offset, unsigned size, bool write,
				uint64_t *value)
{
	(void)opaque;
	return guest_lapic_mmio(g, vcpu, offset, size, write, value);
}

/* IOREGSEL at any size, IOWIN and EOI at 32 bits (ioapic.h). */
static enum io_claim ioapic_mmio(struct vm *g, void *opaque, unsigned vcpu,
				 uint64_t offset, unsigned size, bool write,
				 uint64_t *value)
{
	(void)opaque;
	(void)vcpu;
	if (!write) {
		*value = ioapic_read(&g->dev.ioapic, offset, size);
		return IO_CLAIMED;
	}
	ioapic_write(&g->dev.ioapic, offset, size, (uint32_t)*value);
	return IO_CLAIMED_IRQ;
}

bool guest_io_mmio_register(struct vm *g)
{
	/* The APIC first: KVM too asks it before its MMIO bus. */
	const struct io_mmio_range lapic = {
		.len = VLAPIC_MMIO_SIZE,
		.vcpu_base = &g->plat[0].lapic.apic_base,
		.vcpu_stride = sizeof(g->plat[0]),
		.vcpu_base_mask = VLAPIC_BASE_ADDR_MASK,
		.fn = lapic_mmio,
	};
	const struct io_mmio_range ioapic = {
		.base = IOAPIC_BASE, .len = IOAPIC_PAGE_SIZE, .fn = ioapic_mmio,
	};

	return g->dev.io.nmmio == GUEST_MMIO_LAPIC &&
	       io_register_mmio(&g->dev.io, &lapic) == IO_REGISTERED &&
	       io_register_mmio(&g->dev.io, &ioapic) == IO_REGISTERED;
}

/* Under the devices' lock: a range that did not take the access. */
enum io_claim guest_mmio_pass_on(struct vm *g, unsigned vcpu, uint64_t gpa,
				 unsigned from, unsigned size, bool write,
				 uint64_t *value)
{
	uint64_t offset;
	int i;

	while ((i = io_find_mmio(&g->dev.io, vcpu, gpa, from, &offset)) >= 0) {
		const struct io_mmio_range *m = &g->dev.io.mmio[i];
		enum io_claim claim = m->fn(g, m->opaque, vcpu, offset, size,
					    write, value);

		if (claim != IO_UNCLAIMED)
			return claim;
		from = (unsigned)i + 1;
	}
	return IO_UNCLAIMED;
}
