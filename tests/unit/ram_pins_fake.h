/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vm_pin_ram and vm_unpin_ram for the unit tests of code that pins guest
 * pages. The includer defines RAM_SIZE and `static struct vm vm` first.
 * pins[] counts each page's pins; a page cannot be pinned while
 * pin_refused[] is set for it or pins_refused for all; unpinning a page
 * that is not pinned fails the test. Not a general header: it defines the
 * functions the test binary links against.
 */
#ifndef TESTS_UNIT_RAM_PINS_FAKE_H
#define TESTS_UNIT_RAM_PINS_FAKE_H

static unsigned pins[RAM_SIZE / PAGE_SIZE];
static bool pin_refused[RAM_SIZE / PAGE_SIZE];
static bool pins_refused;

static inline void ram_pins_reset(void)
{
	memset(pins, 0, sizeof(pins));
	memset(pin_refused, 0, sizeof(pin_refused));
	pins_refused = false;
}

int vm_pin_ram(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	if (gpa >= RAM_SIZE || pins_refused || pin_refused[gpa / PAGE_SIZE])
		return -1;
	pins[gpa / PAGE_SIZE]++;
	return 0;
}

void vm_unpin_ram(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	assert_true(gpa < RAM_SIZE && pins[gpa / PAGE_SIZE] > 0);
	pins[gpa / PAGE_SIZE]--;
}

#endif
