# SPDX-License-Identifier: BSD-2-Clause
# Guest pages under overcommit (swap/guest_memory.c, swap/guest_swap.c,
# swap/guest_discard.c, swap/guest_overwrite.c, swap/guest_io_done.c) and
# the swap-slot allocator,
# see tests/unit/unit.mk. test_guest_memory links
# the whole page-state module too, since faults and eviction share it.
UNIT_TESTS += test_swap_slots test_guest_swap test_guest_swap_io \
	test_guest_memory_model test_guest_swap_clock test_guest_swap_events \
	test_guest_discard test_guest_overwrite
unit_srcs_test_guest_memory += swap/guest_swap.c swap/guest_discard.c swap/guest_overwrite.c swap/guest_io_done.c swap/swap_slots.c lib/string.c \
	lib/console.c lib/format.c
unit_srcs_test_swap_slots := swap/swap_slots.c
unit_srcs_test_guest_swap := swap/guest_memory.c swap/guest_swap.c swap/guest_discard.c swap/guest_overwrite.c swap/guest_io_done.c \
	swap/swap_slots.c swap/frame_pool.c ept/ept.c lib/string.c \
	tests/unit/ept_fake.c tests/unit/swap_fake.c lib/console.c lib/format.c \
	$(UNIT_SWAP_POLICY_SRCS)
unit_srcs_test_guest_swap_io := $(unit_srcs_test_guest_swap)
unit_srcs_test_guest_swap_clock := $(unit_srcs_test_guest_swap)
unit_srcs_test_guest_swap_events := $(unit_srcs_test_guest_swap)
unit_srcs_test_guest_discard := $(unit_srcs_test_guest_swap)
unit_srcs_test_guest_overwrite := $(unit_srcs_test_guest_swap)
unit_srcs_test_guest_memory_model := $(unit_srcs_test_guest_swap) \
	tests/unit/guest_model_check.c
