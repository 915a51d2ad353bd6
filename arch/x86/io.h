/* SPDX-License-Identifier: BSD-2-Clause */
/* Port I/O. */
#ifndef ARCH_X86_IO_H
#define ARCH_X86_IO_H

#include "lib/types.h"

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(uint16_t port, uint16_t v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* n 16-bit words from port to buf (REP INSW), e.g. an ATA PIO data block. */
static inline void insw(uint16_t port, void *buf, size_t n)
{
	__asm__ volatile("rep insw"
			 : "+D"(buf), "+c"(n)
			 : "d"(port)
			 : "memory");
}

/* n 16-bit words from buf to port (REP OUTSW). */
static inline void outsw(uint16_t port, const void *buf, size_t n)
{
	__asm__ volatile("rep outsw"
			 : "+S"(buf), "+c"(n)
			 : "d"(port)
			 : "memory");
}

#endif
