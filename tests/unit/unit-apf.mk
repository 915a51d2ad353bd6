# SPDX-License-Identifier: BSD-2-Clause
# apf/: the async page fault protocol of one vCPU (MSR rules, delivery
# conditions, tokens, page-ready ordering, lifecycle, counters).
UNIT_TESTS += test_apf
unit_srcs_test_apf := apf/apf.c apf/apf_msr.c apf/apf_counters.c \
	lib/counters.c
