// SPDX-License-Identifier: BSD-2-Clause
#include "guest/async_pf.h"
#include "swap/swap_daemon.h"
#include "arch/x86/cpu.h"
#include "lib/console.h"
#include "lib/ratelimit.h"
#include "lib/trace/trace.h"

/* A word of the area through the pointer kept at its pin, or NULL. */
static uint32_t *pinned_word(const struct vcpu_platform *p, uint64_t offset)
{
	return p->apf_area ? (uint32_t *)(p->apf_area + offset) : NULL;
}

static int read_area_u32(struct vm *vm, const struct vcpu_platform *p,
			 uint64_t offset, uint32_t *value)
{
	uint32_t *w = pinned_word(p, offset);

	if (w) {
		*value = __atomic_load_n(w, __ATOMIC_RELAXED);
		return 0;
	}
	return vm_read_ram(vm, apf_area_gpa(&p->apf) + offset, value,
			   sizeof(*value));
}

static int write_area_u32(struct vm *vm, const struct vcpu_platform *p,
			  uint64_t offset, uint32_t value)
{
	uint32_t *w = pinned_word(p, offset);

	if (w) {
		__atomic_store_n(w, value, __ATOMIC_RELAXED);
		return 0;
	}
	return vm_write_ram(vm, apf_area_gpa(&p->apf) + offset, &value,
			    sizeof(value));
}

/*
 * The flags word, with mem_lock held (vm_fault_begin): the area's page is
 * pinned while the protocol is on, so it is resident and read through the
 * pointer kept at the pin; if its pin failed and it is away, the fault is
 * handled synchronously this time.
 */
static int read_flags_locked(struct vm *vm, const struct vcpu_platform *p,
			     uint32_t *flags)
{
	uint32_t *w = pinned_word(p, KVM_APF_AREA_FLAGS_OFFSET);

	if (w) {
		*flags = __atomic_load_n(w, __ATOMIC_RELAXED);
		return 0;
	}
	return guest_memory_read(&vm->memory.ram, apf_area_gpa(&p->apf) +
				 KVM_APF_AREA_FLAGS_OFFSET, flags,
				 sizeof(*flags));
}

static int write_flags_locked(struct vm *vm, const struct vcpu_platform *p,
			      uint32_t flags)
{
	uint32_t *w = pinned_word(p, KVM_APF_AREA_FLAGS_OFFSET);

	if (w) {
		__atomic_store_n(w, flags, __ATOMIC_RELAXED);
		return 0;
	}
	return guest_memory_write(&vm->memory.ram, apf_area_gpa(&p->apf) +
				  KVM_APF_AREA_FLAGS_OFFSET, &flags,
				  sizeof(flags));
}

static void not_present_locked(struct vm *vm, unsigned n,
			       struct apf_guest_state *gs, uint64_t gpa,
			       uint32_t *token)
{
	struct vcpu_platform *p = &vm->plat[n];

	if (read_flags_locked(vm, p, &gs->area_flags))
		return;
	spin_lock(&p->apf_lock);
	if (apf_not_present(&p->apf, gs, gpa, rdtsc(), token) != APF_DELIVER) {
		*token = 0;
	} else if (write_flags_locked(vm, p,
				      KVM_PV_REASON_PAGE_NOT_PRESENT)) {
		apf_not_present_abandoned(&p->apf, *token);
		*token = 0;
	}
	spin_unlock(&p->apf_lock);
}

/*
 * vm_fault_begin's half for a swap-in under way, with mem_lock held. The
 * trace stamp comes before the try, as the 2010 tracepoint's does.
 */
void vm_fault_swapin_locked(struct vm *vm, unsigned n, uint64_t gpa,
			    void (*read_state)(struct apf_guest_state *),
			    struct apf_guest_state *gs, struct vm_apf_try *try)
{
	uint64_t page = ALIGN_DOWN(gpa, PAGE_SIZE);

	try->tried = trace_on ? trace_clock() : 0;
	if (read_state)
		read_state(gs);
	gs->area_flags = 0;
	/* swap.protect_kernel learns here which pages the kernel waits for. */
	guest_memory_note_fault_mode(&vm->memory.ram, gpa, gs->cpl == 0);
	if (!apf_enabled(&vm->plat[n].apf))
		return;
	not_present_locked(vm, n, gs, page, &try->token);
	if (try->token)
		trace_async_pf_not_present(n, try->token, page);
}

void vm_apf_page_settled(struct vm *vm, unsigned n, uint64_t gpa)
{
	struct vcpu_platform *p = &vm->plat[n];
	enum apf_completion done;
	uint32_t token;

	spin_lock(&p->apf_lock);
	if (trace_on && apf_outstanding_token(&p->apf, gpa, &token))
		trace_async_pf_completed(n, token, ALIGN_DOWN(gpa, PAGE_SIZE));
	done = apf_page_completed(&p->apf, gpa);
	spin_unlock(&p->apf_lock);
	/* kvm_arch_async_page_present_queued: no kick while one is pending. */
	if (done == APF_COMPLETION_CHECK_ON_ENTRY)
		vm_request_no_kick(vm, n, VCPU_REQ_PAGE_READY);
	else
		vm_request(vm, n, VCPU_REQ_PAGE_READY);
}

/* apf_peek_page_ready under apf_lock; *ack_due: a page-ready is un-acked. */
static enum apf_ready_verdict peek_page_ready(struct vcpu_platform *p,
					      const struct apf_ready_state *rs,
					      struct apf_page_ready *out,
					      bool *ack_due)
{
	enum apf_ready_verdict verdict;

	spin_lock(&p->apf_lock);
	verdict = apf_peek_page_ready(&p->apf, rs, out);
	*ack_due = p->apf.page_ready_pending;
	spin_unlock(&p->apf_lock);
	return verdict;
}

/*
 * The page-ready leaves the done list only once its token is in the word
 * and the LAPIC took the vector; else it stays first in line. The LAPIC
 * was found enabled just before, but an INIT from another vCPU may reset
 * it in between. A completion meanwhile only adds to the list's tail.
 */
enum vm_page_ready vm_apf_page_ready(struct vm *vm, unsigned n, bool paging)
{
	struct vcpu_platform *p = &vm->plat[n];
	struct apf_vcpu *a = &p->apf;
	struct apf_ready_state rs = { .paging = paging };
	enum apf_ready_verdict verdict;
	struct apf_page_ready out;
	bool accepted, ack_due;

	spin_lock(&p->apf_lock);
	accepted = apf_has_page_ready(a);
	spin_unlock(&p->apf_lock);
	if (!accepted)
		return VM_PAGE_READY_NONE;
	if (read_area_u32(vm, p, KVM_APF_AREA_TOKEN_OFFSET, &rs.area_token))
		return VM_PAGE_READY_HELD;
	vm_devices_lock(vm);
	rs.lapic_enabled = vlapic_sw_enabled(&p->lapic);
	vm_devices_unlock(vm, false);
	verdict = peek_page_ready(p, &rs, &out, &ack_due);
	/* The guest frees the slot, then writes ACK: that asks again. */
	if (verdict == APF_READY_NONE ||
	    (verdict == APF_READY_WAIT_SLOT && ack_due))
		return VM_PAGE_READY_NONE;
	if (verdict != APF_READY_DELIVER ||
	    write_area_u32(vm, p, KVM_APF_AREA_TOKEN_OFFSET, out.token))
		return VM_PAGE_READY_HELD;
	vm_devices_lock(vm);
	accepted = vlapic_accept(&p->lapic, out.vector);
	vm_devices_unlock(vm, accepted);
	if (!accepted) {
		/* The guest has not run since: the word is still ours. */
		write_area_u32(vm, p, KVM_APF_AREA_TOKEN_OFFSET, 0);
		return VM_PAGE_READY_HELD;
	}
	spin_lock(&p->apf_lock);
	apf_page_ready_sent(a, rdtsc());
	spin_unlock(&p->apf_lock);
	trace_async_pf_ready(n, out.token, out.gpa);
	return VM_PAGE_READY_SENT;
}

/*
 * The guest chooses when to turn the protocol on: a line for each time
 * the pin failed would be a line for each WRMSR (lib/ratelimit.h).
 */
static struct ratelimit unpinned_area_lines =
	RATELIMIT("async-PF areas not pinned", 8);

/*
 * The area's page stays resident while the protocol is on. Only a pin
 * that was taken is given back: one that failed (a page that could not
 * come back) is tried again at the next write, and an unpin in its place
 * would take away another holder's pin of that page (a kvmclock record,
 * another vCPU's area).
 */
static void repin_area(struct vm *vm, unsigned n)
{
	struct vcpu_platform *p = &vm->plat[n];
	bool on = apf_enabled(&p->apf);
	uint64_t gpa = apf_area_gpa(&p->apf);

	if (p->apf_area_pinned && (!on || gpa != p->apf_area_pin)) {
		p->apf_area = NULL;
		vm_unpin_ram(vm, p->apf_area_pin);
		p->apf_area_pinned = false;
	}
	if (!on || p->apf_area_pinned)
		return;
	if (vm_pin_ram(vm, gpa)) {
		if (ratelimit_allow(&unpinned_area_lines))
			hv_info("vcpu %u: async-PF area at gpa 0x%llx not "
				"pinned; it is brought back when needed",
				p->apf.vcpu_id, (unsigned long long)gpa);
		return;
	}
	p->apf_area_pinned = true;
	p->apf_area_pin = gpa;
	/* The area lies within its page (64-byte aligned, 64 bytes). */
	p->apf_area = vm_pinned_page(vm, gpa);
	if (p->apf_area)
		p->apf_area += gpa & (PAGE_SIZE - 1);
}

bool vm_apf_wrmsr(struct vm *vm, unsigned n, uint32_t msr, uint64_t value)
{
	struct apf_vcpu *a = &vm->plat[n].apf;
	struct apf_msr_effect effect;
	enum apf_msr_result r;

	spin_lock(&vm->plat[n].apf_lock);
	r = apf_wrmsr(a, &vm->apf.env, msr, value, &effect);
	spin_unlock(&vm->plat[n].apf_lock);
	if (r != APF_MSR_OK)
		return false;
	repin_area(vm, n);
	/* If this write fails, so does the read before each page-ready. */
	if (effect.clear_token)
		write_area_u32(vm, &vm->plat[n], KVM_APF_AREA_TOKEN_OFFSET, 0);
	if (effect.check_page_ready)
		vm_request(vm, n, VCPU_REQ_PAGE_READY);
	return true;
}

bool vm_apf_rdmsr(struct vm *vm, unsigned n, uint32_t msr, uint64_t *value)
{
	return apf_rdmsr(&vm->plat[n].apf, &vm->apf.env, msr, value) ==
	       APF_MSR_OK;
}

void vm_apf_reset(struct vm *vm, unsigned n)
{
	struct apf_orphans orphans;

	spin_lock(&vm->plat[n].apf_lock);
	apf_vcpu_reset(&vm->plat[n].apf, &orphans);
	spin_unlock(&vm->plat[n].apf_lock);
	repin_area(vm, n);
}
