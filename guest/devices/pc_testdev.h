/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's pc-testdev (hw/misc/pc-testdev.c), the ISA device kvm-unit-tests'
 * x86 runner always adds, offered only with guest.testdev = on (never to
 * Linux):
 *   0xe0-0xe3    a 32-bit scratch register (any access size, any offset)
 *   0xe4         "flush page": a 32-bit write of a guest-physical address
 *                asks the host to drop its translation of that page, so
 *                the guest's next access faults in the host (here: an EPT
 *                violation), as tests of event delivery need
 *   0xe8-0xeb    the same scratch register, byte by byte
 *   0x2000-0x2017  IRQ lines: a byte write of V sets ISA line N (0-15) to
 *                V != 0; reads give 0
 *   0xff000000   64 KiB of scratch memory ("iomem"), which QEMU serves as
 *                MMIO and kvm-unit-tests uses as its emulated-MMIO page
 *                (emulator, lam). apfvisor backs it with host memory, mapped
 *                in EPT like RAM: the guest sees what QEMU shows (what was
 *                written reads back), but its instructions run on the CPU,
 *                not through an instruction emulator (apfvisor emulates
 *                only MOV forms for its own MMIO devices).
 *
 * Pure device state: pc_testdev_io decodes an access and says what the
 * platform must do (set a line, drop a translation); guest/io_ports.c does
 * it.
 */
#ifndef GUEST_PC_TESTDEV_H
#define GUEST_PC_TESTDEV_H

#include "lib/types.h"

#define PC_TESTDEV_SCRATCH 0xe0
#define PC_TESTDEV_FLUSH 0xe4
#define PC_TESTDEV_SCRATCH_BYTES 0xe8
#define PC_TESTDEV_IRQ_BASE 0x2000
#define PC_TESTDEV_IRQ_PORTS 24
#define PC_TESTDEV_ISA_LINES 16
#define PC_TESTDEV_IOMEM_GPA 0xff000000ull
#define PC_TESTDEV_IOMEM_PAGES 16

struct pc_testdev {
	uint32_t scratch;
};

enum pc_testdev_action {
	PC_TESTDEV_NOTHING,
	PC_TESTDEV_SET_LINE,    /* line, level */
	PC_TESTDEV_FLUSH_PAGE,  /* gpa */
};

struct pc_testdev_effect {
	enum pc_testdev_action action;
	unsigned line;
	bool level;
	uint64_t gpa;
};

/*
 * One access of size bytes (1, 2 or 4) at port, one of the device's
 * (0xe0-0xeb, 0x2000-0x2017).
 * *value is read (OUT) or written (IN). *fx says what the platform must do
 * next. A write to a line QEMU has no ISA IRQ for (16-23), or a flush that
 * is not one 32-bit write, does nothing.
 */
void pc_testdev_io(struct pc_testdev *t, uint16_t port, unsigned size,
		   bool in, uint32_t *value, struct pc_testdev_effect *fx);

#endif
