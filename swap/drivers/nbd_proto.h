/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Network Block Device protocol of the swap-over-network client, as
 * plain C without I/O: bytes from the server in, bytes to send out. The
 * TCP connection and the blockdev driver are the caller's. Section names
 * are those of the NBD protocol (NetworkBlockDevice/nbd, doc/proto.md);
 * every number on the wire is big-endian.
 *
 * Two parts, one per phase of a connection:
 *
 *  - The handshake, client side, fixed newstyle only: a streaming state
 *    machine fed the server's bytes in any split (one at a time works).
 *    On the greeting it answers our client flags and one NBD_OPT_GO for
 *    the export, asking for NBD_INFO_EXPORT and NBD_INFO_BLOCK_SIZE; the
 *    server's NBD_REP_INFO replies give the size and the transmission
 *    flags, its NBD_REP_ACK ends the handshake. An export swap cannot use
 *    (empty, not whole pages, read-only, block sizes that forbid one page
 *    per request) fails the handshake like a refusal does.
 *
 *  - The transmission phase: requests are encoded into 28 bytes (a
 *    write's page follows them on the wire, sent by the caller), and a
 *    streaming parser takes the server's simple replies. The parser owns
 *    no request table: for each reply it asks the caller's lookup
 *    whether the cookie is in flight and where a read's data goes, copies
 *    the data straight there as it arrives, and then reports the request
 *    complete. We never negotiate structured replies, so their magic is
 *    a protocol violation like any other wrong magic.
 *
 * Nothing the server sends is trusted. Every length it sends is bounded
 * before it is used, nothing is allocated, and a violation fails the
 * connection with one line (in the caller's reason buffer) that says
 * what the server did; the caller then drops the connection. A failed
 * handshake or parser takes no more bytes.
 */
#ifndef SWAP_DRIVERS_NBD_PROTO_H
#define SWAP_DRIVERS_NBD_PROTO_H

#include "lib/counters.h"
#include "lib/types.h"
#include "swap/blockdev.h"

/* Magic numbers ("Newstyle negotiation", "Transmission"). */
#define NBD_MAGIC                   0x4e42444d41474943ull   /* NBDMAGIC */
#define NBD_IHAVEOPT                0x49484156454F5054ull   /* IHAVEOPT */
#define NBD_OLDSTYLE_MAGIC          0x00420281861253ull     /* cliserv_magic */
#define NBD_OPT_REPLY_MAGIC         0x3e889045565a9ull
#define NBD_REQUEST_MAGIC           0x25609513u
#define NBD_SIMPLE_REPLY_MAGIC      0x67446698u
#define NBD_STRUCTURED_REPLY_MAGIC  0x668e33efu

/* Handshake flags (server) and client flags ("Flag fields"). */
#define NBD_FLAG_FIXED_NEWSTYLE     (1u << 0)
#define NBD_FLAG_NO_ZEROES          (1u << 1)
#define NBD_FLAG_C_FIXED_NEWSTYLE   (1u << 0)
#define NBD_FLAG_C_NO_ZEROES        (1u << 1)

/* Transmission flags. */
#define NBD_FLAG_HAS_FLAGS          (1u << 0)
#define NBD_FLAG_READ_ONLY          (1u << 1)
#define NBD_FLAG_SEND_FLUSH         (1u << 2)
#define NBD_FLAG_SEND_FUA           (1u << 3)

/* Options, option replies and information types ("Option types"). */
#define NBD_OPT_GO                  7u
#define NBD_REP_ACK                 1u
#define NBD_REP_INFO                3u
#define NBD_REP_FLAG_ERROR          (1u << 31)
#define NBD_INFO_EXPORT             0u
#define NBD_INFO_BLOCK_SIZE         3u
#define NBD_INFO_EXPORT_LEN         12u     /* type, size, flags */
#define NBD_INFO_BLOCK_SIZE_LEN     14u     /* type, min, preferred, max */

/* Request types ("Request types") and command flags. */
enum nbd_cmd {
	NBD_CMD_READ = 0,
	NBD_CMD_WRITE = 1,
	NBD_CMD_DISC = 2,
	NBD_CMD_FLUSH = 3,
};
#define NBD_CMD_FLAG_FUA            (1u << 0)

/*
 * The error values of a reply ("Error values"), each declared once:
 * X(name, value, counter field). Anything else counts as "other"; every
 * non-zero value fails the request.
 */
#define NBD_ERROR_VALUES(X)             \
	X(NBD_EPERM, 1, eperm)          \
	X(NBD_EIO, 5, eio)              \
	X(NBD_ENOMEM, 12, enomem)       \
	X(NBD_EINVAL, 22, einval)       \
	X(NBD_ENOSPC, 28, enospc)       \
	X(NBD_EOVERFLOW, 75, eoverflow) \
	X(NBD_ENOTSUP, 95, enotsup)     \
	X(NBD_ESHUTDOWN, 108, eshutdown)

enum nbd_error {
#define NBD_ERROR_ENUM(name, value, field) name = value,
	NBD_ERROR_VALUES(NBD_ERROR_ENUM)
#undef NBD_ERROR_ENUM
};

#define NBD_EXPORT_NAME_MAX     255     /* bytes; ours, the spec says 4096 */
#define NBD_OPT_REPLY_MAX       4096    /* an option reply's data, at most */
#define NBD_BLOCK               4096u   /* what swap reads and writes */

/* A reason buffer that holds every reason whole (but a long name's). */
#define NBD_REASON_SIZE         256

/* Bytes of an option reply kept for parsing (the rest is skipped). */
#define NBD_REPLY_KEEP          128

/*
 * The most the handshake ever asks to send at once: client flags (4),
 * then NBD_OPT_GO: IHAVEOPT (8), option (4), length (4), name length
 * (4), the name, the number of information requests (2), two requests.
 */
#define NBD_HANDSHAKE_OUT_MAX \
	(4 + 8 + 4 + 4 + 4 + NBD_EXPORT_NAME_MAX + 2 + 2 * 2)

enum nbd_progress {
	NBD_IN_PROGRESS,        /* feed it more of the server's bytes */
	NBD_DONE,               /* the export is ready: see struct nbd_export */
	NBD_FAILED,             /* the reason is in the caller's buffer */
};

/* What the handshake learnt of the export; valid once NBD_DONE. */
struct nbd_export {
	uint64_t size;                  /* bytes, a non-zero multiple of 4096 */
	uint16_t flags;                 /* transmission flags, as sent */
	bool can_flush;                 /* NBD_FLAG_SEND_FLUSH */
	bool can_fua;                   /* NBD_FLAG_SEND_FUA */
	/* NBD_INFO_BLOCK_SIZE, when the server sent it; else all 0. */
	uint32_t min_block, preferred_block, max_block;
};

/* The handshake of one connection. The fields are nbd_proto.c's. */
struct nbd_handshake {
	char name[NBD_EXPORT_NAME_MAX + 1];     /* the export asked for */
	uint32_t name_len;
	char *reason;                           /* the caller's buffer */
	size_t reason_size;
	enum nbd_progress progress;
	unsigned step;                          /* what is being read */
	uint32_t want, have;                    /* bytes of buf */
	uint8_t buf[NBD_REPLY_KEEP];
	uint32_t reply_type, reply_len, reply_left;
	bool seen_export;
	struct nbd_export export;
};

/*
 * Starts the handshake of a new connection for the export `name` (at
 * most NBD_EXPORT_NAME_MAX bytes, no control characters; "" is the
 * server's default export). Reasons go to reason[reason_size] (at least
 * 1 byte; NBD_REASON_SIZE for whole ones), which must outlive the
 * handshake. False (with
 * the reason, and the handshake failed) when the name is not valid.
 */
bool nbd_handshake_init(struct nbd_handshake *hs, const char *name,
			char *reason, size_t reason_size);

/*
 * Feeds the next len bytes the server sent. *used is set to how many of
 * them the handshake took: all of them while NBD_IN_PROGRESS; on NBD_DONE
 * the rest (if any) already belong to the transmission phase. Bytes to
 * send to the server, in this order, are written to out (room for at
 * least NBD_HANDSHAKE_OUT_MAX bytes) and counted in *out_len; send them
 * before waiting for more. Once done or failed, feeding takes nothing
 * and returns the same result.
 */
enum nbd_progress nbd_handshake_feed(struct nbd_handshake *hs,
				     const uint8_t *in, size_t len,
				     size_t *used, uint8_t *out,
				     size_t out_cap, size_t *out_len);

/* ----------------------------------------------------- transmission */

#define NBD_REQUEST_SIZE        28
#define NBD_SIMPLE_REPLY_SIZE   16

struct nbd_request {
	enum nbd_cmd type;
	uint16_t flags;                 /* NBD_CMD_FLAG_* */
	uint64_t cookie;                /* comes back in the reply */
	uint64_t offset;                /* bytes; 0 for DISC and FLUSH */
	uint32_t length;                /* bytes; 0 for DISC and FLUSH */
};

/*
 * The 28-byte request header ("Request message"); a write's length bytes
 * of data follow it on the wire. DISC has no reply.
 */
void nbd_encode_request(uint8_t out[NBD_REQUEST_SIZE],
			const struct nbd_request *req);

/* What the caller's lookup says of a request in flight. */
struct nbd_inflight {
	bool is_read;
	/*
	 * A read's destination, length bytes (NBD_BLOCK for swap's pages).
	 * It must stay valid, and the request in flight, until complete.
	 */
	uint8_t *dest;
	uint32_t length;
};

struct nbd_reply_ops {
	/*
	 * Is cookie in flight? If so fill *req and return true. Asked once
	 * per reply, when its header has arrived.
	 */
	bool (*lookup)(void *ctx, uint64_t cookie, struct nbd_inflight *req);
	/*
	 * The reply to cookie has arrived in full (a read's data is in its
	 * destination): BLK_OK when the server's error was 0, else
	 * BLK_IO_ERROR, with the server's value in nbd_error. From here on
	 * the request is no longer in flight: the caller's lookup must say
	 * so for a second reply with the same cookie.
	 */
	void (*complete)(void *ctx, uint64_t cookie, enum blk_status status,
			 uint32_t nbd_error);
};

/* Why a parser failed. */
enum nbd_violation {
	NBD_VIOLATION_NONE,
	NBD_VIOLATION_BAD_MAGIC,        /* not a simple reply */
	NBD_VIOLATION_STRUCTURED,       /* a structured reply: never asked */
	NBD_VIOLATION_UNKNOWN_COOKIE,   /* a reply to nothing in flight */
};

/* The replies' counters, declared once (lib/counters.h). */
#define NBD_STAT_FIELD(name, value, field) uint64_t field;
struct nbd_reply_stats {
	uint64_t ok;
	NBD_ERROR_VALUES(NBD_STAT_FIELD)
	uint64_t other_error;
};

/* "nbd.reply.ok", "nbd.reply.eio", ... over struct nbd_reply_stats. */
extern const struct counter_def nbd_reply_counter_defs[];
extern const unsigned nbd_reply_counter_count;

/* The reply stream of one connection. The fields are nbd_proto.c's. */
struct nbd_reply_parser {
	const struct nbd_reply_ops *ops;
	void *ctx;
	char *reason;                   /* the caller's buffer */
	size_t reason_size;
	enum nbd_violation violation;   /* NONE while the stream is sound */
	uint8_t header[NBD_SIMPLE_REPLY_SIZE];
	uint32_t have;                  /* bytes of header */
	/* The read whose data is arriving (data_left > 0). */
	uint64_t cookie;
	uint8_t *dest;
	uint32_t data_len, data_left;
	/*
	 * The server said NBD_ESHUTDOWN: it is going away. The client must
	 * send no new requests, and NBD_CMD_DISC once none is in flight.
	 */
	bool server_shutting_down;
	struct nbd_reply_stats stats;
};

/* Starts the parser of a connection; reasons go to reason[reason_size]. */
void nbd_reply_init(struct nbd_reply_parser *p,
		    const struct nbd_reply_ops *ops, void *ctx, char *reason,
		    size_t reason_size);

/*
 * Feeds the next len bytes the server sent in the transmission phase,
 * completing each request whose reply is whole. True while the stream
 * is sound; false (the reason in the caller's buffer, p->violation says
 * which) at the first violation, after which it takes no more bytes.
 * Requests completed before the violation stay completed; the others
 * are the caller's to fail when it drops the connection.
 */
bool nbd_reply_feed(struct nbd_reply_parser *p, const uint8_t *in,
		    size_t len);

/* "NBD_EIO" and so on; "an unknown NBD error" for other values. */
const char *nbd_error_name(uint32_t nbd_error);

#endif
