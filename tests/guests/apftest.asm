; SPDX-License-Identifier: BSD-2-Clause
;
; apftest: a guest with its own handler for KVM's async page faults
; (../shared/APF-PROTOCOL.md), run with less host memory than it touches.
;
;  1. The MSR rules, from inside: values KVM refuses raise #GP (a shared
;     area outside RAM, a reserved EN bit, delivery by #PF VM exit that is
;     not offered); the guest counts the #GPs it expected.
;  2. It enables the protocol (x2APIC on, page-ready vector PAGE_READY_VEC,
;     EN = area | ENABLED | SEND_ALWAYS | DELIVERY_AS_INT), fills 24 MiB
;     with a pattern (more than host.guest_frames: most of it goes to swap),
;     then verifies it all with interrupts enabled.
;  3. Each "page not present" arrives as #PF with a token in CR2 and reason
;     1 in the area's flags word. The handler clears the flags, then does
;     other work (counts) with interrupts enabled until the page-ready
;     interrupt brings the same token, and returns: the access is retried.
;     The page-ready handler takes the token from the area, frees the slot
;     (token word 0), writes MSR_KVM_ASYNC_PF_ACK and EOIs.
;  4. It prints the counts: async faults, page-ready interrupts, other work
;     done while waiting, #GPs.
;  5. Turning the protocol off with a token outstanding (APF-PROTOCOL.md
;     section 7): a second verify pass; at its first async fault the #PF
;     handler disables the protocol (EN = 0) and returns at once without
;     waiting, so the access is retried and served synchronously, as is
;     every fault after it. That token's page-ready must never come.
;  6. On again: a third verify pass with the protocol re-enabled; its
;     tokens are new ones and each gets its page-ready. PASS when the data
;     and all the counts are right.

        bits 64
        org 0x200000
        %include "guest.inc"
        %include "interrupts.inc"

PAGE_SIZE               equ 4096
REGION_START            equ 8 * MIB
REGION_END              equ 32 * MIB     ; = guest.memory (apftest.cfg)
PATTERN                 equ 0x3c3c5a5a3c3c5a5a
PAGE_READY_VEC          equ 0xec
MSR_KVM_ASYNC_PF_EN     equ 0x4b564d02
MSR_KVM_ASYNC_PF_INT    equ 0x4b564d06
MSR_KVM_ASYNC_PF_ACK    equ 0x4b564d07
APF_ENABLED             equ 1
APF_SEND_ALWAYS         equ 2
APF_AS_PF_VMEXIT        equ 4
APF_AS_INT              equ 8
APF_RESERVED_BIT4       equ 0x10
WAKE_ALL                equ 0xffffffff
READY_RING              equ 16          ; recent page-ready tokens kept

        guest_entry
        say "apftest: start", 10
        call idt_load
        lea rdi, [rel gp_handler]
        mov ecx, 13
        call set_gate
        lea rdi, [rel pf_handler]
        mov ecx, 14
        call set_gate
        lea rdi, [rel ready_handler]
        mov ecx, PAGE_READY_VEC
        call set_gate

        ; x2APIC on and software-enabled: page-ready comes through it.
        call x2apic_enable

        ; 1. Values KVM refuses: each must raise #GP.
        mov ecx, MSR_KVM_ASYNC_PF_INT
        mov eax, PAGE_READY_VEC
        xor edx, edx
        wrmsr
        mov rax, [rel ram_size]         ; an area beyond the end of RAM
        or rax, APF_ENABLED | APF_AS_INT
        call wrmsr_expect_gp
        lea rax, [rel apf_area]
        or rax, APF_ENABLED | APF_AS_INT | APF_RESERVED_BIT4
        call wrmsr_expect_gp
        lea rax, [rel apf_area]
        or rax, APF_ENABLED | APF_AS_INT | APF_AS_PF_VMEXIT
        call wrmsr_expect_gp
        cmp qword [rel gp_count], 3
        jne .gp_missing
        say "apftest: 3 refused MSR values raised #GP", 10

        ; 2. Enable, with interrupts on (a "wake all" may come at once).
        call enable_apf
        sti
        say "apftest: async page faults enabled, filling "
        mov rax, (REGION_END - REGION_START) / MIB
        call print_dec
        say " MiB", 10

        mov r13, PATTERN
        mov rdi, REGION_START
.fill:
        mov rax, rdi
        xor rax, r13
        mov [rdi], rax
        add rdi, 8
        cmp rdi, REGION_END
        jb .fill

        call verify_region
        cli

        say "apftest: data verified; async faults "
        mov rax, [rel async_faults]
        call print_dec
        say ", page-ready "
        mov rax, [rel ready_count]
        call print_dec
        say ", wake-all "
        mov rax, [rel wake_all_count]
        call print_dec
        say ", other work while waiting "
        mov rax, [rel other_work]
        call print_dec
        say 10
        cmp qword [rel async_faults], 0
        je .no_async
        mov rax, [rel async_faults]
        cmp rax, [rel ready_count]
        ja .ready_missing
        cmp qword [rel other_work], 0
        je .no_work

        ; 5. Off with a token outstanding: the first async fault of this
        ;    pass turns the protocol off; the rest of the pass is synchronous.
        mov byte [rel disable_on_fault], 1
        sti
        call verify_region
        cli
        cmp byte [rel disable_on_fault], 2
        jne .not_disabled
        mov rax, [rel async_faults]
        cmp rax, [rel faults_at_disable]
        jne .async_after_off
        say "apftest: turned off with token "
        mov eax, [rel stale_token]
        call print_hex
        say " outstanding; data verified synchronously", 10

        ; 6. On again: fresh tokens, each with its page-ready.
        mov rax, [rel async_faults]
        mov [rel faults_before_on], rax
        mov rax, [rel ready_count]
        mov [rel ready_before_on], rax
        call enable_apf
        sti
        call verify_region
        cli
        mov rax, [rel async_faults]
        sub rax, [rel faults_before_on]
        mov r14, rax
        mov rax, [rel ready_count]
        sub rax, [rel ready_before_on]
        mov r15, rax
        say "apftest: on again; data verified; async faults "
        mov rax, r14
        call print_dec
        say ", page-ready "
        mov rax, r15
        call print_dec
        say ", stale page-ready "
        mov rax, [rel stale_ready]
        call print_dec
        say 10
        test r14, r14
        jz .no_async
        cmp r14, r15
        jne .ready_missing
        cmp qword [rel stale_ready], 0
        jne .stale
        say "apftest: PASS", 10
        test_exit 0
        stop

.not_disabled:
        say "apftest: FAIL no async fault in the pass that turns it off", 10
        jmp fail
.async_after_off:
        say "apftest: FAIL async fault after the protocol was turned off", 10
        jmp fail
.stale:
        say "apftest: FAIL page-ready for the token outstanding at off", 10
        jmp fail

.gp_missing:
        say "apftest: FAIL expected 3 #GP, got "
        mov rax, [rel gp_count]
        call print_dec
        say 10
        jmp fail
.no_async:
        say "apftest: FAIL no async page fault arrived", 10
        jmp fail
.ready_missing:
        say "apftest: FAIL fewer page-ready than async faults", 10
        jmp fail
.no_work:
        say "apftest: FAIL no other work done while waiting", 10
fail:
        test_exit 1
        stop

; verify_region: the pattern must be in every word of the region.
verify_region:
        mov rdi, REGION_START
.next:
        mov rax, rdi
        xor rax, r13
        cmp [rdi], rax
        jne .bad
        add rdi, 8
        cmp rdi, REGION_END
        jb .next
        ret
.bad:
        say "apftest: FAIL wrong data at "
        mov rax, rdi
        call print_hex
        say 10
        jmp fail

enable_apf:
        mov ecx, MSR_KVM_ASYNC_PF_EN
        lea rax, [rel apf_area]
        or rax, APF_ENABLED | APF_SEND_ALWAYS | APF_AS_INT
        mov rdx, rax
        shr rdx, 32
        wrmsr
        ret

; wrmsr_expect_gp: RAX = value for MSR_KVM_ASYNC_PF_EN; the #GP handler
; skips the WRMSR and counts it.
wrmsr_expect_gp:
        mov ecx, MSR_KVM_ASYNC_PF_EN
        mov rdx, rax
        shr rdx, 32
        mov byte [rel gp_expected], 1
        wrmsr                           ; 2 bytes: skipped by gp_handler
        mov byte [rel gp_expected], 0
        ret

gp_handler:
        cmp byte [rel gp_expected], 0
        je .unexpected
        inc qword [rel gp_count]
        add qword [rsp + 8], 2          ; past the error code: RIP
        add rsp, 8                      ; drop the error code
        iretq
.unexpected:
        say "apftest: FAIL unexpected #GP", 10
        jmp fail

; #PF: only async "page not present" may come (the identity map is
; complete). Wait, doing other work, for the page-ready with the token.
pf_handler:
        push rax
        push rbx
        push rcx
        cmp dword [rel apf_area], 1     ; flags: the reason
        jne .real_fault
        mov rbx, cr2                    ; the token
        mov dword [rel apf_area], 0     ; consumed
        inc qword [rel async_faults]
        cmp byte [rel disable_on_fault], 1
        je .turn_off
        sti
.wait:
        inc qword [rel other_work]
        mov ecx, READY_RING
        lea rax, [rel ready_ring]
.scan:
        cmp [rax], ebx
        je .ready
        add rax, 4
        dec ecx
        jnz .scan
        pause
        jmp .wait
.ready:
        mov dword [rax], 0              ; taken
        pop rcx
        pop rbx
        pop rax
        add rsp, 8                      ; the error code
        iretq                           ; the access runs again
.turn_off:
        ; Off with this token outstanding; the access retried synchronously.
        mov [rel stale_token], ebx
        mov rax, [rel async_faults]
        mov [rel faults_at_disable], rax
        mov byte [rel disable_on_fault], 2
        push rdx
        mov ecx, MSR_KVM_ASYNC_PF_EN
        xor eax, eax
        xor edx, edx
        wrmsr
        pop rdx
        pop rcx
        pop rbx
        pop rax
        add rsp, 8
        iretq
.real_fault:
        say "apftest: FAIL #PF that is not an async page fault, cr2 "
        mov rax, cr2
        call print_hex
        say 10
        jmp fail

; The page-ready interrupt: take the token, free the slot, ACK, EOI.
ready_handler:
        push rax
        push rcx
        push rdx
        mov eax, [rel apf_area + 4]
        mov dword [rel apf_area + 4], 0
        cmp eax, WAKE_ALL
        jne .token
        inc qword [rel wake_all_count]
        jmp .ack
.token:
        cmp eax, [rel stale_token]
        jne .fresh
        cmp byte [rel disable_on_fault], 2
        jne .fresh
        inc qword [rel stale_ready]
        jmp .ack
.fresh:
        inc qword [rel ready_count]
        mov rcx, [rel ready_next]
        and ecx, READY_RING - 1
        lea rdx, [rel ready_ring]
        mov [rdx + rcx * 4], eax
        inc qword [rel ready_next]
.ack:
        mov ecx, MSR_KVM_ASYNC_PF_ACK
        mov eax, 1
        xor edx, edx
        wrmsr
        call x2apic_eoi
        pop rdx
        pop rcx
        pop rax
        iretq

align 8
gp_count:       dq 0
async_faults:   dq 0
ready_count:    dq 0
wake_all_count: dq 0
other_work:     dq 0
ready_next:     dq 0
faults_at_disable: dq 0
faults_before_on: dq 0
ready_before_on: dq 0
stale_ready:    dq 0
gp_expected:    db 0
disable_on_fault: db 0                  ; 1: armed, 2: done
align 4
stale_token:    dd 0
ready_ring:     times READY_RING dd 0
align 64
apf_area:       times 64 db 0
