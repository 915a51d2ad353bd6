// SPDX-License-Identifier: BSD-2-Clause
/*
 * TCP byte streams over lwIP's raw API (net/tcp_stream.h). lwIP calls
 * back from net_poll: connected, data received (kept as its pbuf chain
 * until read), data acknowledged (nothing to do: the send buffer's room
 * is asked for again), error (lwIP has already freed the connection).
 */
#include "net/tcp_stream.h"
#include "lib/string.h"
#include "lwip/tcp.h"

struct tcp_stream {
	bool in_use;
	enum tcp_stream_state state;
	const char *why;
	struct tcp_pcb *pcb;    /* NULL once lwIP freed it */
	struct pbuf *rx;        /* received, not yet read */
	u16_t rx_off;           /* bytes of rx's first pbuf already read */
};

static struct tcp_stream streams[TCP_STREAM_MAX];

static void end(struct tcp_stream *s, const char *why)
{
	if (s->state != TCP_STREAM_ENDED) {
		s->state = TCP_STREAM_ENDED;
		s->why = why;
	}
}

static const char *error_words(err_t err)
{
	switch (err) {
	case ERR_RST:
		return "the server refused or reset the connection";
	case ERR_ABRT:
		return "the server stopped answering (lwIP gave up)";
	case ERR_CLSD:
		return "the connection was closed";
	case ERR_MEM:
		return "out of network buffers";
	default:
		return "the connection failed";
	}
}

static void on_error(void *arg, err_t err)
{
	struct tcp_stream *s = arg;

	s->pcb = NULL;          /* lwIP freed it before calling */
	end(s, error_words(err));
}

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	struct tcp_stream *s = arg;

	if (err != ERR_OK) {
		end(s, error_words(err));
		return err;
	}
	s->state = TCP_STREAM_OPEN;
	return ERR_OK;
}

static err_t on_received(void *arg, struct tcp_pcb *pcb, struct pbuf *p,
			 err_t err)
{
	struct tcp_stream *s = arg;

	if (!p) {
		end(s, "the server closed the connection");
		return ERR_OK;
	}
	if (err != ERR_OK) {
		pbuf_free(p);
		return err;
	}
	if (s->rx)
		pbuf_cat(s->rx, p);
	else
		s->rx = p;
	return ERR_OK;
}

struct tcp_stream *tcp_stream_connect(uint32_t ip, uint16_t port,
				      const char **why)
{
	struct tcp_stream *s = NULL;
	ip_addr_t addr;

	for (unsigned i = 0; i < TCP_STREAM_MAX && !s; i++)
		if (!streams[i].in_use)
			s = &streams[i];
	if (!s) {
		*why = "every TCP stream is in use";
		return NULL;
	}
	*s = (struct tcp_stream){ .in_use = true,
				  .state = TCP_STREAM_CONNECTING };
	s->pcb = tcp_new();
	if (!s->pcb) {
		s->in_use = false;
		*why = "lwIP has no free TCP connection";
		return NULL;
	}
	tcp_arg(s->pcb, s);
	tcp_err(s->pcb, on_error);
	tcp_recv(s->pcb, on_received);
	tcp_nagle_disable(s->pcb);
	ip_addr_set_ip4_u32(&addr, lwip_htonl(ip));
	if (tcp_connect(s->pcb, &addr, port, on_connected) != ERR_OK) {
		tcp_abort(s->pcb);
		s->in_use = false;
		*why = "lwIP could not start the connection (no route?)";
		return NULL;
	}
	return s;
}

enum tcp_stream_state tcp_stream_state(const struct tcp_stream *s)
{
	return s->state;
}

const char *tcp_stream_why(const struct tcp_stream *s)
{
	return s->why ? s->why : "";
}

size_t tcp_stream_write_room(const struct tcp_stream *s)
{
	if (s->state != TCP_STREAM_OPEN || !s->pcb)
		return 0;
	/* Each write may take a queue entry per segment: keep a margin. */
	if (tcp_sndqueuelen(s->pcb) + 4 >= TCP_SND_QUEUELEN)
		return 0;
	return tcp_sndbuf(s->pcb);
}

size_t tcp_stream_write(struct tcp_stream *s, const void *buf, size_t len)
{
	size_t n = MIN(len, tcp_stream_write_room(s));

	if (n > 0xffff)
		n = 0xffff;
	if (!n)
		return 0;
	if (tcp_write(s->pcb, buf, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
		return 0;
	return n;
}

void tcp_stream_push(struct tcp_stream *s)
{
	if (s->state == TCP_STREAM_OPEN && s->pcb)
		tcp_output(s->pcb);
}

size_t tcp_stream_unsent(const struct tcp_stream *s)
{
	if (!s->pcb)
		return 0;
	/* snd_lbb: the next byte to be buffered; snd_nxt: to be sent. */
	return (u32_t)(s->pcb->snd_lbb - s->pcb->snd_nxt);
}

size_t tcp_stream_read(struct tcp_stream *s, void *buf, size_t max)
{
	size_t done = 0;

	while (s->rx && done < max) {
		struct pbuf *p = s->rx;
		size_t n = MIN((size_t)(p->len - s->rx_off), max - done);

		memcpy((uint8_t *)buf + done, (uint8_t *)p->payload + s->rx_off,
		       n);
		done += n;
		s->rx_off += (u16_t)n;
		if (s->rx_off == p->len) {
			/* Unlink the first pbuf of the chain and free it. */
			s->rx = p->next;
			if (s->rx)
				pbuf_ref(s->rx);
			pbuf_free(p);
			s->rx_off = 0;
		}
	}
	/* The window opens by what the caller took out. */
	for (size_t left = done; left && s->pcb;) {
		u16_t n = (u16_t)MIN(left, 0xffffu);

		tcp_recved(s->pcb, n);
		left -= n;
	}
	return done;
}

void tcp_stream_abort(struct tcp_stream *s)
{
	if (s->pcb) {
		tcp_arg(s->pcb, NULL);
		tcp_err(s->pcb, NULL);
		tcp_recv(s->pcb, NULL);
		tcp_abort(s->pcb);
		s->pcb = NULL;
	}
	if (s->rx)
		pbuf_free(s->rx);
	*s = (struct tcp_stream){ 0 };
}
