/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * virtio-net over the virtio 1.0 "modern" PCI transport (virtio 1.0, 4.1
 * and 5.1), polled, behind the NIC interface of net/nic.h. One receive
 * and one transmit queue, no control queue, no offloads: only
 * VIRTIO_F_VERSION_1, VIRTIO_NET_F_MAC and VIRTIO_NET_F_STATUS are taken.
 * QEMU: -device virtio-net-pci (disable-legacy=on or not).
 */
#ifndef NET_DRIVERS_VIRTIO_NET_H
#define NET_DRIVERS_VIRTIO_NET_H

#include "net/nic.h"

/*
 * Every virtio-net PCI function (vendor 0x1af4, device 0x1041, or the
 * transitional 0x1000 when it has the modern capabilities), at most
 * NIC_MAX, in PCI order, each brought up to DRIVER_OK: fills out with up
 * to max and returns how many. Prints one line per interface
 * ("apfvisor: net: virtio-net 00:04.0, MAC 52:54:00:12:34:56, link up");
 * a function that cannot be brought up gets one "apfvisor: error: net:
 * virtio-net BB:DD.F: ..." line and is skipped. The bus is scanned on the
 * first call only; later calls return the same interfaces.
 */
unsigned virtio_net_probe_all(struct nic **out, unsigned max);

#endif
