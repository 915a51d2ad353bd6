/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local APIC's interrupt command register and IPI destinations (SDM
 * Vol. 3A 11.6, 11.12.9, 11.12.10) in both modes, over the register state
 * of struct vlapic. Used by guest/devices/vlapic.c only; vlapic_ipi_targets() is
 * public (vlapic.h).
 */
#ifndef GUEST_VLAPIC_IPI_H
#define GUEST_VLAPIC_IPI_H

#include "guest/devices/vlapic.h"

/*
 * A write of the ICR: in x2APIC mode all 64 bits (reserved bits #GP), in
 * xAPIC mode the low half, to the destination ICR high holds. Both send:
 * VLAPIC_GP, 0 (nothing sent) or VLAPIC_WR_IPI with *out filled.
 */
int vlapic_icr_write(struct vlapic *a, uint64_t val, struct vlapic_ipi *out);
/* xAPIC mode's ICR high: the destination in bits 31:24. */
void vlapic_icr_high_write(struct vlapic *a, uint32_t val);
uint64_t vlapic_icr_read(const struct vlapic *a);
uint32_t vlapic_icr_high_read(const struct vlapic *a);
/* The LDR of x2APIC mode, derived from the ID (11.12.10.2). */
uint32_t vlapic_x2apic_ldr(const struct vlapic *a);
/*
 * Logs an error in the ESR and raises the LVT error interrupt (11.5.3;
 * guest/devices/vlapic.c).
 */
void vlapic_report_error(struct vlapic *a, uint32_t esr_bit);

#endif
