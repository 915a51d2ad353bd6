// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/fw_cfg.h"
#include "lib/bytes.h"
#include "lib/string.h"

#define E820_RAM 1

static void be_put(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void add_file(struct fw_cfg *f, unsigned index, const char *name,
		     uint32_t size)
{
	uint8_t *e = f->dir + 4 + index * FW_CFG_FILE_ENTRY_LEN;

	be_put(e, 4, size);
	be_put(e + 4, 2, FW_CFG_FILE_FIRST + index);
	str_copy((char *)e + 8, name, FW_CFG_FILE_NAME_LEN);
}

void fw_cfg_init(struct fw_cfg *f, const struct fw_cfg_platform *plat)
{
	struct guest_ram_range r[GUEST_RAM_MAX_RANGES];
	unsigned n;

	memset(f, 0, sizeof(*f));
	f->plat = *plat;
	be_put(f->dir, 4, FW_CFG_MAX_FILES);
	n = guest_ram_ranges(&plat->ram, r);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *e = f->e820 + i * FW_CFG_E820_ENTRY_LEN;

		le_put(e, 0, 8, r[i].base);
		le_put(e, 8, 8, r[i].size);
		le_put(e, 16, 4, E820_RAM);
	}
	f->e820_len = n * FW_CFG_E820_ENTRY_LEN;
	add_file(f, 0, "etc/e820", f->e820_len);
	fw_cfg_select(f, FW_CFG_SIGNATURE);
}

/* The selected item's bytes and length; NULL for an unknown key. */
static const uint8_t *item(struct fw_cfg *f, uint32_t *len)
{
	const struct fw_cfg_platform *p = &f->plat;
	uint64_t number;
	unsigned width;

	f->lookups++;
	switch (f->key) {
	case FW_CFG_SIGNATURE:
		*len = 4;
		return (const uint8_t *)"QEMU";
	case FW_CFG_CMDLINE_DATA:
		*len = p->cmdline ? (uint32_t)strlen(p->cmdline) + 1 : 0;
		return (const uint8_t *)p->cmdline;
	case FW_CFG_FILE_DIR:
		*len = sizeof(f->dir);
		return f->dir;
	case FW_CFG_FILE_FIRST:
		*len = f->e820_len;
		return f->e820;
	case FW_CFG_ID:
		number = FW_CFG_ID_TRADITIONAL | FW_CFG_ID_DMA;
		width = 4;
		break;
	case FW_CFG_RAM_SIZE:
		number = guest_ram_total(&p->ram);
		width = 8;
		break;
	case FW_CFG_NB_CPUS: number = p->cpus; width = 2; break;
	case FW_CFG_MAX_CPUS: number = p->cpus; width = 2; break;
	case FW_CFG_INITRD_ADDR: number = p->initrd_addr; width = 4; break;
	case FW_CFG_INITRD_SIZE: number = p->initrd_size; width = 4; break;
	case FW_CFG_CMDLINE_ADDR: number = p->cmdline_addr; width = 4; break;
	case FW_CFG_CMDLINE_SIZE:
		number = p->cmdline ? strlen(p->cmdline) + 1 : 0;
		width = 4;
		break;
	default:
		return NULL;
	}
	le_put(f->scratch, 0, width, number);
	*len = width;
	return f->scratch;
}

void fw_cfg_select(struct fw_cfg *f, uint16_t key)
{
	f->key = key;
	f->offset = 0;
}

uint8_t fw_cfg_read(struct fw_cfg *f)
{
	uint32_t len = 0;
	const uint8_t *data = item(f, &len);

	if (!data || f->offset >= len)
		return 0;
	return data[f->offset++];
}

static uint32_t bswap32(uint32_t v)
{
	return __builtin_bswap32(v);
}

static uint64_t be_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* What a read past an item's end writes, a page at a time. */
static const uint8_t zero_page[PAGE_SIZE];

/*
 * The rest of the selected item from the offset on, cut to at most len
 * bytes (*n); NULL when nothing is left of it or the key is unknown.
 */
static const uint8_t *item_rest(struct fw_cfg *f, uint32_t len, uint32_t *n)
{
	uint32_t item_len = 0;
	const uint8_t *data = item(f, &item_len);

	*n = 0;
	if (!data || f->offset >= item_len)
		return NULL;
	*n = MIN(len, item_len - f->offset);
	return data + f->offset;
}

/*
 * Writes len bytes of src (zeros when src is NULL) to guest memory at
 * gpa, a guest page per call: each call is one short copy under the
 * memory lock, and an ending VM stops a long run between two of them.
 * False when a page is not RAM or the VM is ending.
 */
static bool write_pages(uint64_t gpa, const uint8_t *src, uint64_t len,
			const struct fw_cfg_guest_memory *mem)
{
	while (len) {
		uint64_t n = MIN(len, PAGE_SIZE - (gpa & (PAGE_SIZE - 1)));

		if (mem->stop && *mem->stop)
			return false;
		if (mem->write(mem->ctx, gpa, src ? src : zero_page, n))
			return false;
		if (src)
			src += n;
		gpa += n;
		len -= n;
	}
	return true;
}

/*
 * A READ of len bytes to gpa, as QEMU's fw_cfg_dma_transfer does it: what
 * is left of the item, then zeros for the rest of len; the offset stops
 * at the item's end, and moves on even when the write fails. The item is
 * looked up once, so a record of any length costs the item's bytes plus
 * a write per page of zeros, which ends where RAM does (the write fails).
 */
static bool dma_read(struct fw_cfg *f, uint64_t gpa, uint32_t len,
		     const struct fw_cfg_guest_memory *mem)
{
	uint32_t n;
	const uint8_t *data = item_rest(f, len, &n);

	f->offset += n;
	if (n && !write_pages(gpa, data, n, mem))
		return false;
	return write_pages(gpa + n, NULL, len - n, mem);
}

/* A SKIP of len bytes: the offset moves on, at most to the item's end. */
static void dma_skip(struct fw_cfg *f, uint32_t len)
{
	uint32_t n;

	item_rest(f, len, &n);
	f->offset += n;
}

/* One FWCfgDmaAccess record at access_gpa. */
static void dma_run(struct fw_cfg *f, uint64_t access_gpa,
		    const struct fw_cfg_guest_memory *mem)
{
	uint8_t rec[FW_CFG_DMA_ACCESS_LEN];
	uint32_t control, len, result = 0;
	uint64_t gpa;

	if (mem->read(mem->ctx, access_gpa, rec, sizeof(rec)))
		return;                 /* no record to answer in */
	control = (uint32_t)be_get(rec, 4);
	len = (uint32_t)be_get(rec + 4, 4);
	gpa = be_get(rec + 8, 8);
	if (control & FW_CFG_DMA_SELECT)
		fw_cfg_select(f, (uint16_t)(control >> 16));
	if (control & FW_CFG_DMA_READ) {
		if (!dma_read(f, gpa, len, mem))
			result = FW_CFG_DMA_ERROR;
	} else if (control & FW_CFG_DMA_SKIP) {
		dma_skip(f, len);
	} else if (control & FW_CFG_DMA_WRITE) {
		result = FW_CFG_DMA_ERROR;      /* no item is writable */
	}
	be_put(rec, 4, result);
	mem->write(mem->ctx, access_gpa, rec, 4);
}

bool fw_cfg_dma_write(struct fw_cfg *f, uint16_t port, uint32_t value,
		      const struct fw_cfg_guest_memory *mem)
{
	if (port == FW_CFG_DMA_HIGH_PORT) {
		f->dma_high = bswap32(value);
		return true;
	}
	if (port != FW_CFG_DMA_LOW_PORT)
		return false;
	dma_run(f, (uint64_t)f->dma_high << 32 | bswap32(value), mem);
	f->dma_high = 0;
	return true;
}

uint32_t fw_cfg_dma_read(uint16_t port)
{
	uint32_t half = port == FW_CFG_DMA_HIGH_PORT ?
			(uint32_t)(FW_CFG_DMA_SIGNATURE >> 32) :
			(uint32_t)FW_CFG_DMA_SIGNATURE;

	return bswap32(half);
}
