/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The VM's virtio balloon (guest/devices/virtio_balloon.h) on its
 * platform: PCI 00:PCI_BALLOON_SLOT.0, INTA# to GSI PCI_BALLOON_GSI (the
 * DSDT's _PRT says so, guest/devices/pci_layout.h), BAR0 first at
 * BALLOON_BAR0 in the root bridge's 32-bit window (the guest may move
 * it), guest RAM through vm_read_ram/vm_write_ram and reported pages
 * discarded in guest memory (guest_memory_discard).
 *
 * Locks: the device has its own, taken before memory.lock (its queues are
 * in guest RAM) and never with dev.lock held; its PCI configuration space
 * is under dev.lock (the PCI host's). The ISR status, which both sides
 * read, is an atomic byte, and the INTx line is set from it under
 * dev.lock by guest_update_irq_lines.
 */
#ifndef GUEST_BALLOON_H
#define GUEST_BALLOON_H

#include "guest/devices/pci_layout.h"
#include "guest/devices/virtio_balloon.h"
#include "lib/counters.h"
#include "lib/spinlock.h"

struct vm;

/* BAR0's address until the guest moves it: the window's top 64 KiB. */
#define BALLOON_BAR0 (PCI_WINDOW32_LIMIT + 1 - 0x10000)

struct vm_balloon {
	struct spinlock lock;
	struct virtio_balloon dev;
	/* Where BAR0 decodes for the I/O registry (~0 masked: nowhere). */
	uint64_t bar_word;
	struct counter_source counters;
};

/* Puts the balloon on the VM's PCI bus and in its MMIO map; false: no room. */
bool vm_balloon_create(struct vm *vm);

/* The INTx level, for guest_update_irq_lines (under dev.lock). */
static inline bool vm_balloon_irq_level(const struct vm_balloon *b)
{
	return virtio_pci_device_irq_level(&b->dev.pci);
}

#endif
