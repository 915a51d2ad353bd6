// SPDX-License-Identifier: BSD-2-Clause
/*
 * Finding the swap device: probe the drivers swap.device allows, read the
 * first page of what they find, and take the first device whose header
 * checks out (swap/swap_format.c). The only I/O here is that one read.
 */
#include "swap/swap_device.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/heap.h"
#include "lib/console.h"
#include "lib/string.h"
#include "swap/drivers/ahci.h"
#include "swap/drivers/ata.h"
#include "swap/drivers/nbd.h"
#include "swap/blockdev_stripe.h"
#include "swap/drivers/nvme.h"
#include "swap/drivers/virtio_blk.h"

/* Reading one page takes microseconds; a device silent this long is dead. */
#define HEADER_READ_TIMEOUT_MS 10000
/* Ticks per second assumed before tsc_calibrate() has run. */
#define UNCALIBRATED_TSC_HZ 1000000000ull
#define ERR_LEN 160

/* swap.device = nbd://...: the servers and the network to reach them. */
static struct swap_remotes remotes;
static struct net_config remote_net;

/* The pages swap_device_open read headers into (swap_device_fill_buffers). */
static uint8_t *header_pages[BLOCKDEV_MAX];
static unsigned nheader_pages;

const char *swap_device_kind_name(enum swap_device_kind kind)
{
	switch (kind) {
	case SWAP_DEVICE_AUTO: return "auto";
	case SWAP_DEVICE_VIRTIO_BLK: return "virtio-blk";
	case SWAP_DEVICE_ATA: return "ata";
	case SWAP_DEVICE_NVME: return "nvme";
	case SWAP_DEVICE_AHCI: return "ahci";
	case SWAP_DEVICE_NBD: return "nbd";
	default: return "none";
	}
}

enum hv_err blk_run_sync(struct blockdev *dev, enum blk_op op,
			 uint64_t offset, uint64_t buffer_pa,
			 unsigned timeout_ms)
{
	struct blk_request req = { .op = op, .offset = offset,
				   .buffer_pa = buffer_pa };
	uint64_t hz = tsc_hz ? tsc_hz : UNCALIBRATED_TSC_HZ;
	uint64_t start = rdtsc(), limit = hz / 1000 * timeout_ms;
	struct blk_completion c;
	enum hv_err err = blk_submit(dev, &req);

	if (err)
		return err;
	while (!blk_poll(dev, &c, 1)) {
		if (rdtsc() - start > limit)
			return HV_ERR_TIMEOUT;
		cpu_relax();
	}
	return c.status == BLK_OK ? HV_OK : HV_ERR_IO;
}

enum hv_err blockdev_check_header(struct blockdev *dev, uint8_t *page,
				  blockdev_header_parser parse,
				  struct swap_header_info *hdr, char *err,
				  size_t err_len)
{
	enum hv_err e = HV_OK;

	memset(page, 0, SWAP_HEADER_SIZE);
	if (dev->size >= SWAP_HEADER_SIZE)
		e = blk_run_sync(dev, BLK_READ, 0, (uint64_t)(uintptr_t)page,
				 HEADER_READ_TIMEOUT_MS);
	if (e == HV_ERR_IO) {
		str_copy(err, "reading the header failed (I/O error)",
			 err_len);
		return e;
	}
	/* Not accepted by an idle device, or not done: as good as silent. */
	if (e) {
		str_copy(err, "reading the header timed out", err_len);
		return e;
	}
	return parse(page, dev->size, hdr, err, err_len);
}

void swap_device_set_remotes(const struct swap_remotes *r,
			     const struct net_config *net)
{
	remotes = *r;
	remote_net = *net;
}

/*
 * swap.spare: each server in reserve is connected to and its header
 * checked now; one that cannot be used is said and left out (the set
 * works without it).
 */
static void add_spares(struct blockdev *set)
{
	const struct swap_server_list *sp = &remotes.spares;
	struct swap_header_info hdr;
	char err[ERR_LEN];

	for (unsigned i = 0; i < sp->count; i++) {
		struct nbd_target t = {
			.ip = sp->at[i].ip, .port = sp->at[i].port,
			.export_name = sp->at[i].export_name,
			.give_up_ms = remotes.timeout_s * 1000u,
		};
		struct blockdev *dev = nbd_open(&t, err, sizeof(err));
		uint8_t *page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);

		if (!dev) {
			hv_error("swap: spare: nbd: %s", err);
			continue;
		}
		if (blockdev_check_header(dev, page, swap_header_parse, &hdr,
					  err, sizeof(err)) != HV_OK ||
		    !blockdev_stripe_add_spare(set, dev, page,
					       remotes.timeout_s * tsc_hz,
					       err, sizeof(err))) {
			hv_error("swap: spare: %s: %s", dev->name, err);
			continue;
		}
		hv_info("swap: spare: %s, in reserve", dev->name);
	}
}

/*
 * Several servers make one set (swap/blockdev_stripe.h): each must carry
 * its own swap header, all alike, or none is written to.
 */
static struct blockdev *make_set(struct blockdev **members, unsigned n)
{
	const uint8_t *headers[SWAP_REMOTE_MAX];
	struct swap_header_info hdr;
	char err[ERR_LEN];
	struct blockdev *set;

	for (unsigned i = 0; i < n; i++) {
		uint8_t *page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);

		if (blockdev_check_header(members[i], page, swap_header_parse,
					  &hdr, err, sizeof(err)) != HV_OK) {
			hv_error("swap: %s: %s", members[i]->name, err);
			return NULL;
		}
		headers[i] = page;
	}
	set = blockdev_stripe_create(members, headers, n, remotes.replicas,
				     err, sizeof(err));
	if (!set)
		hv_error("swap: nbd: %s", err);
	else
		add_spares(set);
	return set;
}

/* Each server of swap.device = nbd://..., once the network is up. */
static unsigned nbd_open_all(struct blockdev **out, unsigned max)
{
	static struct blockdev *opened;
	static bool tried;
	struct blockdev *members[SWAP_REMOTE_MAX];
	unsigned n = 0;
	char err[ERR_LEN];

	if (!tried) {
		tried = true;
		if (!remotes.count) {
			hv_error("swap: swap.device = nbd names no server");
			return 0;
		}
		if (remotes.replicas > remotes.count) {
			hv_error("swap: swap.replicas = %u needs as many "
				 "servers in swap.device (it names %u)",
				 remotes.replicas, remotes.count);
			return 0;
		}
		if (net_start(&remote_net) != HV_OK)
			return 0;       /* net_start said why */
		for (unsigned i = 0; i < remotes.count; i++) {
			const struct swap_remote *r = &remotes.at[i];
			struct nbd_target t = {
				.ip = r->ip, .port = r->port,
				.export_name = r->export_name,
				.give_up_ms = remotes.timeout_s * 1000u,
			};
			struct blockdev *dev = nbd_open(&t, err, sizeof(err));

			if (!dev) {
				hv_error("swap: nbd: %s", err);
				return 0;       /* a set is whole or not used */
			}
			members[n++] = dev;
		}
		opened = n == 1 && remotes.replicas <= 1 ? members[0]
							 : make_set(members, n);
	}
	if (!opened || !max)
		return 0;
	out[0] = opened;
	return 1;
}

unsigned blockdev_find_all(enum swap_device_kind kind, struct blockdev **out,
			   unsigned max)
{
	unsigned n = 0;

	if (kind == SWAP_DEVICE_NONE)
		return 0;
	if (kind == SWAP_DEVICE_NBD)
		return nbd_open_all(out, max);
	if (kind == SWAP_DEVICE_AUTO || kind == SWAP_DEVICE_VIRTIO_BLK)
		n += virtio_blk_probe_all(out + n, max - n);
	if (kind == SWAP_DEVICE_AUTO || kind == SWAP_DEVICE_NVME)
		n += nvme_probe_all(out + n, max - n);
	if (kind == SWAP_DEVICE_AUTO || kind == SWAP_DEVICE_AHCI)
		n += ahci_probe_all(out + n, max - n);
	if (kind == SWAP_DEVICE_AUTO || kind == SWAP_DEVICE_ATA)
		n += ata_probe_all(out + n, max - n);
	return n;
}

static bool all_trace_disks(const bool *is_trace, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!is_trace[i])
			return false;
	return true;
}

static void report(const struct blockdev *dev,
		   const struct swap_header_info *hdr)
{
	char uuid[SWAP_UUID_STR_LEN];

	swap_uuid_format(hdr->uuid, uuid);
	hv_info("swap: %s, %llu MiB, %llu pages, uuid %s", dev->name,
		(unsigned long long)(hdr->device_size >> 20),
		(unsigned long long)hdr->page_count, uuid);
}

unsigned swap_device_fill_buffers(uint64_t value)
{
	for (unsigned i = 0; i < nheader_pages; i++)
		for (unsigned j = 0; j < PAGE_SIZE; j += sizeof(value))
			memcpy(header_pages[i] + j, &value, sizeof(value));
	ata_fill_drain_buffer(value);
	return nheader_pages + 1;
}

struct blockdev *swap_device_open(enum swap_device_kind kind,
				  struct swap_header_info *hdr)
{
	struct blockdev *found[BLOCKDEV_MAX];
	char err[ARRAY_SIZE(found)][ERR_LEN];
	bool trace_disk[ARRAY_SIZE(found)];
	unsigned n, errors = hv_error_count();

	if (kind == SWAP_DEVICE_NONE)
		return NULL;
	n = blockdev_find_all(kind, found, ARRAY_SIZE(found));
	/* A driver that rejected its device said why: "attach one" is wrong. */
	if (!n && hv_error_count() == errors)
		hv_error("swap: no swap device found (swap.device = %s): "
			 "attach one (tools/*-run --swap IMAGE)",
			 swap_device_kind_name(kind));
	if (!n)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		/* A page each: a read that timed out may still land later. */
		uint8_t *page = (uint8_t *)(uintptr_t)hv_alloc_pages_low(1);

		if (nheader_pages < ARRAY_SIZE(header_pages))
			header_pages[nheader_pages++] = page;
		if (blockdev_check_header(found[i], page, swap_header_parse,
					  hdr, err[i], ERR_LEN) == HV_OK) {
			report(found[i], hdr);
			return found[i];
		}
		/* A trace disk is not a swap disk that went wrong. */
		trace_disk[i] = !memcmp(page, TRACE_DISK_MAGIC,
					SWAP_MAGIC_LEN);
	}
	/* No device is usable: say why for each, never write to any. */
	for (unsigned i = 0; i < n; i++)
		if (!trace_disk[i])
			hv_error("swap: %s: %s", found[i]->name, err[i]);
	if (n && !all_trace_disks(trace_disk, n))
		return NULL;
	if (n)
		hv_error("swap: no swap device found (swap.device = %s), "
			 "only trace disks: attach one (tools/*-run --swap "
			 "IMAGE)", swap_device_kind_name(kind));
	return NULL;
}
