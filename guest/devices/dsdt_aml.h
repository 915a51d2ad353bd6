/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The DSDT as iasl compiled it from guest/devices/dsdt.asl: a whole table,
 * iasl's 36-byte header first, then the AML. The Makefile generates the
 * definition (build/gen/dsdt_aml.c, from iasl -tc); acpi_tables.c copies
 * the AML after the header into the table it gives the guest.
 */
#ifndef GUEST_DSDT_AML_H
#define GUEST_DSDT_AML_H

#include "lib/types.h"

/* The most the table may grow to (the generated file checks it). */
#define DSDT_AML_MAX_SIZE 1024

extern const uint8_t dsdt_aml[];
extern const size_t dsdt_aml_size; /* bytes, header included */

#endif
