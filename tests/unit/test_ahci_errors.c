/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * AHCI error and recovery paths: swap/drivers/ahci_port.c over a fake HBA
 * (tests/unit/ahci_fake.c): a task-file error (the commands in flight
 * failed, the port working again after it), a failed NCQ command and the
 * COMRESET after it (and a link that does not come back), the error
 * causes, a command that never finishes, transfers the HBA reports done
 * though cut short (PRDBC; with NCQ, a page left poisoned), and a port
 * that does not stop, whose reads are held until it does.
 */
#include "tests/unit/ahci_test_fixture.h"

static void test_task_file_error_then_recovery(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c;
	struct blk_request r = req(BLK_READ, 2 * PAGE_SIZE, 0);

	(void)state;
	ready_port(4, false);
	f->fail_set = true;
	f->fail_lba = 17;               /* in page 2 (sectors 16-23) */
	f->fail_error = 0x40;           /* UNC */
	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	expect_line(0, "apfvisor: error: ahci 00:1f.2 port1: 1 command "
		    "failed: uncorrectable data (UNC) (PxIS 0x40000000, PxTFD "
		    "0x00004041, PxSERR 0x00000000)");
	assert_int_equal(console_nlines, 1);
	/* Restarted: the next request to a good page works. */
	assert_int_equal(f->is, 0);
	assert_true(f->cmd & PX_CMD_ST);
	submit_ok(BLK_READ, 3 * PAGE_SIZE, 1);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_OK);
	assert_int_equal(pages[1][0], f->data[3 * PAGE_SIZE]);
}

/*
 * A failed NCQ read leaves the disk aborting every command until it is
 * reset (as QEMU's, whose failed tags stay busy): the recovery resets it
 * with a COMRESET while the port is stopped, and the next read works.
 */
/* A failed NCQ read of page 2 on a fresh port, reset once since. */
static void failed_ncq_read(bool link_lost_on_reset)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c;
	struct blk_request r = req(BLK_READ, 2 * PAGE_SIZE, 0);

	ready_port(4, true);
	f->fail_set = true;
	f->fail_lba = 17;
	f->link_lost_on_reset = link_lost_on_reset;
	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	assert_int_equal(f->comresets, 1);
}

static void test_ncq_error_then_comreset(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c;
	struct blk_request r;

	(void)state;
	failed_ncq_read(false);
	assert_false(f->ncq_failed);
	assert_int_equal(f->serr, 0);   /* DIAG.X of the reset cleared */
	assert_true(f->cmd & PX_CMD_ST);
	for (unsigned i = 0; i < 3; i++) {
		r = req(BLK_READ, (3 + i) * PAGE_SIZE, 1);
		assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
		assert_int_equal(poll_n(&c, 1), 1);
		assert_int_equal(c.status, BLK_OK);
		assert_memory_equal(pages[1], f->data + (3 + i) * PAGE_SIZE,
				    PAGE_SIZE);
	}
	assert_int_equal(console_nlines, 1);
}

/* A link that does not come back after the reset ends the disk's use. */
static void test_link_lost_in_comreset_fails_the_port(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c;

	(void)state;
	failed_ncq_read(true);
	expect_line(1, "apfvisor: error: ahci 00:1f.2 port1: the link did not "
		    "come back after a COMRESET (PxSSTS 0x00000120 after 1000 "
		    "ms)");
	expect_line(2, "apfvisor: error: ahci 00:1f.2 port1: the port could "
		    "not be restarted after an error; the disk is not used "
		    "any more");
	/* Later requests fail at once, without a command. */
	assert_false(f->cmd & PX_CMD_ST);
	submit_ok(BLK_READ, 3 * PAGE_SIZE, 1);
	assert_int_equal(ahci_port_poll(&port, &c, 1), 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	assert_int_equal(f->ci, 0);
}

/*
 * Slot 0 ends before the error, slot 1 fails, slot 2 was still queued
 * behind it: the HBA stopped the list, so slots 1 and 2 fail together.
 */
static void test_error_fails_what_is_in_flight(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c[3];
	struct blk_request r;

	(void)state;
	ready_port(4, false);
	f->latency = 2;
	f->fail_set = true;
	f->fail_lba = 8 * 6;            /* page 6 */
	for (unsigned i = 0; i < 3; i++) {
		r = req(BLK_READ, (5 + i) * PAGE_SIZE, i);
		assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	}
	assert_int_equal(poll_n(c, 3), 3);
	for (unsigned i = 0; i < 3; i++) {
		unsigned page = (unsigned)(uintptr_t)c[i].cookie - 1;

		assert_int_equal(c[i].status, page == 0 ? BLK_OK :
				 BLK_IO_ERROR);
	}
	expect_line(0, "apfvisor: error: ahci 00:1f.2 port1: 2 commands "
		    "failed: command aborted (ABRT) (PxIS 0x40000000, PxTFD "
		    "0x00000441, PxSERR 0x00000000)");
	assert_true(f->cmd & PX_CMD_ST);
}

static void test_error_causes(void **state)
{
	(void)state;
	assert_string_equal(ahci_error_cause(PX_IS_TFES, 0x4041),
			    "uncorrectable data (UNC)");
	assert_string_equal(ahci_error_cause(PX_IS_TFES, 0x0061),
			    "device fault (DF)");
	assert_string_equal(ahci_error_cause(PX_IS_HBFS | PX_IS_IFS, 0),
			    "host bus fatal error (HBFS)");
	assert_string_equal(ahci_error_cause(PX_IS_IFS, 0),
			    "interface fatal error (IFS)");
	assert_string_equal(ahci_error_cause(0, 0), "unknown error");
	assert_true(ahci_port_has_disk(0x123, 0x00000101));
	assert_false(ahci_port_has_disk(0x123, 0xeb140101));   /* ATAPI */
	assert_false(ahci_port_has_disk(0x001, 0x00000101));   /* no phy */
}

static void test_command_timeout_fails_the_disk(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c[2];

	(void)state;
	ready_port(4, true);
	f->hang = true;
	submit_ok(BLK_WRITE, 0, 0);
	submit_ok(BLK_READ, 5 * PAGE_SIZE, 1);
	assert_int_equal(poll_n(c, 2), 2);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(c[1].status, BLK_IO_ERROR);
	assert_int_equal(console_nlines, 1);
	assert_non_null(strstr(console_lines[0], "apfvisor: error: ahci "
			       "00:1f.2 port1: write of sectors 0-7 timed out "
			       "after 10000 ms (PxCI 0x00000003"));
	assert_non_null(strstr(console_lines[0], "the disk is not used any "
			       "more"));
	assert_false(f->cmd & PX_CMD_ST);
	/* Later requests fail at once, without a command. */
	f->hang = false;
	submit_ok(BLK_READ, 0, 2);
	assert_int_equal(ahci_port_poll(&port, c, 2), 1);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(f->ci, 0);
}

/* True when no 8-byte word of page holds the byte b everywhere. */
static bool no_word_of(const uint8_t *page, uint8_t b)
{
	uint64_t stale, w;

	memset(&stale, b, sizeof(stale));
	for (unsigned i = 0; i < PAGE_SIZE; i += 8) {
		memcpy(&w, page + i, 8);
		if (w == stale)
			return false;
	}
	return true;
}

/*
 * A DMA read or write that ends without an error but with PRDBC short of
 * the page: the HBA moved less than asked. It fails (counted, one line),
 * and the port goes on without a restart.
 */
static void test_short_dma_transfer_fails(void **state)
{
	static const int moved[] = { 0, 512, PAGE_SIZE - 2 };
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c;
	struct blk_request r;
	unsigned writes;

	(void)state;
	ready_port(4, false);
	for (unsigned i = 0; i < ARRAY_SIZE(moved); i++) {
		memset(pages[i], 0xee, PAGE_SIZE);      /* stale */
		f->short_transfer = moved[i];
		r = req(BLK_READ, 2 * PAGE_SIZE, i);
		assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
		assert_int_equal(poll_n(&c, 1), 1);
		assert_int_equal(c.status, BLK_IO_ERROR);
	}
	f->short_transfer = 100;
	submit_ok(BLK_WRITE, 3 * PAGE_SIZE, 3);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_IO_ERROR);
	assert_int_equal(port.short_transfers, ARRAY_SIZE(moved) + 1);
	assert_int_equal(console_nlines, 4);
	expect_line(0, "apfvisor: error: ahci 00:1f.2 port1: read of "
		    "sectors 16-23 ended with 0 of 4096 bytes transferred "
		    "(PRDBC); it fails");
	expect_line(3, "apfvisor: error: ahci 00:1f.2 port1: write of "
		    "sectors 24-31 ended with 100 of 4096 bytes transferred "
		    "(PRDBC); it fails");
	/* No error to recover from: the port was never stopped. */
	writes = f->ncmd_writes;
	submit_ok(BLK_READ, 2 * PAGE_SIZE, 4);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_OK);
	assert_memory_equal(pages[4], f->data + 2 * PAGE_SIZE, PAGE_SIZE);
	assert_int_equal(f->ncmd_writes, writes);
	assert_false(port.failed);
}

/*
 * The same with NCQ, where the HBA need not update PRDBC (this one, like
 * QEMU's, does not): the driver poisons the page before the read and
 * finds the poison left. The read fails, the page shows nothing of what
 * the frame held before.
 */
static void test_short_ncq_read_fails(void **state)
{
	static const int moved[] = { 0, 512, PAGE_SIZE - 8 };
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c;
	struct blk_request r;

	(void)state;
	ready_port(4, true);
	for (unsigned i = 0; i < ARRAY_SIZE(moved); i++) {
		memset(pages[i], 0xee, PAGE_SIZE);      /* stale */
		f->short_transfer = moved[i];
		r = req(BLK_READ, 2 * PAGE_SIZE, i);
		assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
		assert_int_equal(poll_n(&c, 1), 1);
		assert_int_equal(c.status, BLK_IO_ERROR);
		assert_true(no_word_of(pages[i], 0xee));
	}
	assert_int_equal(port.short_transfers, ARRAY_SIZE(moved));
	assert_int_equal(console_nlines, 3);
	expect_line(0, "apfvisor: error: ahci 00:1f.2 port1: read of "
		    "sectors 16-23 ended with 512 of its 512 words never "
		    "written; it fails");
	/* An honest NCQ read (PRDBC left at 0) is fine. */
	submit_ok(BLK_READ, 2 * PAGE_SIZE, 4);
	assert_int_equal(poll_n(&c, 1), 1);
	assert_int_equal(c.status, BLK_OK);
	assert_memory_equal(pages[4], f->data + 2 * PAGE_SIZE, PAGE_SIZE);
}

/*
 * A command times out and the port does not stop (CR stays set): the HBA
 * may still write into the page of a read, which stays in flight, held
 * and counted, until a later poll finds CR clear. A write fails at once:
 * the HBA only reads its page.
 */
static void test_timed_out_read_held_until_port_stops(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c[3];

	(void)state;
	ready_port(4, true);
	f->hang = true;
	f->cr_stuck = true;
	submit_ok(BLK_READ, 0, 0);
	submit_ok(BLK_WRITE, 5 * PAGE_SIZE, 1);
	assert_int_equal(poll_n(c, 1), 1);
	assert_int_equal(ahci_port_poll(&port, c + 1, 2), 0);
	assert_ptr_equal(c[0].cookie, (void *)2);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(port.frames_held, 1);
	assert_int_equal(console_nlines, 3);
	assert_non_null(strstr(console_lines[1], "the command list did not "
			       "stop"));
	expect_line(2, "apfvisor: error: ahci 00:1f.2 port1: the pages of "
		    "the reads in flight stay held until the port stops");
	for (int i = 0; i < 100; i++)
		assert_int_equal(ahci_port_poll(&port, c, 3), 0);
	/* Later requests fail at once, without a command. */
	submit_ok(BLK_READ, 0, 2);
	assert_int_equal(ahci_port_poll(&port, c, 3), 1);
	assert_ptr_equal(c[0].cookie, (void *)3);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	/* CR clears at last: the read fails now, counted once. */
	f->cmd &= ~(uint32_t)PX_CMD_CR;
	assert_int_equal(ahci_port_poll(&port, c, 3), 1);
	assert_ptr_equal(c[0].cookie, (void *)1);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
	assert_int_equal(port.frames_held, 1);
	assert_int_equal(port.busy, 0);
}

/* After an error, a port that does not stop holds its reads as well. */
static void test_error_with_port_that_never_stops_holds_reads(void **state)
{
	struct fake_ahci_port *f = &fake_ahci[PORT];
	struct blk_completion c[2];
	struct blk_request r = req(BLK_READ, 2 * PAGE_SIZE, 0);

	(void)state;
	ready_port(4, false);
	f->fail_set = true;
	f->fail_lba = 17;
	f->cr_stuck = true;
	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
	for (int i = 0; i < 100; i++)
		assert_int_equal(ahci_port_poll(&port, c, 2), 0);
	assert_true(port.failed);
	assert_int_equal(port.frames_held, 1);
	f->cmd &= ~(uint32_t)PX_CMD_CR;
	assert_int_equal(ahci_port_poll(&port, c, 2), 1);
	assert_int_equal(c[0].status, BLK_IO_ERROR);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(name, setup)
	const struct CMUnitTest tests[] = {
		T(test_task_file_error_then_recovery),
		T(test_ncq_error_then_comreset),
		T(test_link_lost_in_comreset_fails_the_port),
		T(test_error_fails_what_is_in_flight),
		T(test_error_causes),
		T(test_command_timeout_fails_the_disk),
		T(test_short_dma_transfer_fails),
		T(test_short_ncq_read_fails),
		T(test_timed_out_read_held_until_port_stops),
		T(test_error_with_port_that_never_stops_holds_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
