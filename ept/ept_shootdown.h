/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * EPT shootdown: after pages were unmapped, no CPU may go on using a
 * cached translation of them (SDM Vol. 3C, 29.4.3.1: EPT translations
 * are cached per EPTP and survive until INVEPT). Each vCPU is a client:
 *
 *   shootdown side                      vCPU side (before each VM entry)
 *   gen = ept_shootdown_begin()         ept_client_enter(): publish "in guest",
 *   ept_shootdown_wait(gen): for each     read the generation; if it moved,
 *     client in guest mode that has       INVEPT, then ept_client_flushed()
 *     not flushed up to gen, kick it
 *     once and wait                     ept_client_exit() after the VM exit
 *
 * Dekker-style: the client publishes in_guest before it reads the
 * generation, the shooter publishes the generation before it reads
 * in_guest (both sequentially consistent), so either the client sees the
 * new generation and flushes, or the shooter sees it in guest mode and
 * waits for it. No lock is held across the wait: the caller of
 * ept_shootdown_wait must not hold a lock that a vCPU takes before it
 * can exit and enter again.
 */
#ifndef EPT_EPT_SHOOTDOWN_H
#define EPT_EPT_SHOOTDOWN_H

#include "lib/types.h"

#define EPT_SHOOTDOWN_MAX_CLIENTS 64

struct ept_client {
	volatile bool in_guest;         /* between VM entry and exit */
	volatile uint64_t flushed;      /* generation flushed up to */
};

struct ept_shootdown {
	volatile uint64_t generation;
	unsigned nclients;
	struct ept_client client[EPT_SHOOTDOWN_MAX_CLIENTS];
	/* Makes client n leave guest mode soon (a request and an IPI). */
	void (*kick)(void *ctx, unsigned n);
	void *kick_ctx;
	uint64_t shootdowns;            /* generations started */
	uint64_t kicks;                 /* clients that had to be kicked */
};

void ept_shootdown_init(struct ept_shootdown *s, unsigned nclients,
			void (*kick)(void *ctx, unsigned n), void *kick_ctx);

/* Starts a new generation; returns it for ept_shootdown_wait. */
uint64_t ept_shootdown_begin(struct ept_shootdown *s);

/*
 * Returns once every client is out of guest mode or has flushed up to gen.
 * The client of the calling CPU (if any) is in root mode, so it is never
 * waited for: it flushes before its next entry.
 */
void ept_shootdown_wait(struct ept_shootdown *s, uint64_t gen);

/*
 * The client side runs around every VM entry and exit: inline, and on the
 * client's own slot (found once, ept_shootdown_client).
 */
static inline struct ept_client *ept_shootdown_client(struct ept_shootdown *s,
						      unsigned n)
{
	return &s->client[n];
}

/*
 * Client c of s enters guest mode: true when it must flush (INVEPT) first
 * and then call ept_client_flushed with *gen.
 */
static inline bool ept_client_enter(struct ept_shootdown *s,
				    struct ept_client *c, uint64_t *gen)
{
	__atomic_store_n(&c->in_guest, true, __ATOMIC_SEQ_CST);
	*gen = __atomic_load_n(&s->generation, __ATOMIC_SEQ_CST);
	return c->flushed != *gen;
}

static inline void ept_client_flushed(struct ept_client *c, uint64_t gen)
{
	__atomic_store_n(&c->flushed, gen, __ATOMIC_RELEASE);
}

static inline void ept_client_exit(struct ept_client *c)
{
	__atomic_store_n(&c->in_guest, false, __ATOMIC_RELEASE);
}

/*
 * ept_client_enter and, when needed, flush(ctx) (the INVEPT) and
 * ept_client_flushed. When the flush fails the client is taken out of
 * guest mode again, is not marked flushed, and false says so: the caller
 * must not enter the guest (stale translations could survive).
 */
static inline bool ept_client_enter_flushed(struct ept_shootdown *s,
					    struct ept_client *c,
					    bool (*flush)(void *ctx),
					    void *ctx, bool *flushed)
{
	uint64_t gen;

	*flushed = false;
	if (!ept_client_enter(s, c, &gen))
		return true;
	if (!flush(ctx)) {
		ept_client_exit(c);
		return false;
	}
	ept_client_flushed(c, gen);
	*flushed = true;
	return true;
}

#endif
