/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lwIP's compiler and platform port (lwIP 2.1, src/include/lwip/arch.h):
 * freestanding types from lib/types.h, printf formats for lwIP's own
 * (unused) diagnostics, ctype from lwIP itself, byte order little-endian,
 * assertions that stop the machine with the line that failed, and the
 * random numbers lwIP wants for its ports and sequence numbers.
 */
#ifndef NET_LWIP_ARCH_CC_H
#define NET_LWIP_ARCH_CC_H

#include "lib/types.h"

#define LWIP_NO_INTTYPES_H 1
#define LWIP_NO_CTYPE_H    1
#define X8_F  "02x"
#define U16_F "u"
#define S16_F "d"
#define X16_F "x"
#define U32_F "u"
#define S32_F "d"
#define X32_F "x"
#define SZT_F "zu"

#ifndef BYTE_ORDER
#define BYTE_ORDER LITTLE_ENDIAN
#endif

void lwip_port_assert(const char *what, const char *file, int line);
uint32_t lwip_port_rand(void);

#define LWIP_PLATFORM_DIAG(x) do { } while (0)
#define LWIP_PLATFORM_ASSERT(x) lwip_port_assert((x), __FILE__, __LINE__)
#define LWIP_RAND() lwip_port_rand()

#endif
