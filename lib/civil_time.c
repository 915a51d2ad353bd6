// SPDX-License-Identifier: BSD-2-Clause
#include "lib/civil_time.h"

#define DAYS_PER_400_YEARS 146097
/* Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar. */
#define EPOCH_DAY_NUMBER 719468

/*
 * Counting years from March makes February the last month, so leap days
 * fall at the end of a year and the month lengths follow a fixed pattern
 * (the (153 * m + 2) / 5 term).
 */
static uint64_t days_since_epoch(unsigned year, unsigned month, unsigned day)
{
	uint64_t y = year - (month <= 2);
	uint64_t era = y / 400;
	uint64_t year_of_era = y - era * 400;
	uint64_t m = (month + 9) % 12;          /* March = 0 */
	uint64_t day_of_year = (153 * m + 2) / 5 + day - 1;
	uint64_t day_of_era = year_of_era * 365 + year_of_era / 4 -
			      year_of_era / 100 + day_of_year;

	return era * DAYS_PER_400_YEARS + day_of_era - EPOCH_DAY_NUMBER;
}

uint64_t unix_time_from_date(unsigned year, unsigned month, unsigned day,
			     unsigned hour, unsigned minute, unsigned second)
{
	if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31)
		return 0;
	return days_since_epoch(year, month, day) * 86400 + hour * 3600 +
	       minute * 60 + second;
}
