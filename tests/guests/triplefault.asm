; SPDX-License-Identifier: BSD-2-Clause
;
; triplefault: loads an empty IDT and raises #BP. Delivering #BP faults
; (#GP: the vector is beyond the IDT limit), delivering that #GP faults the
; same way, and a fault while delivering a double fault is a triple fault,
; which causes a VM exit (SDM Vol. 3C, 26.2). apfvisor must print the guest
; state and stop the guest: the INT3 must never return.

        bits 64
        org 0x200000
        %include "guest.inc"

        guest_entry
        say "triplefault: loading an empty IDT, then int3", 10
        lidt [empty_idt]
        int3
        say "triplefault: FAIL int3 returned", 10
        test_exit 1
        stop

empty_idt:
        dw 0
        dq 0
