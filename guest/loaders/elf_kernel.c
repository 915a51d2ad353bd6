// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ELF kernel parser (see guest/loaders/elf_kernel.h). Offsets are those of
 * Elf64_Ehdr and Elf64_Phdr (System V ABI, "ELF Header" and "Program
 * Header"); fields are read byte by byte, little-endian, because the image
 * need not be aligned. Every sum of two file values is checked for
 * overflow before it is compared.
 */
#include "guest/loaders/elf_kernel.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

#define EH_CLASS 4   /* e_ident[EI_CLASS] */
#define EH_DATA 5    /* e_ident[EI_DATA] */
#define EH_TYPE 16
#define EH_MACHINE 18

/*
 * Where the fields the parser reads sit in one ELF class's headers
 * (Elf64_Ehdr/Elf64_Phdr, or Elf32_Ehdr/Elf32_Phdr), and how wide the
 * address-sized ones are.
 */
struct elf_layout {
	unsigned word;                  /* bytes of an address or offset */
	unsigned machine;               /* the e_machine this class must have */
	const char *machine_name;
	unsigned eh_entry, eh_phoff, eh_phentsize, eh_phnum, eh_size;
	unsigned ph_flags, ph_offset, ph_vaddr, ph_paddr, ph_filesz, ph_memsz;
	unsigned ph_size;
};

#define ELFCLASS32 1
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ET_EXEC 2
#define EM_386 3
#define EM_X86_64 62

static const struct elf_layout elf64_layout = {
	.word = 8, .machine = EM_X86_64, .machine_name = "x86-64",
	.eh_entry = 24, .eh_phoff = 32, .eh_phentsize = 54, .eh_phnum = 56,
	.eh_size = 64,
	.ph_flags = 4, .ph_offset = 8, .ph_vaddr = 16, .ph_paddr = 24,
	.ph_filesz = 32, .ph_memsz = 40, .ph_size = 56,
};

static const struct elf_layout elf32_layout = {
	.word = 4, .machine = EM_386, .machine_name = "i386",
	.eh_entry = 24, .eh_phoff = 28, .eh_phentsize = 42, .eh_phnum = 44,
	.eh_size = 52,
	.ph_flags = 24, .ph_offset = 4, .ph_vaddr = 8, .ph_paddr = 12,
	.ph_filesz = 16, .ph_memsz = 20, .ph_size = 32,
};

#define PH_TYPE 0
#define PT_LOAD 1
#define PF_X 1

/* The entry identity map covers 0..4 GiB (guest/loaders/linux_boot.h). */
#define ELF_KERNEL_LIMIT GiB(4)

bool image_is_elf(const void *img, uint64_t len)
{
	return len >= 4 && memcmp(img, ELF_MAGIC, 4) == 0;
}

/*
 * The ELF header: identity, then where the program headers are. classes
 * says which ELF classes the caller loads; *lay is the chosen class's.
 */
static int check_header(const uint8_t *p, uint64_t len, unsigned classes,
			const struct elf_layout **lay, char *err,
			size_t err_len)
{
	const struct elf_layout *l;
	uint64_t phoff, phnum, table;

	if (!image_is_elf(p, len) || len < elf32_layout.eh_size)
		return fmt_fail(err, err_len,
				"not an ELF file or truncated in its "
				"ELF header (%llu bytes)",
				(unsigned long long)len);
	if (p[EH_CLASS] == ELFCLASS64 && (classes & ELF_CLASS_64))
		l = &elf64_layout;
	else if (p[EH_CLASS] == ELFCLASS32 && (classes & ELF_CLASS_32))
		l = &elf32_layout;
	else
		l = NULL;
	if (!l || p[EH_DATA] != ELFDATA2LSB)
		return fmt_fail(err, err_len,
				"ELF file is not %s little-endian "
				"(class %u, data %u): not an x86%s kernel",
				classes == ELF_CLASS_64 ? "64-bit" :
							  "32- or 64-bit",
				p[EH_CLASS], p[EH_DATA],
				classes == ELF_CLASS_64 ? "-64" : "");
	if (len < l->eh_size)
		return fmt_fail(err, err_len,
				"ELF file is truncated in its ELF header "
				"(%llu bytes)", (unsigned long long)len);
	if (le_get(p, EH_MACHINE, 2) != l->machine)
		return fmt_fail(err, err_len,
				"ELF file is for machine %llu, not "
				"%s (%u)",
				(unsigned long long)le_get(p, EH_MACHINE, 2),
				l->machine_name, l->machine);
	if (le_get(p, EH_TYPE, 2) != ET_EXEC)
		return fmt_fail(err, err_len,
				"ELF file is of type %llu, not an "
				"executable (2)",
				(unsigned long long)le_get(p, EH_TYPE, 2));
	if (le_get(p, l->eh_phentsize, 2) != l->ph_size)
		return fmt_fail(err, err_len,
				"ELF program headers are %llu bytes "
				"each, not %u",
				(unsigned long long)le_get(p, l->eh_phentsize, 2),
				l->ph_size);
	phoff = le_get(p, l->eh_phoff, l->word);
	phnum = le_get(p, l->eh_phnum, 2);
	table = phnum * l->ph_size;
	if (phoff > len || table > len - phoff)
		return fmt_fail(err, err_len,
				"ELF file is truncated: its %llu "
				"program headers at offset 0x%llx end past its "
				"%llu bytes",
				(unsigned long long)phnum,
				(unsigned long long)phoff,
				(unsigned long long)len);
	*lay = l;
	return 0;
}

/* One PT_LOAD program header: its data in the file, its place below 4G. */
static int read_segment(const struct elf_layout *l, const uint8_t *ph,
			uint64_t len, unsigned i, struct elf_segment *s,
			char *err, size_t err_len)
{
	s->offset = le_get(ph, l->ph_offset, l->word);
	s->vaddr = le_get(ph, l->ph_vaddr, l->word);
	s->paddr = le_get(ph, l->ph_paddr, l->word);
	s->filesz = le_get(ph, l->ph_filesz, l->word);
	s->memsz = le_get(ph, l->ph_memsz, l->word);
	s->exec = le_get(ph, l->ph_flags, 4) & PF_X;
	if (s->offset > len || s->filesz > len - s->offset)
		return fmt_fail(err, err_len,
				"ELF file is truncated: segment %u's "
				"%llu bytes at offset 0x%llx end past its %llu "
				"bytes",
				i, (unsigned long long)s->filesz,
				(unsigned long long)s->offset,
				(unsigned long long)len);
	if (s->filesz > s->memsz)
		return fmt_fail(err, err_len,
				"ELF segment %u has more bytes in "
				"the file (%llu) than in memory (%llu)",
				i, (unsigned long long)s->filesz,
				(unsigned long long)s->memsz);
	if (s->paddr > ELF_KERNEL_LIMIT ||
	    s->memsz > ELF_KERNEL_LIMIT - s->paddr)
		return fmt_fail(err, err_len,
				"ELF segment %u at physical 0x%llx "
				"(%llu bytes) reaches above 4 GiB",
				i, (unsigned long long)s->paddr,
				(unsigned long long)s->memsz);
	return 0;
}

/* Insertion by paddr; an overlap with a neighbour is an error. */
static int add_segment(struct elf_kernel *k, const struct elf_segment *s,
		       unsigned i, char *err, size_t err_len)
{
	unsigned at = k->count;

	if (k->count == ELF_KERNEL_MAX_SEGMENTS)
		return fmt_fail(err, err_len,
				"ELF file has more than %u PT_LOAD "
				"segments",
				ELF_KERNEL_MAX_SEGMENTS);
	while (at && k->seg[at - 1].paddr > s->paddr)
		at--;
	if ((at && k->seg[at - 1].paddr + k->seg[at - 1].memsz > s->paddr) ||
	    (at < k->count && s->paddr + s->memsz > k->seg[at].paddr))
		return fmt_fail(err, err_len,
				"ELF segment %u (physical 0x%llx, "
				"%llu bytes) overlaps another segment",
				i, (unsigned long long)s->paddr,
				(unsigned long long)s->memsz);
	memmove(&k->seg[at + 1], &k->seg[at],
		(k->count - at) * sizeof(k->seg[0]));
	k->seg[at] = *s;
	k->count++;
	k->file_bytes += s->filesz;
	return 0;
}

/*
 * The entry as a physical address inside an executable segment's data: as
 * it is, or (a kernel linked at a virtual address other than where it is
 * loaded, as multiboot loaders allow) translated by that segment's
 * vaddr-to-paddr offset. False when it is in neither.
 */
static bool resolve_entry(struct elf_kernel *k, uint64_t entry,
			  bool translate)
{
	for (unsigned i = 0; i < k->count; i++) {
		const struct elf_segment *s = &k->seg[i];

		if (s->exec && entry >= s->paddr &&
		    entry - s->paddr < s->filesz) {
			k->entry = entry;
			return true;
		}
	}
	for (unsigned i = 0; translate && i < k->count; i++) {
		const struct elf_segment *s = &k->seg[i];

		if (s->exec && entry >= s->vaddr &&
		    entry - s->vaddr < s->filesz) {
			k->entry = entry - s->vaddr + s->paddr;
			return true;
		}
	}
	return false;
}

int elf_image_parse(const void *img, uint64_t len, unsigned classes,
		    struct elf_kernel *out, char *err, size_t err_len)
{
	const struct elf_layout *l = NULL;
	const uint8_t *p = img;
	struct elf_segment s;
	uint64_t phoff, phnum, entry;

	memset(out, 0, sizeof(*out));
	if (check_header(p, len, classes, &l, err, err_len))
		return -1;
	out->is32 = l == &elf32_layout;
	phoff = le_get(p, l->eh_phoff, l->word);
	phnum = le_get(p, l->eh_phnum, 2);
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + (uint64_t)i * l->ph_size;

		if (le_get(ph, PH_TYPE, 4) != PT_LOAD)
			continue;
		if (read_segment(l, ph, len, i, &s, err, err_len) ||
		    add_segment(out, &s, i, err, err_len))
			return -1;
	}
	if (!out->count)
		return fmt_fail(err, err_len,
				"ELF file has no PT_LOAD segment");
	out->lowest = out->seg[0].paddr;
	out->end =
		out->seg[out->count - 1].paddr + out->seg[out->count - 1].memsz;
	entry = le_get(p, l->eh_entry, l->word);
	if (!resolve_entry(out, entry, classes != ELF_CLASS_64))
		return fmt_fail(err, err_len,
				"ELF entry point 0x%llx is not in an "
				"executable segment's data",
				(unsigned long long)entry);
	return 0;
}

int elf_kernel_parse(const void *img, uint64_t len, struct elf_kernel *out,
		     char *err, size_t err_len)
{
	return elf_image_parse(img, len, ELF_CLASS_64, out, err, err_len);
}
