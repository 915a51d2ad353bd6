/* SPDX-License-Identifier: BSD-2-Clause */
/* How the config tests parse a text (test_config.c, test_config_swap.c). */
#ifndef TESTS_UNIT_CONFIG_PARSE_H
#define TESTS_UNIT_CONFIG_PARSE_H

#include "boot/config.h"

/*
 * Parses a copy of text in a heap buffer of exactly its length, without a
 * NUL, so that ASan catches any read past len.
 */
static int parse(const char *text, struct hv_config *cfg, char *err,
		 size_t err_len)
{
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, text, len);
	ret = config_parse(copy, len, cfg, err, err_len);
	free(copy);
	return ret;
}

static void parse_ok(const char *text, struct hv_config *cfg)
{
	char err[CONFIG_ERROR_MAX] = "";

	if (parse(text, cfg, err, sizeof(err)) != 0)
		fail_msg("unexpected error: %s", err);
}

static void parse_fails(const char *text, const char *want)
{
	struct hv_config cfg;
	char err[CONFIG_ERROR_MAX];

	memset(err, 'x', sizeof(err));
	assert_int_equal(parse(text, &cfg, err, sizeof(err)), -1);
	assert_string_equal(err, want);
}

#endif
