# SPDX-License-Identifier: BSD-2-Clause
# The one error type of the EPT, the block drivers and the paging daemon
# (lib/errors.h): its names and their words. Header only: nothing to link.
UNIT_TESTS += test_errors
unit_srcs_test_errors :=
