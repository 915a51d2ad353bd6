# SPDX-License-Identifier: BSD-2-Clause
#
# Host discovery and the TSC sources: CPUID 0x15/0x16 arithmetic, the
# source order and its log lines, the FADT's PM timer, the MCFG's ECAM
# window, the CPU lists and the RAM map. Included by tests/unit/unit.mk.

UNIT_TESTS += test_tsc_freq test_tsc_choice test_acpi_platform \
	test_host_discovery
unit_srcs_test_tsc_freq := arch/x86/tsc_freq.c
unit_srcs_test_tsc_choice := arch/x86/tsc_choice.c arch/x86/tsc_freq.c \
	tests/unit/console_capture.c
unit_srcs_test_acpi_platform := arch/x86/acpi_fadt.c arch/x86/acpi_mcfg.c
unit_srcs_test_host_discovery := boot/host_cpus.c boot/ram_map.c \
	tests/unit/console_capture.c
