// SPDX-License-Identifier: BSD-2-Clause
/*
 * Identify data (swap/drivers/nvme_identify.h). Section numbers are those of the
 * NVM Express Base Specification, revision 1.4; every field is
 * little-endian.
 */
#include "swap/drivers/nvme_identify.h"
#include "lib/bytes.h"
#include "lib/string.h"

#define MIN_LBA_SHIFT 9
#define MAX_LBA_SHIFT 12        /* PAGE_SIZE: a page is whole LBAs */

/* ASCII, padded with spaces (1.5 "ASCII string"): cut the padding. */
static void copy_ascii(char *out, const uint8_t *in, size_t len)
{
	memcpy(out, in, len);
	out[len] = '\0';
	while (len && (out[len - 1] == ' ' || out[len - 1] == '\0'))
		out[--len] = '\0';
	for (size_t i = 0; i < len; i++)
		if (out[i] < 0x20 || out[i] > 0x7e)
			out[i] = '?';
}

void nvme_parse_ctrl_info(const uint8_t *page, struct nvme_ctrl_info *out)
{
	out->vendor = (uint16_t)le_get(page, NVME_ID_CTRL_VID, 2);
	copy_ascii(out->serial, page + NVME_ID_CTRL_SN, NVME_ID_CTRL_SN_LEN);
	copy_ascii(out->model, page + NVME_ID_CTRL_MN, NVME_ID_CTRL_MN_LEN);
	out->namespaces = (uint32_t)le_get(page, NVME_ID_CTRL_NN, 4);
}

enum nvme_ns_verdict nvme_parse_ns_info(const uint8_t *page,
					struct nvme_ns_info *out,
					const char **why)
{
	unsigned format = NVME_FLBAS_INDEX(page[NVME_ID_NS_FLBAS]);
	uint32_t lbaf;

	*why = NULL;
	out->lbas = le_get(page, NVME_ID_NS_NSZE, 8);
	out->lba_shift = 0;
	/* 5.15.2.1: an inactive NSID returns a zero-filled structure. */
	if (!out->lbas)
		return NVME_NS_INACTIVE;
	/* NLBAF is 0-based. */
	if (format > page[NVME_ID_NS_NLBAF]) {
		*why = "its LBA format index is past the formats it lists";
		return NVME_NS_UNUSABLE;
	}
	lbaf = (uint32_t)le_get(page, NVME_ID_NS_LBAF + 4 * format, 4);
	out->lba_shift = NVME_LBAF_LBADS(lbaf);
	if (NVME_LBAF_MS(lbaf)) {
		*why = "its LBA format carries metadata";
		return NVME_NS_UNUSABLE;
	}
	if (out->lba_shift < MIN_LBA_SHIFT || out->lba_shift > MAX_LBA_SHIFT) {
		*why = "its LBA size is not 512 to 4096 bytes";
		return NVME_NS_UNUSABLE;
	}
	if (out->lbas > (UINT64_MAX >> out->lba_shift) ||
	    (out->lbas << out->lba_shift) < PAGE_SIZE) {
		*why = "its size is below one page or beyond 2^64 bytes";
		return NVME_NS_UNUSABLE;
	}
	return NVME_NS_USABLE;
}
