/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the DSDT (guest/devices/dsdt.asl) and the C code that reads the
 * guest's PM1a_CNT writes (acpi_tables.c) must agree on. iasl's
 * preprocessor reads this file too: #define of plain integers only, no C
 * suffixes (0x10u), no types, no expressions ASL cannot fold.
 */
#ifndef GUEST_ACPI_SLEEP_H
#define GUEST_ACPI_SLEEP_H

/*
 * SLP_TYP of \_S5 in the DSDT (3 bits). Not 0: Linux writes SLP_EN with
 * SLP_TYP 0 when a sleep did not happen (drivers/acpi/acpica/hwsleep.c:
 * acpi_hw_legacy_sleep), which must not read as a power-off.
 */
#define ACPI_S5_SLP_TYP 5

#endif
