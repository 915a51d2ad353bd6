/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The guest instruction behind an access to an emulated MMIO page (the
 * IOAPIC at 0xFEC00000; the xAPIC page later): the MOV forms a compiler
 * emits for volatile loads and stores (SDM Vol. 2B, "MOV"):
 *
 *   8B /r        MOV r, r/m        load
 *   89 /r        MOV r/m, r        store of a register
 *   C7 /0 imm    MOV r/m, imm      store of an immediate (imm32, or imm16
 *                                  under 0x66; sign-extended under REX.W)
 *   A1 moffs     MOV eAX, moffs    load from an absolute address
 *   A3 moffs     MOV moffs, eAX    store to one (GCC's choice for a
 *                                  constant address and EAX in 32-bit code)
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
	unsigned size;          /* access size: 2, 4 or 8 bytes */
	bool write;
	bool has_immediate;     /* C7: the stored value is immediate */
	enum mmio_gpr reg;      /* 8B: destination; 89: source */
	uint64_t immediate;     /* C7: the value, sign-extended to size */
};

/*
 * Decodes the instruction at bytes[0..len) (len: the bytes that could be
 * fetched, up to MMIO_INSN_MAX). True with *out filled in, or false: not
 * one of the forms above, or cut short.
 */
bool mmio_decode(const uint8_t *bytes, unsigned len, enum mmio_cpu_mode mode,
		 struct mmio_insn *out);

/*
 * A load's result written to a register of value old: a 4-byte load
 * zero-extends to 64 bits (SDM Vol. 1, 3.4.1.1), a 2-byte one keeps bits
 * 63:16.
 */
uint64_t mmio_merge_load(uint64_t old, uint64_t loaded, unsigned size);

#endif
