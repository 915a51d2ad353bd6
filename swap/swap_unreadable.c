// SPDX-License-Identifier: BSD-2-Clause
/* Pages whose swap-ins fail on purpose (swap/swap_unreadable.h). */
#include "swap/swap_unreadable.h"

bool swap_unreadable_has(const struct swap_unreadable *u, uint64_t gfn)
{
	for (unsigned i = 0; i < u->count; i++)
		if (u->gfn[i] == gfn)
			return true;
	return false;
}

bool swap_unreadable_add(struct swap_unreadable *u, uint64_t gfn)
{
	if (swap_unreadable_has(u, gfn))
		return true;
	if (u->count == SWAP_UNREADABLE_MAX)
		return false;
	u->gfn[u->count++] = gfn;
	return true;
}
