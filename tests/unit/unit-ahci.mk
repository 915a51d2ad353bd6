# SPDX-License-Identifier: BSD-2-Clause
#
# The AHCI driver's ports and command slots (swap/drivers/ahci_port.c,
# swap/drivers/ahci_cmd.c) over a fake HBA (tests/unit/ahci_fake.c), which stands
# in for the register layer swap/drivers/ahci_regs.h. Built with tests/unit/fake_x86
# first on the include path, so that "arch/x86/cpu.h" and "tsc.h" are the
# fakes: a TSC that advances on every read (tests/unit/unit.mk includes
# this fragment). Two programs share tests/unit/ahci_test_fixture.h:
# test_ahci (bring-up and commands) and test_ahci_errors (the error and
# recovery paths).

UNIT_TESTS += test_ahci test_ahci_errors

unit_srcs_test_ahci := swap/drivers/ahci_cmd.c swap/drivers/ata_error.c \
	swap/drivers/ata_identify.c swap/drivers/read_poison.c lib/format.c \
	tests/unit/console_capture.c
unit_objs_test_ahci := $(UNIT_OUT)/obj/swap/ahci_port_fake_x86.o \
	$(UNIT_OUT)/obj/tests/unit/ahci_fake.o
unit_srcs_test_ahci_errors := $(unit_srcs_test_ahci)
unit_objs_test_ahci_errors := $(unit_objs_test_ahci)

$(UNIT_OUT)/obj/swap/ahci_port_fake_x86.o: swap/drivers/ahci_port.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/tests/unit/ahci_fake.o: tests/unit/ahci_fake.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
