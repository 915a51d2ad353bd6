// SPDX-License-Identifier: BSD-2-Clause
/*
 * mbinfo: what a multiboot kernel finds at entry (EAX, the information
 * structure, its memory map, modules and command line) and what fw_cfg
 * tells it. Run by tests/bochs/test_multiboot.py under QEMU -kernel and
 * under apfvisor; the lines must be the same apart from "host: " ones.
 * Ends through port 0xf4 with value 0x21 (exit status 0x43 = 67).
 */
#include "mb_lib.h"

#define EXIT_VALUE 0x21

struct mb_info {
	u32 flags, mem_lower, mem_upper, boot_device, cmdline;
	u32 mods_count, mods_addr, syms[4], mmap_length, mmap_addr;
	u32 drives_length, drives_addr, config_table, boot_loader_name;
};

struct mb_module {
	u32 start, end, string, reserved;
};

struct mb_mmap_entry {
	u32 size;
	u64 base, length;
	u32 type;
} __attribute__((packed));

static void show_modules(const struct mb_info *mbi)
{
	const struct mb_module *m = (const void *)mbi->mods_addr;

	print("mbinfo: modules %u\n", mbi->mods_count);
	for (u32 i = 0; i < mbi->mods_count && i < 4; i++) {
		const u8 *p = (const void *)m[i].start;
		u32 sum = 0;

		for (u32 b = m[i].start; b < m[i].end; b++)
			sum = sum * 31 + p[b - m[i].start];
		print("mbinfo: module %u '%s' %u bytes, page-aligned %s, "
		      "above the kernel %s, checksum %08x\n", i,
		      (const char *)m[i].string, m[i].end - m[i].start,
		      m[i].start % 4096 ? "no" : "yes",
		      m[i].start >= 0x100000 ? "yes" : "no", sum);
		print("host: module %u at 0x%x-0x%x\n", i, m[i].start,
		      m[i].end);
	}
}

static void show_mmap(const struct mb_info *mbi)
{
	u32 off = 0, n = 0, bad_size = 0, ram_at_1m = 0, low_ram = 0;
	u64 upper = 0;
	u64 prev_end = 0;
	int sorted = 1;

	while (off + 4 <= mbi->mmap_length) {
		const struct mb_mmap_entry *e = (const void *)(mbi->mmap_addr +
							       off);

		if (e->size != 20)
			bad_size++;
		if (e->base < prev_end)
			sorted = 0;
		prev_end = e->base + e->length;
		if (e->type == 1 && e->base <= 0x100000 &&
		    e->base + e->length > 0x100000) {
			ram_at_1m = 1;
			upper = e->base + e->length - 0x100000;
		}
		if (e->type == 1 && e->base == 0)
			low_ram = (u32)e->length;
		print("host: mmap 0x%llx-0x%llx type %u\n", e->base,
		      e->base + e->length, e->type);
		off += e->size + 4;
		n++;
	}
	print("mbinfo: mmap entries of 20 bytes: %s, sorted without "
	      "overlap: %s\n", n && !bad_size ? "yes" : "no",
	      sorted ? "yes" : "no");
	print("mbinfo: mmap RAM from 0: 0x%x bytes (mem_lower %s); RAM at "
	      "1 MiB: %s, as much as mem_upper says: %s\n", low_ram,
	      low_ram >> 10 == mbi->mem_lower ? "agrees" : "DISAGREES",
	      ram_at_1m ? "yes" : "no",
	      upper >> 10 == mbi->mem_upper ? "yes" : "NO");
}

static void show_fw_cfg(void)
{
	char sig[5] = { 0 };
	u32 id, e820_size;
	u16 cpus, max_cpus, e820;
	u64 ram;

	fw_cfg_read(FW_CFG_SIGNATURE, sig, 4);
	print("mbinfo: fw_cfg signature '%s'\n", sig);
	fw_cfg_read(FW_CFG_ID, &id, 4);
	print("mbinfo: fw_cfg traditional interface: %s\n",
	      id & 1 ? "yes" : "no");
	print("mbinfo: fw_cfg id 0x%x\n", id);
	if (id & 2) {
		u16 dma_cpus = 0;
		u32 status = fw_cfg_dma_read(FW_CFG_NB_CPUS, &dma_cpus, 2);

		print("mbinfo: fw_cfg dma: status 0x%x, cpus %u\n", status,
		      dma_cpus);
	}
	fw_cfg_read(FW_CFG_NB_CPUS, &cpus, 2);
	fw_cfg_read(FW_CFG_MAX_CPUS, &max_cpus, 2);
	print("mbinfo: fw_cfg cpus %u, max %u\n", cpus, max_cpus);
	fw_cfg_read(FW_CFG_RAM_SIZE, &ram, 8);
	print("mbinfo: fw_cfg ram size 0x%llx\n", ram);
	e820 = fw_cfg_find_file("etc/e820", &e820_size);
	print("mbinfo: fw_cfg file etc/e820: %s\n", e820 ? "found" : "missing");
	if (e820 && e820_size % 20 == 0 && e820_size <= 20 * 8) {
		struct { u64 base, length; u32 type; }
			__attribute__((packed)) e[8];

		fw_cfg_read(e820, e, e820_size);
		/* QEMU may add reserved ranges of its own (an IOMMU hole). */
		for (u32 i = 0; i < e820_size / 20; i++)
			print("%s: fw_cfg e820 0x%llx-0x%llx type %u\n",
			      e[i].type == 1 ? "mbinfo" : "host", e[i].base,
			      e[i].base + e[i].length, e[i].type);
	}
}

u32 mb_main(u32 magic, const struct mb_info *mbi)
{
	serial_init();
	print("mbinfo: start\n");
	print("mbinfo: eax 0x%x (%s)\n", magic,
	      magic == MB_LOADER_MAGIC ? "the multiboot magic" : "WRONG");
	if (magic != MB_LOADER_MAGIC)
		return 1;
	print("host: flags 0x%x\n", mbi->flags);
	print("mbinfo: flags memory %u, boot device %u, command line %u, "
	      "modules %u, memory map %u\n", mbi->flags & 1,
	      mbi->flags >> 1 & 1, mbi->flags >> 2 & 1, mbi->flags >> 3 & 1,
	      mbi->flags >> 6 & 1);
	/* The firmware's own reservations move mem_upper (see show_mmap). */
	print("mbinfo: mem_lower %u KiB\n", mbi->mem_lower);
	print("host: mem_upper %u KiB\n", mbi->mem_upper);
	print("mbinfo: boot_device 0x%x\n", mbi->boot_device);
	if (mbi->flags & 4)
		print("mbinfo: command line '%s'\n",
		      (const char *)mbi->cmdline);
	if (mbi->flags & (1 << 9))
		print("host: boot loader '%s'\n",
		      (const char *)mbi->boot_loader_name);
	if (mbi->flags & 8)
		show_modules(mbi);
	if (mbi->flags & 64)
		show_mmap(mbi);
	show_fw_cfg();
	print("mbinfo: exit 0x%x\n", EXIT_VALUE);
	return EXIT_VALUE;
}
