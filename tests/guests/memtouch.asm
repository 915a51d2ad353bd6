; SPDX-License-Identifier: BSD-2-Clause
;
; memtouch: touches every 4 KiB page from 4 MiB to the end of guest RAM.
; Pass 1 checks that each page reads as zero before its first write (fresh
; guest pages are zero-filled, whether apfvisor maps them on first touch or
; brings them back from swap), then fills every qword with a pattern derived
; from its address; pass 2 verifies every qword. Under apfvisor each first
; touch is an EPT violation, so the run counts one per page. With
; guest.cmdline = sparse, only the first qword of every 64 bytes holds the
; pattern and the others stay zero: pages that compress well (the
; compressed swap tier's test). With guest.cmdline = rep, a pass between
; the two writes every page again with one REP STOSQ of a per-page value
; (how Linux clears a page): under overcommit most pages are in swap by
; then, and apfvisor gives them a filled frame instead of reading them
; (swap.whole_page_stores); pass 2 checks those values instead.

        bits 64
        org 0x200000
        %include "guest.inc"

PAGE_SIZE       equ 4096
FIRST_PAGE      equ 4 * MIB         ; below: page tables, stack, this code
IDENTITY_END    equ 0x100000000     ; the entry page tables map 0..4 GiB
PATTERN         equ 0x5a5a5a5a5a5a5a5a
PAGE_PATTERN    equ 0x3c3c3c3c00000000  ; the rep pass: this ^ page address

        guest_entry
        say "memtouch: start", 10

        ; r12 = end of the range: RAM size rounded down to a page, at most
        ; what the entry page tables map.
        mov r12, [rel ram_size]
        and r12, -PAGE_SIZE
        mov rax, IDENTITY_END
        cmp r12, rax
        cmova r12, rax
        cmp r12, FIRST_PAGE
        jbe .too_small

        mov r13, PATTERN
        ; r14: qwords whose address has a bit of r14 set hold 0 (sparse).
        ; r15: 1 for the rep pass.
        xor r14d, r14d
        xor r15d, r15d
        mov rsi, [rel cmdline]
        test rsi, rsi
        jz .mode_set
        cmp byte [rsi], 'r'
        jne .not_rep
        mov r15d, 1
        say "memtouch: pages written again by rep stosq", 10
        jmp .mode_set
.not_rep:
        cmp byte [rsi], 's'
        jne .mode_set
        mov r14d, 0x38
        say "memtouch: sparse pages", 10
.mode_set:

        ; Pass 1: zero check, then fill. rbx = page, rdi = qword address.
        mov rbx, FIRST_PAGE
.fill_page:
        cmp qword [rbx], 0
        jne .not_zero_first
        cmp qword [rbx + PAGE_SIZE - 8], 0
        jne .not_zero_last
        mov rdi, rbx
        lea rcx, [rbx + PAGE_SIZE]
.fill_qword:
        mov rax, rdi
        xor rax, r13
        xor edx, edx
        test rdi, r14
        cmovnz rax, rdx
        mov [rdi], rax
        add rdi, 8
        cmp rdi, rcx
        jb .fill_qword
        add rbx, PAGE_SIZE
        cmp rbx, r12
        jb .fill_page

        test r15, r15
        jnz .rep_pass

        ; Pass 2: verify every qword.
        mov rdi, FIRST_PAGE
.check_qword:
        mov rax, rdi
        xor rax, r13
        xor edx, edx
        test rdi, r14
        cmovnz rax, rdx
        cmp [rdi], rax
        jne .bad_pattern
        add rdi, 8
        cmp rdi, r12
        jb .check_qword

        jmp .passed

        ; The rep pass: each page by one REP STOSQ of its address ^
        ; PAGE_PATTERN, then each qword checked against that.
.rep_pass:
        mov rbx, FIRST_PAGE
        mov r13, PAGE_PATTERN
.rep_page:
        mov rdi, rbx
        mov rax, rbx
        xor rax, r13
        mov ecx, PAGE_SIZE / 8
        cld
        rep stosq
        add rbx, PAGE_SIZE
        cmp rbx, r12
        jb .rep_page
        mov rdi, FIRST_PAGE
.rep_check:
        mov rax, rdi
        and rax, -PAGE_SIZE
        xor rax, r13
        cmp [rdi], rax
        jne .bad_pattern
        add rdi, 8
        cmp rdi, r12
        jb .rep_check

.passed:
        say "memtouch: touched "
        mov rax, r12
        sub rax, FIRST_PAGE
        shr rax, 12
        call print_dec
        say " pages", 10
        say "memtouch: PASS", 10
        test_exit 0
        stop

.too_small:
        say "memtouch: FAIL ram size "
        mov rax, [rel ram_size]
        call print_hex
        say " leaves nothing above 4 MiB", 10
        jmp .fail
.not_zero_first:
        say "memtouch: FAIL first qword not zero at "
        mov rax, rbx
        jmp .fail_at
.not_zero_last:
        say "memtouch: FAIL last qword not zero at "
        lea rax, [rbx + PAGE_SIZE - 8]
        jmp .fail_at
.bad_pattern:
        say "memtouch: FAIL pattern mismatch at "
        mov rax, rdi
.fail_at:
        call print_hex
        say 10
.fail:
        test_exit 1
        stop
