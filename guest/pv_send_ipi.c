// SPDX-License-Identifier: BSD-2-Clause
#include "guest/pv_send_ipi.h"
#include "guest/interrupts.h"

/* The ICR's delivery mode (bits 10:8, SDM Vol. 3A 11.6.1). */
static bool ipi_mode(uint64_t icr, enum vlapic_ipi_mode *mode)
{
	switch ((icr >> 8) & 7) {
	case 0: *mode = VLAPIC_IPI_FIXED; return true;
	case 1: *mode = VLAPIC_IPI_LOWEST; return true;
	case 4: *mode = VLAPIC_IPI_NMI; return true;
	case 5: *mode = VLAPIC_IPI_INIT; return true;
	case 6: *mode = VLAPIC_IPI_SIPI; return true;
	default: return false;  /* SMI, reserved: nothing is sent */
	}
}

/* The vCPU whose APIC has physical ID id, or -1. */
static int vcpu_with_id(const struct vm *g, uint64_t id)
{
	for (unsigned n = 0; n < g->nvcpus; n++)
		if (g->plat[n].lapic.id == id)
			return (int)n;
	return -1;
}

static unsigned send_half(struct vm *g, struct vlapic_ipi *ipi,
			  uint64_t bitmap, uint64_t min, unsigned width)
{
	unsigned sent = 0;

	for (unsigned i = 0; i < width; i++) {
		if (!(bitmap >> i & 1) || min + i < min ||
		    vcpu_with_id(g, min + i) < 0)
			continue;
		ipi->dest = (uint32_t)(min + i);
		guest_deliver_ipi(g, ipi);
		sent++;
	}
	return sent;
}

unsigned guest_pv_send_ipi(struct vm *g, unsigned from, uint64_t low,
			   uint64_t high, uint64_t min, uint64_t icr,
			   bool wide)
{
	unsigned width = wide ? 64 : 32;
	struct vlapic_ipi ipi = {
		.shorthand = VLAPIC_DEST_FIELD,
		.vector = (uint8_t)icr,
		.logical = false,
		.source = g->plat[from].lapic.id,
	};
	unsigned sent;

	if (!ipi_mode(icr, &ipi.mode))
		return 0;
	/* Only IDs a vCPU has count; nothing above the largest is tried. */
	if (min >= MAX_VCPUS)
		return 0;
	vm_devices_lock(g);
	sent = send_half(g, &ipi, low, min, width);
	if (min + width < MAX_VCPUS)
		sent += send_half(g, &ipi, high, min + width, width);
	vm_devices_unlock(g, sent != 0);
	return sent;
}
