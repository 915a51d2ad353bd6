; SPDX-License-Identifier: BSD-2-Clause
;
; unbacked: reads guest-physical 0xc0000000, which is outside guest RAM (the
; config gives the guest far less than 3 GiB) and is no device of the
; virtual platform. apfvisor's defined behaviour is to stop the guest with
;   apfvisor: guest halted: access outside guest RAM: gpa 0x00000000c0000000
;   read, rip 0x...
; so the read must never complete.

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
        say "unbacked: FAIL read returned "
        call print_hex
        say 10
        test_exit 1
        stop
