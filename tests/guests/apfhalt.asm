; SPDX-License-Identifier: BSD-2-Clause
;
; apfhalt: a vCPU waiting for a swap-in it cannot be told about still
; takes its interrupts (KVM's "APF halt"). The guest never enables async
; page faults and runs at CPL 0, so no fault of its can be delivered
; asynchronously. It fills every page from 4 MiB to the end of RAM (on
; fewer host frames: the first pages go to swap), starts its LAPIC timer
; (periodic, TIMER_COUNT ticks of the 25 MHz APIC clock, 100 us), and
; with interrupts enabled reads one qword from each of the first
; PROBES pages, counting the timer interrupts taken during each read.
; apfhalt.cfg gives every swap-in a read latency of 2 ms: a vCPU that
; rests as in HLT takes about 20 interrupts per read; one blocked in the
; hypervisor takes at most the one left pending when it resumes. Prints
;   apfhalt: PROBES reads of swapped-out pages took N timer interrupts
; and whether the data came back intact, then exits with code 0 (or 1).

        bits 64
        org 0x200000
%include "guest.inc"
%include "interrupts.inc"

FIRST           equ 4 * MIB
PATTERN         equ 0x61706668616c74        ; "apfhalt", per qword + gpa
PAGE_SIZE       equ 4096
PROBES          equ 8
TIMER_VECTOR    equ 0x40
TIMER_COUNT     equ 2500                    ; 100 us at 25 MHz
MSR_X2APIC_INIT_COUNT   equ 0x838
MSR_X2APIC_DIVIDE       equ 0x83e
LVT_PERIODIC            equ 1 << 17
LVT_MASKED              equ 1 << 16
DIVIDE_BY_1             equ 0xb

        guest_entry
        say "apfhalt: start", 10
        call idt_load
        lea rdi, [rel timer_handler]
        mov ecx, TIMER_VECTOR
        call set_gate
        call x2apic_enable

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
        say "apfhalt: filled, reading the first pages back", 10

        mov ecx, MSR_X2APIC_DIVIDE
        mov eax, DIVIDE_BY_1
        xor edx, edx
        wrmsr
        mov ecx, MSR_X2APIC_LVT_TIMER
        mov eax, LVT_PERIODIC | TIMER_VECTOR
        wrmsr
        mov ecx, MSR_X2APIC_INIT_COUNT
        mov eax, TIMER_COUNT
        wrmsr
        sti

        ; r12: the page; r13: interrupts taken during the reads.
        xor r13, r13
        mov r12, FIRST
        mov rdx, PATTERN
.probe:
        mov rbx, [rel ticks]
        mov rax, [r12]                  ; the page is in swap
        mov rcx, [rel ticks]
        sub rcx, rbx
        add r13, rcx
        lea rcx, [rdx + r12]
        cmp rax, rcx
        jne .data_wrong
        add r12, PAGE_SIZE
        cmp r12, FIRST + PROBES * PAGE_SIZE
        jb .probe

        cli
        mov ecx, MSR_X2APIC_LVT_TIMER
        mov eax, LVT_MASKED | TIMER_VECTOR
        xor edx, edx
        wrmsr
        say "apfhalt: "
        mov eax, PROBES
        call print_dec
        say " reads of swapped-out pages took "
        mov rax, r13
        call print_dec
        say " timer interrupts", 10
        say "apfhalt: data intact", 10
        test_exit 0
        stop

.data_wrong:
        cli
        say "apfhalt: FAIL wrong data at "
        mov rax, r12
        call print_hex
        say 10
        test_exit 1
        stop

timer_handler:
        inc qword [rel ticks]
        call x2apic_eoi
        iretq

align 8
ticks:          dq 0
