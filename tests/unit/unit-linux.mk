# SPDX-License-Identifier: BSD-2-Clause
# The Linux boot protocol loader (guest/linux_boot.c), see tests/unit/unit.mk.
UNIT_TESTS += test_linux_boot
unit_srcs_test_linux_boot := guest/linux_boot.c lib/format.c lib/string.c
# The uncompressed-kernel (vmlinux) fast path: the ELF parser and its
# description for the planner (guest/elf_kernel.c, guest/linux_vmlinux.c).
UNIT_TESTS += test_elf_kernel
unit_srcs_test_elf_kernel := guest/elf_kernel.c guest/linux_vmlinux.c \
	guest/linux_boot.c lib/format.c lib/string.c

# Kernel formats told by their headers (guest/image_format.c).
UNIT_TESTS += test_image_format
unit_srcs_test_image_format := guest/image_format.c lib/format.c lib/string.c
