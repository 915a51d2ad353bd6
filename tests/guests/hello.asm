; SPDX-License-Identifier: BSD-2-Clause
;
; hello: the smallest guest. Checks CPUID as a KVM guest sees it under
; apfvisor (hypervisor bit set, VMX hidden, KVM signature at 0x40000000),
; reports the RAM size it was given, then halts with interrupts disabled,
; which apfvisor reports as "guest halted: hlt with interrupts disabled".

        bits 64
        org 0x200000
        %include "guest.inc"

CPUID_FEATURES          equ 1
CPUID1_ECX_VMX          equ 5       ; bit 5: VMX
CPUID1_ECX_HYPERVISOR   equ 31      ; bit 31: running under a hypervisor
CPUID_HV_SIGNATURE      equ 0x40000000

        guest_entry
        say "hello: start", 10

        mov eax, CPUID_FEATURES
        xor ecx, ecx
        cpuid
        bt ecx, CPUID1_ECX_HYPERVISOR
        jnc .no_hypervisor_bit
        bt ecx, CPUID1_ECX_VMX
        jc .vmx_visible

        ; Linux's arch/x86/kernel/kvm.c: kvm_cpuid_base() looks for the
        ; signature "KVMKVMKVM\0\0\0" in EBX, ECX, EDX of leaf 0x40000000.
        mov eax, CPUID_HV_SIGNATURE
        xor ecx, ecx
        cpuid
        cmp ebx, 'KVMK'
        jne .bad_signature
        cmp ecx, 'VMKV'
        jne .bad_signature
        cmp edx, 'M'
        jne .bad_signature
        say "hello: PASS cpuid", 10
        jmp .ram

.no_hypervisor_bit:
        say "hello: FAIL cpuid leaf 1 ecx bit 31 (hypervisor) is 0, ecx="
        jmp .print_ecx
.vmx_visible:
        say "hello: FAIL cpuid leaf 1 ecx bit 5 (vmx) is 1, ecx="
.print_ecx:
        mov eax, ecx
        call print_hex
        say 10
        jmp .ram
.bad_signature:
        say "hello: FAIL cpuid 0x40000000 signature ebx="
        mov eax, ebx
        call print_hex
        say " ecx="
        mov eax, ecx
        call print_hex
        say " edx="
        mov eax, edx
        call print_hex
        say 10

.ram:
        say "hello: ram "
        mov rax, [rel ram_size]
        shr rax, 20
        call print_dec
        say " MiB", 10

        cli
        hlt
        say "hello: FAIL hlt returned", 10
        test_exit 1
        stop
