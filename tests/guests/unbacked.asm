; SPDX-License-Identifier: BSD-2-Clause
;
; unbacked: touches guest-physical 0xc0000000, which is outside guest RAM
; (the config gives the guest far less than 3 GiB) and is no device of the
; virtual platform. As on a PC, a load there reads all ones and a store is
; dropped, and the guest goes on; then it jumps there: an instruction
; fetch from nothing has no instruction to emulate, and apfvisor stops the
; guest with
;   apfvisor: guest halted: instruction fetch at gpa 0x00000000c0000000,
;   which is outside guest RAM, rip 0xc0000000
; so "unbacked: FAIL" must never be printed.

        bits 64
        org 0x200000
        %include "guest.inc"

UNBACKED_GPA    equ 0xc0000000

        guest_entry
        say "unbacked: reading gpa 0xc0000000 outside guest RAM", 10
        ; Through a register: a 32-bit displacement would be sign-extended
        ; to 0xffffffffc0000000.
        mov rbx, UNBACKED_GPA
        mov rax, [rbx]
        cmp rax, -1
        jne .wrong
        mov qword [rbx], 0x1234         ; dropped
        mov rax, [rbx]
        cmp rax, -1
        jne .wrong
        mov rax, -2
        mov eax, [rbx + 8]              ; a 32-bit load zero-extends
        mov rcx, 0xffffffff
        cmp rax, rcx
        jne .wrong
        mov eax, 0x12340000
        mov ax, [rbx + 4094]            ; 16 bits: the rest of RAX kept
        cmp eax, 0x1234ffff
        jne .wrong
        say "unbacked: reads all ones, a write dropped; jumping there", 10
        jmp rbx
.wrong:
        say "unbacked: FAIL read returned "
        call print_hex
        say 10
        test_exit 1
        stop
