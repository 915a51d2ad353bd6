; SPDX-License-Identifier: BSD-2-Clause
;
; hostile: a ring-0 guest that does what a guest must not be able to hurt
; the hypervisor with, and checks it gets KVM's answer each time:
;   - VMCALL with an unknown hypercall number: RAX = -KVM_ENOSYS (-1000),
;     the guest goes on;
;   - VMXON, VMCLEAR, VMPTRLD, VMPTRST, VMREAD, VMWRITE, VMLAUNCH,
;     VMRESUME, VMXOFF, INVEPT, INVVPID: #UD each;
;   - MONITOR and MWAIT (CPUID hides them): #UD each;
;   - CR8 = 15, then read back as CR8 and as the x2APIC TPR (0xf0): it
;     is the virtual LAPIC's, not the host's; CR8 = 16 raises #GP;
;   - XSETBV of values the CPU refuses: XCR1, AVX without SSE, and where
;     CPUID leaf 0xD offers them, one half of the MPX pair and a part of
;     the AVX-512 triple: #GP each (before the fix of the last two, the
;     hypervisor executed them itself and took #GP in root mode); a valid
;     value afterwards does not fault;
;   - WRMSR of values the CPU refuses to the MSRs apfvisor keeps in the
;     VMCS: IA32_PAT with a reserved memory type, non-canonical
;     SYSENTER_ESP and SYSENTER_EIP, a reserved DEBUGCTL bit, EFER.LME
;     cleared while paging is on: #GP each (before, each one reached the
;     VMCS and failed the next VM entry); valid values still load;
;   - string I/O: REP OUTSB to COM1 (a line on the console), REP INSB
;     from an unclaimed port into a buffer across pages (all ones), OUTSB
;     from an unmapped address (#PF, CR2 = the address);
;   - kvmclock records: past RAM #GP (KVM would take it and never
;     write), across a page boundary written whole;
;   - an interrupt storm: a periodic LAPIC timer of one count, held to
;     one interrupt per 200 us;
;   - a console line with VT, FF, NEL, U+2028, CR and ESC between forged
;     "apfvisor:" lines: apfvisor prints it escaped, as one guest line;
;   - MOV to CR0 that exits (NE flipped) with NW but not CD, with a bit
;     of 63:32 set, or clearing PG in 64-bit mode: #GP each; a valid
;     flip of NE still works;
;   - #DB and #AC, which apfvisor intercepts only to give them back (so
;     that a delivery raising them again exits each time rather than
;     looping in microcode): a data breakpoint and INT1 reach the guest's
;     #DB handler (DR6.B0 set for the breakpoint), a misaligned load at
;     CPL 3 with CR0.AM and EFLAGS.AC its #AC handler, once each; RDPMC
;     raises #GP (no PMU is offered, the host's counters stay unread).
; Prints "hostile: PASS" and exits with code 0, or a FAIL line and code 1.

        bits 64
        org 0x200000
%include "guest.inc"
%include "interrupts.inc"

EXC_DB          equ 1
EXC_UD          equ 6
EXC_GP          equ 13
EXC_AC          equ 17
CR0_AM          equ 1 << 18
RFLAGS_AC       equ 1 << 18
DR7_L0_WRITES_4 equ (1 << 0) | (1 << 16) | (3 << 18)  ; L0, RW0 01, LEN0 11
KERNEL_DATA_SEL equ 0x18                ; guest/loaders/boot_state.c's layout
TSS_SEL         equ 0x20
USER_DATA_SEL   equ 0x30 | 3
USER_CODE_SEL   equ 0x38 | 3
PTE_USER        equ 1 << 2
BACK_VECTOR     equ 0x80                ; CPL 3's way back, a DPL 3 gate
CR4_OSXSAVE     equ 1 << 18
CR0_NE          equ 1 << 5
CR0_NW          equ 1 << 29
CR0_PG          equ 1 << 31
MSR_SYSENTER_ESP equ 0x175
MSR_SYSENTER_EIP equ 0x176
MSR_DEBUGCTL    equ 0x1d9
MSR_PAT         equ 0x277
MSR_EFER        equ 0xc0000080
EFER_LME        equ 1 << 8
PAT_DEFAULT_LOW equ 0x00070406
MSR_KVM_WALL_CLOCK_NEW  equ 0x4b564d00
EXC_PF          equ 14
UNCLAIMED_PORT  equ 0xe0
UNMAPPED        equ 0x123400000             ; above the 4 GiB mapped
TIMER_VECTOR    equ 0xf0
LVT_PERIODIC    equ 1 << 17
MSR_X2APIC_TIMER_INIT equ 0x838
MSR_X2APIC_TIMER_DCR  equ 0x83e
STORM_LOOPS     equ 3000000
MSR_KVM_SYSTEM_TIME_NEW equ 0x4b564d01
XCR0_X87_SSE_AVX equ 7
XCR0_BNDREGS    equ 1 << 3
XCR0_OPMASK     equ 1 << 5

; xsetbv_with VALUE: XSETBV of VALUE (EDX:EAX) into the XCR that ECX names.
%macro xsetbv_with 1
        mov eax, %1
        xor edx, edx
        xsetbv
%endmacro

; wrmsr_with MSR, HIGH, LOW: WRMSR of HIGH:LOW into MSR.
%macro wrmsr_with 3
        mov ecx, %1
        mov edx, %2
        mov eax, %3
        wrmsr
%endmacro

; efer_without_lme: EFER with LME cleared, paging on.
%macro efer_without_lme 0
        mov ecx, MSR_EFER
        rdmsr
        and eax, ~EFER_LME
        wrmsr
%endmacro

; cr0_flip_ne_with OP, OPERAND: CR0 with NE flipped (so the write exits)
; and OP applied to it with OPERAND (in RDX).
%macro cr0_flip_ne_with 2
        mov rax, cr0
        xor rax, CR0_NE
        mov rdx, %2
        %1 rax, rdx
        mov cr0, rax
%endmacro

; kvmclock_at MSR, REG, ENABLE: WRMSR of REG | ENABLE into MSR.
%macro kvmclock_at 3
        mov ecx, %1
        mov rax, %2
        or rax, %3
        mov rdx, rax
        shr rdx, 32
        wrmsr
%endmacro

; cr0_nw_without_cd: CR0 with NE flipped (so the write exits), NW set
; and CD clear.
%macro cr0_nw_without_cd 0
        mov rax, cr0
        xor rax, CR0_NE
        btr rax, 30                     ; CD
        bts rax, 29                     ; NW
        mov cr0, rax
%endmacro

; cr8_with VALUE: MOV of VALUE to CR8.
%macro cr8_with 1
        mov eax, %1
        mov cr8, rax
%endmacro

; expect_fault VECTOR, instruction...: the instruction must raise VECTOR;
; the handler resumes after it. RAX is clobbered before the instruction.
%macro expect_fault 2+
        lea rax, [rel %%after]
        mov [rel resume_at], rax
        mov byte [rel want_vector], %1
        inc qword [rel expected]
        %2
        inc qword [rel missing]         ; no fault: fell through
%%after:
%endmacro

; expect_no_fault instruction...: a fault counts as wrong and resumes
; after the instruction.
%macro expect_no_fault 1+
        lea rax, [rel %%after]
        mov [rel resume_at], rax
        mov byte [rel want_vector], 0xff
        %1
%%after:
%endmacro



        guest_entry
        say "hostile: start", 10
        call x2apic_enable
        call idt_load
        lea rdi, [rel ud_handler]
        mov ecx, EXC_UD
        call set_gate
        lea rdi, [rel gp_handler]
        mov ecx, EXC_GP
        call set_gate
        lea rdi, [rel pf_handler]
        mov ecx, EXC_PF
        call set_gate

        ; VMCALL: an error code, no exception.
        mov rax, 0x1234
        vmcall
        cmp rax, -1000
        jne .vmcall_wrong
        say "hostile: vmcall returned -1000 (-KVM_ENOSYS)", 10

        ; The VMX instructions: #UD.
        expect_fault EXC_UD, vmxon [rel vmx_region]
        expect_fault EXC_UD, vmclear [rel vmx_region]
        expect_fault EXC_UD, vmptrld [rel vmx_region]
        expect_fault EXC_UD, vmptrst [rel vmx_region]
        expect_fault EXC_UD, vmread rbx, rcx
        expect_fault EXC_UD, vmwrite rcx, rbx
        expect_fault EXC_UD, vmlaunch
        expect_fault EXC_UD, vmresume
        expect_fault EXC_UD, vmxoff
        xor ecx, ecx
        expect_fault EXC_UD, invept rcx, [rel vmx_region]
        expect_fault EXC_UD, invvpid rcx, [rel vmx_region]
        say "hostile: 11 VMX instructions checked", 10

        ; MONITOR and MWAIT, hidden in CPUID: #UD, never a parked CPU.
        xor ecx, ecx
        xor edx, edx
        expect_fault EXC_UD, monitor
        xor ecx, ecx
        expect_fault EXC_UD, mwait
        say "hostile: MONITOR and MWAIT raise #UD", 10

        ; CR8: the virtual LAPIC's priority class, 4 bits.
        mov eax, 15
        mov cr8, rax
        mov rbx, cr8
        cmp rbx, 15
        jne .cr8_wrong
        mov ecx, MSR_X2APIC_TPR
        rdmsr
        cmp eax, 0xf0
        jne .cr8_wrong
        expect_fault EXC_GP, cr8_with 16
        xor eax, eax
        mov cr8, rax
        say "hostile: cr8 is the virtual TPR's class; bits 63:4 raise #GP", 10

        call exceptions_given_back
        mov rax, [rel db_taken]
        cmp rax, 2
        jne .given_back_wrong
        cmp qword [rel db_b0], 1
        jne .given_back_wrong
        cmp qword [rel ac_taken], 1
        jne .given_back_wrong
        cmp qword [rel ac_missed], 0
        jne .given_back_wrong
        say "hostile: #DB (data breakpoint, INT1) and #AC (CPL 3) reached the guest's handlers; RDPMC raised #GP", 10

        ; XSETBV: turn on CR4.OSXSAVE, read what CPUID.(0xD,0) offers.
        mov rax, cr4
        or rax, CR4_OSXSAVE
        mov cr4, rax
        mov eax, 0xd
        xor ecx, ecx
        cpuid
        mov [rel xcr0_supported], eax
        mov ecx, 1                      ; XCR1 is not XCR0
        expect_fault EXC_GP, xsetbv_with 3
        xor ecx, ecx
        expect_fault EXC_GP, xsetbv_with 5      ; AVX without SSE
        test dword [rel xcr0_supported], XCR0_BNDREGS
        jz .no_mpx
        say "hostile: MPX offered: checking half of the pair", 10
        xor ecx, ecx
        expect_fault EXC_GP, xsetbv_with XCR0_X87_SSE_AVX | XCR0_BNDREGS
.no_mpx:
        test dword [rel xcr0_supported], XCR0_OPMASK
        jz .no_avx512
        say "hostile: AVX-512 offered: checking a third of it", 10
        xor ecx, ecx
        expect_fault EXC_GP, xsetbv_with XCR0_X87_SSE_AVX | XCR0_OPMASK
.no_avx512:
        ; A valid value loads without a fault.
        xor ecx, ecx
        xor edx, edx
        mov eax, XCR0_X87_SSE_AVX
        xsetbv
        say "hostile: a valid XCR0 loaded", 10

        ; MSRs kept in the VMCS: what the CPU refuses is #GP.
        expect_fault EXC_GP, wrmsr_with MSR_PAT, PAT_DEFAULT_LOW, 0x00070402
        expect_fault EXC_GP, wrmsr_with MSR_PAT, 0x00080406, PAT_DEFAULT_LOW
        expect_fault EXC_GP, wrmsr_with MSR_SYSENTER_ESP, 0x00008000, 0
        expect_fault EXC_GP, wrmsr_with MSR_SYSENTER_EIP, 0x80000000, 0
        expect_fault EXC_GP, wrmsr_with MSR_DEBUGCTL, 0, 1 << 2
        expect_fault EXC_GP, efer_without_lme
        expect_no_fault wrmsr_with MSR_PAT, PAT_DEFAULT_LOW, 0x00070106
        mov ecx, MSR_PAT
        rdmsr
        cmp eax, 0x00070106
        jne .msr_wrong
        expect_no_fault wrmsr_with MSR_SYSENTER_EIP, 0xffffffff, 0x81000000
        expect_no_fault wrmsr_with MSR_DEBUGCTL, 0, 0
        say "hostile: PAT, SYSENTER, DEBUGCTL and EFER values refused with #GP", 10

        ; CR0 writes that exit: checked as the CPU would.
        expect_fault EXC_GP, cr0_nw_without_cd
        expect_fault EXC_GP, cr0_flip_ne_with or, 1 << 32
        expect_fault EXC_GP, cr0_flip_ne_with and, ~CR0_PG
        expect_no_fault cr0_flip_ne_with or, 0
        expect_no_fault cr0_flip_ne_with or, 0
        mov rax, cr0
        test eax, CR0_NE
        jz .cr0_wrong
        say "hostile: CR0 values refused with #GP; NE flips", 10

        ; String I/O, emulated: REP OUTSB to COM1 prints a line; REP INSB
        ; from an unclaimed port across a page boundary reads all ones;
        ; OUTSB from an unmapped address raises #PF with CR2 = it.
        lea rsi, [rel outs_text]
        mov ecx, outs_text_end - outs_text
        mov dx, COM1_DATA
        rep outsb
        test ecx, ecx
        jnz .string_io_wrong
        lea rax, [rel outs_text_end]
        cmp rsi, rax
        jne .string_io_wrong
        lea rdi, [rel kvm_area + 4096 - 4]
        mov ecx, 8
        mov dx, UNCLAIMED_PORT
        rep insb
        lea rax, [rel kvm_area + 4096 + 4]
        cmp rdi, rax
        jne .string_io_wrong
        mov rax, [rel kvm_area + 4096 - 4]
        cmp rax, -1
        jne .string_io_wrong
        mov rsi, UNMAPPED
        mov dx, UNCLAIMED_PORT
        expect_fault EXC_PF, outsb
        mov rax, UNMAPPED
        cmp [rel pf_cr2], rax
        jne .string_io_wrong
        say "hostile: rep outsb, rep insb across pages, #PF from outsb", 10

        ; kvmclock areas: past RAM is refused (#GP); across a page
        ; boundary works (the record is written whole); off is off.
        mov r12, [rel ram_size]
        expect_fault EXC_GP, kvmclock_at MSR_KVM_SYSTEM_TIME_NEW, r12, 1
        expect_fault EXC_GP, kvmclock_at MSR_KVM_WALL_CLOCK_NEW, r12, 0
        lea r12, [rel kvm_area + 4096 - 16]
        expect_no_fault kvmclock_at MSR_KVM_SYSTEM_TIME_NEW, r12, 1
        mov eax, [r12]                  ; version: even, not 0
        test eax, 1
        jnz .kvmclock_wrong
        test eax, eax
        jz .kvmclock_wrong
        cmp dword [r12 + 24], 0         ; tsc_to_system_mul, next page
        je .kvmclock_wrong
        lea r12, [rel kvm_area + 2 * 4096 - 4]
        expect_no_fault kvmclock_at MSR_KVM_WALL_CLOCK_NEW, r12, 0
        cmp dword [r12], 2              ; its version
        jne .kvmclock_wrong
        xor r12, r12
        expect_no_fault kvmclock_at MSR_KVM_SYSTEM_TIME_NEW, r12, 0
        say "hostile: kvmclock past RAM refused, across pages written whole", 10

        ; An interrupt storm: a periodic LAPIC timer of one count. apfvisor
        ; raises the period to 200 us (as KVM), so the guest gets on with
        ; its loop; the count must stay within the elapsed time / 200 us.
        ; Time from the TSC by the kvmclock record written above.
        lea rdi, [rel timer_handler]
        mov ecx, TIMER_VECTOR
        call set_gate
        mov ecx, MSR_X2APIC_LVT_TIMER
        mov eax, LVT_PERIODIC | TIMER_VECTOR
        xor edx, edx
        wrmsr
        mov ecx, MSR_X2APIC_TIMER_DCR
        mov eax, 0xb                    ; divide by 1
        wrmsr
        rdtsc
        shl rdx, 32
        or rax, rdx
        mov r13, rax                    ; start
        mov ecx, MSR_X2APIC_TIMER_INIT
        mov eax, 1
        xor edx, edx
        wrmsr
        sti
        mov rcx, STORM_LOOPS
.storm:
        dec rcx
        jnz .storm
        cli
        mov ecx, MSR_X2APIC_TIMER_INIT
        xor eax, eax
        xor edx, edx
        wrmsr
        rdtsc
        shl rdx, 32
        or rax, rdx
        sub rax, r13                    ; elapsed TSC
        lea r12, [rel kvm_area + 4096 - 16]
        movsx ecx, byte [r12 + 28]      ; tsc_shift
        test ecx, ecx
        js .shift_right
        shl rax, cl
        jmp .scaled
.shift_right:
        neg ecx
        shr rax, cl
.scaled:
        mov edx, [r12 + 24]             ; tsc_to_system_mul
        mul rdx
        shrd rax, rdx, 32               ; ns
        xor edx, edx
        mov ecx, 1000
        div rcx                         ; us
        mov r14, rax
        say "hostile: periodic timer of 1 count: "
        mov rax, [rel timer_ticks]
        call print_dec
        say " interrupts in "
        mov rax, r14
        call print_dec
        say " us", 10
        mov rax, r14
        xor edx, edx
        mov ecx, 200
        div rcx
        add rax, 2                      ; at most one per 200 us, +2
        cmp [rel timer_ticks], rax
        ja .storm_wrong
        cmp qword [rel timer_ticks], 0
        je .storm_wrong
        say "hostile: the timer storm was held to one interrupt per 200 us", 10

        ; A line that tries to pass for apfvisor's: shown escaped, on the
        ; guest's own line (the test checks the exact text).
        say "hostile: forged ", 0x0b, "apfvisor: error: forged", 0xe2, 0x80, 0xa8, "apfvisor: stat exit.vmcall 999", 0x0c, 0xc2, 0x85, 13, "x\y", 0x1b, "[2K", 10

        mov rax, [rel missing]
        or rax, [rel wrong]
        jnz .faults_wrong
        say "hostile: "
        mov rax, [rel expected]
        call print_dec
        say " faults as expected", 10

        ; The console (issue 25): guest lines apfvisor must print whole,
        ; each on its own "guest: " line, so that its own lines after them
        ; still start at column 0. The test checks the record.
CONSOLE_BUFFER  equ 0x400000                    ; 4 MiB, free RAM
CONSOLE_QUIET_NS equ 300000000                  ; 3 x the prompt flush
; write_escs: 256 ESC bytes to COM1, no newline.
%macro write_escs 0
        mov edi, CONSOLE_BUFFER
        mov al, 0x1b
        mov ecx, 256
        rep stosb
        mov esi, CONSOLE_BUFFER
        mov ecx, 256
        mov dx, COM1_DATA
        rep outsb
%endmacro
        ; A line of 4 KiB of letters: 16 guest lines of 256 bytes.
        mov edi, CONSOLE_BUFFER
        xor ecx, ecx
.letters:
        mov eax, ecx
        xor edx, edx
        mov ebx, 26
        div ebx
        add dl, 'a'
        mov [rdi + rcx], dl
        inc ecx
        cmp ecx, 4096
        jb .letters
        mov esi, CONSOLE_BUFFER
        mov ecx, 4096
        mov dx, COM1_DATA
        rep outsb
        say 10
        ; 256 ESC bytes: 1024 characters once escaped, past the 512-byte
        ; buffer that cut them (and their newline) before.
        write_escs
        say 10
        ; A lone CR: dropped, the line goes on.
        say "hostile: a lone CR:", 13, "is dropped", 10
        ; No newline, then nothing for 300 ms: apfvisor prints the line
        ; alone (it shows a prompt that way), and what follows starts a
        ; line of its own.
        say "hostile: no newline, then quiet"
        lea r12, [rel kvm_area + 4096 - 16]     ; the kvmclock record
        rdtsc
        shl rdx, 32
        or rax, rdx
        mov r13, rax
.quiet:
        mov dx, COM1_LSR                ; an exit: the console gets polled
        in al, dx
        rdtsc
        shl rdx, 32
        or rax, rdx
        sub rax, r13
        movsx ecx, byte [r12 + 28]      ; tsc_shift
        test ecx, ecx
        js .quiet_right
        shl rax, cl
        jmp .quiet_scaled
.quiet_right:
        neg ecx
        shr rax, cl
.quiet_scaled:
        mov edx, [r12 + 24]             ; tsc_to_system_mul
        mul rdx
        shrd rax, rdx, 32               ; ns
        cmp rax, CONSOLE_QUIET_NS
        jb .quiet
        say "hostile: PASS", 10
        ; 256 ESC bytes and no newline, then the end: the flushed line is
        ; followed by apfvisor's "guest halted" line at once.
        write_escs
        test_exit 0
        stop

.cr8_wrong:
        say "hostile: FAIL cr8 read back "
        mov rax, rbx
        call print_hex
        say 10
        test_exit 1
        stop

.storm_wrong:
        say "hostile: FAIL the periodic timer fired too often or never", 10
        test_exit 1
        stop

.string_io_wrong:
        say "hostile: FAIL string I/O moved the wrong data or registers", 10
        test_exit 1
        stop

.kvmclock_wrong:
        say "hostile: FAIL the kvmclock record across pages is wrong", 10
        test_exit 1
        stop

.cr0_wrong:
        say "hostile: FAIL CR0 "
        call print_hex
        say " after two NE flips; faults missing "
        mov rax, [rel missing]
        call print_dec
        say ", wrong "
        mov rax, [rel wrong]
        call print_dec
        say 10
        test_exit 1
        stop

.msr_wrong:
        say "hostile: FAIL a valid PAT or CR0 value did not load", 10
        test_exit 1
        stop

.given_back_wrong:
        say "hostile: FAIL #DB taken "
        mov rax, [rel db_taken]
        call print_dec
        say " (want 2), with DR6.B0 "
        mov rax, [rel db_b0]
        call print_dec
        say " (want 1); #AC taken "
        mov rax, [rel ac_taken]
        call print_dec
        say " (want 1), CPL 3 went on without it "
        mov rax, [rel ac_missed]
        call print_dec
        say 10
        test_exit 1
        stop

.vmcall_wrong:
        say "hostile: FAIL vmcall returned "
        call print_hex
        say 10
        test_exit 1
        stop
.faults_wrong:
        say "hostile: FAIL expected "
        mov rax, [rel expected]
        call print_dec
        say " faults: missing "
        mov rax, [rel missing]
        call print_dec
        say ", wrong vector "
        mov rax, [rel wrong]
        call print_dec
        say 10
        test_exit 1
        stop

; The handlers count the fault against want_vector and resume at
; resume_at (the instruction after the one that faulted).
ud_handler:
        push rax
        cmp byte [rel want_vector], EXC_UD
        je .ok
        inc qword [rel wrong]
.ok:
        mov rax, [rel resume_at]
        mov [rsp + 8], rax              ; the frame's RIP
        pop rax
        iretq

gp_handler:
        push rax
        cmp byte [rel want_vector], EXC_GP
        je .ok
        inc qword [rel wrong]
.ok:
        mov rax, [rel resume_at]
        mov [rsp + 16], rax             ; RIP, above the error code
        pop rax
        add rsp, 8                      ; the error code
        iretq

pf_handler:
        push rax
        cmp byte [rel want_vector], EXC_PF
        je .ok
        inc qword [rel wrong]
.ok:
        mov rax, cr2
        mov [rel pf_cr2], rax
        mov rax, [rel resume_at]
        mov [rsp + 16], rax             ; RIP, above the error code
        pop rax
        add rsp, 8                      ; the error code
        iretq

timer_handler:
        inc qword [rel timer_ticks]
        call x2apic_eoi
        iretq

%include "hostile_exceptions.inc"

outs_text:      db "hostile: rep outsb reached COM1", 10
outs_text_end:

align 8
timer_ticks:    dq 0
pf_cr2:         dq 0
resume_at:      dq 0
expected:       dq 0
missing:        dq 0
wrong:          dq 0
xcr0_supported: dd 0
want_vector:    db 0
align 8
db_taken:       dq 0
db_b0:          dq 0
ac_taken:       dq 0
ac_missed:      dq 0
kernel_rsp:     dq 0
kernel_rflags:  dq 0
watched:        dd 0
align 16
; guest/loaders/boot_state.c's GDT (code32, code64, data, TSS at 0x20) plus user
; data (0x30) and user code (0x38), all DPL 3 ones flat.
hostile_gdt:
        dq 0
        dq 0x00cf9b000000ffff           ; 0x08 code32
        dq 0x00af9b000000ffff           ; 0x10 code64
        dq 0x00cf93000000ffff           ; 0x18 data
gdt_tss:
        dq 0x0000890000000067           ; 0x20 TSS (available), base set
        dq 0                            ; at run time
        dq 0x00cff3000000ffff           ; 0x30 user data
        dq 0x00affb000000ffff           ; 0x38 user code64
hostile_gdt_end:
hostile_gdt_desc:
        dw hostile_gdt_end - hostile_gdt - 1
hostile_gdt_base:
        dq 0
align 16
hostile_tss:    times 104 db 0
align 16
ring0_stack:    times 1024 db 0
ring0_stack_top:
user_stack:     times 1024 db 0
user_stack_top:
align 4096
vmx_region:     times 4096 db 0
kvm_area:       times 2 * 4096 db 0
