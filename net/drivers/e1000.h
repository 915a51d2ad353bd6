/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Intel 8254x gigabit Ethernet (the 82540EM of QEMU's "-device e1000" and
 * of Bochs' e1000 plugin, and the 82545EM of QEMU's "e1000-82545em"),
 * polled, behind net/nic.h. Legacy descriptors, one receive and one
 * transmit ring (net/drivers/e1000_ring.h), no interrupts, no offloads.
 */
#ifndef NET_DRIVERS_E1000_H
#define NET_DRIVERS_E1000_H

#include "net/nic.h"

/*
 * Every 8254x function (8086:100e, 8086:100f; at most NIC_MAX), in PCI
 * order, each brought up: reset, MAC address, rings, receive and
 * transmit on. Prints one "apfvisor: net: e1000 BB:DD.F, MAC ..., link
 * up|down" line per device brought up, and one "apfvisor: error: net:
 * e1000 BB:DD.F: ..." line (and skips it) per device that could not be.
 * Fills out with up to max of them and returns how many. The bus is
 * scanned on the first call only; later calls return the same devices.
 */
unsigned e1000_probe_all(struct nic **out, unsigned max);

#endif
