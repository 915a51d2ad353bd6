/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/drivers/ata_identify.c: IDENTIFY DEVICE data as the ATA driver reads it,
 * from the fake disk's data (tests/unit/ata_fake.c) with one field changed
 * per case.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "swap/drivers/ata_identify.h"
#include "tests/unit/ata_fake.h"

static struct fake_dev *base(uint64_t sectors, bool lba48)
{
	fake_ata_reset();
	fake_disk(0, 1, sectors, lba48);
	return &fake_ata[0].dev[1];
}

static const char *parse(struct fake_dev *d, struct ata_identity *id)
{
	fake_identify_checksum(d);
	return ata_identity_parse(d->identify, id);
}

static void test_lba48(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(64, true);

	(void)state;
	/* Beyond 28 bits, with words 60-61 saturated as ATA/ATAPI-6 says. */
	d->identify[100] = 0x5678;
	d->identify[101] = 0x1234;
	d->identify[102] = 0x0002;
	d->identify[60] = 0xffff;
	d->identify[61] = 0x0fff;
	assert_null(parse(d, &id));
	assert_true(id.lba48);
	assert_int_equal(id.sectors, 0x212345678ull);
	assert_string_equal(id.model, "FAKE DISK");
}

/*
 * Words 100-103 hold 64 bits, a command's LBA 48: a disk claiming more
 * is used up to what a command can address (found by fuzz_ahci: beyond
 * it the LBA lost its high bits and the command went elsewhere).
 */
static void test_lba48_beyond_48_bits(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(64, true);

	(void)state;
	d->identify[100] = 0;
	d->identify[101] = 0;
	d->identify[102] = 0;
	d->identify[103] = 0x0064;
	assert_null(parse(d, &id));
	assert_int_equal(id.sectors, ATA_LBA48_LIMIT - 1);
}

static void test_lba28(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(0x0abcdef, false);

	(void)state;
	assert_null(parse(d, &id));
	assert_false(id.lba48);
	assert_int_equal(id.sectors, 0x0abcdef);
}

/* NCQ: word 76 bit 8 on SATA, depth from word 75 (ACS-3 7.12.7). */
static void test_ncq_depth(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(64, true);

	(void)state;
	assert_null(parse(d, &id));
	assert_int_equal(id.ncq_depth, 0);      /* parallel ATA: word 76 0 */
	d->identify[76] = 1u << 8;
	d->identify[75] = 31;
	assert_null(parse(d, &id));
	assert_int_equal(id.ncq_depth, 32);
	d->identify[75] = 3;
	assert_null(parse(d, &id));
	assert_int_equal(id.ncq_depth, 4);
	d->identify[76] = 0xffff;               /* not a valid word */
	assert_null(parse(d, &id));
	assert_int_equal(id.ncq_depth, 0);
	d->identify[76] = 1u << 2;              /* SATA, without NCQ */
	assert_null(parse(d, &id));
	assert_int_equal(id.ncq_depth, 0);
}

static void test_lba48_needs_valid_word_83(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(4096, true);

	(void)state;
	d->identify[83] = 0xffff;               /* bits 15:14 = 11b: invalid */
	assert_null(parse(d, &id));
	assert_false(id.lba48);
	assert_int_equal(id.sectors, 4096);     /* from words 60-61 */
	/* Supported, but a zero 48-bit capacity: not used (as Linux). */
	d = base(4096, true);
	memset(&d->identify[100], 0, 8);
	assert_null(parse(d, &id));
	assert_false(id.lba48);
}

static void test_refusals(void **state)
{
	struct ata_identity id;
	struct fake_dev *d;

	(void)state;
	d = base(4096, true);
	d->identify[0] |= 0x8000;
	assert_string_equal(parse(d, &id), "not an ATA disk (IDENTIFY word 0 "
			    "bit 15 set)");
	d = base(4096, true);
	d->identify[0] |= 0x0004;
	assert_string_equal(parse(d, &id), "IDENTIFY DEVICE data incomplete "
			    "(word 0 bit 2 set)");
	d = base(4096, true);
	d->identify[49] = 0;
	assert_string_equal(parse(d, &id), "no LBA addressing (IDENTIFY word "
			    "49 bit 9 clear)");
	d = base(7, true);
	assert_string_equal(parse(d, &id), "smaller than one 4 KiB page");
	/* The model is read even for a refused disk (for the message). */
	assert_string_equal(id.model, "FAKE DISK");
}

static void test_checksum(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(4096, true);

	(void)state;
	assert_null(parse(d, &id));
	d->identify[10] ^= 0x0100;              /* after the checksum */
	assert_string_equal(ata_identity_parse(d->identify, &id),
			    "IDENTIFY DEVICE data checksum mismatch (word "
			    "255)");
	/* Without the A5h signature there is no checksum to check. */
	d->identify[255] = 0;
	assert_null(ata_identity_parse(d->identify, &id));
}

static void test_logical_sector_size(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(4096, true);

	(void)state;
	/* 4096-byte logical sectors: word 106 bit 12, words 117-118 = 2048. */
	d->identify[106] = 0x4000 | 0x1000;
	d->identify[117] = 2048;
	assert_string_equal(parse(d, &id), "logical sectors are not 512 "
			    "bytes (IDENTIFY words 106, 117-118)");
	/* 512 stated explicitly is fine; so is a 4 KiB physical sector. */
	d->identify[117] = 256;
	assert_null(parse(d, &id));
	d->identify[106] = 0x4000 | 0x2000 | 3;
	assert_null(parse(d, &id));
	/* Bit 12 in an invalid word 106 means nothing. */
	d->identify[106] = 0x1000;
	d->identify[117] = 2048;
	assert_null(parse(d, &id));
}

static void test_model_string(void **state)
{
	struct ata_identity id;
	struct fake_dev *d = base(4096, true);

	(void)state;
	/* Two characters per word, the first in bits 15:8. */
	for (unsigned i = 0; i < 20; i++)
		d->identify[27 + i] = 0x2020;
	d->identify[27] = 'Q' << 8 | 'E';
	d->identify[28] = 'M' << 8 | 0x01;      /* not printable */
	d->identify[29] = 'U' << 8 | ' ';
	assert_null(parse(d, &id));
	assert_string_equal(id.model, "QEM?U");
	for (unsigned i = 0; i < 20; i++)
		d->identify[27 + i] = 'x' << 8 | 'y';
	assert_null(parse(d, &id));
	assert_int_equal(strlen(id.model), 40);
	for (unsigned i = 0; i < 20; i++)
		d->identify[27 + i] = 0x2020;
	assert_null(parse(d, &id));
	assert_string_equal(id.model, "");
	fake_ata_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lba48),
		cmocka_unit_test(test_lba48_beyond_48_bits),
		cmocka_unit_test(test_lba28),
		cmocka_unit_test(test_ncq_depth),
		cmocka_unit_test(test_lba48_needs_valid_word_83),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_checksum),
		cmocka_unit_test(test_logical_sector_size),
		cmocka_unit_test(test_model_string),
	};

	return cmocka_run_group_tests_name("ata_identify", tests, NULL, NULL);
}
