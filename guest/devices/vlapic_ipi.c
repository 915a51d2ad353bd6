// SPDX-License-Identifier: BSD-2-Clause
/*
 * The local APIC's interrupt command register and the destinations of the
 * IPIs it sends, in xAPIC and x2APIC mode. Section numbers are those of
 * the Intel SDM Vol. 3A, chapter 11.
 */
#include "guest/devices/vlapic_ipi.h"

/* ICR in x2APIC mode (11.12.9): no delivery status; 63:32 destination. */
#define ICR_WRITABLE 0xffffffff000ccfffull
#define ICR_LOW_WRITABLE 0x000ccfffull
#define ICR_DEST_SHIFT 32
#define ICR_LOGICAL BIT(11)
#define ICR_ASSERT BIT(14)
#define ICR_LEVEL_TRIGGER BIT(15)
enum { DM_FIXED, DM_LOWEST, DM_SMI, DM_NMI = 4, DM_INIT, DM_SIPI };
/* xAPIC mode (11.6.1): an 8-bit destination in ICR high bits 31:24. */
#define XAPIC_DEST_SHIFT 24
#define XAPIC_BROADCAST 0xffu
#define DFR_MODEL_FLAT 0xfu             /* DFR bits 31:28; cluster is 0 */

/* 11.12.10.2: cluster = ID[19:4] in LDR[31:16], bit ID[3:0] in LDR[15:0]. */
uint32_t vlapic_x2apic_ldr(const struct vlapic *a)
{
	return ((a->id >> 4) << 16) | (1u << (a->id & 0xf));
}

/* A fixed or lowest-priority IPI needs a vector of 16 or more (11.5.3). */
static int vectored_mode(struct vlapic *a, uint64_t icr, int mode)
{
	if ((icr & 0xff) >= VLAPIC_FIRST_LEGAL_VECTOR)
		return mode;
	vlapic_report_error(a, VLAPIC_ESR_SEND_ILLEGAL);
	return -1;
}

/* The delivery mode, or -1 when the write sends nothing. */
static int icr_mode(struct vlapic *a, uint64_t icr)
{
	switch ((icr >> 8) & 7) {
	case DM_FIXED:
		return vectored_mode(a, icr, VLAPIC_IPI_FIXED);
	case DM_LOWEST:
		if (!vlapic_x2apic_mode(a))
			return vectored_mode(a, icr, VLAPIC_IPI_LOWEST);
		/* 11.5.3: not processed in x2APIC mode, and no illegal-
		 * vector check either; only "redirectable IPI" is logged. */
		vlapic_report_error(a, VLAPIC_ESR_REDIRECTABLE_IPI);
		return -1;
	case DM_NMI:
		return VLAPIC_IPI_NMI;
	case DM_INIT:
		/* INIT level de-assert synchronizes arbitration IDs on old
		 * buses (11.6.1); Linux still sends it after each INIT
		 * (smpboot.c: wakeup_secondary_cpu_via_init). Not an INIT. */
		if ((icr & ICR_LEVEL_TRIGGER) && !(icr & ICR_ASSERT))
			return -1;
		return VLAPIC_IPI_INIT;
	case DM_SIPI:
		return VLAPIC_IPI_SIPI;
	default:
		return -1;      /* SMI is not modelled; 011b, 111b reserved */
	}
}

/* The destination field of the ICR; xAPIC's 0xff broadcasts (11.6.2). */
static uint32_t icr_dest(const struct vlapic *a)
{
	uint32_t dest = (uint32_t)(a->icr >> ICR_DEST_SHIFT);

	if (!vlapic_x2apic_mode(a) && dest == XAPIC_BROADCAST)
		return VLAPIC_BROADCAST_ID;
	return dest;
}

/*
 * Sends what a->icr holds. The self and all-including-self shorthands are
 * valid only with fixed delivery (11.6.1, valid ICR combinations); other
 * combinations are dropped.
 */
static int send_icr(struct vlapic *a, struct vlapic_ipi *out)
{
	uint64_t icr = a->icr;
	struct vlapic_ipi ipi;
	int mode = icr_mode(a, icr);

	if (mode < 0)
		return 0;
	ipi = (struct vlapic_ipi){
		.mode = (enum vlapic_ipi_mode)mode,
		.shorthand = (enum vlapic_shorthand)(icr >> 18 & 3),
		.vector = icr & 0xff, .logical = icr & ICR_LOGICAL,
		.dest = icr_dest(a), .source = a->id,
	};
	if (mode != VLAPIC_IPI_FIXED && (ipi.shorthand == VLAPIC_DEST_SELF ||
					 ipi.shorthand == VLAPIC_DEST_ALL))
		return 0;
	if (out)
		*out = ipi;
	return VLAPIC_WR_IPI;
}

/*
 * x2APIC (11.12.9): one 64-bit write sends. xAPIC (11.6.1): the write of
 * the low half sends, to the destination ICR high holds; the delivery
 * status bit reads 0 (idle) since the IPI is routed at once.
 */
int vlapic_icr_write(struct vlapic *a, uint64_t val, struct vlapic_ipi *out)
{
	if (vlapic_x2apic_mode(a)) {
		if (val & ~ICR_WRITABLE)
			return VLAPIC_GP;
		a->icr = val;
	} else {
		a->icr = (a->icr & ~0xffffffffull) | (val & ICR_LOW_WRITABLE);
	}
	return send_icr(a, out);
}

/* 11.6.2.2: the flat and cluster models of an xAPIC's LDR and DFR. */
static bool xapic_logical_match(const struct vlapic *a, uint32_t mda)
{
	uint32_t ldr = a->ldr >> XAPIC_DEST_SHIFT;

	if ((a->dfr >> 28) == DFR_MODEL_FLAT)
		return mda & ldr;
	return (mda >> 4) == (ldr >> 4) && (mda & ldr & 0xf);
}

/* 11.12.9, 11.12.10: shorthands, broadcast, physical and logical IDs. */
bool vlapic_ipi_targets(const struct vlapic *a, const struct vlapic_ipi *ipi)
{
	uint32_t ldr = vlapic_x2apic_ldr(a);

	switch (ipi->shorthand) {
	case VLAPIC_DEST_SELF:
		return a->id == ipi->source;
	case VLAPIC_DEST_ALL:
		return true;
	case VLAPIC_DEST_ALL_BUT_SELF:
		return a->id != ipi->source;
	default:
		break;
	}
	if (ipi->dest == VLAPIC_BROADCAST_ID)
		return true;
	if (!ipi->logical)
		return ipi->dest == a->id;
	if (!vlapic_x2apic_mode(a))
		return xapic_logical_match(a, ipi->dest & 0xff);
	return (ipi->dest >> 16) == (ldr >> 16) && (ipi->dest & ldr & 0xffff);
}

void vlapic_icr_high_write(struct vlapic *a, uint32_t val)
{
	a->icr = (uint64_t)(val >> XAPIC_DEST_SHIFT) << ICR_DEST_SHIFT |
		 (uint32_t)a->icr;
}

/* xAPIC: the low half; delivery status (bit 12) always reads idle. */
uint64_t vlapic_icr_read(const struct vlapic *a)
{
	return vlapic_x2apic_mode(a) ? a->icr : (uint32_t)a->icr;
}

uint32_t vlapic_icr_high_read(const struct vlapic *a)
{
	return (uint32_t)(a->icr >> ICR_DEST_SHIFT) << XAPIC_DEST_SHIFT;
}
