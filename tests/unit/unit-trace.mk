# SPDX-License-Identifier: BSD-2-Clause
# The trace recorder and file writer (lib/trace*.c), and the trace-disk
# header (swap/swap_format.c). trace_write_demo is not a test: it writes
# trace files with the real writer for tests/unit/test_apftrace_roundtrip.py.
UNIT_TESTS += test_trace
unit_srcs_test_trace := lib/trace/trace_file.c lib/counters.c lib/format.c \
	lib/string.c

$(UNIT_OUT)/trace_write_demo: $(UNIT_OUT)/obj/tests/unit/trace_write_demo.o \
		$(patsubst %.c,$(UNIT_OUT)/obj/%.o,lib/trace/trace_file.c \
		lib/counters.c lib/format.c lib/string.c lib/trace/trace.c \
		lib/trace/trace_ring.c tests/unit/trace_host.c)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $^

unit-binaries: $(UNIT_OUT)/trace_write_demo

# The trace disk over fake disks (the test stands in for swap_device.c).
UNIT_TESTS += test_trace_disk
unit_srcs_test_trace_disk := boot/trace_disk.c swap/swap_format.c \
	lib/trace/trace_file.c lib/counters.c lib/format.c lib/string.c \
	tests/unit/console_capture.c
