// SPDX-License-Identifier: BSD-2-Clause
/*
 * guest/devices/pci_host.c: configuration mechanism #1 as Linux probes it
 * (arch/x86/pci/direct.c: pci_check_type1, pci_check_type2,
 * pci_sanity_check) and the one host bridge on bus 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "guest/devices/pci_host.h"

static struct pci_host host;

static int setup(void **state)
{
	(void)state;
	pci_host_init(&host);
	return 0;
}

static uint32_t rd(uint16_t port, unsigned size)
{
	uint32_t v = 0x5a5a5a5a;

	assert_true(pci_host_owns_port(port, size));
	pci_host_io(&host, port, size, true, &v);
	return v;
}

static void wr(uint16_t port, unsigned size, uint32_t v)
{
	assert_true(pci_host_owns_port(port, size));
	pci_host_io(&host, port, size, false, &v);
}

/* CONFIG_ADDRESS for bus, device, function and register. */
static uint32_t address(unsigned bus, unsigned dev, unsigned fn,
			unsigned reg)
{
	return PCI_CONFIG_ENABLE | bus << 16 | dev << 11 | fn << 8 |
	       (reg & 0xfc);
}

static void ports_owned(void **state)
{
	(void)state;
	assert_true(pci_host_owns_port(0xcf8, 4));
	assert_false(pci_host_owns_port(0xcf8, 1));
	assert_false(pci_host_owns_port(0xcf8, 2));
	assert_false(pci_host_owns_port(0xcf9, 1));     /* reset register */
	assert_false(pci_host_owns_port(0xcfb, 1));
	for (uint16_t p = 0xcfc; p <= 0xcff; p++)
		assert_true(pci_host_owns_port(p, 1));
	assert_true(pci_host_owns_port(0xcfc, 4));
	assert_true(pci_host_owns_port(0xcfe, 2));
	assert_false(pci_host_owns_port(0xd00, 1));
}

/* pci_check_type1: the address register reads back what was written. */
static void config_address_reads_back(void **state)
{
	(void)state;
	assert_int_equal(rd(0xcf8, 4), 0);
	wr(0xcf8, 4, 0x80000000);
	assert_int_equal(rd(0xcf8, 4), 0x80000000);
	wr(0xcf8, 4, 0x12345678);
	assert_int_equal(rd(0xcf8, 4), 0x12345678);
}

/* pci_sanity_check: bus 0 holds a host bridge (class 06 00) from Intel. */
static void host_bridge_header(void **state)
{
	(void)state;
	wr(0xcf8, 4, address(0, 0, 0, 0x00));
	assert_int_equal(rd(0xcfc, 4), 0x12378086);
	assert_int_equal(rd(0xcfc, 2), 0x8086);
	assert_int_equal(rd(0xcfe, 2), 0x1237);
	assert_int_equal(rd(0xcfd, 1), 0x80);
	wr(0xcf8, 4, address(0, 0, 0, 0x08));
	assert_int_equal(rd(0xcfc, 4), 0x06000002);
	assert_int_equal(rd(0xcfe, 2), 0x0600);         /* PCI_CLASS_DEVICE */
	wr(0xcf8, 4, address(0, 0, 0, 0x0e));           /* header type */
	assert_int_equal(rd(0xcfe, 1), 0x00);
	wr(0xcf8, 4, address(0, 0, 0, 0x2c));
	assert_int_equal(rd(0xcfc, 4), 0x11001af4);
	wr(0xcf8, 4, address(0, 0, 0, 0x10));           /* no BARs */
	assert_int_equal(rd(0xcfc, 4), 0);
	wr(0xcf8, 4, address(0, 0, 0, 0xfc));
	assert_int_equal(rd(0xcfc, 4), 0);
}

/* A probe of any other function finds nothing (all ones). */
static void other_functions_are_absent(void **state)
{
	(void)state;
	wr(0xcf8, 4, address(0, 0, 1, 0));
	assert_int_equal(rd(0xcfc, 4), 0xffffffff);
	wr(0xcf8, 4, address(0, 1, 0, 0));
	assert_int_equal(rd(0xcfc, 2), 0xffff);
	wr(0xcf8, 4, address(0, 31, 7, 0));
	assert_int_equal(rd(0xcfc, 1), 0xff);
	wr(0xcf8, 4, address(1, 0, 0, 0));
	assert_int_equal(rd(0xcfc, 4), 0xffffffff);
	wr(0xcf8, 4, address(255, 0, 0, 0));
	assert_int_equal(rd(0xcfc, 4), 0xffffffff);
}

/* Without the enable bit CONFIG_DATA is not a configuration access. */
static void disabled_address_reads_all_ones(void **state)
{
	(void)state;
	wr(0xcf8, 4, 0x00000000);
	assert_int_equal(rd(0xcfc, 4), 0xffffffff);
	assert_int_equal(rd(0xcfe, 2), 0xffff);
}

/* The header is read-only: writes change nothing, the address stays. */
static void writes_are_dropped(void **state)
{
	(void)state;
	wr(0xcf8, 4, address(0, 0, 0, 0x04));
	wr(0xcfc, 2, 0x0007);                           /* command */
	assert_int_equal(rd(0xcfc, 4), 0);
	wr(0xcf8, 4, address(0, 0, 0, 0x00));
	wr(0xcfc, 4, 0xffffffff);
	assert_int_equal(rd(0xcfc, 4), 0x12378086);
	assert_int_equal(rd(0xcf8, 4), address(0, 0, 0, 0));
}

/* A word at 0xcff stays inside the dword: one byte, the rest zero. */
static void access_past_the_dword_is_clipped(void **state)
{
	(void)state;
	wr(0xcf8, 4, address(0, 0, 0, 0x00));
	assert_int_equal(rd(0xcff, 2), 0x12);
	assert_int_equal(rd(0xcfe, 4), 0x1237);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(ports_owned),
		T(config_address_reads_back),
		T(host_bridge_header),
		T(other_functions_are_absent),
		T(disabled_address_reads_all_ones),
		T(writes_are_dropped),
		T(access_past_the_dword_is_clipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
