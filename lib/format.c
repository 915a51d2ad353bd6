/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The formatted printer behind every message of the hypervisor. It knows the
 * subset listed in format.h and nothing else: no floating point (the
 * hypervisor is built with -mgeneral-regs-only) and no locale.
 *
 * Choices where C leaves room:
 *  - %p prints "0x" and lowercase hex digits (NULL is "0x0");
 *  - the '0' flag pads numbers only, after the sign or the "0x" of %p;
 *    %s and %c are always padded with spaces;
 *  - a negative '*' width means '-' and its absolute value, a negative '*'
 *    precision means none (C99 7.19.6.1);
 *  - an unknown conversion is copied to the output as written.
 */
#include "lib/format.h"

/* Widths beyond this are nonsense; stop there rather than overflow. */
#define FMT_COUNT_MAX 100000

struct out {
	char *buf;
	size_t size;
	size_t len;     /* what the full output would take, without NUL */
};

struct spec {
	bool left;      /* '-' */
	bool zero;      /* '0' */
	int width;
	int prec;       /* -1: none */
	int lmod;       /* 0, 1 (l), 2 (ll), 3 (z) */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_rep(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

static void put_str(struct out *o, const struct spec *sp, const char *s)
{
	int len = 0;

	if (!s)
		s = "(null)";
	/* Do not look past the precision: s need not be NUL-terminated. */
	while ((sp->prec < 0 || len < sp->prec) && s[len])
		len++;
	if (!sp->left)
		put_rep(o, ' ', sp->width - len);
	for (int i = 0; i < len; i++)
		put(o, s[i]);
	if (sp->left)
		put_rep(o, ' ', sp->width - len);
}

/* prefix is the sign or "0x"; digits come most significant first. */
static void put_number(struct out *o, const struct spec *sp,
		       const char *prefix, uint64_t v, unsigned base,
		       bool upper)
{
	const char *digit = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int ndig = 0, plen = 0, pad;

	do {
		tmp[ndig++] = digit[v % base];
		v /= base;
	} while (v);
	while (prefix[plen])
		plen++;
	pad = sp->width - ndig - plen;

	if (!sp->left && !sp->zero)
		put_rep(o, ' ', pad);
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	if (!sp->left && sp->zero)
		put_rep(o, '0', pad);
	while (ndig)
		put(o, tmp[--ndig]);
	if (sp->left)
		put_rep(o, ' ', pad);
}

static int64_t get_signed(const struct spec *sp, va_list *ap)
{
	switch (sp->lmod) {
	case 1:
		return va_arg(*ap, long);
	case 2:
		return va_arg(*ap, long long);
	case 3:
		/* The signed type matching size_t. */
		return va_arg(*ap, long);
	default:
		return va_arg(*ap, int);
	}
}

static uint64_t get_unsigned(const struct spec *sp, va_list *ap)
{
	switch (sp->lmod) {
	case 1:
		return va_arg(*ap, unsigned long);
	case 2:
		return va_arg(*ap, unsigned long long);
	case 3:
		return va_arg(*ap, size_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

static void put_signed(struct out *o, const struct spec *sp, int64_t v)
{
	/* Negate in unsigned arithmetic: -INT64_MIN does not exist. */
	if (v < 0)
		put_number(o, sp, "-", -(uint64_t)v, 10, false);
	else
		put_number(o, sp, "", (uint64_t)v, 10, false);
}

/* A decimal width or precision; saturates instead of overflowing int. */
static int parse_count(const char **f)
{
	int n = 0;

	while (**f >= '0' && **f <= '9') {
		if (n <= FMT_COUNT_MAX)
			n = n * 10 + (**f - '0');
		(*f)++;
	}
	return MIN(n, FMT_COUNT_MAX);
}

/* Parses flags, width, precision, length; returns where the conversion is. */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){ .prec = -1 };
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = sp->width == INT32_MIN ? 0 : -sp->width;
		}
		f++;
	} else {
		sp->width = parse_count(&f);
	}
	if (*f == '.') {
		f++;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			if (sp->prec < 0)
				sp->prec = -1;
			f++;
		} else {
			sp->prec = parse_count(&f);
		}
	}
	if (*f == 'l') {
		sp->lmod = 1;
		if (*++f == 'l') {
			sp->lmod = 2;
			f++;
		}
	} else if (*f == 'z') {
		sp->lmod = 3;
		f++;
	}
	return f;
}

/* Prints one conversion; returns false when c is not one we know. */
static bool convert(struct out *o, struct spec *sp, char c, va_list *ap)
{
	switch (c) {
	case 'd':
	case 'i':
		put_signed(o, sp, get_signed(sp, ap));
		return true;
	case 'u':
		put_number(o, sp, "", get_unsigned(sp, ap), 10, false);
		return true;
	case 'x':
	case 'X':
		put_number(o, sp, "", get_unsigned(sp, ap), 16, c == 'X');
		return true;
	case 'p':
		put_number(o, sp, "0x", (uintptr_t)va_arg(*ap, void *), 16,
			   false);
		return true;
	case 's':
		put_str(o, sp, va_arg(*ap, const char *));
		return true;
	case 'c':
		/* Not through put_str: a '\0' character is printed too. */
		if (!sp->left)
			put_rep(o, ' ', sp->width - 1);
		put(o, (char)va_arg(*ap, int));
		if (sp->left)
			put_rep(o, ' ', sp->width - 1);
		return true;
	default:
		return false;
	}
}

int fmt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .size = n };
	va_list args;

	/*
	 * The helpers take a va_list *; the address of a va_list parameter is
	 * not one on x86-64 (there va_list is an array), the copy's is.
	 */
	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt;
		struct spec sp;

		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		if (fmt[1] == '%') {
			put(&o, '%');
			fmt += 2;
			continue;
		}
		fmt = parse_spec(fmt + 1, &sp, &args);
		if (*fmt && convert(&o, &sp, *fmt, &args)) {
			fmt++;
			continue;
		}
		/* Unknown or truncated conversion: show it as written. */
		while (start < fmt)
			put(&o, *start++);
		if (*fmt)
			put(&o, *fmt++);
	}
	va_end(args);

	if (n)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int fmt_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fmt_vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return ret;
}

int fmt_fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}
