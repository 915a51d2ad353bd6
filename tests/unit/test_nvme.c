/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * NVMe controller bring-up and admin commands: the driver's plain-C parts
 * (swap/drivers/nvme_ctrl.c, nvme_queue.c, nvme_namespace.c,
 * nvme_command.c, nvme_identify.c) against the fake controller of
 * tests/unit/nvme_fake.c: the reset/enable handshake and its timeouts,
 * what CAP and BAR0 refuse, Identify and its error status and timeout,
 * the namespaces used and the queue pairs granted, the parsing of
 * Identify Namespace and the commands built. Each failure must be one
 * error line. The I/O queues are in test_nvme_io.c.
 */
#include "tests/unit/nvme_test_fixture.h"

/* -------------------------------------------------------- bring-up */

static void test_bring_up(void **state)
{
	struct blockdev *dev;

	(void)state;
	dev = bring_up_one(9);
	assert_string_equal(console_lines[0], "apfvisor: " NAME " ns1: fake "
			    "NVMe, 0 MiB in 512-byte LBAs, 63 commands in "
			    "flight");
	assert_string_equal(dev->name, NAME " ns1");
	assert_int_equal(dev->size, FAKE_NVME_DISK_BYTES);
	assert_int_equal(dev->queue_depth, NVME_QUEUE_ENTRIES - 1);
	/* 3.1.5: NVM command set, 4 KiB pages, 64/16-byte entries. */
	assert_int_equal(fake.cc, NVME_CC_EN | 6 << 16 | 4 << 20);
	assert_int_equal(fake.aqa, (NVME_ADMIN_ENTRIES - 1) << 16 |
			 (NVME_ADMIN_ENTRIES - 1));
	assert_int_equal(ctrl.regs.doorbell_stride, 8);
	assert_true(fake.sq[1].exists && fake.cq[1].exists);
	assert_int_equal(fake.sq[1].cqid, 1);
	assert_int_equal(fake.sq[1].entries, NVME_QUEUE_ENTRIES);
	assert_int_equal(ctrl.info.vendor, 0x1b36);
	assert_string_equal(ctrl.info.serial, "APFFAKE0");
	assert_string_equal(ctrl.info.model, "fake NVMe");
}

static void test_bring_up_small_mqes(void **state)
{
	(void)state;
	fake.cap = (fake.cap & ~0xffffull) | 7;         /* 8 entries */
	assert_int_equal(bring_up_one(12)->queue_depth, 7);
	assert_int_equal(fake.sq[1].entries, 8);
}

static void test_never_ready(void **state)
{
	(void)state;
	fake.never_ready = true;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_TIMEOUT);
	expect_one_error("apfvisor: error: " NAME ": CSTS.RDY did not become "
			 "1 within CAP.TO (500 ms) after CC.EN = 1");
	/* Bounded by CAP.TO on the clock, not by a spin count. */
	assert_true(fake.clock > 500 && fake.clock < 600);
}

static void test_reset_never_finishes(void **state)
{
	(void)state;
	fake.csts = NVME_CSTS_RDY;
	fake.cc = NVME_CC_EN;
	fake.stuck_ready = true;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_TIMEOUT);
	expect_one_error("apfvisor: error: " NAME ": CSTS.RDY did not become "
			 "0 within CAP.TO (500 ms) after CC.EN = 0");
	assert_int_equal(fake.disables, 1);
}

static void test_fatal_while_enabling(void **state)
{
	(void)state;
	fake.never_ready = true;
	fake.csts = NVME_CSTS_CFS;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_DEVICE);
	expect_one_error("apfvisor: error: " NAME ": the controller reports a "
			 "fatal status while being enabled (CSTS.CFS set, "
			 "CSTS 0x00000002)");
}

static void test_cap_refused(void **state)
{
	(void)state;
	fake.cap |= 1ull << 48;                         /* MPSMIN 8 KiB */
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_UNSUPPORTED);
	expect_one_error("apfvisor: error: " NAME ": the controller's smallest "
			 "memory page is 8 KiB, apfvisor uses 4 KiB "
			 "(CAP.MPSMIN)");
	assert_int_equal(fake.cc, 0);
}

/*
 * CAP.MQES 0 (invalid, NVMe 1.4 3.1.1) made I/O queues of one entry: no
 * slot for any command, every request refused forever (found by
 * tests/fuzz/fuzz_nvme.c).
 */
static void test_one_entry_queues_refused(void **state)
{
	(void)state;
	fake.cap &= ~0xffffull;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_UNSUPPORTED);
	expect_one_error("apfvisor: error: " NAME ": the controller's queues "
			 "hold one entry (CAP.MQES 0); a queue needs two");
	assert_int_equal(fake.cc, 0);
}

static void test_doorbells_outside_bar(void **state)
{
	(void)state;
	ctrl.regs_size = 0x1000;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_UNSUPPORTED);
	expect_one_error("apfvisor: error: " NAME ": BAR0 has 4096 bytes, the "
			 "doorbells need 4172 (CAP.DSTRD 1)");
}

static void test_admin_error_status(void **state)
{
	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake.fail_admin_opcode = NVME_ADMIN_IDENTIFY;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_IO);
	expect_one_error("apfvisor: error: " NAME ": Identify Controller "
			 "failed: status 0x002 (SCT 0, SC 0x02: Invalid Field "
			 "in Command)");
	assert_int_equal(fake.disables, 1);
	assert_false(fake.cc & NVME_CC_EN);
}

static void test_admin_timeout(void **state)
{
	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake.hold = true;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_DEVICE);
	expect_one_error("apfvisor: error: " NAME ": a command did not "
			 "complete in time (Identify, command id 0, 10000 ms); "
			 "the controller is disabled, its 1 command(s) in "
			 "flight fail");
	assert_int_equal(fake.disables, 1);
}

static void test_namespaces(void **state)
{
	(void)state;
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake.ns[0].metadata = 8;
	fake.nns = 3;                   /* NSID 2: inactive */
	fake_nvme_add_ns(&fake, 3, 512, 9);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(console_nlines, 2);
	assert_string_equal(console_lines[0], "apfvisor: " NAME ": namespace "
			    "1 not used: its LBA format carries metadata");
	assert_int_equal(ctrl.nns, 1);
	assert_string_equal(ctrl.ns[0].bdev.name, NAME " ns3");
	assert_int_equal(ctrl.ns[0].nsid, 3);
	assert_int_equal(ctrl.ns[0].queue.qid, 1);
}

static void test_no_usable_namespace(void **state)
{
	(void)state;
	fake.nns = 2;
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_ERR_NOT_FOUND);
	expect_one_error("apfvisor: error: " NAME ": no usable namespace "
			 "(fake NVMe, 2 namespace(s))");
	assert_false(fake.cc & NVME_CC_EN);
}

static void test_queue_pairs_granted(void **state)
{
	(void)state;
	fake.queues_granted = 0;        /* one pair */
	fake_nvme_add_ns(&fake, 1, 64, 12);
	fake_nvme_add_ns(&fake, 2, 64, 12);
	assert_int_equal(nvme_ctrl_bring_up(&ctrl), HV_OK);
	assert_int_equal(ctrl.nns, 1);
	assert_false(fake.sq[2].exists);
}

/* ------------------------------------------------------- identify */

static void test_identify_namespace(void **state)
{
	uint8_t page[4096] = { 0 };
	struct nvme_ns_info info;
	const char *why;
	uint64_t nsze = 1000;

	(void)state;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_INACTIVE);
	memcpy(page + NVME_ID_NS_NSZE, &nsze, 8);
	page[NVME_ID_NS_NLBAF] = 2;
	page[NVME_ID_NS_FLBAS] = 2 | 0x10;      /* bit 4: extended, ignored */
	page[NVME_ID_NS_LBAF + 4 * 2 + 2] = 12;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_USABLE);
	assert_int_equal(info.lba_shift, 12);
	assert_int_equal(info.lbas, 1000);
	page[NVME_ID_NS_LBAF + 4 * 2 + 2] = 13;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_UNUSABLE);
	assert_string_equal(why, "its LBA size is not 512 to 4096 bytes");
	page[NVME_ID_NS_FLBAS] = 3;
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_UNUSABLE);
	assert_string_equal(why, "its LBA format index is past the formats "
			    "it lists");
	page[NVME_ID_NS_FLBAS] = 0;
	page[NVME_ID_NS_LBAF + 2] = 9;
	nsze = 7;                               /* 3.5 KiB */
	memcpy(page + NVME_ID_NS_NSZE, &nsze, 8);
	assert_int_equal(nvme_parse_ns_info(page, &info, &why),
			 NVME_NS_UNUSABLE);
}

static void test_commands(void **state)
{
	struct nvme_sqe c;

	(void)state;
	nvme_cmd_page_io(&c, BLK_WRITE, 3, 9, 0x123456000ull, 0x5000);
	assert_int_equal(c.opcode, NVME_CMD_WRITE);
	assert_int_equal(c.nsid, 3);
	assert_int_equal(c.cdw10, (uint32_t)(0x123456000ull >> 9));
	assert_int_equal(c.cdw11, 0x123456000ull >> 41);
	assert_int_equal(c.cdw12, 7);
	assert_int_equal(c.prp1, 0x5000);
	assert_int_equal(c.prp2, 0);
	nvme_cmd_create_sq(&c, 2, 64, 0x9000, 2);
	assert_int_equal(c.cdw10, 63u << 16 | 2);
	assert_int_equal(c.cdw11, 2u << 16 | 1);
	assert_int_equal(nvme_granted_queue_pairs(3 | 7u << 16), 4);
	assert_string_equal(nvme_status_name(0x80), "LBA Out of Range");
	assert_string_equal(nvme_status_name(0x281), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_bring_up),
		T(test_bring_up_small_mqes),
		T(test_never_ready),
		T(test_reset_never_finishes),
		T(test_fatal_while_enabling),
		T(test_cap_refused),
		T(test_one_entry_queues_refused),
		T(test_doorbells_outside_bar),
		T(test_admin_error_status),
		T(test_admin_timeout),
		T(test_namespaces),
		T(test_no_usable_namespace),
		T(test_queue_pairs_granted),
		T(test_identify_namespace),
		T(test_commands),
#undef T
	};

	return cmocka_run_group_tests_name("nvme", tests, NULL, NULL);
}
