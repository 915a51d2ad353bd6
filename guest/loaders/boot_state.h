/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every 64-bit guest entry needs in guest memory, whatever the loader:
 * identity page tables for guest-physical 0..4 GiB (2 MiB pages) and a GDT
 * whose selectors match the Linux boot protocol (__BOOT_CS = 0x10,
 * __BOOT_DS = 0x18; Documentation/arch/x86/boot.rst, 64-bit boot protocol),
 * with a 32-bit code segment at 0x08 for multiboot kernels.
 * All of it lives in [BOOT_STATE_BASE, BOOT_STATE_END), below 1 MiB.
 */
#ifndef GUEST_BOOT_STATE_H
#define GUEST_BOOT_STATE_H

#include "guest/vm.h"

#define BOOT_STATE_BASE 0x1000ull
#define BOOT_PML4 0x1000ull
#define BOOT_PDPT 0x2000ull
#define BOOT_PD0 0x3000ull              /* four PDs: 0x3000..0x6fff */
#define BOOT_GDT 0x7000ull
#define BOOT_STATE_END 0x8000ull
#define BOOT_CS_SELECTOR 0x10
#define BOOT_DS_SELECTOR 0x18
#define BOOT_TR_SELECTOR 0x20

/* Writes the tables; false when guest memory could not take them. */
bool boot_state_write(struct vm *g);

/* Long mode, paging on with the tables above, interrupts off. */
void boot_state_long_mode_entry(struct vcpu_entry_state *e, uint64_t rip,
				uint64_t rsp);

/*
 * 32-bit protected mode, paging off, flat segments (code 0x08, data 0x18
 * of the GDT above), interrupts off: the multiboot machine state (3.2).
 */
void boot_state_protected_mode_entry(struct vcpu_entry_state *e, uint64_t eip,
				     uint64_t esp);

#endif
