# SPDX-License-Identifier: BSD-2-Clause
#
# Host unit tests (cmocka, AddressSanitizer, UndefinedBehaviorSanitizer).
# Included by the top-level Makefile, which runs make from the repository
# root: every path here is relative to it, every output goes under
# build/unit/. Everything is named UNIT_* / unit_* / unit-* so as not to
# collide with the hypervisor's own freestanding build.
#
#   make unit-binaries      builds build/unit/test_*
#   tests/unit/run          runs them
#
# A test is added by naming it in UNIT_TESTS and listing in
# unit_srcs_<name> the project sources it links (nothing else is linked, so
# each test only depends on the code it exercises).

UNIT_CC ?= $(CC)
UNIT_OUT := build/unit
UNIT_CFLAGS := -std=gnu11 -DAPF_HOSTED -I. \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-g -O1 -Wall -Wextra -Werror
UNIT_LDLIBS := -lcmocka

UNIT_TESTS := test_config test_config_swap test_format test_ept test_ept_model \
	test_frame_pool test_page_alloc test_string test_guest_memory \
	test_uart test_cpuid test_acpi test_vmx_controls test_xsave_probe \
	test_xcr0 test_register_rules test_guest_ram

unit_srcs_test_config := boot/config.c boot/config_values.c \
	guest/loaders/image_format.c lib/format.c lib/string.c
unit_srcs_test_config_swap := $(unit_srcs_test_config)
# The value parsers alone (sizes, durations, addresses, NBD servers, ...).
UNIT_TESTS += test_config_values
unit_srcs_test_config_values := boot/config_values.c
unit_srcs_test_format := lib/format.c
# Log2 latency histograms and the counters they report.
UNIT_TESTS += test_latency_hist
unit_srcs_test_latency_hist := lib/latency_hist.c lib/format.c lib/string.c
# lib/guest_ram.c, the layout under test, is linked by every test.
unit_srcs_test_guest_ram :=
unit_srcs_test_ept := ept/ept.c tests/unit/ept_fake.c
unit_srcs_test_ept_model := ept/ept.c tests/unit/ept_fake.c
unit_srcs_test_frame_pool := swap/frame_pool.c
unit_srcs_test_page_alloc := lib/page_alloc.c lib/string.c
# What every test of swap/guest_memory.c links with it: the page-state
# machine, the policies behind their seams (swap/policy/) and the
# counters it reports (swap/guest_memory_stats.c).
UNIT_SWAP_POLICY_SRCS := swap/page_state.c swap/guest_policy.c \
	swap/policy/clock_policy.c swap/policy/prefetch_policy.c \
	swap/policy/fifo_policy.c swap/policy/random_policy.c \
	swap/policy/aging_policy.c swap/policy/fault_list.c swap/swap_policies.c \
	swap/compressed_tier.c swap/page_compress.c swap/swap_format.c \
	swap/guest_memory_stats.c $(LZ4_SRC)
unit_srcs_test_guest_memory := swap/guest_memory.c swap/frame_pool.c \
	ept/ept.c tests/unit/ept_fake.c $(UNIT_SWAP_POLICY_SRCS)
unit_srcs_test_uart := guest/devices/uart.c
unit_srcs_test_cpuid := guest/cpuid.c
unit_srcs_test_xsave_probe := arch/x86/xsave_probe.c
unit_srcs_test_acpi := arch/x86/acpi.c
# vmx_adjust_controls is static inline in vmx/vmx_caps.h: nothing to link.
unit_srcs_test_vmx_controls :=
# xcr0_value_valid is static inline in arch/x86/xcr0.h.
unit_srcs_test_xcr0 :=
# So are the checks of arch/x86/register_rules.h.
unit_srcs_test_register_rules :=
# test_string checks the freestanding memset & co. that APF_HOSTED hides: it
# links lib/string.c built without APF_HOSTED, with every function renamed
# so that it cannot clash with (or be replaced by) the C library's.
unit_objs_test_string := $(UNIT_OUT)/obj/lib/string_freestanding.o

UNIT_STRING_FUNCS := memset memcpy memmove memcmp strlen strnlen strcmp \
	strncmp strchr str_copy

# Further tests declare themselves in tests/unit/unit-<area>.mk fragments
# (UNIT_TESTS += test_x and unit_srcs_test_x := ...).
include $(wildcard tests/unit/unit-*.mk)

# Every test links the trace recorder (the code under test may emit events;
# they cost nothing while trace_on is false) and lib/guest_ram.c, which
# says what is guest RAM to the guest memory code of many tests.
UNIT_COMMON_SRCS := lib/trace/trace.c lib/trace/trace_ring.c tests/unit/trace_host.c \
	lib/guest_ram.c

unit_objs = $(UNIT_OUT)/obj/tests/unit/$(1).o \
	$(patsubst %.c,$(UNIT_OUT)/obj/%.o,$(sort $(unit_srcs_$(1)) \
		$(UNIT_COMMON_SRCS))) \
	$(unit_objs_$(1))

UNIT_BINARIES := $(addprefix $(UNIT_OUT)/,$(UNIT_TESTS))

.PHONY: unit-binaries
unit-binaries: $(UNIT_BINARIES)

define unit_link_rule
$(UNIT_OUT)/$(1): $(call unit_objs,$(1))
	$$(UNIT_CC) $$(UNIT_CFLAGS) -o $$@ $$^ $$(UNIT_LDLIBS)
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_link_rule,$(t))))

$(UNIT_OUT)/obj/%.o: %.c | deps
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/lib/string_freestanding.o: lib/string.c | deps
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -UAPF_HOSTED -fno-builtin \
		$(foreach f,$(UNIT_STRING_FUNCS),-D$(f)=fs_$(f)) \
		-MMD -MP -c $< -o $@

UNIT_OBJS := $(sort $(foreach t,$(UNIT_TESTS),$(call unit_objs,$(t))))
-include $(UNIT_OBJS:.o=.d)
