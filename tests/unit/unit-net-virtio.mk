# SPDX-License-Identifier: BSD-2-Clause
#
# The virtio-net queues (net/drivers/virtio_net_queue.c) against a fake
# device working on the same rings (tests/unit/unit.mk includes this).
# Two programs share tests/unit/virtio_net_test_fixture.h:
# test_virtio_net_queue (an honest device) and test_virtio_net_queue_errors
# (what a broken or hostile device writes into a used ring).

UNIT_TESTS += test_virtio_net_queue test_virtio_net_queue_errors
unit_srcs_test_virtio_net_queue := net/drivers/virtio_net_queue.c \
	lib/format.c tests/unit/console_capture.c
unit_srcs_test_virtio_net_queue_errors := $(unit_srcs_test_virtio_net_queue)
