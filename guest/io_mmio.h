/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's emulated MMIO devices, registered in the VM's I/O registry
 * (guest/devices/io_registry.h): the xAPIC page of each vCPU's local APIC
 * at its IA32_APIC_BASE (guest/devices/vlapic_mmio.h; a hole that reads
 * all ones when that APIC is disabled or in x2APIC mode) and the I/O
 * APIC's page (guest/devices/ioapic.h). vmx/exit_mmio.c decodes the
 * instruction and hands the access over here; the handlers run under the
 * devices' lock.
 */
#ifndef GUEST_IO_MMIO_H
#define GUEST_IO_MMIO_H

#include "guest/vm.h"
#include "guest/interrupts.h"
#include "guest/devices/vlapic_mmio.h"
#include "arch/x86/cpu.h"

/*
 * The xAPIC page is registered first, so its range is index 0: an access
 * there is handed to the APIC directly rather than through the table's
 * function pointer, as KVM asks the APIC before its MMIO bus
 * (vcpu_mmio_write). It is the one MMIO page a running guest touches
 * often (every EOI and IPI in xAPIC mode).
 */
#define GUEST_MMIO_LAPIC 0

/* Registers them in g's I/O registry; false if one did not fit (a bug). */
bool guest_io_mmio_register(struct vm *g);

/* Where an MMIO access lands: a range of the registry, and the offset. */
struct guest_mmio_hit {
	int range;              /* index in the registry, or -1: nothing */
	uint64_t offset;        /* from the range's base for this vCPU */
};

/*
 * The MMIO range (a device, or its hole) at gpa for vCPU vcpu; false
 * (hit->range -1) where there is none.
 */
static inline bool guest_mmio_find(struct vm *g, unsigned vcpu, uint64_t gpa,
				   struct guest_mmio_hit *hit)
{
	hit->range = io_find_mmio(&g->dev.io, vcpu, gpa, 0, &hit->offset);
	return hit->range >= 0;
}

/*
 * vCPU vcpu's own xAPIC page: its registers in xAPIC mode, else not taken
 * (a hole, or the device under it). A store may send an IPI or an EOI.
 */
static inline enum io_claim guest_lapic_mmio(struct vm *g, unsigned vcpu,
					     uint64_t offset, unsigned size,
					     bool write, uint64_t *value)
{
	struct vlapic *a = &g->plat[vcpu].lapic;
	struct vlapic_ipi ipi;

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

/* guest_mmio_access's rarer half: the ranges after index from. */
enum io_claim guest_mmio_pass_on(struct vm *g, unsigned vcpu, uint64_t gpa,
				 unsigned from, unsigned size, bool write,
				 uint64_t *value);

/*
 * One access of vCPU vcpu at gpa, which lies where hit says
 * (guest_mmio_find's answer for it; NULL: nowhere), size 1, 2, 4 or 8
 * bytes: *value is
 * the store's value, or receives the load's (all ones where no device
 * takes it; a store there is dropped). Inline: it is on the path of every
 * xAPIC register access.
 */
static inline void guest_mmio_access(struct vm *g, unsigned vcpu,
				     const struct guest_mmio_hit *hit,
				     uint64_t gpa, unsigned size, bool write,
				     uint64_t *value)
{
	const struct io_mmio_range *m;
	uint64_t offset;
	enum io_claim claim;
	int i;

	if (!write)
		*value = ~0ull;         /* nothing there: all ones */
	if (!hit || hit->range < 0)
		return;
	i = hit->range;
	m = &g->dev.io.mmio[i];
	offset = hit->offset;
	if (m->own_locking) {
		m->fn(g, m->opaque, vcpu, offset, size, write, value);
		return;
	}
	vm_devices_lock(g);
	if (i == GUEST_MMIO_LAPIC)
		claim = guest_lapic_mmio(g, vcpu, offset, size, write, value);
	else
		claim = m->fn(g, m->opaque, vcpu, offset, size, write, value);
	if (claim == IO_UNCLAIMED)
		claim = guest_mmio_pass_on(g, vcpu, gpa, (unsigned)i + 1, size,
					   write, value);
	vm_devices_unlock(g, claim == IO_CLAIMED_IRQ);
}

#endif
