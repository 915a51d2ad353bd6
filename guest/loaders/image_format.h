/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What kind of kernel guest.kernel is, told by its headers and never
 * guessed: a Linux bzImage (the boot protocol's "HdrS" at 0x202 and the
 * boot sector's 0xAA55), a multiboot (v1) image (the magic 0x1BADB002 with
 * a valid checksum in the first 8 KiB, 4-byte aligned), an ELF kernel (an
 * uncompressed vmlinux). A flat test guest has no header: only
 * guest.format = flat names one. Pure C (tests/unit, tests/fuzz).
 */
#ifndef GUEST_IMAGE_FORMAT_H
#define GUEST_IMAGE_FORMAT_H

#include "guest/guest_format.h"
#include "lib/types.h"

#define MULTIBOOT_HEADER_MAGIC  0x1BADB002u
#define MULTIBOOT_SEARCH_BYTES  8192

/* "auto", "bzimage", "multiboot", "elf", "flat" (as in apfvisor.cfg). */
const char *guest_format_name(enum guest_format f);

/*
 * The format of image by its headers: BZIMAGE, MULTIBOOT (checked before
 * ELF: a multiboot kernel is often an ELF file too), ELF or UNKNOWN;
 * never FLAT. For UNKNOWN, what it looks like goes into looks ("a PE/COFF
 * executable", "a gzip file", "empty", ...).
 */
enum guest_format image_format_detect(const void *image, uint64_t size,
				      char *looks, size_t looks_len);

/*
 * The format to load image as, given guest.format = wanted: wanted itself
 * when the headers agree (FLAT always does), the detected one for AUTO.
 * Returns UNKNOWN with one message in err (naming the file as name) when
 * the file is not what was asked, or when AUTO recognised nothing.
 */
enum guest_format image_format_choose(enum guest_format wanted,
				      const void *image, uint64_t size,
				      const char *name, char *err,
				      size_t err_len);

#endif
