// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/io_mmio.h"
#include "guest/devices/vlapic_mmio.h"
#include "guest/interrupts.h"
#include "arch/x86/cpu.h"

static uint64_t lapic_where(struct vm *g, void *opaque, unsigned vcpu)
{
	(void)opaque;
	return vlapic_mmio_base(&g->plat[vcpu].lapic);
}

/*
 * The vCPU's own xAPIC page: registers in xAPIC mode, else not taken (a
 * hole, or the device under it). A store may send an IPI or an EOI.
 */
static enum io_claim lapic_mmio(struct vm *g, void *opaque, unsigned vcpu,
				uint64_t offset, unsigned size, bool write,
				uint64_t *value)
{
	struct vlapic *a = &g->plat[vcpu].lapic;
	struct vlapic_ipi ipi;

	(void)opaque;
	if (!vlapic_xapic_mode(a))
		return IO_UNCLAIMED;
	if (!write) {
		*value = vlapic_mmio_read(a, (uint32_t)offset, size, rdtsc());
		return IO_CLAIMED;
	}
	guest_lapic_written(g, a,
			    vlapic_mmio_write(a, (uint32_t)offset, size,
					      (uint32_t)*value, rdtsc(), &ipi),
			    &ipi);
	return IO_CLAIMED_IRQ;
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
		.len = VLAPIC_MMIO_SIZE, .where = lapic_where, .fn = lapic_mmio,
	};
	const struct io_mmio_range ioapic = {
		.base = IOAPIC_BASE, .len = IOAPIC_PAGE_SIZE, .fn = ioapic_mmio,
	};

	return io_register_mmio(&g->dev.io, &lapic) == IO_REGISTERED &&
	       io_register_mmio(&g->dev.io, &ioapic) == IO_REGISTERED;
}

void guest_mmio_access(struct vm *g, unsigned vcpu, uint64_t gpa,
		       unsigned size, bool write, uint64_t *value)
{
	uint64_t offset;
	int i = io_find_mmio(&g->dev.io, g, vcpu, gpa, 0, &offset);
	enum io_claim claim = IO_UNCLAIMED;

	if (!write)
		*value = ~0ull;         /* nothing there: all ones (a PC's bus) */
	if (i < 0)
		return;
	vm_devices_lock(g);
	while (i >= 0) {
		const struct io_mmio_range *m = &g->dev.io.mmio[i];

		claim = m->fn(g, m->opaque, vcpu, offset, size, write, value);
		if (claim != IO_UNCLAIMED)
			break;
		i = io_find_mmio(&g->dev.io, g, vcpu, gpa, (unsigned)i + 1,
				 &offset);
	}
	vm_devices_unlock(g, claim == IO_CLAIMED_IRQ);
}
