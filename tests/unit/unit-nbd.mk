# SPDX-License-Identifier: BSD-2-Clause
#
# The NBD protocol core of the swap-over-network client
# (swap/drivers/nbd_proto.c) against server byte streams built by the
# tests (tests/unit/nbd_stream.h): the handshake (test_nbd_handshake),
# then request headers and the reply parser (test_nbd_transmission)
# (tests/unit/unit.mk includes this).

UNIT_TESTS += test_nbd_handshake test_nbd_transmission
unit_srcs_test_nbd_handshake := swap/drivers/nbd_proto.c lib/format.c
unit_srcs_test_nbd_transmission := swap/drivers/nbd_proto.c lib/format.c

# The NBD client (swap/drivers/nbd.c: slots, cookies, the connection's
# loss, back-off, give-up and refusal) against an NBD server played in
# memory over fake TCP streams (tests/unit/tcp_stream_fake.c). Both are
# built with tests/unit/fake_x86 first on the include path, so that
# rdtsc() and tsc_hz are the fake's: a clock the test advances.
UNIT_TESTS += test_nbd_client
unit_srcs_test_nbd_client := swap/drivers/nbd_proto.c lib/counters.c \
	lib/format.c lib/string.c tests/unit/console_capture.c
unit_objs_test_nbd_client := $(UNIT_OUT)/obj/swap/nbd_fake_x86.o \
	$(UNIT_OUT)/obj/tests/unit/tcp_stream_fake.o

$(UNIT_OUT)/obj/swap/nbd_fake_x86.o: swap/drivers/nbd.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/tests/unit/tcp_stream_fake.o: tests/unit/tcp_stream_fake.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
