/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A fuzz input read as a script from the front: fuzz_take(s, n) gives
 * the next n bytes little-endian (0 past the end), so any input is a
 * valid program of steps and a shorter one is a prefix of it.
 */
#ifndef TESTS_FUZZ_FUZZ_SCRIPT_H
#define TESTS_FUZZ_FUZZ_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_script {
	const uint8_t *p;
	size_t left;
};

static inline uint64_t fuzz_take(struct fuzz_script *s, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes && s->left; i++, s->left--)
		v |= (uint64_t)*s->p++ << (8 * i);
	return v;
}

#endif
