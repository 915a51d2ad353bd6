/* SPDX-License-Identifier: BSD-2-Clause */
/* What lwIP takes from <string.h>: the hypervisor's own (lib/string.c). */
#ifndef NET_LWIP_PORT_STRING_H
#define NET_LWIP_PORT_STRING_H
#include "lib/string.h"
#endif
