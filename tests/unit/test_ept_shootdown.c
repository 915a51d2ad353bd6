/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ept/ept_shootdown.c: a client out of guest mode is never waited for nor
 * kicked; one in guest mode with an old generation is kicked once and
 * waited for; entering after a shootdown asks for a flush. Then the
 * handshake under real concurrency: after ept_shootdown_wait(gen) returns,
 * no client runs the guest with translations older than gen.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <cmocka.h>

#include "ept/ept_shootdown.h"

struct kick_log {
	struct ept_shootdown *s;
	unsigned kicks;
	bool exit_on_kick;
};

static void kick(void *ctx, unsigned n)
{
	struct kick_log *k = ctx;

	k->kicks++;
	if (k->exit_on_kick)
		ept_client_exit(&k->s->client[n]);
}

static void idle_clients_are_not_waited_for(void **state)
{
	struct ept_shootdown s;
	struct kick_log k = { &s, 0, false };
	uint64_t gen;

	(void)state;
	ept_shootdown_init(&s, 4, kick, &k);
	gen = ept_shootdown_begin(&s);
	assert_int_equal(gen, 1);
	ept_shootdown_wait(&s, gen);
	assert_int_equal(k.kicks, 0);
	assert_int_equal(s.shootdowns, 1);
}

static void running_client_is_kicked_and_waited_for(void **state)
{
	struct ept_shootdown s;
	struct kick_log k = { &s, 0, true };
	uint64_t gen, seen;

	(void)state;
	ept_shootdown_init(&s, 2, kick, &k);
	/* gen 0: no flush */
	assert_false(ept_client_enter(&s, &s.client[1], &seen));
	gen = ept_shootdown_begin(&s);
	ept_shootdown_wait(&s, gen);    /* returns: the kick made it exit */
	assert_int_equal(k.kicks, 1);
	assert_int_equal(s.kicks, 1);
	assert_false(s.client[1].in_guest);
	/* Its next entry must flush, and then not again. */
	assert_true(ept_client_enter(&s, &s.client[1], &seen));
	assert_int_equal(seen, gen);
	ept_client_flushed(&s.client[1], seen);
	ept_client_exit(&s.client[1]);
	assert_false(ept_client_enter(&s, &s.client[1], &seen));
}

static void flushed_client_is_not_kicked(void **state)
{
	struct ept_shootdown s;
	struct kick_log k = { &s, 0, false };
	uint64_t gen, seen;

	(void)state;
	ept_shootdown_init(&s, 1, kick, &k);
	gen = ept_shootdown_begin(&s);
	assert_true(ept_client_enter(&s, &s.client[0], &seen));
	ept_client_flushed(&s.client[0], seen);
	ept_shootdown_wait(&s, gen);    /* in guest, but up to date */
	assert_int_equal(k.kicks, 0);
}

static bool flush_ok(void *ctx)
{
	(*(unsigned *)ctx)++;
	return true;
}

static bool flush_fails(void *ctx)
{
	(*(unsigned *)ctx)++;
	return false;
}

/* A failed INVEPT: the vCPU must not enter, and must try again next time. */
static void failed_flush_keeps_client_out(void **state)
{
	struct ept_shootdown s;
	unsigned calls = 0;
	bool flushed;

	(void)state;
	ept_shootdown_init(&s, 1, NULL, NULL);
	ept_shootdown_begin(&s);
	assert_false(ept_client_enter_flushed(&s, &s.client[0],
					      flush_fails, &calls, &flushed));
	assert_false(flushed);
	assert_false(s.client[0].in_guest);
	assert_int_equal(s.client[0].flushed, 0);
	assert_true(ept_client_enter_flushed(&s, &s.client[0],
					     flush_ok, &calls, &flushed));
	assert_true(flushed);
	assert_true(s.client[0].in_guest);
	assert_int_equal(s.client[0].flushed, 1);
	ept_client_exit(&s.client[0]);
	/* Up to date: no second flush. */
	assert_true(ept_client_enter_flushed(&s, &s.client[0],
					     flush_fails, &calls, &flushed));
	assert_false(flushed);
	assert_int_equal(calls, 2);
}

/* ---- concurrency */

#define ROUNDS 20000

struct race {
	struct ept_shootdown s;
	volatile uint64_t running_with;  /* generation a "guest" runs with */
	volatile bool kicked, done;
	unsigned violations;
};

static void race_kick(void *ctx, unsigned n)
{
	(void)n;
	__atomic_store_n(&((struct race *)ctx)->kicked, true, __ATOMIC_SEQ_CST);
}

static void *vcpu_thread(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		uint64_t gen;

		if (ept_client_enter(&r->s, &r->s.client[0], &gen))
			ept_client_flushed(&r->s.client[0], gen);
		/* "VM entry": the guest now runs with translations of gen. */
		__atomic_store_n(&r->running_with, gen + 1, __ATOMIC_SEQ_CST);
		for (unsigned spin = 0; spin < 50 &&
		     !__atomic_load_n(&r->kicked, __ATOMIC_SEQ_CST); spin++)
			__builtin_ia32_pause();
		__atomic_store_n(&r->kicked, false, __ATOMIC_SEQ_CST);
		/* "VM exit" */
		__atomic_store_n(&r->running_with, 0, __ATOMIC_SEQ_CST);
		ept_client_exit(&r->s.client[0]);
	}
	return NULL;
}

static void no_stale_translation_survives_a_shootdown(void **state)
{
	struct race *r = calloc(1, sizeof(*r));
	pthread_t t;

	(void)state;
	assert_non_null(r);
	ept_shootdown_init(&r->s, 1, race_kick, r);
	assert_int_equal(pthread_create(&t, NULL, vcpu_thread, r), 0);
	for (unsigned i = 0; i < ROUNDS; i++) {
		uint64_t gen = ept_shootdown_begin(&r->s);
		uint64_t with;

		ept_shootdown_wait(&r->s, gen);
		with = __atomic_load_n(&r->running_with, __ATOMIC_SEQ_CST);
		if (with && with - 1 < gen)
			r->violations++;
	}
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	assert_int_equal(r->violations, 0);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(idle_clients_are_not_waited_for),
		cmocka_unit_test(running_client_is_kicked_and_waited_for),
		cmocka_unit_test(flushed_client_is_not_kicked),
		cmocka_unit_test(failed_flush_keeps_client_out),
		cmocka_unit_test(no_stale_translation_survives_a_shootdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
