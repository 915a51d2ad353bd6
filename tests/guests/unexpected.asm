; SPDX-License-Identifier: BSD-2-Clause
;
; unexpected: executes INVD, which always causes a VM exit (SDM Vol. 3C,
; 26.1.2) and for which apfvisor has no handler. apfvisor must print the
; exit reason, the qualification, the guest RIP and a VMCS dump, and stop
; the guest; the guest must never get past the INVD.

        bits 64
        org 0x200000
        %include "guest.inc"

        guest_entry
        say "unexpected: executing invd", 10
        invd
        say "unexpected: FAIL invd returned", 10
        test_exit 1
        stop
