; SPDX-License-Identifier: BSD-2-Clause
; Start code for the host application processors (APs). The boot CPU copies
; the bytes between ap_trampoline_start and ap_trampoline_end to a page below
; 1 MiB, fills in the parameters at the end and sends INIT-SIPI-SIPI with that
; page as vector (SDM Vol. 3A, 9.4.4 "MP Initialization Example"). The AP
; wakes in real mode at CS:0 = page:0 and goes protected mode -> long mode
; (SDM Vol. 3A, 10.8.5 "Initializing IA-32e Mode"), then calls entry(arg) on
; its own stack. Only offsets relative to the page are used, so the code runs
; wherever it was copied.
bits 16

global ap_trampoline_start
global ap_trampoline_end
global ap_trampoline_cr3
global ap_trampoline_stack
global ap_trampoline_entry
global ap_trampoline_arg

%define OFF(x) ((x) - ap_trampoline_start)
%define TRAMP_CODE32 0x08
%define TRAMP_DATA 0x10
%define TRAMP_CODE64 0x18
%define TRAMP_STACK_TOP 0x1000          ; end of the start page
%define CR0_PE 1
%define CR0_PG 0x80000000
%define CR0_NE (1 << 5)
%define CR0_NW (1 << 29)
%define CR0_CD (1 << 30)
%define CR4_PAE (1 << 5)
%define MSR_EFER 0xc0000080
%define EFER_LME (1 << 8)

section .data
align 16
ap_trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	mov ss, ax
	mov sp, TRAMP_STACK_TOP         ; the far returns below need a stack
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4                      ; ebx = physical base of this page
	mov eax, ebx
	add eax, OFF(tramp_gdt)
	mov [OFF(tramp_gdtr) + 2], eax
	lgdt [OFF(tramp_gdtr)]
	; An AP leaves INIT with caching off (CR0.CD = NW = 1, SDM Vol. 3A
	; 9.1.1): turn it on, as the firmware did on the boot CPU, or this
	; CPU runs the hypervisor and its vCPU uncached. NE: x87 errors
	; native, as VMX wants anyway.
	mov eax, cr0
	and eax, ~(CR0_CD | CR0_NW)
	or eax, CR0_PE | CR0_NE
	mov cr0, eax
	wbinvd
	mov eax, ebx
	add eax, OFF(protected_mode)
	push dword TRAMP_CODE32
	push eax
	o32 retf

bits 32
protected_mode:
	mov ax, TRAMP_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	lea esp, [ebx + TRAMP_STACK_TOP]
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [ebx + OFF(ap_trampoline_cr3)]
	mov cr3, eax
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME
	wrmsr
	mov eax, cr0
	or eax, CR0_PG | CR0_PE
	mov cr0, eax                    ; now in IA-32e compatibility mode
	lea eax, [ebx + OFF(long_mode)]
	push dword TRAMP_CODE64
	push eax
	retf

bits 64
long_mode:
	mov ax, TRAMP_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov ebx, ebx                    ; upper half is undefined after the switch
	mov rsp, [rbx + OFF(ap_trampoline_stack)]
	mov rdi, [rbx + OFF(ap_trampoline_arg)]
	mov rax, [rbx + OFF(ap_trampoline_entry)]
	call rax
.stuck:
	cli
	hlt
	jmp .stuck

align 8
tramp_gdt:
	dq 0
	dq 0x00cf9a000000ffff           ; 32-bit code
	dq 0x00cf92000000ffff           ; data
	dq 0x00af9a000000ffff           ; 64-bit code
tramp_gdtr:
	dw 4 * 8 - 1
	dd 0

align 8
ap_trampoline_cr3:   dq 0
ap_trampoline_stack: dq 0
ap_trampoline_entry: dq 0
ap_trampoline_arg:   dq 0
ap_trampoline_end:

section .note.GNU-stack noalloc noexec nowrite progbits
