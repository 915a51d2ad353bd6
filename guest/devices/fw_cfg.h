/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's firmware configuration device (fw_cfg). The traditional
 * interface: a 16-bit write of an item's key to port 0x510 selects it,
 * byte reads from port 0x511 return its bytes in order (zero past its
 * end, and for an unknown key). The DMA interface (ID bit 1): the guest
 * writes the guest-physical address of a FWCfgDmaAccess record
 * {be32 control, be32 length, be64 address}, big-endian, to ports
 * 0x514 (high half) and 0x518 (low half, which starts the transfer);
 * control asks to select an item, then read, skip or write length bytes
 * at address; the device writes control back as 0, or with the error bit.
 * Writes to items are refused as in QEMU 2.4+. Pure C: guest/io_ports.c
 * routes the ports here (guest memory through callbacks),
 * tests/unit/test_fw_cfg.c drives it.
 *
 * The items small guests read (QEMU's docs/specs/fw_cfg.rst and
 * include/standard-headers/linux/qemu_fw_cfg.h): the signature "QEMU",
 * the ID (bit 0: traditional interface), the RAM size, the CPU counts,
 * the command line, the initrd's address and size, and the file
 * directory (big-endian, as QEMU writes it) with "etc/e820": the guest's
 * RAM as 20-byte little-endian entries {base, length, type 1}, one per
 * range of lib/guest_ram.h (QEMU's pc machine: below the PCI hole, and
 * from 4 GiB; hw/i386/pc.c adds them with e820_add_entry). FW_CFG_RAM_SIZE
 * is all of it, as QEMU's.
 */
#ifndef GUEST_FW_CFG_H
#define GUEST_FW_CFG_H

#include "lib/guest_ram.h"
#include "lib/types.h"

#define FW_CFG_SELECTOR_PORT 0x510
#define FW_CFG_DATA_PORT     0x511
#define FW_CFG_DMA_HIGH_PORT 0x514
#define FW_CFG_DMA_LOW_PORT  0x518
/* "QEMU CFG", what a read of the DMA address register returns. */
#define FW_CFG_DMA_SIGNATURE 0x51454d5520434647ull

/* FWCfgDmaAccess control bits. */
#define FW_CFG_DMA_ERROR     BIT(0)
#define FW_CFG_DMA_READ      BIT(1)
#define FW_CFG_DMA_SKIP      BIT(2)
#define FW_CFG_DMA_SELECT    BIT(3)
#define FW_CFG_DMA_WRITE     BIT(4)
#define FW_CFG_DMA_ACCESS_LEN 16

#define FW_CFG_SIGNATURE     0x0000
#define FW_CFG_ID            0x0001
#define FW_CFG_RAM_SIZE      0x0003
#define FW_CFG_NB_CPUS       0x0005
#define FW_CFG_MAX_CPUS      0x000f
#define FW_CFG_INITRD_ADDR   0x000a
#define FW_CFG_INITRD_SIZE   0x000b
#define FW_CFG_CMDLINE_ADDR  0x0013
#define FW_CFG_CMDLINE_SIZE  0x0014
#define FW_CFG_CMDLINE_DATA  0x0015
#define FW_CFG_FILE_DIR      0x0019
#define FW_CFG_FILE_FIRST    0x0020

#define FW_CFG_ID_TRADITIONAL 1u
#define FW_CFG_ID_DMA         2u
#define FW_CFG_FILE_NAME_LEN 56
#define FW_CFG_FILE_ENTRY_LEN 64
#define FW_CFG_MAX_FILES 1
#define FW_CFG_E820_ENTRY_LEN 20

/* What the guest's platform is, as fw_cfg reports it. */
struct fw_cfg_platform {
	struct guest_ram_layout ram;    /* RAM below and above 4 GiB */
	uint16_t cpus;
	const char *cmdline;            /* guest.cmdline (kept, not copied) */
	uint32_t cmdline_addr;          /* where the loader put it; 0: none */
	uint32_t initrd_addr, initrd_size;
};

struct fw_cfg {
	struct fw_cfg_platform plat;
	uint16_t key;                   /* selected item */
	uint32_t offset;                /* next byte to read in it */
	uint8_t scratch[8];             /* the selected number, little-endian */
	uint8_t dir[4 + FW_CFG_MAX_FILES * FW_CFG_FILE_ENTRY_LEN];
	uint8_t e820[GUEST_RAM_MAX_RANGES * FW_CFG_E820_ENTRY_LEN];
	uint32_t e820_len;              /* bytes of e820 in use */
	uint32_t dma_high;              /* the address register's high half */
	/*
	 * Item lookups so far. Each costs a switch (and a strlen for the
	 * command line): tests/unit/test_fw_cfg.c bounds a DMA record's work
	 * with it.
	 */
	uint64_t lookups;
};

/*
 * Guest memory for a DMA transfer: 0, or -1 when gpa..gpa+len is not RAM.
 * A transfer writes one guest page at most per call (vm_write_ram brings
 * in the pages of one call together). stop, when not NULL, is looked at
 * between pages: once it reads true (the VM is ending) a long transfer
 * gives up with the error bit.
 */
struct fw_cfg_guest_memory {
	int (*read)(void *ctx, uint64_t gpa, void *dst, uint64_t len);
	int (*write)(void *ctx, uint64_t gpa, const void *src, uint64_t len);
	void *ctx;
	const volatile bool *stop;
};

void fw_cfg_init(struct fw_cfg *f, const struct fw_cfg_platform *plat);

/* A write to the selector port: selects key (reading starts at 0). */
void fw_cfg_select(struct fw_cfg *f, uint16_t key);

/* A read of the data port: the selected item's next byte, or 0. */
uint8_t fw_cfg_read(struct fw_cfg *f);

/*
 * A 32-bit write of value to a DMA port (FW_CFG_DMA_HIGH_PORT or _LOW_PORT;
 * value as the guest's OUT carries it, i.e. the big-endian register's
 * bytes). The low half runs the transfer the record at the address names;
 * false when the port is not a DMA address port.
 */
bool fw_cfg_dma_write(struct fw_cfg *f, uint16_t port, uint32_t value,
		      const struct fw_cfg_guest_memory *mem);

/* A 32-bit read of a DMA port: the signature's half, as OUT would carry it. */
uint32_t fw_cfg_dma_read(uint16_t port);

#endif
