/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * apfvisor.cfg parser: the key table (from boot/config_keys.def), each key's
 * setter and default, the line parser and its error messages. The syntax of
 * each kind of value (sizes, durations, addresses, NBD servers, ...) is read
 * by boot/config_values.c. The text comes straight from a file on the ESP:
 * it is not NUL-terminated, may use CRLF line endings (files edited on
 * Windows) and may lack a final newline, so everything here works on
 * (pointer, length) slices and never looks past len.
 */
#include "boot/config.h"
#include "boot/config_values.h"
#include "lib/format.h"
#include "lib/limits.h"
#include "lib/string.h"

#define CONFIG_FILE "apfvisor.cfg"
/* Longest value or key quoted back in an error message. */
#define CONFIG_ECHO_MAX 40

enum set_result {
	SET_OK,
	SET_BAD_VALUE,
	SET_TOO_LONG,
};

/* Cuts s at the first '#' that is not inside double quotes. */
static struct config_slice cut_comment(struct config_slice s)
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

static enum set_result copy_value(char *dst, size_t size, struct config_slice v)
{
	if (v.n >= size)
		return SET_TOO_LONG;
	memcpy(dst, v.p, v.n);
	dst[v.n] = '\0';
	return SET_OK;
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
					 struct config_slice v,
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
					       struct config_slice v)
{
	const struct config_choice *c = NULL;

	while ((c = next_choice(k, c)))
		if (config_slice_eq(v, c->name))
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

/* A path, in optional quotes; a required one may not be empty. */
static enum set_result set_path(char *dst, struct config_slice v, bool required)
{
	struct config_slice path;

	if (!config_value_path(v, &path) || (required && !path.n))
		return SET_BAD_VALUE;
	return copy_value(dst, CONFIG_PATH_MAX, path);
}

static enum set_result set_text(char *dst, struct config_slice v)
{
	return copy_value(dst, CONFIG_CMDLINE_MAX, config_value_text(v));
}

static enum set_result set_size(uint64_t *dst, struct config_slice v,
				const struct config_key *k)
{
	uint64_t bytes;

	if (!config_value_size(v, &bytes) || !IS_ALIGNED(bytes, PAGE_SIZE) ||
	    bytes < k->lo || bytes > k->hi)
		return SET_BAD_VALUE;
	*dst = bytes;
	return SET_OK;
}

static enum set_result set_count(uint32_t *dst, struct config_slice v,
				 const struct config_key *k)
{
	uint32_t n;

	if (!config_value_count(v, (uint32_t)k->hi, &n) || n < k->lo)
		return SET_BAD_VALUE;
	*dst = n;
	return SET_OK;
}

static enum set_result set_duration(uint64_t *dst, struct config_slice v)
{
	return config_value_duration(v, dst) ? SET_OK : SET_BAD_VALUE;
}

static enum set_result set_hex(uint64_t *dst, struct config_slice v)
{
	uint64_t n;

	if (!config_value_hex64(v, &n) || !n)
		return SET_BAD_VALUE;
	*dst = n;
	return SET_OK;
}

static enum set_result set_ipv4(uint32_t *dst, struct config_slice v)
{
	uint32_t ip;

	if (config_slice_eq(v, "none")) {
		*dst = 0;
		return SET_OK;
	}
	if (!config_value_ipv4(v, &ip))
		return SET_BAD_VALUE;
	*dst = ip;
	return SET_OK;
}

static enum set_result set_dhcp_or_address(struct config_net_address *dst,
				       struct config_slice v)
{
	uint32_t ip;
	unsigned prefix;

	if (config_slice_eq(v, "dhcp")) {
		*dst = (struct config_net_address){ .dhcp = true };
		return SET_OK;
	}
	if (!config_value_ipv4_prefix(v, &ip, &prefix))
		return SET_BAD_VALUE;
	*dst = (struct config_net_address){ .ip = ip, .prefix_len = prefix };
	return SET_OK;
}

/* A name of the key's choices, or a comma-separated list of NBD servers. */
static enum set_result set_device_or_servers(struct swap_remotes *remotes,
					      enum swap_device_kind *dst,
					      struct config_slice v,
					      const struct config_key *k)
{
	const struct config_choice *c = find_choice(k, v);
	struct swap_remotes list = { 0 };

	if (c) {
		*dst = c->value;
		*remotes = list;
		return SET_OK;
	}
	if (!config_value_nbd_list(v, list.at, &list.count))
		return SET_BAD_VALUE;
	*dst = SWAP_DEVICE_NBD;
	*remotes = list;
	return SET_OK;
}

/* none, or servers held in reserve (swap.spare). */
static enum set_result set_server_list(struct swap_server_list *dst,
				       struct config_slice v)
{
	struct swap_server_list list = { 0 };

	if (!config_slice_eq(v, "none") &&
	    !config_value_nbd_list(v, list.at, &list.count))
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
					   struct config_slice v,        \
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
			k->set(cfg, (struct config_slice){ k->dflt,
							   strlen(k->dflt) },
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

static const char *retired_key_hint(struct config_slice name)
{
	for (size_t i = 0; i < ARRAY_SIZE(retired_keys); i++)
		if (config_slice_eq(name, retired_keys[i].name))
			return retired_keys[i].instead;
	return NULL;
}

static const struct config_key *find_key(struct config_slice name)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		if (config_slice_eq(name, config_keys[i].name))
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

static int parse_line(struct parser *ps, struct config_slice line)
{
	const struct config_key *k;
	struct config_slice key, val;
	enum set_result r;
	size_t eq, bit;

	line = config_trim(line);
	if (!line.n || line.p[0] == '#')
		return 0;
	eq = config_slice_find(line, '=');
	key = config_trim((struct config_slice){ line.p, eq });
	if (eq == line.n || !key.n || config_slice_find(key, '#') != key.n)
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

	val = (struct config_slice){ line.p + eq + 1, line.n - eq - 1 };
	val = config_trim(k->kind == KIND_TEXT ? val : cut_comment(val));
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
	struct config_slice rest = { text, len };

	config_set_defaults(cfg);
	if (err && err_len)
		err[0] = '\0';
	while (rest.n) {
		size_t nl = config_slice_find(rest, '\n');
		size_t skip = nl < rest.n ? nl + 1 : nl;

		ps.line++;
		if (parse_line(&ps, (struct config_slice){ rest.p, nl }))
			return -1;
		rest = (struct config_slice){ rest.p + skip, rest.n - skip };
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
