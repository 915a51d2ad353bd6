# SPDX-License-Identifier: BSD-2-Clause
#
# The NVMe driver's plain-C parts (swap/nvme_*.c) against a fake controller
# behind struct nvme_mmio_ops (tests/unit/unit.mk includes this).

UNIT_TESTS += test_nvme
unit_srcs_test_nvme := swap/drivers/nvme_ctrl.c swap/drivers/nvme_queue.c swap/drivers/read_poison.c \
	swap/drivers/nvme_namespace.c swap/drivers/nvme_command.c swap/drivers/nvme_identify.c \
	lib/format.c tests/unit/nvme_fake.c tests/unit/console_capture.c
