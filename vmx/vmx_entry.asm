; SPDX-License-Identifier: BSD-2-Clause
; VM entry and exit. vmx_run(regs, launched) saves the host's callee-saved
; registers, records the stack pointer in HOST_RSP, loads the guest GPRs and
; CR2 from *regs and executes VMLAUNCH (first time) or VMRESUME. A VM exit
; lands in vmx_exit_entry (HOST_RIP) with that stack; it stores the guest
; GPRs back into *regs and returns 0 from vmx_run. If the entry instruction
; itself fails, vmx_run returns 1 (VMfailInvalid) or 2 (VMfailValid; the
; VM-instruction error field says why). SDM Vol. 3C, 26 and 28.
default rel
bits 64

global vmx_run
global vmx_exit_entry

%define VMCS_HOST_RSP 0x6c14

%define R_RAX 0
%define R_RBX 8
%define R_RCX 16
%define R_RDX 24
%define R_RSI 32
%define R_RDI 40
%define R_RBP 48
%define R_R8 56
%define R_R9 64
%define R_R10 72
%define R_R11 80
%define R_R12 88
%define R_R13 96
%define R_R14 104
%define R_R15 112
%define R_CR2 120

section .text

; int vmx_run(struct guest_regs *regs /* rdi */, int launched /* esi */)
vmx_run:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	push rdi                        ; [rsp] = regs, found again on exit
	mov rax, VMCS_HOST_RSP
	vmwrite rax, rsp
	jbe .failed_before_entry
	mov rax, [rdi + R_CR2]
	mov cr2, rax
	test esi, esi                   ; flags survive the MOVs below
	mov rax, [rdi + R_RAX]
	mov rbx, [rdi + R_RBX]
	mov rcx, [rdi + R_RCX]
	mov rdx, [rdi + R_RDX]
	mov rsi, [rdi + R_RSI]
	mov rbp, [rdi + R_RBP]
	mov r8, [rdi + R_R8]
	mov r9, [rdi + R_R9]
	mov r10, [rdi + R_R10]
	mov r11, [rdi + R_R11]
	mov r12, [rdi + R_R12]
	mov r13, [rdi + R_R13]
	mov r14, [rdi + R_R14]
	mov r15, [rdi + R_R15]
	mov rdi, [rdi + R_RDI]
	jnz .resume
	vmlaunch
	jmp .entry_failed
.resume:
	vmresume
.entry_failed:
	; Still on our stack; the GPRs hold guest values. CF=1: invalid, ZF=1: valid.
	mov eax, 2
	jnc .restore
	mov eax, 1
	jmp .restore
.failed_before_entry:
	mov eax, 3
.restore:
	pop rdi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

vmx_exit_entry:
	push rdi                        ; guest rdi; [rsp + 8] = regs
	mov rdi, [rsp + 8]
	mov [rdi + R_RAX], rax
	mov [rdi + R_RBX], rbx
	mov [rdi + R_RCX], rcx
	mov [rdi + R_RDX], rdx
	mov [rdi + R_RSI], rsi
	mov [rdi + R_RBP], rbp
	mov [rdi + R_R8], r8
	mov [rdi + R_R9], r9
	mov [rdi + R_R10], r10
	mov [rdi + R_R11], r11
	mov [rdi + R_R12], r12
	mov [rdi + R_R13], r13
	mov [rdi + R_R14], r14
	mov [rdi + R_R15], r15
	pop rax
	mov [rdi + R_RDI], rax
	mov rax, cr2
	mov [rdi + R_CR2], rax
	xor eax, eax
	jmp .restore_host
.restore_host:
	pop rdi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

section .note.GNU-stack noalloc noexec nowrite progbits
