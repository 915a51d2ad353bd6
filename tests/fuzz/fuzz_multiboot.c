// SPDX-License-Identifier: BSD-2-Clause
/*
 * The multiboot header and load-plan parser over arbitrary files: it
 * accepts, or refuses with a message; what it accepts lies in [1 MiB, RAM)
 * or in [0x8000, 0x9fc00), with its data inside the file and its entry in a segment's data.
 */
#include <stdint.h>
#include <string.h>

#include "guest/loaders/multiboot.h"
#include "tests/fuzz/fuzz_check.h"

#define RAM (256ull << 20)

static int entry_in_a_segment(const struct elf_kernel *k)
{
	for (unsigned i = 0; i < k->count; i++)
		if (k->entry >= k->seg[i].paddr &&
		    k->entry - k->seg[i].paddr < k->seg[i].filesz)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct multiboot_kernel k;
	char err[256];

	err[0] = 0;
	if (multiboot_parse(data, size, RAM, &k, err, sizeof(err))) {
		CHECK(err[0] != 0);
		return 0;
	}
	CHECK(k.image.count >= 1);
	CHECK(k.image.lowest >= 0x8000 && k.image.end <= RAM);
	for (unsigned i = 0; i < k.image.count; i++) {
		const struct elf_segment *s = &k.image.seg[i];

		/* Below 1 MiB: conventional memory above the boot state. */
		CHECK(s->paddr >= (1u << 20) ||
		      (s->paddr >= 0x8000 && s->paddr + s->memsz <= 0x9fc00));

		CHECK(s->offset <= size && s->filesz <= size - s->offset);
		CHECK(s->filesz <= s->memsz);
	}
	CHECK(entry_in_a_segment(&k.image));
	return 0;
}
