// SPDX-License-Identifier: BSD-2-Clause
/*
 * mbxapic: the local APIC in xAPIC mode, through its page at 0xFEE00000
 * only, as a 32-bit kernel that never turns x2APIC on uses it: the reset
 * value of IA32_APIC_BASE, the ID (bits 31:24) and version registers, the
 * timer in periodic mode counting ticks, fixed IPIs to itself (by its ID
 * in ICR high, and by the self shorthand), then vCPU 1 started with
 * INIT/SIPI/SIPI at a real-mode trampoline below 1 MiB that prints
 * "mbxapic: AP up" and halts. The 8259s are masked. Run by
 * tests/bochs/test_multiboot.py with 2 CPUs under QEMU -kernel and
 * apfvisor; ends through port 0xf4 with value 0x35 (exit status 107).
 */
#include "mb_lib.h"

#define EXIT_VALUE 0x35

#define MSR_APIC_BASE 0x1b
#define APIC_BASE_BSP (1u << 8)
#define APIC_BASE_EXTD (1u << 10)
#define APIC_BASE_EN (1u << 11)
#define APIC_BASE_ADDR 0xfffff000u

#define XAPIC_PAGE 0xfee00000u
#define APIC_ID 0x20
#define APIC_VERSION 0x30
#define APIC_TPR 0x80
#define APIC_EOI 0xb0
#define APIC_SVR 0xf0
#define APIC_ISR0 0x100
#define APIC_ICR_LOW 0x300
#define APIC_ICR_HIGH 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR 0x390
#define APIC_TIMER_DCR 0x3e0

#define SVR_ENABLE 0x100
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define DCR_DIVIDE_1 0xb
#define ICR_DELIVERY_PENDING (1u << 12)
#define ICR_ASSERT (1u << 14)
#define ICR_LEVEL (1u << 15)
#define ICR_SELF (1u << 18)
#define ICR_INIT (5u << 8)
#define ICR_STARTUP (6u << 8)

#define TIMER_VECTOR 0x40
#define IPI_VECTOR 0x41
#define SELF_VECTOR 0x42
#define SPURIOUS_VECTOR 0xff
#define TIMER_COUNT 0x20000     /* 5.2 ms at apfvisor's 25 MHz */
#define TICKS 5

#define AP_ID 1
#define TRAMPOLINE 0x8000u      /* below 1 MiB, page aligned: SIPI 0x08 */
#define WAIT_LOOPS 20000000

static volatile u32 ticks, ipis[256];

static u32 lapic_read(u32 offset)
{
	return *(volatile u32 *)(XAPIC_PAGE + offset);
}

static void lapic_write(u32 offset, u32 v)
{
	*(volatile u32 *)(XAPIC_PAGE + offset) = v;
}

static inline u32 tsc_low(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo;
}

void timer_interrupt(void)
{
	ticks++;
	lapic_write(APIC_EOI, 0);
}

/* Notes which IPI vector came (the highest one in service). */
void ipi_interrupt(void)
{
	for (int word = 7; word >= 1; word--) {
		u32 isr = lapic_read(APIC_ISR0 + 0x10 * word);

		if (isr) {
			ipis[word * 32 + 31 - __builtin_clz(isr)]++;
			break;
		}
	}
	lapic_write(APIC_EOI, 0);
}

void spurious_interrupt(void)
{
}

MB_INTERRUPT_STUB(timer_stub, timer_interrupt);
MB_INTERRUPT_STUB(ipi_stub, ipi_interrupt);
MB_INTERRUPT_STUB(spurious_stub, spurious_interrupt);

/*
 * The AP's first instructions, in real mode at TRAMPOLINE (CS = 0x800,
 * IP = 0): the line on COM1, a flag for the BSP, then halt for good.
 */
__asm__(".section .rodata\n"
	".globl ap_code, ap_code_end\n"
	"ap_code:\n"
	".code16\n"
	"	cli\n"
	"	mov %cs, %ax\n"
	"	mov %ax, %ds\n"
	"	mov $(ap_line - ap_code), %si\n"
	"1:	lodsb\n"
	"	test %al, %al\n"
	"	jz 3f\n"
	"	mov %al, %bl\n"
	"	mov $0x3fd, %dx\n"
	"2:	inb %dx, %al\n"
	"	test $0x20, %al\n"
	"	jz 2b\n"
	"	mov %bl, %al\n"
	"	mov $0x3f8, %dx\n"
	"	outb %al, %dx\n"
	"	jmp 1b\n"
	"3:	movb $1, (ap_flag - ap_code)\n"
	"4:	hlt\n"
	"	jmp 4b\n"
	".code32\n"
	"ap_line: .asciz \"mbxapic: AP up\\r\\n\"\n"
	"ap_flag: .byte 0\n"
	"ap_code_end:\n"
	".text\n");
extern const char ap_code[], ap_code_end[], ap_flag[];

static void show_base_id_version(void)
{
	u64 base = rdmsr(MSR_APIC_BASE);
	u32 version = lapic_read(APIC_VERSION);

	print("mbxapic: IA32_APIC_BASE 0x%x, enabled %u, x2APIC %u, BSP %u\n",
	      (u32)base & APIC_BASE_ADDR, !!(base & APIC_BASE_EN),
	      !!(base & APIC_BASE_EXTD), !!(base & APIC_BASE_BSP));
	print("mbxapic: ID %u, version 0x%x\n", lapic_read(APIC_ID) >> 24,
	      version & 0xff);
	print("host: max LVT entry %u\n", version >> 16 & 0xff);
}

static void count_timer_ticks(void)
{
	u32 start, below = 1;

	lapic_write(APIC_TIMER_DCR, DCR_DIVIDE_1);
	lapic_write(APIC_LVT_TIMER, LVT_PERIODIC | TIMER_VECTOR);
	start = tsc_low();
	lapic_write(APIC_TIMER_INIT, TIMER_COUNT);
	__asm__ volatile("sti");
	while (ticks < TICKS) {
		if (lapic_read(APIC_TIMER_CUR) > TIMER_COUNT)
			below = 0;
		__asm__ volatile("hlt");
	}
	__asm__ volatile("cli");
	lapic_write(APIC_LVT_TIMER, LVT_MASKED | TIMER_VECTOR);
	lapic_write(APIC_TIMER_INIT, 0);
	/*
	 * Another tick may land between the loop's test and the cli when
	 * the machine running the emulator is busy: the compared line says
	 * "at least TICKS", the exact count is a host line.
	 */
	print("mbxapic: timer periodic: at least %u ticks %u, count within "
	      "the initial count %u, stopped count %u\n", TICKS,
	      ticks >= TICKS, below, lapic_read(APIC_TIMER_CUR));
	print("host: %u ticks took %u TSC cycles\n", ticks, tsc_low() - start);
}

static void wait_icr_idle(void)
{
	for (int i = 0; i < WAIT_LOOPS &&
			(lapic_read(APIC_ICR_LOW) & ICR_DELIVERY_PENDING); i++)
		__asm__ volatile("pause");
}

static void send_ipi(u32 dest, u32 low)
{
	wait_icr_idle();
	lapic_write(APIC_ICR_HIGH, dest << 24);
	lapic_write(APIC_ICR_LOW, low);
	wait_icr_idle();
}

static void self_ipis(void)
{
	u32 me = lapic_read(APIC_ID) >> 24;

	__asm__ volatile("sti");
	send_ipi(me, ICR_ASSERT | IPI_VECTOR);
	send_ipi(0, ICR_ASSERT | ICR_SELF | SELF_VECTOR);
	for (int i = 0; i < WAIT_LOOPS && !(ipis[IPI_VECTOR] &&
					    ipis[SELF_VECTOR]); i++)
		__asm__ volatile("pause");
	__asm__ volatile("cli");
	print("mbxapic: fixed IPI to my ID on vector 0x%x: %u, self "
	      "shorthand on vector 0x%x: %u\n", IPI_VECTOR, ipis[IPI_VECTOR],
	      SELF_VECTOR, ipis[SELF_VECTOR]);
}

static void delay(void)
{
	for (volatile int i = 0; i < 100000; i++)
		;
}

/* SDM Vol. 3A 9.4.4.1: INIT, then two start-up IPIs. */
static void start_ap(void)
{
	volatile char *flag = (volatile char *)(TRAMPOLINE +
						(ap_flag - ap_code));
	char *dst = (char *)TRAMPOLINE;
	int i;

	for (const char *src = ap_code; src < ap_code_end; src++)
		*dst++ = *src;
	send_ipi(AP_ID, ICR_INIT | ICR_ASSERT | ICR_LEVEL);
	send_ipi(AP_ID, ICR_INIT | ICR_LEVEL);          /* de-assert */
	delay();
	for (int sipi = 0; sipi < 2 && !*flag; sipi++) {
		send_ipi(AP_ID, ICR_STARTUP | ICR_ASSERT | TRAMPOLINE >> 12);
		delay();
	}
	for (i = 0; i < WAIT_LOOPS && !*flag; i++)
		__asm__ volatile("pause");
	print("mbxapic: AP %u started with INIT/SIPI: %s\n", AP_ID,
	      *flag ? "yes" : "no");
}

u32 mb_main(u32 magic, const void *mbi)
{
	(void)magic;
	(void)mbi;
	serial_init();
	print("mbxapic: start\n");
	outb(0x21, 0xff);               /* both 8259s masked */
	outb(0xa1, 0xff);
	idt_set_gate(TIMER_VECTOR, timer_stub);
	idt_set_gate(IPI_VECTOR, ipi_stub);
	idt_set_gate(SELF_VECTOR, ipi_stub);
	idt_set_gate(SPURIOUS_VECTOR, spurious_stub);
	idt_load();
	show_base_id_version();
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_SVR, SVR_ENABLE | SPURIOUS_VECTOR);
	count_timer_ticks();
	self_ipis();
	start_ap();
	print("mbxapic: exit 0x%x\n", EXIT_VALUE);
	return EXIT_VALUE;
}
