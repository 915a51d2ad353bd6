/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * lib/spinlock.h, the ticket lock: mutual exclusion under real threads (few
 * and short: on a loaded host a preempted ticket holder stalls the rest),
 * trylock only when free, and FIFO order: CPUs get the lock in the order
 * they took tickets (the fairness the guest memory lock relies on).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <cmocka.h>

#include "lib/spinlock.h"

#define THREADS 2
#define ITERATIONS 2000

static struct spinlock lock;
static uint64_t counter;

static void *hammer(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < ITERATIONS; i++) {
		spin_lock(&lock);
		counter++;              /* not atomic: the lock protects it */
		spin_unlock(&lock);
	}
	return NULL;
}

static void excludes(void **state)
{
	pthread_t t[THREADS];

	(void)state;
	for (unsigned i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, NULL), 0);
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(counter, (uint64_t)THREADS * ITERATIONS);
	assert_false(spin_is_locked(&lock));
}

static void trylock_only_when_free(void **state)
{
	struct spinlock l = { 0, 0 };

	(void)state;
	assert_true(spin_trylock(&l));
	assert_true(spin_is_locked(&l));
	assert_false(spin_trylock(&l));
	spin_unlock(&l);
	assert_false(spin_is_locked(&l));
	assert_true(spin_trylock(&l));
	spin_unlock(&l);
}

/* Ticket order: waiters are served first come, first served. */
static struct spinlock fifo_lock;
static volatile unsigned order[3], served;

static void *take_in_turn(void *arg)
{
	spin_lock(&fifo_lock);
	order[served++] = (unsigned)(uintptr_t)arg;
	spin_unlock(&fifo_lock);
	return NULL;
}

static void first_come_first_served(void **state)
{
	pthread_t t[2];

	(void)state;
	spin_lock(&fifo_lock);
	/* Thread 1 takes its ticket before thread 2 exists. */
	assert_int_equal(pthread_create(&t[0], NULL, take_in_turn,
					(void *)(uintptr_t)1), 0);
	while (__atomic_load_n(&fifo_lock.next, __ATOMIC_ACQUIRE) < 2)
		;
	assert_int_equal(pthread_create(&t[1], NULL, take_in_turn,
					(void *)(uintptr_t)2), 0);
	while (__atomic_load_n(&fifo_lock.next, __ATOMIC_ACQUIRE) < 3)
		;
	order[served++] = 0;
	spin_unlock(&fifo_lock);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(excludes),
		cmocka_unit_test(trylock_only_when_free),
		cmocka_unit_test(first_come_first_served),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
