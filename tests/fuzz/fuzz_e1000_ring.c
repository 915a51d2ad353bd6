/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: net/drivers/e1000_ring.c with the fuzzer as the
 * device. The input is a script of steps: the driver transmits a frame
 * (of any length, valid or not) or polls receive(); the "device" writes
 * any status, errors and length into a receive descriptor, any status
 * into a transmit descriptor (or scribbles on an address), sets RDH or
 * TDH to any value, or does what an honest 8254x does (stores a frame at
 * RDH, sends TDH..TDT and writes DD back).
 *
 * Whatever the device writes, the ring must: never copy more than
 * NIC_FRAME_MAX bytes (the receive buffer is exactly that big, and the
 * bytes of each DMA buffer past NIC_FRAME_MAX are poisoned, so the
 * sanitizer sees a read or write outside a frame's room), deliver only
 * lengths NIC_ETH_HEADER..NIC_FRAME_MAX and only bytes of the buffer it
 * gave back, hand the device well-formed transmit descriptors padded to
 * NIC_FRAME_MIN, keep its indexes in range and the tail registers where
 * they belong, return HV_ERR_BUSY only with the transmit ring full,
 * break exactly when it read a head register out of range (one error
 * line, the stop called once), and once broken touch neither the rings
 * (poisoned then) nor the registers again.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "lib/console.h"
#include "net/drivers/e1000_ring.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define REG_WORDS (0x4000 / 4)

static struct e1000_ring r;
static struct nic nic;
static uint32_t regs[REG_WORDS];
static unsigned stops, error_lines;
static bool rdt_written;
static bool head_out_of_range;  /* the driver read one: it must break */

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

void hv_error(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	CHECK(strstr(line, "it is reset and not used any more") != NULL);
	error_lines++;
}

static uint32_t *reg(uint32_t off)
{
	CHECK(off % 4 == 0 && off / 4 < REG_WORDS);
	return &regs[off / 4];
}

static uint32_t dev_read32(void *ctx, uint32_t off)
{
	CHECK(ctx == &r);
	CHECK(!nic.broken);
	CHECK(off == E1000_RDH || off == E1000_TDH);
	if (*reg(off) >= (off == E1000_RDH ? E1000_RX_DESCS : E1000_TX_DESCS))
		head_out_of_range = true;
	return *reg(off);
}

static void dev_write32(void *ctx, uint32_t off, uint32_t val)
{
	CHECK(ctx == &r);
	CHECK(!nic.broken);
	/* After init only the tails move, and only where they belong. */
	CHECK(off == E1000_RDT || off == E1000_TDT);
	if (off == E1000_RDT) {
		CHECK(val < E1000_RX_DESCS);
		CHECK(val == (r.rx_next + E1000_RX_DESCS - 1u) %
			     E1000_RX_DESCS);
		rdt_written = true;
	} else {
		CHECK(val == r.tx_next);
	}
	*reg(off) = val;
}

static void dev_stop(void *ctx)
{
	CHECK(ctx == &r);
	stops++;
}

static const struct e1000_ring_ops ops = {
	.read32 = dev_read32,
	.write32 = dev_write32,
	.stop = dev_stop,
};

static void init_write32(void *ctx, uint32_t off, uint32_t val)
{
	(void)ctx;
	*reg(off) = val;
}

static const struct e1000_ring_ops init_ops = {
	.read32 = dev_read32,
	.write32 = init_write32,
	.stop = dev_stop,
};

static void pattern(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 13);
}

static unsigned take_index(struct fuzz_script *s, unsigned n)
{
	return (unsigned)(fuzz_take(s, 1) % n);
}

/* A head value: mostly in range, sometimes anything. */
static uint32_t take_head(struct fuzz_script *s, unsigned n)
{
	unsigned kind = (unsigned)fuzz_take(s, 1);

	return kind & 1 ? (uint32_t)fuzz_take(s, 4) : kind / 2 % n;
}

static void driver_transmit(struct fuzz_script *s)
{
	static uint8_t frame[2048];
	size_t len = (size_t)(fuzz_take(s, 2) % 1600);
	unsigned before = e1000_ring_tx_on_device(&r), i = r.tx_next;
	uint64_t frames = nic.tx_frames;
	enum hv_err err;

	pattern(frame, sizeof(frame), (unsigned)len);
	err = e1000_ring_transmit(&r, frame, len);
	if (nic.broken) {
		CHECK(err == HV_ERR_DEVICE);
		return;
	}
	if (len < NIC_ETH_HEADER || len > NIC_FRAME_MAX) {
		CHECK(err == HV_ERR_INVALID);
		return;
	}
	if (err == HV_ERR_BUSY) {
		CHECK(e1000_ring_tx_on_device(&r) == E1000_TX_DESCS - 1);
		return;
	}
	CHECK(err == HV_OK);
	CHECK(nic.tx_frames == frames + 1);
	CHECK(e1000_ring_tx_on_device(&r) <= before + 1);
	{
		const struct e1000_tx_desc *d = &r.tx[i];
		const uint8_t *buf = (const uint8_t *)(uintptr_t)d->addr;
		size_t wire = len < NIC_FRAME_MIN ? NIC_FRAME_MIN : len;

		CHECK(buf == r.tx_buf + (size_t)i * E1000_BUF_SIZE);
		CHECK(d->length == wire);
		CHECK(d->cmd == (E1000_TXD_CMD_EOP | E1000_TXD_CMD_IFCS |
				 E1000_TXD_CMD_RS));
		CHECK(d->status == 0);
		CHECK(memcmp(buf, frame, len) == 0);
		for (size_t k = len; k < wire; k++)
			CHECK(buf[k] == 0);
	}
}

static void driver_receive(uint8_t *buf)
{
	uint64_t frames = nic.rx_frames, dropped = nic.rx_dropped;
	size_t n;

	rdt_written = false;
	n = e1000_ring_receive(&r, buf);
	CHECK(nic.rx_dropped >= dropped);
	if (!n) {
		CHECK(nic.rx_frames == frames);
		return;
	}
	CHECK(!nic.broken);
	CHECK(n >= NIC_ETH_HEADER && n <= NIC_FRAME_MAX);
	CHECK(nic.rx_frames == frames + 1);
	/* The frame came from the descriptor now kept, named by RDT. */
	CHECK(rdt_written);
	CHECK(memcmp(buf, r.rx_buf + (size_t)*reg(E1000_RDT) *
			  E1000_BUF_SIZE, n) == 0);
}

/*
 * Any fields into a receive descriptor: the next one the driver looks at
 * or any other, a length anywhere or near a limit that matters.
 */
static void device_scribble_rx(struct fuzz_script *s, unsigned step)
{
	static const uint16_t limits[] = { 0, NIC_ETH_HEADER, NIC_FRAME_MIN,
					   NIC_FRAME_MAX, E1000_BUF_SIZE,
					   0xffff };
	unsigned how = (unsigned)fuzz_take(s, 1);
	struct e1000_rx_desc *d = &r.rx[how & 1 ? r.rx_next :
					take_index(s, E1000_RX_DESCS)];

	d->status = (uint8_t)fuzz_take(s, 1);
	d->errors = (uint8_t)fuzz_take(s, 1);
	if (how & 2)
		d->length = (uint16_t)(limits[fuzz_take(s, 1) %
					      ARRAY_SIZE(limits)] +
				       (int8_t)fuzz_take(s, 1));
	else
		d->length = (uint16_t)fuzz_take(s, 2);
	if (step & 0x80)
		d->addr = fuzz_take(s, 8);
}

/* An honest device stores a frame at RDH (QEMU: e1000_receive_iov). */
static void device_receive(struct fuzz_script *s)
{
	uint32_t h = *reg(E1000_RDH);
	uint16_t len = (uint16_t)(NIC_ETH_HEADER + fuzz_take(s, 2) %
				  (NIC_FRAME_MAX - NIC_ETH_HEADER + 1));
	struct e1000_rx_desc *d;

	if (h >= E1000_RX_DESCS || h == *reg(E1000_RDT))
		return;
	d = &r.rx[h];
	pattern(r.rx_buf + (size_t)h * E1000_BUF_SIZE, len, h + len);
	d->length = len;
	d->errors = 0;
	d->status |= E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP;
	*reg(E1000_RDH) = (h + 1) % E1000_RX_DESCS;
}

/* An honest device sends TDH..TDT (QEMU: start_xmit). */
static void device_transmit(void)
{
	for (unsigned n = 0; n < E1000_TX_DESCS; n++) {
		uint32_t h = *reg(E1000_TDH);
		volatile uint8_t sink = 0;
		struct e1000_tx_desc *d;
		const uint8_t *buf;

		if (h >= E1000_TX_DESCS || h == *reg(E1000_TDT))
			return;
		d = &r.tx[h];
		buf = r.tx_buf + (size_t)h * E1000_BUF_SIZE;
		/* The device reads the whole buffer the descriptor names. */
		for (unsigned k = 0; k < d->length && k < NIC_FRAME_MAX; k++)
			sink ^= buf[k];
		(void)sink;
		d->status |= E1000_TXD_STAT_DD;
		*reg(E1000_TDH) = (h + 1) % E1000_TX_DESCS;
	}
}

static void poison_tails(uint8_t *bufs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		ASAN_POISON_MEMORY_REGION(bufs + (size_t)i * E1000_BUF_SIZE +
					  NIC_FRAME_MAX,
					  E1000_BUF_SIZE - NIC_FRAME_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/*
	 * The rings' memory is kept from one input to the next (e1000_ring_init
	 * writes every descriptor; what the buffers held steers nothing).
	 */
	static uint8_t mem[E1000_RING_PAGES * PAGE_SIZE]
		__attribute__((aligned(PAGE_SIZE)));
	const size_t bytes = sizeof(mem);
	struct fuzz_script s = { data, size };
	uint8_t *buf = malloc(NIC_FRAME_MAX);
	bool poisoned = false;

	CHECK(buf);
	ASAN_UNPOISON_MEMORY_REGION(mem, bytes);
	memset(regs, 0, sizeof(regs));
	memset(&nic, 0, sizeof(nic));
	nic.name = "e1000 00:03.0";
	stops = error_lines = 0;
	head_out_of_range = false;
	e1000_ring_init(&r, mem, &nic, &init_ops, &r);
	CHECK(*reg(E1000_RDT) == E1000_RX_DESCS - 1 && *reg(E1000_TDT) == 0);
	r.ops = &ops;
	poison_tails(r.rx_buf, E1000_RX_DESCS);
	poison_tails(r.tx_buf, E1000_TX_DESCS);

	while (s.left) {
		unsigned step = (unsigned)fuzz_take(&s, 1);

		/* Broken: the device is stopped, the rings are off limits. */
		if (nic.broken && step % 9 >= 2)
			continue;
		switch (step % 9) {
		case 0:
			driver_transmit(&s);
			break;
		case 1:
			driver_receive(buf);
			break;
		case 2:
			device_scribble_rx(&s, step);
			break;
		case 3: {       /* any transmit descriptor status or address */
			struct e1000_tx_desc *d =
				&r.tx[take_index(&s, E1000_TX_DESCS)];

			d->status = (uint8_t)fuzz_take(&s, 1);
			if (step & 0x80)
				d->addr = fuzz_take(&s, 8);
			break;
		}
		case 4:
			*reg(E1000_RDH) = take_head(&s, E1000_RX_DESCS);
			break;
		case 5:
			*reg(E1000_TDH) = take_head(&s, E1000_TX_DESCS);
			break;
		case 6:
		case 7:
			device_receive(&s);
			break;
		case 8:
			device_transmit();
			break;
		}
		CHECK(r.rx_next < E1000_RX_DESCS);
		CHECK(r.tx_next < E1000_TX_DESCS);
		CHECK(r.tx_clean < E1000_TX_DESCS);
		CHECK(e1000_ring_tx_on_device(&r) < E1000_TX_DESCS);
		CHECK(nic.broken ? stops == 1 && error_lines == 1
				 : stops == 0 && error_lines == 0);
		CHECK(nic.broken == head_out_of_range);
		if (nic.broken && !poisoned) {
			ASAN_POISON_MEMORY_REGION(mem, bytes);
			poisoned = true;
		}
	}
	free(buf);
	return 0;
}
