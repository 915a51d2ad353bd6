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
;
; With " fill" after the number (guest.cmdline = 0x<16 digits> fill), for
; a run with more RAM than host frames: every word from FIRST to the end
; of RAM first gets a value made of its own address and a generation tag
; (address | TAG1), so that pages are not zero and must really go to swap
; and come back. Then two passes over all of RAM: the first checks that
; every patterned word holds address | TAG1 and rewrites it to
; address | TAG2 (every page dirtied again: written to swap a second
; time), the second checks address | TAG2 and only reads. A word that is
; neither its pattern nor the secret is counted as wrong: a zero page, a
; page of another address (a foreign slot or frame) or of the previous
; generation (a stale slot). Both counts must be 0. The secret must have
; bit 63 set, which the tags never have, so no pattern word can equal it.

        bits 64
        org 0x200000
%include "guest.inc"

MASK            equ 0x5a5a5a5a5a5a5a5a
FIRST           equ 4 * MIB             ; fill mode: the patterned words
TAG1            equ 0x15a1 << 48        ; the fill's generation
TAG2            equ 0x15b2 << 48        ; the first pass's rewrite

        guest_entry
        say "isolation: start", 10
        ; R15 = the hex number on the command line, XOR MASK.
        mov rsi, [rel cmdline]
        xor r15, r15
        xor ecx, ecx                    ; digits seen
        cmp word [rsi], "0x"
        jne bad_cmdline
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
        jne bad_cmdline
        mov rax, MASK
        xor r15, rax
        cmp byte [rsi], 0
        je .scan_only
        cmp byte [rsi], ' '
        jne bad_cmdline
        cmp dword [rsi + 1], "fill"
        jne bad_cmdline
        cmp byte [rsi + 5], 0
        jne bad_cmdline
        bt r15, 63
        jnc bad_secret
        mov r11, [rel ram_size]
        cmp r11, FIRST + MIB
        jb too_small
        jmp fill_mode

.scan_only:
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
past_end:
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

bad_cmdline:
        say "isolation: FAIL guest.cmdline is not 0x and 16 hex digits, "
        say "maybe followed by ' fill'", 10
        test_exit 1
        stop
bad_secret:
        say "isolation: FAIL with fill the secret needs bit 63 set", 10
        test_exit 1
        stop
too_small:
        say "isolation: FAIL fill needs at least 5 MiB of RAM", 10
        test_exit 1
        stop

; Fill mode (see the top). R11 = RAM size, R15 = the secret throughout.
fill_mode:
        say "isolation: filling "
        mov rax, r11
        sub rax, FIRST
        shr rax, 20
        call print_dec
        say " MiB from 4 MiB with address | tag", 10
        mov rdi, FIRST
        mov rdx, TAG1
.fill:
        mov rax, rdi
        or rax, rdx
        mov [rdi], rax
        add rdi, 8
        cmp rdi, r11
        jb .fill

        mov rbx, TAG1                   ; what the words hold
        mov rbp, TAG2                   ; what they get
        mov eax, 1
        call scan_pass
        jnz .failed
        mov rbx, TAG2
        xor ebp, ebp                    ; only read
        mov eax, 2
        call scan_pass
        jnz .failed
        jmp past_end
.failed:
        test_exit 1
        stop

; scan_pass: EAX = the pass's number, RBX = the tag the patterned words
; must hold, RBP = the tag to rewrite them with (0: leave them). Scans
; every word of RAM: below FIRST it only looks for the secret. Prints the
; pass's counts (and the first finds); ZF = 1 when both counts are 0.
; Uses R8-R10, R12-R14, RAX, RDX.
scan_pass:
        push rax
        xor r8, r8                      ; address
        xor r9, r9                      ; secrets found
        xor r10, r10                    ; the first one's address
        xor r12, r12                    ; wrong words
        xor r13, r13                    ; the first one's address
        xor r14, r14                    ; ... and value
.word:
        mov rax, [r8]
        cmp r8, FIRST
        jb .low
        mov rdx, r8
        or rdx, rbx
        cmp rax, rdx
        jne .not_pattern
        test rbp, rbp
        jz .next
        mov rdx, r8
        or rdx, rbp
        mov [r8], rdx
        jmp .next
.not_pattern:
        cmp rax, r15
        je .secret
        test r12, r12
        jnz .count_wrong
        mov r13, r8
        mov r14, rax
.count_wrong:
        inc r12
        jmp .next
.low:
        cmp rax, r15
        jne .next
.secret:
        test r9, r9
        jnz .count_secret
        mov r10, r8
.count_secret:
        inc r9
.next:
        add r8, 8
        cmp r8, r11
        jb .word

        pop rax
        say "isolation: pass "
        call print_dec
        say ": "
        mov rax, r11
        shr rax, 3
        call print_dec
        say " words scanned, the secret found "
        mov rax, r9
        call print_dec
        say " times, wrong words "
        mov rax, r12
        call print_dec
        say 10
        test r9, r9
        jz .no_secret
        say "isolation: FAIL the secret first at "
        mov rax, r10
        call print_hex
        say 10
.no_secret:
        test r12, r12
        jz .no_wrong
        say "isolation: FAIL the first wrong word at "
        mov rax, r13
        call print_hex
        say " holds "
        mov rax, r14
        call print_hex
        say ", not "
        mov rax, r13
        or rax, rbx
        call print_hex
        say 10
.no_wrong:
        mov rax, r9
        or rax, r12
        ret
