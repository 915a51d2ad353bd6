/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lwIP's options for apfvisor (lwIP 2.1, src/include/lwip/opt.h lists them
 * all): no operating system under it (NO_SYS: the raw API, called from one
 * context at a time, timers run by net_poll), IPv4 with ARP, ICMP, UDP for
 * DHCP, and TCP sized for an NBD connection that keeps many 4 KiB pages in
 * flight. Every buffer comes from lwIP's own static pools and heap.
 */
#ifndef NET_LWIPOPTS_H
#define NET_LWIPOPTS_H

#define NO_SYS                     1
#define SYS_LIGHTWEIGHT_PROT       0
#define LWIP_SOCKET                0
#define LWIP_NETCONN               0
#define LWIP_NETIF_API             0

#define LWIP_IPV4                  1
#define LWIP_IPV6                  0
#define LWIP_ARP                   1
#define LWIP_ETHERNET              1
#define LWIP_ICMP                  1
#define LWIP_RAW                   0
#define LWIP_UDP                   1
#define LWIP_TCP                   1
#define LWIP_DHCP                  1
#define LWIP_DHCP_DOES_ACD_CHECK   0
#define DHCP_DOES_ARP_CHECK        0
#define LWIP_AUTOIP                0
#define LWIP_IGMP                  0
#define LWIP_DNS                   0
#define IP_REASSEMBLY              0
#define IP_FRAG                    0
#define LWIP_NETIF_HOSTNAME        0
#define LWIP_NETIF_STATUS_CALLBACK 0
#define LWIP_NETIF_LINK_CALLBACK   0
#define LWIP_SINGLE_NETIF          0
#define LWIP_STATS                 0
#define LWIP_TCP_KEEPALIVE         1

/* Memory: lwIP's own heap (PBUF_RAM, what tcp_write copies into). */
#define MEM_LIBC_MALLOC            0
#define MEMP_MEM_MALLOC            0
#define MEM_ALIGNMENT              8
#define MEM_SIZE                   (1024 * 1024)

/* TCP: the window and send buffer hold 32 pages of NBD traffic. */
#define TCP_MSS                    1460
#define LWIP_WND_SCALE             1
#define TCP_RCV_SCALE              2
#define TCP_WND                    (128 * 1024)
#define TCP_SND_BUF                (128 * 1024)
#define TCP_SND_QUEUELEN           (4 * TCP_SND_BUF / TCP_MSS)
#define TCP_SNDLOWAT               (16 * TCP_MSS)
#define MEMP_NUM_TCP_SEG           TCP_SND_QUEUELEN
#define TCP_OVERSIZE               TCP_MSS
#define TCP_QUEUE_OOSEQ            1
#define MEMP_NUM_TCP_PCB           8
#define MEMP_NUM_TCP_PCB_LISTEN    1
#define MEMP_NUM_UDP_PCB           4
#define MEMP_NUM_SYS_TIMEOUT       (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 2)
#define PBUF_POOL_SIZE             256
#define PBUF_POOL_BUFSIZE          1600
#define MEMP_NUM_PBUF              64
#define ARP_TABLE_SIZE             8
#define ARP_QUEUEING               1
#define MEMP_NUM_ARP_QUEUE         32

/* Checksums in software: the drivers offload nothing. */
#define CHECKSUM_GEN_IP            1
#define CHECKSUM_GEN_TCP           1
#define CHECKSUM_GEN_UDP           1
#define CHECKSUM_CHECK_IP          1
#define CHECKSUM_CHECK_TCP         1
#define CHECKSUM_CHECK_UDP         1

#define LWIP_DEBUG                 0

#endif
