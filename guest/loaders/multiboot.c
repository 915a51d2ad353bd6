// SPDX-License-Identifier: BSD-2-Clause
/*
 * Multiboot (v1) header and information structure (guest/loaders/multiboot.h).
 * The image is untrusted: fields are read byte by byte, little-endian, and
 * every sum of two of them is checked for overflow before it is used.
 */
#include "guest/loaders/multiboot.h"
#include "guest/loaders/image_format.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

/* Header fields (3.1.1), offsets from the magic. */
#define MBH_FLAGS          4
#define MBH_CHECKSUM       8
#define MBH_HEADER_ADDR    12
#define MBH_LOAD_ADDR      16
#define MBH_LOAD_END_ADDR  20
#define MBH_BSS_END_ADDR   24
#define MBH_ENTRY_ADDR     28
#define MBH_AOUT_SIZE      32

/* Information structure fields (3.3). */
#define MBI_FLAGS          0
#define MBI_MEM_LOWER      4
#define MBI_MEM_UPPER      8
#define MBI_BOOT_DEVICE    12
#define MBI_CMDLINE        16
#define MBI_MODS_COUNT     20
#define MBI_MODS_ADDR      24
#define MBI_MMAP_LENGTH    44
#define MBI_MMAP_ADDR      48
#define MBI_LOADER_NAME    64

/* "the first hard disk, no partition", as QEMU reports it */
#define MB_BOOT_DEVICE_DEFAULT 0x8000ffffu

#define LOAD_FLOOR MiB(1)
#define LOAD_CEILING GiB(4)
/*
 * Below 1 MiB a segment may use conventional memory above the boot state
 * (as under QEMU, whose loader takes kvm-unit-tests' realmode test at
 * 0x8000): [MB_LOW_LOAD_START, MB_LOW_LOAD_END).
 */
#define MB_LOW_LOAD_START 0x8000ull
#define MB_LOW_LOAD_END 0x9fc00ull

/* Every segment in conventional memory or in [1 MiB, top). */
static bool segments_fit(const struct elf_kernel *k, uint64_t top)
{
	for (unsigned i = 0; i < k->count; i++) {
		uint64_t start = k->seg[i].paddr;
		uint64_t end = start + k->seg[i].memsz;

		if (end > top || end < start)
			return false;
		if (start < LOAD_FLOOR && (start < MB_LOW_LOAD_START ||
					   end > MB_LOW_LOAD_END))
			return false;
	}
	return true;
}

static int find_header(const uint8_t *p, uint64_t len, uint32_t *offset)
{
	uint64_t limit = MIN(len, (uint64_t)MULTIBOOT_SEARCH_BYTES);

	for (uint64_t o = 0; o + 12 <= limit; o += 4) {
		uint32_t magic = (uint32_t)le_get(p, o, 4);
		uint32_t flags = (uint32_t)le_get(p, o + MBH_FLAGS, 4);
		uint32_t sum = (uint32_t)le_get(p, o + MBH_CHECKSUM, 4);

		if (magic == MULTIBOOT_HEADER_MAGIC &&
		    (uint32_t)(magic + flags + sum) == 0) {
			*offset = (uint32_t)o;
			return 0;
		}
	}
	return -1;
}

/* The a.out kludge: the file from load_addr's offset, then zeroes. */
static int plan_aout(const uint8_t *p, uint64_t len, uint32_t o,
		     struct elf_kernel *k, char *err, size_t err_len)
{
	uint32_t header_addr, load_addr, load_end, bss_end, entry;
	uint64_t file_off, filesz, memsz;

	if ((uint64_t)o + MBH_AOUT_SIZE > len)
		return fmt_fail(err, err_len,
				"multiboot header at 0x%x is cut off before "
				"its address fields", o);
	header_addr = (uint32_t)le_get(p, o + MBH_HEADER_ADDR, 4);
	load_addr = (uint32_t)le_get(p, o + MBH_LOAD_ADDR, 4);
	load_end = (uint32_t)le_get(p, o + MBH_LOAD_END_ADDR, 4);
	bss_end = (uint32_t)le_get(p, o + MBH_BSS_END_ADDR, 4);
	entry = (uint32_t)le_get(p, o + MBH_ENTRY_ADDR, 4);
	if (load_addr > header_addr || header_addr - load_addr > o)
		return fmt_fail(err, err_len,
				"multiboot load_addr 0x%x does not lie in the "
				"file before header_addr 0x%x (header at file "
				"offset 0x%x)", load_addr, header_addr, o);
	file_off = o - (header_addr - load_addr);
	if (load_end == 0)
		filesz = len - file_off;
	else if (load_end < load_addr || load_end - load_addr > len - file_off)
		return fmt_fail(err, err_len,
				"multiboot load_end_addr 0x%x is before "
				"load_addr 0x%x or past the file's end",
				load_end, load_addr);
	else
		filesz = load_end - load_addr;
	if (bss_end == 0)
		memsz = filesz;
	else if (bss_end < load_addr || bss_end - load_addr < filesz)
		return fmt_fail(err, err_len,
				"multiboot bss_end_addr 0x%x is before the end "
				"of the loaded data (0x%llx)", bss_end,
				(unsigned long long)(load_addr + filesz));
	else
		memsz = bss_end - load_addr;
	if (entry < load_addr || entry - load_addr >= filesz)
		return fmt_fail(err, err_len,
				"multiboot entry_addr 0x%x is not in the loaded "
				"data [0x%x, 0x%llx)", entry, load_addr,
				(unsigned long long)(load_addr + filesz));
	*k = (struct elf_kernel){
		.entry = entry,
		.lowest = load_addr,
		.end = load_addr + memsz,
		.file_bytes = filesz,
		.count = 1,
	};
	k->seg[0] = (struct elf_segment){
		.paddr = load_addr, .vaddr = load_addr, .offset = file_off,
		.filesz = filesz, .memsz = memsz, .exec = true,
	};
	return 0;
}

int multiboot_parse(const void *img, uint64_t len, uint64_t ram_size,
		    struct multiboot_kernel *out, char *err, size_t err_len)
{
	const uint8_t *p = img;
	uint64_t top = MIN(ram_size, LOAD_CEILING);
	uint32_t unknown;
	char elf_err[160];

	memset(out, 0, sizeof(*out));
	if (find_header(p, len, &out->header_offset))
		return fmt_fail(err, err_len,
				"no multiboot header (magic 0x%x with a valid "
				"checksum) in the first %u bytes",
				MULTIBOOT_HEADER_MAGIC, MULTIBOOT_SEARCH_BYTES);
	out->header_flags = (uint32_t)le_get(p, out->header_offset + MBH_FLAGS,
					     4);
	unknown = out->header_flags & 0xffff & ~MB_HEADER_KNOWN_REQUIRED;
	if (unknown)
		return fmt_fail(err, err_len,
				"multiboot header requires features apfvisor "
				"does not know (flags 0x%x, unknown required "
				"bits 0x%x)", out->header_flags, unknown);
	out->aout_kludge = out->header_flags & MB_HEADER_AOUT_KLUDGE;
	if (out->aout_kludge) {
		if (plan_aout(p, len, out->header_offset, &out->image, err,
			      err_len))
			return -1;
	} else if (elf_image_parse(p, len, ELF_CLASS_32 | ELF_CLASS_64,
				   &out->image, elf_err, sizeof(elf_err))) {
		return fmt_fail(err, err_len,
				"multiboot kernel without address fields "
				"(flag 16) must be an ELF file: %s", elf_err);
	}
	if (!segments_fit(&out->image, top))
		return fmt_fail(err, err_len,
				"multiboot kernel occupies [0x%llx, 0x%llx): "
				"each segment must lie in guest RAM between 1 "
				"MiB and 0x%llx (guest.memory), or in "
				"conventional memory [0x%llx, 0x%llx)",
				(unsigned long long)out->image.lowest,
				(unsigned long long)out->image.end,
				(unsigned long long)top,
				(unsigned long long)MB_LOW_LOAD_START,
				(unsigned long long)MB_LOW_LOAD_END);
	return 0;
}

/*
 * The RAM in the map from addr up to the first hole, at most max bytes:
 * mem_lower (from 0, at most 640 KiB) and mem_upper (from 1 MiB), as the
 * firmware under QEMU computes them from the same map (3.3: "the first
 * upper memory hole").
 */
static uint64_t ram_from(const struct multiboot_info_input *in, uint64_t addr,
			 uint64_t max)
{
	uint64_t end = addr;

	for (unsigned i = 0; i < in->map_count; i++) {
		const struct e820_entry *e = &in->map[i];

		if (e->type == E820_TYPE_RAM && e->addr <= end &&
		    e->addr + e->size > end)
			end = e->addr + e->size;
	}
	return MIN(end - addr, max);
}

/* Appends a NUL-terminated string at *used; its guest address, or 0. */
static uint32_t put_string(uint8_t *buf, size_t buf_len, size_t *used,
			   const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t gpa = (uint32_t)(MB_INFO_AREA_GPA + *used);

	if (n > buf_len - *used)
		return 0;
	memcpy(buf + *used, s, n);
	*used += n;
	return gpa;
}

size_t multiboot_build_info(const struct multiboot_info_input *in,
			    uint8_t *buf, size_t buf_len, char *err,
			    size_t err_len)
{
	const size_t mbi = MB_INFO_GPA - MB_INFO_AREA_GPA;
	size_t mods = ALIGN_UP(mbi + MB_INFO_SIZE, 16);
	size_t used = mods + (size_t)in->mod_count * MB_MODULE_SIZE;
	uint32_t cmdline, name;

	if (buf_len < MB_INFO_AREA_END - MB_INFO_AREA_GPA ||
	    (size_t)in->map_count * MB_MMAP_ENTRY_SIZE > mbi ||
	    in->mod_count > MB_MAX_MODULES) {
		fmt_fail(err, err_len,
			 "multiboot information does not fit: %u memory map "
			 "entries (at most %u), %u modules (at most %u)",
			 in->map_count, (unsigned)(mbi / MB_MMAP_ENTRY_SIZE),
			 in->mod_count, MB_MAX_MODULES);
		return 0;
	}
	memset(buf, 0, MB_INFO_AREA_END - MB_INFO_AREA_GPA);
	buf_len = MB_INFO_AREA_END - MB_INFO_AREA_GPA;
	for (unsigned i = 0; i < in->map_count; i++) {
		uint8_t *e = buf + (size_t)i * MB_MMAP_ENTRY_SIZE;

		le_put(e, 0, 4, MB_MMAP_ENTRY_SIZE - 4);
		le_put(e, 4, 8, in->map[i].addr);
		le_put(e, 12, 8, in->map[i].size);
		le_put(e, 20, 4, in->map[i].type);
	}
	cmdline = put_string(buf, buf_len, &used, in->cmdline);
	name = put_string(buf, buf_len, &used, in->loader_name);
	for (unsigned i = 0; cmdline && name && i < in->mod_count; i++) {
		uint8_t *m = buf + mods + (size_t)i * MB_MODULE_SIZE;
		uint32_t s = put_string(buf, buf_len, &used,
					in->mods[i].string);

		if (!s) {
			name = 0;
			break;
		}
		le_put(m, 0, 4, in->mods[i].start);
		le_put(m, 4, 4, in->mods[i].end);
		le_put(m, 8, 4, s);
	}
	if (!cmdline || !name) {
		fmt_fail(err, err_len,
			 "multiboot information does not fit in %llu bytes: "
			 "the command line (%llu bytes) or a module's string "
			 "is too long", (unsigned long long)buf_len,
			 (unsigned long long)strlen(in->cmdline));
		return 0;
	}
	le_put(buf, mbi + MBI_FLAGS, 4,
	       MB_INFO_MEMORY | MB_INFO_BOOT_DEVICE | MB_INFO_CMDLINE |
	       MB_INFO_MODULES | MB_INFO_MEMORY_MAP | MB_INFO_LOADER_NAME);
	le_put(buf, mbi + MBI_MEM_LOWER, 4, ram_from(in, 0, KiB(640)) >> 10);
	le_put(buf, mbi + MBI_MEM_UPPER, 4,
	       ram_from(in, MiB(1), GiB(4) - MiB(1)) >> 10);
	le_put(buf, mbi + MBI_BOOT_DEVICE, 4, MB_BOOT_DEVICE_DEFAULT);
	le_put(buf, mbi + MBI_CMDLINE, 4, cmdline);
	le_put(buf, mbi + MBI_MODS_COUNT, 4, in->mod_count);
	le_put(buf, mbi + MBI_MODS_ADDR, 4, MB_INFO_AREA_GPA + mods);
	le_put(buf, mbi + MBI_MMAP_LENGTH, 4,
	       (uint64_t)in->map_count * MB_MMAP_ENTRY_SIZE);
	le_put(buf, mbi + MBI_MMAP_ADDR, 4, MB_INFO_AREA_GPA);
	le_put(buf, mbi + MBI_LOADER_NAME, 4, name);
	return used;
}
