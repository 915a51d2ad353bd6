# SPDX-License-Identifier: BSD-2-Clause
#
# The NVMe driver's plain-C parts (swap/nvme_*.c) against a fake controller
# behind struct nvme_mmio_ops (tests/unit/unit.mk includes this). Two
# programs share tests/unit/nvme_test_fixture.h: test_nvme (bring-up and
# admin commands) and test_nvme_io (the I/O queues and their completions).

UNIT_TESTS += test_nvme test_nvme_io
unit_srcs_test_nvme := swap/drivers/nvme_ctrl.c swap/drivers/nvme_queue.c swap/drivers/read_poison.c \
	swap/drivers/nvme_namespace.c swap/drivers/nvme_command.c swap/drivers/nvme_identify.c \
	lib/format.c tests/unit/nvme_fake.c tests/unit/console_capture.c
unit_srcs_test_nvme_io := $(unit_srcs_test_nvme)
