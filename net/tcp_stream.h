/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A TCP connection as a byte stream for the code above the network (the
 * NBD client), over lwIP's raw API: connect, write what fits in the send
 * buffer, read what has arrived, abort. Nothing blocks: the caller polls
 * (net_poll) and looks again. Streams come from a fixed pool; a stream
 * that ends (the peer closed or reset it, or lwIP gave up on it) stays
 * readable for the bytes that came before, and says why it ended.
 */
#ifndef NET_TCP_STREAM_H
#define NET_TCP_STREAM_H

#include "lib/types.h"

#define TCP_STREAM_MAX 8

enum tcp_stream_state {
	TCP_STREAM_CONNECTING,
	TCP_STREAM_OPEN,
	TCP_STREAM_ENDED,       /* see tcp_stream_why() */
};

struct tcp_stream;

/*
 * Starts connecting to ip:port (host order). NULL, with *why set, when no
 * stream is free or the stack is not up.
 */
struct tcp_stream *tcp_stream_connect(uint32_t ip, uint16_t port,
				      const char **why);

enum tcp_stream_state tcp_stream_state(const struct tcp_stream *s);
/* Why an ENDED stream ended, in words ("the server reset the connection"). */
const char *tcp_stream_why(const struct tcp_stream *s);

/*
 * Queues up to len bytes (copied) and returns how many fit in the send
 * buffer: 0 when it is full or the stream is not open. tcp_stream_push
 * sends what was queued.
 */
size_t tcp_stream_write(struct tcp_stream *s, const void *buf, size_t len);
/* Bytes tcp_stream_write would take now. */
size_t tcp_stream_write_room(const struct tcp_stream *s);
void tcp_stream_push(struct tcp_stream *s);
/*
 * Bytes written and not yet sent on the wire (held by the peer's window
 * or the congestion window): what the next write would queue behind.
 */
size_t tcp_stream_unsent(const struct tcp_stream *s);

/* Copies up to max received bytes out; returns how many (0: none yet). */
size_t tcp_stream_read(struct tcp_stream *s, void *buf, size_t max);

/* Resets the connection (if it is still there) and frees the stream. */
void tcp_stream_abort(struct tcp_stream *s);

#endif
