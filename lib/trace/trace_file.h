/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Writing the trace file (lib/trace/trace_format.h) from the rings of
 * lib/trace/trace.h: the fixed header, the descriptor table made from
 * lib/trace/trace_events.h and the registered enums, the config, every ring's
 * records, the counters. Plain C: the hypervisor sends the bytes to its
 * trace disk, tests/unit to a file the decoder reads.
 */
#ifndef LIB_TRACE_FILE_H
#define LIB_TRACE_FILE_H

#include "lib/trace/trace.h"

/* Where the bytes go, in order from offset 0. */
struct trace_sink {
	void (*put)(void *ctx, const void *buf, size_t len);
	void *ctx;
};

struct trace_file_info {
	uint64_t tsc_hz;
	unsigned vcpus;
	const char *config;             /* "key = value" lines, or NULL */
	size_t config_len;
	const char *counters;           /* "NAME VALUE" lines, or NULL */
	size_t counters_len;
	uint64_t capacity;              /* most bytes the sink takes; 0: any */
};

struct trace_file_result {
	uint64_t size;                  /* bytes written */
	uint64_t records;               /* records written */
	uint64_t lost;                  /* not recorded, dropped, left out */
	bool truncated;                 /* records left out for capacity */
};

/*
 * Writes the whole file through sink. Returns 0, or -1 when even a file
 * without records would not fit in info->capacity (nothing is written).
 * The rings may still be written to in stop mode (their records until the
 * start of this call are written); in overwrite mode stop them first.
 */
int trace_file_write(const struct trace_file_info *info,
		     const struct trace_sink *sink,
		     struct trace_file_result *res);

/*
 * The counter registry as "NAME VALUE\n" lines into buf (at most len
 * bytes, NUL-terminated); returns the length, or len when it did not fit
 * (the text is then cut at a line's end).
 */
size_t trace_counters_text(char *buf, size_t len);

/* The descriptor table's text into buf (as above). */
size_t trace_descriptor_text(char *buf, size_t len);

#endif
