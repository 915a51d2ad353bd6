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

/* Registers them in g's I/O registry; false if one did not fit (a bug). */
bool guest_io_mmio_register(struct vm *g);

/*
 * The MMIO range (a device, or its hole) at gpa for vCPU vcpu: its index
 * in the registry, or -1.
 */
static inline int guest_mmio_find(struct vm *g, unsigned vcpu, uint64_t gpa)
{
	uint64_t offset;

	return io_find_mmio(&g->dev.io, vcpu, gpa, 0, &offset);
}

/* guest_mmio_access's rarer half: the ranges after index from. */
enum io_claim guest_mmio_pass_on(struct vm *g, unsigned vcpu, uint64_t gpa,
				 unsigned from, unsigned size, bool write,
				 uint64_t *value);

/*
 * One access of vCPU vcpu at gpa, which lies in range i
 * (guest_mmio_find's answer for it), size 1, 2, 4 or 8 bytes: *value is
 * the store's value, or receives the load's (all ones where no device
 * takes it; a store there is dropped). Inline: it is on the path of every
 * xAPIC register access.
 */
static inline void guest_mmio_access(struct vm *g, unsigned vcpu, int i,
				     uint64_t gpa, unsigned size, bool write,
				     uint64_t *value)
{
	const struct io_mmio_range *m;
	uint64_t offset;
	enum io_claim claim;

	if (!write)
		*value = ~0ull;         /* nothing there: all ones */
	if (i < 0)
		return;
	m = &g->dev.io.mmio[i];
	offset = gpa - io_mmio_base(m, vcpu);
	vm_devices_lock(g);
	claim = m->fn(g, m->opaque, vcpu, offset, size, write, value);
	if (claim == IO_UNCLAIMED)
		claim = guest_mmio_pass_on(g, vcpu, gpa, (unsigned)i + 1, size,
					   write, value);
	vm_devices_unlock(g, claim == IO_CLAIMED_IRQ);
}

#endif
