# SPDX-License-Identifier: BSD-2-Clause
#
# The NVMe driver's plain-C parts (swap/nvme_*.c) against a fake controller
# behind struct nvme_mmio_ops (tests/unit/unit.mk includes this).

UNIT_TESTS += test_nvme
unit_srcs_test_nvme := swap/nvme_ctrl.c swap/nvme_queue.c swap/read_poison.c \
	swap/nvme_namespace.c swap/nvme_command.c swap/nvme_identify.c \
	lib/format.c tests/unit/nvme_fake.c tests/unit/console_capture.c
