// SPDX-License-Identifier: BSD-2-Clause
/*
 * Emulated MMIO: an EPT violation on a device page outside guest RAM (a
 * page the VM's I/O registry gives a device, guest/io_mmio.h: the
 * I/O APIC's and the xAPIC page of the local APIC of the vCPU that
 * faulted, a hole when that APIC is disabled or in x2APIC mode), or on an
 * address where there is nothing
 * (vmx/exit_ept.c): in a hole or where there is nothing, a load reads all
 * ones and a store is dropped. The VM exit gives the guest-physical
 * address but not the instruction (SDM Vol. 3C 28.2.1: no instruction
 * length for EPT violations), so its bytes are fetched at CS:RIP through
 * the guest's page tables and decoded (guest/mmio_decode.h); the access is
 * performed on the device and RIP moves past the instruction. What cannot
 * be decoded ends the guest with the bytes and the address: skipping it
 * would run the guest on a value it never read.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "vmx/ept_qualification.h"
#include "arch/x86/cpu.h"
#include "vmx/insn_fetch.h"
#include "guest/io_mmio.h"
#include "guest/mmio_decode.h"
#include "guest/vm.h"
#include "lib/format.h"

#define CS_AR_DEFAULT_32 BIT(14)

/* The register ModRM names; RSP lives in the VMCS. */
static uint64_t *gpr_slot(struct vcpu *v, enum mmio_gpr r)
{
	struct guest_regs *g = &v->regs;
	uint64_t *slots[MMIO_GPR_COUNT] = {
		&g->rax, &g->rcx, &g->rdx, &g->rbx, NULL, &g->rbp, &g->rsi,
		&g->rdi, &g->r8, &g->r9, &g->r10, &g->r11, &g->r12, &g->r13,
		&g->r14, &g->r15,
	};

	return slots[r];
}

static uint64_t read_gpr(struct vcpu *v, enum mmio_gpr r)
{
	return r == MMIO_RSP ? vmcs_read(VMCS_GUEST_RSP) : *gpr_slot(v, r);
}

static void write_gpr(struct vcpu *v, enum mmio_gpr r, uint64_t value)
{
	if (r == MMIO_RSP)
		vmcs_write(VMCS_GUEST_RSP, value);
	else
		*gpr_slot(v, r) = value;
}

/*
 * The access on the device the registry finds at gpa for this vCPU
 * (guest/io_mmio.h): any size reaches it (1, 2, 4 or 8 bytes).
 */
static void device_access(struct vcpu *v, const struct mmio_insn *insn,
			  uint64_t gpa, const struct guest_mmio_hit *hit)
{
	uint64_t value = 0;

	if (insn->write)
		value = mmio_store_value(insn, read_gpr(v, insn->reg));
	guest_mmio_access(v->guest, v->id, hit, gpa, insn->size,
			  insn->write, &value);
	if (!insn->write)
		write_gpr(v, insn->reg,
			  mmio_merge_load(insn, read_gpr(v, insn->reg), value));
}

/* 64-bit or 32-bit code; false for 16-bit code (not decoded). */
static bool code_mode(enum mmio_cpu_mode *mode)
{
	uint32_t cs = vmcs_read32(VMCS_GUEST_CS_ACCESS_RIGHTS);
	bool lma = vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA;

	*mode = lma && (cs & SEGMENT_AR_L) ? MMIO_MODE_64 : MMIO_MODE_32;
	return *mode == MMIO_MODE_64 || (cs & CS_AR_DEFAULT_32);
}

/* The one line that ends a guest whose MMIO instruction is refused. */
static enum exit_action refuse(struct vcpu *v, const struct vmx_exit *e,
			       uint64_t gpa, const uint8_t *bytes, unsigned n,
			       bool code16)
{
	char shown[3 * MMIO_INSN_MAX + 1] = "";

	for (unsigned i = 0; i < n; i++)
		fmt_snprintf(shown + 3 * i, 4, " %02x", bytes[i]);
	vm_end(v->guest, false,
	       "MMIO access at gpa 0x%llx by an instruction not emulated: "
	       "rip 0x%llx, bytes%s%s", (unsigned long long)gpa,
	       (unsigned long long)e->guest_rip, n ? shown : " (none readable)",
	       code16 ? " (16-bit code)" : "");
	return EXIT_STOP;
}

enum exit_action handle_mmio(struct vcpu *v, const struct vmx_exit *e,
			     uint64_t gpa, const struct guest_mmio_hit *hit)
{
	uint8_t bytes[MMIO_INSN_MAX];
	struct mmio_insn insn;
	struct vmx_exit done = *e;
	enum mmio_cpu_mode mode;
	bool decodable = code_mode(&mode);
	uint64_t la_mask = mode == MMIO_MODE_64 ? ~0ull : 0xffffffffull;
	uint64_t la = mode == MMIO_MODE_64 ? e->guest_rip
		      : (vmcs_read(VMCS_GUEST_CS_BASE) + e->guest_rip) &
				la_mask;
	unsigned n = vcpu_fetch_instruction(v, la, la_mask, bytes,
					    MMIO_INSN_MAX);

	/*
	 * The bytes are read after the fault: another vCPU may have changed
	 * them. An instruction that does not make the access that faulted
	 * is refused, not performed.
	 */
	if (!decodable || !mmio_decode(bytes, n, mode, &insn) ||
	    insn.write != !!(e->qualification & EPT_QUAL_WRITE))
		return refuse(v, e, gpa, bytes, n, !decodable);
	v->stats.mmio_emulated++;
	device_access(v, &insn, gpa, hit);
	done.instruction_length = insn.length;
	vcpu_skip_instruction(&done);
	return EXIT_RESUME;
}
