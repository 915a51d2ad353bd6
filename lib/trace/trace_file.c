// SPDX-License-Identifier: BSD-2-Clause
/*
 * The trace file writer (lib/trace/trace_file.h). Sizes first, then the bytes:
 * the header holds every section's offset and size, so the records that
 * fit are counted before anything is written.
 */
#include "lib/trace/trace_file.h"
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/string.h"

#define DESC_MAX 16384

/* ------------------------------------------------- the descriptor table */

#define TRACE_TYPE_NAME_uint8_t  "u8"
#define TRACE_TYPE_NAME_uint16_t "u16"
#define TRACE_TYPE_NAME_uint32_t "u32"
#define TRACE_TYPE_NAME_uint64_t "u64"

struct field_desc {
	const char *name, *type, *enumname;
};

struct event_desc {
	unsigned id, version;
	const char *name;
	const struct field_desc *fields;
};

#define FIELD_DESC(type, field, enumname) \
	{ #field, TRACE_TYPE_NAME_##type, #enumname },
#define EVENT_FIELDS(id, name, version)                                  \
	static const struct field_desc fields_##name[] = {               \
		TRACE_FIELDS_##name(FIELD_DESC) { NULL, NULL, NULL }     \
	};
TRACE_EVENTS(EVENT_FIELDS)

#define EVENT_DESC(id, name, version) { id, version, #name, fields_##name },
static const struct event_desc events[] = { TRACE_EVENTS(EVENT_DESC) };

/* Appends to a text buffer, cutting only whole lines. */
struct text {
	char *buf;
	size_t len, cap;
	bool cut;
};

static void text_line(struct text *t, const char *line)
{
	size_t n = strlen(line);

	if (t->cut || t->len + n + 1 > t->cap) {
		t->cut = true;
		return;
	}
	memcpy(t->buf + t->len, line, n + 1);
	t->len += n;
}

/* Copies a label without spaces (the table's words are space-separated). */
static void word_copy(char *dst, const char *src, size_t size)
{
	size_t i = 0;

	for (; src[i] && i + 1 < size; i++)
		dst[i] = src[i] == ' ' || src[i] == '\n' ? '_' : src[i];
	dst[i] = '\0';
}

static void event_line(struct text *t, const struct event_desc *e)
{
	char line[512], part[96];
	size_t n = (size_t)fmt_snprintf(line, sizeof(line), "event %u %s %u",
					e->id, e->name, e->version);

	for (const struct field_desc *f = e->fields; f->name; f++) {
		bool has_enum = strcmp(f->enumname, "none") != 0;

		fmt_snprintf(part, sizeof(part), " %s:%s%s%s", f->name,
			     f->type, has_enum ? ":" : "",
			     has_enum ? f->enumname : "");
		n += str_copy(line + n, part, sizeof(line) - n);
	}
	str_copy(line + n, "\n", sizeof(line) - n);
	text_line(t, line);
}

/* "enum NAME V=LABEL ...", cut into lines of the same enum if long. */
static void enum_lines(struct text *t, const struct trace_enum *e)
{
	char line[1024], part[96], label[64];
	size_t n = 0;

	for (unsigned v = 0; v < e->count; v++) {
		const char *l = e->label(v);

		if (!l)
			continue;
		if (!n)
			n = (size_t)fmt_snprintf(line, sizeof(line), "enum %s",
						 e->name);
		word_copy(label, l, sizeof(label));
		fmt_snprintf(part, sizeof(part), " %u=%s", v, label);
		if (n + strlen(part) + 2 > sizeof(line)) {
			str_copy(line + n, "\n", sizeof(line) - n);
			text_line(t, line);
			n = (size_t)fmt_snprintf(line, sizeof(line), "enum %s",
						 e->name);
		}
		n += str_copy(line + n, part, sizeof(line) - n);
	}
	if (n) {
		str_copy(line + n, "\n", sizeof(line) - n);
		text_line(t, line);
	}
}

size_t trace_descriptor_text(char *buf, size_t len)
{
	struct text t = { .buf = buf, .cap = len };

	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < ARRAY_SIZE(events); i++)
		event_line(&t, &events[i]);
	for (const struct trace_enum *e = trace_enums(); e; e = e->next)
		enum_lines(&t, e);
	return t.cut ? len : t.len;
}

static void counter_line(void *ctx, const char *name, uint64_t value)
{
	char line[160];

	fmt_snprintf(line, sizeof(line), "%s %llu\n", name,
		     (unsigned long long)value);
	text_line(ctx, line);
}

size_t trace_counters_text(char *buf, size_t len)
{
	struct text t = { .buf = buf, .cap = len };

	if (len)
		buf[0] = '\0';
	counters_each(counter_line, &t);
	return t.cut ? len : t.len;
}

/* --------------------------------------------------------- the output */

struct out {
	const struct trace_sink *sink;  /* NULL: only count */
	uint64_t pos;
	uint64_t records_limit;         /* records stop at this offset */
	uint64_t records, left_out;
};

static void put(struct out *o, const void *buf, size_t len)
{
	if (o->sink && len)
		o->sink->put(o->sink->ctx, buf, len);
	o->pos += len;
}

static void pad_to_8(struct out *o)
{
	static const uint8_t zero[8];

	put(o, zero, (size_t)(-o->pos & 7));
}

static void put_record(void *ctx, const uint8_t *rec, uint32_t size)
{
	struct out *o = ctx;
	uint32_t span = trace_record_span(size);

	if (o->pos + span > o->records_limit) {
		o->left_out++;
		return;
	}
	put(o, rec, size);
	pad_to_8(o);
	o->records++;
}

static void put_records(struct out *o, const struct trace_ring_view *views)
{
	for (unsigned i = 0; i < trace_state.ncpus; i++)
		trace_ring_walk(&trace_state.rings[i], views[i], put_record, o);
}

static void le(uint8_t *h, unsigned off, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		h[off + i] = (uint8_t)v;
}

struct layout {
	uint64_t desc_off, desc_len, config_off, config_len;
	uint64_t records_off, records_len, counters_off, counters_len, size;
};

static void build_header(uint8_t *h, const struct trace_file_info *info,
			 const struct layout *l, const struct out *rec,
			 uint64_t ring_lost)
{
	uint32_t flags = 0;

	if (trace_state.overwrite)
		flags |= TRACE_FLAG_OVERWRITE;
	if (trace_any_full())
		flags |= TRACE_FLAG_FULL;
	if (rec->left_out)
		flags |= TRACE_FLAG_TRUNCATED;
	memset(h, 0, TRACE_HEADER_SIZE);
	memcpy(h + TRACE_OFF_MAGIC, TRACE_MAGIC, TRACE_MAGIC_LEN);
	le(h, TRACE_OFF_MAJOR, TRACE_MAJOR, 2);
	le(h, TRACE_OFF_MINOR, TRACE_MINOR, 2);
	le(h, TRACE_OFF_HEADER_SIZE, TRACE_HEADER_SIZE, 4);
	le(h, TRACE_OFF_TSC_HZ, info->tsc_hz, 8);
	le(h, TRACE_OFF_CPUS, trace_state.ncpus, 4);
	le(h, TRACE_OFF_VCPUS, info->vcpus, 4);
	le(h, TRACE_OFF_FLAGS, flags, 4);
	le(h, TRACE_OFF_RECORDS_KEPT, rec->records, 8);
	le(h, TRACE_OFF_RECORDS_LOST, ring_lost + rec->left_out, 8);
	le(h, TRACE_OFF_DESC, l->desc_off, 8);
	le(h, TRACE_OFF_DESC + 8, l->desc_len, 8);
	le(h, TRACE_OFF_CONFIG, l->config_off, 8);
	le(h, TRACE_OFF_CONFIG + 8, l->config_len, 8);
	le(h, TRACE_OFF_RECORDS, l->records_off, 8);
	le(h, TRACE_OFF_RECORDS + 8, l->records_len, 8);
	le(h, TRACE_OFF_COUNTERS, l->counters_off, 8);
	le(h, TRACE_OFF_COUNTERS + 8, l->counters_len, 8);
	le(h, TRACE_OFF_FILE_SIZE, l->size, 8);
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

int trace_file_write(const struct trace_file_info *info,
		     const struct trace_sink *sink,
		     struct trace_file_result *res)
{
	static char desc[DESC_MAX];
	struct trace_ring_view views[MAX_HOST_CPUS];
	uint8_t header[TRACE_HEADER_SIZE];
	struct layout l = { .desc_off = TRACE_HEADER_SIZE };
	struct out count = { .records_limit = UINT64_MAX }, o = { .sink = sink };
	uint64_t fixed, ring_lost = trace_lost();

	for (unsigned i = 0; i < trace_state.ncpus; i++)
		views[i] = trace_ring_snapshot(&trace_state.rings[i]);
	l.desc_len = trace_descriptor_text(desc, sizeof(desc));
	l.config_off = align8(l.desc_off + l.desc_len);
	l.config_len = info->config ? info->config_len : 0;
	l.records_off = align8(l.config_off + l.config_len);
	l.counters_len = info->counters ? info->counters_len : 0;
	fixed = l.records_off + l.counters_len;
	if (info->capacity && fixed > info->capacity)
		return -1;
	/* Which records fit: count them with the same views. */
	count.pos = l.records_off;
	if (info->capacity)
		count.records_limit = info->capacity - l.counters_len;
	put_records(&count, views);
	l.records_len = count.pos - l.records_off;
	l.counters_off = count.pos;
	l.size = l.counters_off + l.counters_len;

	build_header(header, info, &l, &count, ring_lost);
	put(&o, header, sizeof(header));
	put(&o, desc, l.desc_len);
	pad_to_8(&o);
	if (l.config_len)
		put(&o, info->config, l.config_len);
	pad_to_8(&o);
	o.records_limit = count.pos;
	put_records(&o, views);
	put(&o, info->counters, l.counters_len);
	*res = (struct trace_file_result){
		.size = o.pos, .records = o.records,
		.lost = ring_lost + count.left_out,
		.truncated = count.left_out != 0,
	};
	return 0;
}
