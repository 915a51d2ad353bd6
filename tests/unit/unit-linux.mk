# SPDX-License-Identifier: BSD-2-Clause
# The Linux boot protocol loader (guest/loaders/linux_boot.c), see tests/unit/unit.mk.
UNIT_TESTS += test_linux_boot
unit_srcs_test_linux_boot := guest/loaders/linux_boot.c lib/format.c lib/string.c
# The uncompressed-kernel (vmlinux) fast path: the ELF parser and its
# description for the planner (guest/loaders/elf_kernel.c, guest/loaders/linux_vmlinux.c).
UNIT_TESTS += test_elf_kernel
unit_srcs_test_elf_kernel := guest/loaders/elf_kernel.c guest/loaders/linux_vmlinux.c \
	guest/loaders/linux_boot.c lib/format.c lib/string.c

# Kernel formats told by their headers (guest/loaders/image_format.c).
UNIT_TESTS += test_image_format
unit_srcs_test_image_format := guest/loaders/image_format.c lib/format.c lib/string.c

# Multiboot kernels: the header, the load plan (ELF32/ELF64 or the a.out
# kludge) and the information structure (guest/loaders/multiboot.c).
UNIT_TESTS += test_multiboot
unit_srcs_test_multiboot := guest/loaders/multiboot.c guest/loaders/elf_kernel.c \
	guest/loaders/linux_boot.c lib/format.c lib/string.c
