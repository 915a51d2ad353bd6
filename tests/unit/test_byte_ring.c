// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib/byte_ring.h: bytes come out in the order they went in, across the
 * end of the buffer; a full ring refuses a byte and keeps what it holds;
 * an empty one gives -1; every byte value (0 and 0xff too) comes back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/byte_ring.h"

static void order_kept_across_the_end(void **state)
{
	char buf[5];
	struct byte_ring r;

	(void)state;
	byte_ring_init(&r, buf, sizeof(buf));
	assert_int_equal(byte_ring_pop(&r), -1);
	for (int round = 0; round < 7; round++) {
		assert_true(byte_ring_push(&r, (char)(3 * round)));
		assert_true(byte_ring_push(&r, (char)(3 * round + 1)));
		assert_true(byte_ring_push(&r, (char)(3 * round + 2)));
		assert_int_equal(byte_ring_pop(&r), 3 * round);
		assert_int_equal(byte_ring_pop(&r), 3 * round + 1);
		assert_int_equal(byte_ring_pop(&r), 3 * round + 2);
	}
	assert_int_equal(byte_ring_pop(&r), -1);
}

static void full_ring_refuses_and_keeps(void **state)
{
	char buf[4];
	struct byte_ring r;

	(void)state;
	byte_ring_init(&r, buf, sizeof(buf));
	assert_true(byte_ring_push(&r, 0));
	assert_true(byte_ring_push(&r, (char)0xff));
	assert_true(byte_ring_push(&r, 'a'));
	assert_true(byte_ring_push(&r, 'b'));
	assert_true(byte_ring_full(&r));
	assert_false(byte_ring_push(&r, 'c'));
	assert_int_equal(byte_ring_pop(&r), 0);
	assert_int_equal(byte_ring_pop(&r), 0xff);
	assert_true(byte_ring_push(&r, 'c'));
	assert_int_equal(byte_ring_pop(&r), 'a');
	assert_int_equal(byte_ring_pop(&r), 'b');
	assert_int_equal(byte_ring_pop(&r), 'c');
	assert_int_equal(byte_ring_pop(&r), -1);
	assert_false(byte_ring_full(&r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(order_kept_across_the_end),
		cmocka_unit_test(full_ring_refuses_and_keeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
