# SPDX-License-Identifier: BSD-2-Clause
#
# The e1000 descriptor rings (net/drivers/e1000_ring.c) with the input as
# the device (tests/fuzz/fuzz.mk includes this).

FUZZ_TARGETS += fuzz_e1000_ring
fuzz_srcs_fuzz_e1000_ring := net/drivers/e1000_ring.c
