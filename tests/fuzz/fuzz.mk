# SPDX-License-Identifier: BSD-2-Clause
#
# libFuzzer targets for the parsers of untrusted input, built with Debian's
# clang (-fsanitize=fuzzer,address,undefined). Included by the top-level
# Makefile; outputs under build/fuzz/.
#
#   make fuzz                   builds every target and runs each for
#                               FUZZ_SECONDS (60) from its seed corpus
#   make fuzz FUZZ_SECONDS=600  longer
#   make fuzz FUZZ_INPUT_TIMEOUT=N  an input running longer than N s
#                               (10) is a finding, as a crash is
#
# A target is added by naming it in FUZZ_TARGETS and listing in
# fuzz_srcs_<name> the project sources it links; tests/fuzz/<name>.c holds
# LLVMFuzzerTestOneInput. fuzz_includes_<name>, when set, puts directories
# of stand-in headers before the repository root (the fakes of
# tests/unit/fake_exits or tests/unit/fake_x86: a VMCS of plain words, the
# TSC and port I/O as functions the target defines); fuzz_deps_<name>
# names a source the target includes rather than links (to reach its
# static functions), so that a change to it rebuilds the target. Seeds:
# tests/fuzz/<name>.seeds (a command that writes seed files into the
# directory given as $1), when it exists. Each input may take at most
# FUZZ_INPUT_TIMEOUT seconds (libFuzzer's -timeout): a hang is a finding.
# A crash or a hang leaves its input in build/fuzz/<name>.crashes/.

FUZZ_CC ?= clang
FUZZ_OUT := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_INPUT_TIMEOUT ?= 10
FUZZ_CFLAGS := -std=gnu11 -DAPF_HOSTED -I. -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror

FUZZ_TARGETS := fuzz_elf_kernel fuzz_config fuzz_swap_header \
	fuzz_virtio_blk_queue fuzz_bzimage fuzz_ata_identify fuzz_image_format \
	fuzz_multiboot fuzz_acpi_tables fuzz_mmio_decode fuzz_guest_devices \
	fuzz_apf_protocol fuzz_string_io fuzz_mmio_exit fuzz_guest_msr \
	fuzz_pci_bar fuzz_nvme fuzz_ahci fuzz_virtio_pci fuzz_virtio_balloon fuzz_task_switch \
	fuzz_fault_list fuzz_page_store
fuzz_srcs_fuzz_elf_kernel := guest/loaders/elf_kernel.c guest/loaders/linux_vmlinux.c \
	guest/loaders/linux_boot.c lib/format.c lib/string.c
fuzz_srcs_fuzz_config := boot/config.c boot/config_values.c \
	guest/loaders/image_format.c lib/format.c lib/string.c
fuzz_srcs_fuzz_swap_header := swap/swap_format.c lib/format.c
# The replay prefetch's fault list (swap.prefetch_trace, from the ESP).
fuzz_srcs_fuzz_fault_list := swap/policy/fault_list.c lib/format.c
fuzz_srcs_fuzz_virtio_blk_queue := swap/drivers/virtio_blk_queue.c lib/format.c
fuzz_srcs_fuzz_bzimage := guest/loaders/linux_boot.c lib/format.c lib/string.c
fuzz_srcs_fuzz_ata_identify := swap/drivers/ata_identify.c
fuzz_srcs_fuzz_image_format := guest/loaders/image_format.c lib/format.c lib/string.c
fuzz_srcs_fuzz_multiboot := guest/loaders/multiboot.c guest/loaders/elf_kernel.c \
	guest/loaders/linux_boot.c lib/format.c lib/string.c
fuzz_srcs_fuzz_mmio_decode := guest/mmio_decode.c
fuzz_srcs_fuzz_page_store := guest/page_store.c
# The virtual platform a guest drives: ports, LAPICs, I/O APIC, routing.
fuzz_srcs_fuzz_guest_devices := guest/interrupts.c guest/devices/vlapic.c \
	guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c guest/devices/vlapic_mmio.c \
	guest/devices/pic8259.c guest/devices/uart.c guest/devices/pit8254.c guest/devices/port61.c \
	guest/devices/ioapic.c guest/io_ports.c guest/devices/pci_host.c guest/guest_console.c \
	guest/devices/io_registry.c \
	guest/devices/pc_testdev.c $(ACPI_TABLES_SRCS) guest/devices/fw_cfg.c lib/string.c lib/format.c \
	lib/console.c lib/guest_ram.c
# The async page fault protocol's host side for two vCPUs, with a model.
fuzz_srcs_fuzz_apf_protocol := apf/apf.c apf/apf_msr.c apf/apf_counters.c lib/latency_hist.c \
	lib/counters.c lib/format.c lib/string.c lib/guest_ram.c
# INS/OUTS over the guest's page tables, with the exit handlers' fakes.
fuzz_includes_fuzz_string_io := -Itests/unit/fake_exits
fuzz_srcs_fuzz_string_io := vmx/exit_string_io.c guest/guest_pagewalk.c
# An MMIO exit from the fetch to the register written back.
fuzz_includes_fuzz_mmio_exit := -Itests/unit/fake_exits
fuzz_srcs_fuzz_mmio_exit := vmx/exit_mmio.c vmx/insn_fetch.c guest/guest_pagewalk.c \
	guest/mmio_decode.c guest/devices/vlapic.c guest/devices/vlapic_ipi.c \
	guest/devices/vlapic_timer.c guest/devices/vlapic_mmio.c guest/devices/ioapic.c lib/format.c \
	guest/io_mmio.c guest/devices/io_registry.c lib/string.c
# The guest's MSRs with kvmclock and the async-PF MSRs and area; the TSC
# is the target's (tests/unit/fake_exits).
fuzz_includes_fuzz_guest_msr := -Itests/unit/fake_exits
fuzz_srcs_fuzz_guest_msr := guest/msr.c guest/pv_eoi.c guest/vcpu_tsc.c guest/mce.c \
	guest/async_pf.c \
	guest/kvmclock.c guest/devices/vlapic.c guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c \
	apf/apf.c \
	apf/apf_msr.c apf/apf_counters.c lib/counters.c lib/latency_hist.c lib/format.c \
	lib/string.c lib/ratelimit.c lib/guest_ram.c
# A PCI function's configuration space as the drivers read it: BARs,
# capabilities, the virtio-PCI structures (port I/O is the target's).
fuzz_includes_fuzz_pci_bar := -Itests/unit/fake_x86
fuzz_srcs_fuzz_pci_bar := arch/x86/pci.c arch/x86/virtio_pci.c
# The NVMe driver with the input as the controller.
fuzz_srcs_fuzz_nvme := swap/drivers/nvme_ctrl.c swap/drivers/nvme_queue.c \
	swap/drivers/nvme_namespace.c swap/drivers/nvme_command.c swap/drivers/nvme_identify.c \
	swap/drivers/read_poison.c lib/format.c lib/string.c
# The AHCI driver (swap/drivers/ahci.c is included by the target) with the input
# as the PCI function and the HBA.
fuzz_includes_fuzz_ahci := -Itests/unit/fake_x86
fuzz_deps_fuzz_ahci := swap/drivers/ahci.c
fuzz_srcs_fuzz_ahci := swap/drivers/ahci_port.c swap/drivers/ahci_cmd.c swap/drivers/ata_error.c \
	swap/drivers/ata_identify.c swap/drivers/read_poison.c arch/x86/pci.c lib/format.c \
	lib/string.c
# A virtio-blk device's bring-up over the PCI transport (swap/drivers/virtio_blk.c
# is included by the target), its BAR memory the input's.
# The guest's virtio balloon: its PCI function and rings, as a guest drives them.
fuzz_srcs_fuzz_virtio_balloon := guest/devices/virtio_balloon.c \
	guest/devices/virtio_pci_device.c guest/devices/virtq_device.c lib/string.c
fuzz_includes_fuzz_virtio_pci := -Itests/unit/fake_x86
fuzz_deps_fuzz_virtio_pci := swap/drivers/virtio_blk.c
fuzz_srcs_fuzz_virtio_pci := arch/x86/virtio_pci.c swap/drivers/virtio_blk_queue.c \
	arch/x86/pci.c lib/format.c lib/string.c
# Hardware task switches: the GDT, IDT, TSSs and page tables the input's.
fuzz_srcs_fuzz_task_switch := guest/task_switch.c guest/guest_pagewalk.c
fuzz_deps_fuzz_task_switch := tests/unit/flat_ram.h
fuzz_srcs_fuzz_acpi_tables := arch/x86/acpi.c arch/x86/acpi_fadt.c \
	arch/x86/acpi_mcfg.c lib/string.c

# Further targets declare themselves in tests/fuzz/fuzz-<area>.mk fragments
# (FUZZ_TARGETS += fuzz_x and fuzz_srcs_fuzz_x := ...).
include $(wildcard tests/fuzz/fuzz-*.mk)

.PHONY: fuzz fuzz-binaries

FUZZ_HEADERS := $(wildcard */*.h */*/*.h tests/fuzz/*.h \
	tests/unit/fake_*/*/*.h tests/unit/fake_*/*/*/*.h)

fuzz-binaries: $(addprefix $(FUZZ_OUT)/,$(FUZZ_TARGETS))

define fuzz_rule
$(FUZZ_OUT)/$(1): tests/fuzz/$(1).c $(fuzz_srcs_$(1)) $(FUZZ_HEADERS) \
		$(fuzz_deps_$(1)) | deps
	@mkdir -p $$(@D)
	$$(FUZZ_CC) $(fuzz_includes_$(1)) $$(FUZZ_CFLAGS) -o $$@ \
		tests/fuzz/$(1).c $(fuzz_srcs_$(1))
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

fuzz: fuzz-binaries
	@set -e; for t in $(FUZZ_TARGETS); do \
		corpus=$(FUZZ_OUT)/$$t.corpus; crashes=$(FUZZ_OUT)/$$t.crashes; \
		mkdir -p $$corpus $$crashes; \
		if [ -x tests/fuzz/$$t.seeds ]; then \
			tests/fuzz/$$t.seeds $$corpus; fi; \
		echo "  FUZZ    $$t for $(FUZZ_SECONDS) s"; \
		$(FUZZ_OUT)/$$t -max_total_time=$(FUZZ_SECONDS) \
			-timeout=$(FUZZ_INPUT_TIMEOUT) \
			-artifact_prefix=$$crashes/ -print_final_stats=1 \
			$$corpus 2>$(FUZZ_OUT)/$$t.log || \
			{ tail -n 40 $(FUZZ_OUT)/$$t.log; \
			  echo "FAIL fuzz/$$t (log: $(FUZZ_OUT)/$$t.log)"; \
			  exit 1; }; \
		grep -E '^(stat::number_of_executed_units|Done )' $(FUZZ_OUT)/$$t.log || true; \
		echo "PASS fuzz/$$t"; \
	done
