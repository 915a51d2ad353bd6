/* SPDX-License-Identifier: BSD-2-Clause */
/* Calendar dates to Unix time (UTC), for the guest's wall clock. */
#ifndef LIB_CIVIL_TIME_H
#define LIB_CIVIL_TIME_H

#include "lib/types.h"

/* Seconds since 1970-01-01 00:00:00 UTC; month 1..12, day 1..31. */
uint64_t unix_time_from_date(unsigned year, unsigned month, unsigned day,
			     unsigned hour, unsigned minute, unsigned second);

#endif
