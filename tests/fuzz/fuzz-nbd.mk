# SPDX-License-Identifier: BSD-2-Clause
#
# The NBD protocol core of the swap-over-network client
# (swap/drivers/nbd_proto.c) with the input as the server: the handshake
# and then the reply stream, in any chunks (tests/fuzz/fuzz.mk includes
# this; seeds: tests/fuzz/fuzz_nbd_proto.seeds).

FUZZ_TARGETS += fuzz_nbd_proto
fuzz_srcs_fuzz_nbd_proto := swap/drivers/nbd_proto.c lib/format.c
