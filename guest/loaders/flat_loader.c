// SPDX-License-Identifier: BSD-2-Clause
#include "guest/loaders/flat_loader.h"
#include "guest/loaders/boot_state.h"
#include "lib/console.h"
#include "lib/string.h"

#define FLAT_CMDLINE 0x8000ull          /* just above the boot state */

bool flat_loader_load(struct vm *g, const void *image, uint64_t size,
		      const char *cmdline)
{
	/* The test guest is loaded, and told of RAM, below the PCI hole. */
	uint64_t ram = g->memory.ram.ram.low_size;
	struct vcpu_entry_state *e = &g->entry;

	if (ram < FLAT_LOAD_ADDRESS + MiB(2) ||
	    size > ram - FLAT_LOAD_ADDRESS) {
		hv_error("test guest of %llu bytes does not fit in the %llu "
			 "MiB of guest.memory below 4 GiB (it is loaded at 2 "
			 "MiB)",
			 (unsigned long long)size,
			 (unsigned long long)(ram >> 20));
		return false;
	}
	if (!boot_state_write(g) ||
	    vm_write_ram(g, FLAT_CMDLINE, cmdline,
			       strlen(cmdline) + 1) ||
	    vm_write_ram(g, FLAT_LOAD_ADDRESS, image, size)) {
		hv_error("not enough host frames to load the test guest");
		return false;
	}
	boot_state_long_mode_entry(e, FLAT_LOAD_ADDRESS, FLAT_LOAD_ADDRESS);
	e->rdi = ram;
	e->rdx = g->memory.ram.ram.high_size;
	e->rsi = FLAT_CMDLINE;
	return true;
}
