// SPDX-License-Identifier: BSD-2-Clause
#include "mb_lib.h"
#include <stdarg.h>

#define COM1 0x3f8
#define FW_CFG_SELECTOR 0x510
#define FW_CFG_DATA 0x511

void serial_init(void)
{
	outb(COM1 + 1, 0x00);           /* no interrupts */
	outb(COM1 + 3, 0x80);           /* DLAB */
	outb(COM1 + 0, 0x01);           /* 115200 baud */
	outb(COM1 + 1, 0x00);
	outb(COM1 + 3, 0x03);           /* 8N1 */
	outb(COM1 + 2, 0xc7);           /* FIFOs on and cleared */
	outb(COM1 + 4, 0x03);           /* DTR, RTS */
}

struct idt_gate {
	u16 offset_low, selector;
	u8 zero, type;
	u16 offset_high;
} __attribute__((packed));

static struct idt_gate idt[256] __attribute__((aligned(8)));

void idt_set_gate(unsigned vector, const void *stub)
{
	u32 at = (u32)stub;
	u16 cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	idt[vector] = (struct idt_gate){ (u16)at, cs, 0, 0x8e,
					 (u16)(at >> 16) };
}

void idt_load(void)
{
	struct {
		u16 limit;
		u32 base;
	} __attribute__((packed)) idtr = { sizeof(idt) - 1, (u32)idt };

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

static void putc(char c)
{
	if (c == '\n')
		putc('\r');
	for (int i = 0; i < 100000 && !(inb(COM1 + 5) & 0x20); i++)
		;
	outb(COM1, (u8)c);
}

static void put_unsigned(u32 v, unsigned base, int width)
{
	char digits[16];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n < width)
		digits[n++] = '0';
	while (n)
		putc(digits[--n]);
}

/* %s %c %u %d %x %08x (width with leading zeros) and %llx. */
void print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		int width = 0, wide = 0;

		if (*fmt != '%') {
			putc(*fmt);
			continue;
		}
		fmt++;
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + *fmt++ - '0';
		while (*fmt == 'l') {
			wide++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);

			while (*s)
				putc(*s++);
			break;
		}
		case 'c':
			putc((char)va_arg(ap, int));
			break;
		case 'd': {
			int v = va_arg(ap, int);

			if (v < 0) {
				putc('-');
				v = -v;
			}
			put_unsigned((u32)v, 10, width);
			break;
		}
		case 'u':
			put_unsigned(va_arg(ap, u32), 10, width);
			break;
		case 'x':
			if (wide >= 2) {
				u64 v = va_arg(ap, u64);

				if (v >> 32) {
					put_unsigned((u32)(v >> 32), 16, 0);
					put_unsigned((u32)v, 16, 8);
				} else {
					put_unsigned((u32)v, 16, width);
				}
			} else {
				put_unsigned(va_arg(ap, u32), 16, width);
			}
			break;
		default:
			putc('%');
			putc(*fmt);
		}
	}
	va_end(ap);
}

int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

void fw_cfg_read(u16 key, void *buf, u32 len)
{
	u8 *p = buf;

	outw(FW_CFG_SELECTOR, key);
	for (u32 i = 0; i < len; i++)
		p[i] = inb(FW_CFG_DATA);
}

static u32 bswap32(u32 v)
{
	return v >> 24 | (v >> 8 & 0xff00) | (v << 8 & 0xff0000) | v << 24;
}

/* FWCfgDmaAccess: control, length, address, all big-endian. */
struct fw_cfg_dma_access {
	u32 control, length, address_high, address_low;
};

u32 fw_cfg_dma_read(u16 key, void *buf, u32 len)
{
	volatile struct fw_cfg_dma_access a = {
		.control = bswap32((u32)key << 16 | 0x08 | 0x02),
		.length = bswap32(len),
		.address_high = 0,
		.address_low = bswap32((u32)buf),
	};

	outl(0x514, 0);
	outl(0x518, bswap32((u32)&a));
	for (int i = 0; i < 1000000 && bswap32(a.control) & ~1u; i++)
		;
	return bswap32(a.control);
}

static u32 be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

u16 fw_cfg_find_file(const char *name, u32 *size)
{
	u8 count[4], entry[64];
	u32 n;

	fw_cfg_read(FW_CFG_FILE_DIR, count, 4);
	n = be32(count);
	/* Continue reading the same item: the entries follow the count. */
	for (u32 i = 0; i < n && i < 256; i++) {
		for (u32 j = 0; j < sizeof(entry); j++)
			entry[j] = inb(FW_CFG_DATA);
		if (str_eq((const char *)entry + 8, name)) {
			*size = be32(entry);
			return (u16)(entry[4] << 8 | entry[5]);
		}
	}
	return 0;
}
