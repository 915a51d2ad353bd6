# SPDX-License-Identifier: BSD-2-Clause
#
# One swap device over several (swap/blockdev_stripe.c: striping, copies,
# requests; swap/stripe_resync.c: members away and back, re-replication,
# spares) over fake in-memory members. Built with tests/unit/fake_x86
# first on the include path: the TSC is the test's clock.

UNIT_TESTS += test_blockdev_stripe
unit_srcs_test_blockdev_stripe := swap/swap_format.c lib/counters.c \
	lib/format.c lib/string.c tests/unit/console_capture.c
unit_objs_test_blockdev_stripe := $(UNIT_OUT)/obj/swap/stripe_fake_x86.o \
	$(UNIT_OUT)/obj/swap/stripe_resync_fake_x86.o

$(UNIT_OUT)/obj/swap/stripe_fake_x86.o: swap/blockdev_stripe.c
$(UNIT_OUT)/obj/swap/stripe_resync_fake_x86.o: swap/stripe_resync.c
$(unit_objs_test_blockdev_stripe):
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
