# SPDX-License-Identifier: BSD-2-Clause
#
# The NBD protocol core of the swap-over-network client
# (swap/drivers/nbd_proto.c): handshake, request headers and the reply
# parser against server byte streams built by the test
# (tests/unit/unit.mk includes this).

UNIT_TESTS += test_nbd_proto
unit_srcs_test_nbd_proto := swap/drivers/nbd_proto.c lib/format.c
