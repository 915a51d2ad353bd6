/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the AHCI port tests (test_ahci.c, test_ahci_errors.c):
 * port 1 of the fake HBA (tests/unit/ahci_fake.c) with a disk, the
 * driver's port and its memory, pages to read into and write from, and
 * the helpers that build requests, poll for completions and bring a port
 * up. Included once by each test program.
 */
#ifndef TESTS_UNIT_AHCI_TEST_FIXTURE_H
#define TESTS_UNIT_AHCI_TEST_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/console_capture.h"
#include "tests/unit/ahci_fake.h"
#include "swap/drivers/ahci_port.h"
#include "swap/drivers/ata_identify.h"

#define PORT 1
#define DISK_BYTES (FAKE_AHCI_SECTORS * 512ull)

static struct ahci_port port;
static uint8_t port_mem[AHCI_PORT_MEM_PAGES * PAGE_SIZE]
	__attribute__((aligned(4096)));
static uint8_t pages[AHCI_MAX_SLOTS + 1][PAGE_SIZE]
	__attribute__((aligned(4096)));

static inline int setup(void **state)
{
	(void)state;
	fake_ahci_reset();
	fake_ahci_disk(PORT);
	console_forget();
	ahci_port_attach(&port, &fake_hba, PORT, port_mem);
	return 0;
}

static inline void expect_line(unsigned i, const char *want)
{
	assert_true(i < console_nlines);
	assert_string_equal(console_lines[i], want);
}

static inline struct blk_request req(enum blk_op op, uint64_t offset,
				       unsigned page)
{
	return (struct blk_request){
		.op = op, .offset = offset,
		.buffer_pa = (uintptr_t)pages[page],
		.cookie = (void *)(uintptr_t)(page + 1),
	};
}

/* Submits req(op, offset, page), which the port must take. */
static inline void submit_ok(enum blk_op op, uint64_t offset, unsigned page)
{
	struct blk_request r = req(op, offset, page);

	assert_int_equal(ahci_port_submit(&port, &r), HV_OK);
}

/* Polls until n completions came (bounded by the fake clock). */
static inline unsigned poll_n(struct blk_completion *out, unsigned n)
{
	unsigned got = 0;

	for (unsigned i = 0; i < 100000 && got < n; i++)
		got += ahci_port_poll(&port, out + got, n - got);
	return got;
}

/* A port taken over and identified, nslots slots, with or without NCQ. */
static inline void ready_port(unsigned nslots, bool ncq)
{
	static uint16_t words[256];
	struct ata_identity id;

	assert_true(ahci_port_init(&port));
	assert_true(ahci_port_identify(&port, words));
	assert_null(ata_identity_parse(words, &id));
	assert_int_equal(id.sectors, FAKE_AHCI_SECTORS);
	ahci_port_configure(&port, nslots, ncq, DISK_BYTES);
}

#endif
