# SPDX-License-Identifier: BSD-2-Clause
#
# The virtio-blk request queue (swap/drivers/virtio_blk_queue.c) against a fake
# device working on the same rings (tests/unit/unit.mk includes this).

UNIT_TESTS += test_virtio_blk_queue
unit_srcs_test_virtio_blk_queue := swap/drivers/virtio_blk_queue.c lib/format.c \
	tests/unit/console_capture.c

# PCI configuration space (arch/x86/pci.c, built with tests/unit/fake_x86
# first: port I/O answered by the test's fake function), the virtio-PCI
# capabilities over it (arch/x86/virtio_pci.c) and the virtio-blk bring-up
# (swap/drivers/virtio_blk.c).
UNIT_TESTS += test_pci
unit_srcs_test_pci := arch/x86/virtio_pci.c swap/drivers/virtio_blk.c \
	swap/drivers/virtio_blk_queue.c lib/format.c tests/unit/console_capture.c
unit_objs_test_pci := $(UNIT_OUT)/obj/arch/x86/pci_fake_x86.o

$(UNIT_OUT)/obj/arch/x86/pci_fake_x86.o: arch/x86/pci.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/tests/unit/test_pci.o: tests/unit/test_pci.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# The guest's virtio balloon: its device model, PCI transport and split
# queues over a flat test RAM (guest/devices/virtio_balloon.h).
UNIT_TESTS += test_virtio_balloon
unit_srcs_test_virtio_balloon := guest/devices/virtio_balloon.c \
	guest/devices/virtio_pci_device.c guest/devices/virtq_device.c lib/string.c
