// SPDX-License-Identifier: BSD-2-Clause
#include "guest/io_ports.h"

static bool is_com1(uint16_t port)
{
	return port >= GUEST_COM1_BASE &&
	       port < GUEST_COM1_BASE + GUEST_COM1_PORTS;
}

void guest_port_io(struct guest *g, struct vcpu *v, uint16_t port,
		   unsigned size, bool in, uint32_t *value)
{
	if (is_com1(port)) {
		spin_lock(&g->lock);
		if (in)
			*value = uart_read(&g->uart, port - GUEST_COM1_BASE);
		else
			uart_write(&g->uart, port - GUEST_COM1_BASE,
				   (uint8_t)*value);
		spin_unlock(&g->lock);
		return;
	}
	if (port == GUEST_TEST_EXIT_PORT && !in) {
		spin_lock(&g->lock);
		uart_flush(&g->uart);
		spin_unlock(&g->lock);
		guest_end(g, *value == 0, "test-exit code %u", *value);
		return;
	}
	v->stats.io_unhandled++;
	if (in)
		*value = size == 4 ? 0xffffffffu : (1u << (size * 8)) - 1;
}
