// SPDX-License-Identifier: BSD-2-Clause
#include "arch/x86/platform.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/serial.h"
#include "lib/console.h"

static volatile bool stopping;

bool platform_stopping(void)
{
	return stopping;
}

static void (*final_hold)(void);

void platform_set_final_hold(void (*hold)(void))
{
	final_hold = hold;
}

NORETURN void platform_stop(void)
{
	static const char bochs_shutdown[] = "Shutdown";

	stopping = true;
	hv_info("done");
	/* The serial record is complete before any wait on the screen. */
	serial_drain();
	if (final_hold)
		final_hold();
	serial_drain();
	for (const char *p = bochs_shutdown; *p; p++)
		outb(BOCHS_SHUTDOWN_PORT, (uint8_t)*p);
	/* isa-debug-exit makes QEMU exit with status (value << 1) | 1. */
	outl(QEMU_DEBUG_EXIT_PORT, 0);
	hv_info("halted: reset the machine to continue");
	cpu_halt_forever();
}
