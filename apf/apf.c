// SPDX-License-Identifier: BSD-2-Clause
/*
 * Tokens, the delivery decision for "page not present", and the queue of
 * page-ready notifications of one vCPU (APF-PROTOCOL.md sections 4 to 6).
 */
#include "apf/apf_internal.h"
#include "lib/string.h"

void apf_vcpu_init(struct apf_vcpu *v, uint32_t vcpu_id)
{
	memset(v, 0, sizeof(*v));
	/* Only 12 bits of the token hold it; a wider id would collide. */
	v->vcpu_id = vcpu_id & (APF_MAX_VCPUS - 1);
}

bool apf_enabled(const struct apf_vcpu *v)
{
	const uint64_t both = KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT;

	/*
	 * Without DELIVERY_AS_INT the guest asked for the pre-5.8 #PF-based
	 * "page ready", which KVM no longer offers: no event at all then
	 * (Documentation/virt/kvm/x86/msr.rst).
	 */
	return (v->msr_en & both) == both;
}

uint64_t apf_area_gpa(const struct apf_vcpu *v)
{
	return v->msr_en & ~(uint64_t)(KVM_ASYNC_PF_AREA_ALIGN - 1);
}

uint8_t apf_vector(const struct apf_vcpu *v)
{
	return (uint8_t)(v->msr_int & KVM_ASYNC_PF_VEC_MASK);
}

bool apf_has_page_ready(const struct apf_vcpu *v)
{
	return v->ready_count != 0;
}

void apf_count_halt_woken(struct apf_vcpu *v)
{
	v->stats.halts_woken++;
}

/* ---- entries and the ready queue ---- */

/* The first entry in use at index i or above; APF_SLOTS if none. */
static unsigned busy_from(const struct apf_vcpu *v, unsigned i)
{
	while (i < APF_SLOTS) {
		uint64_t bits = v->busy[i / 64] >> (i % 64);

		if (bits)
			return i + (unsigned)__builtin_ctzll(bits);
		i = (i / 64 + 1) * 64;
	}
	return APF_SLOTS;
}

#define for_each_busy_entry(v, i)                                            \
	for (unsigned i = busy_from((v), 0); i < APF_SLOTS;                   \
	     i = busy_from((v), i + 1))

/* A page is in flight from the not-present until its page-ready goes out. */
static bool gpa_in_flight(const struct apf_vcpu *v, uint64_t gpa)
{
	for_each_busy_entry(v, i) {
		const struct apf_entry *e = &v->entries[i];

		if (e->token != KVM_APF_TOKEN_WAKE_ALL && e->gpa == gpa)
			return true;
	}
	return false;
}

static bool token_in_use(const struct apf_vcpu *v, uint32_t token)
{
	for_each_busy_entry(v, i)
		if (v->entries[i].token == token)
			return true;
	return false;
}

static struct apf_entry *take_free_entry(struct apf_vcpu *v)
{
	for (unsigned w = 0; w < APF_BUSY_WORDS; w++) {
		uint64_t free = ~v->busy[w];
		unsigned i;

		if (!free)
			continue;
		i = w * 64 + (unsigned)__builtin_ctzll(free);
		if (i >= APF_SLOTS)
			break;
		v->busy[w] |= 1ull << (i % 64);
		v->in_use++;
		return &v->entries[i];
	}
	return NULL;
}

static void release_entry(struct apf_vcpu *v, struct apf_entry *e)
{
	unsigned i = (unsigned)(e - v->entries);

	e->state = APF_ENTRY_FREE;
	v->busy[i / 64] &= ~(1ull << (i % 64));
	v->in_use--;
}

static void ready_push(struct apf_vcpu *v, struct apf_entry *e)
{
	unsigned tail = (v->ready_head + v->ready_count) % APF_SLOTS;

	e->state = APF_ENTRY_READY;
	v->ready[tail] = (uint8_t)(e - v->entries);
	v->ready_count++;
}

static struct apf_entry *ready_pop(struct apf_vcpu *v)
{
	struct apf_entry *e = &v->entries[v->ready[v->ready_head]];

	v->ready_head = (v->ready_head + 1) % APF_SLOTS;
	v->ready_count--;
	return e;
}

/*
 * KVM's layout (arch/x86/kvm/mmu/mmu.c, alloc_apf_token): a per-vCPU
 * counter above the vCPU id, so tokens of different vCPUs never collide
 * in the guest's global wait hash. The counter skips the values whose
 * shifted form is 0, so the token is never 0 ("slot free", stable fix
 * 6f3c1fc53d86). Beyond KVM, two values are skipped too: the broadcast
 * token, and a token still in flight after the 20-bit counter wrapped.
 */
static uint32_t next_token(struct apf_vcpu *v)
{
	for (;;) {
		uint32_t token;

		if ((uint32_t)(v->next_id << APF_TOKEN_VCPU_BITS) == 0)
			v->next_id = 1;
		token = (uint32_t)(v->next_id++ << APF_TOKEN_VCPU_BITS) |
			v->vcpu_id;
		if (token != KVM_APF_TOKEN_WAKE_ALL && !token_in_use(v, token))
			return token;
	}
}

static unsigned tokens_in_flight(const struct apf_vcpu *v)
{
	unsigned n = v->in_use;

	for (unsigned i = 0; i < v->ready_count; i++) {
		unsigned idx = v->ready[(v->ready_head + i) % APF_SLOTS];

		if (v->entries[idx].token == KVM_APF_TOKEN_WAKE_ALL)
			n--;
	}
	return n;
}

/* ---- page not present ---- */

bool apf_halt_allowed(const struct apf_guest_state *g)
{
	return !g->event_in_delivery && !g->exception_pending &&
	       g->interrupts_enabled && !g->interrupt_shadow;
}

/*
 * KVM's conditions, in three groups: kvm_can_do_async_pf (x86.c: no event
 * to re-inject, no exception pending, interrupts allowed), the work
 * bookkeeping (mmu.c kvm_faultin_pfn: a repeated fault on a gfn in flight
 * halts; async_pf.c kvm_setup_async_pf: at most ASYNC_PF_PER_VCPU), and
 * kvm_can_deliver_async_pf (enabled, CPL 0 only with SEND_ALWAYS, paging
 * on). Where KVM would start the work and halt the vCPU, so does
 * apfvisor (apf_halt_allowed); else it waits synchronously, which
 * APF-PROTOCOL.md section 4 allows.
 */
enum apf_verdict apf_check_not_present(const struct apf_vcpu *v,
				       const struct apf_guest_state *g,
				       uint64_t gpa)
{
	if (!apf_enabled(v))
		return APF_SYNC_DISABLED;
	if (g->event_in_delivery)
		return APF_SYNC_EVENT_IN_DELIVERY;
	if (g->exception_pending)
		return APF_SYNC_EXCEPTION_PENDING;
	/* The guest panics on an async #PF with IF=0 (kernel/kvm.c). */
	if (!g->interrupts_enabled)
		return APF_SYNC_INTERRUPTS_OFF;
	if (g->interrupt_shadow)
		return APF_SYNC_INTERRUPT_SHADOW;
	/* A real-mode IDT is unlikely to handle #PF (x86.c). */
	if (!g->paging)
		return APF_SYNC_PAGING_OFF;
	/*
	 * KVM 6.1 refuses CPL 0 only: a 64-bit guest's user_mode() is
	 * "CS & 3", so CPL 1 and 2 count as user there too.
	 */
	if (g->cpl == 0 && !(v->msr_en & KVM_ASYNC_PF_SEND_ALWAYS))
		return APF_SYNC_KERNEL_MODE;
	/*
	 * Not a KVM check: a flags word the guest has not cleared means an
	 * earlier #PF is not yet handled (or was lost); a second one would
	 * overwrite it, so wait instead.
	 */
	if (g->area_flags != 0)
		return APF_SYNC_NOTIFICATION_UNCONSUMED;
	if (gpa_in_flight(v, gpa & PAGE_MASK))
		return APF_SYNC_REPEATED_FAULT;
	if (v->in_use >= APF_PER_VCPU)
		return APF_SYNC_TOO_MANY;
	return APF_DELIVER;
}

enum apf_verdict apf_not_present(struct apf_vcpu *v,
				 const struct apf_guest_state *g, uint64_t gpa,
				 uint64_t tsc, uint32_t *token)
{
	enum apf_verdict verdict = apf_check_not_present(v, g, gpa);
	struct apf_entry *e;
	unsigned in_flight;

	if (verdict != APF_DELIVER) {
		v->stats.sync[verdict]++;
		return verdict;
	}
	e = take_free_entry(v);         /* cannot fail: in_use < limit */
	e->state = APF_ENTRY_OUTSTANDING;
	e->token = next_token(v);
	e->gpa = gpa & PAGE_MASK;
	e->not_present_tsc = tsc;
	v->stats.not_present++;
	in_flight = tokens_in_flight(v);
	if (in_flight > v->stats.peak_outstanding)
		v->stats.peak_outstanding = in_flight;
	*token = e->token;
	return APF_DELIVER;
}

bool apf_not_present_abandoned(struct apf_vcpu *v, uint32_t token)
{
	for_each_busy_entry(v, i) {
		struct apf_entry *e = &v->entries[i];

		if (e->state == APF_ENTRY_OUTSTANDING && e->token == token) {
			release_entry(v, e);
			v->stats.abandoned++;
			return true;
		}
	}
	return false;
}

/* ---- page ready ---- */

/*
 * Moves every token of gpa to the ready queue. The repeated-fault rule
 * gives a gpa at most one token per vCPU, as in KVM; the loop still
 * takes them all, so none could be stranded.
 */
enum apf_completion apf_page_completed(struct apf_vcpu *v, uint64_t gpa)
{
	unsigned moved = 0;

	gpa &= PAGE_MASK;
	for_each_busy_entry(v, i) {
		struct apf_entry *e = &v->entries[i];

		if (e->state == APF_ENTRY_OUTSTANDING && e->gpa == gpa) {
			ready_push(v, e);
			moved++;
		}
	}
	if (!moved)
		return APF_COMPLETION_NOT_OURS;
	/* kvm_arch_async_page_present_queued: no kick while one is pending. */
	return v->page_ready_pending ? APF_COMPLETION_CHECK_ON_ENTRY :
				       APF_COMPLETION_KICK;
}

bool apf_outstanding_token(const struct apf_vcpu *v, uint64_t gpa,
			   uint32_t *token)
{
	gpa &= PAGE_MASK;
	for_each_busy_entry(v, i) {
		const struct apf_entry *e = &v->entries[i];

		if (e->state == APF_ENTRY_OUTSTANDING && e->gpa == gpa) {
			*token = e->token;
			return true;
		}
	}
	return false;
}

/*
 * kvm_arch_can_dequeue_async_page_present: the LAPIC must take the
 * vector (an interrupt raised in a disabled LAPIC is lost and the slot
 * stays busy for good), and the guest must have emptied the token slot.
 * KVM gates on the slot word, not on the ACK write: the ACK only makes
 * it look again. Beyond KVM, an illegal vector holds the queue too: KVM
 * raises it, the LAPIC drops it, and the token sits in the slot with no
 * interrupt to make the guest read it. Every disabling write empties the
 * queue, so a queued page-ready implies APF is enabled.
 *
 * With paging off the queue is held: the guest's handler is paged
 * kernel code. KVM 6.1 flushed the queue on every CR0.PG change
 * (kvm_post_set_cr0), which strands the sleepers; the newest KVM keeps it
 * and looks again when PG is set. Here PG changes make no exit, so the
 * look comes with the next entry after PG is back.
 */
enum apf_ready_verdict apf_peek_page_ready(const struct apf_vcpu *v,
					   const struct apf_ready_state *g,
					   struct apf_page_ready *out)
{
	const struct apf_entry *e;

	if (!v->ready_count)
		return APF_READY_NONE;
	if (!g->paging)
		return APF_READY_WAIT_PAGING;
	if (!g->lapic_enabled)
		return APF_READY_WAIT_LAPIC;
	if (apf_vector(v) < APF_FIRST_LEGAL_VECTOR)
		return APF_READY_WAIT_VECTOR;
	if (g->area_token != 0)
		return APF_READY_WAIT_SLOT;
	e = &v->entries[v->ready[v->ready_head]];
	out->token = e->token;
	out->vector = apf_vector(v);
	out->gpa = e->gpa;
	return APF_READY_DELIVER;
}

void apf_page_ready_sent(struct apf_vcpu *v, uint64_t tsc)
{
	struct apf_entry *e = ready_pop(v);

	if (e->token == KVM_APF_TOKEN_WAKE_ALL) {
		v->stats.wake_all++;
	} else {
		v->stats.page_ready++;
		if (tsc > e->not_present_tsc) { /* TSCs of two CPUs may skew */
			v->stats.ready_latency_tsc += tsc - e->not_present_tsc;
			latency_hist_add(&v->stats.ready_latency,
					 tsc - e->not_present_tsc);
		}
	}
	release_entry(v, e);
	v->page_ready_pending = true;
}

enum apf_ready_verdict apf_next_page_ready(struct apf_vcpu *v,
					   const struct apf_ready_state *g,
					   uint64_t tsc,
					   struct apf_page_ready *out)
{
	enum apf_ready_verdict verdict = apf_peek_page_ready(v, g, out);

	if (verdict == APF_READY_DELIVER)
		apf_page_ready_sent(v, tsc);
	return verdict;
}

/* ---- lifecycle ---- */

bool apf_queue_wake_all(struct apf_vcpu *v)
{
	struct apf_entry *e;

	if (v->ready_count)
		return false;
	/* Always free: APF_SLOTS leaves room for it beyond the limit. */
	e = take_free_entry(v);
	e->token = KVM_APF_TOKEN_WAKE_ALL;
	e->gpa = 0;
	e->not_present_tsc = 0;
	ready_push(v, e);
	return true;
}

void apf_forget_all(struct apf_vcpu *v, struct apf_orphans *orphans)
{
	orphans->count = 0;
	for (unsigned i = 0; i < APF_SLOTS; i++) {
		struct apf_entry *e = &v->entries[i];

		if (e->state == APF_ENTRY_FREE ||
		    e->token == KVM_APF_TOKEN_WAKE_ALL)
			continue;
		if (e->state == APF_ENTRY_OUTSTANDING)
			orphans->gpa[orphans->count++] = e->gpa;
		v->stats.dropped++;
	}
	for (unsigned i = 0; i < APF_SLOTS; i++)
		v->entries[i].state = APF_ENTRY_FREE;
	memset(v->busy, 0, sizeof(v->busy));
	v->in_use = 0;
	v->ready_head = v->ready_count = 0;
	/* Nothing of ours is in the guest's slot that an ACK would free. */
	v->page_ready_pending = false;
}

void apf_vcpu_reset(struct apf_vcpu *v, struct apf_orphans *orphans)
{
	/*
	 * kvm_vcpu_reset: both MSRs to 0 and the queues flushed; the token
	 * counter runs on, so no token of before the reset comes back.
	 */
	v->msr_en = 0;
	v->msr_int = 0;
	apf_forget_all(v, orphans);
}
