/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The harness of tests/unit/test_guest_apf.c, its only includer: the rest
 * of the VM faked around guest/async_pf.c (guest RAM, pins, requests, the
 * fault path), a model of Linux 6.1's guest side, and the setups. Kept
 * apart so that the test file holds the tests. Not a general header: it
 * defines the fakes the test binary links against.
 */
#ifndef TESTS_UNIT_GUEST_APF_HARNESS_H
#define TESTS_UNIT_GUEST_APF_HARNESS_H

#define RAM_SIZE (64u << 10)
#define TSC_HZ 2500000000ull
#define AREA 0x2040ull                  /* 64-byte aligned, page 2 */
#define VECTOR 0xf3u
#define EN_ON (AREA | KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT)
#define MAX_SEEN 16

static struct vm vm;
static uint8_t ram[RAM_SIZE];

#include "tests/unit/ram_pins_fake.h"

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
	ram_pins_reset();
	held = false;
	kicks = quiet_requests = faults_begun = ram_reads = 0;
	direct = false;
	token_ram_accesses = 0;
	fault_result = GUEST_FAULT_SWAPIN_STARTED;
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

#endif
