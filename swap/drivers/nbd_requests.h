/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the NBD client, not for other callers: the device that
 * swap/drivers/nbd.c (the connection's life) and
 * swap/drivers/nbd_requests.c (the request slots and the send queue)
 * both work on, what nbd_requests.c does for nbd.c, and the one thing
 * nbd.c does for it (a reply ends an outage).
 */
#ifndef SWAP_DRIVERS_NBD_REQUESTS_H
#define SWAP_DRIVERS_NBD_REQUESTS_H

#include "lib/counters.h"
#include "net/tcp_stream.h"
#include "swap/drivers/nbd.h"
#include "swap/drivers/nbd_proto.h"

#define NBD_REASON_LEN 160
#define NBD_READ_CHUNK 4096

enum conn_state {
	CONN_DOWN,              /* waiting for the back-off to end */
	CONN_CONNECTING,
	CONN_HANDSHAKE,
	CONN_READY,
	CONN_REFUSED,           /* the server broke the protocol: not again */
};

enum slot_state {
	SLOT_FREE,
	SLOT_QUEUED,            /* in the send queue (maybe partly sent) */
	SLOT_ON_WIRE,           /* sent whole, its reply awaited */
};

struct nbd_slot {
	enum slot_state state;
	bool flush;             /* our own NBD_CMD_FLUSH, not the caller's */
	struct blk_request req;
	uint64_t cookie;
	uint8_t header[NBD_REQUEST_SIZE];
};

#define NBD_COUNTERS(X) \
	X(struct nbd_counters, connects, "nbd.connects") \
	X(struct nbd_counters, connections_lost, "nbd.connections_lost") \
	X(struct nbd_counters, protocol_errors, "nbd.protocol_errors") \
	X(struct nbd_counters, requests_resent, "nbd.requests_resent") \
	X(struct nbd_counters, requests_given_up, "nbd.requests_given_up") \
	X(struct nbd_counters, requests_failed_fast, "nbd.requests_failed_fast") \
	X(struct nbd_counters, flushes, "nbd.flushes") \
	X(struct nbd_counters, flush_errors, "nbd.flush_errors") \
	X(struct nbd_counters, bytes_sent, "nbd.bytes_sent") \
	X(struct nbd_counters, bytes_received, "nbd.bytes_received") \
	X(struct nbd_counters, reads_ahead_of_writes, "nbd.reads_ahead_of_writes")

struct nbd_counters {
	NBD_COUNTERS(COUNTER_FIELD)
};

struct nbd_dev {
	struct blockdev bdev;
	char name[48];                  /* "nbd 10.0.2.2:10809/swap" */
	char export_name[NBD_EXPORT_NAME_MAX + 1];
	uint32_t ip;
	uint16_t port;
	uint64_t give_up_ticks;

	enum conn_state state;
	struct tcp_stream *stream;
	uint64_t state_since;           /* TSC when the state began */
	/*
	 * TSC of the last byte received, or of the moment a request went
	 * out while none was awaited: silence counts from the later.
	 */
	uint64_t last_byte;
	/*
	 * TSC the outage began; 0: none. It ends when the server answers
	 * on a new connection (at its handshake if nothing is resent).
	 */
	uint64_t down_since;
	uint64_t retry_at;
	unsigned backoff_ms;
	unsigned resent;                /* sent again on this connection */
	unsigned writes_unflushed;      /* written since the last flush */
	uint64_t last_write;            /* TSC the last write completed */
	bool gave_up;                   /* this outage failed its requests */
	bool opened;                    /* nbd_open has returned the device */
	uint64_t size;                  /* the export's, from the first handshake */

	struct nbd_handshake hs;
	struct nbd_reply_parser parser;
	struct nbd_reply_stats reply_stats;     /* of the connections before */
	char reason[NBD_REASON_LEN];

	struct nbd_slot slot[NBD_QUEUE_DEPTH];
	uint64_t next_cookie;
	/* The send queue: slot indexes in the order they go out. */
	uint8_t sendq[NBD_QUEUE_DEPTH];
	unsigned send_head, send_count;
	uint32_t sent;                  /* bytes of the head already sent */
	/* Completions not yet handed to poll's caller. */
	struct blk_completion done[NBD_QUEUE_DEPTH];
	unsigned done_head, done_count;

	struct nbd_counters counters;
	uint8_t rx[NBD_READ_CHUNK];
	uint8_t hs_out[NBD_HANDSHAKE_OUT_MAX];
};

/* ------------------------------------------- in swap/drivers/nbd_requests.c */

/*
 * The reply parser's callbacks (nbd_reply_init's ops, the device as
 * ctx): a reply finds the request on the wire by its cookie and
 * completes it.
 */
extern const struct nbd_reply_ops nbd_slot_reply_ops;

/* blockdev_ops.submit: the request takes a free slot and joins the
 * send queue (sent at once on a ready connection). */
enum hv_err nbd_submit(struct blockdev *dev, const struct blk_request *req);

/* Hands out up to max completions not yet collected, oldest first. */
unsigned nbd_take_completions(struct nbd_dev *nd, struct blk_completion *out,
			      unsigned max);

/* Sends what the send buffer takes, whole requests first in line. */
void nbd_pump_send(struct nbd_dev *nd);

/* Our own NBD_CMD_FLUSH, in slot 0 (every slot is free), sent now. */
void nbd_send_flush(struct nbd_dev *nd);

/*
 * After a connection is lost: every request that was on it or waiting
 * goes out again, from its first byte: the reads first, then the rest,
 * each oldest cookie first.
 */
void nbd_requeue_all(struct nbd_dev *nd);

/* Every request waiting or on the wire fails now. Returns how many. */
unsigned nbd_fail_all(struct nbd_dev *nd);

/* A request is on the wire, its reply awaited. */
bool nbd_any_on_wire(const struct nbd_dev *nd);

/* Slots not free: requests queued or on the wire. */
unsigned nbd_slots_in_use(const struct nbd_dev *nd);

/* ------------------------------------------------ in swap/drivers/nbd.c */

/* The server answers again (a reply came): the outage is over. */
void nbd_outage_over(struct nbd_dev *nd);

#endif
