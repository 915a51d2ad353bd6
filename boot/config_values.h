/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The values of apfvisor.cfg, one parser per syntax: sizes (64M), durations
 * (5ms), decimal counts, 0x hex words, IPv4 addresses and A.B.C.D/N, NBD
 * server lists (nbd://A.B.C.D[:PORT]/EXPORT, ...), quoted paths and the
 * command line's quotes. Plain C over (pointer, length) slices that never
 * look past their length; no key, no bounds of a key, no hardware. The
 * keys, the line parser and what a key does with its value: boot/config.c.
 *
 * Each parser takes the whole value (already trimmed) and returns false
 * for anything but exactly its syntax; what it wrote then means nothing.
 */
#ifndef BOOT_CONFIG_VALUES_H
#define BOOT_CONFIG_VALUES_H

#include "lib/types.h"
#include "swap/swap_params.h"

/* The longest duration a key may be given (10 s). */
#define CONFIG_DURATION_MAX_NS 10000000000ull

/* n bytes from p: not NUL-terminated. */
struct config_slice {
	const char *p;
	size_t n;
};

/* s without the spaces, tabs and CRs at either end. */
struct config_slice config_trim(struct config_slice s);
/* Whether s is exactly the string str. */
bool config_slice_eq(struct config_slice s, const char *str);
/* The index of the first c in s, or s.n when there is none. */
size_t config_slice_find(struct config_slice s, char c);

/*
 * Digits and an optional K, M or G (binary, either case), which may follow
 * a blank and be followed by "B" or "iB"; no overflow. "64M", "64 MiB".
 */
bool config_value_size(struct config_slice s, uint64_t *bytes);
/* The same over a C string ("64M", "1G", "4096", "512K"). */
bool config_parse_size(const char *s, uint64_t *bytes);

/*
 * Digits and a unit ns, us, ms or s (a blank may come between); "0" alone
 * is allowed. At most CONFIG_DURATION_MAX_NS; in nanoseconds.
 */
bool config_value_duration(struct config_slice s, uint64_t *ns);

/*
 * A decimal number in 0..max: digits only, leading zeros allowed. max must
 * stay below UINT32_MAX / 10 (the number is checked after each digit).
 */
bool config_value_count(struct config_slice s, uint32_t max, uint32_t *out);

/* 0x (or 0X) and 1 to 16 hex digits of either case (0x0 included). */
bool config_value_hex64(struct config_slice s, uint64_t *out);

/* A.B.C.D: four numbers 0..255 of 1 to 3 digits; host order. */
bool config_value_ipv4(struct config_slice s, uint32_t *ip);

/* A.B.C.D/N with N (1 or 2 digits) in 1..32. */
bool config_value_ipv4_prefix(struct config_slice s, uint32_t *ip,
			      unsigned *prefix_len);

/*
 * nbd://A.B.C.D[:PORT][/EXPORT]: PORT 1..65535 (SWAP_NBD_DEFAULT_PORT when
 * not given), EXPORT shorter than SWAP_EXPORT_NAME_MAX, of printable ASCII
 * but space, ',', '"' and '#' (empty when not given).
 */
bool config_value_nbd_url(struct config_slice s, struct swap_remote *r);

/*
 * One to SWAP_REMOTE_MAX such URLs separated by commas, blanks around
 * each allowed; no empty entry, no trailing comma. Fills at[0..*count-1].
 */
bool config_value_nbd_list(struct config_slice s, struct swap_remote *at,
			   unsigned *count);

/*
 * A file path, in optional double quotes: *out is the path without them.
 * A '"' anywhere else is refused (FAT does not allow it in a name, so it
 * can only be a typo). The path may be empty.
 */
bool config_value_path(struct config_slice s, struct config_slice *out);

/*
 * The guest's command line: one pair of quotes that encloses the whole
 * value goes, unless there are quotes inside it (Linux gives quotes a
 * meaning: param="a b"); every other quote is kept. Never refused.
 */
struct config_slice config_value_text(struct config_slice s);

#endif
