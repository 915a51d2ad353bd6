/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest instruction behind an access to an emulated MMIO page (the
 * IOAPIC at 0xFEC00000, the xAPIC page, an address with nothing there):
 * the MOV forms a compiler emits for volatile loads and stores and for
 * memset/memcpy byte loops (SDM Vol. 2B, "MOV" and "MOVZX"):
 *
 *   8B /r        MOV r, r/m        load
 *   89 /r        MOV r/m, r        store of a register
 *   C7 /0 imm    MOV r/m, imm      store of an immediate (imm32, or imm16
 *                                  under 0x66; sign-extended under REX.W)
 *   8A /r        MOV r8, r/m8      byte load
 *   88 /r        MOV r/m8, r8      byte store
 *   C6 /0 ib     MOV r/m8, imm8    byte store of an immediate
 *   0F B6 /r     MOVZX r, r/m8     byte load zero-extended into r16/32/64
 *   0F B7 /r     MOVZX r, r/m16    word load zero-extended into r32/64
 *   A1 moffs     MOV eAX, moffs    load from an absolute address
 *   A3 moffs     MOV moffs, eAX    store to one (GCC's choice for a
 *                                  constant address and EAX in 32-bit code)
 *
 * The byte forms ignore 0x66 and REX.W. Their register is a byte
 * register (SDM Vol. 2A 3.1.1.3, Table 3-1 and 2.2.1.2): with no REX
 * prefix, numbers 4-7 are AH, CH, DH, BH (bits 15:8 of RAX..RBX); with
 * any REX prefix they are SPL, BPL, SIL, DIL, and REX.R reaches R8B-R15B.
 *
 * with any ModRM/SIB/displacement form (RIP-relative in 64-bit mode), the
 * operand-size prefix 0x66, REX in 64-bit mode, segment overrides, and in
 * 64-bit or 32-bit code (the address the access went to comes from the VM
 * exit, so the addressing form only counts for the length). Anything else
 * (another opcode, LOCK/REP, a register operand, 16-bit addressing, more
 * than 15 bytes) is refused. Pure C over the fetched bytes: guest-written,
 * untrusted input.
 */
#ifndef GUEST_MMIO_DECODE_H
#define GUEST_MMIO_DECODE_H

#include "lib/types.h"

#define MMIO_INSN_MAX 15        /* the longest x86 instruction (SDM 2.3.11) */

enum mmio_cpu_mode {
	MMIO_MODE_32,           /* protected mode, CS.D = 1 */
	MMIO_MODE_64,           /* IA-32e mode, CS.L = 1 */
};

/* General-purpose register numbers as ModRM.reg + REX.R encode them. */
enum mmio_gpr {
	MMIO_RAX, MMIO_RCX, MMIO_RDX, MMIO_RBX,
	MMIO_RSP, MMIO_RBP, MMIO_RSI, MMIO_RDI,
	MMIO_R8, MMIO_R9, MMIO_R10, MMIO_R11,
	MMIO_R12, MMIO_R13, MMIO_R14, MMIO_R15,
	MMIO_GPR_COUNT,
};

struct mmio_insn {
	unsigned length;        /* bytes, prefixes included: RIP advance */
	unsigned size;          /* access size: 1, 2, 4 or 8 bytes */
	unsigned reg_size;      /* a load's destination width: size, or
				   more for MOVZX (zero-extended) */
	bool write;
	bool has_immediate;     /* C6/C7: the stored value is immediate */
	bool high_byte;         /* size 1: bits 15:8 of reg (AH..BH) */
	enum mmio_gpr reg;      /* loads: destination; stores: source */
	uint64_t immediate;     /* C6/C7: the value, sign-extended to size */
};

/*
 * Decodes the instruction at bytes[0..len) (len: the bytes that could be
 * fetched, up to MMIO_INSN_MAX). True with *out filled in, or false: not
 * one of the forms above, or cut short.
 */
bool mmio_decode(const uint8_t *bytes, unsigned len, enum mmio_cpu_mode mode,
		 struct mmio_insn *out);

/*
 * A load's result (the size bytes of loaded, zero-extended to reg_size)
 * written to its register of value old, as the CPU writes it (SDM Vol. 1,
 * 3.4.1.1): a 4-byte destination zero-extends to 64 bits; a 1- or 2-byte
 * one keeps the other bits (a high-byte one: all but 15:8).
 */
uint64_t mmio_merge_load(const struct mmio_insn *insn, uint64_t old,
			 uint64_t loaded);

/*
 * The size bytes a store writes, given the value of its register (for a
 * high-byte register, its bits 15:8; the immediate when it has one).
 */
uint64_t mmio_store_value(const struct mmio_insn *insn, uint64_t reg_value);

#endif
