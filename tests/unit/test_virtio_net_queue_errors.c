/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * net/drivers/virtio_net_queue.c against a broken or hostile virtio-net
 * device (the fake of tests/unit/virtio_net_test_fixture.h): each thing
 * it can write into a used ring (an id out of the queue, one it does not
 * have, an index that runs ahead) must stop the device with one error
 * line and leave the rings untouched from then on. The honest device's
 * tests are in test_virtio_net_queue.c.
 */
#include "tests/unit/virtio_net_test_fixture.h"

/*
 * The queues broke: exactly this one line, the device stopped once, and
 * from then on nothing reads or writes the rings (poisoned: ASan would
 * report a touch), transmit fails with HV_ERR_DEVICE, receive finds
 * nothing.
 */
static void expect_broken(const char *line)
{
	uint8_t f[60] = { 0 }, in[NIC_FRAME_MAX];
	bool notify = true;

	assert_non_null(q.broken);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0], line);
	ASAN_POISON_MEMORY_REGION(mem, MEM_BYTES);
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_ERR_DEVICE);
	assert_false(notify);
	notify = true;
	assert_int_equal(vnet_queue_receive(&q, in, &notify), 0);
	assert_false(notify);
	assert_int_equal(vnet_queue_reclaim_tx(&q), 0);
	ASAN_UNPOISON_MEMORY_REGION(mem, MEM_BYTES);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
}

#define BROKEN(text) ("apfvisor: error: net: virtio-net 00:04.0: " text \
		      "; the interface is not used any more")

static void test_rx_id_out_of_range(void **state)
{
	uint8_t in[NIC_FRAME_MAX];

	(void)state;
	take_rx_buffer();
	push_used(&q.rx, &rx_used_idx, 64, 60);
	assert_int_equal(receive(in), 0);
	expect_broken(BROKEN("the device returned a descriptor that is not "
			     "in the queue (receive queue: used id 64 of 64)"));
}

static void test_rx_huge_id(void **state)
{
	uint8_t in[NIC_FRAME_MAX];

	(void)state;
	push_used(&q.rx, &rx_used_idx, 0xffffffff, 60);
	assert_int_equal(receive(in), 0);
	expect_broken(BROKEN("the device returned a descriptor that is not "
			     "in the queue (receive queue: used id "
			     "4294967295 of 64)"));
}

static void test_rx_used_index_runs_ahead(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 11);
	device_deliver(f, sizeof(f));
	/* One answer, but the index says 65: more than the 64 buffers. */
	__atomic_store_n(&q.rx.used->idx, (uint16_t)(rx_used_idx + 64),
			 __ATOMIC_RELEASE);
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_frames, 0);
	expect_broken(BROKEN("the device's used index ran ahead of the "
			     "buffers it had (receive queue: 65 new used "
			     "entries, 64 buffers on the device)"));
}

static void test_tx_id_never_posted(void **state)
{
	uint8_t f[60];
	bool notify;

	(void)state;
	make_frame(f, sizeof(f), 12);
	send_ok(f, sizeof(f));
	device_take_tx();
	/* Buffer 0 is on the device; it answers for 5, which is not. */
	push_used(&q.tx, &tx_used_idx, 5, 0);
	assert_int_equal(vnet_queue_transmit(&q, f, sizeof(f), &notify),
			 HV_ERR_DEVICE);
	assert_false(notify);
	assert_int_equal(q.tx_frames, 1);
	expect_broken(BROKEN("the device returned a buffer it did not have "
			     "(transmit queue: used id 5, returned twice or "
			     "never posted)"));
}

static void test_tx_id_returned_twice(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 13);
	send_ok(f, sizeof(f));
	send_ok(f, sizeof(f));
	device_take_tx();
	device_tx_done(0);
	device_tx_done(0);
	/* The honest answer is taken back before the repeat breaks it. */
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.tx_nfree, 63);
	expect_broken(BROKEN("the device returned a buffer it did not have "
			     "(transmit queue: used id 0, returned twice or "
			     "never posted)"));
}

static void test_tx_id_out_of_range(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 14);
	init_queues(4, 4);
	send_ok(f, sizeof(f));
	device_take_tx();
	push_used(&q.tx, &tx_used_idx, 4, 0);
	assert_int_equal(receive(in), 0);
	expect_broken(BROKEN("the device returned a descriptor that is not "
			     "in the queue (transmit queue: used id 4 of 4)"));
}

static void test_tx_used_index_runs_ahead(void **state)
{
	uint8_t f[60], in[NIC_FRAME_MAX];

	(void)state;
	make_frame(f, sizeof(f), 15);
	send_ok(f, sizeof(f));
	device_take_tx();
	device_tx_done(0);
	__atomic_store_n(&q.tx.used->idx, (uint16_t)(tx_used_idx + 1),
			 __ATOMIC_RELEASE);
	/* A frame waits too; it is not delivered from a broken device. */
	device_deliver(f, sizeof(f));
	assert_int_equal(receive(in), 0);
	assert_int_equal(q.rx_frames, 0);
	expect_broken(BROKEN("the device's used index ran ahead of the "
			     "buffers it had (transmit queue: 2 new used "
			     "entries, 1 buffers on the device)"));
}

/* Without a stop callback (a device not yet live) it still breaks. */
static void test_break_without_stop_callback(void **state)
{
	uint8_t in[NIC_FRAME_MAX];

	(void)state;
	q.stop_device = NULL;
	push_used(&q.rx, &rx_used_idx, 99, 60);
	assert_int_equal(receive(in), 0);
	assert_non_null(q.broken);
	assert_int_equal(stops, 0);
	assert_int_equal(console_nlines, 1);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_rx_id_out_of_range),
		T(test_rx_huge_id),
		T(test_rx_used_index_runs_ahead),
		T(test_tx_id_never_posted),
		T(test_tx_id_returned_twice),
		T(test_tx_id_out_of_range),
		T(test_tx_used_index_runs_ahead),
		T(test_break_without_stop_callback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
