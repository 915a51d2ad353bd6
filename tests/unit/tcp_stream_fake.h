/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * net/tcp_stream.h and net_poll/net_format_ip of net/net_stack.h for host
 * unit tests of the NBD client (swap/drivers/nbd.c), with an NBD server
 * at the other end of every stream, played in memory
 * (tests/unit/tcp_stream_fake.c). The server speaks the protocol from
 * its own layouts (NetworkBlockDevice/nbd, doc/proto.md), not through
 * swap/drivers/nbd_proto.c: it answers the fixed newstyle greeting and
 * NBD_OPT_GO with real bytes, checks every byte the client sends (a
 * client that breaks the protocol fails the test), and answers READ and
 * WRITE by cookie from an image of FAKE_NBD_PAGES pages.
 *
 * Time: the TSC runs at 1 GHz (tsc_hz) and moves only when the test
 * advances it (fake_clock_advance_ms), plus one tick per rdtsc() call
 * so that every bounded wait of the driver ends. Network: what the
 * server sends in one net_poll() becomes readable at the next one, so
 * the client sees each reply one poll after its request went out, and a
 * connection the server closes ends one poll after its last bytes.
 *
 * Misbehaviour is armed by the test; each kind fires once, then the
 * server is sound again (the next connection is served normally).
 */
#ifndef TESTS_UNIT_TCP_STREAM_FAKE_H
#define TESTS_UNIT_TCP_STREAM_FAKE_H

#include "lib/types.h"

#define FAKE_NBD_PAGES          64
#define FAKE_NBD_PAGE           4096u
#define FAKE_NBD_MAX_CONNS      64      /* connections logged */
#define FAKE_NBD_LOG_REQUESTS   128     /* requests logged per connection */
/* The send buffer lwIP gives the client (net/lwip_port: TCP_SND_BUF). */
#define FAKE_SEND_ROOM_DEFAULT  (128 * 1024)

/* The export's contents, as the server holds them. */
extern uint8_t fake_nbd_image[FAKE_NBD_PAGES][FAKE_NBD_PAGE];

/* One connection as the server saw it. */
struct fake_conn_log {
	uint64_t opened_ms;             /* the connect call, on the fake clock */
	bool refused;                   /* reset at once (fake_nbd_refuse) */
	bool handshake_done;
	unsigned requests;              /* READ and WRITE received */
	uint64_t cookie[FAKE_NBD_LOG_REQUESTS];
	uint64_t offset[FAKE_NBD_LOG_REQUESTS];
	bool is_write[FAKE_NBD_LOG_REQUESTS];
};

struct fake_nbd_stats {
	unsigned connects;              /* tcp_stream_connect calls */
	unsigned aborts;                /* tcp_stream_abort calls */
	unsigned replies;               /* simple replies sent, any kind */
	unsigned flushes;               /* NBD_CMD_FLUSH received (answered) */
	uint64_t wrong_cookie;          /* the cookie never sent, once sent */
	struct fake_conn_log conn[FAKE_NBD_MAX_CONNS];  /* [0] is the first */
};

extern struct fake_nbd_stats fake_nbd;

/* A new server (zeroed image, nothing armed), no stream, the clock at 0. */
void fake_net_reset(void);

/* The fake TSC. */
void fake_clock_advance_ms(uint64_t ms);
uint64_t fake_clock_ms(void);
/* Ticks net_poll() adds on every call (0 by default). */
void fake_clock_per_poll_ns(uint64_t ns);

/* --------------------------------------------------- what the server is */

/* The export's name the server has ("swap" after fake_net_reset). */
void fake_nbd_export_name(const char *name);
/* Pages the export has from the next handshake on (<= FAKE_NBD_PAGES). */
void fake_nbd_export_pages(unsigned pages);
/* The client's send buffer (FAKE_SEND_ROOM_DEFAULT after reset). */
void fake_send_room(size_t bytes);
/*
 * Bytes of what the server has not taken yet that count as on the wire
 * (FAKE_SEND_ROOM_DEFAULT after reset); the rest is unsent
 * (tcp_stream_unsent): 0 holds every byte until the server's next poll.
 */
void fake_window(size_t bytes);
/* Answer each poll's requests last first (by cookie, not by order). */
void fake_nbd_reverse(bool on);

/* ------------------------------------------------------ misbehaviour */

/* New connections are reset at once while on. */
void fake_nbd_refuse(bool on);
/* Sends nothing (no greeting, no reply) while on; takes what comes. */
void fake_nbd_silent(bool on);
/*
 * Answers the handshake but no request while on (a server whose disk
 * hangs); takes what comes.
 */
void fake_nbd_hung(bool on);
/* The open connection is closed now, after what was already sent. */
void fake_nbd_close_now(void);
/* After n more replies, closes the connection instead of the next one. */
void fake_nbd_drop_after(unsigned n);
/* After n more replies, answers one request with a cookie never sent. */
void fake_nbd_wrong_cookie_after(unsigned n);
/*
 * After n more replies, answers the next READ with its header and only
 * `bytes` bytes of its data, then closes the connection.
 */
void fake_nbd_short_read_after(unsigned n, unsigned bytes);
/* The next request is answered with this NBD error (and no data). */
void fake_nbd_error_next(uint32_t nbd_error);

/* Streams not yet freed by tcp_stream_abort. */
unsigned fake_streams_in_use(void);

#endif
