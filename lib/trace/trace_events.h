/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Every trace event, declared once: its number, name, version and typed
 * fields. lib/trace/trace.h turns this list into the emitters (trace_vm_exit(),
 * ...) and lib/trace/trace_file.c into the descriptor table written into every
 * trace (lib/trace/trace_format.h), so the decoder learns the layout from the
 * file. Changing an event: add fields at its end and bump its version;
 * never reuse a number or reorder fields (a reader of the old layout would
 * misread them).
 *
 * TRACE_EVENTS(E) calls E(ID, name, version) once per event; the fields of
 * event `name` are TRACE_FIELDS_name(F), F(type, field, enum) each, where
 * enum names the "enum" descriptor line whose labels the value takes
 * (none: no labels). Types: uint8_t, uint16_t, uint32_t, uint64_t.
 *
 * Timestamps: a record's TSC is when the event happened; vm_exit is
 * stamped with the exit and written when its handling is over, so
 * `cycles` later (the decoder draws it as a slice of that length).
 */
#ifndef LIB_TRACE_EVENTS_H
#define LIB_TRACE_EVENTS_H

#define TRACE_EVENTS(E)                                                  \
	E(1, vm_exit, 1)                                                 \
	E(2, ept_violation, 1)                                           \
	E(3, swap_in_submit, 1)                                          \
	E(4, swap_in_done, 1)                                            \
	E(5, swap_out_submit, 1)                                         \
	E(6, swap_out_done, 1)                                           \
	E(7, evict_step, 1)                                              \
	E(8, shootdown, 1)                                               \
	E(9, irq_inject, 1)                                              \
	E(10, vcpu_halt, 1)                                              \
	E(11, vcpu_wake, 1)                                              \
	E(12, guest_end, 1)                                              \
	E(13, try_async_get_page, 1)                                     \
	E(14, async_pf_not_present, 1)                                   \
	E(15, async_pf_ready, 1)                                         \
	E(16, async_pf_completed, 1)

/* A VM exit: basic reason, qualification, guest RIP, root-mode cycles. */
#define TRACE_FIELDS_vm_exit(F)                                          \
	F(uint16_t, reason, exit_reason)                                 \
	F(uint64_t, qualification, none)                                 \
	F(uint64_t, rip, none)                                           \
	F(uint64_t, cycles, none)

/* An EPT violation: the page's state when it came, what was done. */
#define TRACE_FIELDS_ept_violation(F)                                    \
	F(uint64_t, gpa, none)                                           \
	F(uint8_t, state, page_state)                                    \
	F(uint8_t, outcome, fault_outcome)

/* Swap I/O: submitted to the device, and completed (latency in cycles). */
#define TRACE_FIELDS_swap_in_submit(F)                                   \
	F(uint64_t, gpa, none)                                           \
	F(uint32_t, slot, none)
#define TRACE_FIELDS_swap_in_done(F)                                     \
	F(uint64_t, gpa, none)                                           \
	F(uint32_t, slot, none)                                          \
	F(uint8_t, ok, none)                                             \
	F(uint64_t, latency, none)
#define TRACE_FIELDS_swap_out_submit(F) TRACE_FIELDS_swap_in_submit(F)
#define TRACE_FIELDS_swap_out_done(F) TRACE_FIELDS_swap_in_done(F)

/* One step of the eviction clock: pages looked at, chosen, sent, dropped. */
#define TRACE_FIELDS_evict_step(F)                                       \
	F(uint32_t, scanned, none)                                       \
	F(uint32_t, chosen, none)                                        \
	F(uint32_t, written, none)                                       \
	F(uint32_t, dropped, none)

/* An EPT shootdown: its generation and the host CPUs it waits for. */
#define TRACE_FIELDS_shootdown(F)                                        \
	F(uint64_t, generation, none)                                    \
	F(uint64_t, cpus, none)

#define TRACE_FIELDS_irq_inject(F)                                       \
	F(uint8_t, vector, none)

#define TRACE_FIELDS_vcpu_halt(F)
#define TRACE_FIELDS_vcpu_wake(F)                                        \
	F(uint64_t, halted_cycles, none)

#define TRACE_FIELDS_guest_end(F)                                        \
	F(uint8_t, kind, end_kind)                                       \
	F(uint8_t, clean, none)

/*
 * Async page faults, as the 2010 series' tracepoints (virt/kvm/async_pf.c,
 * arch/x86/kvm/mmu.c): a fault on a page that is not resident tries the
 * asynchronous path (async: a token was sent, else the vCPU waits), the
 * guest is told "not present", the swap-in completes, the guest is told
 * "ready".
 */
#define TRACE_FIELDS_try_async_get_page(F)                               \
	F(uint64_t, gpa, none)                                           \
	F(uint8_t, async, none)
#define TRACE_FIELDS_async_pf_not_present(F)                             \
	F(uint32_t, token, none)                                         \
	F(uint64_t, gpa, none)
#define TRACE_FIELDS_async_pf_ready(F) TRACE_FIELDS_async_pf_not_present(F)
#define TRACE_FIELDS_async_pf_completed(F)                               \
	TRACE_FIELDS_async_pf_not_present(F)

#endif
