/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trace events: the emitters lib/trace/trace_events.h declares, into one ring
 * per host CPU (lib/trace/trace_ring.h). With tracing off an event site costs
 * one load and one branch predicted not taken; with it on, a record of
 * 16 bytes and the fields is copied into the CPU's own ring (no lock: a
 * ring has one writer).
 *
 *	trace_ept_violation(vcpu_id, gpa, state, outcome);
 *	trace_vm_exit_at(exit_tsc, vcpu_id, reason, qual, rip, cycles);
 *
 * The _at form stamps the record with a TSC taken earlier. vcpu is the
 * vCPU the event belongs to, or TRACE_NO_VCPU.
 *
 * Two answers come from the layer that knows the hardware, which hands
 * them over with trace_set_platform() before the first event (the
 * hypervisor's boot/ with arch/x86/trace_clock.c's, a test with its own):
 * the clock, the TSC, and this host CPU's index (below the ring count).
 * Until then the clock reads 0 and every record goes to CPU 0's ring.
 */
#ifndef LIB_TRACE_H
#define LIB_TRACE_H

#include "lib/limits.h"
#include "lib/types.h"
#include "lib/trace/trace_events.h"
#include "lib/trace/trace_format.h"
#include "lib/trace/trace_ring.h"


struct trace_platform {
	uint64_t (*clock)(void);
	unsigned (*cpu)(void);
};

void trace_set_platform(const struct trace_platform *platform);
uint64_t trace_clock(void);
unsigned trace_cpu(void);

struct trace_state {
	struct trace_ring rings[MAX_HOST_CPUS];
	unsigned ncpus;
	bool overwrite;
};

/*
 * Whether events are recorded: read at every event site, and on every VM
 * exit. Hidden: the position-independent hypervisor reads it with one
 * instruction instead of first loading its address from the GOT.
 */
extern bool trace_on __attribute__((visibility("hidden")));
extern struct trace_state trace_state;

/*
 * Starts recording into ncpus rings of size bytes each, bufs[i] for CPU
 * i (ncpus <= MAX_HOST_CPUS). overwrite: keep the newest records when a
 * ring fills, else the oldest.
 */
void trace_start(void *const bufs[], unsigned ncpus, uint32_t size,
		 bool overwrite);
/* Stops recording (the rings keep what they hold); trace_reset forgets. */
void trace_stop(void);
void trace_reset(void);

/* Records lost so far over every ring; whether a stop-mode ring filled. */
uint64_t trace_lost(void);
bool trace_any_full(void);

/* Out of line: the work behind every emitter. tsc 0: now. */
void trace_record(unsigned event, unsigned vcpu, uint64_t tsc,
		  const void *fields, unsigned len);

/*
 * Labels of an enum the descriptor table names ("exit_reason", ...):
 * label(v) for v < count, NULL where a value has none. Registered by the
 * module that owns the values, once, before the trace is written.
 */
struct trace_enum {
	const char *name;
	unsigned count;
	const char *(*label)(unsigned value);
	struct trace_enum *next;        /* the registry's */
};
void trace_enum_register(struct trace_enum *e);
const struct trace_enum *trace_enums(void);

/* The emitters, from the one list. */
#define TRACE_FIELD_MEMBER(type, field, enumname) type field;
#define TRACE_FIELD_PARAM(type, field, enumname) , type field
#define TRACE_FIELD_INIT(type, field, enumname) .field = field,
#define TRACE_FIELD_ARG(type, field, enumname) , field

#define TRACE_DECLARE_EVENT(id, name, version)                           \
	struct trace_fields_##name {                                     \
		TRACE_FIELDS_##name(TRACE_FIELD_MEMBER)                  \
	} __attribute__((packed));                                       \
	static inline void trace_##name##_at(uint64_t tsc, unsigned vcpu \
		TRACE_FIELDS_##name(TRACE_FIELD_PARAM))                  \
	{                                                                \
		if (__builtin_expect(trace_on, 0)) {                     \
			struct trace_fields_##name f = {                 \
				TRACE_FIELDS_##name(TRACE_FIELD_INIT)    \
			};                                               \
			trace_record(id, vcpu, tsc, &f, sizeof(f));      \
		}                                                        \
	}                                                                \
	static inline void trace_##name(unsigned vcpu                    \
		TRACE_FIELDS_##name(TRACE_FIELD_PARAM))                  \
	{                                                                \
		trace_##name##_at(0, vcpu                                \
			TRACE_FIELDS_##name(TRACE_FIELD_ARG));           \
	}
TRACE_EVENTS(TRACE_DECLARE_EVENT)

#endif
