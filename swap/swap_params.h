/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the configuration asks of the swap layer (boot/ fills it from
 * apfvisor.cfg): which device, the policies, and the debug switches.
 */
#ifndef SWAP_SWAP_PARAMS_H
#define SWAP_SWAP_PARAMS_H

#include "lib/types.h"

enum swap_device_kind {
	SWAP_DEVICE_NONE,
	SWAP_DEVICE_AUTO,
	SWAP_DEVICE_VIRTIO_BLK,
	SWAP_DEVICE_ATA,
	SWAP_DEVICE_NVME,
	SWAP_DEVICE_AHCI,
	SWAP_DEVICE_NBD,        /* swap.device = nbd://...: far memory */
};

/* swap.device = nbd://A.B.C.D[:PORT]/EXPORT[, ...]: the servers, in order. */
#define SWAP_REMOTE_MAX         4
#define SWAP_EXPORT_NAME_MAX    64      /* with its NUL */
#define SWAP_NBD_DEFAULT_PORT   10809   /* IANA's port for NBD */

struct swap_remote {
	uint32_t ip;            /* host order: 10.0.2.2 is 0x0a000202 */
	uint16_t port;
	char export_name[SWAP_EXPORT_NAME_MAX];
};

/* swap.spare: servers held in reserve for a set with copies. */
struct swap_server_list {
	unsigned count;
	struct swap_remote at[SWAP_REMOTE_MAX];
};

struct swap_remotes {
	unsigned count;
	struct swap_remote at[SWAP_REMOTE_MAX];
	unsigned replicas;      /* swap.replicas: copies of each page */
	unsigned timeout_s;     /* swap.timeout: a server away, then failed */
	struct swap_server_list spares;         /* swap.spare */
};

/* swap.policy: which pages go when frames run short (swap/policy/). */
enum swap_evict_kind {
	SWAP_EVICT_CLOCK,
	SWAP_EVICT_FIFO,
	SWAP_EVICT_RANDOM,
	SWAP_EVICT_AGING,
};

/* swap.prefetch: what else is read when a fault starts a swap-in. */
enum swap_prefetch_kind {
	SWAP_PREFETCH_NONE,
	SWAP_PREFETCH_SEQUENTIAL,
	SWAP_PREFETCH_STRIDE,
	SWAP_PREFETCH_REPLAY,
};

/* swap.tier: where victims go before the disk. */
enum swap_tier_kind {
	SWAP_TIER_NONE,
	SWAP_TIER_LZ4,
};

struct swap_params {
	enum swap_device_kind device;   /* swap.device */
	/* debug.swap_fail_reads/_writes: fail every Nth read/write (0: no) */
	uint32_t fail_reads, fail_writes;
	bool verify;                    /* debug.swap_verify: checksum pages */
	uint64_t read_latency_ns;       /* swap.read_latency */
	enum swap_evict_kind policy;    /* swap.policy */
	enum swap_prefetch_kind prefetch;       /* swap.prefetch */
	unsigned prefetch_depth;        /* swap.prefetch_depth: pages */
	bool protect_kernel;            /* swap.protect_kernel */
	bool whole_page_stores;         /* swap.whole_page_stores */
	enum swap_tier_kind tier;       /* swap.tier */
	uint64_t tier_size;             /* swap.tier_size: bytes of slots */
	/* swap.prefetch_trace, as read from the ESP (replay's fault list). */
	const char *replay_list;
	uint64_t replay_list_len;
};

#endif
