/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Port 0x61, the PC's "system control port B" (NMI status and control in
 * Intel's chipset data sheets), as far as QEMU's pc machine has it
 * (hw/audio/pcspk.c): bit 0 is PIT counter 2's gate, bit 1 the speaker
 * data enable (kept, no sound), bit 4 the refresh toggle, which flips on
 * every read as QEMU's does, bit 5 counter 2's OUT. Bits 2, 3, 6, 7 (the
 * NMI sources) read as 0 and ignore writes. Linux calibrates the TSC this
 * way (arch/x86/kernel/tsc.c: pit_calibrate_tsc): gate on, counter 2 in
 * mode 0, poll bit 5.
 */
#ifndef GUEST_PORT61_H
#define GUEST_PORT61_H

#include "guest/devices/pit8254.h"

#define PORT61 0x61
#define PORT61_GATE2 0x01
#define PORT61_SPEAKER_DATA 0x02
#define PORT61_REFRESH 0x10
#define PORT61_OUT2 0x20

struct port61 {
	bool speaker_data;
	bool refresh;
};

void port61_init(struct port61 *s);
uint8_t port61_read(struct port61 *s, struct pit *p, uint64_t now);
void port61_write(struct port61 *s, struct pit *p, uint8_t val, uint64_t now);

#endif
