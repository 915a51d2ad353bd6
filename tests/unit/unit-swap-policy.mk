# SPDX-License-Identifier: BSD-2-Clause
# The swap engine's seams (tests/unit/unit.mk includes this fragment): the
# page-state machine (swap/page_state.c) and the policies of swap/policy/
# on their own, then behind the engine over a fake guest (swap_fake.c).
UNIT_TESTS += test_page_state test_clock_policy test_prefetch_policy \
	test_guest_policy
unit_srcs_test_page_state := swap/page_state.c
unit_srcs_test_clock_policy := swap/policy/clock_policy.c
unit_srcs_test_prefetch_policy := swap/policy/prefetch_policy.c
unit_srcs_test_guest_policy = $(unit_srcs_test_guest_swap) \
	tests/unit/swap_replay.c

# Seeded whole runs whose victims and counters must match the figures
# taken before the seams (tests/unit/swap_replay.c).
UNIT_TESTS += test_swap_replay
unit_srcs_test_swap_replay = $(unit_srcs_test_guest_swap) \
	tests/unit/swap_replay.c

# The policies of swap.policy on recorded access patterns (a loop larger
# than memory, a hot set with a cold sweep, uniform accesses).
UNIT_TESTS += test_eviction_policies
unit_srcs_test_eviction_policies = $(unit_srcs_test_guest_swap)

# The replay prefetch's fault list (swap.prefetch_trace).
UNIT_TESTS += test_fault_list
unit_srcs_test_fault_list := swap/policy/fault_list.c lib/format.c

# Pages through lz4 (Debian's source, fetched at build time: Makefile's
# LZ4_SRC), for the compressed swap tier. lz4.c is not our code: its
# warnings do not fail the build.
UNIT_TESTS += test_page_compress
unit_srcs_test_page_compress := swap/page_compress.c $(LZ4_SRC)

# The compressed tier alone and behind the engine.
UNIT_TESTS += test_compressed_tier
unit_srcs_test_compressed_tier = $(unit_srcs_test_guest_swap)
$(UNIT_OUT)/obj/swap/page_compress.o: UNIT_CFLAGS += -I$(LZ4_DIR)/lib
$(UNIT_OUT)/obj/swap/page_compress.o: | $(LZ4_SRC)
$(UNIT_OUT)/obj/$(LZ4_SRC:.c=.o): UNIT_CFLAGS += -w -Wno-error
