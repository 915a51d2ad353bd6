/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Port I/O for host unit tests of drivers: stands in for arch/x86/io.h
 * when tests/unit/fake_x86 comes before the repository root on the include
 * path (see tests/unit/unit-ata.mk). The test links the device model that
 * answers (tests/unit/ata_fake.c; tests/fuzz/fuzz_pci_device.h for PCI
 * configuration space).
 */
#ifndef ARCH_X86_IO_H
#define ARCH_X86_IO_H

#include "lib/types.h"

uint8_t inb(uint16_t port);
void outb(uint16_t port, uint8_t v);
/* The wider accesses (PCI configuration mechanism #1, arch/x86/pci.c). */
uint16_t inw(uint16_t port);
uint32_t inl(uint16_t port);
void outw(uint16_t port, uint16_t v);
void outl(uint16_t port, uint32_t v);
void insw(uint16_t port, void *buf, size_t n);
void outsw(uint16_t port, const void *buf, size_t n);

#endif
