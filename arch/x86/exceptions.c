// SPDX-License-Identifier: BSD-2-Clause
/*
 * An exception in root mode is a hypervisor bug: print everything that helps
 * to find it, then stop cleanly instead of letting it become a triple fault.
 */
#include "arch/x86/exceptions.h"
#include "arch/x86/idle.h"
#include "arch/x86/cpu.h"
#include "arch/x86/percpu.h"
#include "arch/x86/platform.h"
#include "lib/console.h"

#define EXCEPTION_STUB_SIZE 16

extern const uint8_t exception_stubs[];
extern const uint8_t ImageBase[];       /* linker.ld: start of the image */

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode",
	"#NM device not available", "#DF double fault", "coprocessor overrun",
	"#TS invalid TSS", "#NP segment not present", "#SS stack fault",
	"#GP general protection", "#PF page fault", "reserved",
	"#MF x87 error", "#AC alignment check", "#MC machine check",
	"#XM SIMD error", "#VE virtualization", "#CP control protection",
};

uint64_t exception_stub_address(unsigned vector)
{
	return (uint64_t)(uintptr_t)exception_stubs +
	       (uint64_t)vector * EXCEPTION_STUB_SIZE;
}

static void dump_frame(const struct exception_frame *f)
{
	uint64_t base = (uint64_t)(uintptr_t)ImageBase;

	/* "addr2line -e build/apfvisor.so 0x<offset>" names the line. */
	hv_info("  rip %016llx (apfvisor.so+0x%llx) cs %04llx rflags %016llx",
		(unsigned long long)f->rip,
		(unsigned long long)(f->rip - base), (unsigned long long)f->cs,
		(unsigned long long)f->rflags);
	hv_info("  rsp %016llx ss %04llx cr2 %016llx cr3 %016llx",
		(unsigned long long)f->rsp, (unsigned long long)f->ss,
		(unsigned long long)read_cr2(), (unsigned long long)read_cr3());
	hv_info("  rax %016llx rbx %016llx rcx %016llx rdx %016llx",
		(unsigned long long)f->rax, (unsigned long long)f->rbx,
		(unsigned long long)f->rcx, (unsigned long long)f->rdx);
	hv_info("  rsi %016llx rdi %016llx rbp %016llx r8  %016llx",
		(unsigned long long)f->rsi, (unsigned long long)f->rdi,
		(unsigned long long)f->rbp, (unsigned long long)f->r8);
	hv_info("  r9  %016llx r10 %016llx r11 %016llx r12 %016llx",
		(unsigned long long)f->r9, (unsigned long long)f->r10,
		(unsigned long long)f->r11, (unsigned long long)f->r12);
	hv_info("  r13 %016llx r14 %016llx r15 %016llx",
		(unsigned long long)f->r13, (unsigned long long)f->r14,
		(unsigned long long)f->r15);
}

void exception_dispatch(struct exception_frame *f)
{
	const char *name = NULL;
	unsigned cpu = 0;

	/* Interrupts reach the hypervisor only while a CPU idles. */
	if (f->vector >= 32 && cpu_idle_interrupt(f->vector))
		return;
	if (f->vector < ARRAY_SIZE(exception_names))
		name = exception_names[f->vector];
	if (host_cpus[0])
		cpu = this_cpu()->index;
	if (f->vector == EXC_NMI && platform_stopping())
		cpu_halt_forever();
	hv_error("host exception %s (vector %llu) on host cpu %u, "
		 "error code 0x%llx",
		 name ? name : "interrupt", (unsigned long long)f->vector, cpu,
		 (unsigned long long)f->error_code);
	dump_frame(f);
	platform_stop();
}
