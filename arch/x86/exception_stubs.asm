; SPDX-License-Identifier: BSD-2-Clause
; One 16-byte entry stub per IDT vector. Each pushes a zero where the CPU
; pushes no error code (SDM Vol. 3A, 6.13), then the vector, and joins the
; common path, which saves the GPRs as struct exception_frame.
default rel
bits 64

global exception_stubs
extern exception_dispatch

section .text

%macro STUB 1
	align 16
%if %1 = 8 || (%1 >= 10 && %1 <= 14) || %1 = 17 || %1 = 21 || %1 = 29 || %1 = 30
%else
	push 0
%endif
	push strict qword %1
	jmp exception_common
%endmacro

	align 16
exception_stubs:
%assign v 0
%rep 256
	STUB v
%assign v v+1
%endrep

exception_common:
	cld
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	mov rdi, rsp
	; keep the stack 16-byte aligned for the C handler
	mov rbx, rsp
	and rsp, -16
	call exception_dispatch
	mov rsp, rbx
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16
	iretq

section .note.GNU-stack noalloc noexec nowrite progbits
