; SPDX-License-Identifier: BSD-2-Clause
;
; isolation: looks for apfvisor's debug.isolation_secret in every 8-byte
; word of its RAM. The command line carries the secret XOR MASK in hex
; (so the secret itself is never in guest memory; it lives only in R15).
; apfvisor planted it in a heap page, in every free guest frame and on its
; stack: a guest page that is not zero-filled, or a hypervisor page mapped
; into the guest, shows it. Prints how many words matched (must be 0),
; then reads and writes the first word past the end of RAM, where there
; is nothing: it must read all ones (never a host byte), and the write must
; be dropped.

        bits 64
        org 0x200000
%include "guest.inc"

MASK            equ 0x5a5a5a5a5a5a5a5a

        guest_entry
        say "isolation: start", 10
        ; R15 = the hex number on the command line, XOR MASK.
        mov rsi, [rel cmdline]
        xor r15, r15
        xor ecx, ecx                    ; digits seen
        cmp word [rsi], "0x"
        jne .bad_cmdline
        add rsi, 2
.digit:
        movzx eax, byte [rsi]
        sub eax, '0'
        cmp eax, 9
        jbe .add
        movzx eax, byte [rsi]
        or eax, 0x20                    ; lower case
        sub eax, 'a'
        cmp eax, 5
        ja .digits_done
        add eax, 10
.add:
        shl r15, 4
        or r15, rax
        inc rsi
        inc ecx
        jmp .digit
.digits_done:
        cmp ecx, 16
        jne .bad_cmdline
        mov rax, MASK
        xor r15, rax

        ; Every word of RAM: R8 = address, R9 = matches, R10 = first one.
        xor r8, r8
        xor r9, r9
        xor r10, r10
        mov r11, [rel ram_size]
.scan:
        cmp [r8], r15
        jne .next
        test r9, r9
        jnz .counted
        mov r10, r8
.counted:
        inc r9
.next:
        add r8, 8
        cmp r8, r11
        jb .scan

        say "isolation: scanned "
        mov rax, r11
        shr rax, 20
        call print_dec
        say " MiB, the secret found "
        mov rax, r9
        call print_dec
        say " times", 10
        test r9, r9
        jz .clean
        say "isolation: FAIL first at "
        mov rax, r10
        call print_hex
        say 10
        test_exit 1
        stop
.clean:
        say "isolation: reading past the end of RAM", 10
        mov rax, [r11]
        cmp rax, -1
        jne .past_wrong
        mov [r11], r15                  ; dropped
        mov rax, [r11]
        cmp rax, -1
        jne .past_wrong
        say "isolation: past the end of RAM: all ones, a write dropped", 10
        test_exit 0
        stop
.past_wrong:
        say "isolation: FAIL the read past RAM returned "
        call print_hex
        say 10
        test_exit 1
        stop

.bad_cmdline:
        say "isolation: FAIL guest.cmdline is not 0x and 16 hex digits", 10
        test_exit 1
        stop
