/* SPDX-License-Identifier: BSD-2-Clause */
/* Ending the run: leave the emulator, or park the machine on real hardware. */
#ifndef ARCH_X86_PLATFORM_H
#define ARCH_X86_PLATFORM_H

#include "lib/types.h"

/* Bochs ends when "Shutdown" is written to this port (DESIGN.md, Bochs). */
#define BOCHS_SHUTDOWN_PORT 0x8900
/* QEMU's isa-debug-exit device as tools/qemu-run configures it. */
#define QEMU_DEBUG_EXIT_PORT 0xf4

/*
 * Prints "apfvisor: done", stops the other host CPUs, ends the emulator,
 * and on real hardware halts this CPU for good (the console stays readable).
 */
NORETURN void platform_stop(void);

/*
 * What platform_stop runs after "apfvisor: done" and before it ends the
 * emulator: boot/ holds the screen console's last picture there. NULL:
 * nothing.
 */
void platform_set_final_hold(void (*hold)(void));

/* Other CPUs call this when they see platform_stopping() become true. */
bool platform_stopping(void);

#endif
