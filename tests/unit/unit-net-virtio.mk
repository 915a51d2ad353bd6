# SPDX-License-Identifier: BSD-2-Clause
#
# The virtio-net queues (net/drivers/virtio_net_queue.c) against a fake
# device working on the same rings (tests/unit/unit.mk includes this).

UNIT_TESTS += test_virtio_net_queue
unit_srcs_test_virtio_net_queue := net/drivers/virtio_net_queue.c \
	lib/format.c tests/unit/console_capture.c
