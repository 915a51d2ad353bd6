/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One swap device over several (far memory: swap.device = nbd://a,
 * nbd://b, ...): pages striped across the members, each kept on
 * `replicas` of them (swap.replicas), so that losing a member loses
 * nothing while another copy is there. Plain C over swap/blockdev.h: the
 * unit tests drive it with fake members.
 *
 * Layout. Every member carries its own apfvisor swap header at page 0
 * (checked when it is opened, and again when it comes back), and all
 * have the same size: P pages after the header. The set's data page j
 * (byte offset 4096 * (1 + j) of the set) lies in row r = j / N, column
 * c = j % N of N members; copy k (0 <= k < R) is on member (c + k) % N,
 * at its page 1 + r * R + k. Each member thus holds R pages of each row,
 * one per copy, and the set has N * (P / R) data pages. The set's own
 * header (page 0) is made in memory from member 0's, with the set's
 * size; it is read like a disk's and never written.
 *
 * Reads go to the first copy whose member is available and did not miss
 * the page's last write; a copy that fails is followed by the next one.
 * Writes go to every available member that holds a copy; the write
 * succeeds when one copy is written, and the members that did not get it
 * remember the page as missed (a bitmap per member). When a member that
 * was away is back (its header read again and found the same), its
 * missed pages are copied to it from another copy, one at a time, while
 * the set goes on: "re-replication". A write to a page being copied
 * waits (HV_ERR_BUSY) until the copy is done, so an older copy never
 * lands after a newer write.
 *
 * A member away for longer than the set's replacement time, or back with
 * another header, gives its place to a spare (swap.spare) when there is
 * one: every copy it held of a page that has data (a bitmap of the set's
 * written pages) is copied to the spare from the other copies.
 *
 * With one copy (replicas = 1) there is nothing to fall back on: requests
 * wait for the member to come back, as with a single server.
 */
#ifndef SWAP_BLOCKDEV_STRIPE_H
#define SWAP_BLOCKDEV_STRIPE_H

#include "swap/blockdev.h"

#define STRIPE_MAX_MEMBERS      4
#define STRIPE_MAX_REQUESTS     32

/*
 * Builds the set over n members (1..STRIPE_MAX_MEMBERS, each idle and
 * with a valid swap header at page 0, read into headers[i]) keeping
 * `replicas` copies of each page (1..n). Returns the set's device, or
 * NULL with the reason in err (members of different sizes, too few for
 * the copies, too small).
 */
struct blockdev *blockdev_stripe_create(struct blockdev **members,
					const uint8_t *const *headers,
					unsigned n, unsigned replicas,
					char *err, size_t err_len);

/*
 * swap.spare: dev (idle, with a valid swap header read into header, the
 * size of the members) takes the place of the first member that has
 * been away longer than replace_after TSC ticks, or came back with
 * another header; the copies it must hold are then copied to it. Needs
 * replicas >= 2. False with the reason in err.
 */
bool blockdev_stripe_add_spare(struct blockdev *set, struct blockdev *dev,
			       const uint8_t *header, uint64_t replace_after,
			       char *err, size_t err_len);

#endif
