/* SPDX-License-Identifier: BSD-2-Clause */
/* The host local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode. */
#ifndef ARCH_X86_LAPIC_H
#define ARCH_X86_LAPIC_H

#include "lib/types.h"

void lapic_init(void);                  /* on each CPU */
uint32_t lapic_id(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t vector_page);
void lapic_send_nmi(uint32_t apic_id);
void lapic_send_fixed(uint32_t apic_id, uint8_t vector);
void lapic_eoi(void);
/* A register by its xAPIC MMIO offset (0x320 = LVT timer, ...). */
uint32_t lapic_read_reg(uint32_t reg);
void lapic_write_reg(uint32_t reg, uint32_t value);

#endif
