/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boot/config.c, the swap keys: swap.device's kinds, the policies
 * (swap.policy, swap.prefetch and its depth and trace), fault injection
 * (debug.swap_fail_*) and swap.read_latency.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "boot/config.h"
#include "tests/unit/config_parse.h"

static void test_device_kinds(void **state)
{
	static const struct {
		const char *text;
		enum swap_device_kind kind;
	} cases[] = {
		{ "guest.kernel=k\nswap.device=auto\n", SWAP_DEVICE_AUTO },
		{ "guest.kernel=k\nswap.device=ata\n", SWAP_DEVICE_ATA },
		{ "guest.kernel=k\nswap.device=nvme\n", SWAP_DEVICE_NVME },
		{ "guest.kernel=k\nswap.device=ahci\n", SWAP_DEVICE_AHCI },
		{ "guest.kernel=k\nswap.device=none\n", SWAP_DEVICE_NONE },
		{ "guest.kernel=k\nswap.device=virtio-blk",
		  SWAP_DEVICE_VIRTIO_BLK },
	};
	struct hv_config cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_ok(cases[i].text, &cfg);
		assert_int_equal(cfg.swap_device, cases[i].kind);
	}
}

static void test_policy_keys(void **state)
{
	struct hv_config cfg;

	(void)state;
	parse_ok("guest.kernel=k\nswap.policy = fifo\nswap.prefetch = stride\n"
		 "swap.prefetch_depth = 64\n", &cfg);
	assert_int_equal(cfg.swap_policy, SWAP_EVICT_FIFO);
	assert_int_equal(cfg.swap_prefetch, SWAP_PREFETCH_STRIDE);
	assert_int_equal(cfg.swap_prefetch_depth, 64);
	parse_ok("guest.kernel=k\nswap.policy = random\n"
		 "swap.prefetch = sequential\n", &cfg);
	assert_int_equal(cfg.swap_policy, SWAP_EVICT_RANDOM);
	assert_int_equal(cfg.swap_prefetch, SWAP_PREFETCH_SEQUENTIAL);
	parse_ok("guest.kernel=k\nswap.policy = aging\n", &cfg);
	assert_int_equal(cfg.swap_policy, SWAP_EVICT_AGING);
	assert_string_equal(cfg.swap_prefetch_trace, "");
	parse_ok("guest.kernel=k\nswap.prefetch = replay\n"
		 "swap.prefetch_trace = \"run 1.faults\"\n", &cfg);
	assert_int_equal(cfg.swap_prefetch, SWAP_PREFETCH_REPLAY);
	assert_string_equal(cfg.swap_prefetch_trace, "run 1.faults");
	parse_fails("guest.kernel=k\nswap.policy = lru\n",
		    "apfvisor.cfg:2: bad value 'lru' for swap.policy "
		    "(expected clock, fifo, random or aging)");
	parse_fails("guest.kernel=k\nswap.prefetch_depth = 65\n",
		    "apfvisor.cfg:2: bad value '65' for swap.prefetch_depth "
		    "(expected a number from 1 to 64)");
}

static void test_swap_fault_injection(void **state)
{
	struct hv_config cfg;

	(void)state;
	/* Off unless asked for. */
	parse_ok("guest.kernel=k\n", &cfg);
	assert_int_equal(cfg.debug_swap_fail_reads, 0);
	assert_int_equal(cfg.debug_swap_fail_writes, 0);
	parse_ok("guest.kernel=k\ndebug.swap_fail_reads = 7\n"
		 "debug.swap_fail_writes=5 # every 5th\n", &cfg);
	assert_int_equal(cfg.debug_swap_fail_reads, 7);
	assert_int_equal(cfg.debug_swap_fail_writes, 5);
	parse_ok("guest.kernel=k\ndebug.swap_fail_reads = 0\n"
		 "debug.swap_fail_writes = 1000000\n", &cfg);
	assert_int_equal(cfg.debug_swap_fail_reads, 0);
	assert_int_equal(cfg.debug_swap_fail_writes, 1000000);
	parse_ok("guest.kernel=k\ndebug.swap_fail_writes = 1\n", &cfg);
	assert_int_equal(cfg.debug_swap_fail_reads, 0);
	assert_int_equal(cfg.debug_swap_fail_writes, 1);
	parse_fails("debug.swap_fail_reads = 1000001\n",
		    "apfvisor.cfg:1: bad value '1000001' for "
		    "debug.swap_fail_reads (expected 0..1000000 (0 = off))");
	parse_fails("debug.swap_fail_writes = -1\n",
		    "apfvisor.cfg:1: bad value '-1' for "
		    "debug.swap_fail_writes (expected 0..1000000 (0 = off))");
	parse_fails("debug.swap_fail_writes = on\n",
		    "apfvisor.cfg:1: bad value 'on' for "
		    "debug.swap_fail_writes (expected 0..1000000 (0 = off))");
	parse_fails("debug.swap_fail_reads =\n",
		    "apfvisor.cfg:1: bad value '' for "
		    "debug.swap_fail_reads (expected 0..1000000 (0 = off))");
	parse_fails("guest.kernel=k\ndebug.swap_fail_reads = 3\n"
		    "debug.swap_fail_reads = 4\n",
		    "apfvisor.cfg:3: duplicate key 'debug.swap_fail_reads'");
	/* The checksum check of pages read back from swap. */
	assert_false(cfg.debug_swap_verify);
	parse_ok("guest.kernel=k\ndebug.swap_verify = on\n", &cfg);
	assert_true(cfg.debug_swap_verify);
	parse_fails("debug.swap_verify = yes\n",
		    "apfvisor.cfg:1: bad value 'yes' for debug.swap_verify "
		    "(expected on or off)");
}

static void test_read_latency(void **state)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} good[] = {
		{ "0", 0 }, { "0ms", 0 }, { "250ns", 250 }, { "50us", 50000 },
		{ "2ms", 2000000 }, { "1 ms", 1000000 }, { "10s", 10000000000ull },
	};
	static const char *const bad[] = {
		"5", "1.5ms", "ms", "-1ms", "2 sec", "11s", "10001ms",
		"99999999999999999999999ns", "1msx",
	};
	struct hv_config cfg;
	char line[128];

	(void)state;
	parse_ok("guest.kernel=k\n", &cfg);
	assert_int_equal(cfg.swap_read_latency_ns, 0);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		snprintf(line, sizeof(line),
			 "guest.kernel=k\nswap.read_latency = %s\n",
			 good[i].text);
		parse_ok(line, &cfg);
		assert_int_equal(cfg.swap_read_latency_ns, good[i].ns);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char want[CONFIG_ERROR_MAX];

		snprintf(line, sizeof(line), "swap.read_latency = %s\n",
			 bad[i]);
		snprintf(want, sizeof(want),
			 "apfvisor.cfg:1: bad value '%s' for swap.read_latency "
			 "(expected 0 or a duration in ns, us, ms or s, at most "
			 "10s)", bad[i]);
		parse_fails(line, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_kinds),
		cmocka_unit_test(test_policy_keys),
		cmocka_unit_test(test_swap_fault_injection),
		cmocka_unit_test(test_read_latency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
