/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CHECK(c): a parser's promise the fuzz targets assert beyond the
 * sanitizers' checks; a broken one aborts, so libFuzzer keeps the input.
 */
#ifndef TESTS_FUZZ_FUZZ_CHECK_H
#define TESTS_FUZZ_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                        \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr, "broken promise: %s\n", #c);    \
			abort();                                        \
		}                                                       \
	} while (0)

#endif
