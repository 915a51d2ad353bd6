; SPDX-License-Identifier: BSD-2-Clause
;
; mmio: the emulated MMIO page of the I/O APIC from 64-bit code: a store
; of an immediate, a REX-prefixed load, a store of a register read back
; (the 32-bit load zero-extends the register); then an instruction the
; decoder refuses (LOCK OR on IOWIN), which must end the guest with its
; bytes and address, never be skipped.

        bits 64
        org 0x200000
        %include "guest.inc"

IOAPIC_REGSEL   equ 0xfec00000
IOAPIC_WIN      equ 0xfec00010
REG_VER         equ 1
REG_REDTBL4_HI  equ 0x19

        guest_entry
        mov rbx, IOAPIC_REGSEL
        mov dword [rbx], REG_VER            ; C7 /0 imm32
        mov r9d, [rbx + 0x10]               ; REX.R 8B, disp8
        mov eax, r9d
        say "mmio: version register "
        call print_hex
        say 10
        mov dword [rbx], REG_REDTBL4_HI
        mov ecx, 0x0a000000
        mov [rbx + 0x10], ecx               ; 89, disp8
        mov rax, [window]                   ; the address, from RAM
        mov rdx, -1
        mov edx, [rax]                      ; 8B: zero-extends to 64 bits
        mov rax, rdx
        say "mmio: entry 4 high "
        call print_hex
        say 10
        say "mmio: now a locked OR on IOWIN", 10
        lock or dword [rbx + 0x10], 1       ; refused
        say "mmio: FAIL the locked OR was skipped", 10
        test_exit 1
        stop

window: dq IOAPIC_WIN
