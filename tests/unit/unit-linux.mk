# SPDX-License-Identifier: BSD-2-Clause
# The Linux boot protocol loader (guest/linux_boot.c), see tests/unit/unit.mk.
UNIT_TESTS += test_linux_boot
unit_srcs_test_linux_boot := guest/linux_boot.c lib/format.c lib/string.c
