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

# The NBD client (swap/drivers/nbd.c: the connection's loss, back-off,
# give-up and refusal; swap/drivers/nbd_requests.c: slots, cookies, the
# send queue) against an NBD server played in memory over fake TCP
# streams (tests/unit/tcp_stream_fake.c). All three are built with
# tests/unit/fake_x86 first on the include path, so that rdtsc() and
# tsc_hz are the fake's: a clock the test advances. Three programs share
# tests/unit/nbd_test_fixture.h: test_nbd_client (requests on a
# connection that stays up), test_nbd_outages (lost connections, made
# again) and test_nbd_refusals (the give-up, servers refused, nbd_open's
# refusals).
UNIT_TESTS += test_nbd_client test_nbd_outages test_nbd_refusals
unit_srcs_test_nbd_client := swap/drivers/nbd_proto.c lib/counters.c \
	lib/format.c lib/string.c tests/unit/console_capture.c
unit_objs_test_nbd_client := $(UNIT_OUT)/obj/swap/nbd_fake_x86.o \
	$(UNIT_OUT)/obj/swap/nbd_requests_fake_x86.o \
	$(UNIT_OUT)/obj/tests/unit/tcp_stream_fake.o
unit_srcs_test_nbd_outages := $(unit_srcs_test_nbd_client)
unit_objs_test_nbd_outages := $(unit_objs_test_nbd_client)
unit_srcs_test_nbd_refusals := $(unit_srcs_test_nbd_client)
unit_objs_test_nbd_refusals := $(unit_objs_test_nbd_client)

$(UNIT_OUT)/obj/swap/nbd_fake_x86.o: swap/drivers/nbd.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/swap/nbd_requests_fake_x86.o: swap/drivers/nbd_requests.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/tests/unit/tcp_stream_fake.o: tests/unit/tcp_stream_fake.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
