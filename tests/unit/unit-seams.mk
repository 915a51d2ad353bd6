# SPDX-License-Identifier: BSD-2-Clause
# The seams between the layers (tests/unit/unit.mk includes this fragment):
# the paging daemon's I/O queues, the EPT shootdown handshake, the counter
# registry, the ticket lock and the EPT-violation qualification rules.
UNIT_TESTS += test_swap_io_queue test_ept_shootdown test_counters \
	test_spinlock test_ept_qualification
unit_srcs_test_swap_io_queue := swap/swap_io_queue.c lib/string.c
unit_srcs_test_ept_shootdown := ept/ept_shootdown.c
unit_srcs_test_counters := lib/counters.c
unit_srcs_test_spinlock :=
unit_srcs_test_ept_qualification :=
