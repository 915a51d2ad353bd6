# SPDX-License-Identifier: BSD-2-Clause
UNIT_TESTS += test_swap_format
unit_srcs_test_swap_format := swap/swap_format.c lib/format.c
