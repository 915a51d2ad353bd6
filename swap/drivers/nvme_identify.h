/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fields of the Identify Controller and Identify Namespace data (NVMe
 * 1.4, 5.15.2) the driver uses, and whether a namespace can hold swap:
 * plain C over the 4 KiB the controller returned.
 */
#ifndef SWAP_NVME_IDENTIFY_H
#define SWAP_NVME_IDENTIFY_H

#include "swap/drivers/nvme_defs.h"

struct nvme_ctrl_info {
	uint16_t vendor;
	char serial[NVME_ID_CTRL_SN_LEN + 1];   /* trailing spaces cut */
	char model[NVME_ID_CTRL_MN_LEN + 1];
	uint32_t namespaces;                    /* NN: highest valid NSID */
};

struct nvme_ns_info {
	uint64_t lbas;                          /* NSZE */
	unsigned lba_shift;                     /* LBA size = 1 << it */
};

enum nvme_ns_verdict {
	NVME_NS_USABLE,
	NVME_NS_INACTIVE,       /* all zeros: no namespace at that ID */
	NVME_NS_UNUSABLE,       /* why says what is wrong with it */
};

void nvme_parse_ctrl_info(const uint8_t *page, struct nvme_ctrl_info *out);

/*
 * The size and LBA size of a namespace. Usable: LBAs of 512 to 4096 bytes
 * without metadata (4 KiB pages then span whole LBAs), at least one page.
 */
enum nvme_ns_verdict nvme_parse_ns_info(const uint8_t *page,
					struct nvme_ns_info *out,
					const char **why);

#endif
