# SPDX-License-Identifier: BSD-2-Clause
# apf/: the async page fault protocol of one vCPU. test_apf_msr: the MSR
# rules and disable/reset; test_apf: delivery conditions, tokens,
# page-ready ordering, counters.
UNIT_APF_SRCS := apf/apf.c apf/apf_msr.c apf/apf_counters.c lib/counters.c \
	lib/latency_hist.c lib/format.c lib/string.c
UNIT_TESTS += test_apf test_apf_msr
unit_srcs_test_apf := $(UNIT_APF_SRCS)
unit_srcs_test_apf_msr := $(UNIT_APF_SRCS)

# guest/async_pf.c, the VM's side (shared area, LAPIC, pinned area page),
# over a fake guest RAM and swap with the real virtual LAPIC.
UNIT_TESTS += test_guest_apf
unit_srcs_test_guest_apf := guest/async_pf.c guest/devices/vlapic.c \
	guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c tests/unit/console_capture.c \
	lib/ratelimit.c \
	$(UNIT_APF_SRCS)

# guest/async_pf.c, the VM's side of the async-PF MSRs: the shared area's
# pin over a fake guest RAM that counts pins.
UNIT_TESTS += test_guest_async_pf
unit_srcs_test_guest_async_pf := guest/async_pf.c guest/devices/vlapic.c \
	guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c tests/unit/console_capture.c \
	lib/format.c lib/ratelimit.c $(UNIT_APF_SRCS)
