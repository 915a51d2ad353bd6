/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The states of a guest page and the moves between them, declared once
 * (DESIGN.md, "Guest pages"). Everything else is generated from the two
 * lists below: the enum and its count, the names, which states hold a host
 * frame, and which transitions are allowed (guest_page_transition_ok).
 * A new state (a compressed tier, say) is one line in each list; no array
 * elsewhere is sized by hand.
 *
 * GUEST_PAGE_STATE_LIST(X): X(NAME, label, has_frame, what)
 *   NAME       the enum is PAGE_<NAME>
 *   label      the name in counters ("pages.<label>") and messages
 *   has_frame  a host frame is the page's in this state (meta.frame valid)
 */
#ifndef SWAP_PAGE_STATE_H
#define SWAP_PAGE_STATE_H

#include "lib/types.h"

#define GUEST_PAGE_STATE_LIST(X)                                             \
	X(UNTOUCHED, untouched, false,                                       \
	  "never accessed: zero-fill on first touch")                        \
	X(RESIDENT, resident, true, "backed by a frame, mapped in EPT")      \
	X(WRITEBACK, writeback, true,                                        \
	  "chosen for eviction: unmapped, frame kept")                       \
	X(SWAPPED, swapped, false, "only on the swap device")                \
	X(SWAPIN, swapin, true, "read from swap in flight")                  \
	X(COMPRESSED, compressed, false,                                     \
	  "compressed in the host-memory tier (swap.tier)")

/*
 * GUEST_PAGE_TRANSITION_LIST(X): X(FROM, TO, why), the only moves
 * set_state (swap/guest_memory_internal.h) expects; each one made is
 * counted in stats.transitions[from][to], any other one is a bug
 * (counted in stats.illegal_transitions and reported).
 */
#define GUEST_PAGE_TRANSITION_LIST(X)                                        \
	X(UNTOUCHED, RESIDENT, "first touch: zero-filled frame")             \
	X(RESIDENT, WRITEBACK, "chosen as a victim: unmapped, frame kept")   \
	X(WRITEBACK, RESIDENT,                                               \
	  "eviction cancelled by a fault before the write started; or, "     \
	  "after the write: it had been cancelled, it failed, or the swap "  \
	  "area is full")                                                    \
	X(WRITEBACK, SWAPPED, "write done (or clean: valid copy, no write)") \
	X(WRITEBACK, UNTOUCHED, "all-zero page: frame freed, nothing written") \
	X(SWAPPED, SWAPIN, "fault: read started into a fresh frame")         \
	X(SWAPPED, RESIDENT, "fault by a store that overwrites the whole "   \
	  "page: a fresh frame filled as it fills it, slot freed, no read")  \
	X(SWAPIN, RESIDENT, "read done: mapped, swap copy still valid")      \
	X(SWAPIN, SWAPPED, "read failed for good: the page is lost")         \
	X(WRITEBACK, COMPRESSED, "compressed into the tier: frame freed")    \
	X(COMPRESSED, RESIDENT, "fault: expanded into a fresh frame")         \
	X(COMPRESSED, SWAPPED, "damaged in the tier: the page is lost")      \
	X(COMPRESSED, WRITEBACK, "the tier's oldest, moved on to the disk: " \
	  "expanded into the frame of the page that took its slot")          \
	X(SWAPPED, UNTOUCHED, "reported free by the guest: slot freed")      \
	X(COMPRESSED, UNTOUCHED, "reported free by the guest: tier slot freed")

enum guest_page_state {
#define GUEST_PAGE_STATE_ENUM(name, label, has_frame, what) PAGE_##name,
	GUEST_PAGE_STATE_LIST(GUEST_PAGE_STATE_ENUM)
#undef GUEST_PAGE_STATE_ENUM
	GUEST_PAGE_STATES       /* how many there are: not a state */
};

/* The page-state's label ("resident", ...), "invalid" for no state. */
const char *guest_page_state_name(enum guest_page_state s);

/* "pages.<label>", the name of the count of pages in state s. */
const char *guest_page_state_counter(enum guest_page_state s);

/* True when a page in state s owns a host frame. */
bool guest_page_state_has_frame(enum guest_page_state s);

/*
 * The transition list as one constant: bit to * GUEST_PAGE_STATES + from
 * is set when the move is allowed. Every state change of the fault path
 * asks it with a constant `to`, so the row of that `to` is a constant and
 * the check is one bit test, no table in memory.
 */
#define GUEST_PAGE_MOVE_BIT(from_, to_, why)                                 \
	| (1ull << (PAGE_##to_ * GUEST_PAGE_STATES + PAGE_##from_))
#define GUEST_PAGE_MOVES (0ull GUEST_PAGE_TRANSITION_LIST(GUEST_PAGE_MOVE_BIT))
_Static_assert(GUEST_PAGE_STATES * GUEST_PAGE_STATES <= 64,
	       "the allowed moves fit one 64-bit word (up to 8 states)");

/* True when the lists above allow a page to move from one to the other. */
static inline bool guest_page_transition_ok(enum guest_page_state from,
					    enum guest_page_state to)
{
	return (unsigned)from < GUEST_PAGE_STATES &&
	       (unsigned)to < GUEST_PAGE_STATES &&
	       (GUEST_PAGE_MOVES >> (to * GUEST_PAGE_STATES) >> from & 1);
}

#endif
