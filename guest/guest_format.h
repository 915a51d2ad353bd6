/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest image formats apfvisor loads (guest.format): what the VM's
 * spec names; guest/loaders/ tells them apart and loads them.
 */
#ifndef GUEST_GUEST_FORMAT_H
#define GUEST_GUEST_FORMAT_H

enum guest_format {
	GUEST_FORMAT_AUTO,              /* recognise bzImage, multiboot, ELF */
	GUEST_FORMAT_BZIMAGE,
	GUEST_FORMAT_MULTIBOOT,
	GUEST_FORMAT_ELF,
	GUEST_FORMAT_FLAT,
	GUEST_FORMAT_UNKNOWN,           /* auto found none (last: see config) */
};

#endif
