# SPDX-License-Identifier: BSD-2-Clause
#
# Swap fault injection (swap/drivers/blockdev_faults.c) over a fake block device
# (tests/unit/unit.mk includes this fragment).

UNIT_TESTS += test_blockdev_faults
unit_srcs_test_blockdev_faults := swap/drivers/blockdev_faults.c lib/format.c \
	lib/string.c
