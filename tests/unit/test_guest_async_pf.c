/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * guest/async_pf.c, the VM's side of the async-PF MSRs, over a fake guest
 * RAM that counts the pins on its pages: the shared area's page is pinned
 * while the protocol is on and given back when it goes off, moves or an
 * INIT comes; a pin that failed (a page that could not come back) is never
 * given back in its place -- that unpin took another holder's pin of the
 * page, a kvmclock record's (found by tests/fuzz/fuzz_guest_msr.c) -- and
 * is tried again at the next write.
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
#define EN_INT (KVM_ASYNC_PF_ENABLED | KVM_ASYNC_PF_DELIVERY_AS_INT)

static struct vm vm;

#include "tests/unit/ram_pins_fake.h"

/* The area through vm_read_ram/vm_write_ram: no pinned-page pointer. */
void *vm_pinned_page(struct vm *g, uint64_t gpa)
{
	(void)g;
	(void)gpa;
	return NULL;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	(void)g;
	(void)gpa;
	memset(dst, 0, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	(void)g;
	(void)gpa;
	(void)src;
	(void)len;
	return 0;
}

/* No fault is begun, nothing completes: only the MSRs are tried. */
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
	(void)gm;
	(void)gpa;
	(void)dst;
	(void)len;
	fail_msg("guest_memory_read");
	return -1;
}

int guest_memory_write(struct guest_memory *gm, uint64_t gpa, const void *src,
		       uint64_t len)
{
	return guest_memory_read(gm, gpa, (void *)(uintptr_t)src, len);
}

enum guest_fault_result swap_fault_begin_locked(struct swap_daemon *d,
						uint64_t gpa, unsigned vcpu)
{
	(void)d;
	(void)gpa;
	(void)vcpu;
	fail_msg("swap_fault_begin_locked");
	return GUEST_FAULT_RESOLVED;
}

void vm_request(struct vm *g, unsigned n, enum vcpu_request req)
{
	(void)g;
	(void)n;
	(void)req;
}

void vm_request_no_kick(struct vm *g, unsigned n, enum vcpu_request req)
{
	vm_request(g, n, req);
}

static int setup(void **state)
{
	(void)state;
	memset(&vm, 0, sizeof(vm));
	ram_pins_reset();
	console_forget();
	vm.nvcpus = 1;
	vm.config.kvm_features =
		KVM_FEATURE_ASYNC_PF | KVM_FEATURE_ASYNC_PF_INT;
	vm.apf.env = (struct apf_msr_env){
		.kvm_features = vm.config.kvm_features,
		.guest_ram = { .low_size = RAM_SIZE },
	};
	apf_vcpu_init(&vm.plat[0].apf, 0);
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_INT, 0xec));
	return 0;
}

static void area_pinned_while_on(void **state)
{
	(void)state;
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x3000 | EN_INT));
	assert_int_equal(pins[3], 1);
	/* Moved: the old page given back, the new one pinned. */
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x4040 | EN_INT));
	assert_int_equal(pins[3], 0);
	assert_int_equal(pins[4], 1);
	/* Written again at the same place: nothing changes. */
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x4040 | EN_INT));
	assert_int_equal(pins[4], 1);
	/* INIT turns it off. */
	vm_apf_reset(&vm, 0);
	assert_int_equal(pins[4], 0);
}

static void failed_pin_never_given_back(void **state)
{
	(void)state;
	/* Another holder (a kvmclock record) pins page 3. */
	pins[3] = 1;
	pins_refused = true;
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x3000 | EN_INT));
	assert_int_equal(console_nlines, 1);    /* "not pinned" */
	pins_refused = false;
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0));
	assert_int_equal(pins[3], 1);           /* the other holder's pin */
	/* The same through an INIT. */
	pins_refused = true;
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x3000 | EN_INT));
	pins_refused = false;
	vm_apf_reset(&vm, 0);
	assert_int_equal(pins[3], 1);
}

static void failed_pin_tried_again(void **state)
{
	(void)state;
	pins_refused = true;
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x5000 | EN_INT));
	assert_int_equal(pins[5], 0);
	pins_refused = false;
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0x5000 | EN_INT));
	assert_int_equal(pins[5], 1);
	assert_true(vm_apf_wrmsr(&vm, 0, MSR_KVM_ASYNC_PF_EN, 0));
	assert_int_equal(pins[5], 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
	const struct CMUnitTest tests[] = {
		T(area_pinned_while_on),
		T(failed_pin_never_given_back),
		T(failed_pin_tried_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
