/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the guest's platform MSRs (guest/msr.c guest_rdmsr,
 * guest_wrmsr) with the kvmclock records (guest/kvmclock.c) and the
 * async-PF MSRs and shared area (guest/async_pf.c over apf/), for two
 * vCPUs of a VM whose 64 KiB of RAM come from the input (the first
 * bytes, zero-padded), the pins on its pages counted here.
 *
 * The rest of the input is a program of steps (fuzz_take): RDMSR or
 * WRMSR of either vCPU, of an MSR from a list (kvmclock, async PF, MTRRs,
 * MISC_ENABLE, the LAPIC's) or any number, with any value; an EPT
 * violation that may become "page not present" (any guest state), its
 * page's swap-in starting; the swap-ins of some pages ending (their
 * completion telling both vCPUs); the page-ready request's handler;
 * an INIT; pins starting or stopping to fail (a page that cannot come
 * back); time going on. KVM's features (kvmclock, async PF) come from the
 * first byte. At the end every vCPU turns kvmclock and async PF off, as a
 * guest shutting down does.
 *
 * Beyond the sanitizers' checks:
 *   - guest RAM is written only where the step names: the kvmclock record
 *     at the MSR's new address, the wall clock at the written address,
 *     the vCPU's async-PF area's two words;
 *   - a kvmclock record written has an even version, 2 more than the
 *     vCPU's last, the stable bit, and the MSR then reads what was
 *     written; a refused write leaves it reading 0 (nothing pinned) or
 *     the value (pinned, the record not written); without kvmclock
 *     offered it is #GP;
 *   - a refused WRMSR (#GP) of anything but kvmclock changes none of the
 *     vCPU's MSR state (nor its async-PF state); an RDMSR changes none;
 *   - IA32_TSC and IA32_TSC_ADJUST take any value; RDMSR IA32_TSC is the
 *     time plus the vCPU's offset, which moves with ADJUST; a TSC write
 *     rewrites the vCPU's kvmclock record (if on) and nothing else;
 *   - a "page not present" goes out only with async PF on, a token that
 *     is neither 0 nor the broadcast, and the reason in the area; a
 *     page-ready leaves a token in the area;
 *   - an unpin always matches an earlier pin of the same page, and once
 *     everything is off no page is pinned.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "apf/kvm_para.h"
#include "guest/async_pf.h"
#include "guest/cpuid.h"
#include "guest/kvmclock.h"
#include "guest/msr.h"
#include "guest/vm.h"
#include "lib/trace/trace.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_script.h"

#define RAM_SIZE (64u << 10)
#define PAGES (RAM_SIZE / PAGE_SIZE)
#define TSC_HZ 2000000000ull
#define VCPUS 2

static struct vm vm;
static uint8_t ram[RAM_SIZE];
static unsigned pins[PAGES];
static bool pins_fail, page_busy[PAGES];
static uint64_t now;

/* Where the step under way may write guest RAM: size bytes at lo (the
 * range may wrap around 2^64, as a guest-written address may). */
static struct {
	uint64_t lo, size;
} allowed[3];
static unsigned nallowed;

bool trace_on;

void trace_record(unsigned event, unsigned vcpu, uint64_t tsc,
		  const void *fields, unsigned len)
{
	(void)event;
	(void)vcpu;
	(void)tsc;
	(void)fields;
	(void)len;
}

/* Tracing stays off here: the clock is never read for a record. */
uint64_t trace_clock(void)
{
	return 0;
}

/* ---- the rest of the VM ---- */

uint64_t rdtsc(void)
{
	return now;
}

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

int vm_pin_ram(struct vm *g, uint64_t gpa)
{
	CHECK(g == &vm);
	if (gpa >= RAM_SIZE || pins_fail)
		return -1;
	pins[gpa / PAGE_SIZE]++;
	return 0;
}

void vm_unpin_ram(struct vm *g, uint64_t gpa)
{
	CHECK(g == &vm);
	CHECK(gpa < RAM_SIZE && pins[gpa / PAGE_SIZE] > 0);
	pins[gpa / PAGE_SIZE]--;
}

/* The area through vm_read_ram/vm_write_ram: no pinned-page pointer. */
void *vm_pinned_page(struct vm *g, uint64_t gpa)
{
	(void)g;
	(void)gpa;
	return NULL;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	CHECK(g == &vm);
	if (gpa >= RAM_SIZE || len > RAM_SIZE - gpa)
		return -1;
	memcpy(dst, ram + gpa, len);
	return 0;
}

/* A write into guest RAM: only where the step under way may write. */
static int write_ram(uint64_t gpa, const void *src, uint64_t len)
{
	bool ok = false;

	for (unsigned i = 0; i < nallowed; i++)
		ok |= gpa - allowed[i].lo <= allowed[i].size &&
		      len <= allowed[i].size - (gpa - allowed[i].lo);
	CHECK(ok);
	if (gpa >= RAM_SIZE || len > RAM_SIZE - gpa)
		return -1;
	memcpy(ram + gpa, src, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	CHECK(g == &vm);
	return write_ram(gpa, src, len);
}

/* vm_fault_begin's accesses, under mem_lock: RAM as vm_*_ram sees it. */
/* swap.protect_kernel is not this test's: the note goes nowhere. */
void guest_memory_note_fault_mode(struct guest_memory *gm, uint64_t gpa,
				  bool kernel)
{
	(void)gm;
	(void)gpa;
	(void)kernel;
}

int guest_memory_read(const struct guest_memory *gm, uint64_t gpa, void *dst,
		      uint64_t len)
{
	CHECK(gm == &vm.memory.ram);
	return vm_read_ram(&vm, gpa, dst, len);
}

int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len)
{
	CHECK(gm == &vm.memory.ram);
	return write_ram(gpa, src, len);
}

/* Every fault step is on a page whose swap-in starts (or is under way). */
enum guest_fault_result swap_fault_begin_locked(struct swap_daemon *d,
						uint64_t gpa, unsigned vcpu)
{
	CHECK(d == vm.memory.swap && vcpu < VCPUS);
	CHECK(spin_is_locked(&vm.memory.lock));
	if (gpa < RAM_SIZE)
		page_busy[gpa / PAGE_SIZE] = true;
	return GUEST_FAULT_SWAPIN_STARTED;
}

void vm_request(struct vm *g, unsigned n, enum vcpu_request req)
{
	CHECK(g == &vm && n < VCPUS && req == VCPU_REQ_PAGE_READY);
}

void vm_request_no_kick(struct vm *g, unsigned n, enum vcpu_request req)
{
	vm_request(g, n, req);
}

void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	CHECK(g == &vm);
	(void)ipi;
}

void guest_level_eoi(struct vm *g, uint8_t vector)
{
	CHECK(g == &vm);
	(void)vector;
}

/* ---- the steps ---- */

static const uint32_t msrs[] = {
	MSR_KVM_SYSTEM_TIME_NEW, MSR_KVM_WALL_CLOCK_NEW,
	MSR_KVM_SYSTEM_TIME_NEW, MSR_KVM_ASYNC_PF_EN, MSR_KVM_ASYNC_PF_INT,
	MSR_KVM_ASYNC_PF_ACK, MSR_KVM_ASYNC_PF_EN, MSR_IA32_TSC,
	MSR_IA32_TSC_ADJUST,
	MSR_IA32_PLATFORM_ID, MSR_IA32_BIOS_SIGN_ID, MSR_IA32_MTRRCAP,
	MSR_IA32_MISC_ENABLE, MSR_IA32_MTRR_FIX64K,
	MSR_IA32_MTRR_FIX16K_80000, MSR_IA32_MTRR_FIX16K_A0000,
	MSR_IA32_MTRR_FIX4K_FIRST, MSR_IA32_MTRR_FIX4K_LAST,
	MSR_IA32_MTRR_DEF_TYPE, VLAPIC_MSR_APIC_BASE, VLAPIC_MSR_TSC_DEADLINE,
	0x802, 0x808, 0x80b, 0x80f, 0x830, 0x838, 0x83f,
	0x4b564d00, 0x4b564d01, 0x4b564d03, 0x4b564d04, 0x11, 0x12,
};

static void allow(uint64_t gpa, uint64_t len)
{
	allowed[nallowed].lo = gpa;
	allowed[nallowed].size = len;
	nallowed++;
}

/* The async-PF area's two words of vCPU n may be written. */
static void allow_area(unsigned n)
{
	if (apf_enabled(&vm.plat[n].apf))
		allow(apf_area_gpa(&vm.plat[n].apf), KVM_APF_AREA_HOST_BYTES);
}

static void do_wrmsr(unsigned n, uint32_t msr, uint64_t value)
{
	struct vcpu_msrs before = vm.plat[n].msrs;
	struct apf_vcpu apf_before = vm.plat[n].apf;
	uint64_t read;
	enum msr_result r;

	nallowed = 0;
	if (msr == MSR_KVM_SYSTEM_TIME_NEW)
		allow(value & ~1ull, sizeof(struct pvclock_vcpu_time_info));
	if (msr == MSR_KVM_WALL_CLOCK_NEW)
		allow(value, sizeof(struct pvclock_wall_clock));
	/* An area newly in use gets its token word cleared. */
	if (msr == MSR_KVM_ASYNC_PF_EN)
		allow(value & ~0x3full, KVM_APF_AREA_HOST_BYTES);
	if (guest_msr_moves_tsc(msr) &&
	    (before.kvmclock_system_time & KVM_SYSTEM_TIME_ENABLE))
		allow(before.kvmclock_system_time & ~1ull,
		      sizeof(struct pvclock_vcpu_time_info));
	r = guest_wrmsr(&vm, n, msr, value);
	CHECK(r == MSR_HANDLED || r == MSR_RAISE_GP);
	if (guest_msr_moves_tsc(msr)) {
		const struct vcpu_tsc *t = &vm.plat[n].msrs.tsc;

		CHECK(r == MSR_HANDLED);
		CHECK(t->offset - before.tsc.offset ==
		      t->adjust - before.tsc.adjust);
		CHECK(guest_rdmsr(&vm, n, msr, &read) == MSR_HANDLED);
		CHECK(read == value);   /* the fake TSC stands still */
		return;
	}
	if (msr == MSR_KVM_SYSTEM_TIME_NEW) {
		const struct vcpu_msrs *m = &vm.plat[n].msrs;

		if (!(vm.config.kvm_features & KVM_FEATURE_CLOCKSOURCE2)) {
			CHECK(r == MSR_RAISE_GP);
		} else if (r == MSR_HANDLED && (value & 1)) {
			struct pvclock_vcpu_time_info ti;

			CHECK(m->kvmclock_version == before.kvmclock_version + 2);
			CHECK(m->kvmclock_system_time == value);
			CHECK(vm_read_ram(&vm, value & ~1ull, &ti,
					  sizeof(ti)) == 0);
			CHECK(ti.version == m->kvmclock_version);
			CHECK(ti.version % 2 == 0);
			CHECK(ti.flags & PVCLOCK_TSC_STABLE_BIT);
		}
		if (vm.config.kvm_features & KVM_FEATURE_CLOCKSOURCE2) {
			CHECK(guest_rdmsr(&vm, n, msr, &read) == MSR_HANDLED);
			CHECK(read == m->kvmclock_system_time);
			CHECK(r == MSR_HANDLED ? read == value :
			      read == 0 || read == value);
		}
		return;
	}
	if (r == MSR_RAISE_GP) {
		CHECK(!memcmp(&before, &vm.plat[n].msrs, sizeof(before)));
		if (apf_msr_is_async_pf(msr))
			CHECK(!memcmp(&apf_before, &vm.plat[n].apf,
				      sizeof(apf_before)));
	}
}

static void do_rdmsr(unsigned n, uint32_t msr)
{
	uint64_t value = 0x5a5a5a5a5a5a5a5aull;
	struct vcpu_msrs before = vm.plat[n].msrs;
	enum msr_result r;

	nallowed = 0;
	r = guest_rdmsr(&vm, n, msr, &value);
	CHECK(r == MSR_HANDLED || r == MSR_RAISE_GP);
	CHECK(!memcmp(&before, &vm.plat[n].msrs, sizeof(before)));
	if (r == MSR_HANDLED && msr == MSR_IA32_TSC)
		CHECK(value == now + vm.plat[n].msrs.tsc.offset);
}

/* An EPT violation on a page being swapped in. */
static void fault(struct fuzz_script *in, unsigned n)
{
	unsigned bits = (unsigned)fuzz_take(in, 1);
	struct apf_guest_state gs = {
		.event_in_delivery = bits & 1,
		.exception_pending = bits & 2,
		.interrupts_enabled = bits & 4,
		.interrupt_shadow = bits & 8,
		.paging = bits & 16,
		.cpl = (bits >> 5) & 3,
	};
	uint64_t gpa = fuzz_take(in, 3);
	struct vm_apf_try try;

	nallowed = 0;
	allow_area(n);
	vm_fault_begin(&vm, n, gpa, NULL, &gs, &try);
	CHECK(!spin_is_locked(&vm.memory.lock));
	if (try.token) {
		uint32_t flags;

		CHECK(apf_enabled(&vm.plat[n].apf));
		CHECK(try.token != KVM_APF_TOKEN_WAKE_ALL);
		CHECK(vm_read_ram(&vm, apf_area_gpa(&vm.plat[n].apf) +
				  KVM_APF_AREA_FLAGS_OFFSET, &flags, 4) == 0);
		CHECK(flags == KVM_PV_REASON_PAGE_NOT_PRESENT);
	}
}

static void page_ready(unsigned n)
{
	uint64_t area = apf_area_gpa(&vm.plat[n].apf);
	uint32_t token;

	nallowed = 0;
	allow_area(n);
	if (vm_apf_page_ready(&vm, n, true) == VM_PAGE_READY_SENT) {
		CHECK(vm_read_ram(&vm, area + KVM_APF_AREA_TOKEN_OFFSET, &token,
				  4) == 0);
		CHECK(token != 0);
	}
}

static void vm_reset(void)
{
	memset(&vm, 0, sizeof(vm));
	memset(pins, 0, sizeof(pins));
	memset(page_busy, 0, sizeof(page_busy));
	pins_fail = false;
	now = 1000000;
	vm.nvcpus = VCPUS;
	vm.clock.scale = pvclock_scale_for(TSC_HZ);
	vm.clock.start_tsc = now;
	vm.clock.start_epoch_sec = 1700000000;
	for (unsigned n = 0; n < VCPUS; n++) {
		vcpu_msrs_init(&vm.plat[n].msrs);
		vlapic_init(&vm.plat[n].lapic, n, n == 0, TSC_HZ);
		apf_vcpu_init(&vm.plat[n].apf, n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	unsigned features;

	vm_reset();
	features = (unsigned)fuzz_take(&in, 1);
	vm.config.kvm_features = (features & 1 ? KVM_FEATURE_CLOCKSOURCE2 |
			   KVM_FEATURE_CLOCKSOURCE_STABLE_BIT : 0) |
			  (features & 2 ? KVM_FEATURE_ASYNC_PF |
			   KVM_FEATURE_ASYNC_PF_INT : 0);
	vm.apf.env = (struct apf_msr_env){
		.kvm_features = vm.config.kvm_features,
		.guest_ram = { .low_size = features & 4 ? RAM_SIZE :
						      RAM_SIZE / 2 },
	};
	/* The guest's RAM: a length, then that many bytes. */
	{
		size_t len = (size_t)fuzz_take(&in, 2);

		if (len > in.left)
			len = in.left;
		memset(ram, 0, sizeof(ram));
		memcpy(ram, in.p, len < RAM_SIZE ? len : RAM_SIZE);
		in.p += len;
		in.left -= len;
	}
	while (in.left) {
		unsigned op = (unsigned)fuzz_take(&in, 1), n = (op >> 3) & 1;
		uint32_t msr;

		switch (op & 7) {
		case 0:
		case 1:
			msr = op & 0x80 ? (uint32_t)fuzz_take(&in, 4) :
			      msrs[fuzz_take(&in, 1) % ARRAY_SIZE(msrs)];
			if (op & 1)
				do_rdmsr(n, msr);
			else
				do_wrmsr(n, msr, fuzz_take(&in, 8));
			break;
		case 2:
			fault(&in, n);
			break;
		case 3: {               /* a swap-in ends (or starts) */
			unsigned page = (unsigned)fuzz_take(&in, 1) % PAGES;

			if (page_busy[page] && !(op & 0x10))
				for (unsigned w = 0; w < VCPUS; w++)
					vm_apf_page_settled(&vm, w,
							    page * PAGE_SIZE);
			page_busy[page] = op & 0x10;
			break;
		}
		case 4:
			page_ready(n);
			break;
		case 5:
			nallowed = 0;
			vm_apf_reset(&vm, n);
			CHECK(!apf_enabled(&vm.plat[n].apf));
			break;
		case 6:
			pins_fail = op & 0x10;
			break;
		case 7:
			now += fuzz_take(&in, 4);
			break;
		}
	}
	/* Everything off: no page stays pinned. */
	pins_fail = false;
	for (unsigned n = 0; n < VCPUS; n++) {
		nallowed = 0;
		guest_wrmsr(&vm, n, MSR_KVM_SYSTEM_TIME_NEW, 0);
		guest_wrmsr(&vm, n, MSR_KVM_ASYNC_PF_EN, 0);
		CHECK(!apf_enabled(&vm.plat[n].apf));
	}
	for (unsigned i = 0; i < PAGES; i++)
		CHECK(pins[i] == 0);
	return 0;
}
