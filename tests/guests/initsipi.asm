; SPDX-License-Identifier: BSD-2-Clause
;
; initsipi: two vCPUs (guest.vcpus = 2). The BSP starts the AP with
; INIT and SIPI, as an OS does; the AP runs in real mode at 0x8000:
;   - it counts its start in AP_STARTS;
;   - it executes WRMSR of an MSR nobody claims: apfvisor injects #GP,
;     which in real mode carries no error code (SDM Vol. 3C 26.2.1.3; an
;     injection with one fails the VM entry); its real-mode handler
;     counts it in AP_GPS and skips the WRMSR;
;   - it halts with interrupts enabled (STI; HLT), and says so in
;     AP_HALTED.
; A SIPI alone, while the AP runs (halted), is ignored. Then the BSP
; sends INIT to the halted AP, and a SIPI: the AP must go
; back to waiting for a SIPI and start again from 0x8000 (SDM Vol. 3A
; 9.4.4), so AP_STARTS and AP_GPS become 2.
; Then STRESS_CYCLES more INIT/SIPI cycles, each waiting for the AP to halt
; again: apfvisor must not print a line for each one (its restart lines
; are rate limited; the test counts them), and the AP must start every
; time.
; Prints "initsipi: PASS" and exits with code 0, or a FAIL line and 1.

        bits 64
        org 0x200000
%include "guest.inc"
%include "interrupts.inc"

MSR_X2APIC_ICR  equ 0x830
ICR_INIT_ASSERT equ (5 << 8) | (1 << 14)        ; INIT, level assert
ICR_SIPI        equ 6 << 8
AP_APIC_ID      equ 1
TRAMPOLINE      equ 0x8000                      ; SIPI vector 0x08
SIPI_VECTOR     equ TRAMPOLINE >> 12
AP_STARTS       equ 0x9000                      ; words the AP writes
AP_GPS          equ 0x9002
AP_HALTED       equ 0x9004
AP_STACK        equ 0x7000
IVT_GP          equ 13 * 4                      ; real-mode IVT entry
WAIT_LOOPS      equ 20000000
STRESS_CYCLES   equ 10000

; send_ipi MODE: an x2APIC ICR write of MODE to the AP.
%macro send_ipi 1
        mov ecx, MSR_X2APIC_ICR
        mov edx, AP_APIC_ID
        mov eax, %1
        wrmsr
%endmacro

; wait_word ADDRESS, VALUE: spin until the word at ADDRESS is VALUE;
; on timeout, jump to .timeout with ADDRESS in RBX.
%macro wait_word 2
        mov rcx, WAIT_LOOPS
%%again:
        cmp word [%1], %2
        je %%done
        pause
        dec rcx
        jnz %%again
        mov ebx, %1
        jmp .timeout
%%done:
%endmacro

        guest_entry
        say "initsipi: start", 10
        call x2apic_enable
        ; The AP's code below 1 MiB, its counters cleared.
        lea rsi, [rel ap_code]
        mov edi, TRAMPOLINE
        mov ecx, ap_code_end - ap_code
        rep movsb
        mov qword [AP_STARTS], 0

        send_ipi ICR_INIT_ASSERT
        send_ipi ICR_SIPI | SIPI_VECTOR
        wait_word AP_HALTED, 1
        cmp word [AP_STARTS], 1
        jne .counts_wrong
        cmp word [AP_GPS], 1
        jne .counts_wrong
        say "initsipi: AP started in real mode, took #GP without an error code, halted", 10

        ; A SIPI without INIT: the AP is not waiting for one, so it
        ; ignores it (SDM Vol. 3A 9.4.4) and stays halted.
        send_ipi ICR_SIPI | SIPI_VECTOR
        mov rcx, 200000
.settle:
        pause
        dec rcx
        jnz .settle
        cmp word [AP_STARTS], 1
        jne .counts_wrong
        say "initsipi: a SIPI to the running AP was ignored", 10

        ; INIT and SIPI again.
        mov word [AP_HALTED], 0
        send_ipi ICR_INIT_ASSERT
        send_ipi ICR_SIPI | SIPI_VECTOR
        wait_word AP_HALTED, 1
        cmp word [AP_STARTS], 2
        jne .counts_wrong
        cmp word [AP_GPS], 2
        jne .counts_wrong
        say "initsipi: INIT while halted, the next SIPI restarted the AP", 10

        ; Many more: a guest can restart an AP in a loop.
        mov r15d, STRESS_CYCLES
.cycle:
        mov word [AP_HALTED], 0
        send_ipi ICR_INIT_ASSERT
        send_ipi ICR_SIPI | SIPI_VECTOR
        wait_word AP_HALTED, 1
        dec r15d
        jnz .cycle
        cmp word [AP_STARTS], 2 + STRESS_CYCLES
        jne .counts_wrong
        cmp word [AP_GPS], 2 + STRESS_CYCLES
        jne .counts_wrong
        say "initsipi: "
        mov eax, STRESS_CYCLES
        call print_dec
        say " more INIT/SIPI cycles, the AP started each time", 10
        say "initsipi: PASS", 10
        test_exit 0
        stop

.timeout:
        say "initsipi: FAIL timed out waiting for the word at "
        mov rax, rbx
        call print_hex
        say 10
        ; fall through: the counts say how far the AP got
.counts_wrong:
        say "initsipi: FAIL AP starts "
        movzx eax, word [AP_STARTS]
        call print_dec
        say ", #GPs "
        movzx eax, word [AP_GPS]
        call print_dec
        say ", halted "
        movzx eax, word [AP_HALTED]
        call print_dec
        say 10
        test_exit 1
        stop

; The AP's real-mode code, copied to TRAMPOLINE; CS = TRAMPOLINE >> 4,
; IP = 0, so offsets are from ap_code.
        bits 16
ap_code:
        cli
        xor ax, ax
        mov ds, ax
        mov ss, ax
        mov sp, AP_STACK
        mov word [IVT_GP], ap_gp_handler - ap_code
        mov word [IVT_GP + 2], TRAMPOLINE >> 4
        inc word [AP_STARTS]
        mov ecx, 0x4000abcd             ; no such MSR: #GP
        xor eax, eax
        xor edx, edx
        wrmsr
        sti
        mov word [AP_HALTED], 1
.halt:
        hlt
        jmp .halt

; #GP in real mode: IP, CS, FLAGS on the stack, no error code. Skips the
; two bytes of WRMSR.
ap_gp_handler:
        push bp
        mov bp, sp
        add word [bp + 2], 2
        inc word [AP_GPS]
        pop bp
        iret
ap_code_end:
        bits 64
