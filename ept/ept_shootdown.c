// SPDX-License-Identifier: BSD-2-Clause
#include "ept/ept_shootdown.h"
#include "lib/trace/trace.h"

void ept_shootdown_init(struct ept_shootdown *s, unsigned nclients,
			void (*kick)(void *ctx, unsigned n), void *kick_ctx)
{
	*s = (struct ept_shootdown){
		.nclients = MIN(nclients, EPT_SHOOTDOWN_MAX_CLIENTS),
		.kick = kick,
		.kick_ctx = kick_ctx,
	};
}

uint64_t ept_shootdown_begin(struct ept_shootdown *s)
{
	s->shootdowns++;
	return __atomic_add_fetch(&s->generation, 1, __ATOMIC_SEQ_CST);
}

static bool must_wait_for(struct ept_client *c, uint64_t gen)
{
	return __atomic_load_n(&c->in_guest, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&c->flushed, __ATOMIC_ACQUIRE) < gen;
}

void ept_shootdown_wait(struct ept_shootdown *s, uint64_t gen)
{
	uint64_t waited = 0;            /* the clients still in guest mode */

	for (unsigned n = 0; n < s->nclients; n++) {
		struct ept_client *c = &s->client[n];
		bool kicked = false;

		while (must_wait_for(c, gen)) {
			if (!kicked && s->kick) {
				s->kick(s->kick_ctx, n);
				s->kicks++;
			}
			kicked = true;
			__builtin_ia32_pause();
		}
		if (kicked)
			waited |= 1ull << n;
	}
	trace_shootdown(TRACE_NO_VCPU, gen, waited);
}

