// SPDX-License-Identifier: BSD-2-Clause
/*
 * A guest access to a page that could not be read back from swap: the
 * guest gets the machine check a real CPU raises for a poisoned page, as
 * under KVM with QEMU (guest/mce.h has the values and the cases where the
 * VM ends instead). The page stays lost: its EPT entry is never made
 * present again, so every later access comes back here and raises the
 * #MC once more; Linux's memory_failure() makes sure none does, by
 * unmapping the page from its owner and never handing it out again.
 *
 * The EPT violation is a fault: RIP is the instruction that touched the
 * page, which is what MCG_STATUS.EIPV and RIPV promise the handler.
 */
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "arch/x86/cpu.h"
#include "arch/x86/exceptions.h"
#include "guest/vm.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/ratelimit.h"

/* A guest may touch lost pages in a loop: a few lines, then a count. */
static struct ratelimit mce_lines = RATELIMIT("machine checks for lost "
					      "pages", 8);

enum exit_action handle_lost_page(struct vcpu *v, const struct vmx_exit *e,
				  uint64_t gpa)
{
	struct mce_context ctx = {
		.cr4_mce = vmcs_read(VMCS_GUEST_CR4) & CR4_MCE,
		.event_in_delivery = vmcs_read32(VMCS_IDT_VECTORING_INFO) &
				     INTR_INFO_VALID,
		.nvcpus = v->guest->nvcpus,
	};
	uint64_t page = ALIGN_DOWN(gpa, PAGE_SIZE);
	enum mce_verdict verdict;

	/* Only this vCPU's exits touch its banks: no lock needed. */
	verdict = guest_mce_poison(&v->plat->msrs.mce, page, &ctx);
	if (verdict != MCE_INJECT) {
		char why[VM_END_REASON_MAX];

		fmt_snprintf(why, sizeof(why), "gpa 0x%016llx lost to a failed "
			     "swap-in; vcpu %u cannot take its machine check "
			     "(rip 0x%llx): %s", (unsigned long long)page,
			     v->id, (unsigned long long)e->guest_rip,
			     guest_mce_verdict_text(verdict));
		hv_error("%s", why);
		vm_end(v->guest, false, "%s", why);
		return EXIT_STOP;
	}
	v->stats.mce_injected++;
	if (ratelimit_allow(&mce_lines))
		hv_info("vcpu %u: machine check (action required, data load) "
			"injected for lost gpa 0x%llx at rip 0x%llx", v->id,
			(unsigned long long)page,
			(unsigned long long)e->guest_rip);
	vmx_inject_exception(EXC_MACHINE_CHECK, false, 0);
	return EXIT_RESUME;
}
