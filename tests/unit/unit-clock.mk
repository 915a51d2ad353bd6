# SPDX-License-Identifier: BSD-2-Clause
UNIT_TESTS += test_kvmclock
unit_srcs_test_kvmclock := guest/kvmclock.c lib/civil_time.c

# A vCPU's TSC offset and IA32_TSC_ADJUST (guest/vcpu_tsc.c).
UNIT_TESTS += test_vcpu_tsc
unit_srcs_test_vcpu_tsc := guest/vcpu_tsc.c
