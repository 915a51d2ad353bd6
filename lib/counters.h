/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The counter registry. Every module declares its counters once, as a
 * table of (name, place) or as a walker over state it owns, and registers
 * it here when it is created; one walk then reaches every counter of the
 * hypervisor: the end-of-run "apfvisor: stat NAME VALUE" lines, and later
 * the trace. No second list of names exists anywhere.
 *
 * A table-driven source names the uint64_t fields of one struct:
 *
 *	#define MY_COUNTERS(X) \
 *		X(struct my_stats, faults, "my.faults") \
 *		X(struct my_stats, waits, "my.waits")
 *	struct my_stats { MY_COUNTERS(COUNTER_FIELD) };
 *	static const struct counter_def my_defs[] = { MY_COUNTERS(COUNTER_DEF) };
 *
 * so the struct and the names come from the one list.
 */
#ifndef LIB_COUNTERS_H
#define LIB_COUNTERS_H

#include "lib/types.h"

#define COUNTER_FIELD(type, field, name) uint64_t field;
#define COUNTER_DEF(type, field, name) { name, offsetof(type, field) },

struct counter_def {
	const char *name;
	size_t offset;          /* of a uint64_t in the source's struct */
};

typedef void (*counter_fn)(void *ctx, const char *name, uint64_t value);

struct counter_source {
	/* Either a table over obj ... */
	const struct counter_def *defs;
	unsigned ndefs;
	/*
	 * ... summed over instances objects stride bytes apart (per-vCPU
	 * counters give one line for the whole VM); 0 or 1: one object.
	 */
	unsigned instances;
	size_t stride;
	/* ... or a walker that calls fn for each of its counters. */
	void (*each)(const void *obj, counter_fn fn, void *ctx);
	const void *obj;
	struct counter_source *next;    /* the registry's, not the owner's */
};

/* Adds src (which must outlive the run) at the end of the registry. */
void counters_register(struct counter_source *src);

/* Calls fn for every counter of every source, in registration order. */
void counters_each(counter_fn fn, void *ctx);

/*
 * The value of the counter called name, as counters_each reports it;
 * returns how many counters have that name (0: none, so *value is 0).
 */
unsigned counters_find(const char *name, uint64_t *value);

/*
 * " NAME VALUE" for each of the n names that some counter has (a name
 * without one is left out), into buf (NUL-terminated, cut to cap);
 * returns the length. The counters a research mark shows
 * (guest/debug_hypercall.c).
 */
size_t counters_line(char *buf, size_t cap, const char *const *names,
		     unsigned n);

/* Forgets every source (host unit tests). */
void counters_reset(void);

#endif
