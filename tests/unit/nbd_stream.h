/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a server sends, as the NBD protocol lays it out (doc/proto.md of
 * NetworkBlockDevice/nbd): a byte stream that the tests of
 * swap/drivers/nbd_proto.c (test_nbd_handshake.c, test_nbd_transmission.c)
 * build with big-endian fields and feed to the client.
 */
#ifndef TESTS_UNIT_NBD_STREAM_H
#define TESTS_UNIT_NBD_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct stream {
	uint8_t b[16384];
	size_t n;
};

static inline void put_be(struct stream *s, unsigned bytes, uint64_t v)
{
	for (unsigned i = 0; i < bytes; i++)
		s->b[s->n + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
	s->n += bytes;
}

static inline void put_zeroes(struct stream *s, size_t n)
{
	memset(s->b + s->n, 0, n);
	s->n += n;
}

static inline void put_bytes(struct stream *s, const void *p, size_t n)
{
	if (n)
		memcpy(s->b + s->n, p, n);
	s->n += n;
}

#endif
