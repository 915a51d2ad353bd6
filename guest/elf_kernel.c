// SPDX-License-Identifier: BSD-2-Clause
/*
 * The ELF kernel parser (see guest/elf_kernel.h). Offsets are those of
 * Elf64_Ehdr and Elf64_Phdr (System V ABI, "ELF Header" and "Program
 * Header"); fields are read byte by byte, little-endian, because the image
 * need not be aligned. Every sum of two file values is checked for
 * overflow before it is compared.
 */
#include "guest/elf_kernel.h"
#include "lib/bytes.h"
#include "lib/format.h"
#include "lib/string.h"

/* Elf64_Ehdr */
#define EH_CLASS 4   /* e_ident[EI_CLASS] */
#define EH_DATA 5    /* e_ident[EI_DATA] */
#define EH_TYPE 16
#define EH_MACHINE 18
#define EH_ENTRY 24
#define EH_PHOFF 32
#define EH_PHENTSIZE 54
#define EH_PHNUM 56
#define EH_SIZE 64

/* Elf64_Phdr */
#define PH_TYPE 0
#define PH_FLAGS 4
#define PH_OFFSET 8
#define PH_PADDR 24
#define PH_FILESZ 32
#define PH_MEMSZ 40
#define PH_SIZE 56

#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ET_EXEC 2
#define EM_X86_64 62
#define PT_LOAD 1
#define PF_X 1

/* The entry identity map covers 0..4 GiB (guest/linux_boot.h). */
#define ELF_KERNEL_LIMIT GiB(4)

bool image_is_elf(const void *img, uint64_t len)
{
	return len >= 4 && memcmp(img, ELF_MAGIC, 4) == 0;
}

/* The ELF header: identity, then where the program headers are. */
static int check_header(const uint8_t *p, uint64_t len, char *err,
			size_t err_len)
{
	uint64_t phoff, phnum, table;

	if (!image_is_elf(p, len) || len < EH_SIZE)
		return fmt_fail(err, err_len,
				"not an ELF file or truncated in its "
				"ELF header (%llu bytes)",
				(unsigned long long)len);
	if (p[EH_CLASS] != ELFCLASS64 || p[EH_DATA] != ELFDATA2LSB)
		return fmt_fail(err, err_len,
				"ELF file is not 64-bit little-endian "
				"(class %u, data %u): not an x86-64 kernel",
				p[EH_CLASS], p[EH_DATA]);
	if (le_get(p, EH_MACHINE, 2) != EM_X86_64)
		return fmt_fail(err, err_len,
				"ELF file is for machine %llu, not "
				"x86-64 (62)",
				(unsigned long long)le_get(p, EH_MACHINE, 2));
	if (le_get(p, EH_TYPE, 2) != ET_EXEC)
		return fmt_fail(err, err_len,
				"ELF file is of type %llu, not an "
				"executable (2)",
				(unsigned long long)le_get(p, EH_TYPE, 2));
	if (le_get(p, EH_PHENTSIZE, 2) != PH_SIZE)
		return fmt_fail(err, err_len,
				"ELF program headers are %llu bytes "
				"each, not 56",
				(unsigned long long)le_get(p, EH_PHENTSIZE, 2));
	phoff = le_get(p, EH_PHOFF, 8);
	phnum = le_get(p, EH_PHNUM, 2);
	table = phnum * PH_SIZE;
	if (phoff > len || table > len - phoff)
		return fmt_fail(err, err_len,
				"ELF file is truncated: its %llu "
				"program headers at offset 0x%llx end past its "
				"%llu bytes",
				(unsigned long long)phnum,
				(unsigned long long)phoff,
				(unsigned long long)len);
	return 0;
}

/* One PT_LOAD program header: its data in the file, its place below 4G. */
static int read_segment(const uint8_t *ph, uint64_t len, unsigned i,
			struct elf_segment *s, char *err, size_t err_len)
{
	s->offset = le_get(ph, PH_OFFSET, 8);
	s->paddr = le_get(ph, PH_PADDR, 8);
	s->filesz = le_get(ph, PH_FILESZ, 8);
	s->memsz = le_get(ph, PH_MEMSZ, 8);
	s->exec = le_get(ph, PH_FLAGS, 4) & PF_X;
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

static bool entry_ok(const struct elf_kernel *k)
{
	for (unsigned i = 0; i < k->count; i++) {
		const struct elf_segment *s = &k->seg[i];

		if (s->exec && k->entry >= s->paddr &&
		    k->entry - s->paddr < s->filesz)
			return true;
	}
	return false;
}

int elf_kernel_parse(const void *img, uint64_t len, struct elf_kernel *out,
		     char *err, size_t err_len)
{
	const uint8_t *p = img;
	struct elf_segment s;
	uint64_t phoff, phnum;

	memset(out, 0, sizeof(*out));
	if (check_header(p, len, err, err_len))
		return -1;
	phoff = le_get(p, EH_PHOFF, 8);
	phnum = le_get(p, EH_PHNUM, 2);
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + (uint64_t)i * PH_SIZE;

		if (le_get(ph, PH_TYPE, 4) != PT_LOAD)
			continue;
		if (read_segment(ph, len, i, &s, err, err_len) ||
		    add_segment(out, &s, i, err, err_len))
			return -1;
	}
	if (!out->count)
		return fmt_fail(err, err_len,
				"ELF file has no PT_LOAD segment");
	out->lowest = out->seg[0].paddr;
	out->end =
		out->seg[out->count - 1].paddr + out->seg[out->count - 1].memsz;
	out->entry = le_get(p, EH_ENTRY, 8);
	if (!entry_ok(out))
		return fmt_fail(err, err_len,
				"ELF entry point 0x%llx is not in an "
				"executable segment's data",
				(unsigned long long)out->entry);
	return 0;
}
