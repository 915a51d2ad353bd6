/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * vmx/exit_stats.c: the root-mode time from an exit to the next entry, and
 * its part until the handler returned, are charged to that exit's reason
 * (once, however many entries are retried), or to its detail, which the
 * walker adds back into the reason's figures,
 * and the walker sums the vCPUs and names every counter from the one list
 * of exit reasons.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/counters_seen.h"

#include "vmx/exit_stats.h"

struct fake_vcpu {
	char before[40];
	struct exit_stats exit;
};

/* One exit: exited at `out`, handled by `done`, entered again at `in`. */
static void one_exit(struct exit_stats *s, unsigned reason, uint64_t out,
		     uint64_t done, uint64_t in)
{
	exit_stats_exited(s, out);
	exit_stats_reason(s, reason);
	exit_stats_handled(s, done);
	exit_stats_entering(s, in);
}

static void intervals_go_to_their_reason(void **state)
{
	struct exit_stats s = { 0 };

	(void)state;
	exit_stats_init(&s);
	/* The first entry closes nothing. */
	exit_stats_entering(&s, 50);
	one_exit(&s, VMX_EXIT_CPUID, 100, 200, 220);
	one_exit(&s, VMX_EXIT_CPUID, 1000, 1050, 1080);
	one_exit(&s, VMX_EXIT_EPT_VIOLATION, 2000, 2800, 2900);
	/* A retried entry: only the first entry after the exit counts. */
	exit_stats_exited(&s, 3000);
	exit_stats_reason(&s, VMX_EXIT_HLT);
	exit_stats_handled(&s, 3400);
	exit_stats_entering(&s, 3500);
	exit_stats_entering(&s, 9999);
	/* A reason beyond the table is neither counted nor timed. */
	exit_stats_exited(&s, 10000);
	exit_stats_reason(&s, VMX_EXIT_REASON_MAX + 3);
	exit_stats_handled(&s, 10050);
	exit_stats_entering(&s, 10100);
	assert_int_equal(s.count[VMX_EXIT_CPUID], 2);
	assert_int_equal(s.root_tsc[VMX_EXIT_CPUID], 120 + 80);
	assert_int_equal(s.handler_tsc[VMX_EXIT_CPUID], 100 + 50);
	assert_int_equal(s.count[VMX_EXIT_EPT_VIOLATION], 1);
	assert_int_equal(s.root_tsc[VMX_EXIT_EPT_VIOLATION], 900);
	assert_int_equal(s.count[VMX_EXIT_HLT], 1);
	assert_int_equal(s.root_tsc[VMX_EXIT_HLT], 500);
	assert_int_equal(s.handler_tsc[VMX_EXIT_HLT], 400);
	assert_int_equal(s.handler_tsc[VMX_EXIT_EPT_VIOLATION], 800);
}

static void walker_sums_vcpus_and_names_reasons(void **state)
{
	struct fake_vcpu v[2] = { 0 };
	struct seen s = { "" };

	(void)state;
	exit_stats_init(&v[0].exit);
	exit_stats_init(&v[1].exit);
	one_exit(&v[0].exit, VMX_EXIT_CPUID, 0, 60, 100);
	one_exit(&v[1].exit, VMX_EXIT_CPUID, 0, 70, 140);
	one_exit(&v[1].exit, VMX_EXIT_INVD, 10, 12, 15);
	exit_stats_each(&v[0].exit, 2, sizeof(v[0]), record, &s);
	/* Core reasons always appear; others (INVD) only when they occurred. */
	assert_string_equal(s.text,
			    "exits.total=3;"
			    "exit.cpuid=2;exit.cpuid.root_tsc=240;"
			    "exit.cpuid.handler_tsc=130;"
			    "exit.hlt=0;exit.hlt.root_tsc=0;"
			    "exit.hlt.handler_tsc=0;"
			    "exit.invd=1;exit.invd.root_tsc=5;"
			    "exit.invd.handler_tsc=2;"
			    "exit.io=0;exit.io.root_tsc=0;exit.io.handler_tsc=0;"
			    "exit.io.in=0;exit.io.in.root_tsc=0;"
			    "exit.io.in.handler_tsc=0;"
			    "exit.io.out=0;exit.io.out.root_tsc=0;"
			    "exit.io.out.handler_tsc=0;"
			    "exit.rdmsr=0;exit.rdmsr.root_tsc=0;"
			    "exit.rdmsr.handler_tsc=0;"
			    "exit.wrmsr=0;exit.wrmsr.root_tsc=0;"
			    "exit.wrmsr.handler_tsc=0;"
			    "exit.ept_violation=0;"
			    "exit.ept_violation.root_tsc=0;"
			    "exit.ept_violation.handler_tsc=0;"
			    "exit.ept_violation.mmio=0;"
			    "exit.ept_violation.mmio.root_tsc=0;"
			    "exit.ept_violation.mmio.handler_tsc=0;"
			    "exit.ept_violation.memory=0;"
			    "exit.ept_violation.memory.root_tsc=0;"
			    "exit.ept_violation.memory.handler_tsc=0;");
}

static void io_direction_is_a_detail_of_io(void **state)
{
	struct exit_stats s = { 0 };
	struct seen seen = { "" };

	(void)state;
	exit_stats_init(&s);
	exit_stats_exited(&s, 0);
	exit_stats_reason(&s, VMX_EXIT_IO);
	exit_stats_detail(&s, EXIT_DETAIL_IO_OUT);
	exit_stats_handled(&s, 900);
	exit_stats_entering(&s, 1000);
	exit_stats_exited(&s, 2000);
	exit_stats_reason(&s, VMX_EXIT_IO);
	exit_stats_detail(&s, EXIT_DETAIL_IO_IN);
	exit_stats_handled(&s, 2060);
	exit_stats_entering(&s, 2100);
	/* The next exit carries no detail over from the last one. */
	one_exit(&s, VMX_EXIT_CPUID, 3000, 3050, 3100);
	/* An exit without a detail stays with its reason. */
	one_exit(&s, VMX_EXIT_IO, 4000, 4010, 4020);
	exit_stats_each(&s, 1, sizeof(s), record, &seen);
	/* The reason's figures include its details'. */
	assert_non_null(strstr(seen.text, "exit.io=3;exit.io.root_tsc=1120;"
					  "exit.io.handler_tsc=970;"));
	assert_non_null(strstr(seen.text, "exit.cpuid=1;"
					  "exit.cpuid.root_tsc=100;"
					  "exit.cpuid.handler_tsc=50;"));
	assert_int_equal(s.count[VMX_EXIT_REASON_MAX + EXIT_DETAIL_IO_IN], 1);
	assert_int_equal(s.root_tsc[VMX_EXIT_REASON_MAX + EXIT_DETAIL_IO_IN],
			 100);
	assert_int_equal(
		s.handler_tsc[VMX_EXIT_REASON_MAX + EXIT_DETAIL_IO_IN], 60);
	assert_int_equal(s.root_tsc[VMX_EXIT_REASON_MAX + EXIT_DETAIL_IO_OUT],
			 1000);
	assert_int_equal(
		s.handler_tsc[VMX_EXIT_REASON_MAX + EXIT_DETAIL_IO_OUT], 900);
	assert_int_equal(s.count[VMX_EXIT_REASON_MAX + EXIT_DETAIL_IO_OUT], 1);
}

static void names_come_from_the_list(void **state)
{
	(void)state;
	assert_string_equal(vmx_exit_reason_name(VMX_EXIT_CPUID), "cpuid");
	assert_string_equal(vmx_exit_reason_name(VMX_EXIT_XRSTORS), "xrstors");
	assert_int_equal(VMX_EXIT_PREEMPTION_TIMER, 52);
	assert_string_equal(vmx_exit_reason_name(5), "unknown");
	assert_string_equal(vmx_exit_reason_name(VMX_EXIT_REASON_MAX),
			    "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intervals_go_to_their_reason),
		cmocka_unit_test(walker_sums_vcpus_and_names_reasons),
		cmocka_unit_test(io_direction_is_a_detail_of_io),
		cmocka_unit_test(names_come_from_the_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
