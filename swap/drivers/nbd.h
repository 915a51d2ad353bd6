/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An NBD server's export as a swap device (far memory): the client side
 * of the Network Block Device protocol (swap/drivers/nbd_proto.h) over one
 * TCP connection (net/tcp_stream.h), behind swap/blockdev.h.
 *
 * Up to NBD_QUEUE_DEPTH requests are in flight at once, told apart by
 * their cookies. The connection is watched: when it ends (the server
 * closed or reset it) or stays silent for NBD_SILENT_MS with requests in
 * flight, one line says so ("apfvisor: nbd ...: connection lost (...);
 * connecting again"), the connection is made again with back-off
 * (NBD_BACKOFF_MIN_MS doubling to NBD_BACKOFF_MAX_MS), and every request
 * that was on it is sent again on the new one. A server that breaks the
 * protocol (a reply to a cookie not in flight, a wrong magic) is not used
 * again: one "apfvisor: error:" line says what it sent, and its requests
 * fail. With fail_fast (a member of a set with copies) the requests of a
 * lost connection fail at once instead. A server that stays away
 * longer than the give-up time fails the requests that wait (and every
 * later one, until it is back) with BLK_IO_ERROR: the paging daemon then
 * says which page could not be read, never hands out wrong data.
 */
#ifndef SWAP_DRIVERS_NBD_H
#define SWAP_DRIVERS_NBD_H

#include "swap/blockdev.h"

#define NBD_QUEUE_DEPTH         32
#define NBD_CONNECT_TIMEOUT_MS  5000    /* one connection attempt */
#define NBD_SILENT_MS           5000    /* requests in flight, no byte */
#define NBD_BACKOFF_MIN_MS      100
#define NBD_BACKOFF_MAX_MS      2000
#define NBD_GIVE_UP_MS_DEFAULT  30000
#define NBD_FLUSH_QUIET_MS      100     /* idle after writes, then FLUSH */

struct nbd_target {
	uint32_t ip;                    /* host order */
	uint16_t port;
	const char *export_name;        /* "" is the server's default */
	unsigned give_up_ms;            /* 0: NBD_GIVE_UP_MS_DEFAULT */
};

/*
 * Connects to the server and runs the handshake, waiting at most
 * NBD_CONNECT_TIMEOUT_MS. The network must be up (net_start). Returns the
 * device, or NULL with the reason in err ("10.0.2.2:10809: the server
 * refused or reset the connection", "...: the server has no export
 * named 'swap' (NBD_REP_ERR_UNKNOWN)").
 */
struct blockdev *nbd_open(const struct nbd_target *t, char *err,
			  size_t err_len);

#endif
