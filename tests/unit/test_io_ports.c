/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/io_ports.c, the guest's port I/O: what an unclaimed port reads,
 * COM1 lines reaching the console (escaped), the test-exit port, the
 * reset and ACPI power-off requests, the ACPI PM1 registers, the 8259
 * routing, and which accesses move irq_gen (may change what an interrupt
 * poll finds). The VM's end and the IRQ routing are faked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "guest/devices/acpi_tables.h"
#include "guest/io_ports.h"
#include "guest/vm.h"

static struct vm vm;
static char ended[128];
static enum vm_end_kind end_kind;
static bool end_clean;
static unsigned irq_updates;
static char printed[4][256];
static unsigned nprinted;

static void record_end(struct vm *g, enum vm_end_kind kind, bool clean,
		       const char *fmt, va_list ap)
{
	assert_ptr_equal(g, &vm);
	vsnprintf(ended, sizeof(ended), fmt, ap);
	end_kind = kind;
	end_clean = clean;
}

void vm_end(struct vm *g, bool clean, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_end(g, VM_END_HALTED, clean, fmt, ap);
	va_end(ap);
}

void vm_end_as(struct vm *g, enum vm_end_kind kind, bool clean,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_end(g, kind, clean, fmt, ap);
	va_end(ap);
}

/* pc-testdev's effects, recorded. */
static int line_set = -1;
static bool line_level;
static uint64_t dropped_gpa = ~0ull;

void guest_isa_irq_set(struct vm *g, unsigned irq, bool level)
{
	assert_ptr_equal(g, &vm);
	line_set = (int)irq;
	line_level = level;
}

void vm_drop_translation(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	dropped_gpa = gpa;
}

void guest_update_irq_lines(struct vm *g)
{
	assert_ptr_equal(g, &vm);
	irq_updates++;
}

/* A small guest RAM for fw_cfg's DMA transfers. */
static uint8_t ram[8192];

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	assert_ptr_equal(g, &vm);
	if (gpa > sizeof(ram) || len > sizeof(ram) - gpa)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	assert_ptr_equal(g, &vm);
	if (gpa > sizeof(ram) || len > sizeof(ram) - gpa)
		return -1;
	memcpy(ram + gpa, src, len);
	return 0;
}

/* The PIT without the 8259 behind it: just take the edge. */
bool guest_pit_update(struct vm *g, uint64_t now)
{
	assert_ptr_equal(g, &vm);
	return pit_take_irq0_edge(&g->dev.pit, now);
}

static void print(const char *escaped, size_t len)
{
	assert_true(nprinted < 4 && len < sizeof(printed[0]));
	memcpy(printed[nprinted++], escaped, len + 1);
}

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	guest_console_init(&vm.dev.console, print);
	uart_init(&vm.dev.uart, guest_console_push, &vm.dev.console);
	pic_init(&vm.dev.pic);
	fw_cfg_init(&vm.dev.fw_cfg, &(struct fw_cfg_platform){
		.ram = { .low_size = 64 << 20 }, .cpus = 2, .cmdline = "x",
	});
	memset(ram, 0, sizeof(ram));
	pit_init(&vm.dev.pit, 3000000000ull);
	port61_init(&vm.dev.port61);
	pci_host_init(&vm.dev.pci_host);
	assert_true(guest_io_ports_register(&vm));
	ended[0] = 0;
	nprinted = irq_updates = 0;
	line_set = -1;
	dropped_gpa = ~0ull;
	return 0;
}

/* guest.testdev = on: the VM registers pc-testdev's ports too. */
static void with_testdev(void)
{
	vm.config.testdev = true;
	io_registry_init(&vm.dev.io);
	assert_true(guest_io_ports_register(&vm));
}

static uint32_t in(uint16_t port, unsigned size, bool *handled)
{
	uint32_t v = 0x5a5a5a5a;

	*handled = guest_port_io(&vm, port, size, true, &v);
	return v;
}

static bool out(uint16_t port, unsigned size, uint32_t v)
{
	return guest_port_io(&vm, port, size, false, &v);
}

static void unclaimed_ports_read_all_ones(void **state)
{
	bool handled;

	(void)state;
	assert_int_equal(in(0xe0, 1, &handled), 0xff);
	assert_false(handled);
	assert_int_equal(in(0x2f8, 2, &handled), 0xffff);
	assert_false(handled);
	assert_int_equal(in(0xcf8, 1, &handled), 0xff);  /* not CONFIG_ADDRESS */
	assert_false(handled);
	assert_false(out(0xe0, 1, 0x12));
	/* Port 0x80: io_delay()'s writes are taken, reads are not. */
	assert_true(out(0x80, 1, 0));
	in(0x80, 1, &handled);
	assert_false(handled);
	assert_int_equal(ended[0], 0);
}

static void com1_lines_reach_the_console_escaped(void **state)
{
	static const char line[] = "hi\x1b[2J\\";

	(void)state;
	for (size_t i = 0; i < sizeof(line) - 1; i++)
		assert_true(out(GUEST_COM1_BASE, 1, (uint8_t)line[i]));
	assert_int_equal(nprinted, 0);
	assert_true(out(GUEST_COM1_BASE, 1, '\n'));
	assert_int_equal(nprinted, 1);          /* drained after the lock */
	assert_string_equal(printed[0], "hi\\x1b[2J\\\\");
	assert_true(irq_updates >= sizeof(line));
}

static void test_exit_port_ends_the_guest(void **state)
{
	(void)state;
	assert_true(out(GUEST_COM1_BASE, 1, 'x'));      /* a partial line */
	assert_true(out(GUEST_TEST_EXIT_PORT, 4, 3));
	assert_string_equal(ended, "test-exit code 3");
	assert_false(end_clean);
	assert_int_equal(nprinted, 1);                  /* flushed first */
	assert_string_equal(printed[0], "x");
	assert_true(out(GUEST_TEST_EXIT_PORT, 4, 0));
	assert_true(end_clean);
}

static void isa_debug_exit_for_multiboot_guests(void **state)
{
	(void)state;
	vm.config.isa_debug_exit = true;
	assert_true(out(GUEST_TEST_EXIT_PORT, 1, 0x21));
	assert_string_equal(ended, "isa-debug-exit value 0x21, exit status 67");
	assert_true(end_clean);
	assert_true(out(GUEST_TEST_EXIT_PORT, 4, 0));
	assert_string_equal(ended, "isa-debug-exit value 0x0, exit status 1");
	assert_int_equal(isa_debug_exit_status(0x80), 1);  /* 8 bits */
}

/*
 * A Linux guest has no test-exit device: 0xf4 is an unclaimed port there,
 * as on a PC (writes dropped, the VM goes on), never the end of the VM.
 */
static void no_test_exit_port_for_linux(void **state)
{
	uint32_t value = 0;

	(void)state;
	vm.config.is_linux = true;
	assert_false(out(GUEST_TEST_EXIT_PORT, 1, 0));
	assert_string_equal(ended, "");
	guest_port_io(&vm, GUEST_TEST_EXIT_PORT, 1, true, &value);
	assert_int_equal(value & 0xff, 0xff);
	assert_string_equal(ended, "");
}

static void put_be(uint8_t *p, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void fw_cfg_through_ports_and_dma(void **state)
{
	bool handled;
	uint8_t *rec = ram + 0x100;

	(void)state;
	/* traditional: select the signature, read it byte by byte */
	assert_true(out(FW_CFG_SELECTOR_PORT, 2, FW_CFG_SIGNATURE));
	assert_int_equal(in(FW_CFG_DATA_PORT, 1, &handled), 'Q');
	assert_true(handled);
	assert_int_equal(in(FW_CFG_DATA_PORT, 1, &handled), 'E');
	/* the DMA register reads as "QEMU CFG" in big-endian order */
	assert_int_equal(__builtin_bswap32(in(FW_CFG_DMA_HIGH_PORT, 4,
					      &handled)), 0x51454d55);
	/* DMA: select the ID, read 4 bytes to 0x200 */
	put_be(rec, 4, (uint32_t)FW_CFG_ID << 16 | FW_CFG_DMA_SELECT |
			       FW_CFG_DMA_READ);
	put_be(rec + 4, 4, 4);
	put_be(rec + 8, 8, 0x200);
	assert_true(out(FW_CFG_DMA_HIGH_PORT, 4, 0));
	assert_true(out(FW_CFG_DMA_LOW_PORT, 4, __builtin_bswap32(0x100)));
	assert_int_equal(ram[0x200], FW_CFG_ID_TRADITIONAL | FW_CFG_ID_DMA);
	assert_int_equal(rec[0] | rec[1] | rec[2] | rec[3], 0);  /* done */
	/* a read into memory that is not RAM: the error bit */
	put_be(rec, 4, FW_CFG_DMA_READ);
	put_be(rec + 8, 8, 1ull << 40);
	assert_true(out(FW_CFG_DMA_LOW_PORT, 4, __builtin_bswap32(0x100)));
	assert_int_equal(rec[3], FW_CFG_DMA_ERROR);
	/* writes are refused */
	put_be(rec, 4, FW_CFG_DMA_WRITE);
	assert_true(out(FW_CFG_DMA_LOW_PORT, 4, __builtin_bswap32(0x100)));
	assert_int_equal(rec[3], FW_CFG_DMA_ERROR);
}

/*
 * Configuration mechanism #1 reaches the host bridge; a byte written to
 * 0xcf9 between the two is still the reset register.
 */
static void pci_config_ports_reach_the_host_bridge(void **state)
{
	bool handled;

	(void)state;
	assert_true(out(0xcf8, 4, 0x80000000));
	assert_int_equal(in(0xcf8, 4, &handled), 0x80000000);
	assert_true(handled);
	assert_int_equal(in(0xcfc, 4, &handled), 0x12378086);
	assert_true(handled);
	assert_true(out(0xcf8, 4, 0x80000008));
	assert_int_equal(in(0xcfe, 2, &handled), 0x0600);
	assert_false(out(ACPI_RESET_PORT, 1, 0x02));
	assert_int_equal(in(0xcf8, 4, &handled), 0x80000008);
	assert_true(out(0xcf8, 4, 0x80000800));         /* device 1 */
	assert_int_equal(in(0xcfc, 4, &handled), 0xffffffff);
	assert_true(handled);
	assert_int_equal(ended[0], 0);
}

static void resets_and_power_off(void **state)
{
	bool handled;

	(void)state;
	assert_false(out(ACPI_RESET_PORT, 1, 0x02));    /* no reset bit */
	assert_int_equal(ended[0], 0);
	assert_true(out(ACPI_RESET_PORT, 1, 0x06));
	assert_int_equal(end_kind, VM_END_RESET);
	assert_string_equal(ended, "reset through port 0xcf9");
	ended[0] = 0;
	assert_true(out(0x64, 1, 0xfe));
	assert_string_equal(ended, "reset through port 0x64");
	ended[0] = 0;
	/* PM1a: SCI_EN always reads set; S5 with SLP_EN powers off. */
	assert_int_equal(in(ACPI_PM1A_CNT_PORT, 2, &handled) &
			 ACPI_PM1_CNT_SCI_EN, ACPI_PM1_CNT_SCI_EN);
	assert_true(handled);
	assert_true(out(ACPI_PM1A_CNT_PORT, 2,
			ACPI_S5_SLP_TYP << ACPI_PM1_CNT_SLP_TYP_SHIFT));
	assert_int_equal(ended[0], 0);                  /* no SLP_EN */
	assert_true(out(ACPI_PM1A_CNT_PORT, 2,
			ACPI_S5_SLP_TYP << ACPI_PM1_CNT_SLP_TYP_SHIFT |
			ACPI_PM1_CNT_SLP_EN));
	assert_int_equal(end_kind, VM_END_POWER_OFF);
	assert_true(end_clean);
}

static void pm1_status_and_enable(void **state)
{
	bool handled;

	(void)state;
	vm.dev.pm1.status = 0x0101;
	assert_true(out(ACPI_PM1A_STS_PORT, 2, 0x0001)); /* write 1 clears */
	assert_int_equal(in(ACPI_PM1A_STS_PORT, 2, &handled), 0x0100);
	assert_true(out(ACPI_PM1A_EN_PORT, 2, 0x0120));
	assert_int_equal(in(ACPI_PM1A_EN_PORT, 2, &handled), 0x0120);
	/*
	 * A byte IN gets the low byte only: the exit handler merges the value
	 * into RAX, and a high byte would land in AH (found by
	 * fuzz_guest_devices: `in al` from 0x604 gave 0x303).
	 */
	assert_int_equal(in(ACPI_PM1A_EN_PORT, 1, &handled), 0x20);
	assert_int_equal(in(ACPI_PM1A_CNT_PORT, 1, &handled),
			 ACPI_PM1_CNT_SCI_EN & 0xff);
}

static void pic_ports_reach_the_8259(void **state)
{
	bool handled;

	(void)state;
	assert_true(out(0x21, 1, 0xfe));                /* master IMR */
	assert_int_equal(in(0x21, 1, &handled), 0xfe);
	assert_true(handled);
	assert_true(out(0xa1, 1, 0x7f));                /* slave IMR */
	assert_int_equal(in(0xa1, 1, &handled), 0x7f);
}

/* Whether an access moved vm.dev.irq_gen, the vCPUs' cue to poll again. */
static bool moved_irq_gen(uint16_t port, bool is_in, uint8_t v)
{
	uint64_t before = vm.dev.irq_gen;
	uint32_t value = v;

	guest_port_io(&vm, port, 1, is_in, &value);
	return vm.dev.irq_gen != before;
}

static void irq_gen_moves_when_an_interrupt_line_may_move(void **state)
{
	const uint16_t com1 = GUEST_COM1_BASE;

	(void)state;
	/* Nothing that can interrupt: an empty port, ACPI PM1. */
	assert_false(moved_irq_gen(0x2fd, true, 0));
	assert_false(moved_irq_gen(0xe0, false, 1));
	assert_false(moved_irq_gen(ACPI_PM1A_STS_PORT, true, 0));
	/* The UART with its line low: LSR polls and output move nothing. */
	assert_false(moved_irq_gen(com1 + 5, true, 0));
	assert_false(moved_irq_gen(com1, false, 'a'));
	assert_false(moved_irq_gen(com1 + 4, false, 0x08));     /* OUT2 */
	/* THR-empty enabled with THR empty: the line rises. */
	assert_true(moved_irq_gen(com1 + 1, false, 0x02));
	assert_false(moved_irq_gen(com1 + 5, true, 0));   /* still high */
	assert_false(moved_irq_gen(com1, false, 'b'));    /* still high */
	assert_true(moved_irq_gen(com1 + 2, true, 0));    /* IIR clears it */
	assert_true(moved_irq_gen(com1, false, 'c'));     /* empty again */
	assert_true(moved_irq_gen(com1 + 4, false, 0));   /* OUT2 off */
	/* Any 8259 access (a read may be a poll-mode INTA). */
	assert_true(moved_irq_gen(0x21, false, 0xfe));
	assert_true(moved_irq_gen(0x20, true, 0));
}

/* 0x40-0x43 and 0x61 reach the PIT; writes move irq_gen, plain reads not. */
static void pit_ports_reach_the_8254(void **state)
{
	bool handled;
	uint32_t first, second;

	(void)state;
	assert_true(moved_irq_gen(0x61, false, 0x03));  /* gate 2, speaker */
	assert_true(moved_irq_gen(0x43, false, 0xb0));  /* counter 2, mode 0 */
	assert_true(moved_irq_gen(0x42, false, 0xff));
	assert_true(moved_irq_gen(0x42, false, 0xff));
	first = in(0x61, 1, &handled);
	assert_true(handled);
	second = in(0x61, 1, &handled);
	assert_int_equal(first & 0x0f, 0x03);
	assert_int_equal(first & 0xc0, 0);
	assert_int_equal((first ^ second) & 0x10, 0x10); /* refresh toggles */
	assert_int_equal(first & 0x20, 0);              /* 55 ms to go */
	assert_false(moved_irq_gen(0x42, true, 0));
	in(0x43, 1, &handled);
	assert_true(handled);
}

/* guest.testdev off (Linux, any guest by default): an empty ISA bus. */
static void no_testdev_unless_asked(void **state)
{
	bool handled;

	(void)state;
	assert_int_equal(in(0xe0, 4, &handled), 0xffffffffu);
	assert_false(handled);
	assert_false(out(0x200e, 1, 1));
	assert_false(out(0xe4, 4, 0x5000));
	assert_int_equal(line_set, -1);
	assert_true(dropped_gpa == ~0ull);
}

/* QEMU's pc-testdev: 0xe0 and 0xe8 are one 32-bit register. */
static void testdev_scratch_register(void **state)
{
	bool handled;

	(void)state;
	with_testdev();
	assert_true(out(0xe0, 4, 0x12345678));
	assert_int_equal(in(0xe1, 1, &handled), 0x56);
	assert_true(handled);
	assert_int_equal(in(0xe2, 2, &handled), 0x1234);
	assert_true(out(0xe9, 1, 0xab));
	assert_int_equal(in(0xe0, 4, &handled), 0x1234ab78);
	assert_int_equal(in(0xe8, 1, &handled), 0x78);
	/* A word at the last byte changes only that byte. */
	assert_true(out(0xe3, 2, 0xeeff));
	assert_int_equal(in(0xe0, 4, &handled), 0xff34ab78);
	assert_int_equal(in(0xe3, 2, &handled), 0xff);
}

static void testdev_irq_lines_and_page_flush(void **state)
{
	bool handled;

	(void)state;
	with_testdev();
	assert_true(out(0x200e, 1, 1));
	assert_int_equal(line_set, 14);
	assert_true(line_level);
	assert_true(out(0x200e, 1, 0x100));     /* only the byte counts */
	assert_false(line_level);
	assert_true(out(0x2003, 1, 0x80));
	assert_int_equal(line_set, 3);
	assert_true(line_level);
	line_set = -1;
	assert_true(out(0x2010, 1, 1));         /* QEMU has no ISA IRQ 16 */
	assert_true(out(0x2000, 2, 1));         /* byte writes only */
	assert_int_equal(line_set, -1);
	assert_int_equal(in(0x2005, 1, &handled), 0);
	assert_true(handled);
	assert_true(out(0xe4, 4, 0x12345));
	assert_true(dropped_gpa == 0x12000);
	dropped_gpa = ~0ull;
	assert_true(out(0xe4, 2, 0x5000));      /* a 32-bit write only */
	assert_true(out(0xe5, 1, 0x50));
	assert_true(dropped_gpa == ~0ull);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(unclaimed_ports_read_all_ones),
		T(com1_lines_reach_the_console_escaped),
		T(test_exit_port_ends_the_guest),
		T(isa_debug_exit_for_multiboot_guests),
		T(no_test_exit_port_for_linux),
		T(fw_cfg_through_ports_and_dma),
		T(pci_config_ports_reach_the_host_bridge),
		T(resets_and_power_off),
		T(pm1_status_and_enable),
		T(pic_ports_reach_the_8259),
		T(irq_gen_moves_when_an_interrupt_line_may_move),
		T(pit_ports_reach_the_8254),
		T(no_testdev_unless_asked),
		T(testdev_scratch_register),
		T(testdev_irq_lines_and_page_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
