/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's two I/O address spaces as tables: each device registers its
 * port ranges and MMIO ranges with a handler when the VM is built
 * (guest/io_ports.c, guest/io_mmio.c), and an exit looks
 * the address up here without naming any device, as ACRN's
 * register_pio_emulation_handler / register_mmio_emulation_handler or
 * KVM's kvm_io_bus_register_dev.
 *
 * Ports: ranges never overlap (refused at registration). A lookup is one
 * load: a byte per port of the 64 Ki port space says which range, if
 * any, holds it. The handler gets the port the access starts at; an
 * access wider than a byte belongs to the range of its first port.
 *
 * MMIO: a range lies at a fixed guest-physical address, or at a place of
 * each vCPU's own (the local APIC page, which every vCPU can move): then
 * a word in each vCPU's state says where, read at each lookup. Fixed
 * ranges never overlap one another; a per-vCPU one may lie over anything. A lookup walks the few ranges in
 * the order they were registered; a handler that does not take an access
 * passes it on to the next range holding the address (a disabled xAPIC
 * page moved over the I/O APIC's leaves the access to the I/O APIC).
 *
 * Nothing here knows a device or the VM: struct vm is only passed on.
 */
#ifndef GUEST_IO_REGISTRY_H
#define GUEST_IO_REGISTRY_H

#include "lib/types.h"

#define IO_PORT_SPACE 0x10000u
#define IO_PORT_RANGES_MAX 32
#define IO_MMIO_RANGES_MAX 8

struct vm;

/* What a handler did with an access. */
enum io_claim {
	IO_UNCLAIMED,   /* not this device's (an IN reads all ones) */
	IO_CLAIMED,     /* done; no interrupt line can have moved */
	IO_CLAIMED_IRQ, /* done; what an interrupt poll finds may differ */
};

/*
 * size is 1, 2 or 4; *value is read (OUT) or written (IN). The dispatcher
 * cuts what an IN writes to size bytes.
 */
typedef enum io_claim (*io_port_fn)(struct vm *vm, void *opaque,
				    uint16_t port, unsigned size, bool in,
				    uint32_t *value);

struct io_port_range {
	uint16_t base;
	uint32_t count;         /* ports from base, 1..IO_PORT_SPACE - base */
	/*
	 * The handler takes the locks it needs itself; otherwise the
	 * dispatcher holds the devices' lock around it.
	 */
	bool own_locking;
	io_port_fn fn;
	void *opaque;
};

/*
 * offset from the range's base (for vCPU vcpu), size 1, 2, 4 or 8; *value
 * is read (store) or written (load; the caller's default is all ones).
 */
typedef enum io_claim (*io_mmio_fn)(struct vm *vm, void *opaque,
				    unsigned vcpu, uint64_t offset,
				    unsigned size, bool write, uint64_t *value);

struct io_mmio_range {
	uint64_t base;          /* fixed ranges */
	uint64_t len;
	/*
	 * Per-vCPU ranges (vcpu_base not NULL): vCPU n's base is the word
	 * at vcpu_base plus n * vcpu_stride bytes, and vcpu_base_mask.
	 */
	const uint64_t *vcpu_base;
	size_t vcpu_stride;
	uint64_t vcpu_base_mask;
	io_mmio_fn fn;
	void *opaque;
	/*
	 * The handler takes the locks it needs itself (a device that reads
	 * guest RAM, which must not be done under the devices' lock), and
	 * passes nothing on; otherwise the dispatcher holds that lock.
	 */
	bool own_locking;
};

struct io_registry {
	unsigned nports, nmmio;
	struct io_port_range ports[IO_PORT_RANGES_MAX];
	struct io_mmio_range mmio[IO_MMIO_RANGES_MAX];
	uint8_t port_slot[IO_PORT_SPACE];       /* 0, or ports[] index + 1 */
};

enum io_register_result {
	IO_REGISTERED,
	IO_REGISTER_OVERLAP,    /* a port or a fixed address already taken */
	IO_REGISTER_FULL,       /* no slot left in the table */
	IO_REGISTER_BAD_RANGE,  /* empty, past the space's end, no handler */
};

/* An empty registry (every port and address unclaimed). */
void io_registry_init(struct io_registry *r);

enum io_register_result io_register_ports(struct io_registry *r,
					  const struct io_port_range *range);
enum io_register_result io_register_mmio(struct io_registry *r,
					 const struct io_mmio_range *range);

/* The range holding port, or NULL. */
static inline const struct io_port_range *
io_find_port(const struct io_registry *r, uint16_t port)
{
	unsigned slot = r->port_slot[port];

	return slot ? &r->ports[slot - 1] : NULL;
}

/* Where range m lies for vCPU vcpu. */
static inline uint64_t io_mmio_base(const struct io_mmio_range *m,
				    unsigned vcpu)
{
	const uint64_t *word;

	if (!m->vcpu_base)
		return m->base;
	word = (const uint64_t *)((uintptr_t)m->vcpu_base +
					   vcpu * m->vcpu_stride);
	return *word & m->vcpu_base_mask;
}

/*
 * The first MMIO range at index from or later that holds gpa for vCPU
 * vcpu (its index), or -1; *offset is gpa's offset in it.
 */
static inline int io_find_mmio(const struct io_registry *r, unsigned vcpu,
			       uint64_t gpa, unsigned from, uint64_t *offset)
{
	for (unsigned i = from; i < r->nmmio; i++) {
		const struct io_mmio_range *m = &r->mmio[i];
		uint64_t base = io_mmio_base(m, vcpu);

		if (gpa - base < m->len) {
			*offset = gpa - base;
			return (int)i;
		}
	}
	return -1;
}

#endif
