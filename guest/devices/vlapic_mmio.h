/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The xAPIC register page of one local APIC (SDM Vol. 3A 11.4.1, Table
 * 11-1): 4 KiB at IA32_APIC_BASE[51:12], 0xfee00000 after reset, one
 * 32-bit register at each 16-byte aligned offset (register number =
 * offset / 16, guest/devices/vlapic.h). Every vCPU has its own APIC at the same
 * address: the caller passes the APIC of the vCPU that made the access.
 * The page is the APIC only in xAPIC mode; in x2APIC mode and when the
 * APIC is disabled it is not (11.12.1.2, 11.4.3): there it is a hole
 * where a load of any size reads all ones and a store is dropped, as
 * KVM's default (KVM_X86_QUIRK_LAPIC_MMIO_HOLE: arch/x86/kvm/lapic.c,
 * apic_mmio_read and apic_mmio_write, !kvm_apic_hw_enabled() ||
 * apic_x2apic_mode()), the same answer as an address with nothing there.
 */
#ifndef GUEST_VLAPIC_MMIO_H
#define GUEST_VLAPIC_MMIO_H

#include "guest/devices/vlapic.h"

#define VLAPIC_MMIO_SIZE 0x1000u

static inline uint64_t vlapic_mmio_base(const struct vlapic *a)
{
	return a->apic_base & VLAPIC_BASE_ADDR_MASK;
}

/* The page at IA32_APIC_BASE, in every mode (KVM: apic_mmio_in_range). */
static inline bool vlapic_mmio_in_range(const struct vlapic *a, uint64_t gpa)
{
	return gpa - vlapic_mmio_base(a) < VLAPIC_MMIO_SIZE;
}

/* The registers answer there: the page in xAPIC mode. */
static inline bool vlapic_mmio_owns(const struct vlapic *a, uint64_t gpa)
{
	return vlapic_xapic_mode(a) && vlapic_mmio_in_range(a, gpa);
}

/*
 * A load of size bytes (1, 2, 4 or 8) at offset in the page: the bytes of
 * the 32-bit register there; reserved registers, write-only ones and
 * bytes 4-15 of each 16-byte slot read 0.
 */
uint64_t vlapic_mmio_read(const struct vlapic *a, uint32_t offset,
			  unsigned size, uint64_t now_tsc);
/*
 * A store: a 32-bit write at a 16-byte aligned offset reaches the
 * register (11.4.1: other accesses are undefined; they are dropped, as
 * KVM drops them). Returns 0 or VLAPIC_WR_* flags, never VLAPIC_GP: a
 * write a register refuses is dropped.
 */
int vlapic_mmio_write(struct vlapic *a, uint32_t offset, unsigned size,
		      uint32_t val, uint64_t now_tsc,
		      struct vlapic_ipi *ipi_out);

#endif
