// SPDX-License-Identifier: BSD-2-Clause
#include "lib/guest_ram.h"

/*
 * QEMU's pc machine (hw/i386/pc_piix.c, pc_init1; q35 does the same with
 * 2 GiB): RAM below 4 GiB ends at max-ram-below-4g, 3.5 GiB by default;
 * a guest that does not fit there is split at 3 GiB instead ("gigabyte
 * align" of the machine types since 1.7), the rest going above 4 GiB. So
 * -m 3G is all low, -m 4G is 3072M low and 1024M high, -m 6G is 3072M low
 * and 3072M high. apfvisor takes the same rule, so that a guest sees the
 * map it would see under `qemu -M pc`.
 */
#define PC_MAX_RAM_BELOW_4G (GiB(3) + MiB(512))
#define PC_SPLIT GiB(3)

void guest_ram_layout_pc(struct guest_ram_layout *l, uint64_t total)
{
	uint64_t low = total >= PC_MAX_RAM_BELOW_4G ? PC_SPLIT : total;

	l->low_size = low;
	l->high_size = total - low;
}

unsigned guest_ram_ranges(const struct guest_ram_layout *l,
			  struct guest_ram_range out[GUEST_RAM_MAX_RANGES])
{
	unsigned n = 0;

	if (l->low_size)
		out[n++] = (struct guest_ram_range){ 0, l->low_size };
	if (l->high_size)
		out[n++] = (struct guest_ram_range){ GUEST_RAM_HIGH_BASE,
						     l->high_size };
	return n;
}

bool guest_ram_contains_span(const struct guest_ram_layout *l, uint64_t gpa,
			     uint64_t len)
{
	struct guest_ram_range r[GUEST_RAM_MAX_RANGES];
	unsigned n = guest_ram_ranges(l, r);

	for (unsigned i = 0; i < n; i++)
		if (gpa >= r[i].base && len <= r[i].size &&
		    gpa - r[i].base <= r[i].size - len)
			return len > 0;
	return false;
}
