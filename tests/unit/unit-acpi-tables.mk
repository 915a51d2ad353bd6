# SPDX-License-Identifier: BSD-2-Clause
#
# The guest's ACPI tables (guest/devices/acpi_tables.c), walked with the host-side
# parser arch/x86/acpi.c. Included by tests/unit/unit.mk.

UNIT_TESTS += test_acpi_tables
unit_srcs_test_acpi_tables := $(ACPI_TABLES_SRCS) arch/x86/acpi.c
