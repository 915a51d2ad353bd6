# SPDX-License-Identifier: BSD-2-Clause
#
# The virtio-net queues (net/drivers/virtio_net_queue.c) with the input as
# the device writing the used rings and the shared memory
# (tests/fuzz/fuzz.mk includes this).

FUZZ_TARGETS += fuzz_virtio_net_queue
fuzz_srcs_fuzz_virtio_net_queue := net/drivers/virtio_net_queue.c lib/format.c
