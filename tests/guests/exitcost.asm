; SPDX-License-Identifier: BSD-2-Clause
;
; exitcost: what a round trip through apfvisor costs, seen from the guest
; (the model: kvm-unit-tests' x86/vmexit.c). Each operation runs ITERATIONS
; times between two RDTSCs, after one untimed warm-up; the cost of the
; empty loop (a call and a return, measured first) is subtracted. Under
; Bochs one TSC cycle is one emulated instruction. One line per operation:
;
;   exitcost: NAME CYCLES cycles/round-trip
;
; cpuid            CPUID leaf 0
; rdmsr            RDMSR IA32_TSC_DEADLINE (the virtual LAPIC's)
; wrmsr            WRMSR IA32_TSC_DEADLINE = 0 (disarm)
; io_unclaimed     IN from port 0x2fd (COM2's LSR: apfvisor has no COM2)
; io_uart_lsr      IN from COM1's line status register (the 16550 model)
; xapic_eoi        MOV to the xAPIC page's EOI register, nothing in service
;                  (measured first, while the APIC is still in xAPIC mode,
;                  its reset state: an EPT violation, the instruction
;                  fetched and decoded, the register written)
; x2apic_eoi       WRMSR x2APIC EOI with nothing in service
; self_ipi         WRMSR x2APIC SELF_IPI with interrupts on: the exit, the
;                  injection, the handler and its EOI (a second exit)
; ept_zero_fill    the first write to a fresh page (an EPT violation that
;                  apfvisor answers with a zeroed frame)
; page_clear       REP STOSB over 4 KiB in the guest: what clearing a page
;                  costs, to set beside ept_zero_fill
;
; and last, the timer: ITERATIONS times it arms the TSC deadline
; TIMER_DELAY cycles ahead and halts; the handler reads the TSC:
;
;   exitcost: hlt_timer CYCLES cycles from the deadline to the handler

        bits 64
        org 0x200000
        %include "guest.inc"
        %include "interrupts.inc"

ITERATIONS      equ 128
PAGE_SIZE       equ 4096
FRESH_START     equ 8 * MIB         ; never touched before the ept loop
CLEAR_PAGE      equ 7 * MIB         ; the page_clear loop's target
UNCLAIMED_PORT  equ 0x2fd
IPI_VECTOR      equ 0x40
TIMER_VECTOR    equ 0x41
TIMER_DELAY     equ 50000
XAPIC_EOI       equ 0xfee000b0      ; the xAPIC page at its reset base

; tsc_to REG: REG = the TSC (LFENCE first: earlier work is done).
%macro tsc_to 1
        lfence
        rdtsc
        shl rdx, 32
        or rax, rdx
        mov %1, rax
%endmacro

; measure "name", body: times body, prints the line.
%macro measure 2
        lea rdi, [rel %2]
        call time_loop
        say "exitcost: ", %1, " "
        call print_dec
        say " cycles/round-trip", 10
%endmacro

        guest_entry
        say "exitcost: start, "
        mov eax, ITERATIONS
        call print_dec
        say " iterations each", 10
        call idt_load
        lea rdi, [rel ipi_handler]
        mov ecx, IPI_VECTOR
        call set_gate
        lea rdi, [rel timer_handler]
        mov ecx, TIMER_VECTOR
        call set_gate
        mov qword [rel next_fresh], FRESH_START

        lea rdi, [rel body_empty]
        call time_loop
        mov [rel baseline], rax
        say "exitcost: loop overhead "
        call print_dec
        say " cycles/iteration (subtracted below)", 10

        measure "xapic_eoi", body_xapic_eoi
        call x2apic_enable
        measure "cpuid", body_cpuid
        measure "rdmsr", body_rdmsr
        measure "wrmsr", body_wrmsr
        measure "io_unclaimed", body_io_unclaimed
        measure "io_uart_lsr", body_io_uart_lsr
        measure "x2apic_eoi", body_eoi
        measure "self_ipi", body_self_ipi
        cmp qword [rel ipi_count], ITERATIONS + 1
        jne .ipi_lost
        measure "ept_zero_fill", body_touch_fresh
        measure "page_clear", body_clear_page

        call hlt_timer
        say "exitcost: hlt_timer "
        call print_dec
        say " cycles from the deadline to the handler", 10
        cmp qword [rel timer_count], ITERATIONS
        jne .timer_lost

        say "exitcost: PASS", 10
        test_exit 0
        stop

.ipi_lost:
        say "exitcost: FAIL self-IPIs delivered: "
        mov rax, [rel ipi_count]
        jmp .fail
.timer_lost:
        say "exitcost: FAIL timer interrupts: "
        mov rax, [rel timer_count]
.fail:
        call print_dec
        say 10
        test_exit 1
        stop

; time_loop: RDI = body (a routine; it may clobber RAX-RDX, RSI, RDI).
; Returns RAX = cycles per call, minus [baseline] (at least 0).
time_loop:
        push r12
        push r13
        push r14
        mov r14, rdi
        call r14                        ; warm-up, untimed
        mov r13d, ITERATIONS
        tsc_to r12
.again:
        call r14
        dec r13d
        jnz .again
        tsc_to rax
        sub rax, r12
        xor edx, edx
        mov ecx, ITERATIONS
        div rcx
        sub rax, [rel baseline]
        jae .done
        xor eax, eax
.done:
        pop r14
        pop r13
        pop r12
        ret

body_empty:
        ret

body_cpuid:
        xor eax, eax
        xor ecx, ecx
        cpuid
        ret

body_rdmsr:
        mov ecx, MSR_TSC_DEADLINE
        rdmsr
        ret

body_wrmsr:
        mov ecx, MSR_TSC_DEADLINE
        xor eax, eax
        xor edx, edx
        wrmsr
        ret

body_io_unclaimed:
        mov dx, UNCLAIMED_PORT
        in al, dx
        ret

body_io_uart_lsr:
        mov dx, COM1_LSR
        in al, dx
        ret

body_xapic_eoi:
        mov esi, XAPIC_EOI
        xor eax, eax
        mov [rsi], eax
        ret

body_eoi:
        mov ecx, MSR_X2APIC_EOI
        xor eax, eax
        xor edx, edx
        wrmsr
        ret

; The WRMSR sits in STI's shadow; the IPI is taken right after it.
body_self_ipi:
        mov ecx, MSR_X2APIC_SELF_IPI
        mov eax, IPI_VECTOR
        xor edx, edx
        sti
        wrmsr
        cli
        ret

body_touch_fresh:
        mov rax, [rel next_fresh]
        mov byte [rax], 1
        add qword [rel next_fresh], PAGE_SIZE
        ret

body_clear_page:
        mov edi, CLEAR_PAGE
        mov ecx, PAGE_SIZE
        xor eax, eax
        rep stosb
        ret

; hlt_timer: RAX = mean cycles from each deadline to its handler.
hlt_timer:
        push r12
        push r13
        mov ecx, MSR_X2APIC_LVT_TIMER
        mov eax, TIMER_VECTOR | LVT_TIMER_TSC_DEADLINE
        xor edx, edx
        wrmsr
        xor r12d, r12d                  ; sum of the latencies
        mov r13d, ITERATIONS
.again:
        tsc_to rax
        add rax, TIMER_DELAY
        mov [rel deadline], rax
        mov rdx, rax
        shr rdx, 32
        mov ecx, MSR_TSC_DEADLINE
        wrmsr
        sti
        hlt                             ; in STI's shadow: no race
        cli
        mov rax, [rel wake_tsc]
        sub rax, [rel deadline]
        add r12, rax
        dec r13d
        jnz .again
        mov rax, r12
        xor edx, edx
        mov ecx, ITERATIONS
        div rcx
        pop r13
        pop r12
        ret

ipi_handler:
        inc qword [rel ipi_count]
        call x2apic_eoi
        iretq

timer_handler:
        push rax
        push rdx
        tsc_to [rel wake_tsc]
        inc qword [rel timer_count]
        call x2apic_eoi
        pop rdx
        pop rax
        iretq

align 8
baseline:       dq 0
next_fresh:     dq 0
ipi_count:      dq 0
timer_count:    dq 0
deadline:       dq 0
wake_tsc:       dq 0
