// SPDX-License-Identifier: BSD-2-Clause
/*
 * INS and OUTS (with or without REP), emulated: each element moves between
 * the guest's memory, reached through its own page tables
 * (guest/guest_pagewalk.c), and the port, as IN and OUT do. The VM exit
 * gives the port, the element size and REP (qualification, SDM Vol. 3C
 * Table 28-5), the address size and OUTS's segment (instruction
 * information, Table 28-8). Up to STRING_IO_BATCH elements per exit; the
 * instruction then runs again for the rest (RCX says how many), so a long
 * REP cannot hold the vCPU in root mode. A page not present or not
 * writable raises #PF as the CPU would, with the elements already moved
 * counted in RSI/RDI and RCX. In 64-bit mode only FS and GS have a base,
 * and a non-canonical address raises #GP (#SS for SS), as on the CPU.
 * Guest-physical addresses with nothing there read all ones and drop
 * writes, as everywhere (vmx/exit_ept.c).
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "arch/x86/register_rules.h"
#include "guest/guest_pagewalk.h"
#include "guest/io_ports.h"
#include "guest/vm.h"

#define IO_QUAL_SIZE_MASK 0x7ull        /* size - 1 */
#define IO_QUAL_IN BIT(3)
#define IO_QUAL_REP BIT(5)
#define IO_QUAL_PORT_SHIFT 16
#define INFO_ADDR_SIZE(i) (((i) >> 7) & 7)      /* 0: 16, 1: 32, 2: 64 */
#define INFO_SEGMENT(i) (((i) >> 15) & 7)       /* ES CS SS DS FS GS */
#define SEG_ES 0
#define SEG_SS 2
#define SEG_FS 4                        /* FS and GS keep their base in */
#define SEG_GS 5                        /* 64-bit mode */
#define RFLAGS_DF BIT(10)
#define STRING_IO_BATCH 1024

static int read_guest(void *ctx, uint64_t gpa, void *buf, unsigned len)
{
	return vm_read_ram(ctx, gpa, buf, len);
}

static uint64_t addr_mask(unsigned addr_size)
{
	return addr_size == 0 ? 0xffff : addr_size == 1 ? 0xffffffffull
						       : ~0ull;
}

/* A register with its low address-size part replaced (32-bit: zeroed). */
static uint64_t set_low(uint64_t reg, uint64_t value, unsigned addr_size)
{
	if (addr_size == 0)
		return (reg & ~0xffffull) | (value & 0xffff);
	return value & addr_mask(addr_size);
}

struct string_io {
	struct vcpu *v;
	struct guest_paging paging;
	uint64_t la_mask;               /* 32 bits outside 64-bit mode */
	bool user;
	uint32_t pf_error;
	uint64_t pf_address;
};

/*
 * The gpa of each byte of an element at la: 0, 1 (#PF) or -1 (no RAM).
 * Outside 64-bit mode an element's bytes wrap at 4 GiB, as the linear
 * address space does.
 */
static int translate(struct string_io *s, uint64_t la, unsigned size,
		     bool write, uint64_t gpa[4])
{
	for (unsigned i = 0; i < size; i++) {
		uint64_t byte_la = (la + i) & s->la_mask;

		switch (guest_pagewalk(&s->paging, byte_la, write, s->user,
				       read_guest, s->v->guest, &gpa[i],
				       &s->pf_error)) {
		case GUEST_WALK_OK:
			break;
		case GUEST_WALK_PAGE_FAULT:
			s->pf_address = byte_la;
			return 1;
		case GUEST_WALK_TABLE_UNREADABLE:
			return -1;
		}
	}
	return 0;
}

/*
 * One element; 0, 1 (#PF to inject) or -1 (the guest's page tables are
 * not in RAM). Where the element's bytes have no RAM, an OUTS sends all
 * ones and an INS's bytes are dropped, as a load or store there does.
 */
static int move_element(struct string_io *s, uint16_t port, unsigned size,
			bool in, uint64_t la)
{
	struct vm *g = s->v->guest;
	uint64_t gpa[4];
	uint8_t byte;
	uint32_t value = 0;
	int rc = translate(s, la, size, in, gpa);

	if (rc)
		return rc;
	if (in) {
		guest_port_io(g, port, size, true, &value);
		for (unsigned i = 0; i < size; i++) {
			byte = (uint8_t)(value >> (8 * i));
			(void)vm_write_ram(g, gpa[i], &byte, 1);
		}
		return 0;
	}
	for (unsigned i = 0; i < size; i++) {
		if (vm_read_ram(g, gpa[i], &byte, 1))
			byte = 0xff;
		value |= (uint32_t)byte << (8 * i);
	}
	guest_port_io(g, port, size, false, &value);
	return 0;
}

enum exit_action handle_string_io(struct vcpu *v, const struct vmx_exit *e)
{
	uint64_t q = e->qualification;
	unsigned size = (unsigned)(q & IO_QUAL_SIZE_MASK) + 1;
	bool in = q & IO_QUAL_IN, rep = q & IO_QUAL_REP;
	uint16_t port = (uint16_t)(q >> IO_QUAL_PORT_SHIFT);
	uint32_t info = vmcs_read32(VMCS_EXIT_INSTRUCTION_INFO);
	unsigned asz = INFO_ADDR_SIZE(info);
	unsigned seg = in ? SEG_ES : INFO_SEGMENT(info);
	uint64_t mask = addr_mask(asz);
	bool mode64 = vcpu_in_64bit_code();
	uint64_t base = mode64 && seg != SEG_FS && seg != SEG_GS ? 0 :
			vmcs_read(VMCS_GUEST_ES_BASE + seg * 2);
	unsigned va_bits = guest_va_bits(vmcs_read(VMCS_GUEST_CR4));
	int64_t step = vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_DF ? -(int64_t)size
							      : (int64_t)size;
	uint64_t *index = in ? &v->regs.rdi : &v->regs.rsi;
	uint64_t count = rep ? v->regs.rcx & mask : 1;
	struct string_io s = {
		.v = v,
		/* PG, WP, PAE, PSE, LA57 are never masked: the real ones. */
		.paging = { vmcs_read(VMCS_GUEST_CR0),
			    vmcs_read(VMCS_GUEST_CR3),
			    vmcs_read(VMCS_GUEST_CR4),
			    vmcs_read(VMCS_GUEST_IA32_EFER) },
		.la_mask = mode64 ? ~0ull : 0xffffffffull,
		.user = ((vmcs_read32(VMCS_GUEST_SS_ACCESS_RIGHTS) >> 5) & 3) == 3,
	};

	v->stats.string_io++;
	for (unsigned n = 0; count && n < STRING_IO_BATCH; n++) {
		uint64_t offset = *index & mask;
		/*
		 * In 64-bit code the offset is cut to the address size and
		 * then the whole FS/GS base added (SDM Vol. 1, 3.3.7);
		 * elsewhere the sum wraps at 4 GiB.
		 */
		uint64_t la = (base + offset) & s.la_mask;
		int rc;

		if (mode64 && (!address_canonical(la, va_bits) ||
			       !address_canonical(la + size - 1, va_bits))) {
			vmx_inject_exception(seg == SEG_SS ? EXC_STACK_FAULT :
					     EXC_GENERAL_PROTECTION, true, 0);
			return EXIT_RESUME;
		}
		rc = move_element(&s, port, size, in, la);
		if (rc < 0) {
			vm_end(v->guest, false, "%s at rip 0x%llx: the guest's "
			       "page tables are outside RAM",
			       in ? "INS" : "OUTS",
			       (unsigned long long)e->guest_rip);
			return EXIT_STOP;
		}
		if (rc > 0) {
			v->regs.cr2 = s.pf_address;
			vmx_inject_exception(EXC_PAGE_FAULT, true, s.pf_error);
			return EXIT_RESUME;
		}
		*index = set_low(*index, offset + (uint64_t)step, asz);
		count--;
		if (rep)
			v->regs.rcx = set_low(v->regs.rcx, count, asz);
		if (v->guest->end.ended)
			return EXIT_STOP;
	}
	if (!count)
		vcpu_skip_instruction(e);
	return EXIT_RESUME;
}
