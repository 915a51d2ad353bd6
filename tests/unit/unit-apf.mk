# SPDX-License-Identifier: BSD-2-Clause
# apf/: the async page fault protocol of one vCPU. test_apf_msr: the MSR
# rules and disable/reset; test_apf: delivery conditions, tokens,
# page-ready ordering, counters.
UNIT_APF_SRCS := apf/apf.c apf/apf_msr.c apf/apf_counters.c lib/counters.c
UNIT_TESTS += test_apf test_apf_msr
unit_srcs_test_apf := $(UNIT_APF_SRCS)
unit_srcs_test_apf_msr := $(UNIT_APF_SRCS)
