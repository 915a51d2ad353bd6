// SPDX-License-Identifier: BSD-2-Clause
/*
 * The Linux x86 boot protocol, 64-bit entry (see guest/loaders/linux_boot.h).
 * Offsets are those of struct setup_header and struct boot_params in
 * arch/x86/include/uapi/asm/bootparam.h, as listed in boot.rst and
 * zero-page.rst (Documentation/arch/x86/). Fields are read and written byte
 * by byte, little-endian, because the image need not be aligned.
 */
#include "guest/loaders/linux_boot.h"
#include "guest/loaders/linux_setup_header.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

/* Nothing the loader places goes below 1 MiB or above 4 GiB (see below). */
#define LOW_FLOOR MiB(1)
#define HIGH_LIMIT GiB(4)
#define BOOT_PARAMS_SIZE PAGE_SIZE

static unsigned long long mib_up(uint64_t bytes)
{
	return (bytes + MiB(1) - 1) >> 20;
}

/* ---- the setup header ---- */

/*
 * The four checks that say whether this is a kernel we can enter at all:
 * boot flag, "HdrS", protocol 2.12+ (the first with xloadflags, hence with
 * XLF_KERNEL_64), and a header whose length, given by the short jump at
 * 0x200 (boot.rst, "jump"), covers init_size and fits its hole in the zero
 * page.
 */
static int check_identity(const uint8_t *p, uint64_t len, char *err,
			  size_t err_len)
{
	uint64_t version, end;

	if (len < HDR_VERSION + 2)
		return fmt_fail(err, err_len,
				"guest.kernel is not a bzImage "
				"(%llu bytes, too short for a setup header)",
				(unsigned long long)len);
	if (le_get(p, HDR_BOOT_FLAG, 2) != BOOT_FLAG)
		return fmt_fail(err, err_len,
				"guest.kernel is not a bzImage "
				"(no boot flag 0xAA55 at 0x1FE)");
	if (le_get(p, HDR_MAGIC, 4) != HDRS_MAGIC)
		return fmt_fail(err, err_len,
				"guest.kernel is not a bzImage "
				"(no 'HdrS' magic at 0x202)");
	version = le_get(p, HDR_VERSION, 2);
	if (version < PROTOCOL_64BIT)
		return fmt_fail(err, err_len,
				"boot protocol %u.%02u is too old: "
				"the 64-bit entry needs 2.12 or later",
				(unsigned)(version >> 8),
				(unsigned)(version & 0xff));
	end = HDR_MAGIC + (uint64_t)p[HDR_JUMP + 1];
	if (p[HDR_JUMP] != JMP_SHORT || end < HDR_INIT_SIZE + 4 ||
	    end > BP_HDR_HOLE_END)
		return fmt_fail(err, err_len,
				"guest.kernel has a malformed setup "
				"header (jump at 0x200 gives it %llu bytes)",
				(unsigned long long)(end - HDR_SETUP_SECTS));
	if (len < end)
		return fmt_fail(err, err_len,
				"guest.kernel is truncated inside "
				"its setup header");
	return 0;
}

/* kernel_version: a string at its value + 0x200, inside the setup code. */
static void read_version(const uint8_t *p, struct bzimage_info *k)
{
	uint64_t off = le_get(p, HDR_KERNEL_VERSION, 2);
	unsigned n = 0;

	if (!off) /* k->version is already "" */
		return;
	for (off += SECTOR; off < k->kernel_offset && p[off] &&
	     n < sizeof(k->version) - 1; off++)
		k->version[n++] = (char)p[off];
	k->version[n] = '\0';
}

static void read_header(const uint8_t *p, struct bzimage_info *k)
{
	k->protocol = (uint16_t)le_get(p, HDR_VERSION, 2);
	k->setup_sects = p[HDR_SETUP_SECTS];
	if (!k->setup_sects)
		k->setup_sects = SETUP_SECTS_ZERO_MEANS;
	k->loadflags = p[HDR_LOADFLAGS];
	k->xloadflags = (uint16_t)le_get(p, HDR_XLOADFLAGS, 2);
	k->relocatable = p[HDR_RELOCATABLE] != 0;
	k->header_end = HDR_MAGIC + (uint64_t)p[HDR_JUMP + 1];
	k->kernel_offset = (uint64_t)(k->setup_sects + 1) * SECTOR;
	k->kernel_alignment = (uint32_t)le_get(p, HDR_KERNEL_ALIGNMENT, 4);
	k->pref_address = le_get(p, HDR_PREF_ADDRESS, 8);
	k->init_size = (uint32_t)le_get(p, HDR_INIT_SIZE, 4);
	k->cmdline_size = (uint32_t)le_get(p, HDR_CMDLINE_SIZE, 4);
	k->initrd_addr_max = (uint32_t)le_get(p, HDR_INITRD_ADDR_MAX, 4);
}

/* boot.rst, "Loading The Rest of The Kernel": where the 64-bit code is. */
static int check_kernel(const uint8_t *p, uint64_t len, struct bzimage_info *k,
			char *err, size_t err_len)
{
	uint64_t syssize = le_get(p, HDR_SYSSIZE, 4), rest;

	if (len <= k->kernel_offset)
		return fmt_fail(
			err, err_len,
			"guest.kernel is truncated: it ends "
			"at %llu bytes, before the protected-mode kernel "
			"at offset 0x%llx",
			(unsigned long long)len,
			(unsigned long long)k->kernel_offset);
	rest = len - k->kernel_offset;
	/* Signed images carry a signature after syssize: not ours to copy. */
	k->kernel_size = syssize ? syssize * SYSSIZE_UNIT : rest;
	if (k->kernel_size > rest)
		return fmt_fail(
			err, err_len,
			"guest.kernel is truncated: its "
			"protected-mode kernel is %llu bytes (syssize) at "
			"offset 0x%llx, but only %llu follow",
			(unsigned long long)k->kernel_size,
			(unsigned long long)k->kernel_offset,
			(unsigned long long)rest);
	if (k->init_size < k->kernel_size)
		return fmt_fail(
			err, err_len,
			"guest.kernel's init_size (%u bytes)"
			" is smaller than its protected-mode kernel (%llu)",
			k->init_size, (unsigned long long)k->kernel_size);
	/* Where the kernel runs from: from 1 MiB (boot.rst: a bzImage loads
	 * high), never wrapping, never above 4 GiB. */
	if (k->pref_address && k->pref_address < LOW_FLOOR)
		return fmt_fail(err, err_len,
				"guest.kernel's preferred address 0x%llx is "
				"below 1 MiB, in the legacy area: a bzImage "
				"loads at 1 MiB or above",
				(unsigned long long)k->pref_address);
	if (k->pref_address >= HIGH_LIMIT ||
	    HIGH_LIMIT - k->pref_address < k->init_size)
		return fmt_fail(err, err_len,
				"guest.kernel's preferred address 0x%llx plus "
				"its init_size (%u bytes) %s: apfvisor places "
				"kernels below 4 GiB",
				(unsigned long long)k->pref_address,
				k->init_size,
				k->pref_address > UINT64_MAX - k->init_size ?
				"wraps around" : "ends above 4 GiB");
	if (k->relocatable &&
	    (k->kernel_alignment < PAGE_SIZE ||
	     (k->kernel_alignment & (k->kernel_alignment - 1))))
		return fmt_fail(err, err_len,
				"guest.kernel's kernel_alignment "
				"0x%x is not a power of two of at least 4 KiB",
				k->kernel_alignment);
	return 0;
}

int linux_parse_bzimage(const void *img, uint64_t len, struct bzimage_info *out,
			char *err, size_t err_len)
{
	const uint8_t *p = img;

	memset(out, 0, sizeof(*out));
	if (check_identity(p, len, err, err_len))
		return -1;
	read_header(p, out);
	/* boot.rst: is_bzImage = protocol >= 2.00 && loadflags & LOADED_HIGH */
	if (!(out->loadflags & LOADED_HIGH))
		return fmt_fail(
			err, err_len,
			"guest.kernel is a zImage "
			"(LOADED_HIGH clear): only bzImage is supported");
	if (!(out->xloadflags & XLF_KERNEL_64))
		return fmt_fail(err, err_len,
				"kernel does not support the 64-bit "
				"entry (XLF_KERNEL_64 clear)");
	if (check_kernel(p, len, out, err, err_len))
		return -1;
	read_version(p, out);
	return 0;
}

/* ---- the layout ---- */

/* [base, end) ranges nothing else may overlap. */
struct busy {
	unsigned n;
	struct { uint64_t base, end; } r[LINUX_MAX_RESERVED + 4];
};

static void busy_add(struct busy *b, uint64_t base, uint64_t size)
{
	if (size && b->n < ARRAY_SIZE(b->r)) {
		b->r[b->n].base = base;
		b->r[b->n].end = size > UINT64_MAX - base ? UINT64_MAX
							  : base + size;
		b->n++;
	}
}

static void busy_init(struct busy *b, const struct linux_reserved *res)
{
	b->n = 0;
	for (unsigned i = 0; res && i < res->count && i < LINUX_MAX_RESERVED;
	     i++)
		busy_add(b, res->area[i].base, res->area[i].size);
}

/* The first busy range that [base, end) overlaps, or -1. */
static int busy_hit(const struct busy *b, uint64_t base, uint64_t end)
{
	for (unsigned i = 0; i < b->n; i++)
		if (b->r[i].base < end && base < b->r[i].end)
			return (int)i;
	return -1;
}

/* Lowest align-aligned free [a, a+size) in [floor, limit); 0 if none. */
static uint64_t find_low(const struct busy *b, uint64_t floor, uint64_t size,
			 uint64_t limit, uint64_t align)
{
	uint64_t a = ALIGN_UP(floor, align), next;
	int hit;

	while (a < limit && size <= limit - a) {
		hit = busy_hit(b, a, a + size);
		if (hit < 0)
			return a;
		next = ALIGN_UP(b->r[hit].end, align);
		if (next <= a) /* a range reaching the top of the space */
			return 0;
		a = next;
	}
	return 0;
}

/* Highest align-aligned free [a, a+size) in [floor, limit); 0 if none. */
static uint64_t find_high(const struct busy *b, uint64_t floor, uint64_t size,
			  uint64_t limit, uint64_t align)
{
	uint64_t a;
	int hit;

	if (limit < floor || size > limit - floor)
		return 0;
	for (a = ALIGN_DOWN(limit - size, align); a >= floor;) {
		hit = busy_hit(b, a, a + size);
		if (hit < 0)
			return a;
		if (b->r[hit].base < floor + size)
			return 0;
		a = ALIGN_DOWN(b->r[hit].base - size, align);
	}
	return 0;
}

/*
 * The memory a kernel loaded at addr uses before it reads the e820 map.
 * boot.rst defines its runtime start as align_up(addr, kernel_alignment),
 * but the decompressor (startup_64 in arch/x86/boot/compressed/head_64.S)
 * also raises it to LOAD_PHYSICAL_ADDR, which is what pref_address holds
 * (arch/x86/boot/header.S), and works in [start, start + init_size). The
 * copied image itself sits at [addr, addr + kernel_size).
 */
static uint64_t kernel_end(const struct bzimage_info *k, uint64_t addr)
{
	uint64_t start = addr;

	if (k->relocatable)
		start = MAX(ALIGN_UP(addr, k->kernel_alignment),
			    k->pref_address);
	return start + k->init_size;
}

/*
 * pref_address if the kernel fits there, else, when it is relocatable, the
 * lowest kernel_alignment-aligned address from 1 MiB (boot.rst: bzImage
 * loads "high", at 0x100000) that fits. 0 when nothing below limit fits.
 */
static uint64_t place_kernel(const struct bzimage_info *k,
			     const struct busy *b, uint64_t limit)
{
	uint64_t a = k->pref_address ? k->pref_address : LOW_FLOOR, next;
	int hit;

	if (kernel_end(k, a) <= limit && busy_hit(b, a, kernel_end(k, a)) < 0)
		return a;
	if (!k->relocatable)
		return 0;
	for (a = ALIGN_UP(LOW_FLOOR, k->kernel_alignment);
	     kernel_end(k, a) <= limit; a = next) {
		hit = busy_hit(b, a, kernel_end(k, a));
		if (hit < 0)
			return a;
		next = ALIGN_UP(b->r[hit].end, k->kernel_alignment);
		if (next <= a || next > limit)
			return 0;
	}
	return 0;
}

/*
 * One placement over [0, ram): kernel, then zero page and command line as
 * low as possible, then the initrd as high as possible (initrd_high) or as
 * low as possible (to find the least RAM that works). Everything stays
 * below 4 GiB, so that ramdisk_image and cmd_line_ptr need no ext_ field
 * and the entry identity map can be 0..4 GiB, and above 1 MiB, clear of the
 * legacy hole at 0xA0000 (boot.rst, "Memory Layout"). Returns which piece
 * did not fit: 0 none, 1 kernel, 2 zero page or command line, 3 initrd.
 */
static int place_all(const struct bzimage_info *k, uint64_t ram,
		     const struct linux_reserved *res, bool initrd_high,
		     struct linux_layout *l)
{
	uint64_t limit = MIN(ram, HIGH_LIMIT), cmd = l->cmdline_len + 1;
	uint64_t irl = MIN(limit, (uint64_t)k->initrd_addr_max + 1);
	struct busy b;

	busy_init(&b, res);
	l->kernel_addr = place_kernel(k, &b, limit);
	if (!l->kernel_addr)
		return 1;
	l->kernel_end = kernel_end(k, l->kernel_addr);
	l->relocated = l->kernel_addr != k->pref_address;
	busy_add(&b, l->kernel_addr, l->kernel_end - l->kernel_addr);
	l->boot_params_addr = find_low(&b, LOW_FLOOR, BOOT_PARAMS_SIZE,
				       limit, PAGE_SIZE);
	if (!l->boot_params_addr)
		return 2;
	busy_add(&b, l->boot_params_addr, BOOT_PARAMS_SIZE);
	l->cmdline_addr = find_low(&b, LOW_FLOOR, cmd, limit, PAGE_SIZE);
	if (!l->cmdline_addr)
		return 2;
	busy_add(&b, l->cmdline_addr, ALIGN_UP(cmd, PAGE_SIZE));
	l->ident_map_end = MAX(l->kernel_end, MAX(l->boot_params_addr +
		BOOT_PARAMS_SIZE, l->cmdline_addr + ALIGN_UP(cmd, PAGE_SIZE)));
	if (!l->initrd_size)
		return 0;
	if (initrd_high)
		l->initrd_addr = find_high(&b, LOW_FLOOR, l->initrd_size, irl,
					   PAGE_SIZE);
	else
		l->initrd_addr = find_low(&b, LOW_FLOOR, l->initrd_size, irl,
					  PAGE_SIZE);
	if (!l->initrd_addr)
		return 3;
	l->ident_map_end = MAX(l->ident_map_end,
			       ALIGN_UP(l->initrd_addr + l->initrd_size,
					PAGE_SIZE));
	return 0;
}

/* Why a placement with unlimited RAM (up to 4 GiB) failed. */
static int explain_unplaceable(const struct bzimage_info *k, int what,
			       const struct linux_layout *l, char *err,
			       size_t err_len)
{
	uint64_t a = k->pref_address ? k->pref_address : LOW_FLOOR;

	if (what == 1 && !k->relocatable)
		return fmt_fail(err, err_len,
				"kernel is not relocatable and its "
				"memory 0x%llx-0x%llx overlaps memory apfvisor "
				"keeps for itself or lies above 4 GiB",
				(unsigned long long)a,
				(unsigned long long)kernel_end(k, a));
	if (what == 3)
		return fmt_fail(
			err, err_len,
			"initrd too large: %llu MiB does not "
			"fit below %llu MiB (the kernel's initrd_addr_max, "
			"at most 4 GiB) beside the kernel",
			mib_up(l->initrd_size),
			mib_up(MIN(HIGH_LIMIT,
				   (uint64_t)k->initrd_addr_max + 1)));
	return fmt_fail(err, err_len,
			"no room below 4 GiB for the kernel "
			"(%llu MiB from 0x%llx) and its boot data",
			mib_up(k->init_size), (unsigned long long)a);
}

int linux_plan_layout(const struct bzimage_info *k, uint64_t ram_size,
		      uint64_t initrd_size, uint64_t cmdline_len,
		      const struct linux_reserved *reserved,
		      struct linux_layout *out, char *err, size_t err_len)
{
	struct linux_layout least = { .cmdline_len = cmdline_len,
				      .initrd_size = initrd_size };
	int what;

	if (cmdline_len > k->cmdline_size)
		return fmt_fail(err, err_len,
				"guest.cmdline is too long: %llu "
				"bytes, this kernel takes at most %u "
				"(cmdline_size)",
				(unsigned long long)cmdline_len,
				k->cmdline_size);
	/* Pack everything low with RAM unbounded: the end is the minimum. */
	what = place_all(k, UINT64_MAX, reserved, false, &least);
	if (what)
		return explain_unplaceable(k, what, &least, err, err_len);
	if (ram_size < least.ident_map_end)
		return fmt_fail(err, err_len,
				"guest.memory (%llu MiB) is too small"
				" for this kernel: it needs at least %llu MiB "
				"(load address %llu MiB + init_size %llu MiB, "
				"initrd %llu MiB, boot parameters)",
				(unsigned long long)(ram_size >> 20),
				mib_up(least.ident_map_end),
				(unsigned long long)(least.kernel_addr >> 20),
				mib_up(k->init_size), mib_up(initrd_size));
	*out = (struct linux_layout){ .ram_size = ram_size,
				      .kernel_size = k->kernel_size,
				      .cmdline_len = cmdline_len,
				      .initrd_size = initrd_size,
				      .min_ram = least.ident_map_end };
	/* Cannot fail: what fitted below the minimum fits below ram_size. */
	if (place_all(k, ram_size, reserved, true, out))
		return fmt_fail(err, err_len, "no guest memory layout found");
	return 0;
}

/* ---- the zero page ---- */

static void put_e820(uint8_t *zp, const struct e820_entry *e820, unsigned n)
{
	n = MIN(n, E820_MAX_ENTRIES_ZEROPAGE);
	zp[BP_E820_ENTRIES] = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		unsigned off = BP_E820_TABLE + i * BP_E820_ENTRY_SIZE;

		le_put(zp, off, 8, e820[i].addr);
		le_put(zp, off + 8, 8, e820[i].size);
		le_put(zp, off + 16, 4, e820[i].type);
	}
}

void linux_build_boot_params(const void *img, uint64_t len,
			     const struct bzimage_info *k,
			     const struct linux_layout *l,
			     const struct e820_entry *e820, unsigned n_e820,
			     uint64_t acpi_rsdp, uint8_t zero_page[4096])
{
	uint64_t hdr_end = MIN(MIN(k->header_end, len), BP_HDR_HOLE_END);
	uint8_t *zp = zero_page;

	/*
	 * boot.rst, "64-bit Boot Protocol": a zeroed boot_params, then the
	 * setup header from 0x1f1 to 0x202 + the byte at 0x201. Starting at
	 * 0x1f1 leaves the sentinel at 0x1ef zero, which tells the kernel
	 * (arch/x86/include/asm/bootparam_utils.h) the rest is clean.
	 */
	memset(zp, 0, BOOT_PARAMS_SIZE);
	if (hdr_end > HDR_SETUP_SECTS) /* always, for an image that parsed */
		memcpy(zp + HDR_SETUP_SECTS, (const uint8_t *)img +
		       HDR_SETUP_SECTS, hdr_end - HDR_SETUP_SECTS);
	zp[HDR_TYPE_OF_LOADER] = LOADER_UNDEFINED;
	/*
	 * LOADED_HIGH says where the kernel is; QUIET_FLAG stays clear so the
	 * decompressor prints; KEEP_SEGMENTS is obsolete; CAN_USE_HEAP is for
	 * the real-mode setup code, which the 64-bit entry skips.
	 */
	zp[HDR_LOADFLAGS] = LOADED_HIGH;
	/* boot.rst, code32_start: a relocated kernel's loader sets it. */
	le_put(zp, HDR_CODE32_START, 4, l->kernel_addr);
	le_put(zp, HDR_RAMDISK_IMAGE, 4, l->initrd_addr);
	le_put(zp, HDR_RAMDISK_SIZE, 4, l->initrd_size);
	le_put(zp, HDR_CMD_LINE_PTR, 4, l->cmdline_addr);
	le_put(zp, HDR_SETUP_DATA, 8, 0);
	/* zero-page.rst: the high halves, read by kernels since 3.8. */
	le_put(zp, BP_EXT_RAMDISK_IMAGE, 4, l->initrd_addr >> 32);
	le_put(zp, BP_EXT_RAMDISK_SIZE, 4, l->initrd_size >> 32);
	le_put(zp, BP_EXT_CMD_LINE_PTR, 4, l->cmdline_addr >> 32);
	/*
	 * acpi_rsdp_addr: what x86_default_get_root_pointer returns
	 * (arch/x86/kernel/acpi/boot.c), the first place the kernel looks
	 * for the RSDP; boot.rst's 2.14 entry is the protocol that added it.
	 */
	if (acpi_rsdp && k->protocol >= PROTOCOL_ACPI_RSDP)
		le_put(zp, BP_ACPI_RSDP_ADDR, 8, acpi_rsdp);
	put_e820(zp, e820, n_e820);
}

uint64_t linux_entry_point(const struct linux_layout *l)
{
	/* boot.rst: "the start address of loaded 64-bit kernel plus 0x200" */
	return l->kernel_addr + ENTRY_64_OFFSET;
}

/* ---- the e820 map ---- */

/* The type at addr: RAM unless a reserved area covers it. */
static uint32_t type_at(const struct linux_reserved *res, uint64_t addr)
{
	uint32_t type = E820_TYPE_RAM;

	for (unsigned i = 0; res && i < res->count && i < LINUX_MAX_RESERVED;
	     i++) {
		const struct linux_reserved_area *a = &res->area[i];
		uint32_t t = a->e820_type ? a->e820_type : E820_TYPE_RESERVED;

		if (addr < a->base || addr - a->base >= a->size)
			continue;
		if (type == E820_TYPE_RAM || t == E820_TYPE_RESERVED)
			type = t;
	}
	return type;
}

/* Sorted, distinct boundaries: 0, ram_size and every area edge inside. */
static unsigned boundaries(uint64_t ram, const struct linux_reserved *res,
			   uint64_t *cut)
{
	unsigned n = 0, i, j;

	cut[n++] = 0;
	cut[n++] = ram;
	for (i = 0; res && i < res->count && i < LINUX_MAX_RESERVED; i++) {
		uint64_t base = res->area[i].base;
		uint64_t end = base + res->area[i].size;

		if (base > 0 && base < ram)
			cut[n++] = base;
		if (end > base && end < ram)
			cut[n++] = end;
	}
	for (i = 1; i < n; i++) /* insertion sort, dropping duplicates */
		for (j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
			uint64_t t = cut[j];

			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	for (i = j = 1; i < n; i++)
		if (cut[i] != cut[j - 1])
			cut[j++] = cut[i];
	return j;
}

unsigned linux_build_e820(const struct guest_ram_layout *ram,
			  const struct linux_reserved *reserved,
			  struct e820_entry *out, unsigned max)
{
	uint64_t cut[2 * LINUX_MAX_RESERVED + 2];
	unsigned ncut, n = 0;

	if (!ram->low_size)
		return 0;
	ncut = boundaries(ram->low_size, reserved, cut);
	for (unsigned i = 0; i + 1 < ncut; i++) {
		uint32_t type = type_at(reserved, cut[i]);

		if (n && out[n - 1].type == type) {
			out[n - 1].size += cut[i + 1] - cut[i];
			continue;
		}
		if (n == max)
			return 0;
		out[n].addr = cut[i];
		out[n].size = cut[i + 1] - cut[i];
		out[n].type = type;
		n++;
	}
	/* The RAM above the PCI hole: no reserved area reaches up there. */
	if (ram->high_size) {
		if (n == max)
			return 0;
		out[n++] = (struct e820_entry){ GUEST_RAM_HIGH_BASE,
						ram->high_size,
						E820_TYPE_RAM };
	}
	return n;
}
