; SPDX-License-Identifier: BSD-2-Clause
;
; kvmswap: a kvmclock record on a page that is in swap. Fills every page
; from 4 MiB to the end of RAM with a pattern (on fewer host frames than
; that, so the first pages go to swap), then asks for the kvmclock record
; in the middle of the first page, which apfvisor must bring back (and
; keep resident) to write it: the record must be valid and the pattern
; around it intact. Then checks every page's pattern again.

        bits 64
        org 0x200000
%include "guest.inc"

MSR_KVM_SYSTEM_TIME_NEW equ 0x4b564d01
FIRST           equ 4 * MIB
RECORD          equ FIRST + 0x800               ; 32 bytes
PATTERN         equ 0x6b766d73776170            ; "kvmswap", per page + gpa

        guest_entry
        say "kvmswap: start", 10
        ; Every qword: PATTERN + its own address.
        mov rdi, FIRST
        mov r11, [rel ram_size]
        mov rdx, PATTERN
.fill:
        lea rax, [rdx + rdi]
        mov [rdi], rax
        add rdi, 8
        cmp rdi, r11
        jb .fill
        say "kvmswap: filled, asking for the record on the first page", 10

        mov ecx, MSR_KVM_SYSTEM_TIME_NEW
        mov eax, RECORD | 1
        xor edx, edx
        wrmsr
        mov eax, [RECORD]               ; version: even, not 0
        test eax, 1
        jnz .record_wrong
        test eax, eax
        jz .record_wrong
        cmp dword [RECORD + 24], 0      ; tsc_to_system_mul
        je .record_wrong
        ; Off again, and the record's bytes put back to the pattern.
        mov ecx, MSR_KVM_SYSTEM_TIME_NEW
        xor eax, eax
        xor edx, edx
        wrmsr
        mov rdi, RECORD
        mov rdx, PATTERN
.restore:
        lea rax, [rdx + rdi]
        mov [rdi], rax
        add rdi, 8
        cmp rdi, RECORD + 32
        jb .restore
        say "kvmswap: the record was written on the swapped-out page", 10

        ; Every qword still holds its pattern.
        mov rdi, FIRST
        mov rdx, PATTERN
.check:
        lea rax, [rdx + rdi]
        cmp [rdi], rax
        jne .data_wrong
        add rdi, 8
        cmp rdi, r11
        jb .check
        say "kvmswap: PASS", 10
        test_exit 0
        stop

.record_wrong:
        say "kvmswap: FAIL the kvmclock record is not valid", 10
        test_exit 1
        stop
.data_wrong:
        say "kvmswap: FAIL wrong data at "
        mov rax, rdi
        call print_hex
        say 10
        test_exit 1
        stop
