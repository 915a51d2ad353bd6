// SPDX-License-Identifier: BSD-2-Clause
/*
 * Channel 2 in mode 0 ("interrupt on terminal count") counts down once; its
 * output is readable in bit 5 of port 0x61 and its gate is bit 0. This needs
 * no interrupt and works the same on hardware, QEMU and Bochs.
 */
#include "arch/x86/pit.h"
#include "arch/x86/io.h"

#define PIT_HZ 1193182u
#define PIT_CHANNEL2 0x42
#define PIT_COMMAND 0x43
#define PIT_CMD_CH2_LOHI_MODE0 0xb0
#define PORT_B 0x61
#define PORT_B_GATE2 BIT(0)
#define PORT_B_SPEAKER BIT(1)
#define PORT_B_OUT2 BIT(5)
#define PIT_MAX_CHUNK_US 50000u
#define PIT_SPIN_LIMIT 100000000u

/* False when the output never rose: no PIT, or one gated off. */
static bool pit_wait_ticks(uint16_t ticks)
{
	bool rose = false;

	uint8_t b = inb(PORT_B) & ~(PORT_B_SPEAKER | PORT_B_GATE2);

	outb(PORT_B, b);
	outb(PIT_COMMAND, PIT_CMD_CH2_LOHI_MODE0);
	outb(PIT_CHANNEL2, ticks & 0xff);
	outb(PIT_CHANNEL2, ticks >> 8);
	outb(PORT_B, b | PORT_B_GATE2);
	/* Bounded: a machine without a PIT must not hang here forever. */
	for (uint32_t i = 0; i < PIT_SPIN_LIMIT && !rose; i++)
		rose = inb(PORT_B) & PORT_B_OUT2;
	outb(PORT_B, b);
	return rose;
}

bool pit_delay_us(uint32_t us)
{
	bool ticking = true;

	while (us) {
		uint32_t chunk = us > PIT_MAX_CHUNK_US ? PIT_MAX_CHUNK_US : us;
		uint32_t ticks = (uint32_t)((uint64_t)chunk * PIT_HZ / 1000000);

		ticking &= pit_wait_ticks((uint16_t)(ticks ? ticks : 1));
		us -= chunk;
	}
	return ticking;
}
