; SPDX-License-Identifier: BSD-2-Clause
; The entry of apfvisor's multiboot test kernels: the multiboot (v1) header
; (ELF kernel: no address fields), a stack, then mb_main(magic, info) in C;
; its return value goes to port 0xf4 (isa-debug-exit: exit status
; (value << 1) | 1 under QEMU and under apfvisor).

MB_MAGIC    equ 0x1BADB002
MB_FLAGS    equ 0x00000003          ; page-aligned modules, memory info
DEBUG_EXIT  equ 0xf4

bits 32

section .multiboot progbits alloc noexec nowrite align=4
	dd MB_MAGIC
	dd MB_FLAGS
	dd -(MB_MAGIC + MB_FLAGS)

section .text
global _start
extern mb_main
_start:
	cli
	mov esp, stack_top
	push ebx                    ; the multiboot information
	push eax                    ; the magic
	call mb_main
	mov dx, DEBUG_EXIT
	out dx, eax
.hang:
	hlt
	jmp .hang

section .bss
align 16
stack:
	resb 16384
stack_top:
