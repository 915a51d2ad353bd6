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

/* Whether an MMIO device (or its hole) lies at gpa for vCPU vcpu. */
static inline bool guest_mmio_owns(struct vm *g, unsigned vcpu, uint64_t gpa)
{
	uint64_t offset;

	return io_find_mmio(&g->dev.io, g, vcpu, gpa, 0, &offset) >= 0;
}

/*
 * One access of vCPU vcpu, size 1, 2, 4 or 8 bytes: *value is the store's
 * value, or receives the load's (all ones where no device takes it; a
 * store there is dropped).
 */
void guest_mmio_access(struct vm *g, unsigned vcpu, uint64_t gpa,
		       unsigned size, bool write, uint64_t *value);

#endif
