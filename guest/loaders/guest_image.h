/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest's image and the VM that runs it: the format chosen against
 * guest.format, the VM built for that kind of guest, the image loaded by
 * its loader. boot/ calls these two; the loaders sit above guest/'s VM.
 */
#ifndef GUEST_LOADERS_GUEST_IMAGE_H
#define GUEST_LOADERS_GUEST_IMAGE_H

#include "guest/vm.h"

/*
 * What can be refused about the guest's images before any hardware is
 * touched (the format against guest.format; a Linux kernel's headers and
 * its fit in guest.memory): false after one error line. Only the image
 * fields, cmdline and ram of spec are read.
 */
bool guest_image_loadable(const struct vm_spec *spec);

/* Builds the VM and loads its image; NULL after an error line. */
struct vm *guest_image_create_vm(const struct vm_spec *spec);

#endif
