# SPDX-License-Identifier: BSD-2-Clause
UNIT_TESTS += test_kvmclock
unit_srcs_test_kvmclock := guest/kvmclock.c lib/civil_time.c
