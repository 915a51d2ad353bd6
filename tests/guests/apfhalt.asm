; SPDX-License-Identifier: BSD-2-Clause
;
; apfhalt: a vCPU waiting for a swap-in it cannot be told about still
; takes its interrupts (KVM's "APF halt"). The guest never enables async
; page faults and runs at CPL 0, so no fault of its can be delivered
; asynchronously. It fills every page from 4 MiB to the end of RAM (on
; fewer host frames: the first pages go to swap), starts its LAPIC timer
; (periodic, TIMER_COUNT ticks of the 25 MHz APIC clock, 500 us), and
; with interrupts enabled reads one qword from each of the first
; PROBES pages, counting the timer interrupts taken during each read.
; Meanwhile vCPU 1 (started with INIT/SIPI, in real mode) sends it IPIs
; one after the other, as a TLB shootdown does, each time waiting for the
; answer (its handler counts it), and keeps the longest wait; it pauses
; an eighth of a timer period between two IPIs (without the pause vCPU 0
; livelocks in its IPI handler, see .warm below).
; apfhalt.cfg gives every swap-in a read latency of 10 ms: a vCPU that
; rests as in HLT takes about 20 timer interrupts per read and answers
; the IPIs in microseconds; one blocked in the hypervisor takes at most
; the one interrupt of each kind left pending when it resumes, and an
; IPI waits for the read. Prints
;   apfhalt: PROBES reads of swapped-out pages took N timer interrupts and M IPIs
;   apfhalt: the longest IPI answer took P% of the shortest read
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
IPI_VECTOR      equ 0x41
TIMER_COUNT     equ 12500                   ; 500 us at 25 MHz
MSR_X2APIC_INIT_COUNT   equ 0x838
MSR_X2APIC_DIVIDE       equ 0x83e
LVT_PERIODIC            equ 1 << 17
LVT_MASKED              equ 1 << 16
DIVIDE_BY_1             equ 0xb
MSR_X2APIC_ICR          equ 0x830
ICR_INIT_ASSERT         equ (5 << 8) | (1 << 14)
ICR_SIPI                equ 6 << 8
AP_APIC_ID              equ 1
TRAMPOLINE              equ 0x8000      ; SIPI vector 0x08
; Words shared with the AP, below 64 KiB for its real-mode code.
AP_READY        equ 0x9000      ; byte: x2APIC on, waiting for AP_GO
AP_GO           equ 0x9001      ; byte: send IPIs
AP_STOP         equ 0x9002      ; byte: stop sending
AP_DONE         equ 0x9003      ; byte: stopped
IPI_ACKS        equ 0x9004      ; dword: IPIs the BSP answered
LONGEST_WAIT    equ 0x9008      ; dword: TSC cycles, the AP's longest wait
IPI_GAP         equ 0x900c      ; dword: TSC cycles between two IPIs
WARM_TICKS      equ 3           ; timer interrupts before the reads
WAIT_LOOPS      equ 200000000

        guest_entry
        say "apfhalt: start", 10
        call idt_load
        lea rdi, [rel timer_handler]
        mov ecx, TIMER_VECTOR
        call set_gate
        lea rdi, [rel ipi_handler]
        mov ecx, IPI_VECTOR
        call set_gate
        call x2apic_enable

        ; vCPU 1 starts and waits for AP_GO.
        lea rsi, [rel ap_code]
        mov edi, TRAMPOLINE
        mov ecx, ap_code_end - ap_code
        rep movsb
        mov qword [AP_READY], 0
        mov qword [IPI_ACKS], 0
        mov dword [IPI_GAP], 0
        mov ecx, MSR_X2APIC_ICR
        mov edx, AP_APIC_ID
        mov eax, ICR_INIT_ASSERT
        wrmsr
        mov eax, ICR_SIPI | (TRAMPOLINE >> 12)
        wrmsr
        mov rcx, WAIT_LOOPS
.ap_wait:
        cmp byte [AP_READY], 1
        je .ap_up
        pause
        dec rcx
        jnz .ap_wait
        say "apfhalt: FAIL vCPU 1 did not start", 10
        test_exit 1
        stop
.ap_up:

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

        ; The fill sent the pages of the interrupt path (GDT, IDT, stack,
        ; handlers) to swap: a few timer interrupts bring them back
        ; before anything is measured (an event whose delivery faults
        ; waits for its page: no APF halt then). The last period, in TSC
        ; cycles, sets the AP's pause between two IPIs to an eighth of
        ; it (about 60 us): sent back to back, each IPI arrives while
        ; vCPU 0 still runs the handler of the one before (its EOI is a
        ; VM exit as long as the AP's ICR write), and vCPU 0 would take
        ; IPI after IPI without ever running the read again.
        mov ecx, WARM_TICKS
.warm:
        hlt
        rdtsc
        shl rdx, 32
        lea r9, [rax + rdx]
        hlt
        rdtsc
        shl rdx, 32
        add rax, rdx
        sub rax, r9
        dec ecx
        jnz .warm
        shr rax, 3
        mov [IPI_GAP], eax
        mov byte [AP_GO], 1

        ; r12: the page; r13: timer interrupts and r14 IPIs taken during
        ; the reads; r15: the shortest read in TSC cycles.
        mov r12, FIRST
        xor r13, r13
        xor r14, r14
        mov r15, -1
.probe:
        mov rbx, [rel ticks]
        mov r8d, [IPI_ACKS]
        rdtsc
        shl rdx, 32
        lea r9, [rax + rdx]
        mov rax, [r12]                  ; the page is in swap
        mov r10, rax
        rdtsc
        shl rdx, 32
        add rax, rdx
        sub rax, r9
        cmp rax, r15
        cmovb r15, rax
        mov rcx, [rel ticks]
        sub rcx, rbx
        add r13, rcx
        mov ecx, [IPI_ACKS]
        sub ecx, r8d
        add r14, rcx
        mov rcx, PATTERN
        add rcx, r12
        cmp r10, rcx
        jne .data_wrong
        add r12, PAGE_SIZE
        cmp r12, FIRST + PROBES * PAGE_SIZE
        jb .probe

        ; The AP stops while the last IPI can still be answered.
        mov byte [AP_STOP], 1
        mov rcx, WAIT_LOOPS
.ap_stop:
        cmp byte [AP_DONE], 1
        je .ap_stopped
        pause
        dec rcx
        jnz .ap_stop
        say "apfhalt: FAIL vCPU 1 did not stop", 10
        test_exit 1
        stop
.ap_stopped:
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
        say " timer interrupts and "
        mov rax, r14
        call print_dec
        say " IPIs", 10
        say "apfhalt: the longest IPI answer took "
        mov eax, [LONGEST_WAIT]
        imul rax, rax, 100
        xor edx, edx
        div r15
        call print_dec
        say "% of the shortest read", 10
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

ipi_handler:
        lock inc dword [IPI_ACKS]
        call x2apic_eoi
        iretq

align 8
ticks:          dq 0

; vCPU 1's real-mode code, copied to TRAMPOLINE (CS = TRAMPOLINE >> 4,
; IP = 0): x2APIC on, then IPIs to vCPU 0 one at a time until AP_STOP,
; each waited for; the longest wait kept in LONGEST_WAIT.
        bits 16
ap_code:
        cli
        xor ax, ax
        mov ds, ax
        mov ecx, MSR_APIC_BASE
        rdmsr
        or eax, APIC_BASE_EN_X2
        wrmsr
        mov byte [AP_READY], 1
        ; Interrupts on, though none is sent to this vCPU: Bochs 2.7 makes
        ; no external-interrupt VM exit while the guest has IF = 0 (real
        ; VT-x does), so apfvisor's kick for a TLB shootdown would wait
        ; for the preemption timer (10 ms), and with it vCPU 0, which
        ; waits for the paging daemon's lock held over the shootdown, and
        ; this vCPU's IPI (measured 2026-12-06 with trace = on: 125
        ; preemption-timer exits and no external-interrupt exit on vCPU 1
        ; with IF = 0; 117 external-interrupt exits with IF = 1).
        sti
.go:
        pause
        cmp byte [AP_GO], 1
        jne .go
.next:
        cmp byte [AP_STOP], 1
        je .done
        mov ebx, [IPI_ACKS]
        rdtsc
        mov esi, eax
        mov ecx, MSR_X2APIC_ICR
        xor edx, edx
        mov eax, IPI_VECTOR
        wrmsr
.answer:
        cmp [IPI_ACKS], ebx
        jne .answered
        cmp byte [AP_STOP], 1
        je .done
        pause
        jmp .answer
.answered:
        rdtsc
        mov edi, eax
        sub eax, esi
        cmp eax, [LONGEST_WAIT]
        jbe .gap
        mov [LONGEST_WAIT], eax
.gap:                                   ; vCPU 0 runs on between IPIs
        pause
        rdtsc
        sub eax, edi
        cmp eax, [IPI_GAP]
        jb .gap
        jmp .next
.done:
        mov byte [AP_DONE], 1
.halt:
        hlt
        jmp .halt
ap_code_end:
        bits 64
