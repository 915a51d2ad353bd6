# SPDX-License-Identifier: BSD-2-Clause
#
# The ATA swap-disk driver (swap/drivers/ata.c) over fake IDE channels, and its
# IDENTIFY DEVICE parser (tests/unit/unit.mk includes this fragment).
# swap/drivers/ata.c and the device model are built with tests/unit/fake_x86
# before the repository root on the include path, so that their
# "arch/x86/io.h", "cpu.h" and "tsc.h" are the fakes: port I/O answered by
# tests/unit/ata_fake.c, and a TSC that advances on every read.

UNIT_TESTS += test_ata test_ata_identify

UNIT_ATA_FAKE_OBJS := $(UNIT_OUT)/obj/tests/unit/ata_fake.o
unit_srcs_test_ata := swap/drivers/ata_identify.c swap/drivers/ata_error.c \
	tests/unit/console_capture.c
unit_objs_test_ata := $(UNIT_OUT)/obj/swap/ata_fake_x86.o \
	$(UNIT_ATA_FAKE_OBJS)
unit_srcs_test_ata_identify := swap/drivers/ata_identify.c
unit_objs_test_ata_identify := $(UNIT_ATA_FAKE_OBJS)

$(UNIT_OUT)/obj/swap/ata_fake_x86.o: swap/drivers/ata.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/tests/unit/ata_fake.o: tests/unit/ata_fake.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
