/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host side of KVM's async page fault protocol for one vCPU, as plain
 * state and decisions (../shared/APF-PROTOCOL.md; the reference host is
 * Linux arch/x86/kvm/x86.c, mmu/mmu.c and virt/kvm/async_pf.c). Nothing
 * here touches hardware or guest memory: the caller reads the VMCS and the
 * shared area, passes what it read, and does what the answer says (write
 * a word into the shared area, inject #PF, raise a LAPIC vector, wait).
 *
 * Life of a token:
 *   EPT violation on a page being swapped in
 *     -> apf_not_present(): DELIVER with a token (write flags = 1, inject
 *        #PF with CR2 = token) or a reason to wait synchronously;
 *   the swap-in completes -> apf_page_completed(), by the CPU that saw
 *        the completion: the token goes on the done list, and the vCPU
 *        is told (kicked unless the verdict says its ACK will come);
 *   the vCPU, told (or on its ACK) -> apf_peek_page_ready(): when the
 *        guest's token slot is free, write the token there and raise the
 *        page-ready vector; once both are done, apf_page_ready_sent()
 *        takes it off the queue; the guest then clears the slot and
 *        writes ACK.
 *
 * The caller serializes calls for one vCPU (its own exits, or the lock
 * that guards the completion path).
 */
#ifndef APF_APF_H
#define APF_APF_H

#include "apf/kvm_para.h"
#include "lib/latency_hist.h"
#include "lib/counters.h"
#include "lib/guest_ram.h"
#include "lib/types.h"

/* Tokens one vCPU may have in flight (ASYNC_PF_PER_VCPU in kvm_host.h). */
#define APF_PER_VCPU 64u
/* KVM puts the vCPU id in the token's low 12 bits (mmu.c alloc_apf_token). */
#define APF_TOKEN_VCPU_BITS 12u
#define APF_MAX_VCPUS (1u << APF_TOKEN_VCPU_BITS)

/*
 * Why a "page not present" is handled synchronously. The first condition
 * that fails, in this order, is the one reported (and counted).
 */
#define APF_SYNC_REASONS(X)                                                  \
	X(APF_SYNC_DISABLED, "disabled")                                      \
	X(APF_SYNC_EVENT_IN_DELIVERY, "event_in_delivery")                    \
	X(APF_SYNC_EXCEPTION_PENDING, "exception_pending")                    \
	X(APF_SYNC_INTERRUPTS_OFF, "interrupts_off")                          \
	X(APF_SYNC_INTERRUPT_SHADOW, "interrupt_shadow")                      \
	X(APF_SYNC_PAGING_OFF, "paging_off")                                  \
	X(APF_SYNC_KERNEL_MODE, "kernel_mode")                                \
	X(APF_SYNC_NOTIFICATION_UNCONSUMED, "notification_unconsumed")        \
	X(APF_SYNC_REPEATED_FAULT, "repeated_fault")                          \
	X(APF_SYNC_TOO_MANY, "too_many_outstanding")

#define APF_REASON_ENUM(reason, name) reason,
enum apf_verdict {
	APF_DELIVER,
	APF_SYNC_REASONS(APF_REASON_ENUM)
	APF_VERDICT_COUNT
};
#undef APF_REASON_ENUM

/* Per-vCPU counters; the registry sums them over the vCPUs. */
#define APF_COUNTERS(X)                                                      \
	X(struct apf_stats, vcpus_enabled, "apf.vcpus_enabled")               \
	X(struct apf_stats, enables, "apf.enables")                           \
	X(struct apf_stats, not_present, "apf.not_present")                   \
	X(struct apf_stats, page_ready, "apf.page_ready")                     \
	X(struct apf_stats, wake_all, "apf.wake_all")                         \
	X(struct apf_stats, acks, "apf.acks")                                 \
	X(struct apf_stats, abandoned, "apf.abandoned")                       \
	X(struct apf_stats, dropped, "apf.dropped")                           \
	X(struct apf_stats, ready_latency_tsc, "apf.ready_latency_tsc")       \
	X(struct apf_stats, halts_woken, "apf.halts_woken")

struct apf_stats {
	APF_COUNTERS(COUNTER_FIELD)
	/* Synchronous fallbacks, by reason ("apf.sync.<name>"). */
	uint64_t sync[APF_VERDICT_COUNT];
	/* Largest number of tokens in flight at once (the max, not a sum). */
	uint64_t peak_outstanding;
	/* Each token's "not present" to its page-ready sent ("lat.apf_ready"). */
	struct latency_hist ready_latency;
};

enum apf_entry_state {
	APF_ENTRY_FREE,
	APF_ENTRY_OUTSTANDING,  /* #PF injected, swap-in in flight */
	APF_ENTRY_READY,        /* swap-in done, page-ready not yet sent */
};

struct apf_entry {
	enum apf_entry_state state;
	uint32_t token;
	uint64_t gpa;                   /* page-aligned */
	uint64_t not_present_tsc;
};

/* One slot more than the limit: the "wake all" KVM queues on enable. */
#define APF_SLOTS (APF_PER_VCPU + 1)
#define APF_BUSY_WORDS ((APF_SLOTS + 63) / 64)

struct apf_vcpu {
	uint32_t vcpu_id;
	uint32_t next_id;               /* KVM's vcpu->arch.apf.id */
	uint64_t msr_en;                /* as last accepted */
	uint64_t msr_int;
	/* A page-ready was raised and its ACK has not come yet. */
	bool page_ready_pending;
	struct apf_entry entries[APF_SLOTS];
	unsigned in_use;                /* entries not FREE */
	/*
	 * Bit i: entries[i] is not FREE. The searches of every fault and
	 * every completion visit only these (one or two entries, mostly),
	 * not all APF_SLOTS.
	 */
	uint64_t busy[APF_BUSY_WORDS];
	/* Indices into entries, in completion order (KVM's done list). */
	uint8_t ready[APF_SLOTS];
	unsigned ready_head, ready_count;
	struct apf_stats stats;
};

/* What the caller read from the VMCS and the shared area at the fault. */
struct apf_guest_state {
	/* IDT-vectoring info valid: the fault hit while delivering an event. */
	bool event_in_delivery;
	/* An exception is pending, or set up for injection at this entry. */
	bool exception_pending;
	bool interrupts_enabled;        /* RFLAGS.IF */
	bool interrupt_shadow;          /* blocking by STI or by MOV SS */
	bool paging;                    /* CR0.PG */
	uint8_t cpl;
	/* The shared area's flags word now: non-zero = not yet consumed. */
	uint32_t area_flags;
};

/* What the caller read before delivering page-ready. */
struct apf_ready_state {
	bool paging;                    /* CR0.PG */
	bool lapic_enabled;             /* APIC_BASE.EN and SPIV.8 both set */
	uint32_t area_token;            /* the shared area's token word */
};

/*
 * Vectors 0-15 are illegal for a fixed interrupt: an APIC refuses them
 * (SDM Vol. 3A, 11.5.3). KVM takes any vector in MSR_KVM_ASYNC_PF_INT.
 */
#define APF_FIRST_LEGAL_VECTOR 16u

enum apf_ready_verdict {
	APF_READY_NONE,                 /* nothing to deliver */
	APF_READY_WAIT_PAGING,          /* held until CR0.PG is set again */
	APF_READY_WAIT_LAPIC,           /* held until the LAPIC is enabled */
	APF_READY_WAIT_VECTOR,          /* held until INT names a legal vector */
	APF_READY_WAIT_SLOT,            /* the guest still holds a token */
	APF_READY_DELIVER,
};

/* Write token at KVM_APF_AREA_TOKEN_OFFSET, then raise vector (fixed, edge). */
struct apf_page_ready {
	uint32_t token;
	uint8_t vector;
	uint64_t gpa;                   /* the page that came back */
};

enum apf_completion {
	APF_COMPLETION_NOT_OURS,        /* no token of this vCPU waits on it */
	/* Check before the next entry; an un-acked page-ready is pending, and
	 * its ACK exit runs the check anyway, so no kick is needed. */
	APF_COMPLETION_CHECK_ON_ENTRY,
	APF_COMPLETION_KICK,            /* check before the next entry; kick */
};

/* Swap-ins the vCPU stopped waiting for (disable, reset): they must still
 * complete and map their page, only no page-ready follows. */
struct apf_orphans {
	uint64_t gpa[APF_PER_VCPU];
	unsigned count;
};

/* vcpu_id < APF_MAX_VCPUS. Everything off, no token in flight. */
void apf_vcpu_init(struct apf_vcpu *v, uint32_t vcpu_id);

/* INIT or RESET: EN = INT = 0 and every token forgotten (APF-PROTOCOL §2). */
void apf_vcpu_reset(struct apf_vcpu *v, struct apf_orphans *orphans);

/* EN has both ENABLED and DELIVERY_AS_INT (kvm_pv_async_pf_enabled). */
bool apf_enabled(const struct apf_vcpu *v);

/* The GPA of the shared area (valid while apf_enabled). */
uint64_t apf_area_gpa(const struct apf_vcpu *v);

/* The page-ready vector, from MSR_KVM_ASYNC_PF_INT. */
uint8_t apf_vector(const struct apf_vcpu *v);

/* Tokens in flight or ready, and the "wake all" if queued. */
static inline unsigned apf_outstanding(const struct apf_vcpu *v)
{
	return v->in_use;       /* read before every VM entry: inline */
}

/* A page-ready is queued (delivered once the slot and LAPIC allow). */
bool apf_has_page_ready(const struct apf_vcpu *v);

/*
 * KVM's "APF halt" (kvm_can_do_async_pf: no event to re-inject, no
 * exception pending, interrupts allowed): a fault the guest cannot be
 * told about still need not block its vCPU; the vCPU rests as in HLT and
 * takes the interrupts and IPIs that come meanwhile, the faulting access
 * running again after each. Whether the guest enabled async page faults
 * does not matter. Pure.
 */
bool apf_halt_allowed(const struct apf_guest_state *g);

/*
 * Whether a "page not present" for gpa may be delivered now, or why not.
 * Pure: reads v and g, changes nothing.
 */
enum apf_verdict apf_check_not_present(const struct apf_vcpu *v,
				       const struct apf_guest_state *g,
				       uint64_t gpa);

/*
 * apf_check_not_present, counted; on APF_DELIVER a new token is recorded
 * as outstanding for gpa since tsc and returned in *token. The caller
 * then writes KVM_PV_REASON_PAGE_NOT_PRESENT into the area's flags and
 * injects #PF with CR2 = *token, in the same VM entry.
 */
enum apf_verdict apf_not_present(struct apf_vcpu *v,
				 const struct apf_guest_state *g, uint64_t gpa,
				 uint64_t tsc, uint32_t *token);

/*
 * The #PF for token could not be injected after all: forget the token
 * (the caller clears the flags word and waits synchronously). False if
 * token is not outstanding.
 */
bool apf_not_present_abandoned(struct apf_vcpu *v, uint32_t token);

/*
 * The swap-in of gpa completed: its tokens on this vCPU go on the done
 * list (the ready queue). Called where the completion is harvested, under
 * the lock that serializes v; the verdict says whether to kick the vCPU.
 */
enum apf_completion apf_page_completed(struct apf_vcpu *v, uint64_t gpa);

/* The token outstanding for the page at gpa, if one is (trace records). */
bool apf_outstanding_token(const struct apf_vcpu *v, uint64_t gpa,
			   uint32_t *token);

/*
 * The next page-ready to deliver now, in completion order, without
 * taking it: on APF_READY_DELIVER, *out says what to write and raise, and
 * the page-ready stays first in the queue until apf_page_ready_sent. If
 * the token cannot be written or the LAPIC refuses the vector after all,
 * the caller leaves it there (it is tried again before the next entry).
 */
enum apf_ready_verdict apf_peek_page_ready(const struct apf_vcpu *v,
					   const struct apf_ready_state *g,
					   struct apf_page_ready *out);

/*
 * The page-ready apf_peek_page_ready returned is with the guest (token
 * written, vector accepted): it leaves the queue, counted at tsc, and the
 * guest's ACK is awaited.
 */
void apf_page_ready_sent(struct apf_vcpu *v, uint64_t tsc);

/*
 * apf_peek_page_ready, then apf_page_ready_sent on APF_READY_DELIVER (for
 * a caller whose delivery cannot fail). Call again after each
 * APF_READY_DELIVER with the token word re-read (it is then non-zero, so
 * at most one goes out until the guest frees the slot).
 */
enum apf_ready_verdict apf_next_page_ready(struct apf_vcpu *v,
					   const struct apf_ready_state *g,
					   uint64_t tsc,
					   struct apf_page_ready *out);

/* A halted vCPU was woken because a page-ready became deliverable. */
void apf_count_halt_woken(struct apf_vcpu *v);

/* The name of a verdict's counter ("deliver" for APF_DELIVER). */
const char *apf_verdict_name(enum apf_verdict verdict);

/* ---- MSRs (apf/apf_msr.c) ---- */

enum apf_msr_result {
	APF_MSR_OK,
	APF_MSR_RAISE_GP,
};

/* What the VM offers, fixed for its life. */
struct apf_msr_env {
	uint32_t kvm_features;          /* EAX of CPUID 0x40000001 */
	struct guest_ram_layout guest_ram;      /* what is guest RAM */
};

/* What the caller must do after an accepted write. */
struct apf_msr_effect {
	/* Run apf_next_page_ready now (ACK, or a "wake all" was queued). */
	bool check_page_ready;
	/*
	 * The area is newly in use (EN from off to on, or moved): write 0
	 * into its token word first. A token left there while EN was 0 (the
	 * guest's handler then leaves the word alone) would hold back every
	 * page-ready, the "wake all" included.
	 */
	bool clear_token;
	/* Tokens forgotten by a disabling write; their swap-ins go on. */
	struct apf_orphans orphans;
};

/* One of MSR_KVM_ASYNC_PF_EN, _INT, _ACK. */
bool apf_msr_is_async_pf(uint32_t msr);

/* WRMSR of an async-PF MSR with KVM's rules; on RAISE_GP nothing changed. */
enum apf_msr_result apf_wrmsr(struct apf_vcpu *v,
			      const struct apf_msr_env *env, uint32_t msr,
			      uint64_t value, struct apf_msr_effect *effect);

/* RDMSR of an async-PF MSR (ACK reads as 0). */
enum apf_msr_result apf_rdmsr(const struct apf_vcpu *v,
			      const struct apf_msr_env *env, uint32_t msr,
			      uint64_t *value);

/* ---- Counters ---- */

struct apf_counter_sources {
	struct counter_source sums;     /* the table, summed over vCPUs */
	struct counter_source peak;     /* walker: the max over vCPUs */
	const struct apf_vcpu *first;
	unsigned nvcpus;
	size_t stride;                  /* bytes from one apf_vcpu to the next */
};

/*
 * Registers the counters of nvcpus apf_vcpu structs stride bytes apart
 * (embedded in the caller's vCPU array). src must outlive the run.
 */
void apf_counters_register(struct apf_counter_sources *src,
			   const struct apf_vcpu *first, unsigned nvcpus,
			   size_t stride);

#endif
