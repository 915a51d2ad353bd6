// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/pc_testdev.h"

static bool in_range(uint16_t port, uint16_t base, unsigned n)
{
	return port >= base && port < base + n;
}

/*
 * The scratch register: an access of size bytes at byte offset off reads
 * or replaces those bytes only; bytes past the register's end are not
 * there (an IN gives zeros for them, an OUT drops them).
 */
static void scratch_io(struct pc_testdev *t, unsigned off, unsigned size,
		       bool in, uint32_t *value)
{
	unsigned bytes = size < 4 - off ? size : 4 - off;
	uint32_t mask = (bytes == 4 ? 0xffffffffu : (1u << (bytes * 8)) - 1)
			<< (off * 8);

	if (in) {
		*value = (t->scratch & mask) >> (off * 8);
	} else {
		t->scratch &= ~mask;
		t->scratch |= (*value << (off * 8)) & mask;
	}
}

void pc_testdev_io(struct pc_testdev *t, uint16_t port, unsigned size,
		   bool in, uint32_t *value, struct pc_testdev_effect *fx)
{
	*fx = (struct pc_testdev_effect){ .action = PC_TESTDEV_NOTHING };
	if (in_range(port, PC_TESTDEV_SCRATCH, 4)) {
		scratch_io(t, port - PC_TESTDEV_SCRATCH, size, in, value);
	} else if (in_range(port, PC_TESTDEV_SCRATCH_BYTES, 4)) {
		scratch_io(t, port - PC_TESTDEV_SCRATCH_BYTES, size, in, value);
	} else if (in_range(port, PC_TESTDEV_FLUSH, 4)) {
		if (in) {
			*value = 0;
		} else if (port == PC_TESTDEV_FLUSH && size == 4) {
			fx->action = PC_TESTDEV_FLUSH_PAGE;
			fx->gpa = *value & ~0xfffull;
		}
	} else if (in) {
		*value = 0;
	} else if (size == 1 &&
		   port - PC_TESTDEV_IRQ_BASE < PC_TESTDEV_ISA_LINES) {
		fx->action = PC_TESTDEV_SET_LINE;
		fx->line = port - PC_TESTDEV_IRQ_BASE;
		fx->level = (*value & 0xff) != 0;
	}
}
