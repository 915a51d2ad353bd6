/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/msr.c, the guest's platform MSRs, over a fake guest RAM: #GP for
 * MSRs nobody claims and for refused values, the MTRR and MISC_ENABLE
 * state, the kvmclock records (where they are written, which pages stay
 * pinned, across a page boundary, past RAM), the routing of LAPIC and
 * async-PF MSRs to their owners, and that LAPIC writes (not reads) move
 * irq_gen, the vCPUs' cue to poll their interrupts again. The guest's TSC
 * (IA32_TSC, IA32_TSC_ADJUST) and what follows its offset: the
 * IA32_TSC_DEADLINE timer and the kvmclock record's tsc_timestamp. The
 * TSC here is the host's real one, so those checks allow for time going
 * on (at most SLACK cycles).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "apf/kvm_para.h"
#include "guest/cpuid.h"
#include "guest/kvmclock.h"
#include "guest/msr.h"
#include "guest/vm.h"

#define RAM_SIZE (64u << 10)
#define TSC_HZ 2500000000ull
#define E11 100000000000ull
#define E12 1000000000000ull
#define SLACK 10000000000ull            /* 4 s at TSC_HZ */
#define TIMER_VECTOR 0x40

static struct vm vm;
static uint8_t ram[RAM_SIZE];
static struct vlapic_ipi last_ipi;
static unsigned ipis, apf_writes;

/* ---- the rest of the VM, faked ---- */

#include "tests/unit/ram_pins_fake.h"

/* The area through vm_read_ram/vm_write_ram: no pinned-page pointer. */
void *vm_pinned_page(struct vm *g, uint64_t gpa)
{
	(void)g;
	(void)gpa;
	return NULL;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	assert_ptr_equal(g, &vm);
	if (gpa >= RAM_SIZE || RAM_SIZE - gpa < len)
		return -1;
	memcpy(ram + gpa, src, len);
	return 0;
}

void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	assert_ptr_equal(g, &vm);
	last_ipi = *ipi;
	ipis++;
}

void guest_level_eoi(struct vm *g, uint8_t vector)
{
	assert_ptr_equal(g, &vm);
	(void)vector;
}

bool vm_apf_wrmsr(struct vm *g, unsigned n, uint32_t msr, uint64_t value)
{
	(void)g;
	(void)n;
	apf_writes++;
	return msr == MSR_KVM_ASYNC_PF_EN && value == 0;
}

bool vm_apf_rdmsr(struct vm *g, unsigned n, uint32_t msr, uint64_t *value)
{
	(void)g;
	(void)n;
	(void)msr;
	*value = 0x1234;
	return true;
}

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	memset(ram, 0, sizeof(ram));
	ram_pins_reset();
	ipis = apf_writes = 0;
	vm.nvcpus = 2;
	vm.config.kvm_features = KVM_FEATURE_CLOCKSOURCE2 |
			  KVM_FEATURE_CLOCKSOURCE_STABLE_BIT;
	vm.clock.scale = pvclock_scale_for(TSC_HZ);
	vm.clock.start_epoch_sec = 1700000000;
	for (unsigned n = 0; n < vm.nvcpus; n++) {
		struct vlapic *a = &vm.plat[n].lapic;

		vcpu_msrs_init(&vm.plat[n].msrs);
		vlapic_init(a, n, n == 0, TSC_HZ);
		/* x2APIC mode, as a guest turns it on first */
		vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE,
			     a->apic_base | VLAPIC_BASE_EXTD, 0, NULL);
	}
	return 0;
}

static uint64_t rd(uint32_t msr)
{
	uint64_t v = 0xdead;

	assert_int_equal(guest_rdmsr(&vm, 0, msr, &v), MSR_HANDLED);
	return v;
}

static void wr(uint32_t msr, uint64_t v)
{
	if (guest_wrmsr(&vm, 0, msr, v) != MSR_HANDLED)
		fail_msg("WRMSR 0x%x of 0x%llx: #GP", msr,
			 (unsigned long long)v);
}

static void wr_gp(uint32_t msr, uint64_t v)
{
	assert_int_equal(guest_wrmsr(&vm, 0, msr, v), MSR_RAISE_GP);
}

/* ---- the tests ---- */

static void unclaimed_msrs_raise_gp(void **state)
{
	static const uint32_t unclaimed[] = {
		0x0, 0x10a, 0x428, 0x4000abcd, 0x4b564d05, 0xc0010000,
		0xc0000080,     /* EFER lives in vmx/exit_msr.c */
	};
	uint64_t v;

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(unclaimed); i++) {
		assert_int_equal(guest_rdmsr(&vm, 0, unclaimed[i], &v),
				 MSR_RAISE_GP);
		wr_gp(unclaimed[i], 0);
	}
	/* Read-only identification MSRs refuse writes. */
	wr_gp(MSR_IA32_MTRRCAP, 0);
	wr_gp(MSR_IA32_PLATFORM_ID, 0);
}

/*
 * The machine-check MSRs reach guest/mce.c (tests/unit/test_guest_mce.c
 * has their rules), per vCPU; FEATURE_CONTROL reads as a locking
 * firmware left it (Linux warns when it is not locked).
 */
static void machine_check_msrs(void **state)
{
	(void)state;
	assert_int_equal(rd(0x3a), BIT(0) | BIT(20));
	wr_gp(0x3a, BIT(0) | BIT(20));
	assert_int_equal(rd(0x179) & 0xff, 10);
	wr(0x17b, ~0ull);
	wr(0x425, 0);
	wr_gp(0x425, 1);
	wr(0x4d0, 1);
	assert_int_equal(rd(0x4d0), 1);
	assert_int_equal(vm.plat[0].msrs.mce.mcg_ext_ctl, 1);
	assert_int_equal(vm.plat[1].msrs.mce.mcg_ext_ctl, 0);
}

static void mtrrs_and_misc_enable(void **state)
{
	(void)state;
	assert_int_equal(rd(MSR_IA32_MTRRCAP), BIT(8) | BIT(10));
	assert_int_equal(rd(MSR_IA32_MTRR_DEF_TYPE), BIT(11) | 6);
	wr(MSR_IA32_MTRR_DEF_TYPE, BIT(11) | BIT(10) | 0x6);
	assert_int_equal(rd(MSR_IA32_MTRR_DEF_TYPE), BIT(11) | BIT(10) | 6);
	/* Reserved bits and reserved types: #GP, the value kept. */
	wr_gp(MSR_IA32_MTRR_DEF_TYPE, BIT(11) | 0x6 | BIT(20));
	wr_gp(MSR_IA32_MTRR_DEF_TYPE, BIT(11) | 0x2);
	wr_gp(MSR_IA32_MTRR_DEF_TYPE, BIT(11) | 0x7);
	assert_int_equal(rd(MSR_IA32_MTRR_DEF_TYPE), BIT(11) | BIT(10) | 6);
	wr(MSR_IA32_MTRR_FIX4K_FIRST + 3, 0x0605040106050400ull);
	assert_true(rd(MSR_IA32_MTRR_FIX4K_FIRST + 3) == 0x0605040106050400ull);
	wr_gp(MSR_IA32_MTRR_FIX64K, 0x08);
	wr_gp(MSR_IA32_MTRR_FIX64K, 0x0600000000000002ull);
	wr_gp(MSR_IA32_MTRR_FIX16K_80000, 0x0300000000000000ull);
	wr_gp(MSR_IA32_MTRR_FIX16K_A0000, 0x07);
	assert_int_equal(rd(MSR_IA32_MTRR_FIX64K), 0);
	assert_int_equal(rd(MSR_IA32_MISC_ENABLE) & 1, 1);  /* fast strings */
	wr(MSR_IA32_MISC_ENABLE, 0x801);
	assert_int_equal(rd(MSR_IA32_MISC_ENABLE), 0x801);
	wr(MSR_IA32_BIOS_SIGN_ID, 0);                   /* microcode probe */
	assert_int_equal(rd(MSR_IA32_BIOS_SIGN_ID), 0);
	assert_true(rd(MSR_IA32_TSC) > 0);
}

static struct pvclock_vcpu_time_info record_at(uint64_t gpa)
{
	struct pvclock_vcpu_time_info ti;

	memcpy(&ti, ram + gpa, sizeof(ti));
	return ti;
}

static void kvmclock_record_and_pins(void **state)
{
	struct pvclock_vcpu_time_info ti;

	(void)state;
	wr(MSR_KVM_SYSTEM_TIME_NEW, 0x1004 | 1);        /* 4-byte aligned */
	assert_int_equal(rd(MSR_KVM_SYSTEM_TIME_NEW), 0x1005);
	ti = record_at(0x1004);
	assert_true(ti.version && !(ti.version & 1));
	assert_true(ti.tsc_to_system_mul != 0);
	assert_int_equal(pins[1], 1);
	/* Moved across a page boundary: both pages pinned, the old freed. */
	wr(MSR_KVM_SYSTEM_TIME_NEW, 0x2ff0 | 1);
	assert_int_equal(pins[1], 0);
	assert_int_equal(pins[2], 1);
	assert_int_equal(pins[3], 1);
	ti = record_at(0x2ff0);
	assert_true(ti.version && !(ti.version & 1));
	assert_true(ti.tsc_to_system_mul != 0);
	/* Off: nothing pinned. */
	wr(MSR_KVM_SYSTEM_TIME_NEW, 0);
	assert_int_equal(pins[2] + pins[3], 0);
	/* Past RAM: #GP, nothing pinned, the MSR reads 0. */
	wr_gp(MSR_KVM_SYSTEM_TIME_NEW, RAM_SIZE | 1);
	assert_int_equal(rd(MSR_KVM_SYSTEM_TIME_NEW), 0);
	for (unsigned i = 0; i < ARRAY_SIZE(pins); i++)
		assert_int_equal(pins[i], 0);
	/* The last bytes of RAM: the record would run past them. */
	wr_gp(MSR_KVM_SYSTEM_TIME_NEW, (RAM_SIZE - 16) | 1);
	for (unsigned i = 0; i < ARRAY_SIZE(pins); i++)
		assert_int_equal(pins[i], 0);
}

static void kvmclock_wall_clock(void **state)
{
	uint32_t w[3];

	(void)state;
	wr(MSR_KVM_WALL_CLOCK_NEW, 0x4ffa);
	memcpy(w, ram + 0x4ffa, sizeof(w));
	assert_int_equal(w[0], 2);                      /* version */
	assert_int_equal(w[1], 1700000000);             /* sec */
	wr_gp(MSR_KVM_WALL_CLOCK_NEW, RAM_SIZE);
}

static void kvmclock_not_offered_is_gp(void **state)
{
	uint64_t v;

	(void)state;
	vm.config.kvm_features = 0;
	wr_gp(MSR_KVM_SYSTEM_TIME_NEW, 0x1000 | 1);
	wr_gp(MSR_KVM_WALL_CLOCK_NEW, 0x1000);
	assert_int_equal(guest_rdmsr(&vm, 0, MSR_KVM_SYSTEM_TIME_NEW, &v),
			 MSR_RAISE_GP);
	assert_int_equal(pins[1], 0);
}

static void lapic_and_async_pf_msrs_go_to_their_owners(void **state)
{
	uint64_t v;

	(void)state;
	/* x2APIC: (re)enable it, read the ID, send a fixed IPI to vCPU 1. */
	wr(VLAPIC_MSR_APIC_BASE, rd(VLAPIC_MSR_APIC_BASE) | BIT(10));
	assert_int_equal(rd(VLAPIC_MSR_ID), 0);
	assert_int_equal(guest_rdmsr(&vm, 1, VLAPIC_MSR_ID, &v), MSR_HANDLED);
	assert_int_equal(v, 1);
	wr(0x80f, 0x1ff);                               /* SVR: on */
	wr(VLAPIC_MSR_ICR, 1ull << 32 | 0x41);
	assert_int_equal(ipis, 1);
	assert_int_equal(last_ipi.vector, 0x41);
	assert_int_equal(last_ipi.dest, 1);
	/* The LAPIC's #GP is passed on: a register x2APIC does not have. */
	assert_int_equal(guest_rdmsr(&vm, 0, 0x801, &v), MSR_RAISE_GP);
	wr_gp(VLAPIC_MSR_ID, 5);                        /* read-only */
	/* Async PF: the owner's answer, whatever it is. */
	wr(MSR_KVM_ASYNC_PF_EN, 0);
	wr_gp(MSR_KVM_ASYNC_PF_EN, 1);
	assert_int_equal(apf_writes, 2);
	assert_int_equal(rd(MSR_KVM_ASYNC_PF_EN), 0x1234);
}

static void lapic_writes_move_irq_gen(void **state)
{
	uint64_t gen = vm.dev.irq_gen;

	(void)state;
	rd(VLAPIC_MSR_TSC_DEADLINE);
	rd(VLAPIC_MSR_PPR);
	assert_int_equal(vm.dev.irq_gen, gen);
	wr(VLAPIC_MSR_TSC_DEADLINE, 1000);      /* a new timer deadline */
	assert_int_equal(vm.dev.irq_gen, gen + 1);
	wr(VLAPIC_MSR_EOI, 0);                  /* the PPR may drop */
	assert_int_equal(vm.dev.irq_gen, gen + 2);
	/* MSRs of no device leave it. */
	wr(MSR_IA32_MTRR_DEF_TYPE, BIT(11) | 6);
	assert_int_equal(vm.dev.irq_gen, gen + 2);
}

/* ---- the guest's TSC ---- */

static void assert_near(uint64_t value, uint64_t from)
{
	if (value - from > SLACK)
		fail_msg("0x%llx is not just after 0x%llx",
			 (unsigned long long)value, (unsigned long long)from);
}

/* kvm_set_msr_common's rules: any value, per vCPU, ADJUST follows. */
static void tsc_and_tsc_adjust(void **state)
{
	const struct vcpu_tsc *t = &vm.plat[0].msrs.tsc;
	uint64_t before, v1;

	(void)state;
	assert_int_equal(rd(MSR_IA32_TSC_ADJUST), 0);
	before = rd(MSR_IA32_TSC);
	wr(MSR_IA32_TSC, E11);
	assert_near(rd(MSR_IA32_TSC), E11);
	/* ADJUST moved as much as the TSC: the offset, from 0. */
	assert_true(rd(MSR_IA32_TSC_ADJUST) == t->offset);
	assert_near(E11 - rd(MSR_IA32_TSC_ADJUST), before);
	/* vCPU 1 keeps the host's TSC. */
	assert_int_equal(guest_rdmsr(&vm, 1, MSR_IA32_TSC, &v1), MSR_HANDLED);
	assert_near(v1, before);
	assert_int_equal(vm.plat[1].msrs.tsc.offset, 0);
	/* ADJUST back to 0: the TSC moves back by as much. */
	wr(MSR_IA32_TSC_ADJUST, 0);
	assert_int_equal(t->offset, 0);
	assert_near(rd(MSR_IA32_TSC), before);
	wr(MSR_IA32_TSC_ADJUST, E12);
	assert_true(rd(MSR_IA32_TSC_ADJUST) == E12);
	assert_true(t->offset == E12);
	/* Back in time, below 0 (mod 2^64). */
	wr(MSR_IA32_TSC, 0);
	assert_near(rd(MSR_IA32_TSC), 0);
	assert_true(vcpu_tsc_guest(t, 0) > UINT64_MAX - before - SLACK);
}

static void timer_in_tsc_deadline_mode(void)
{
	wr(VLAPIC_MSR_SVR, 0x1ff);
	wr(VLAPIC_MSR_LVT_TIMER,
	   VLAPIC_TIMER_TSC_DEADLINE << VLAPIC_TIMER_MODE_SHIFT | TIMER_VECTOR);
}

static bool timer_fired(void)
{
	const struct vlapic *a = &vm.plat[0].lapic;

	return a->irr[TIMER_VECTOR / 32] & BIT(TIMER_VECTOR % 32);
}

/*
 * IA32_TSC_DEADLINE is a value of the guest's TSC: it reads back as
 * written, and the timer (on the host's TSC) comes due when the guest's
 * TSC reaches it, before and after the guest moves its TSC.
 */
static void tsc_deadline_with_an_offset(void **state)
{
	const struct vlapic *a = &vm.plat[0].lapic;
	uint64_t guest_now, host_now, deadline;

	(void)state;
	timer_in_tsc_deadline_mode();
	wr(MSR_IA32_TSC_ADJUST, E12);                   /* guest ahead */
	host_now = rdtsc();
	guest_now = rd(MSR_IA32_TSC);
	deadline = guest_now + 2 * SLACK;
	wr(VLAPIC_MSR_TSC_DEADLINE, deadline);
	assert_true(rd(VLAPIC_MSR_TSC_DEADLINE) == deadline);
	assert_near(a->tsc_deadline, host_now + 2 * SLACK);
	assert_false(timer_fired());
	/* The guest's TSC back by E12: the host deadline later by E12. */
	wr(MSR_IA32_TSC_ADJUST, 0);
	assert_true(rd(VLAPIC_MSR_TSC_DEADLINE) == deadline);
	assert_near(a->tsc_deadline, host_now + 2 * SLACK + E12);
	assert_false(timer_fired());
	/* The guest's TSC past the deadline: it fires, and reads 0. */
	wr(MSR_IA32_TSC, deadline + 1);
	assert_true(timer_fired());
	assert_int_equal(rd(VLAPIC_MSR_TSC_DEADLINE), 0);
}

/* A deadline the guest's TSC has passed fires at once (not in 2^64). */
static void tsc_deadline_in_the_guests_past(void **state)
{
	(void)state;
	timer_in_tsc_deadline_mode();
	wr(MSR_IA32_TSC_ADJUST, E12);
	wr(VLAPIC_MSR_TSC_DEADLINE, E12 / 2);   /* below the offset */
	assert_true(timer_fired());
	assert_int_equal(rd(VLAPIC_MSR_TSC_DEADLINE), 0);
	assert_int_equal(vm.plat[0].lapic.tsc_deadline, 0);
	/* 0 disarms, whatever the offset. */
	wr(VLAPIC_MSR_TSC_DEADLINE, 0);
	assert_int_equal(vm.plat[0].lapic.tsc_deadline, 0);
}

/*
 * The record's tsc_timestamp is the guest's TSC at its system_time: with
 * an offset, the guest computes the same time from its RDTSC. A TSC
 * write rewrites it for the same instant, so the clock does not jump.
 */
static void kvmclock_timestamp_follows_the_offset(void **state)
{
	struct pvclock_vcpu_time_info ti, ti2;
	uint64_t host_before, host_after;

	(void)state;
	vm.clock.start_tsc = rdtsc();
	wr(MSR_IA32_TSC_ADJUST, E12);
	host_before = rdtsc();
	wr(MSR_KVM_SYSTEM_TIME_NEW, 0x1000 | 1);
	host_after = rdtsc();
	ti = record_at(0x1000);
	assert_true(ti.tsc_timestamp >= host_before + E12 &&
		    ti.tsc_timestamp <= host_after + E12);
	assert_true(ti.system_time <=
		    pvclock_ticks_to_ns(host_after - vm.clock.start_tsc,
					vm.clock.scale));
	/* The TSC moves back by E12: only tsc_timestamp changes, by as much. */
	wr(MSR_IA32_TSC_ADJUST, 0);
	ti2 = record_at(0x1000);
	assert_int_equal(ti2.version, ti.version + 2);
	assert_true(ti2.tsc_timestamp == ti.tsc_timestamp - E12);
	assert_true(ti2.system_time == ti.system_time);
	assert_int_equal(ti2.tsc_to_system_mul, ti.tsc_to_system_mul);
	/* Without kvmclock on, a TSC write writes no record. */
	wr(MSR_KVM_SYSTEM_TIME_NEW, 0);
	wr(MSR_IA32_TSC, E11);
	assert_int_equal(record_at(0x1000).version, ti2.version);
	assert_int_equal(pins[1], 0);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(unclaimed_msrs_raise_gp),
		T(machine_check_msrs),
		T(mtrrs_and_misc_enable),
		T(kvmclock_record_and_pins),
		T(kvmclock_wall_clock),
		T(kvmclock_not_offered_is_gp),
		T(lapic_and_async_pf_msrs_go_to_their_owners),
		T(lapic_writes_move_irq_gen),
		T(tsc_and_tsc_adjust),
		T(tsc_deadline_with_an_offset),
		T(tsc_deadline_in_the_guests_past),
		T(kvmclock_timestamp_follows_the_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
