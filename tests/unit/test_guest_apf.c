/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/async_pf.c, the VM's side of async page faults, over a fake guest
 * RAM and swap with the real virtual LAPIC: the shared area's two words,
 * the page-ready vector raised in the LAPIC, the area's page kept
 * resident. A small model of Linux 6.1's guest side (arch/x86/kernel/
 * kvm.c) takes the interrupts: its handler reads and clears the token
 * word and writes ACK, but only while its async PF is on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "apf/kvm_para.h"
#include "guest/async_pf.h"
#include "guest/vm.h"
#include "tests/unit/console_capture.h"

#include "tests/unit/guest_apf_harness.h"

/* ---- the tests ---- */

static void wake_all_then_a_page_ready(void **state)
{
	uint32_t token;

	(void)state;
	guest_enables();
	assert_int_equal(pins[AREA / PAGE_SIZE], 1);
	assert_true(before_entry());
	assert_int_equal(area_word(KVM_APF_AREA_TOKEN_OFFSET),
			 KVM_APF_TOKEN_WAKE_ALL);
	guest_takes_interrupts();
	token = user_fault(0x5000);
	/* Nothing to send while the page is still being read. */
	assert_false(before_entry());
	swap_in_done(0x5000);
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(nwoken, 2);
	assert_int_equal(woken[0], KVM_APF_TOKEN_WAKE_ALL);
	assert_int_equal(woken[1], token);
	assert_int_equal(apf_outstanding(&vm.plat[0].apf), 0);
	guest_disables();
	assert_int_equal(pins[AREA / PAGE_SIZE], 0);
}

/*
 * CPU offline, kexec or suspend: a page-ready goes out while the guest
 * has interrupts off; it writes EN = 0 before it takes it, so its handler
 * (async PF off) leaves the token in the word. EN on again must still
 * bring the "wake all" and every later page-ready (KVM 6.1 sends none
 * while the word is not 0, so there they all wait forever).
 */
static void page_ready_left_in_the_slot_across_off_and_on(void **state)
{
	uint32_t stale, fresh;

	(void)state;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	stale = user_fault(0x5000);
	swap_in_done(0x5000);
	assert_true(before_entry());            /* IF = 0: not taken yet */
	guest_disables();
	guest_takes_interrupts();               /* IF = 1, async PF off */
	assert_int_equal(area_word(KVM_APF_AREA_TOKEN_OFFSET), stale);
	nwoken = 0;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	fresh = user_fault(0x6000);
	swap_in_done(0x6000);
	before_entry();
	guest_takes_interrupts();
	assert_int_equal(nwoken, 2);
	assert_int_equal(woken[0], KVM_APF_TOKEN_WAKE_ALL);
	assert_int_equal(woken[1], fresh);
}

static void software_enable_lapic(void)
{
	vlapic_wrmsr(lapic(), VLAPIC_MSR_SVR, 0x1ff, 0, NULL);
}

/*
 * MSR_KVM_ASYNC_PF_INT names a vector the LAPIC refuses (0-15; KVM takes
 * any): the page-ready waits, its word left empty, until the guest names
 * a legal one; it is not raised into the LAPIC and lost meanwhile.
 */
static void page_ready_waits_for_a_legal_vector(void **state)
{
	(void)state;
	wrmsr(MSR_KVM_ASYNC_PF_INT, 5);
	wrmsr(MSR_KVM_ASYNC_PF_EN, EN_ON);
	guest_apf_on = true;
	assert_false(before_entry());
	assert_int_equal(area_word(KVM_APF_AREA_TOKEN_OFFSET), 0);
	assert_int_equal(lapic()->esr_pending, 0);     /* never raised */
	assert_true(apf_has_page_ready(&vm.plat[0].apf));
	vm.plat[0].requests = 0;
	wrmsr(MSR_KVM_ASYNC_PF_INT, VECTOR);
	assert_true(vm.plat[0].requests & BIT(VCPU_REQ_PAGE_READY));
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(nwoken, 1);
	assert_int_equal(woken[0], KVM_APF_TOKEN_WAKE_ALL);
}

/*
 * The LAPIC refuses the vector after the check that it would take it (an
 * INIT from another vCPU reset it in between): the token word is emptied
 * again and the page-ready stays queued for when the LAPIC is back on.
 */
static void page_ready_the_lapic_refuses_stays_queued(void **state)
{
	uint32_t token;

	(void)state;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	token = user_fault(0x5000);
	swap_in_done(0x5000);
	token_write = TOKEN_WRITE_LAPIC_RESET;
	assert_false(before_entry());
	assert_int_equal(area_word(KVM_APF_AREA_TOKEN_OFFSET), 0);
	assert_true(apf_has_page_ready(&vm.plat[0].apf));
	token_write = TOKEN_WRITE_OK;
	assert_false(before_entry());           /* the LAPIC is still off */
	software_enable_lapic();
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(nwoken, 2);
	assert_int_equal(woken[1], token);
	assert_int_equal(vm.plat[0].apf.stats.page_ready, 1);
}

/* The token word cannot be written: nothing raised, nothing lost. */
static void page_ready_whose_token_cannot_be_written_stays_queued(void **state)
{
	uint32_t token;

	(void)state;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	token = user_fault(0x5000);
	swap_in_done(0x5000);
	token_write = TOKEN_WRITE_FAILS;
	assert_false(before_entry());
	assert_int_equal(vlapic_pending_vector(lapic()), -1);
	token_write = TOKEN_WRITE_OK;
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(nwoken, 2);
	assert_int_equal(woken[1], token);
}

/*
 * The area's page could not be pinned (the pin table full, the page not
 * brought back): it goes on unpinned, and what was never pinned is never
 * unpinned, on EN = 0 or when the area moves, so a pin someone else took
 * on that page later (kvmclock's, another vCPU's area) is left alone.
 */
static void area_pin_that_failed_is_never_unpinned(void **state)
{
	const unsigned page = AREA / PAGE_SIZE;

	(void)state;
	pin_refused[page] = true;
	guest_enables();
	assert_int_equal(console_nlines, 1);
	assert_non_null(strstr(console_lines[0], "not pinned"));
	assert_int_equal(pins[page], 0);
	/* Still served: the page is brought back when written. */
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(nwoken, 1);
	/* The kvmclock record lands on the same page and is pinned. */
	pin_refused[page] = false;
	assert_int_equal(vm_pin_ram(&vm, AREA + 0x100), 0);
	guest_disables();
	assert_int_equal(pins[page], 1);
	/* Refused again, then moved to a page that pins, then INIT. */
	pin_refused[page] = true;
	guest_enables();
	wrmsr(MSR_KVM_ASYNC_PF_EN, EN_ON + PAGE_SIZE);
	assert_int_equal(pins[page], 1);
	assert_int_equal(pins[page + 1], 1);
	vm_apf_reset(&vm, 0);
	assert_int_equal(pins[page], 1);
	assert_int_equal(pins[page + 1], 0);
}

/*
 * The guest turns paging off for a while (a kexec trampoline, a mode
 * switch) with page-readies queued and interrupts on: they wait, no token
 * written, no vector raised (its handler lives in paged code), and all go
 * out once paging is back. KVM 6.1 drops them at the CR0.PG change, which
 * strands their sleepers; newer KVM keeps and sends them.
 */
static void page_ready_held_while_paging_is_off(void **state)
{
	uint32_t a, b;

	(void)state;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	a = user_fault(0x5000);
	b = user_fault(0x6000);
	guest_paging = false;
	swap_in_done(0x5000);
	swap_in_done(0x6000);
	assert_false(before_entry());
	assert_int_equal(area_word(KVM_APF_AREA_TOKEN_OFFSET), 0);
	assert_int_equal(vlapic_pending_vector(lapic()), -1);
	assert_int_equal(apf_outstanding(&vm.plat[0].apf), 2);
	/* PG back on (no exit): the next entry sends them, in order. */
	guest_paging = true;
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(nwoken, 3);
	assert_int_equal(woken[1], a);
	assert_int_equal(woken[2], b);
	assert_int_equal(apf_outstanding(&vm.plat[0].apf), 0);
}

/*
 * The completion puts the token on the done list and sets the request;
 * it kicks the vCPU unless a page-ready is out and un-acked (KVM's
 * kvm_arch_async_page_present_queued): then the guest's ACK exit is sure
 * to come and asks again. The handler meanwhile finds the slot taken and
 * holds nothing for the entries to retry.
 */
static void completion_kicks_unless_an_ack_is_due(void **state)
{
	uint32_t first, second;

	(void)state;
	guest_enables();
	assert_true(before_entry());            /* the wake-all, un-acked */
	first = user_fault(0x5000);
	kicks = quiet_requests = 0;
	swap_in_done(0x5000);
	assert_int_equal(kicks, 0);
	assert_int_equal(quiet_requests, 1);
	assert_true(vm.plat[0].requests & BIT(VCPU_REQ_PAGE_READY));
	assert_false(before_entry());
	assert_false(held);
	assert_false(vm.plat[0].requests & BIT(VCPU_REQ_PAGE_READY));
	/* The guest takes the wake-all and ACKs: the token follows. */
	guest_takes_interrupts();
	assert_int_equal(nwoken, 2);
	assert_int_equal(woken[1], first);
	/* Nothing out now: the next completion kicks (the ACKs asked too). */
	second = user_fault(0x6000);
	kicks = 0;
	swap_in_done(0x6000);
	assert_int_equal(kicks, 1);
	assert_true(before_entry());
	guest_takes_interrupts();
	assert_int_equal(woken[2], second);
	assert_int_equal(apf_outstanding(&vm.plat[0].apf), 0);
}

/*
 * A vCPU that waited for the page without a token (APF halt, a
 * synchronous wait, async PF off) is kicked all the same, and its
 * handler finds an empty done list without reading guest RAM.
 */
static void completion_without_a_token_kicks_and_costs_nothing(void **state)
{
	(void)state;
	swap_in_done(0x5000);
	assert_int_equal(kicks, 1);
	assert_true(vm.plat[0].requests & BIT(VCPU_REQ_PAGE_READY));
	assert_false(before_entry());
	assert_false(held);
	assert_int_equal(ram_reads, 0);
	assert_int_equal(vm.plat[0].apf.stats.page_ready, 0);
}

/*
 * Tokens in flight and nothing completed: entries do nothing for them
 * (no request, nothing held), however many there are.
 */
static void entries_with_tokens_out_do_nothing_until_told(void **state)
{
	(void)state;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	user_fault(0x5000);
	user_fault(0x6000);
	ram_reads = 0;
	for (int i = 0; i < 5; i++)
		assert_false(before_entry());
	assert_int_equal(ram_reads, 0);
	assert_int_equal(apf_outstanding(&vm.plat[0].apf), 2);
}

/*
 * The not-present step is one call under one hold of mem_lock (the
 * fakes check it is held for the fault and the flags word): a resolved
 * fault takes no token, a joined swap-in (WAIT_IO) does, async PF off or
 * a flags word the guest has not consumed makes the caller wait.
 */
static void not_present_step_is_one_call(void **state)
{
	struct apf_guest_state gs = { .interrupts_enabled = true,
				      .paging = true, .cpl = 3 };
	struct vm_apf_try try = { .token = 1 };

	(void)state;
	fault_result = GUEST_FAULT_RESOLVED;
	assert_int_equal(vm_fault_begin(&vm, 0, 0x5000, NULL, &gs, &try),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(try.token, 0);
	fault_result = GUEST_FAULT_SWAPIN_STARTED;
	vm_fault_begin(&vm, 0, 0x5000, NULL, &gs, &try);    /* async PF off */
	assert_int_equal(try.token, 0);
	assert_int_equal(faults_begun, 2);
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	fault_result = GUEST_FAULT_WAIT_IO;
	assert_int_equal(vm_fault_begin(&vm, 0, 0x6000, NULL, &gs, &try),
			 GUEST_FAULT_WAIT_IO);
	assert_int_not_equal(try.token, 0);
	/* The guest has not read the reason yet: a second one waits. */
	vm_fault_begin(&vm, 0, 0x7000, NULL, &gs, &try);
	assert_int_equal(try.token, 0);
	assert_int_equal(gs.area_flags, KVM_PV_REASON_PAGE_NOT_PRESENT);
	assert_int_equal(
		vm.plat[0].apf.stats.sync[APF_SYNC_NOTIFICATION_UNCONSUMED], 1);
	assert_int_equal(faults_begun, 4);
	assert_false(spin_is_locked(&vm.memory.lock));
	assert_false(spin_is_locked(&vm.plat[0].apf_lock));
}

static unsigned states_read;

static void read_user_state(struct apf_guest_state *gs)
{
	states_read++;
	*gs = (struct apf_guest_state){ .interrupts_enabled = true,
					.paging = true, .cpl = 3 };
}

/*
 * The vCPU's state (VMREADs in vmx/exit_ept.c) is read only for a fault
 * whose swap-in is under way, under the same hold of mem_lock: a fault the
 * pool resolves at once (a zero fill, say) does not pay for it.
 */
static void vcpu_state_read_only_for_a_swap_in(void **state)
{
	struct apf_guest_state gs = { 0 };
	struct vm_apf_try try;

	(void)state;
	states_read = 0;
	guest_enables();
	before_entry();
	guest_takes_interrupts();
	fault_result = GUEST_FAULT_RESOLVED;
	mode_noted.calls = 0;
	vm_fault_begin(&vm, 0, 0x5000, read_user_state, &gs, &try);
	assert_int_equal(states_read, 0);
	assert_int_equal(mode_noted.calls, 0);
	assert_int_equal(try.token, 0);
	fault_result = GUEST_FAULT_SWAPIN_STARTED;
	vm_fault_begin(&vm, 0, 0x6000, read_user_state, &gs, &try);
	assert_int_equal(states_read, 1);
	assert_int_equal(gs.cpl, 3);
	/* The swap-in's mode goes to swap.protect_kernel: user mode here. */
	assert_int_equal(mode_noted.calls, 1);
	assert_int_equal(mode_noted.gpa, 0x6000);
	assert_false(mode_noted.kernel);
	assert_int_not_equal(try.token, 0);
}

#define T(name) cmocka_unit_test_setup(name, setup)

/* The same protocol with the area reached through its pinned page. */
static int setup_direct(void **state)
{
	setup(state);
	direct = true;
	return 0;
}

static int teardown_direct(void **state)
{
	(void)state;
	assert_int_equal(token_ram_accesses, 0);
	return 0;
}

#define D(name) cmocka_unit_test_prestate_setup_teardown(name, \
	setup_direct, teardown_direct, NULL)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(wake_all_then_a_page_ready),
		T(vcpu_state_read_only_for_a_swap_in),
		T(page_ready_left_in_the_slot_across_off_and_on),
		T(page_ready_waits_for_a_legal_vector),
		T(page_ready_the_lapic_refuses_stays_queued),
		T(page_ready_whose_token_cannot_be_written_stays_queued),
		T(area_pin_that_failed_is_never_unpinned),
		T(page_ready_held_while_paging_is_off),
		T(completion_kicks_unless_an_ack_is_due),
		T(completion_without_a_token_kicks_and_costs_nothing),
		T(entries_with_tokens_out_do_nothing_until_told),
		T(not_present_step_is_one_call),
		D(wake_all_then_a_page_ready),
		D(page_ready_left_in_the_slot_across_off_and_on),
		D(page_ready_waits_for_a_legal_vector),
		D(page_ready_held_while_paging_is_off),
		D(completion_kicks_unless_an_ack_is_due),
		D(entries_with_tokens_out_do_nothing_until_told),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
