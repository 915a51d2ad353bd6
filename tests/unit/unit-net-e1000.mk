# SPDX-License-Identifier: BSD-2-Clause
#
# The e1000 descriptor rings (net/drivers/e1000_ring.c) against a fake
# 8254x working on the same rings (tests/unit/unit.mk includes this).

UNIT_TESTS += test_e1000_ring
unit_srcs_test_e1000_ring := net/drivers/e1000_ring.c lib/format.c \
	tests/unit/console_capture.c
