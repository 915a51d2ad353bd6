/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AHCI bring-up and commands: swap/drivers/ahci_port.c and
 * swap/drivers/ahci_cmd.c over a fake HBA (tests/unit/ahci_fake.c):
 * taking a port over from the firmware (the stop handshake, a port that
 * never stops, a disk that stays busy), IDENTIFY DEVICE, command FIS and
 * PRDT contents, slot allocation, reuse and wrap, several commands in
 * flight with and without NCQ, out-of-range requests, pages the HBA
 * cannot reach and the queue depth. The error paths are in
 * test_ahci_errors.c.
 */
#include "tests/unit/ahci_test_fixture.h"

/* ------------------------------------------------------ engine control */

static void test_takeover_stops_then_starts(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];

	(void)state;
	f->clb = 0x1000;                /* the firmware's command list */
	assert_true(ahci_port_init(&port));
	/* ST cleared first (FRE still set), then FRE, then both set again. */
	assert_true(f->ncmd_writes >= 3);
	assert_int_equal(f->cmd_writes[0] & (PX_CMD_ST | PX_CMD_FRE),
			 PX_CMD_FRE);
	assert_int_equal(f->cmd_writes[1] & (PX_CMD_ST | PX_CMD_FRE), 0);
	assert_int_equal(f->cmd & (PX_CMD_ST | PX_CMD_FRE),
			 PX_CMD_ST | PX_CMD_FRE);
	assert_int_equal(f->clb, (uint32_t)(uintptr_t)port.cmd_list);
	assert_int_equal(f->clbu, (uint32_t)((uintptr_t)port.cmd_list >> 32));
	assert_int_equal(f->fb, (uint32_t)(uintptr_t)port.rx_fis);
	assert_int_equal(f->ie, 0);
	assert_int_equal(console_nlines, 0);
}

static void test_port_that_never_stops(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];

	(void)state;
	f->cr_stuck = true;
	f->clb = 0x1000;
	assert_false(ahci_port_init(&port));
	expect_line(0, "apfvisor: error: ahci 00:1f.2 port1: the command "
		    "list did not stop (PxCMD 0x0000c010: CR still set 500 ms "
		    "after ST was cleared)");
	assert_int_equal(console_nlines, 1);
	/* Nothing of ours was handed to a port that still runs. */
	assert_int_equal(f->clb, 0x1000);
	assert_int_equal(f->commands, 0);
}

static void test_busy_disk_is_not_started(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];

	(void)state;
	f->tfd = 0x80;                  /* BSY for ever */
	assert_false(ahci_port_init(&port));
	expect_line(0, "apfvisor: error: ahci 00:1f.2 port1: the disk stays "
		    "busy (PxTFD 0x00000080 after 5000 ms); the port is not "
		    "started");
	assert_false(f->cmd & PX_CMD_ST);
}

/* ------------------------------------------------------ commands */

static void test_identify(void **state)
{
	static uint16_t words[256];
	struct ata_identity id;

	(void)state;
	assert_true(ahci_port_init(&port));
	assert_true(ahci_port_identify(&port, words));
	assert_int_equal(fake_ahci[PORT].last_command, 0xec);
	assert_null(ata_identity_parse(words, &id));
	assert_string_equal(id.model, "FAKE DISK");
	assert_true(id.lba48);
	assert_int_equal(id.ncq_depth, 32);
}

/*
 * An IDENTIFY that ends without data (PRDBC 0) leaves no words of an
 * earlier disk behind: the buffer serves every port, and the driver took
 * the last disk's capacity for this one's (found by
 * tests/fuzz/fuzz_ahci.c).
 */
static void test_identify_without_data(void **state)
{
	static uint16_t words[256];
	struct ata_identity id;

	(void)state;
	memcpy(words, fake_ahci[PORT].identify, sizeof(words));
	fake_ahci[PORT].identify_no_data = true;
	assert_true(ahci_port_init(&port));
	assert_true(ahci_port_identify(&port, words));
	assert_int_equal(fake_ahci[PORT].last_command, 0xec);
	assert_non_null(ata_identity_parse(words, &id));
}

static void test_rw_command_contents(void **state)
{
	struct ahci_cmd_header h;
	static struct ahci_cmd_table t;

	(void)state;
	ahci_cmd_build_rw(&h, &t, 0x12345680ull, BLK_WRITE, 0x0102030405ull,
			  0xabcd000ull, false, 3);
	assert_int_equal(h.flags, 5 | AHCI_HDR_WRITE | 1u << 16);
	assert_int_equal(h.ctba, 0x12345680u);
	assert_int_equal(t.cfis[0], 0x27);
	assert_int_equal(t.cfis[1], 0x80);
	assert_int_equal(t.cfis[2], 0x35);              /* WRITE DMA EXT */
	assert_int_equal(t.cfis[4], 0x05);
	assert_int_equal(t.cfis[8], 0x02);
	assert_int_equal(t.cfis[9], 0x01);
	assert_int_equal(t.cfis[7], 0x40);
	assert_int_equal(t.cfis[12], 8);
	assert_int_equal(t.prdt[0].dba, 0xabcd000u);
	assert_int_equal(t.prdt[0].dbc, 4095);
	ahci_cmd_build_rw(&h, &t, 0x1000, BLK_READ, 8, 0x2000, true, 5);
	assert_int_equal(h.flags, 5 | 1u << 16);
	assert_int_equal(t.cfis[2], 0x60);              /* READ FPDMA QUEUED */
	assert_int_equal(t.cfis[3], 8);                 /* count in Features */
	assert_int_equal(t.cfis[12], 5 << 3);           /* tag in Count */
}

static void test_slot_alloc_wraps(void **state)
{
	unsigned next = 2;

	(void)state;
	assert_int_equal(ahci_slot_alloc(0, 4, &next), 2);
	assert_int_equal(next, 3);
	assert_int_equal(ahci_slot_alloc(BIT(3), 4, &next), 0);
	assert_int_equal(next, 1);
	assert_int_equal(ahci_slot_alloc(0xf, 4, &next), -1);
	assert_int_equal(next, 1);
	/* Slots beyond nslots do not count. */
	next = 0;
	assert_int_equal(ahci_slot_alloc(0x7, 3, &next), -1);
}

static unsigned count_bits_in(uint32_t v)
{
	return (unsigned)__builtin_popcount(v);
}

static void write_then_read(bool ncq)
{
	struct blk_completion c[AHCI_MAX_SLOTS];
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_request r;

	ready_port(4, ncq);
	f->latency = 3;
	for (unsigned i = 0; i < 4; i++) {
		memset(pages[i], 0x10 + i, PAGE_SIZE);
		r = req(BLK_WRITE, (i + 1) * PAGE_SIZE, i);
		assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	}
	r = req(BLK_WRITE, 0, 4);
	/* All taken. */
	assert_int_equal(ahci_port_submit(&port, &r), HV_ERR_BUSY);
	assert_int_equal(count_bits_in(f->ci), 4);
	assert_int_equal(poll_n(c, 4), 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(c[i].status, BLK_OK);
		assert_int_equal(f->data[(i + 1) * PAGE_SIZE], 0x10 + i);
		assert_int_equal(f->data[(i + 2) * PAGE_SIZE - 1], 0x10 + i);
	}
	assert_int_equal(f->last_command, ncq ? 0x61 : 0x35);
	/* Slots are reused, in turn; reads see what was written. */
	for (unsigned i = 0; i < 4; i++) {
		memset(pages[8 + i], 0, PAGE_SIZE);
		r = req(BLK_READ, (4 - i) * PAGE_SIZE, 8 + i);
		assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	}
	assert_int_equal(poll_n(c, 4), 4);
	for (unsigned i = 0; i < 4; i++) {
		unsigned page = (unsigned)(uintptr_t)c[i].cookie - 1;

		assert_int_equal(c[i].status, BLK_OK);
		assert_int_equal(pages[page][0], 0x10 + 3 - (page - 8));
	}
	assert_int_equal(f->last_command, ncq ? 0x60 : 0x25);
	assert_int_equal(f->sact, 0);
	assert_int_equal(console_nlines, 0);
}

static void test_dma_several_in_flight(void **state)
{
	(void)state;
	write_then_read(false);
}

static void test_ncq_several_in_flight(void **state)
{
	(void)state;
	write_then_read(true);
}

static void test_out_of_range(void **state)
{
	struct blk_completion c;
	struct blk_request r = req(BLK_READ, DISK_BYTES, 0);

	(void)state;
	ready_port(4, false);
	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_OUT_OF_RANGE);
	r.offset = 100;                 /* not page-aligned */
	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_OUT_OF_RANGE);
	assert_int_equal(fake_ahci[PORT].commands, 1);  /* IDENTIFY only */
}

/* Without CAP.S64A a page above 4 GiB fails without a command. */
static void test_buffer_out_of_reach(void **state)
{
	struct blk_completion c;
	struct blk_request r = req(BLK_WRITE, 0, 0);

	(void)state;
	fake_hba.cap &= ~(uint32_t)AHCI_CAP_S64A;
	ready_port(4, false);
	r.buffer_pa = 0x100000000ull;
	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	assert_int_equal(ahci_port_poll(&port, &c, 1), 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	assert_int_equal(fake_ahci[PORT].ci, 0);
}

static void test_queue_depth(void **state)
{
	uint32_t ncs8 = 7u << 8;
	bool ncq;

	(void)state;
	assert_int_equal(ahci_queue_depth(ncs8 | AHCI_CAP_SNCQ, 32, &ncq), 8);
	assert_true(ncq);
	assert_int_equal(ahci_queue_depth(31u << 8 | AHCI_CAP_SNCQ, 4, &ncq),
			 4);
	assert_true(ncq);
	assert_int_equal(ahci_queue_depth(ncs8, 32, &ncq), 8);  /* no SNCQ */
	assert_false(ncq);
	assert_int_equal(ahci_queue_depth(31u << 8 | AHCI_CAP_SNCQ, 0, &ncq),
			 32);                                   /* disk: none */
	assert_false(ncq);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(name, setup)
	const struct CMUnitTest tests[] = {
		T(test_takeover_stops_then_starts),
		T(test_port_that_never_stops),
		T(test_busy_disk_is_not_started),
		T(test_identify),
		T(test_identify_without_data),
		T(test_rw_command_contents),
		T(test_slot_alloc_wraps),
		T(test_dma_several_in_flight),
		T(test_ncq_several_in_flight),
		T(test_out_of_range),
		T(test_buffer_out_of_reach),
		T(test_queue_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
