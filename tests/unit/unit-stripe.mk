# SPDX-License-Identifier: BSD-2-Clause
#
# One swap device over several (swap/blockdev_stripe.c: striping, copies,
# members away and back, re-replication) over fake in-memory members.

UNIT_TESTS += test_blockdev_stripe
unit_srcs_test_blockdev_stripe := swap/blockdev_stripe.c swap/swap_format.c \
	lib/counters.c lib/format.c lib/string.c tests/unit/console_capture.c
