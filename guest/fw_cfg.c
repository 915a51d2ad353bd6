// SPDX-License-Identifier: BSD-2-Clause
#include "guest/fw_cfg.h"
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
	memset(f, 0, sizeof(*f));
	f->plat = *plat;
	be_put(f->dir, 4, FW_CFG_MAX_FILES);
	add_file(f, 0, "etc/e820", sizeof(f->e820));
	le_put(f->e820, 0, 8, 0);
	le_put(f->e820, 8, 8, plat->ram_size);
	le_put(f->e820, 16, 4, E820_RAM);
	fw_cfg_select(f, FW_CFG_SIGNATURE);
}

/* The selected item's bytes and length; NULL for an unknown key. */
static const uint8_t *item(struct fw_cfg *f, uint32_t *len)
{
	const struct fw_cfg_platform *p = &f->plat;
	uint64_t number;
	unsigned width;

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
		*len = sizeof(f->e820);
		return f->e820;
	case FW_CFG_ID: number = FW_CFG_ID_TRADITIONAL; width = 4; break;
	case FW_CFG_RAM_SIZE: number = p->ram_size; width = 8; break;
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
