// SPDX-License-Identifier: BSD-2-Clause
/*
 * The MMIO instruction decoder (see guest/mmio_decode.h). Encodings: SDM
 * Vol. 2A, chapter 2 (prefixes 2.1.1, ModRM/SIB 2.1.5 Tables 2-2 and 2-3,
 * REX 2.2.1, RIP-relative addressing 2.2.1.6); the w bit of the MOV
 * opcodes (bit 0: 0 for the byte form, Vol. 2D B.1.4.3).
 */
#include "guest/mmio_decode.h"

#define OP_MOV_LOAD 0x8b
#define OP_MOV_STORE 0x89
#define OP_MOV_STORE_IMM 0xc7
#define OP_W_BIT BIT(0)         /* clear in 88, 8A, C6: the byte forms */
#define OP_TWO_BYTE 0x0f
#define OP2_MOVZX_BYTE 0xb6     /* 0F B6: MOVZX r, r/m8 */
#define OP2_MOVZX_WORD 0xb7     /* 0F B7: MOVZX r, r/m16 */
#define OP_MOV_LOAD_MOFFS 0xa1  /* MOV eAX, moffs */
#define OP_MOV_STORE_MOFFS 0xa3 /* MOV moffs, eAX */
#define PREFIX_OPERAND_SIZE 0x66
#define PREFIX_ADDRESS_SIZE 0x67
#define REX_FIRST 0x40
#define REX_LAST 0x4f
#define REX_W BIT(3)
#define REX_R BIT(2)
#define BYTE_REG_AH 4           /* 4-7 without REX: AH, CH, DH, BH */
#define MODRM_MOD(m) ((m) >> 6)
#define MODRM_REG(m) (((m) >> 3) & 7)
#define MODRM_RM(m) ((m) & 7)
#define MOD_REGISTER 3
#define RM_SIB 4
#define RM_DISP32_OR_RIP 5      /* with mod 0 */
#define SIB_BASE(s) ((s) & 7)
#define SIB_BASE_NONE 5         /* with mod 0: disp32, no base */

static bool is_segment_override(uint8_t b)
{
	return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
	       b == 0x64 || b == 0x65;
}

struct cursor {
	const uint8_t *bytes;
	unsigned len, pos;
};

static bool take(struct cursor *c, uint8_t *b)
{
	if (c->pos >= c->len)
		return false;
	*b = c->bytes[c->pos++];
	return true;
}

static bool skip(struct cursor *c, unsigned n)
{
	if (c->len - c->pos < n)
		return false;
	c->pos += n;
	return true;
}

/*
 * The memory operand after the ModRM byte: SIB and displacement (32- and
 * 64-bit addressing share one layout). A register operand is refused:
 * it cannot have reached an MMIO page.
 */
static bool skip_memory_operand(struct cursor *c, uint8_t modrm)
{
	unsigned mod = MODRM_MOD(modrm), rm = MODRM_RM(modrm);
	uint8_t sib;

	if (mod == MOD_REGISTER)
		return false;
	if (rm == RM_SIB) {
		if (!take(c, &sib))
			return false;
		if (mod == 0 && SIB_BASE(sib) == SIB_BASE_NONE)
			return skip(c, 4);
	} else if (mod == 0 && rm == RM_DISP32_OR_RIP) {
		return skip(c, 4);
	}
	return skip(c, mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

static unsigned operand_size(uint8_t rex, bool operand16)
{
	return (rex & REX_W) ? 8 : operand16 ? 2 : 4;
}

/* ModRM.reg, extended by REX.R. */
static enum mmio_gpr modrm_reg(uint8_t modrm, uint8_t rex)
{
	return (enum mmio_gpr)(MODRM_REG(modrm) | ((rex & REX_R) ? 8 : 0));
}

/*
 * The register of a byte form: numbered 4-7 with no REX prefix, AH, CH,
 * DH or BH, bits 15:8 of RAX..RBX (rex is 0 when there is none: a REX
 * byte is 0x40-0x4f).
 */
static void byte_register(struct mmio_insn *out, uint8_t rex)
{
	if (!rex && out->reg >= BYTE_REG_AH) {
		out->high_byte = true;
		out->reg = (enum mmio_gpr)(out->reg - BYTE_REG_AH);
	}
}

static uint64_t read_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool decode_immediate(struct cursor *c, struct mmio_insn *out)
{
	unsigned n = out->size == 8 ? 4 : out->size;
	uint64_t v;

	if (c->len - c->pos < n)
		return false;
	v = read_le(c->bytes + c->pos, n);
	c->pos += n;
	if (out->size == 8)     /* imm32 sign-extended to 64 bits */
		v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	out->immediate = v;
	out->has_immediate = true;
	return true;
}

/*
 * A1/A3: the address is an immediate offset as wide as the address size
 * (8 bytes in 64-bit code, 4 under 0x67 or in 32-bit code); the register
 * is always eAX.
 */
static bool decode_moffs(struct cursor *c, uint8_t opcode, uint8_t rex,
			 bool operand16, bool addr32, enum mmio_cpu_mode mode,
			 struct mmio_insn *out)
{
	if (!skip(c, mode == MMIO_MODE_64 && !addr32 ? 8 : 4))
		return false;
	out->size = operand_size(rex, operand16);
	out->reg_size = out->size;
	out->write = opcode == OP_MOV_STORE_MOFFS;
	out->reg = MMIO_RAX;
	out->length = c->pos;
	return true;
}

/*
 * 0F B6 / 0F B7: a byte or word load zero-extended into a register of the
 * operand size (16 under 0x66, 64 under REX.W); a full register, never
 * AH..BH.
 */
static bool decode_movzx(struct cursor *c, uint8_t rex, bool operand16,
			 struct mmio_insn *out)
{
	uint8_t op, modrm;

	if (!take(c, &op) || (op != OP2_MOVZX_BYTE && op != OP2_MOVZX_WORD))
		return false;
	if (!take(c, &modrm) || !skip_memory_operand(c, modrm))
		return false;
	out->size = op == OP2_MOVZX_BYTE ? 1 : 2;
	out->reg_size = operand_size(rex, operand16);
	out->reg = modrm_reg(modrm, rex);
	out->length = c->pos;
	return true;
}

/*
 * 88/89/8A/8B/C6/C7 with a ModRM memory operand; bit 0 of the opcode
 * clear: the byte form, which ignores 0x66 and REX.W.
 */
static bool decode_mov(struct cursor *c, uint8_t opcode, uint8_t rex,
		       bool operand16, struct mmio_insn *out)
{
	uint8_t op = opcode | OP_W_BIT, modrm;

	if (op != OP_MOV_LOAD && op != OP_MOV_STORE && op != OP_MOV_STORE_IMM)
		return false;
	if (!take(c, &modrm))
		return false;
	if (op == OP_MOV_STORE_IMM && MODRM_REG(modrm) != 0)
		return false;
	if (!skip_memory_operand(c, modrm))
		return false;
	out->size = !(opcode & OP_W_BIT) ? 1 : operand_size(rex, operand16);
	out->reg_size = out->size;
	out->write = op != OP_MOV_LOAD;
	out->reg = modrm_reg(modrm, rex);
	if (out->size == 1)
		byte_register(out, rex);
	if (op == OP_MOV_STORE_IMM && !decode_immediate(c, out))
		return false;
	out->length = c->pos;
	return true;
}

bool mmio_decode(const uint8_t *bytes, unsigned len, enum mmio_cpu_mode mode,
		 struct mmio_insn *out)
{
	struct cursor c = { bytes, len < MMIO_INSN_MAX ? len : MMIO_INSN_MAX,
			    0 };
	bool operand16 = false, addr32 = false;
	uint8_t rex = 0, b;

	*out = (struct mmio_insn){ 0 };
	for (;;) {
		if (!take(&c, &b))
			return false;
		if (b == PREFIX_OPERAND_SIZE) {
			/* REX counts only right before the opcode. */
			operand16 = true;
			rex = 0;
		} else if (is_segment_override(b)) {
			rex = 0;
		} else if (b == PREFIX_ADDRESS_SIZE && mode == MMIO_MODE_64) {
			/* 32-bit addressing: the same ModRM layout. */
			addr32 = true;
			rex = 0;
		} else if (b >= REX_FIRST && b <= REX_LAST &&
			   mode == MMIO_MODE_64) {
			rex = b;
		} else {
			break;
		}
	}
	if (b == OP_MOV_LOAD_MOFFS || b == OP_MOV_STORE_MOFFS)
		return decode_moffs(&c, b, rex, operand16, addr32, mode, out);
	if (b == OP_TWO_BYTE)
		return decode_movzx(&c, rex, operand16, out);
	return decode_mov(&c, b, rex, operand16, out);
}

static uint64_t size_mask(unsigned size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

uint64_t mmio_merge_load(const struct mmio_insn *insn, uint64_t old,
			 uint64_t loaded)
{
	uint64_t value = loaded & size_mask(insn->size);

	if (insn->high_byte)
		return (old & ~0xff00ull) | value << 8;
	if (insn->reg_size >= 4)        /* a 32-bit write clears 63:32 */
		return value;
	return (old & ~size_mask(insn->reg_size)) | value;
}

uint64_t mmio_store_value(const struct mmio_insn *insn, uint64_t reg_value)
{
	uint64_t value = insn->has_immediate ? insn->immediate
			 : insn->high_byte   ? reg_value >> 8
					     : reg_value;

	return value & size_mask(insn->size);
}
