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

/* Up to max decimal digits (at least one) from the front of *s, consumed. */
static bool take_number(struct slice *s, unsigned max_digits, uint32_t *out)
{
	uint32_t n = 0;
	unsigned digits = 0;

	while (digits < s->n && s->p[digits] >= '0' && s->p[digits] <= '9') {
		if (digits == max_digits)
			return false;
		n = n * 10 + (uint32_t)(s->p[digits] - '0');
		digits++;
	}
	if (!digits)
		return false;
	s->p += digits;
	s->n -= digits;
	*out = n;
	return true;
}

static bool take_char(struct slice *s, char c)
{
	if (!s->n || s->p[0] != c)
		return false;
	s->p++;
	s->n--;
	return true;
}

/* "A.B.C.D" at the front of *s (consumed): four numbers 0..255. */
static bool take_ipv4(struct slice *s, uint32_t *ip)
{
	uint32_t v = 0, part;

	for (int i = 0; i < 4; i++) {
		if ((i && !take_char(s, '.')) || !take_number(s, 3, &part) ||
		    part > 255)
			return false;
		v = v << 8 | part;
	}
	*ip = v;
	return true;
}

/* An export name: printable ASCII but space, ',', '"' and '#'. */
static bool export_name_char(char c)
{
	return c > ' ' && c < 0x7f && c != ',' && c != '"' && c != '#';
}

/* "nbd://A.B.C.D[:PORT][/EXPORT]": one server of swap.device. */
static bool parse_nbd_url(struct slice s, struct swap_remote *r)
{
	static const char scheme[] = "nbd://";
	uint32_t port = SWAP_NBD_DEFAULT_PORT;

	*r = (struct swap_remote){ 0 };
	if (s.n < sizeof(scheme) - 1 ||
	    memcmp(s.p, scheme, sizeof(scheme) - 1))
		return false;
	s.p += sizeof(scheme) - 1;
	s.n -= sizeof(scheme) - 1;
	if (!take_ipv4(&s, &r->ip))
		return false;
	if (take_char(&s, ':') &&
	    (!take_number(&s, 5, &port) || !port || port > 0xffff))
		return false;
	r->port = (uint16_t)port;
	if (!s.n)
		return true;
	if (!take_char(&s, '/') || s.n >= SWAP_EXPORT_NAME_MAX)
		return false;
	for (size_t i = 0; i < s.n; i++)
		if (!export_name_char(s.p[i]))
			return false;
	memcpy(r->export_name, s.p, s.n);
	return true;
}

/* The kinds of boot/config_keys.def. */
enum config_kind {
	KIND_PATH,
	KIND_TEXT,
	KIND_SIZE,
	KIND_COUNT,
	KIND_DURATION,
	KIND_HEX,
	KIND_ON_OFF,
	KIND_CHOICE,
	KIND_IPV4,
	KIND_NET_ADDRESS,
	KIND_SWAP_DEVICE,
	KIND_NBD_LIST,
};

/* Each key's index in config_keys[]: KEY_ID_<field>. */
enum config_key_id {
#define CONFIG_KEY(name, field, kind, ctype, lo, hi, values, dflt, help) \
	KEY_ID_##field,
#define CONFIG_CHOICE(field, name, value)
#include "boot/config_keys.def"
#undef CONFIG_CHOICE
#undef CONFIG_KEY
	CONFIG_KEY_COUNT
};

struct config_key;
typedef enum set_result (*config_setter)(struct hv_config *cfg,
					 struct slice v,
					 const struct config_key *k);

struct config_key {
	const char *name;
	config_setter set;
	enum config_kind kind;
	enum config_key_id id;
	uint64_t lo, hi;        /* SIZE and COUNT bounds */
	const char *values;     /* for "bad value" messages; NULL: the names */
	const char *dflt;       /* in the file's syntax; NULL: none */
	bool required;          /* a PATH key the file must set */
	size_t offset;          /* of the field in struct hv_config */
};

/* A name a CHOICE key accepts (ON_OFF keys: on_off[]). */
struct config_choice {
	enum config_key_id key;
	const char *name;
	int value;
};

static const struct config_choice choices[] = {
#define CONFIG_KEY(name, field, kind, ctype, lo, hi, values, dflt, help)
#define CONFIG_CHOICE(field, name, value) { KEY_ID_##field, name, value },
#include "boot/config_keys.def"
#undef CONFIG_CHOICE
#undef CONFIG_KEY
};

static const struct config_choice on_off[] = {
	{ CONFIG_KEY_COUNT, "on", true },
	{ CONFIG_KEY_COUNT, "off", false },
};

/*
 * The name k accepts after c (the first when c is NULL), in the order of
 * boot/config_keys.def; NULL after the last.
 */
static const struct config_choice *next_choice(const struct config_key *k,
					       const struct config_choice *c)
{
	const struct config_choice *first = k->kind == KIND_ON_OFF ? on_off
								     : choices;
	const struct config_choice *end = k->kind == KIND_ON_OFF
		? on_off + ARRAY_SIZE(on_off) : choices + ARRAY_SIZE(choices);

	for (c = c ? c + 1 : first; c < end; c++)
		if (k->kind == KIND_ON_OFF || c->key == k->id)
			return c;
	return NULL;
}

static const struct config_choice *find_choice(const struct config_key *k,
					       struct slice v)
{
	const struct config_choice *c = NULL;

	while ((c = next_choice(k, c)))
		if (slice_eq(v, c->name))
			return c;
	return NULL;
}

/* "a, b or c": the names k accepts, for its "bad value" message. */
static void list_choices(const struct config_key *k, char *buf, size_t size)
{
	const struct config_choice *c = next_choice(k, NULL), *next;
	size_t len = 0;

	buf[0] = '\0';
	for (; c && len < size; c = next) {
		next = next_choice(k, c);
		len += fmt_snprintf(buf + len, size - len, "%s%s",
				    len ? (next ? ", " : " or ") : "",
				    c->name);
	}
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

/*
 * Linux gives quotes a meaning inside its command line (param="a b"), so
 * they are kept, except one pair that encloses the whole value.
 */
static enum set_result set_text(char *dst, struct slice v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"') {
		struct slice in = { v.p + 1, v.n - 2 };

		if (slice_find(in, '"') == in.n)
			v = in;
	}
	return copy_value(dst, CONFIG_CMDLINE_MAX, v);
}

static enum set_result set_size(uint64_t *dst, struct slice v,
				const struct config_key *k)
{
	uint64_t bytes;

	if (!parse_size(v, &bytes) || !IS_ALIGNED(bytes, PAGE_SIZE) ||
	    bytes < k->lo || bytes > k->hi)
		return SET_BAD_VALUE;
	*dst = bytes;
	return SET_OK;
}

static enum set_result set_count(uint32_t *dst, struct slice v,
				 const struct config_key *k)
{
	uint32_t n;

	if (!parse_count(v, (uint32_t)k->hi, &n) || n < k->lo)
		return SET_BAD_VALUE;
	*dst = n;
	return SET_OK;
}

static enum set_result set_duration(uint64_t *dst, struct slice v)
{
	return parse_duration(v, dst) ? SET_OK : SET_BAD_VALUE;
}

static enum set_result set_hex(uint64_t *dst, struct slice v)
{
	uint64_t n;

	if (!parse_hex64(v, &n) || !n)
		return SET_BAD_VALUE;
	*dst = n;
	return SET_OK;
}

static enum set_result set_ipv4(uint32_t *dst, struct slice v)
{
	uint32_t ip;

	if (slice_eq(v, "none")) {
		*dst = 0;
		return SET_OK;
	}
	if (!take_ipv4(&v, &ip) || v.n)
		return SET_BAD_VALUE;
	*dst = ip;
	return SET_OK;
}

static enum set_result set_dhcp_or_address(struct config_net_address *dst,
				       struct slice v)
{
	uint32_t ip, prefix;

	if (slice_eq(v, "dhcp")) {
		*dst = (struct config_net_address){ .dhcp = true };
		return SET_OK;
	}
	if (!take_ipv4(&v, &ip) || !take_char(&v, '/') ||
	    !take_number(&v, 2, &prefix) || v.n || !prefix || prefix > 32)
		return SET_BAD_VALUE;
	*dst = (struct config_net_address){ .ip = ip, .prefix_len = prefix };
	return SET_OK;
}

/* "nbd://..., nbd://...": up to SWAP_REMOTE_MAX servers, at least one. */
static bool parse_server_list(struct slice v, struct swap_remote *at,
			      unsigned *count)
{
	unsigned n = 0;

	while (v.n) {
		size_t comma = slice_find(v, ',');
		struct slice one = trim((struct slice){ v.p, comma });

		if (n == SWAP_REMOTE_MAX || !parse_nbd_url(one, &at[n++]))
			return false;
		if (comma == v.n)
			break;
		v = (struct slice){ v.p + comma + 1, v.n - comma - 1 };
		if (!trim(v).n)         /* a list may not end in a comma */
			return false;
	}
	*count = n;
	return n > 0;
}

/* A name of the key's choices, or a comma-separated list of NBD servers. */
static enum set_result set_device_or_servers(struct swap_remotes *remotes,
					      enum swap_device_kind *dst,
					      struct slice v,
					      const struct config_key *k)
{
	const struct config_choice *c = find_choice(k, v);
	struct swap_remotes list = { 0 };

	if (c) {
		*dst = c->value;
		*remotes = list;
		return SET_OK;
	}
	if (!parse_server_list(v, list.at, &list.count))
		return SET_BAD_VALUE;
	*dst = SWAP_DEVICE_NBD;
	*remotes = list;
	return SET_OK;
}

/* none, or servers held in reserve (swap.spare). */
static enum set_result set_server_list(struct swap_server_list *dst,
				       struct slice v)
{
	struct swap_server_list list = { 0 };

	if (!slice_eq(v, "none") &&
	    !parse_server_list(v, list.at, &list.count))
		return SET_BAD_VALUE;
	*dst = list;
	return SET_OK;
}

/* The body of a key's setter, by kind: dst is the field. */
#define SET_PATH(dst, v, k) return set_path(dst, v, (k)->required)
#define SET_TEXT(dst, v, k) return set_text(dst, v)
#define SET_SIZE(dst, v, k) return set_size(&(dst), v, k)
#define SET_COUNT(dst, v, k) return set_count(&(dst), v, k)
#define SET_DURATION(dst, v, k) return set_duration(&(dst), v)
#define SET_HEX(dst, v, k) return set_hex(&(dst), v)
#define SET_CHOICE(dst, v, k)                                          \
	const struct config_choice *c = find_choice(k, v);             \
	if (!c)                                                         \
		return SET_BAD_VALUE;                                   \
	(dst) = c->value;                                               \
	return SET_OK
#define SET_ON_OFF SET_CHOICE
#define SET_IPV4(dst, v, k) return set_ipv4(&(dst), v)
#define SET_NET_ADDRESS(dst, v, k) return set_dhcp_or_address(&(dst), v)
/* The servers go into the config's own list (cfg is the setter's). */
#define SET_NBD_LIST(dst, v, k) return set_server_list(&(dst), v)
#define SET_SWAP_DEVICE(dst, v, k) \
	return set_device_or_servers(&cfg->swap_remotes, &(dst), v, k)

/* One setter per key: set_<field>. */
#define CONFIG_KEY(name, field, kind, ctype, lo, hi, values, dflt, help) \
	static enum set_result set_##field(struct hv_config *cfg,        \
					   struct slice v,               \
					   const struct config_key *k)   \
	{                                                                 \
		(void)k; /* not every kind needs it */                    \
		SET_##kind(cfg->field, v, k);                             \
	}
#define CONFIG_CHOICE(field, name, value)
#include "boot/config_keys.def"
#undef CONFIG_CHOICE
#undef CONFIG_KEY

/*
 * The default of a key the file must set, and of one without a default.
 * They end a designated initializer: ".dflt = CONFIG_REQUIRED".
 */
#define CONFIG_REQUIRED NULL, .required = true
#define CONFIG_NO_DEFAULT NULL

static const struct config_key config_keys[] = {
#define CONFIG_KEY(name_, field, kind_, ctype, lo_, hi_, values_, dflt_, help) \
	[KEY_ID_##field] = { .name = name_, .set = set_##field,              \
			     .kind = KIND_##kind_, .id = KEY_ID_##field,     \
			     .lo = lo_, .hi = hi_, .values = values_,        \
			     .offset = offsetof(struct hv_config, field),    \
			     .dflt = dflt_ },
#define CONFIG_CHOICE(field, name, value)
#include "boot/config_keys.def"
#undef CONFIG_CHOICE
#undef CONFIG_KEY
};

/* parser.seen has one bit per key. */
_Static_assert(CONFIG_KEY_COUNT <= 64, "struct parser's seen needs more bits");

void config_set_defaults(struct hv_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct config_key *k = &config_keys[i];

		/* A default the key refuses is caught by tests/unit. */
		if (k->dflt)
			k->set(cfg, (struct slice){ k->dflt, strlen(k->dflt) },
			       k);
	}
}

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
	uint64_t seen;          /* bit i: config_keys[i] was set */
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
	val = trim(k->kind == KIND_TEXT ? val : cut_comment(val));
	r = k->set(ps->cfg, val, k);
	if (r == SET_BAD_VALUE) {
		char names[CONFIG_ERROR_MAX];
		bool both = k->kind == KIND_SWAP_DEVICE;

		if (!k->values || both)
			list_choices(k, names, sizeof(names));
		return parse_error(ps,
				   "bad value '%.*s%s' for %s (expected %s%s%s)",
				   ECHO(val), k->name,
				   k->values && !both ? k->values : names,
				   both ? ", or " : "", both ? k->values : "");
	}
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
	/*
	 * A required path is missing when it is empty, however it got so: a
	 * value that starts with a NUL byte counts as none.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const char *path = (const char *)cfg + config_keys[i].offset;

		if (!config_keys[i].required || path[0])
			continue;
		if (err && err_len)
			fmt_snprintf(err, err_len, CONFIG_FILE ": %s is not set",
				     config_keys[i].name);
		return -1;
	}
	if (!cfg->host_guest_frames)
		cfg->host_guest_frames = cfg->guest_memory;
	return 0;
}
