/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A ticket lock: CPUs that contend get the lock in the order they asked
 * for it, so a vCPU spinning on the guest's memory lock cannot be starved
 * by the service CPU taking it again and again. The hypervisor runs with
 * interrupts off, so a holder is never preempted. Hardware-free: compiler
 * atomics and the PAUSE hint only, usable by the host unit tests too.
 */
#ifndef LIB_SPINLOCK_H
#define LIB_SPINLOCK_H

#include "lib/types.h"

struct spinlock {
	volatile uint32_t next;         /* ticket of the next CPU to ask */
	volatile uint32_t owner;        /* ticket that holds the lock */
};

static inline void spin_pause(void)
{
	__builtin_ia32_pause();
}

static inline void spin_lock(struct spinlock *l)
{
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		spin_pause();
}

/* Takes the lock only when nobody holds it or waits for it. */
static inline bool spin_trylock(struct spinlock *l)
{
	uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	uint32_t expect = owner;

	return __atomic_compare_exchange_n(&l->next, &expect, owner + 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&l->next, __ATOMIC_RELAXED);
}

#endif
