# SPDX-License-Identifier: BSD-2-Clause
#
# Host unit tests of the host console (tests/unit/unit.mk includes every
# tests/unit/unit-*.mk).

# What the console's sinks get: whole lines, however long, a guest's too.
UNIT_TESTS += test_console
unit_srcs_test_console := lib/console.c lib/format.c guest/guest_console.c

# The limit on lines a guest can make apfvisor print again and again.
UNIT_TESTS += test_ratelimit
unit_srcs_test_ratelimit := lib/ratelimit.c tests/unit/console_capture.c

# The ring the serial console's output waits in for the UART.
UNIT_TESTS += test_byte_ring
unit_srcs_test_byte_ring :=
