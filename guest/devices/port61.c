// SPDX-License-Identifier: BSD-2-Clause
#include "guest/devices/port61.h"

void port61_init(struct port61 *s)
{
	s->speaker_data = false;
	s->refresh = false;
}

uint8_t port61_read(struct port61 *s, struct pit *p, uint64_t now)
{
	s->refresh = !s->refresh;
	return (pit_gate(p, PIT_SPEAKER_CHANNEL) ? PORT61_GATE2 : 0) |
	       (s->speaker_data ? PORT61_SPEAKER_DATA : 0) |
	       (s->refresh ? PORT61_REFRESH : 0) |
	       (pit_out(p, PIT_SPEAKER_CHANNEL, now) ? PORT61_OUT2 : 0);
}

void port61_write(struct port61 *s, struct pit *p, uint8_t val, uint64_t now)
{
	s->speaker_data = val & PORT61_SPEAKER_DATA;
	pit_set_gate(p, PIT_SPEAKER_CHANNEL, val & PORT61_GATE2, now);
}
