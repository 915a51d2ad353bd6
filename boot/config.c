/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * apfvisor.cfg parser. The text comes straight from a file on the ESP: it is
 * not NUL-terminated, may use CRLF line endings (files edited on Windows) and
 * may lack a final newline, so everything here works on (pointer, length)
 * slices and never looks past len.
 */
#include "boot/config.h"
#include "lib/format.h"
#include "lib/limits.h"
#include "lib/string.h"

#define CONFIG_FILE "apfvisor.cfg"
#define CONFIG_GUEST_MEMORY_MIN MiB(2)
/*
 * Guest RAM is laid out as on QEMU's PC (lib/guest_ram.h): from 3.5 GiB of
 * guest.memory up, the RAM above 3 GiB moves above 4 GiB, so 60 GiB ends at
 * 61 GiB. The bound: every RAM address stays below 2^36, the narrowest
 * physical address width of the x86-64 CPUs with EPT, which the guest
 * inherits; the page metadata costs 16 MiB of hypervisor heap below
 * 4 GiB per GiB of guest (boot/efi_memory.c), 960 MiB here, about all a
 * PC leaves free there; slot and frame numbers (32 bits) and the EPT
 * (48 bits) are far from their limits.
 */
#define CONFIG_GUEST_MEMORY_MAX GiB(60)
#define CONFIG_FAIL_EVERY_MAX 1000000
/* Longest value or key quoted back in an error message. */
#define CONFIG_ECHO_MAX 40

struct slice {
	const char *p;
	size_t n;
};

enum set_result {
	SET_OK,
	SET_BAD_VALUE,
	SET_TOO_LONG,
};

struct config_key {
	const char *name;
	enum set_result (*set)(struct hv_config *cfg, struct slice v);
	const char *expected;   /* for "bad value" messages */
	bool hash_in_value;     /* '#' is part of the value, not a comment */
};

void config_set_defaults(struct hv_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->guest_format = GUEST_FORMAT_AUTO;
	cfg->guest_memory = MiB(64);
	cfg->guest_vcpus = 1;
	cfg->host_guest_frames = 0;     /* same as guest_memory */
	cfg->swap_device = SWAP_DEVICE_NONE;
	cfg->apf = true;
	cfg->console_output = CONSOLE_OUTPUT_BOTH;
	cfg->tsc_source = TSC_SOURCE_AUTO;
	cfg->trace = false;
	cfg->trace_buffer = MiB(4);
	cfg->trace_overwrite = false;
	cfg->debug_host_exception = false;
	cfg->debug_blockdev_selftest = false;
	cfg->bench_swap = false;
	cfg->debug_swap_verify = false;
	cfg->debug_swap_fail_reads = 0;
	cfg->debug_swap_fail_writes = 0;
	cfg->debug_hypercall = false;
	cfg->guest_testdev = false;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static struct slice trim(struct slice s)
{
	while (s.n && is_blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && is_blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

static bool slice_eq(struct slice s, const char *str)
{
	return strlen(str) == s.n && memcmp(s.p, str, s.n) == 0;
}

/* Returns the index of the first c in s, or s.n when there is none. */
static size_t slice_find(struct slice s, char c)
{
	size_t i = 0;

	while (i < s.n && s.p[i] != c)
		i++;
	return i;
}

/* Cuts s at the first '#' that is not inside double quotes. */
static struct slice cut_comment(struct slice s)
{
	bool quoted = false;

	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] == '"')
			quoted = !quoted;
		else if (s.p[i] == '#' && !quoted)
			s.n = i;
	}
	return s;
}

/* Digits and an optional K/M/G with optional "B" or "iB"; no overflow. */
static bool parse_size(struct slice s, uint64_t *bytes)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned shift = 0;

	if (!s.n || s.p[0] < '0' || s.p[0] > '9')
		return false;
	for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
		unsigned d = s.p[i] - '0';

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (i < s.n) {
		/* "64 MiB": a blank may separate the number from its unit. */
		while (i < s.n && is_blank(s.p[i]))
			i++;
		if (i == s.n)
			return false;
		switch (s.p[i++]) {
		case 'K': case 'k': shift = 10; break;
		case 'M': case 'm': shift = 20; break;
		case 'G': case 'g': shift = 30; break;
		default: return false;
		}
		s = (struct slice){ s.p + i, s.n - i };
		if (s.n && !slice_eq(s, "B") && !slice_eq(s, "iB"))
			return false;
	}
	if (v > (UINT64_MAX >> shift))
		return false;
	*bytes = v << shift;
	return true;
}

/*
 * A duration: digits and a unit ns, us, ms or s ("0" alone is allowed),
 * at most CONFIG_DURATION_MAX_NS; in nanoseconds.
 */
static bool parse_duration(struct slice s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		      { "s", 1000000000 } };
	uint64_t v = 0;
	size_t i = 0;

	if (!s.n || s.p[0] < '0' || s.p[0] > '9')
		return false;
	for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
		if (v > CONFIG_DURATION_MAX_NS)
			return false;
		v = v * 10 + (unsigned)(s.p[i] - '0');
	}
	while (i < s.n && is_blank(s.p[i]))
		i++;
	s = (struct slice){ s.p + i, s.n - i };
	if (!s.n) {
		*ns = v;
		return v == 0;
	}
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		if (slice_eq(s, units[u].unit) &&
		    v <= CONFIG_DURATION_MAX_NS / units[u].ns) {
			*ns = v * units[u].ns;
			return true;
		}
	}
	return false;
}

bool config_parse_size(const char *s, uint64_t *bytes)
{
	return parse_size((struct slice){ s, strlen(s) }, bytes);
}

static enum set_result copy_value(char *dst, size_t size, struct slice v)
{
	if (v.n >= size)
		return SET_TOO_LONG;
	memcpy(dst, v.p, v.n);
	dst[v.n] = '\0';
	return SET_OK;
}

/*
 * A path may be written in double quotes; a '"' anywhere else is an error
 * (FAT does not allow it in a name, so it can only be a typo).
 */
static enum set_result set_path(char *dst, struct slice v, bool required)
{
	if (v.n && v.p[0] == '"') {
		if (v.n < 2 || v.p[v.n - 1] != '"')
			return SET_BAD_VALUE;
		v = (struct slice){ v.p + 1, v.n - 2 };
	}
	if (slice_find(v, '"') != v.n || (required && !v.n))
		return SET_BAD_VALUE;
	return copy_value(dst, CONFIG_PATH_MAX, v);
}

static enum set_result set_kernel(struct hv_config *cfg, struct slice v)
{
	return set_path(cfg->guest_kernel, v, true);
}

static enum set_result set_format(struct hv_config *cfg, struct slice v)
{
	for (enum guest_format f = GUEST_FORMAT_AUTO; f < GUEST_FORMAT_UNKNOWN;
	     f++) {
		if (slice_eq(v, guest_format_name(f))) {
			cfg->guest_format = f;
			return SET_OK;
		}
	}
	return SET_BAD_VALUE;
}

static enum set_result set_initrd(struct hv_config *cfg, struct slice v)
{
	return set_path(cfg->guest_initrd, v, false);
}

/*
 * Linux gives quotes a meaning inside its command line (param="a b"), so
 * they are kept, except one pair that encloses the whole value.
 */
static enum set_result set_cmdline(struct hv_config *cfg, struct slice v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"') {
		struct slice in = { v.p + 1, v.n - 2 };

		if (slice_find(in, '"') == in.n)
			v = in;
	}
	return copy_value(cfg->guest_cmdline, CONFIG_CMDLINE_MAX, v);
}

static enum set_result set_memory(struct hv_config *cfg, struct slice v)
{
	uint64_t bytes;

	if (!parse_size(v, &bytes) || !IS_ALIGNED(bytes, PAGE_SIZE) ||
	    bytes < CONFIG_GUEST_MEMORY_MIN || bytes > CONFIG_GUEST_MEMORY_MAX)
		return SET_BAD_VALUE;
	cfg->guest_memory = bytes;
	return SET_OK;
}

/* A decimal number in 0..max, no sign, no suffix. */
static bool parse_count(struct slice v, uint32_t max, uint32_t *out)
{
	uint32_t n = 0;

	if (!v.n)
		return false;
	for (size_t i = 0; i < v.n; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		n = n * 10 + (uint32_t)(v.p[i] - '0');
		if (n > max)
			return false;
	}
	*out = n;
	return true;
}

/* 0x and 1 to 16 hex digits. */
static bool parse_hex64(struct slice v, uint64_t *out)
{
	uint64_t n = 0;

	if (v.n < 3 || v.n > 18 || v.p[0] != '0' ||
	    (v.p[1] != 'x' && v.p[1] != 'X'))
		return false;
	for (size_t i = 2; i < v.n; i++) {
		char c = v.p[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		n = n << 4 | d;
	}
	*out = n;
	return true;
}

static enum set_result set_isolation_secret(struct hv_config *cfg,
					    struct slice v)
{
	uint64_t secret;

	if (!parse_hex64(v, &secret) || !secret)
		return SET_BAD_VALUE;
	cfg->debug_isolation_secret = secret;
	return SET_OK;
}

static enum set_result set_vcpus(struct hv_config *cfg, struct slice v)
{
	uint32_t n;

	if (!parse_count(v, MAX_VCPUS, &n) || n < 1)
		return SET_BAD_VALUE;
	cfg->guest_vcpus = n;
	return SET_OK;
}

static enum set_result set_frames(struct hv_config *cfg, struct slice v)
{
	uint64_t bytes;

	if (!parse_size(v, &bytes) || !IS_ALIGNED(bytes, PAGE_SIZE))
		return SET_BAD_VALUE;
	cfg->host_guest_frames = bytes;
	return SET_OK;
}

/* A value that is one of a list of names, each standing for an enum. */
struct named_value {
	const char *name;
	int value;
};

static enum set_result set_named(int *dst, struct slice v,
				 const struct named_value *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (slice_eq(v, names[i].name)) {
			*dst = names[i].value;
			return SET_OK;
		}
	}
	return SET_BAD_VALUE;
}

static enum set_result set_swap(struct hv_config *cfg, struct slice v)
{
	static const struct named_value kinds[] = {
		{ "none", SWAP_DEVICE_NONE },
		{ "auto", SWAP_DEVICE_AUTO },
		{ "virtio-blk", SWAP_DEVICE_VIRTIO_BLK },
		{ "ata", SWAP_DEVICE_ATA },
		{ "nvme", SWAP_DEVICE_NVME },
		{ "ahci", SWAP_DEVICE_AHCI },
	};
	int kind;
	enum set_result r = set_named(&kind, v, kinds, ARRAY_SIZE(kinds));

	if (r == SET_OK)
		cfg->swap_device = kind;
	return r;
}

static enum set_result set_tsc_source(struct hv_config *cfg, struct slice v)
{
	static const struct named_value sources[] = {
		{ "auto", TSC_SOURCE_AUTO },
		{ "cpuid", TSC_SOURCE_CPUID },
		{ "pmtimer", TSC_SOURCE_PM_TIMER },
		{ "pit", TSC_SOURCE_PIT },
	};
	int source;
	enum set_result r = set_named(&source, v, sources,
				      ARRAY_SIZE(sources));

	if (r == SET_OK)
		cfg->tsc_source = source;
	return r;
}

static enum set_result set_on_off(bool *dst, struct slice v)
{
	if (slice_eq(v, "on"))
		*dst = true;
	else if (slice_eq(v, "off"))
		*dst = false;
	else
		return SET_BAD_VALUE;
	return SET_OK;
}

static enum set_result set_apf(struct hv_config *cfg, struct slice v)
{
	return set_on_off(&cfg->apf, v);
}

static enum set_result set_console_passthrough(struct hv_config *cfg,
					       struct slice v)
{
	if (slice_eq(v, "off"))
		cfg->console_passthrough = CONSOLE_PASSTHROUGH_OFF;
	else if (slice_eq(v, "com2"))
		cfg->console_passthrough = CONSOLE_PASSTHROUGH_COM2;
	else
		return SET_BAD_VALUE;
	return SET_OK;
}

static enum set_result set_console(struct hv_config *cfg, struct slice v)
{
	if (slice_eq(v, "both"))
		cfg->console_output = CONSOLE_OUTPUT_BOTH;
	else if (slice_eq(v, "serial"))
		cfg->console_output = CONSOLE_OUTPUT_SERIAL;
	else if (slice_eq(v, "screen"))
		cfg->console_output = CONSOLE_OUTPUT_SCREEN;
	else
		return SET_BAD_VALUE;
	return SET_OK;
}

static enum set_result set_trace(struct hv_config *cfg, struct slice v)
{
	return set_on_off(&cfg->trace, v);
}

static enum set_result set_trace_buffer(struct hv_config *cfg,
					struct slice v)
{
	uint64_t bytes;

	if (!parse_size(v, &bytes) || !IS_ALIGNED(bytes, PAGE_SIZE) ||
	    bytes < CONFIG_TRACE_BUFFER_MIN || bytes > CONFIG_TRACE_BUFFER_MAX)
		return SET_BAD_VALUE;
	cfg->trace_buffer = bytes;
	return SET_OK;
}

static enum set_result set_trace_mode(struct hv_config *cfg, struct slice v)
{
	if (slice_eq(v, "stop"))
		cfg->trace_overwrite = false;
	else if (slice_eq(v, "overwrite"))
		cfg->trace_overwrite = true;
	else
		return SET_BAD_VALUE;
	return SET_OK;
}

static enum set_result set_debug_host_exception(struct hv_config *cfg,
						struct slice v)
{
	return set_on_off(&cfg->debug_host_exception, v);
}

static enum set_result set_debug_blockdev_selftest(struct hv_config *cfg,
						   struct slice v)
{
	return set_on_off(&cfg->debug_blockdev_selftest, v);
}

static enum set_result set_bench_swap(struct hv_config *cfg, struct slice v)
{
	return set_on_off(&cfg->bench_swap, v);
}

static enum set_result set_swap_verify(struct hv_config *cfg, struct slice v)
{
	return set_on_off(&cfg->debug_swap_verify, v);
}

static enum set_result set_swap_fail_reads(struct hv_config *cfg,
					   struct slice v)
{
	return parse_count(v, CONFIG_FAIL_EVERY_MAX,
			   &cfg->debug_swap_fail_reads) ? SET_OK : SET_BAD_VALUE;
}

static enum set_result set_swap_fail_writes(struct hv_config *cfg,
					    struct slice v)
{
	return parse_count(v, CONFIG_FAIL_EVERY_MAX,
			   &cfg->debug_swap_fail_writes) ? SET_OK : SET_BAD_VALUE;
}

static enum set_result set_debug_hypercall(struct hv_config *cfg,
					   struct slice v)
{
	return set_on_off(&cfg->debug_hypercall, v);
}

static enum set_result set_read_latency(struct hv_config *cfg,
					struct slice v)
{
	return parse_duration(v, &cfg->swap_read_latency_ns) ? SET_OK
							     : SET_BAD_VALUE;
}

static enum set_result set_testdev(struct hv_config *cfg, struct slice v)
{
	return set_on_off(&cfg->guest_testdev, v);
}

static const struct config_key config_keys[] = {
	{ "guest.kernel", set_kernel, "a file path", false },
	{ "guest.format", set_format,
	  "auto, bzimage, multiboot, elf or flat", false },
	{ "guest.initrd", set_initrd, "a file path", false },
	{ "guest.cmdline", set_cmdline, "a command line", true },
	{ "guest.memory", set_memory,
	  "a size, a multiple of 4K, 2M..60G", false },
	{ "guest.vcpus", set_vcpus, "1.." LIMIT_STR(MAX_VCPUS), false },
	{ "guest.testdev", set_testdev, "on or off", false },
	{ "host.guest_frames", set_frames, "a size, a multiple of 4K", false },
	{ "swap.device", set_swap, "auto, virtio-blk, nvme, ahci, ata or none",
	  false },
	{ "swap.read_latency", set_read_latency,
	  "0 or a duration in ns, us, ms or s, at most 10s",
	  false },
	{ "apf", set_apf, "on or off", false },
	{ "trace", set_trace, "on or off", false },
	{ "trace.buffer", set_trace_buffer,
	  "a size per host CPU, a multiple of 4K, 64K..256M", false },
	{ "trace.mode", set_trace_mode, "stop or overwrite", false },
	{ "console", set_console, "serial, screen or both", false },
	{ "console.passthrough", set_console_passthrough, "off or com2",
	  false },
	{ "tsc.source", set_tsc_source, "auto, cpuid, pmtimer or pit", false },
	{ "debug.host_exception", set_debug_host_exception, "on or off",
	  false },
	{ "debug.blockdev_selftest", set_debug_blockdev_selftest,
	  "on or off", false },
	{ "bench.swap", set_bench_swap, "on or off", false },
	{ "debug.swap_fail_reads", set_swap_fail_reads,
	  "0..1000000 (0 = off)", false },
	{ "debug.swap_fail_writes", set_swap_fail_writes,
	  "0..1000000 (0 = off)", false },
	{ "debug.swap_verify", set_swap_verify, "on or off", false },
	{ "debug.hypercall", set_debug_hypercall, "on or off", false },
	{ "debug.isolation_secret", set_isolation_secret,
	  "0x and 1 to 16 hex digits, not 0", false },
};

/* Keys that are gone, with what replaced them. */
static const struct {
	const char *name, *instead;
} retired_keys[] = {
	{ "console.raw", "the record keeps the guest's bytes escaped; for a "
	  "raw terminal use console.passthrough = com2" },
};

static const char *retired_key_hint(struct slice name)
{
	for (size_t i = 0; i < ARRAY_SIZE(retired_keys); i++)
		if (slice_eq(name, retired_keys[i].name))
			return retired_keys[i].instead;
	return NULL;
}

static const struct config_key *find_key(struct slice name)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		if (slice_eq(name, config_keys[i].name))
			return &config_keys[i];
	}
	return NULL;
}

/* Quotes s back to the user with "%.*s%s", shortened so that it fits. */
#define ECHO(s) (int)MIN((s).n, CONFIG_ECHO_MAX), (s).p, \
		((s).n > CONFIG_ECHO_MAX ? "..." : "")
/* A short slice known to be one of ours. */
#define ECHO_PLAIN(s) (int)(s).n, (s).p

struct parser {
	struct hv_config *cfg;
	char *err;
	size_t err_len;
	unsigned line;
	uint32_t seen;          /* bit i: config_keys[i] was set */
};

PRINTF_LIKE(2, 3)
static int parse_error(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (!ps->err || !ps->err_len)
		return -1;
	len = fmt_snprintf(ps->err, ps->err_len, CONFIG_FILE ":%u: ",
			   ps->line);
	if ((size_t)len < ps->err_len) {
		va_start(ap, fmt);
		fmt_vsnprintf(ps->err + len, ps->err_len - len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int parse_line(struct parser *ps, struct slice line)
{
	const struct config_key *k;
	struct slice key, val;
	enum set_result r;
	size_t eq, bit;

	line = trim(line);
	if (!line.n || line.p[0] == '#')
		return 0;
	eq = slice_find(line, '=');
	key = trim((struct slice){ line.p, eq });
	if (eq == line.n || !key.n || slice_find(key, '#') != key.n)
		return parse_error(ps, "expected 'key = value'");
	k = find_key(key);
	if (!k && retired_key_hint(key))
		return parse_error(ps, "key '%.*s' is gone: %s", ECHO_PLAIN(key),
				   retired_key_hint(key));
	if (!k)
		return parse_error(ps, "unknown key '%.*s%s'", ECHO(key));
	bit = k - config_keys;
	if (ps->seen & BIT(bit))
		return parse_error(ps, "duplicate key '%.*s%s'", ECHO(key));
	ps->seen |= BIT(bit);

	val = (struct slice){ line.p + eq + 1, line.n - eq - 1 };
	val = trim(k->hash_in_value ? val : cut_comment(val));
	r = k->set(ps->cfg, val);
	if (r == SET_BAD_VALUE)
		return parse_error(ps,
				   "bad value '%.*s%s' for %s (expected %s)",
				   ECHO(val), k->name, k->expected);
	if (r == SET_TOO_LONG)
		return parse_error(ps, "value too long for %s", k->name);
	return 0;
}

int config_parse(const char *text, size_t len, struct hv_config *cfg,
		 char *err, size_t err_len)
{
	struct parser ps = { .cfg = cfg, .err = err, .err_len = err_len };
	struct slice rest = { text, len };

	config_set_defaults(cfg);
	if (err && err_len)
		err[0] = '\0';
	while (rest.n) {
		size_t nl = slice_find(rest, '\n');
		size_t skip = nl < rest.n ? nl + 1 : nl;

		ps.line++;
		if (parse_line(&ps, (struct slice){ rest.p, nl }))
			return -1;
		rest = (struct slice){ rest.p + skip, rest.n - skip };
	}
	if (!cfg->guest_kernel[0]) {
		if (err && err_len)
			fmt_snprintf(err, err_len,
				     CONFIG_FILE ": guest.kernel is not set");
		return -1;
	}
	if (!cfg->host_guest_frames)
		cfg->host_guest_frames = cfg->guest_memory;
	return 0;
}
