/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * net/drivers/e1000_ring.c against a fake 8254x that works on the same
 * rings the way QEMU's and Bochs' e1000 do: it finds them through the
 * base and length registers the ring core wrote, transmits everything
 * from TDH up to TDT when TDT is written (writing DD back), and stores a
 * received frame in the descriptor at RDH while RDH != RDT. The tests
 * check frames byte for byte both ways, padding, a full transmit ring and
 * its reclaim, each kind of receive descriptor that must be dropped and
 * counted, several laps of both rings, and a head register out of range,
 * which must stop the device with one error line and leave it alone
 * after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/console_capture.h"
#include "net/drivers/e1000_ring.h"

/* ------------------------------------------------------ the fake device */

#define REG_WORDS       (0x4000 / 4)
#define MAX_SENT        200

static struct e1000_ring r;
static struct nic nic;
static uint8_t *mem;
static uint32_t regs[REG_WORDS];
static unsigned reads[REG_WORDS], writes[REG_WORDS];
static unsigned stops;
static bool auto_tx;            /* transmit as soon as TDT is written */
static struct {
	uint16_t len;
	uint8_t data[E1000_BUF_SIZE];
} sent[MAX_SENT];
static unsigned nsent;

static uint32_t *reg(uint32_t off)
{
	assert_true(off % 4 == 0 && off / 4 < REG_WORDS);
	return &regs[off / 4];
}

static void *base(uint32_t lo, uint32_t hi)
{
	return (void *)(uintptr_t)((uint64_t)*reg(hi) << 32 | *reg(lo));
}

static struct e1000_tx_desc *dev_tx_ring(void)
{
	return base(E1000_TDBAL, E1000_TDBAH);
}

static struct e1000_rx_desc *dev_rx_ring(void)
{
	return base(E1000_RDBAL, E1000_RDBAH);
}

/* What the device does with TDH..TDT (QEMU hw/net/e1000.c: start_xmit). */
static void device_transmit(void)
{
	unsigned n = *reg(E1000_TDLEN) / sizeof(struct e1000_tx_desc);

	while (*reg(E1000_TDH) != *reg(E1000_TDT)) {
		struct e1000_tx_desc *d = &dev_tx_ring()[*reg(E1000_TDH)];

		assert_int_equal(d->cmd, E1000_TXD_CMD_EOP |
				 E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS);
		assert_int_equal(d->status, 0);
		assert_true(d->length <= E1000_BUF_SIZE);
		assert_true(nsent < MAX_SENT);
		sent[nsent].len = d->length;
		memcpy(sent[nsent].data, (void *)(uintptr_t)d->addr, d->length);
		nsent++;
		d->status |= E1000_TXD_STAT_DD;
		*reg(E1000_TDH) = (*reg(E1000_TDH) + 1) % n;
	}
}

static uint32_t fake_read32(void *ctx, uint32_t off)
{
	assert_ptr_equal(ctx, &r);
	reads[off / 4]++;
	return *reg(off);
}

static void fake_write32(void *ctx, uint32_t off, uint32_t val)
{
	assert_ptr_equal(ctx, &r);
	*reg(off) = val;
	writes[off / 4]++;
	if (off == E1000_TDT && auto_tx)
		device_transmit();
}

static void fake_stop(void *ctx)
{
	assert_ptr_equal(ctx, &r);
	stops++;
}

static const struct e1000_ring_ops fake_ops = {
	.read32 = fake_read32,
	.write32 = fake_write32,
	.stop = fake_stop,
};

/*
 * The device stores one descriptor's worth at RDH, as it would for any
 * frame (the fields given, the data copied when there is any). False when
 * it has no descriptor (RDH == RDT).
 */
static bool device_store(const void *data, uint16_t len, uint8_t status,
			 uint8_t errors)
{
	unsigned n = *reg(E1000_RDLEN) / sizeof(struct e1000_rx_desc);
	struct e1000_rx_desc *d;

	if (*reg(E1000_RDH) == *reg(E1000_RDT))
		return false;
	d = &dev_rx_ring()[*reg(E1000_RDH)];
	if (data)
		memcpy((void *)(uintptr_t)d->addr, data,
		       MIN(len, E1000_BUF_SIZE));
	d->length = len;
	d->errors = errors;
	d->status |= status;
	*reg(E1000_RDH) = (*reg(E1000_RDH) + 1) % n;
	return true;
}

/* An honest frame in one descriptor. */
static bool device_receive(const void *frame, uint16_t len)
{
	return device_store(frame, len, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP,
			    0);
}

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static int setup(void **state)
{
	(void)state;
	mem = aligned_alloc(PAGE_SIZE, E1000_RING_PAGES * PAGE_SIZE);
	assert_non_null(mem);
	memset(mem, 0x5a, E1000_RING_PAGES * PAGE_SIZE);
	memset(regs, 0, sizeof(regs));
	memset(&nic, 0, sizeof(nic));
	nic.name = "e1000 00:03.0";
	stops = nsent = 0;
	auto_tx = true;
	e1000_ring_init(&r, mem, &nic, &fake_ops, &r);
	memset(reads, 0, sizeof(reads));
	memset(writes, 0, sizeof(writes));
	console_forget();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(mem);
	return 0;
}

static size_t receive(uint8_t *buf)
{
	return e1000_ring_receive(&r, buf);
}

/* ------------------------------------------------------------ the tests */

static void test_init_programs_the_rings(void **state)
{
	(void)state;
	assert_ptr_equal(dev_rx_ring(), mem);
	assert_ptr_equal(dev_tx_ring(), mem + 2048);
	assert_int_equal(*reg(E1000_RDLEN), 64 * 16);
	assert_int_equal(*reg(E1000_TDLEN), 32 * 16);
	assert_int_equal(*reg(E1000_RDH), 0);
	assert_int_equal(*reg(E1000_RDT), 63);
	assert_int_equal(*reg(E1000_TDH), 0);
	assert_int_equal(*reg(E1000_TDT), 0);
	for (unsigned i = 0; i < E1000_RX_DESCS; i++) {
		assert_int_equal(r.rx[i].addr, (uintptr_t)(mem + PAGE_SIZE +
							   i * 2048));
		assert_int_equal(r.rx[i].status, 0);
		assert_int_equal(r.rx[i].errors, 0);
	}
	/* Everything inside the block given. */
	assert_int_equal(E1000_RING_PAGES, 1 + (64 + 32) * 2048 / PAGE_SIZE);
	assert_ptr_equal(r.tx_buf + 32 * 2048,
			 mem + E1000_RING_PAGES * PAGE_SIZE);
}

static void test_transmit_round_trip(void **state)
{
	uint8_t frame[100];

	(void)state;
	fill(frame, sizeof(frame), 1);
	assert_int_equal(e1000_ring_transmit(&r, frame, sizeof(frame)), HV_OK);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].len, 100);
	assert_memory_equal(sent[0].data, frame, 100);
	assert_int_equal(*reg(E1000_TDT), 1);
	assert_int_equal(writes[E1000_TDT / 4], 1);
	assert_int_equal(nic.tx_frames, 1);
	/* DD was written back: receive() takes the descriptor back. */
	assert_int_equal(e1000_ring_tx_on_device(&r), 1);
	assert_int_equal(receive((uint8_t[NIC_FRAME_MAX]){ 0 }), 0);
	assert_int_equal(e1000_ring_tx_on_device(&r), 0);
	assert_int_equal(r.tx[0].status, 0);
}

static void test_transmit_pads_short_frames(void **state)
{
	uint8_t frame[20], header[NIC_ETH_HEADER];
	static const uint8_t zeros[NIC_FRAME_MIN];

	(void)state;
	memset(r.tx_buf, 0xaa, E1000_TX_DESCS * E1000_BUF_SIZE);
	fill(frame, sizeof(frame), 2);
	fill(header, sizeof(header), 3);
	assert_int_equal(e1000_ring_transmit(&r, frame, sizeof(frame)), HV_OK);
	assert_int_equal(e1000_ring_transmit(&r, header, sizeof(header)),
			 HV_OK);
	assert_int_equal(nsent, 2);
	assert_int_equal(sent[0].len, 60);
	assert_memory_equal(sent[0].data, frame, 20);
	assert_memory_equal(sent[0].data + 20, zeros, 40);
	assert_int_equal(sent[1].len, 60);
	assert_memory_equal(sent[1].data, header, 14);
	assert_memory_equal(sent[1].data + 14, zeros, 46);
	/* A frame of exactly 60 bytes goes as it is. */
	uint8_t sixty[60];

	fill(sixty, sizeof(sixty), 4);
	assert_int_equal(e1000_ring_transmit(&r, sixty, 60), HV_OK);
	assert_int_equal(sent[2].len, 60);
	assert_memory_equal(sent[2].data, sixty, 60);
}

static void test_transmit_rejects_bad_lengths(void **state)
{
	static uint8_t frame[4096];

	(void)state;
	fill(frame, sizeof(frame), 5);
	assert_int_equal(e1000_ring_transmit(&r, frame, 0), HV_ERR_INVALID);
	assert_int_equal(e1000_ring_transmit(&r, frame, 13), HV_ERR_INVALID);
	assert_int_equal(e1000_ring_transmit(&r, frame, 1515), HV_ERR_INVALID);
	assert_int_equal(e1000_ring_transmit(&r, frame, 4096), HV_ERR_INVALID);
	assert_int_equal(writes[E1000_TDT / 4], 0);
	assert_int_equal(nic.tx_frames, 0);
	assert_int_equal(e1000_ring_transmit(&r, frame, 1514), HV_OK);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].len, 1514);
	assert_memory_equal(sent[0].data, frame, 1514);
	assert_int_equal(nic.tx_frames, 1);
}

static void test_receive_round_trip(void **state)
{
	static uint8_t frames[3][NIC_FRAME_MAX], buf[NIC_FRAME_MAX];
	static const uint16_t len[3] = { 60, 1514, 14 };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		fill(frames[i], len[i], 10 + i);
		assert_true(device_receive(frames[i], len[i]));
	}
	for (unsigned i = 0; i < 3; i++) {
		memset(buf, 0, sizeof(buf));
		assert_int_equal(receive(buf), len[i]);
		assert_memory_equal(buf, frames[i], len[i]);
		/* Taken and given back: the descriptor just taken is kept. */
		assert_int_equal(*reg(E1000_RDT), i);
		assert_int_equal(r.rx[i].status, 0);
		assert_int_equal(r.rx[i].length, 0);
	}
	assert_int_equal(nic.rx_frames, 3);
	assert_int_equal(nic.rx_dropped, 0);
	assert_int_equal(writes[E1000_RDT / 4], 3);
	assert_int_equal(receive(buf), 0);
	assert_int_equal(nic.rx_frames, 3);
}

static void test_receive_nothing_checks_the_head(void **state)
{
	uint8_t buf[NIC_FRAME_MAX];

	(void)state;
	assert_int_equal(receive(buf), 0);
	assert_int_equal(receive(buf), 0);
	assert_int_equal(reads[E1000_RDH / 4], 2);
	assert_int_equal(writes[E1000_RDT / 4], 0);
	assert_false(nic.broken);
	assert_int_equal(console_nlines, 0);
}

static void test_tx_full_then_reclaim(void **state)
{
	uint8_t frame[64], buf[NIC_FRAME_MAX];

	(void)state;
	auto_tx = false;                /* the device is slow */
	for (unsigned i = 0; i < 31; i++) {
		fill(frame, sizeof(frame), 20 + i);
		assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_OK);
	}
	assert_int_equal(e1000_ring_tx_on_device(&r), 31);
	assert_int_equal(*reg(E1000_TDT), 31);
	/* 31 of 32: TDT may not catch up with TDH. */
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_ERR_BUSY);
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_ERR_BUSY);
	assert_int_equal(nic.tx_busy, 2);
	assert_int_equal(nic.tx_frames, 31);
	assert_int_equal(reads[E1000_TDH / 4], 2);
	assert_int_equal(writes[E1000_TDT / 4], 31);
	assert_int_equal(nsent, 0);
	/* The device sends them; the next transmit takes them back. */
	device_transmit();
	assert_int_equal(nsent, 31);
	for (unsigned i = 0; i < 31; i++) {
		fill(frame, sizeof(frame), 20 + i);
		assert_memory_equal(sent[i].data, frame, 64);
	}
	fill(frame, sizeof(frame), 99);
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_OK);
	assert_int_equal(e1000_ring_tx_on_device(&r), 1);
	assert_int_equal(*reg(E1000_TDT), 0);   /* wrapped */
	device_transmit();
	assert_int_equal(nsent, 32);
	assert_memory_equal(sent[31].data, frame, 64);
	/* receive() takes finished buffers back too. */
	assert_int_equal(receive(buf), 0);
	assert_int_equal(e1000_ring_tx_on_device(&r), 0);
	assert_int_equal(nic.tx_frames, 32);
	assert_int_equal(nic.tx_busy, 2);
}

static void test_tx_reclaim_stops_at_the_first_unfinished(void **state)
{
	uint8_t frame[64];

	(void)state;
	auto_tx = false;
	fill(frame, sizeof(frame), 7);
	for (unsigned i = 0; i < 31; i++)
		assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_OK);
	/* DD on the second and third only: the first holds them back. */
	r.tx[1].status = r.tx[2].status = E1000_TXD_STAT_DD;
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_ERR_BUSY);
	assert_int_equal(e1000_ring_tx_on_device(&r), 31);
	r.tx[0].status = E1000_TXD_STAT_DD;
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_OK);
	assert_int_equal(e1000_ring_tx_on_device(&r), 29);
	assert_int_equal(r.tx_clean, 3);
}

/* Each of these is dropped and counted, and the good frame after it got. */
static void test_bad_descriptors_are_dropped(void **state)
{
	static uint8_t good[200], junk[E1000_BUF_SIZE], buf[NIC_FRAME_MAX];
	static const uint16_t bad_len[] = { 0, 1, 13, 1515, 1518, 2048,
					    4000, 65535 };
	static const uint8_t errors[] = {
		E1000_RXD_ERR_CE, E1000_RXD_ERR_SE, E1000_RXD_ERR_SEQ,
		BIT(3), E1000_RXD_ERR_CXE, E1000_RXD_ERR_TCPE,
		E1000_RXD_ERR_IPE, E1000_RXD_ERR_RXE, 0xff,
	};
	const uint8_t done = E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP;
	unsigned dropped = 0;

	(void)state;
	fill(good, sizeof(good), 30);
	fill(junk, sizeof(junk), 31);
	for (unsigned i = 0; i < ARRAY_SIZE(bad_len); i++, dropped++)
		assert_true(device_store(junk, bad_len[i], done, 0));
	for (unsigned i = 0; i < ARRAY_SIZE(errors); i++, dropped++)
		assert_true(device_store(junk, 100, done, errors[i]));
	assert_true(device_receive(good, sizeof(good)));
	memset(buf, 0, sizeof(buf));
	/* One call: past every dropped descriptor to the frame. */
	assert_int_equal(receive(buf), sizeof(good));
	assert_memory_equal(buf, good, sizeof(good));
	assert_int_equal(nic.rx_dropped, dropped);
	assert_int_equal(nic.rx_dropped, 17);
	assert_int_equal(nic.rx_frames, 1);
	/* One tail write for the batch, at the frame's descriptor. */
	assert_int_equal(writes[E1000_RDT / 4], 1);
	assert_int_equal(*reg(E1000_RDT), 17);
	for (unsigned i = 0; i <= 17; i++) {
		assert_int_equal(r.rx[i].status, 0);
		assert_int_equal(r.rx[i].errors, 0);
	}
	assert_false(nic.broken);
	assert_int_equal(console_nlines, 0);
	assert_int_equal(receive(buf), 0);
}

static void test_frames_spanning_descriptors_are_dropped(void **state)
{
	static uint8_t part[E1000_BUF_SIZE], good[300], buf[NIC_FRAME_MAX];
	const uint8_t dd = E1000_RXD_STAT_DD, eop = E1000_RXD_STAT_EOP;

	(void)state;
	fill(part, sizeof(part), 40);
	fill(good, sizeof(good), 41);
	/* Two descriptors, then three, then a good frame. */
	assert_true(device_store(part, 2048, dd, 0));
	assert_true(device_store(part, 100, dd | eop, 0));
	assert_true(device_store(part, 2048, dd, 0));
	assert_true(device_store(part, 2048, dd, 0));
	assert_true(device_store(part, 60, dd | eop, 0));
	assert_true(device_receive(good, sizeof(good)));
	assert_int_equal(receive(buf), sizeof(good));
	assert_memory_equal(buf, good, sizeof(good));
	assert_int_equal(nic.rx_dropped, 5);
	/* A frame's rest arriving after the poll that saw its start. */
	assert_true(device_store(part, 2048, dd, 0));
	assert_int_equal(receive(buf), 0);
	assert_int_equal(nic.rx_dropped, 6);
	assert_true(r.rx_discard);
	assert_true(device_store(part, 200, dd | eop, 0));
	assert_int_equal(receive(buf), 0);
	assert_int_equal(nic.rx_dropped, 7);
	assert_false(r.rx_discard);
	fill(good, sizeof(good), 42);
	assert_true(device_receive(good, sizeof(good)));
	assert_int_equal(receive(buf), sizeof(good));
	assert_memory_equal(buf, good, sizeof(good));
	assert_int_equal(nic.rx_frames, 2);
	assert_int_equal(nic.rx_dropped, 7);
}

static void test_rx_ring_keeps_one_descriptor(void **state)
{
	static uint8_t frame[NIC_FRAME_MAX], buf[NIC_FRAME_MAX];
	unsigned stored = 0;

	(void)state;
	while (device_receive(frame, 60))
		stored++;
	assert_int_equal(stored, 63);
	assert_int_equal(*reg(E1000_RDH), 63);
	assert_int_equal(receive(buf), 60);
	assert_int_equal(*reg(E1000_RDT), 0);
	/* The one kept before (63) is the device's again; 0 is ours now. */
	assert_true(device_receive(frame, 60));
	assert_false(device_receive(frame, 60));
	for (unsigned i = 0; i < 63; i++)
		assert_int_equal(receive(buf), 60);
	assert_int_equal(receive(buf), 0);
	assert_int_equal(nic.rx_frames, 64);
	assert_int_equal(*reg(E1000_RDT), 63);
	assert_int_equal(r.rx_next, 0);
}

static void test_rings_wrap_over_several_laps(void **state)
{
	static uint8_t frame[NIC_FRAME_MAX], buf[NIC_FRAME_MAX];

	(void)state;
	/* Receive: 5 laps one at a time, then 5 laps in bursts of 63. */
	for (unsigned k = 0; k < 5 * E1000_RX_DESCS; k++) {
		uint16_t len = (uint16_t)(NIC_ETH_HEADER + k * 37 %
					  (NIC_FRAME_MAX - NIC_ETH_HEADER + 1));

		fill(frame, len, k);
		assert_true(device_receive(frame, len));
		assert_int_equal(receive(buf), len);
		assert_memory_equal(buf, frame, len);
		assert_int_equal(*reg(E1000_RDT), k % E1000_RX_DESCS);
	}
	for (unsigned lap = 0; lap < 5; lap++) {
		for (unsigned k = 0; k < 63; k++) {
			fill(frame, 100 + k, lap * 100 + k);
			assert_true(device_receive(frame, (uint16_t)(100 + k)));
		}
		assert_false(device_receive(frame, 100));
		for (unsigned k = 0; k < 63; k++) {
			fill(frame, 100 + k, lap * 100 + k);
			assert_int_equal(receive(buf), 100 + k);
			assert_memory_equal(buf, frame, 100 + k);
		}
		assert_int_equal(receive(buf), 0);
	}
	assert_int_equal(nic.rx_frames, 5 * 64 + 5 * 63);
	assert_int_equal(nic.rx_dropped, 0);
	/* Transmit: 5 laps. */
	for (unsigned k = 0; k < 5 * E1000_TX_DESCS; k++) {
		uint16_t len = (uint16_t)(NIC_FRAME_MIN + k * 53 %
					  (NIC_FRAME_MAX - NIC_FRAME_MIN + 1));

		fill(frame, len, 1000 + k);
		assert_int_equal(e1000_ring_transmit(&r, frame, len), HV_OK);
		assert_int_equal(nsent, k + 1);
		assert_int_equal(sent[k].len, len);
		assert_memory_equal(sent[k].data, frame, len);
		assert_int_equal(*reg(E1000_TDT), (k + 1) % E1000_TX_DESCS);
	}
	assert_int_equal(nic.tx_frames, 5 * 32);
	assert_int_equal(nic.tx_busy, 0);
	assert_false(nic.broken);
}

/* A device marking every descriptor done (with an error): one lap, no more. */
static void test_every_descriptor_done_with_errors(void **state)
{
	uint8_t buf[NIC_FRAME_MAX];

	(void)state;
	for (unsigned i = 0; i < E1000_RX_DESCS; i++) {
		r.rx[i].status = E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP;
		r.rx[i].errors = E1000_RXD_ERR_CE;
		r.rx[i].length = 100;
	}
	assert_int_equal(receive(buf), 0);
	assert_int_equal(nic.rx_dropped, 64);
	assert_int_equal(r.rx_next, 0);
	assert_int_equal(*reg(E1000_RDT), 63);
	assert_int_equal(writes[E1000_RDT / 4], 1);
	assert_int_equal(receive(buf), 0);
	assert_int_equal(nic.rx_dropped, 64);
	assert_int_equal(nic.rx_frames, 0);
	assert_false(nic.broken);
}

static void test_rx_descriptor_address_is_ours(void **state)
{
	static uint8_t frame[100], buf[NIC_FRAME_MAX];

	(void)state;
	fill(frame, sizeof(frame), 50);
	assert_true(device_receive(frame, sizeof(frame)));
	/* A device scribbling on the address field is not followed. */
	r.rx[0].addr = 0xdead0000;
	assert_int_equal(receive(buf), sizeof(frame));
	assert_memory_equal(buf, frame, sizeof(frame));
	assert_int_equal(r.rx[0].addr, (uintptr_t)(mem + PAGE_SIZE));
}

static void assert_no_register_access_after(unsigned nreads,
					    unsigned nwrites)
{
	unsigned rsum = 0, wsum = 0;

	for (unsigned i = 0; i < REG_WORDS; i++) {
		rsum += reads[i];
		wsum += writes[i];
	}
	assert_int_equal(rsum, nreads);
	assert_int_equal(wsum, nwrites);
}

static void test_rx_head_out_of_range_breaks(void **state)
{
	static uint8_t frame[100], buf[NIC_FRAME_MAX];

	(void)state;
	*reg(E1000_RDH) = 64;
	assert_int_equal(receive(buf), 0);
	assert_true(nic.broken);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0],
			    "apfvisor: error: net: e1000 00:03.0: the device "
			    "reports receive head 64 in a ring of 64 "
			    "descriptors; it is reset and not used any more");
	/* Nothing the device does is looked at any more. */
	*reg(E1000_RDH) = 0;
	assert_true(device_receive(frame, sizeof(frame)));
	assert_int_equal(receive(buf), 0);
	assert_int_equal(e1000_ring_transmit(&r, frame, sizeof(frame)),
			 HV_ERR_DEVICE);
	assert_int_equal(e1000_ring_transmit(&r, frame, 5), HV_ERR_DEVICE);
	assert_no_register_access_after(1, 0);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_int_equal(nic.rx_frames, 0);
	assert_int_equal(nic.tx_frames, 0);
	assert_int_equal(nsent, 0);
}

static void test_tx_head_out_of_range_breaks(void **state)
{
	uint8_t frame[64], buf[NIC_FRAME_MAX];

	(void)state;
	auto_tx = false;
	fill(frame, sizeof(frame), 60);
	for (unsigned i = 0; i < 31; i++)
		assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_OK);
	*reg(E1000_TDH) = 0xffffffff;
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_ERR_DEVICE);
	assert_true(nic.broken);
	assert_int_equal(nic.tx_busy, 0);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
	assert_string_equal(console_lines[0],
			    "apfvisor: error: net: e1000 00:03.0: the device "
			    "reports transmit head 4294967295 in a ring of 32 "
			    "descriptors; it is reset and not used any more");
	assert_int_equal(receive(buf), 0);
	assert_int_equal(e1000_ring_transmit(&r, frame, 64), HV_ERR_DEVICE);
	assert_int_equal(stops, 1);
	assert_int_equal(console_nlines, 1);
}

static void test_heads_in_range_are_fine(void **state)
{
	uint8_t buf[NIC_FRAME_MAX];

	(void)state;
	*reg(E1000_RDH) = 63;
	assert_int_equal(receive(buf), 0);
	assert_false(nic.broken);
	assert_int_equal(stops, 0);
	assert_int_equal(console_nlines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_init_programs_the_rings),
		T(test_transmit_round_trip),
		T(test_transmit_pads_short_frames),
		T(test_transmit_rejects_bad_lengths),
		T(test_receive_round_trip),
		T(test_receive_nothing_checks_the_head),
		T(test_tx_full_then_reclaim),
		T(test_tx_reclaim_stops_at_the_first_unfinished),
		T(test_bad_descriptors_are_dropped),
		T(test_frames_spanning_descriptors_are_dropped),
		T(test_rx_ring_keeps_one_descriptor),
		T(test_rings_wrap_over_several_laps),
		T(test_every_descriptor_done_with_errors),
		T(test_rx_descriptor_address_is_ours),
		T(test_rx_head_out_of_range_breaks),
		T(test_tx_head_out_of_range_breaks),
		T(test_heads_in_range_are_fine),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
