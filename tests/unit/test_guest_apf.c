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

#define RAM_SIZE (64u << 10)
#define TSC_HZ 2500000000ull
#define AREA 0x2040ull                  /* 64-byte aligned, page 2 */
#define VECTOR 0xf3u
#define EN_ON (AREA | KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT)
#define MAX_SEEN 16

static struct vm vm;
static uint8_t ram[RAM_SIZE];
static unsigned pins[RAM_SIZE / PAGE_SIZE];
static bool pin_refused[RAM_SIZE / PAGE_SIZE];

/* What goes wrong when a token is written into the area's token word. */
static enum {
	TOKEN_WRITE_OK,
	TOKEN_WRITE_FAILS,              /* the page cannot come back */
	TOKEN_WRITE_LAPIC_RESET,        /* meanwhile an INIT resets the LAPIC */
} token_write;

/* The guest model: CR0.PG, whether its async PF is on, what its handler
 * saw. */
static bool guest_paging;
static bool guest_apf_on;
static uint32_t woken[MAX_SEEN];
static unsigned nwoken;

/* ---- the rest of the VM, faked ---- */

/* Reads of guest RAM (each one a hold of mem_lock in the real VM). */
static unsigned ram_reads;
/*
 * direct: vm_pinned_page gives the area's page, as the real VM does for a
 * pinned page, and the token word is then never read or written through
 * vm_read_ram/vm_write_ram (token_ram_accesses stays 0).
 */
static bool direct;
static unsigned token_ram_accesses;

void *vm_pinned_page(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	assert_true(gpa < RAM_SIZE && pins[gpa / PAGE_SIZE] > 0);
	return direct ? ram + ALIGN_DOWN(gpa, PAGE_SIZE) : NULL;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	assert_ptr_equal(g, &vm);
	ram_reads++;
	token_ram_accesses += gpa == AREA + KVM_APF_AREA_TOKEN_OFFSET;
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	uint32_t w = 0;

	assert_ptr_equal(g, &vm);
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	token_ram_accesses += gpa == AREA + KVM_APF_AREA_TOKEN_OFFSET;
	if (gpa == AREA + KVM_APF_AREA_TOKEN_OFFSET && len == sizeof(w))
		memcpy(&w, src, sizeof(w));
	if (w && token_write == TOKEN_WRITE_FAILS)
		return -1;
	if (w && token_write == TOKEN_WRITE_LAPIC_RESET)
		vlapic_init_signal(&vm.plat[0].lapic);
	memcpy(ram + gpa, src, len);
	return 0;
}

int vm_pin_ram(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	if (gpa >= RAM_SIZE || pin_refused[gpa / PAGE_SIZE])
		return -1;
	pins[gpa / PAGE_SIZE]++;
	return 0;
}

void vm_unpin_ram(struct vm *g, uint64_t gpa)
{
	assert_ptr_equal(g, &vm);
	assert_true(gpa < RAM_SIZE && pins[gpa / PAGE_SIZE] > 0);
	pins[gpa / PAGE_SIZE]--;
}

/* Requests set for vCPU 0, and how many of them kicked it. */
static unsigned kicks, quiet_requests;

void vm_request_no_kick(struct vm *g, unsigned n, enum vcpu_request req)
{
	assert_ptr_equal(g, &vm);
	vm.plat[n].requests |= BIT(req);
	quiet_requests++;
}

void vm_request(struct vm *g, unsigned n, enum vcpu_request req)
{
	assert_ptr_equal(g, &vm);
	vm.plat[n].requests |= BIT(req);
	kicks++;
}

/* vm_fault_begin's view of guest RAM, under mem_lock. */
int guest_memory_read(const struct guest_memory *gm, uint64_t gpa, void *dst,
		      uint64_t len)
{
	assert_ptr_equal(gm, &vm.memory.ram);
	assert_true(spin_is_locked(&vm.memory.lock));
	return vm_read_ram(&vm, gpa, dst, len);
}

int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len)
{
	assert_ptr_equal(gm, &vm.memory.ram);
	assert_true(spin_is_locked(&vm.memory.lock));
	return vm_write_ram(&vm, gpa, src, len);
}

/* Faults begun, and the result the next one gets. */
static unsigned faults_begun;
static enum guest_fault_result fault_result;

/* swap.protect_kernel's note of the last swap-in fault's mode. */
static struct {
	unsigned calls;
	uint64_t gpa;
	bool kernel;
} mode_noted;

void guest_memory_note_fault_mode(struct guest_memory *gm, uint64_t gpa,
				  bool kernel)
{
	assert_ptr_equal(gm, &vm.memory.ram);
	mode_noted.calls++;
	mode_noted.gpa = gpa;
	mode_noted.kernel = kernel;
}

enum guest_fault_result swap_fault_begin_locked(struct swap_daemon *d,
						uint64_t gpa, unsigned vcpu)
{
	assert_ptr_equal(d, vm.memory.swap);
	assert_int_equal(vcpu, 0);
	assert_true(spin_is_locked(&vm.memory.lock));
	assert_false(spin_is_locked(&vm.plat[0].apf_lock));
	(void)gpa;
	faults_begun++;
	return fault_result;
}

/* ---- the guest ---- */

static struct vlapic *lapic(void)
{
	return &vm.plat[0].lapic;
}

static uint32_t area_word(uint64_t offset)
{
	uint32_t w;

	memcpy(&w, ram + AREA + offset, sizeof(w));
	return w;
}

static void set_area_word(uint64_t offset, uint32_t w)
{
	memcpy(ram + AREA + offset, &w, sizeof(w));
}

static void wrmsr(uint32_t msr, uint64_t value)
{
	if (!vm_apf_wrmsr(&vm, 0, msr, value))
		fail_msg("WRMSR 0x%x of 0x%llx: #GP", msr,
			 (unsigned long long)value);
}

/* kvm_guest_cpu_init: INT first, then EN. */
static void guest_enables(void)
{
	wrmsr(MSR_KVM_ASYNC_PF_INT, VECTOR);
	wrmsr(MSR_KVM_ASYNC_PF_EN, EN_ON);
	guest_apf_on = true;
}

/* kvm_guest_cpu_offline: EN = 0, nothing else of the area. */
static void guest_disables(void)
{
	wrmsr(MSR_KVM_ASYNC_PF_EN, 0);
	guest_apf_on = false;
}

/* A page-ready held (VM_PAGE_READY_HELD): retried before every entry. */
static bool held;

/*
 * What the vCPU loop does before an entry (vmx/vcpu_events.c,
 * vcpu_entry.h): VCPU_REQ_PAGE_READY's handler when the bit is set, or
 * the retry of a held page-ready; else nothing at all.
 */
static bool before_entry(void)
{
	enum vm_page_ready r;

	if (!(vm.plat[0].requests & BIT(VCPU_REQ_PAGE_READY)) && !held)
		return false;
	vm.plat[0].requests &= ~BIT(VCPU_REQ_PAGE_READY);
	r = vm_apf_page_ready(&vm, 0, guest_paging);
	held = r == VM_PAGE_READY_HELD;
	return r == VM_PAGE_READY_SENT;
}

/*
 * The guest runs with IF=1 and takes what its LAPIC has for it.
 * sysvec_kvm_asyncpf_interrupt: EOI, then, only if async PF is on, the
 * token is read, its sleeper woken, the word cleared and ACK written.
 * Every ACK exit is followed by an entry, which may send the next one.
 */
static void guest_takes_interrupts(void)
{
	int vector;

	while ((vector = vlapic_pending_vector(lapic())) >= 0) {
		vlapic_ack(lapic(), (uint8_t)vector);
		vlapic_wrmsr(lapic(), VLAPIC_MSR_EOI, 0, 0, NULL);
		if (vector != VECTOR || !guest_apf_on)
			continue;
		assert_true(nwoken < MAX_SEEN);
		woken[nwoken++] = area_word(KVM_APF_AREA_TOKEN_OFFSET);
		set_area_word(KVM_APF_AREA_TOKEN_OFFSET, 0);
		wrmsr(MSR_KVM_ASYNC_PF_ACK, KVM_ASYNC_PF_ACK_SLOT_FREE);
		before_entry();
	}
}

/* A user task touches gpa while its swap-in runs: "page not present". */
static uint32_t user_fault(uint64_t gpa)
{
	struct apf_guest_state gs = { .interrupts_enabled = true,
				      .paging = true, .cpl = 3 };
	struct vm_apf_try try = { 0 };

	fault_result = GUEST_FAULT_SWAPIN_STARTED;
	assert_int_equal(vm_fault_begin(&vm, 0, gpa, NULL, &gs, &try),
			 GUEST_FAULT_SWAPIN_STARTED);
	assert_int_not_equal(try.token, 0);
	assert_false(spin_is_locked(&vm.memory.lock));
	assert_int_equal(area_word(KVM_APF_AREA_FLAGS_OFFSET),
			 KVM_PV_REASON_PAGE_NOT_PRESENT);
	/* The guest's #PF handler reads and clears the reason. */
	set_area_word(KVM_APF_AREA_FLAGS_OFFSET, 0);
	return try.token;
}

/* The completion, on the CPU that harvested it, under mem_lock. */
static void swap_in_done(uint64_t gpa)
{
	spin_lock(&vm.memory.lock);
	vm_apf_page_settled(&vm, 0, gpa);
	spin_unlock(&vm.memory.lock);
	assert_false(spin_is_locked(&vm.plat[0].apf_lock));
}

static int setup(void **state)
{
	struct vlapic *a = &vm.plat[0].lapic;

	(void)state;
	memset(&vm, 0, sizeof(vm));
	memset(ram, 0, sizeof(ram));
	memset(pins, 0, sizeof(pins));
	held = false;
	kicks = quiet_requests = faults_begun = ram_reads = 0;
	direct = false;
	token_ram_accesses = 0;
	fault_result = GUEST_FAULT_SWAPIN_STARTED;
	memset(pin_refused, 0, sizeof(pin_refused));
	token_write = TOKEN_WRITE_OK;
	guest_paging = true;
	guest_apf_on = false;
	nwoken = 0;
	console_forget();
	vm.nvcpus = 1;
	vm.config.kvm_features =
		KVM_FEATURE_ASYNC_PF | KVM_FEATURE_ASYNC_PF_INT;
	vm.apf.env = (struct apf_msr_env){
		.kvm_features = vm.config.kvm_features,
		.guest_ram = { .low_size = RAM_SIZE },
	};
	apf_vcpu_init(&vm.plat[0].apf, 0);
	vlapic_init(a, 0, true, TSC_HZ);
	/* x2APIC, software-enabled, as Linux has it when EN is written. */
	vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE, a->apic_base | VLAPIC_BASE_EXTD,
		     0, NULL);
	vlapic_wrmsr(a, VLAPIC_MSR_SVR, 0x1ff, 0, NULL);
	return 0;
}

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
