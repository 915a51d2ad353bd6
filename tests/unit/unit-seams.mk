# SPDX-License-Identifier: BSD-2-Clause
# The seams between the layers (tests/unit/unit.mk includes this fragment):
# the paging daemon's I/O queues, the EPT shootdown handshake, the counter
# registry, the ticket lock, the EPT-violation qualification rules and the
# per-exit-reason counters.
UNIT_TESTS += test_swap_io_queue test_ept_shootdown test_counters \
	test_spinlock test_ept_qualification test_exit_stats
unit_srcs_test_swap_io_queue := swap/swap_io_queue.c lib/string.c
unit_srcs_test_ept_shootdown := ept/ept_shootdown.c
unit_srcs_test_counters := lib/counters.c lib/format.c
unit_srcs_test_spinlock :=
unit_srcs_test_ept_qualification :=
unit_srcs_test_exit_stats := vmx/exit_stats.c lib/format.c

# The paging daemon over fakes: swap/swap_daemon.c and swap/swap_fault.c see the fake TSC of
# tests/unit/fake_x86 (the test defines rdtsc and tsc_hz) and a fake swap
# device (the test defines swap_device_open).
UNIT_TESTS += test_swap_daemon
unit_srcs_test_swap_daemon := swap/swap_io_queue.c swap/guest_memory.c \
	swap/swap_daemon_report.c \
	swap/guest_swap.c swap/guest_discard.c swap/guest_overwrite.c swap/guest_io_done.c swap/swap_slots.c swap/swap_verify.c swap/swap_thrash.c \
	swap/frame_pool.c ept/ept.c \
	lib/string.c lib/counters.c lib/console.c lib/format.c lib/heap.c \
	lib/page_alloc.c swap/drivers/blockdev_faults.c tests/unit/ept_fake.c \
	lib/ratelimit.c lib/latency_hist.c swap/swap_unreadable.c \
	swap/swap_policy_setup.c \
	$(UNIT_SWAP_POLICY_SRCS)
unit_objs_test_swap_daemon := $(UNIT_OUT)/obj/swap/swap_daemon_fake_x86.o \
	$(UNIT_OUT)/obj/swap/swap_fault_fake_x86.o

$(UNIT_OUT)/obj/swap/swap_daemon_fake_x86.o: swap/swap_daemon.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/swap/swap_fault_fake_x86.o: swap/swap_fault.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_x86 $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# The thrashing rule alone (swap/swap_thrash.c), on made-up TSC values.
UNIT_TESTS += test_swap_thrash
unit_srcs_test_swap_thrash := swap/swap_thrash.c

# The exit handlers (vmx/exit_basic.c, exit_cr.c, exit_msr.c,
# exit_vmx_insn.c, exit_string_io.c, exit_exception.c, exit_lost_page.c)
# built with tests/unit/fake_exits before the root on the include path: a
# VMCS of plain words and fake instructions.
UNIT_TESTS += test_exit_handlers
UNIT_EXIT_FAKES := exit_basic exit_cr exit_msr exit_vmx_insn exit_string_io \
	exit_exception exit_lost_page
unit_srcs_test_exit_handlers := guest/devices/vlapic.c guest/devices/vlapic_ipi.c \
	guest/devices/vlapic_timer.c guest/guest_pagewalk.c lib/console.c \
	lib/format.c guest/mce.c lib/ratelimit.c guest/cpuid.c
unit_objs_test_exit_handlers := \
	$(patsubst %,$(UNIT_OUT)/obj/vmx/%_fake_exits.o,$(UNIT_EXIT_FAKES))

$(UNIT_OUT)/obj/vmx/%_fake_exits.o: vmx/%.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

$(UNIT_OUT)/obj/tests/unit/test_exit_handlers.o: tests/unit/test_exit_handlers.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# INS/OUTS over the same environment (tests/unit/exit_env.h).
UNIT_TESTS += test_exit_string_io
unit_srcs_test_exit_string_io := $(unit_srcs_test_exit_handlers)
unit_objs_test_exit_string_io := $(unit_objs_test_exit_handlers)

$(UNIT_OUT)/obj/tests/unit/test_exit_string_io.o: \
		tests/unit/test_exit_string_io.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# #DB, single step and HLT over the same environment.
UNIT_TESTS += test_exit_debug
unit_srcs_test_exit_debug := $(unit_srcs_test_exit_handlers)
unit_objs_test_exit_debug := $(unit_objs_test_exit_handlers)

$(UNIT_OUT)/obj/tests/unit/test_exit_debug.o: tests/unit/test_exit_debug.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# The MMIO exit (vmx/exit_mmio.c) over the same fakes: the fetch through
# the guest's page tables, the decode, the I/O APIC and xAPIC pages.
UNIT_TESTS += test_exit_mmio
unit_srcs_test_exit_mmio := guest/guest_pagewalk.c guest/mmio_decode.c \
	guest/devices/vlapic.c guest/devices/vlapic_ipi.c guest/devices/vlapic_timer.c \
	guest/devices/vlapic_mmio.c guest/devices/ioapic.c \
	guest/io_mmio.c guest/devices/io_registry.c lib/format.c \
	lib/string.c
unit_objs_test_exit_mmio := $(UNIT_OUT)/obj/vmx/exit_mmio_fake_exits.o \
	$(UNIT_OUT)/obj/vmx/insn_fetch_fake_exits.o

$(UNIT_OUT)/obj/tests/unit/test_exit_mmio.o: tests/unit/test_exit_mmio.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# The task-switch exit (vmx/exit_task_switch.c) over the same fakes, with
# guest/task_switch.c doing the switch.
UNIT_TESTS += test_exit_task_switch
unit_srcs_test_exit_task_switch := $(unit_srcs_test_exit_handlers) \
	guest/task_switch.c
unit_objs_test_exit_task_switch := \
	$(UNIT_OUT)/obj/vmx/exit_task_switch_fake_exits.o

$(UNIT_OUT)/obj/tests/unit/test_exit_task_switch.o: \
		tests/unit/test_exit_task_switch.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@

# The exception injection every handler above calls (vmx/exception_inject.c,
# faked in tests/unit/exit_env.h): the interruption information, the error
# code, RF in the RFLAGS a fault pushes; over the same fake VMCS.
UNIT_TESTS += test_exception_inject
unit_srcs_test_exception_inject :=
unit_objs_test_exception_inject := \
	$(UNIT_OUT)/obj/vmx/exception_inject_fake_exits.o

$(UNIT_OUT)/obj/tests/unit/test_exception_inject.o: \
		tests/unit/test_exception_inject.c
	@mkdir -p $(@D)
	$(UNIT_CC) -Itests/unit/fake_exits $(UNIT_CFLAGS) -MMD -MP -c $< -o $@
