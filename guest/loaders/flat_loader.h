/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test guests: flat 64-bit binaries. The entry ABI (docs/tests.md, "Test
 * guests"):
 * loaded at guest-physical 0x200000 and entered there in long mode with
 * RSP = 0x200000, RDI = bytes of RAM from 0 (below the PCI hole), RDX =
 * bytes of RAM from 4 GiB (lib/guest_ram.h: 0 below 3.5 GiB of
 * guest.memory), RSI = address of the command line, IF = 0, and
 * guest-physical 0..4 GiB identity-mapped with 2 MiB pages.
 */
#ifndef GUEST_FLAT_LOADER_H
#define GUEST_FLAT_LOADER_H

#include "guest/vm.h"

#define FLAT_LOAD_ADDRESS 0x200000ull

/* Prints an error line and returns false when the image cannot be loaded. */
bool flat_loader_load(struct vm *g, const void *image, uint64_t size,
		      const char *cmdline);

#endif
