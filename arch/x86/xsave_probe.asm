; SPDX-License-Identifier: BSD-2-Clause
;
; xsavec_store_ymm(area): XSAVEC of the AVX component alone (EDX:EAX = 4)
; with YMM0 all ones, into a zeroed, 64-byte aligned area of >= 1024 bytes.
; The caller has set CR4.OSXSAVE and checked that the CPU has AVX and
; XSAVEC. XCR0 is widened to x87|SSE|AVX for the store and restored; the
; vector registers are cleared afterwards (the hypervisor uses none).
; Where the ones land says whether this CPU's XSAVEC places extended state
; at the compacted offsets (xsave_probe.c).

        bits 64
        section .text
        global xsavec_store_ymm

xsavec_store_ymm:
        xor ecx, ecx
        xgetbv
        mov r8d, eax
        mov r9d, edx
        or eax, 7                       ; x87 | SSE | AVX
        xsetbv
        vpcmpeqb ymm0, ymm0, ymm0       ; all ones, upper half included
        mov eax, 4                      ; the AVX component only
        xor edx, edx
        xsavec [rdi]
        vzeroall
        mov eax, r8d
        mov edx, r9d
        xor ecx, ecx
        xsetbv
        ret
section .note.GNU-stack noalloc noexec nowrite progbits
