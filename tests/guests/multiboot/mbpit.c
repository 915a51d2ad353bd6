// SPDX-License-Identifier: BSD-2-Clause
/*
 * mbpit: the 8254 PIT as small kernels use it. Counter 2 in mode 0 gated
 * through port 0x61 and polled on its bit 5 (the TSC calibration of Linux,
 * arch/x86/kernel/tsc.c: pit_calibrate_tsc), the counter latch and
 * read-back commands, then counter 0 in mode 2 interrupting through the
 * 8259 until 20 ticks came. Run by tests/bochs/test_multiboot.py under
 * QEMU -kernel and under apfvisor; lines with timing in them start with
 * "host: ". Ends through port 0xf4 with value 0x22 (exit status 69).
 */
#include "mb_lib.h"

#define EXIT_VALUE 0x22
#define EXIT_FAILED 0x33

#define PIT_COUNTER0 0x40
#define PIT_COUNTER2 0x42
#define PIT_CONTROL 0x43
#define PORT61 0x61
#define PORT61_GATE2 0x01
#define PORT61_SPEAKER 0x02
#define PORT61_REFRESH 0x10
#define PORT61_OUT2 0x20

/* Control words and read-back commands (82C54 data sheet). */
#define CW_COUNTER2_WORD_MODE0 0xb0
#define CW_COUNTER2_LOBYTE_MODE3 0x96
#define CW_COUNTER0_WORD_MODE2 0x34
#define CW_COUNTER2_LATCH 0x80
#define READ_BACK_STATUS_COUNTER0 0xe2
#define READ_BACK_STATUS_COUNTER2 0xe8
#define READ_BACK_COUNT_COUNTER2 0xd8

#define PIC_MASTER_CMD 0x20
#define PIC_MASTER_DATA 0x21
#define PIC_SLAVE_CMD 0xa0
#define PIC_SLAVE_DATA 0xa1
#define PIC_EOI 0x20
#define IRQ0_VECTOR 0x20
#define IRQ7_VECTOR 0x27

#define TEN_MS_COUNT 11932      /* 1193182 Hz / 100 */
#define ONE_MS_COUNT 1193
#define TICKS_WANTED 20
#define POLL_LIMIT 100000000u

struct idt_gate {
	u16 offset_low, selector;
	u8 zero, type;
	u16 offset_high;
} __attribute__((packed));

struct idt_pointer {
	u16 limit;
	u32 base;
} __attribute__((packed));

struct interrupt_frame;

static struct idt_gate idt[256];
static volatile u32 ticks;

static const char *yes_no(int v)
{
	return v ? "yes" : "no";
}

__attribute__((interrupt)) static void irq0_handler(struct interrupt_frame *f)
{
	(void)f;
	ticks++;
	outb(PIC_MASTER_CMD, PIC_EOI);
}

/* A spurious IRQ 7 sets no ISR bit and takes no EOI. */
__attribute__((interrupt)) static void irq7_handler(struct interrupt_frame *f)
{
	(void)f;
}

static void set_gate(unsigned vector, void (*handler)(struct interrupt_frame *))
{
	u32 addr = (u32)handler;
	u16 cs;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	idt[vector] = (struct idt_gate){
		.offset_low = (u16)addr, .selector = cs,
		.type = 0x8e,           /* present, ring 0, 32-bit interrupt gate */
		.offset_high = (u16)(addr >> 16),
	};
}

static void load_idt(void)
{
	struct idt_pointer p = { sizeof(idt) - 1, (u32)idt };

	set_gate(IRQ0_VECTOR, irq0_handler);
	set_gate(IRQ7_VECTOR, irq7_handler);
	__asm__ volatile("lidt %0" : : "m"(p));
}

/* Master at 0x20-0x27, slave at 0x28-0x2f, everything masked. */
static void remap_pics(void)
{
	outb(PIC_MASTER_DATA, 0xff);
	outb(PIC_SLAVE_DATA, 0xff);
	outb(PIC_MASTER_CMD, 0x11);     /* ICW1: edge, cascade, ICW4 */
	outb(PIC_MASTER_DATA, IRQ0_VECTOR);
	outb(PIC_MASTER_DATA, 0x04);    /* slave on IR2 */
	outb(PIC_MASTER_DATA, 0x01);    /* 8086 mode */
	outb(PIC_SLAVE_CMD, 0x11);
	outb(PIC_SLAVE_DATA, IRQ0_VECTOR + 8);
	outb(PIC_SLAVE_DATA, 0x02);
	outb(PIC_SLAVE_DATA, 0x01);
	outb(PIC_MASTER_DATA, 0xff);
	outb(PIC_SLAVE_DATA, 0xff);
}

static void write_count(u16 port, u16 count)
{
	outb(port, (u8)count);
	outb(port, (u8)(count >> 8));
}

static u16 read_count(u16 port)
{
	u16 lo = inb(port);

	return (u16)(lo | inb(port) << 8);
}

static void show_status(const char *what, u8 status)
{
	print("mbpit: %s status: OUT %u, access %u, mode %u, bcd %u\n", what,
	      status >> 7, (status >> 4) & 3, (status >> 1) & 7, status & 1);
}

/* Counter 2, mode 0, gate on: OUT low, then high after 10 ms. */
static int counter2_one_shot(void)
{
	u32 polls = 0;
	u8 first, second;
	int low_first;

	outb(PORT61, (inb(PORT61) & ~PORT61_SPEAKER) | PORT61_GATE2);
	outb(PIT_CONTROL, CW_COUNTER2_WORD_MODE0);
	write_count(PIT_COUNTER2, TEN_MS_COUNT);
	low_first = !(inb(PORT61) & PORT61_OUT2);
	while (!(inb(PORT61) & PORT61_OUT2) && polls < POLL_LIMIT)
		polls++;
	print("mbpit: counter 2 OUT low after programming: %s\n",
	      yes_no(low_first));
	print("mbpit: counter 2 OUT went high: %s\n",
	      yes_no(polls < POLL_LIMIT));
	print("host: polls of port 0x61: %u\n", polls);
	first = inb(PORT61);
	second = inb(PORT61);
	print("mbpit: port 0x61 without refresh bit: 0x%02x\n",
	      first & ~PORT61_REFRESH);
	print("mbpit: port 0x61 refresh bit toggles: %s\n",
	      yes_no((first ^ second) & PORT61_REFRESH));
	outb(PIT_CONTROL, READ_BACK_STATUS_COUNTER2);
	show_status("counter 2 after expiry", inb(PIT_COUNTER2));
	return polls < POLL_LIMIT;
}

static void counter2_latches(void)
{
	u16 a, b, c;
	u8 status;

	outb(PIT_CONTROL, CW_COUNTER2_WORD_MODE0);
	write_count(PIT_COUNTER2, 0xffff);
	outb(PIT_CONTROL, CW_COUNTER2_LATCH);
	a = read_count(PIT_COUNTER2);
	for (unsigned i = 0; i < 200; i++)
		inb(PORT61);
	outb(PIT_CONTROL, CW_COUNTER2_LATCH);
	b = read_count(PIT_COUNTER2);
	outb(PIT_CONTROL, READ_BACK_COUNT_COUNTER2);
	c = read_count(PIT_COUNTER2);
	print("mbpit: two latches decrease: %s\n", yes_no(b < a));
	print("mbpit: read-back count below them: %s\n", yes_no(c <= b));
	print("host: latched 0x%04x 0x%04x, read back 0x%04x\n", a, b, c);

	outb(PIT_CONTROL, CW_COUNTER2_LOBYTE_MODE3);
	outb(PIT_COUNTER2, 200);
	outb(PIT_CONTROL, READ_BACK_STATUS_COUNTER2);
	status = inb(PIT_COUNTER2);
	/* OUT and null count are left out: they change within microseconds. */
	print("mbpit: counter 2 after control word 0x%02x: access %u, "
	      "mode %u\n", CW_COUNTER2_LOBYTE_MODE3, (status >> 4) & 3,
	      (status >> 1) & 7);
}

/* Counter 0 in mode 2 at 1 kHz through the 8259's IRQ 0. */
static void counter0_periodic(void)
{
	u32 halts = 0;
	u8 status;

	remap_pics();
	load_idt();
	outb(PIT_CONTROL, CW_COUNTER0_WORD_MODE2);
	write_count(PIT_COUNTER0, ONE_MS_COUNT);
	outb(PIT_CONTROL, READ_BACK_STATUS_COUNTER0);
	status = inb(PIT_COUNTER0);
	print("mbpit: counter 0 status: access %u, mode %u\n",
	      (status >> 4) & 3, (status >> 1) & 7);
	outb(PIC_MASTER_DATA, 0xfe);    /* IRQ 0 only */
	while (ticks < TICKS_WANTED && halts < 10 * TICKS_WANTED) {
		__asm__ volatile("sti; hlt; cli");
		halts++;
	}
	outb(PIC_MASTER_DATA, 0xff);
	print("mbpit: %u ticks\n", ticks >= TICKS_WANTED ? TICKS_WANTED
							 : ticks);
	print("host: %u halts for %u ticks\n", halts, ticks);
}

u32 mb_main(u32 magic, void *info)
{
	int ok;

	(void)info;
	serial_init();
	print("mbpit: magic %s\n", yes_no(magic == MB_LOADER_MAGIC));
	print("mbpit: port 0x43 reads 0x%02x\n", inb(PIT_CONTROL));
	ok = counter2_one_shot();
	counter2_latches();
	counter0_periodic();
	return ok && ticks >= TICKS_WANTED ? EXIT_VALUE : EXIT_FAILED;
}
