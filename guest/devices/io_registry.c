// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/io_registry.h"
#include "lib/string.h"

void io_registry_init(struct io_registry *r)
{
	memset(r, 0, sizeof(*r));
}

enum io_register_result io_register_ports(struct io_registry *r,
					  const struct io_port_range *range)
{
	uint32_t end = (uint32_t)range->base + range->count;

	if (!range->count || end > IO_PORT_SPACE || !range->fn)
		return IO_REGISTER_BAD_RANGE;
	if (r->nports == IO_PORT_RANGES_MAX)
		return IO_REGISTER_FULL;
	for (uint32_t p = range->base; p < end; p++)
		if (r->port_slot[p])
			return IO_REGISTER_OVERLAP;
	r->ports[r->nports++] = *range;
	for (uint32_t p = range->base; p < end; p++)
		r->port_slot[p] = (uint8_t)r->nports;
	return IO_REGISTERED;
}

/* [a, a + alen) and [b, b + blen) share an address (lengths > 0). */
static bool ranges_meet(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a - b < blen || b - a < alen;
}

enum io_register_result io_register_mmio(struct io_registry *r,
					 const struct io_mmio_range *range)
{
	if (!range->len || !range->fn ||
	    (!range->vcpu_base && range->base + range->len - 1 < range->base))
		return IO_REGISTER_BAD_RANGE;
	if (r->nmmio == IO_MMIO_RANGES_MAX)
		return IO_REGISTER_FULL;
	for (unsigned i = 0; i < r->nmmio && !range->vcpu_base; i++)
		if (!r->mmio[i].vcpu_base &&
		    ranges_meet(range->base, range->len, r->mmio[i].base,
				r->mmio[i].len))
			return IO_REGISTER_OVERLAP;
	r->mmio[r->nmmio++] = *range;
	return IO_REGISTERED;
}
