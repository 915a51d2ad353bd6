/* SPDX-License-Identifier: BSD-2-Clause */
/* Host exceptions: any exception in root mode is a hypervisor bug. */
#ifndef ARCH_X86_EXCEPTIONS_H
#define ARCH_X86_EXCEPTIONS_H

#include "lib/types.h"

#define EXC_DIVIDE_ERROR 0
#define EXC_DEBUG 1
#define EXC_NMI 2
#define EXC_BREAKPOINT 3
#define EXC_OVERFLOW 4
#define EXC_INVALID_OPCODE 6
#define EXC_DOUBLE_FAULT 8
#define EXC_STACK_FAULT 12
#define EXC_GENERAL_PROTECTION 13
#define EXC_PAGE_FAULT 14
#define EXC_ALIGNMENT_CHECK 17
#define EXC_MACHINE_CHECK 18

/* Layout pushed by arch/x86/exception_stubs.asm. */
struct exception_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

uint64_t exception_stub_address(unsigned vector);
void exception_dispatch(struct exception_frame *f);

#endif
