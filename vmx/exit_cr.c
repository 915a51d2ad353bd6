// SPDX-License-Identifier: BSD-2-Clause
/*
 * Control-register and XCR0 writes. Only bits in the CR0/CR4 guest/host
 * masks exit (the bits VMX fixes: NE, VMXE); the guest sees its own values
 * through the read shadows (SDM Vol. 3C, 25.6.6 and 26.1.3). A write that
 * exits is checked here as the CPU would check it (reserved bits, paging
 * combinations: arch/x86/register_rules.h), since the CPU does not.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_controls.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "arch/x86/register_rules.h"
#include "arch/x86/xcr0.h"
#include "guest/vm.h"

/* Exit qualification for control-register accesses (Table 28-3). */
#define CR_QUAL_NUMBER(q) ((q) & 0xf)
#define CR_QUAL_TYPE(q) (((q) >> 4) & 0x3)
#define CR_QUAL_GPR(q) (((q) >> 8) & 0xf)
#define CR_ACCESS_MOV_TO 0
#define CR_ACCESS_MOV_FROM 1
#define GPR_RSP 4

/* GPR numbering of the SDM (rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..) */
static uint64_t read_gpr(const struct vcpu *v, unsigned n)
{
	const struct guest_regs *r = &v->regs;
	const uint64_t by_number[16] = {
		r->rax, r->rcx, r->rdx, r->rbx, 0, r->rbp, r->rsi, r->rdi,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};

	return n == GPR_RSP ? vmcs_read(VMCS_GUEST_RSP) : by_number[n];
}

static void inject_gp(void)
{
	vmx_inject_exception(EXC_GENERAL_PROTECTION, true, 0);
}

static void write_gpr(struct vcpu *v, unsigned n, uint64_t value)
{
	struct guest_regs *r = &v->regs;
	uint64_t *by_number[16] = {
		&r->rax, &r->rcx, &r->rdx, &r->rbx, NULL, &r->rbp, &r->rsi,
		&r->rdi, &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13,
		&r->r14, &r->r15,
	};

	if (n == GPR_RSP)
		vmcs_write(VMCS_GUEST_RSP, value);
	else
		*by_number[n] = value;
}

/*
 * CR8 exits (both directions): the guest's CR8 is its virtual LAPIC's
 * task priority, never the host LAPIC's, which would let it mask the
 * hypervisor's own IPIs (SDM Vol. 3A 10.8.6.1).
 */
static enum exit_action cr8_access(struct vcpu *v, const struct vmx_exit *e)
{
	uint64_t q = e->qualification;
	struct vm *g = v->guest;
	struct vlapic *lapic = &g->plat[v->id].lapic;
	bool write = CR_QUAL_TYPE(q) != CR_ACCESS_MOV_FROM;
	bool ok = true;

	vm_devices_lock(g);
	if (!write)
		write_gpr(v, CR_QUAL_GPR(q), vlapic_read_cr8(lapic));
	else
		ok = vlapic_write_cr8(lapic, read_gpr(v, CR_QUAL_GPR(q)));
	vm_devices_unlock(g, write);    /* the TPR moves the PPR */
	if (!ok) {
		inject_gp();
		return EXIT_RESUME;
	}
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}

/* Paging turned on or off with EFER.LME set switches IA-32e mode. */
static void update_long_mode(uint64_t old_cr0, uint64_t new_cr0)
{
	uint64_t efer = vmcs_read(VMCS_GUEST_IA32_EFER);
	uint32_t entry = vmcs_read32(VMCS_ENTRY_CONTROLS);

	if (!(efer & EFER_LME) || !((old_cr0 ^ new_cr0) & CR0_PG))
		return;
	if (new_cr0 & CR0_PG) {
		efer |= EFER_LMA;
		entry |= ENTRY_IA32E_MODE_GUEST;
	} else {
		efer &= ~EFER_LMA;
		entry &= ~ENTRY_IA32E_MODE_GUEST;
	}
	vmcs_write(VMCS_GUEST_IA32_EFER, efer);
	vmcs_write(VMCS_ENTRY_CONTROLS, entry);
}

/* The L bit of the guest's CS: 64-bit code is running. */
static bool guest_cs_long(void)
{
	return vmcs_read32(VMCS_GUEST_CS_ACCESS_RIGHTS) & SEGMENT_AR_L;
}

static bool emulate_cr0_write(uint64_t value)
{
	uint64_t fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0) & ~(CR0_PE | CR0_PG);
	/*
	 * The current value: only the masked bits (NE) are the read
	 * shadow's; PG, WP and the rest the guest changes without an exit.
	 */
	uint64_t old = (vmcs_read(VMCS_GUEST_CR0) & ~CR0_NE) |
		       (vmcs_read(VMCS_CR0_READ_SHADOW) & CR0_NE);

	if (!cr0_write_valid(value, old, vmcs_read(VMCS_GUEST_IA32_EFER),
			     vmcs_read(VMCS_GUEST_CR4), guest_cs_long()))
		return false;
	update_long_mode(old, value);
	vmcs_write(VMCS_CR0_READ_SHADOW, value);
	vmcs_write(VMCS_GUEST_CR0, (value | fixed0) &
					   rdmsr(MSR_IA32_VMX_CR0_FIXED1));
	return true;
}

static bool emulate_cr4_write(uint64_t value)
{
	/* No nested VMX: CPUID hides it, so CR4.VMXE is reserved here. */
	if (value & CR4_VMXE)
		return false;
	vmcs_write(VMCS_CR4_READ_SHADOW, value);
	vmcs_write(VMCS_GUEST_CR4, value | rdmsr(MSR_IA32_VMX_CR4_FIXED0));
	return true;
}

enum exit_action handle_cr_access(struct vcpu *v, const struct vmx_exit *e)
{
	uint64_t q = e->qualification;
	uint64_t value;
	bool ok;

	if (CR_QUAL_NUMBER(q) == 8 && (CR_QUAL_TYPE(q) == CR_ACCESS_MOV_TO ||
				       CR_QUAL_TYPE(q) == CR_ACCESS_MOV_FROM))
		return cr8_access(v, e);
	if (CR_QUAL_TYPE(q) != CR_ACCESS_MOV_TO ||
	    (CR_QUAL_NUMBER(q) != 0 && CR_QUAL_NUMBER(q) != 4))
		return handle_unexpected(v, e);
	value = read_gpr(v, CR_QUAL_GPR(q));
	ok = CR_QUAL_NUMBER(q) == 0 ? emulate_cr0_write(value) : emulate_cr4_write(value);
	if (!ok) {
		inject_gp();
		return EXIT_RESUME;
	}
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}

/*
 * XSETBV always exits (26.1.2). As KVM: #GP from CPL > 0, for an XCR other
 * than XCR0, or for a value the CPU would refuse (arch/x86/xcr0.h), so the
 * XSETBV below never faults in root mode.
 */
enum exit_action handle_xsetbv(struct vcpu *v, const struct vmx_exit *e)
{
	uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
	unsigned cpl = (vmcs_read32(VMCS_GUEST_SS_ACCESS_RIGHTS) >> 5) & 3;
	struct cpuid_regs xs;
	uint64_t supported;

	cpuid_count(CPUID_LEAF_XSAVE, 0, &xs);
	supported = ((uint64_t)xs.edx << 32) | xs.eax;
	if (cpl != 0 || (uint32_t)v->regs.rcx != 0 ||
	    !xcr0_value_valid(value, supported)) {
		inject_gp();
		return EXIT_RESUME;
	}
	/* The hypervisor never uses extended state: XCR0 can stay the guest's. */
	xsetbv(0, value);
	vcpu_skip_instruction(e);
	return EXIT_RESUME;
}
