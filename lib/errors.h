/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One error type for the layers that can fail in more than one way: the
 * EPT tables (ept/), the block drivers and their blockdev ops
 * (swap/blockdev.h, swap/drivers/), the swap device and the paging daemon
 * (swap/). A function that can fail returns enum hv_err. HV_OK is 0, so
 * "if (err)" still reads "if it failed"; a caller that must tell one
 * failure from another compares with a name, never with a number.
 *
 * Each error is declared once, in HV_ERRORS, with the words hv_err_name
 * gives it for a console line:
 *   NOMEM        no memory for it: an EPT table, a frame
 *   INVALID      the caller asked for what cannot be (misaligned, bad bits)
 *   EXISTS       something is there already (a page mapped twice)
 *   NOT_FOUND    nothing is there (an unmapped page, a slot not in use, an
 *                I/O id that is not in flight)
 *   CONFLICT     something else is in the way (a 2 MiB leaf where a 4 KiB
 *                one was asked for)
 *   BUSY         not now: the queue is full; poll completions, then retry
 *   IO           the device reported the request failed
 *   TIMEOUT      the device did not answer in time
 *   UNSUPPORTED  the device lacks what apfvisor needs of it
 *   DEVICE       the device broke its protocol (does not answer, refused
 *                what it offered, completed what it never had)
 *   BAD_FORMAT   on-disk data that does not check out (a swap header)
 *
 * A completed block request keeps its own status (enum blk_status in
 * swap/blockdev.h): the device's answer, carried in a completion, is not
 * the return value of a call.
 */
#ifndef LIB_ERRORS_H
#define LIB_ERRORS_H

/* X(name, words for a message) */
#define HV_ERRORS(X)                                    \
	X(HV_OK, "no error")                            \
	X(HV_ERR_NOMEM, "out of memory")                \
	X(HV_ERR_INVALID, "invalid argument")           \
	X(HV_ERR_EXISTS, "already present")             \
	X(HV_ERR_NOT_FOUND, "not found")                \
	X(HV_ERR_CONFLICT, "another mapping in the way") \
	X(HV_ERR_BUSY, "busy, try again")               \
	X(HV_ERR_IO, "I/O error")                       \
	X(HV_ERR_TIMEOUT, "timed out")                  \
	X(HV_ERR_UNSUPPORTED, "not supported")          \
	X(HV_ERR_DEVICE, "device fault")                \
	X(HV_ERR_BAD_FORMAT, "bad format")

enum hv_err {
#define HV_ERR_ENUM(name, words) name,
	HV_ERRORS(HV_ERR_ENUM)
#undef HV_ERR_ENUM
	HV_ERR_COUNT
};

/* The error's words for a console line ("timed out"). */
static inline const char *hv_err_name(enum hv_err e)
{
	switch (e) {
#define HV_ERR_CASE(name, words) case name: return words;
	HV_ERRORS(HV_ERR_CASE)
#undef HV_ERR_CASE
	default:
		return "unknown error";
	}
}

#endif
