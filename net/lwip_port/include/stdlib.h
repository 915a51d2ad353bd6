/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lwIP's netif.c includes <stdlib.h> for atoi, which only netif_find, a
 * function apfvisor never calls, uses: the declaration is all it needs
 * (net/lwip_port.c defines it).
 */
#ifndef NET_LWIP_PORT_STDLIB_H
#define NET_LWIP_PORT_STDLIB_H
int atoi(const char *s);
#endif
