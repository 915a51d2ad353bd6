// SPDX-License-Identifier: BSD-2-Clause
/* I/O instruction exits (qualification: SDM Vol. 3C, Table 28-5). */
#include "vmx/exit_handlers.h"
#include "guest/vm.h"
#include "guest/io_ports.h"

#define IO_QUAL_SIZE_MASK 0x7ull        /* size - 1 */
#define IO_QUAL_IN BIT(3)
#define IO_QUAL_STRING BIT(4)
#define IO_QUAL_PORT_SHIFT 16

enum exit_action handle_io(struct vcpu *v, const struct vmx_exit *e)
{
	unsigned size = (unsigned)(e->qualification & IO_QUAL_SIZE_MASK) + 1;
	bool in = e->qualification & IO_QUAL_IN;
	uint16_t port = (uint16_t)(e->qualification >> IO_QUAL_PORT_SHIFT);
	uint32_t mask = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
	uint32_t value = (uint32_t)v->regs.rax & mask;

	if (e->qualification & IO_QUAL_STRING)
		return handle_string_io(v, e);
	exit_stats_detail(&v->stats.exit,
			  in ? EXIT_DETAIL_IO_IN : EXIT_DETAIL_IO_OUT);
	if (!guest_port_io(v->guest, port, size, in, &value))
		v->stats.io_unhandled++;
	if (in) {
		/* A 32-bit IN zero-extends into RAX; 8/16-bit keep the rest. */
		if (size == 4)
			v->regs.rax = value;
		else
			v->regs.rax = (v->regs.rax & ~(uint64_t)mask) | value;
	}
	if (v->guest->end.ended)
		return EXIT_STOP;
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}
