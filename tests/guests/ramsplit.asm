; SPDX-License-Identifier: BSD-2-Clause
;
; ramsplit: a sparse memcheck over both ranges of a guest whose RAM is
; split by the PCI hole (guest.memory of 3.5 GiB or more: RDI bytes from 0,
; RDX bytes from 4 GiB, as on QEMU's PC). It maps the high range itself
; (the entry tables stop at 4 GiB), then touches one page every STRIDE in
; both ranges: pass 1 checks that the page reads as zero and writes its
; first and last qwords with a pattern of their address; pass 2 checks
; every written qword. Under overcommit the pages go to swap between the
; passes. Last, it reads the first address of the hole, which is no RAM
; and must read as all ones.

        bits 64
        org 0x200000
        %include "guest.inc"

PAGE_SIZE       equ 4096
STRIDE          equ 4 * MIB         ; one page touched per STRIDE
FIRST_PAGE      equ 4 * MIB         ; below: tables, stack, this code
HIGH_BASE       equ 0x100000000     ; the high range starts at 4 GiB
HIGH_PDS        equ 0x100000        ; our page directories for 4 GiB up
MAX_HIGH_GIB    equ 16              ; room for 16 of them, to 0x110000
BOOT_PDPT       equ 0x2000          ; guest/loaders/boot_state.h
PDE_2M          equ 0x83            ; present, writable, 2 MiB page
PDPTE_TABLE     equ 0x03            ; present, writable
PATTERN         equ 0x3c5a3c5a3c5a3c5a

        guest_entry
        mov [rel high_size], rdx
        say "ramsplit: RAM below the hole "
        mov rax, [rel ram_size]
        call print_hex
        say ", from 4 GiB "
        mov rax, [rel high_size]
        call print_hex
        say 10
        cmp qword [rel high_size], 0
        je .no_high
        call map_high

        ; Pass 1 over both ranges, then pass 2.
        xor r15, r15                    ; 0: fill, 1: check
.pass:
        mov rbx, FIRST_PAGE
        mov r12, [rel ram_size]
        call range
        mov r14, rcx                    ; pages below the hole
        mov rbx, HIGH_BASE
        mov r12, rbx
        add r12, [rel high_size]
        call range
        test r15, r15
        jnz .checked
        say "ramsplit: filled "
        mov rax, r14
        call print_dec
        say " pages below 4 GiB and "
        mov rax, rcx
        call print_dec
        say " above, the last at "
        mov rax, r13
        call print_hex
        say 10
        inc r15
        jmp .pass
.checked:
        say "ramsplit: checked "
        mov rax, r14
        add rax, rcx
        call print_dec
        say " pages, mismatches 0", 10

        ; The hole: no RAM, no device.
        mov rbx, [rel ram_size]
        mov rax, [rbx]
        cmp rax, -1
        jne .hole_not_ones
        say "ramsplit: the hole at "
        mov rax, rbx
        call print_hex
        say " reads all ones", 10
        say "ramsplit: PASS", 10
        test_exit 0
        stop

.no_high:
        say "ramsplit: FAIL no RAM above 4 GiB (guest.memory below 3.5G?)", 10
        jmp fail
.hole_not_ones:
        say "ramsplit: FAIL the hole at "
        push rax
        mov rax, rbx
        call print_hex
        pop rax
        say " reads "
        call print_hex
        say 10
        jmp fail

; range: one page every STRIDE in [RBX, R12); R15 = 0 fills, 1 checks.
; Returns RCX = pages, R13 = the last page; fails on a mismatch.
range:
        xor ecx, ecx
.page:
        cmp rbx, r12
        jae .done
        lea rdi, [rbx + PAGE_SIZE - 8]
        test r15, r15
        jnz .check
        cmp qword [rbx], 0
        jne not_zero
        cmp qword [rdi], 0
        jne not_zero
        mov rax, rbx
        xor rax, [rel pattern]
        mov [rbx], rax
        mov rax, rdi
        xor rax, [rel pattern]
        mov [rdi], rax
        jmp .next
.check:
        mov rax, rbx
        xor rax, [rel pattern]
        cmp [rbx], rax
        jne mismatch
        mov rax, rdi
        xor rax, [rel pattern]
        cmp [rdi], rax
        jne mismatch
.next:
        mov r13, rbx
        inc rcx
        add rbx, STRIDE
        jmp .page
.done:
        ret

; map_high: identity-maps [4 GiB, 4 GiB + high_size) with 2 MiB pages,
; one page directory per GiB at HIGH_PDS, linked from PDPT entry 4 on.
map_high:
        mov rcx, [rel high_size]
        add rcx, (1 << 30) - 1
        shr rcx, 30                     ; GiB to map
        cmp rcx, MAX_HIGH_GIB
        jbe .fits
        mov rcx, MAX_HIGH_GIB
.fits:
        mov rdi, HIGH_PDS
        mov rax, HIGH_BASE | PDE_2M
        mov rsi, BOOT_PDPT + 4 * 8
.pd:
        lea rdx, [rdi + PDPTE_TABLE]
        mov [rsi], rdx
        add rsi, 8
        mov edx, 512
.pde:
        mov [rdi], rax
        add rdi, 8
        add rax, 2 * MIB
        dec edx
        jnz .pde
        dec rcx
        jnz .pd
        mov rax, cr3                    ; flush the old translations
        mov cr3, rax
        ret

not_zero:
        say "ramsplit: FAIL not zero before the first write at "
        mov rax, rbx
        jmp fail_at
mismatch:
        say "ramsplit: FAIL mismatch at "
        mov rax, rbx
fail_at:
        call print_hex
        say 10
fail:
        test_exit 1
        stop

align 8
high_size:      dq 0
pattern:        dq PATTERN
