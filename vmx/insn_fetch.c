// SPDX-License-Identifier: BSD-2-Clause
/* Guest instruction bytes through the guest's page tables (vmx/insn_fetch.h). */
#include "vmx/insn_fetch.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "guest/guest_pagewalk.h"
#include "guest/vm.h"

#define AR_DPL(ar) (((ar) >> 5) & 3)

static int read_guest(void *ctx, uint64_t gpa, void *buf, unsigned len)
{
	return vm_read_ram(ctx, gpa, buf, len);
}

unsigned vcpu_fetch_instruction(struct vcpu *v, uint64_t la, uint64_t la_mask,
				uint8_t *bytes, unsigned max)
{
	struct guest_paging paging = {
		vmcs_read(VMCS_GUEST_CR0), vmcs_read(VMCS_GUEST_CR3),
		vmcs_read(VMCS_GUEST_CR4), vmcs_read(VMCS_GUEST_IA32_EFER),
	};
	bool user = AR_DPL(vmcs_read32(VMCS_GUEST_SS_ACCESS_RIGHTS)) == 3;
	unsigned n = 0;

	while (n < max) {
		uint64_t at = (la + n) & la_mask;
		uint64_t gpa, in_page = PAGE_SIZE - (at & (PAGE_SIZE - 1));
		unsigned chunk = (unsigned)MIN((uint64_t)(max - n), in_page);
		uint32_t pf_error;

		if (guest_pagewalk(&paging, at, false, user, read_guest,
				   v->guest, &gpa, &pf_error) != GUEST_WALK_OK)
			break;
		if (vm_read_ram(v->guest, gpa, &bytes[n], chunk)) {
			while (chunk-- && !vm_read_ram(v->guest, gpa++,
						       &bytes[n], 1))
				n++;
			break;
		}
		n += chunk;
	}
	return n;
}
