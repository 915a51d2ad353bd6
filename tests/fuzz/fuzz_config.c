/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: boot/config.c's parser of apfvisor.cfg over arbitrary
 * bytes (the file comes from the boot medium, so anyone who can write it
 * chooses them). Beyond the sanitizers' checks it asserts what config.h
 * promises: an accepted file names a kernel and leaves host_guest_frames
 * non-zero, strings stay terminated inside their arrays, NBD servers
 * appear only with swap.device = nbd:// (ports not 0, names ended), a
 * fixed address has a prefix of 1 to 32 bits, and a refusal
 * writes exactly one line starting "apfvisor.cfg".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/config.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hv_config cfg;
	char err[256];

	memset(err, 0x55, sizeof(err));
	if (config_parse((const char *)data, size, &cfg, err, sizeof(err))) {
		CHECK(memchr(err, 0, sizeof(err)) != NULL);
		CHECK(!strncmp(err, "apfvisor.cfg", 12));
		CHECK(!strchr(err, '\n'));
		return 0;
	}
	CHECK(memchr(cfg.guest_kernel, 0, sizeof(cfg.guest_kernel)));
	CHECK(memchr(cfg.guest_initrd, 0, sizeof(cfg.guest_initrd)));
	CHECK(memchr(cfg.guest_cmdline, 0, sizeof(cfg.guest_cmdline)));
	CHECK(cfg.guest_kernel[0] != 0);
	CHECK(cfg.host_guest_frames != 0);
	/* NBD servers: only with swap.device = nbd://, each name ended. */
	CHECK((cfg.swap_device == SWAP_DEVICE_NBD) ==
	      (cfg.swap_remotes.count > 0));
	CHECK(cfg.swap_remotes.count <= SWAP_REMOTE_MAX);
	for (unsigned i = 0; i < cfg.swap_remotes.count; i++) {
		CHECK(memchr(cfg.swap_remotes.at[i].export_name, 0,
			     SWAP_EXPORT_NAME_MAX));
		CHECK(cfg.swap_remotes.at[i].port != 0);
	}
	CHECK(cfg.swap_spare.count <= SWAP_REMOTE_MAX);
	for (unsigned i = 0; i < cfg.swap_spare.count; i++)
		CHECK(memchr(cfg.swap_spare.at[i].export_name, 0,
			     SWAP_EXPORT_NAME_MAX) &&
		      cfg.swap_spare.at[i].port != 0);
	CHECK(cfg.net_address.dhcp ||
	      (cfg.net_address.prefix_len >= 1 &&
	       cfg.net_address.prefix_len <= 32));
	return 0;
}
