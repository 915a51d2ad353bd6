/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boot/config.c, the swap keys: swap.device's kinds, the policies
 * (swap.policy, swap.prefetch and its depth and trace), fault injection
 * (debug.swap_fail_*) and swap.read_latency; the NBD servers of
 * swap.device = nbd://... and the network keys (net.*) they need.
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

static void test_nbd_servers(void **state)
{
	struct hv_config cfg;

	(void)state;
	parse_ok("guest.kernel=k\nswap.device = nbd://10.0.2.2:10810/swap\n",
		 &cfg);
	assert_int_equal(cfg.swap_device, SWAP_DEVICE_NBD);
	assert_int_equal(cfg.swap_remotes.count, 1);
	assert_int_equal(cfg.swap_remotes.at[0].ip, 0x0a000202);
	assert_int_equal(cfg.swap_remotes.at[0].port, 10810);
	assert_string_equal(cfg.swap_remotes.at[0].export_name, "swap");
	/* The port defaults to NBD's; the export name may be empty. */
	parse_ok("guest.kernel=k\nswap.device = nbd://192.168.1.20, "
		 "nbd://10.0.2.2:1/ ,nbd://255.255.255.255:65535/a-b_c.d\n",
		 &cfg);
	assert_int_equal(cfg.swap_remotes.count, 3);
	assert_int_equal(cfg.swap_remotes.at[0].ip, 0xc0a80114);
	assert_int_equal(cfg.swap_remotes.at[0].port, 10809);
	assert_string_equal(cfg.swap_remotes.at[0].export_name, "");
	assert_int_equal(cfg.swap_remotes.at[1].port, 1);
	assert_string_equal(cfg.swap_remotes.at[1].export_name, "");
	assert_int_equal(cfg.swap_remotes.at[2].ip, 0xffffffff);
	assert_int_equal(cfg.swap_remotes.at[2].port, 65535);
	assert_string_equal(cfg.swap_remotes.at[2].export_name, "a-b_c.d");
	assert_int_equal(cfg.swap_replicas, 1);
	assert_int_equal(cfg.swap_timeout_s, 30);
	parse_ok("guest.kernel=k\nswap.device = nbd://1.2.3.4, nbd://1.2.3.5\n"
		 "swap.replicas = 2\nswap.timeout = 5\n", &cfg);
	assert_int_equal(cfg.swap_replicas, 2);
	assert_int_equal(cfg.swap_timeout_s, 5);
	assert_int_equal(cfg.swap_spare.count, 0);
	parse_ok("guest.kernel=k\nswap.spare = nbd://10.0.2.2:7/s, "
		 "nbd://10.0.2.3\n", &cfg);
	assert_int_equal(cfg.swap_spare.count, 2);
	assert_int_equal(cfg.swap_spare.at[0].port, 7);
	assert_string_equal(cfg.swap_spare.at[0].export_name, "s");
	assert_int_equal(cfg.swap_spare.at[1].ip, 0x0a000203);
	parse_ok("guest.kernel=k\nswap.spare = none\n", &cfg);
	assert_int_equal(cfg.swap_spare.count, 0);
	parse_fails("guest.kernel=k\nswap.spare = nbd://10.0.2.2,\n",
		    "apfvisor.cfg:2: bad value 'nbd://10.0.2.2,' for swap.spare "
		    "(expected none or nbd://A.B.C.D[:PORT]/EXPORT[, ...])");
	parse_fails("guest.kernel=k\nswap.timeout = 0\n",
		    "apfvisor.cfg:2: bad value '0' for swap.timeout "
		    "(expected a number of seconds from 1 to 3600)");
	parse_fails("guest.kernel=k\nswap.replicas = 5\n",
		    "apfvisor.cfg:2: bad value '5' for swap.replicas "
		    "(expected a number from 1 to 4)");
	/* A local kind leaves no servers behind. */
	parse_ok("guest.kernel=k\nswap.device = ata\n", &cfg);
	assert_int_equal(cfg.swap_remotes.count, 0);

	static const char *const bad[] = {
		"nbd://10.0.2.256/x", "nbd://10.0.2/x", "nbd://10.0.2.2:0/x",
		"nbd://10.0.2.2:65536/x", "nbd://10.0.2.2:/x",
		"nbd://host.example:10809/x", "nbd:/10.0.2.2/x",
		"nbd://10.0.2.2/a b", "nbd://10.0.2.2/x,", "nbd://1.2.3.4,,",
		"nbd://1.1.1.1, nbd://1.1.1.2, nbd://1.1.1.3, nbd://1.1.1.4, "
		"nbd://1.1.1.5",
		"nbd://10.0.2.2/"
		"0123456789012345678901234567890123456789012345678901234567890123",
		"nbd://0010.0.2.2/x", "nbd://10.0.2.2x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];
		char err[CONFIG_ERROR_MAX];

		snprintf(text, sizeof(text), "guest.kernel=k\nswap.device = %s\n",
			 bad[i]);
		if (parse(text, &cfg, err, sizeof(err)) != -1)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(err, "bad value"));
	}
}

static void test_network_keys(void **state)
{
	struct hv_config cfg;

	(void)state;
	parse_ok("guest.kernel=k\n", &cfg);
	assert_true(cfg.net_address.dhcp);
	assert_int_equal(cfg.net_gateway, 0);
	assert_int_equal(cfg.net_device, NET_DEVICE_AUTO);
	parse_ok("guest.kernel=k\nnet.address = 10.0.2.15/24\n"
		 "net.gateway = 10.0.2.2\nnet.device = virtio-net\n", &cfg);
	assert_false(cfg.net_address.dhcp);
	assert_int_equal(cfg.net_address.ip, 0x0a00020f);
	assert_int_equal(cfg.net_address.prefix_len, 24);
	assert_int_equal(cfg.net_gateway, 0x0a000202);
	assert_int_equal(cfg.net_device, NET_DEVICE_VIRTIO_NET);
	parse_ok("guest.kernel=k\nnet.address = 1.2.3.4/32\n"
		 "net.gateway = none\nnet.device = e1000\n", &cfg);
	assert_int_equal(cfg.net_address.prefix_len, 32);
	assert_int_equal(cfg.net_device, NET_DEVICE_E1000);
	parse_fails("guest.kernel=k\nnet.address = 10.0.2.15\n",
		    "apfvisor.cfg:2: bad value '10.0.2.15' for net.address "
		    "(expected dhcp or A.B.C.D/N)");
	parse_fails("guest.kernel=k\nnet.address = 10.0.2.15/33\n",
		    "apfvisor.cfg:2: bad value '10.0.2.15/33' for net.address "
		    "(expected dhcp or A.B.C.D/N)");
	parse_fails("guest.kernel=k\nnet.address = 10.0.2.15/0\n",
		    "apfvisor.cfg:2: bad value '10.0.2.15/0' for net.address "
		    "(expected dhcp or A.B.C.D/N)");
	parse_fails("guest.kernel=k\nnet.gateway = 10.0.2.2.1\n",
		    "apfvisor.cfg:2: bad value '10.0.2.2.1' for net.gateway "
		    "(expected A.B.C.D or none)");
	parse_fails("guest.kernel=k\nnet.device = rtl8139\n",
		    "apfvisor.cfg:2: bad value 'rtl8139' for net.device "
		    "(expected auto, e1000 or virtio-net)");
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
		cmocka_unit_test(test_nbd_servers),
		cmocka_unit_test(test_network_keys),
		cmocka_unit_test(test_policy_keys),
		cmocka_unit_test(test_swap_fault_injection),
		cmocka_unit_test(test_read_latency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
