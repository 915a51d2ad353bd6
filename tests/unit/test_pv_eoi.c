/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/pv_eoi.c over a fake guest RAM with the real virtual LAPIC: the
 * MSR's rules (KVM's kvm_lapic_set_pv_eoi), when the flag is set in the
 * guest's word (one edge-triggered vector in service, nothing requested)
 * and taken back, the EOI the guest makes by clearing it, and that the
 * word's page is pinned exactly while the feature is on. A model of
 * Linux's kvm_guest_apic_eoi_write makes the guest's EOIs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "guest/cpuid.h"
#include "guest/pv_eoi.h"
#include "guest/vm.h"
#include "tests/unit/console_capture.h"

#define RAM_SIZE (64u << 10)
#define TSC_HZ 2500000000ull
#define WORD 0x3104ull                  /* 4-byte aligned, page 3 */
#define ON (WORD | PV_EOI_ENABLED)
#define TIMER 0xec
#define PAGE_READY 0xf3
#define LEVEL 0x31

static struct vm vm;
static uint8_t ram[RAM_SIZE];
static unsigned register_eois;          /* EOIs that wrote the register */

/* ---- the rest of the VM, faked ---- */

#include "tests/unit/ram_pins_fake.h"


void *vm_pinned_page(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	assert_true(gpa < RAM_SIZE && pins[gpa / PAGE_SIZE] > 0);
	return ram + ALIGN_DOWN(gpa, PAGE_SIZE);
}

/* ---- the guest ---- */

static struct vlapic *lapic(void)
{
	return &vm.plat[0].lapic;
}

static uint32_t word(void)
{
	uint32_t w;

	memcpy(&w, ram + WORD, sizeof(w));
	return w;
}

/* The entry: what is pending goes in, then the flag is decided. */
static int enter(void)
{
	int v = vlapic_pending_vector(lapic());

	if (v >= 0)
		vlapic_ack(lapic(), (uint8_t)v);
	vm_devices_lock(&vm);
	pv_eoi_arm(&vm, 0);
	vm_devices_unlock(&vm, false);
	return v;
}

/* kvm_guest_apic_eoi_write: the flag, else the register (an exit). */
static void guest_eoi(void)
{
	uint32_t w = word();

	if (w & PV_EOI_PENDING) {
		w &= ~PV_EOI_PENDING;
		memcpy(ram + WORD, &w, sizeof(w));
		return;
	}
	pv_eoi_collect(&vm, 0);         /* the EOI's own exit */
	vlapic_wrmsr(lapic(), VLAPIC_MSR_EOI, 0, 0, NULL);
	register_eois++;
}

/* Any other exit: the hypervisor looks at the word first. */
static bool exit_(void)
{
	return pv_eoi_collect(&vm, 0);
}

static bool in_service(uint8_t v)
{
	return lapic()->isr[v / 32] & (1u << (v % 32));
}

static int setup(void **state)
{
	struct vlapic *a = lapic();

	(void)state;
	memset(&vm, 0, sizeof(vm));
	memset(ram, 0, sizeof(ram));
	ram_pins_reset();
	register_eois = 0;
	console_forget();
	vm.nvcpus = 1;
	vm.config.kvm_features = KVM_FEATURE_PV_EOI;
	vm.memory.ram.ram = (struct guest_ram_layout){ .low_size = RAM_SIZE };
	vlapic_init(a, 0, true, TSC_HZ);
	vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE, a->apic_base | VLAPIC_BASE_EXTD,
		     0, NULL);
	vlapic_wrmsr(a, VLAPIC_MSR_SVR, 0x1ff, 0, NULL);
	return 0;
}

/* ---- the MSR ---- */

static void msr_follows_kvm_rules(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON | 2), MSR_RAISE_GP);
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, RAM_SIZE | PV_EOI_ENABLED),
			 MSR_RAISE_GP);
	assert_int_equal(pins[WORD / PAGE_SIZE], 0);
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_int_equal(pv_eoi_rdmsr(&vm, 0), ON);
	assert_int_equal(pins[WORD / PAGE_SIZE], 1);
	/* Written again, the same word: still one pin. */
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_int_equal(pins[WORD / PAGE_SIZE], 1);
	/* Off: an address without bit 0 is kept but nothing is pinned. */
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, WORD), MSR_HANDLED);
	assert_int_equal(pv_eoi_rdmsr(&vm, 0), WORD);
	assert_int_equal(pins[WORD / PAGE_SIZE], 0);
	vm.config.kvm_features = 0;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_RAISE_GP);
}

/* ---- the flag ---- */

static void an_edge_interrupt_ends_without_its_register_write(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	assert_true(pv_eoi_armed(&vm.plat[0].pv_eoi));
	assert_int_equal(word() & PV_EOI_PENDING, PV_EOI_PENDING);
	/* An exit before the handler's EOI changes nothing. */
	assert_false(exit_());
	assert_true(in_service(PAGE_READY));
	guest_eoi();
	assert_int_equal(register_eois, 0);
	assert_true(in_service(PAGE_READY));    /* until the next exit */
	assert_true(exit_());
	assert_false(in_service(PAGE_READY));
	assert_false(pv_eoi_armed(&vm.plat[0].pv_eoi));
	assert_int_equal(vm.plat[0].pv_eoi.deferred_eois, 1);
	/* Nothing in service: no flag at the next entry. */
	assert_int_equal(enter(), -1);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
}

/*
 * The EOI made through the word asks for a poll only when a vector was
 * requested while the guest ran: with none, the next entry may skip it.
 */
static void a_poll_follows_only_when_something_waits(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	guest_eoi();
	assert_int_equal(pv_eoi_collect(&vm, 0), PV_EOI_DONE);
	assert_false(in_service(PAGE_READY));
	/* Armed again; a lower class comes in before the guest's EOI. */
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	assert_true(pv_eoi_armed(&vm.plat[0].pv_eoi));
	assert_true(vlapic_accept(lapic(), TIMER));
	guest_eoi();
	assert_int_equal(pv_eoi_collect(&vm, 0), PV_EOI_DONE_POLL);
	assert_int_equal(enter(), TIMER);
	assert_int_equal(register_eois, 0);
}

/* A level-triggered vector owes the I/O APIC its EOI message. */
static void a_level_interrupt_writes_the_register(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept_level(lapic(), LEVEL));
	assert_int_equal(enter(), LEVEL);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
	guest_eoi();
	assert_int_equal(register_eois, 1);
	assert_false(in_service(LEVEL));
}

/*
 * A vector requested while another is in service: the flag is taken back
 * before the guest runs again, so the EOI exits and lets the new one in.
 */
static void a_request_behind_it_takes_the_flag_back(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	assert_int_equal(word() & PV_EOI_PENDING, PV_EOI_PENDING);
	/* A lower class: it waits behind the one in service. */
	assert_false(exit_());
	assert_true(vlapic_accept(lapic(), TIMER));
	assert_int_equal(enter(), -1);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
	guest_eoi();
	assert_int_equal(register_eois, 1);
	assert_int_equal(enter(), TIMER);
	/* The timer alone in service now: its EOI goes through the word. */
	assert_int_equal(word() & PV_EOI_PENDING, PV_EOI_PENDING);
	guest_eoi();
	assert_true(exit_());
	assert_int_equal(register_eois, 1);
	assert_false(in_service(TIMER));
}

/* Two vectors in service (one nested in the other): no flag for either. */
static void nested_interrupts_write_the_register(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept(lapic(), TIMER));
	assert_int_equal(enter(), TIMER);
	assert_false(exit_());
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
	guest_eoi();                            /* PAGE_READY's */
	assert_int_equal(register_eois, 1);
	assert_false(in_service(PAGE_READY));
	assert_int_equal(enter(), -1);
	assert_int_equal(word() & PV_EOI_PENDING, PV_EOI_PENDING);
	guest_eoi();                            /* TIMER's, through the word */
	assert_true(exit_());
	assert_int_equal(register_eois, 1);
	assert_false(in_service(TIMER));
}

/* Off, re-pointed or INIT while the flag is set: it is taken back. */
static void turning_it_off_takes_the_flag_back(void **state)
{
	(void)state;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, 0), MSR_HANDLED);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
	assert_int_equal(pins[WORD / PAGE_SIZE], 0);
	guest_eoi();
	assert_int_equal(register_eois, 1);
	assert_false(in_service(PAGE_READY));
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	pv_eoi_reset(&vm, 0);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
	assert_int_equal(pins[WORD / PAGE_SIZE], 0);
	assert_int_equal(pv_eoi_rdmsr(&vm, 0), 0);
	assert_false(pv_eoi_armed(&vm.plat[0].pv_eoi));
}

/* A word whose page cannot be pinned: taken, never used, one line. */
static void an_unpinned_word_is_never_used(void **state)
{
	(void)state;
	pins_refused = true;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, ON), MSR_HANDLED);
	assert_int_equal(console_nlines, 1);
	assert_non_null(strstr(console_lines[0],
			       "vcpu 0: PV EOI word at gpa 0x3104 not pinned"));
	assert_true(vlapic_accept(lapic(), PAGE_READY));
	assert_int_equal(enter(), PAGE_READY);
	assert_int_equal(word() & PV_EOI_PENDING, 0);
	guest_eoi();
	assert_int_equal(register_eois, 1);
	pins_refused = false;
	assert_int_equal(pv_eoi_wrmsr(&vm, 0, 0), MSR_HANDLED);
	assert_int_equal(pins[WORD / PAGE_SIZE], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(msr_follows_kvm_rules, setup),
		cmocka_unit_test_setup(
			an_edge_interrupt_ends_without_its_register_write,
			setup),
		cmocka_unit_test_setup(a_poll_follows_only_when_something_waits,
				       setup),
		cmocka_unit_test_setup(a_level_interrupt_writes_the_register,
				       setup),
		cmocka_unit_test_setup(a_request_behind_it_takes_the_flag_back,
				       setup),
		cmocka_unit_test_setup(nested_interrupts_write_the_register,
				       setup),
		cmocka_unit_test_setup(turning_it_off_takes_the_flag_back,
				       setup),
		cmocka_unit_test_setup(an_unpinned_word_is_never_used, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
