/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/errors.h: HV_OK is 0 (so "if (err)" means "failed"), every error has
 * words of its own for a console line, and a value outside the list gets
 * words too rather than a NULL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/errors.h"

static void ok_is_zero(void **state)
{
	(void)state;
	assert_int_equal(HV_OK, 0);
	assert_true(HV_ERR_NOMEM != HV_OK);
	assert_string_equal(hv_err_name(HV_OK), "no error");
}

static void names_are_the_words_of_each_error(void **state)
{
	(void)state;
	assert_string_equal(hv_err_name(HV_ERR_NOMEM), "out of memory");
	assert_string_equal(hv_err_name(HV_ERR_INVALID), "invalid argument");
	assert_string_equal(hv_err_name(HV_ERR_EXISTS), "already present");
	assert_string_equal(hv_err_name(HV_ERR_NOT_FOUND), "not found");
	assert_string_equal(hv_err_name(HV_ERR_CONFLICT),
			    "another mapping in the way");
	assert_string_equal(hv_err_name(HV_ERR_BUSY), "busy, try again");
	assert_string_equal(hv_err_name(HV_ERR_IO), "I/O error");
	assert_string_equal(hv_err_name(HV_ERR_TIMEOUT), "timed out");
	assert_string_equal(hv_err_name(HV_ERR_UNSUPPORTED), "not supported");
	assert_string_equal(hv_err_name(HV_ERR_DEVICE), "device fault");
	assert_string_equal(hv_err_name(HV_ERR_BAD_FORMAT), "bad format");
}

/* Two errors with the same words could not be told apart in a log. */
static void every_error_has_distinct_words(void **state)
{
	(void)state;
	for (int a = HV_OK; a < HV_ERR_COUNT; a++) {
		const char *wa = hv_err_name((enum hv_err)a);

		assert_non_null(wa);
		assert_true(strlen(wa) > 0);
		assert_string_not_equal(wa, "unknown error");
		for (int b = a + 1; b < HV_ERR_COUNT; b++)
			assert_string_not_equal(wa,
						hv_err_name((enum hv_err)b));
	}
}

static void out_of_range_is_unknown(void **state)
{
	(void)state;
	assert_string_equal(hv_err_name(HV_ERR_COUNT), "unknown error");
	assert_string_equal(hv_err_name((enum hv_err)-1), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ok_is_zero),
		cmocka_unit_test(names_are_the_words_of_each_error),
		cmocka_unit_test(every_error_has_distinct_words),
		cmocka_unit_test(out_of_range_is_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
