/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The value parsers of apfvisor.cfg (boot/config_values.h): sizes,
 * durations, counts, hex words, IPv4 addresses and prefixes, NBD server
 * lists, quoted paths and the command line. Plain C over slices that may
 * point into a file's bytes (not NUL-terminated); nothing here reads past a
 * slice's length, knows a key or touches hardware.
 */
#include "boot/config_values.h"
#include "lib/string.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

struct config_slice config_trim(struct config_slice s)
{
	while (s.n && is_blank(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && is_blank(s.p[s.n - 1]))
		s.n--;
	return s;
}

bool config_slice_eq(struct config_slice s, const char *str)
{
	return strlen(str) == s.n && memcmp(s.p, str, s.n) == 0;
}

size_t config_slice_find(struct config_slice s, char c)
{
	size_t i = 0;

	while (i < s.n && s.p[i] != c)
		i++;
	return i;
}

/* Digits and an optional K/M/G with optional "B" or "iB"; no overflow. */
bool config_value_size(struct config_slice s, uint64_t *bytes)
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
		s = (struct config_slice){ s.p + i, s.n - i };
		if (s.n && !config_slice_eq(s, "B") &&
		    !config_slice_eq(s, "iB"))
			return false;
	}
	if (v > (UINT64_MAX >> shift))
		return false;
	*bytes = v << shift;
	return true;
}

bool config_parse_size(const char *s, uint64_t *bytes)
{
	return config_value_size((struct config_slice){ s, strlen(s) }, bytes);
}

/*
 * A duration: digits and a unit ns, us, ms or s ("0" alone is allowed),
 * at most CONFIG_DURATION_MAX_NS; in nanoseconds.
 */
bool config_value_duration(struct config_slice s, uint64_t *ns)
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
	s = (struct config_slice){ s.p + i, s.n - i };
	if (!s.n) {
		*ns = v;
		return v == 0;
	}
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		if (config_slice_eq(s, units[u].unit) &&
		    v <= CONFIG_DURATION_MAX_NS / units[u].ns) {
			*ns = v * units[u].ns;
			return true;
		}
	}
	return false;
}

/* A decimal number in 0..max, no sign, no suffix. */
bool config_value_count(struct config_slice v, uint32_t max, uint32_t *out)
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
bool config_value_hex64(struct config_slice v, uint64_t *out)
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
static bool take_number(struct config_slice *s, unsigned max_digits,
			uint32_t *out)
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

static bool take_char(struct config_slice *s, char c)
{
	if (!s->n || s->p[0] != c)
		return false;
	s->p++;
	s->n--;
	return true;
}

/* "A.B.C.D" at the front of *s (consumed): four numbers 0..255. */
static bool take_ipv4(struct config_slice *s, uint32_t *ip)
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

bool config_value_ipv4(struct config_slice s, uint32_t *ip)
{
	uint32_t v;

	if (!take_ipv4(&s, &v) || s.n)
		return false;
	*ip = v;
	return true;
}

bool config_value_ipv4_prefix(struct config_slice s, uint32_t *ip,
			      unsigned *prefix_len)
{
	uint32_t v, prefix;

	if (!take_ipv4(&s, &v) || !take_char(&s, '/') ||
	    !take_number(&s, 2, &prefix) || s.n || !prefix || prefix > 32)
		return false;
	*ip = v;
	*prefix_len = prefix;
	return true;
}

/* An export name: printable ASCII but space, ',', '"' and '#'. */
static bool export_name_char(char c)
{
	return c > ' ' && c < 0x7f && c != ',' && c != '"' && c != '#';
}

/* "nbd://A.B.C.D[:PORT][/EXPORT]": one server of swap.device. */
bool config_value_nbd_url(struct config_slice s, struct swap_remote *r)
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

/* "nbd://..., nbd://...": up to SWAP_REMOTE_MAX servers, at least one. */
bool config_value_nbd_list(struct config_slice v, struct swap_remote *at,
			   unsigned *count)
{
	unsigned n = 0;

	while (v.n) {
		size_t comma = config_slice_find(v, ',');
		struct config_slice one =
			config_trim((struct config_slice){ v.p, comma });

		if (n == SWAP_REMOTE_MAX ||
		    !config_value_nbd_url(one, &at[n++]))
			return false;
		if (comma == v.n)
			break;
		v = (struct config_slice){ v.p + comma + 1, v.n - comma - 1 };
		if (!config_trim(v).n)  /* a list may not end in a comma */
			return false;
	}
	*count = n;
	return n > 0;
}

/*
 * A path may be written in double quotes; a '"' anywhere else is an error
 * (FAT does not allow it in a name, so it can only be a typo).
 */
bool config_value_path(struct config_slice v, struct config_slice *out)
{
	if (v.n && v.p[0] == '"') {
		if (v.n < 2 || v.p[v.n - 1] != '"')
			return false;
		v = (struct config_slice){ v.p + 1, v.n - 2 };
	}
	if (config_slice_find(v, '"') != v.n)
		return false;
	*out = v;
	return true;
}

/*
 * Linux gives quotes a meaning inside its command line (param="a b"), so
 * they are kept, except one pair that encloses the whole value.
 */
struct config_slice config_value_text(struct config_slice v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"') {
		struct config_slice in = { v.p + 1, v.n - 2 };

		if (config_slice_find(in, '"') == in.n)
			return in;
	}
	return v;
}
