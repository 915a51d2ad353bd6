/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hypervisor's one network interface: the first NIC the drivers find
 * (net/drivers/, behind net/nic.h), lwIP over it (IPv4, ARP, ICMP, DHCP,
 * TCP; Debian's source built freestanding), and its address, static or
 * from DHCP. Polled, like the block devices: whoever waits for the
 * network calls net_poll(), which moves received frames into lwIP and
 * runs its timers. One context at a time (the paging daemon's I/O, or
 * the start-up code before it runs).
 */
#ifndef NET_NET_STACK_H
#define NET_NET_STACK_H

#include "lib/errors.h"
#include "lib/types.h"

enum net_device_kind {
	NET_DEVICE_AUTO,        /* the first e1000, else virtio-net */
	NET_DEVICE_E1000,
	NET_DEVICE_VIRTIO_NET,
};

/* How long net.address = dhcp waits for an answer. */
#define NET_DHCP_TIMEOUT_MS 15000

/* IPv4 addresses here are host-order numbers: 10.0.2.15 is 0x0a00020f. */
struct net_config {
	enum net_device_kind device;
	bool dhcp;              /* else address/prefix_len and gateway */
	uint32_t address;
	unsigned prefix_len;    /* 1..32 */
	uint32_t gateway;       /* 0: none (only the local subnet) */
	unsigned dhcp_timeout_ms;
};

/*
 * Finds the NIC, starts lwIP on it and waits (bounded) for the link and,
 * with DHCP, for an address. One line on success:
 *   "apfvisor: net: e1000 00:03.0 is 10.0.2.15/24, gateway 10.0.2.2 (dhcp)"
 * On failure one error line saying why, and HV_ERR_NOT_FOUND (no NIC),
 * HV_ERR_TIMEOUT (no link, no DHCP answer) or HV_ERR_DEVICE. A second call
 * returns the first one's result.
 */
enum hv_err net_start(const struct net_config *cfg);

/* Received frames into lwIP, then lwIP's timers. Never blocks. */
void net_poll(void);

/*
 * The interface's address (host order), 0 before net_start succeeded.
 * Its counters (net.rx_frames, net.tx_frames, drops) are in the
 * registry (lib/counters.h) from net_start on.
 */
uint32_t net_address(void);

/* "A.B.C.D" for a host-order address, into buf (16 bytes). */
void net_format_ip(uint32_t ip, char buf[16]);

#endif
