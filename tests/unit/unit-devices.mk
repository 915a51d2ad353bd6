# SPDX-License-Identifier: BSD-2-Clause
#
# Host unit tests of the guest's interrupt controllers (tests/unit/unit.mk
# includes every tests/unit/unit-*.mk).

UNIT_TESTS += test_vlapic test_vlapic_timer test_vlapic_xapic test_pic8259

unit_srcs_test_vlapic := guest/devices/vlapic.c guest/devices/vlapic_ipi.c \
	guest/devices/vlapic_timer.c
unit_srcs_test_vlapic_timer := $(unit_srcs_test_vlapic)
# xAPIC mode: the register page (guest/devices/vlapic_mmio.c) and mode changes.
unit_srcs_test_vlapic_xapic := guest/devices/vlapic.c guest/devices/vlapic_ipi.c \
	guest/devices/vlapic_timer.c guest/devices/vlapic_mmio.c
unit_srcs_test_pic8259 := guest/devices/pic8259.c

# The guest's 8254 PIT and port 0x61 (counter 2's gate and OUT).
UNIT_TESTS += test_pit8254
unit_srcs_test_pit8254 := guest/devices/pit8254.c guest/devices/port61.c

# The guest's console lines: escaping and the queue outside the device lock.
UNIT_TESTS += test_guest_console
unit_srcs_test_guest_console := guest/guest_console.c lib/console.c \
	lib/format.c

# Guest page-table walks for the emulated INS/OUTS.
UNIT_TESTS += test_guest_pagewalk
unit_srcs_test_guest_pagewalk := guest/guest_pagewalk.c

# Hardware task switches (guest/task_switch.c) over a fake guest RAM.
UNIT_TESTS += test_task_switch
unit_srcs_test_task_switch := guest/task_switch.c guest/guest_pagewalk.c

# The guest's platform MSRs (guest/msr.c) over a fake guest RAM; the
# test fakes the VM's RAM access, IPI delivery and async-PF owner.
UNIT_TESTS += test_guest_msr
unit_srcs_test_guest_msr := guest/msr.c guest/pv_eoi.c guest/vcpu_tsc.c guest/mce.c \
	tests/unit/console_capture.c lib/ratelimit.c \
	guest/devices/vlapic.c guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c guest/kvmclock.c \
	$(UNIT_APF_SRCS)

# The guest's machine-check banks and the lost-page #MC (guest/mce.c).
UNIT_TESTS += test_guest_mce
unit_srcs_test_guest_mce := guest/mce.c

# KVM_HC_SEND_IPI (guest/pv_send_ipi.c) with a faked IPI delivery.
UNIT_TESTS += test_pv_send_ipi
unit_srcs_test_pv_send_ipi := guest/pv_send_ipi.c

# The guest's port I/O (guest/io_ports.c) with its real devices and a
# faked VM end and IRQ routing.
UNIT_TESTS += test_io_ports
unit_srcs_test_io_ports := guest/io_ports.c \
	guest/devices/io_registry.c guest/devices/pc_testdev.c \
	guest/devices/uart.c guest/devices/pic8259.c \
	guest/devices/pit8254.c guest/devices/port61.c guest/devices/pci_host.c \
	guest/guest_console.c $(ACPI_TABLES_SRCS) guest/devices/fw_cfg.c lib/string.c \
	lib/console.c lib/format.c

# The I/O registry of ports and MMIO ranges (guest/devices/io_registry.c).
UNIT_TESTS += test_io_registry
unit_srcs_test_io_registry := guest/devices/io_registry.c lib/string.c

# The platform's interrupt routing (guest/interrupts.c) with its real
# LAPIC, 8259 and UART; vm_request is faked.
UNIT_TESTS += test_guest_interrupts
unit_srcs_test_guest_interrupts := guest/interrupts.c guest/devices/vlapic.c \
	guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c guest/devices/pic8259.c guest/devices/uart.c \
	guest/devices/pit8254.c guest/devices/port61.c guest/devices/ioapic.c

# The I/O APIC (guest/devices/ioapic.c) and the MMIO instruction decoder
# (guest/mmio_decode.c) that reaches it.
UNIT_TESTS += test_ioapic test_mmio_decode
unit_srcs_test_ioapic := guest/devices/ioapic.c
unit_srcs_test_mmio_decode := guest/mmio_decode.c

# The whole-page string store an EPT violation on a page in swap may be
# (guest/page_store.c, swap.whole_page_stores).
UNIT_TESTS += test_page_store
unit_srcs_test_page_store := guest/page_store.c

# The PCI host bridge and configuration mechanism #1 (guest/devices/pci_host.c).
UNIT_TESTS += test_pci_host
unit_srcs_test_pci_host := guest/devices/pci_host.c

# QEMU's fw_cfg device as the guest reads it (guest/devices/fw_cfg.c).
UNIT_TESTS += test_fw_cfg
unit_srcs_test_fw_cfg := guest/devices/fw_cfg.c lib/string.c

# The VGA text screen shown at a multiboot guest's end (guest/devices/vga_text.c).
UNIT_TESTS += test_vga_text
unit_srcs_test_vga_text := guest/devices/vga_text.c

# Paravirtual EOI (guest/pv_eoi.c) over a fake guest RAM with the real
# virtual LAPIC and a model of the guest's EOI.
UNIT_TESTS += test_pv_eoi
unit_srcs_test_pv_eoi := guest/pv_eoi.c guest/devices/vlapic.c \
	guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c \
	tests/unit/console_capture.c lib/ratelimit.c lib/format.c lib/string.c
