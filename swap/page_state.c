// SPDX-License-Identifier: BSD-2-Clause
/* The tables of swap/page_state.h, generated from its two lists. */
#include "swap/page_state.h"

static const struct {
	const char *name;
	const char *counter;
	bool has_frame;
} states[GUEST_PAGE_STATES] = {
#define STATE_ROW(name_, label, frame, what)                                 \
	[PAGE_##name_] = { #label, "pages." #label, frame },
	GUEST_PAGE_STATE_LIST(STATE_ROW)
#undef STATE_ROW
};

/* The per-page state array holds a byte. */
_Static_assert(GUEST_PAGE_STATES <= 256, "a state fits a byte");

static bool valid(enum guest_page_state s)
{
	return (unsigned)s < GUEST_PAGE_STATES;
}

const char *guest_page_state_name(enum guest_page_state s)
{
	return valid(s) ? states[s].name : "invalid";
}

const char *guest_page_state_counter(enum guest_page_state s)
{
	return valid(s) ? states[s].counter : "pages.invalid";
}

bool guest_page_state_has_frame(enum guest_page_state s)
{
	return valid(s) && states[s].has_frame;
}
