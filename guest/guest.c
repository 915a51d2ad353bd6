// SPDX-License-Identifier: BSD-2-Clause
#include "guest/guest.h"
#include "guest/flat_loader.h"
#include "guest/linux_loader.h"
#include "swap/swap_daemon.h"
#include "guest/cpuid.h"
#include "guest/interrupts.h"
#include "arch/x86/tsc.h"
#include "boot/hv_heap.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"

static uint64_t alloc_ept_table(void *ctx)
{
	(void)ctx;
	return hv_alloc_pages_low(1);
}

/* The hypervisor maps all physical memory 1:1. */
static void *identity(void *ctx, uint64_t pa)
{
	(void)ctx;
	return (void *)(uintptr_t)pa;
}

static void print_guest_line(const char *line, size_t len)
{
	con_printf("guest: %.*s\n", (int)len, line);
}

static bool setup_memory(struct guest *g, const struct boot_info *bi)
{
	const struct ept_memory mem = { alloc_ept_table, identity, NULL };
	uint64_t frames = 0;

	for (unsigned i = 0; i < bi->n_guest_frame_ranges; i++)
		frames += bi->guest_frames[i].frames;
	frame_pool_init(&g->pool, hv_alloc(frame_pool_storage_words(frames) * sizeof(uint64_t)),
			frames);
	for (unsigned i = 0; i < bi->n_guest_frame_ranges; i++)
		if (frame_pool_add_range(&g->pool, bi->guest_frames[i].base,
					 bi->guest_frames[i].frames))
			return false;
	if (ept_init(&g->ept, &mem))
		return false;
	guest_memory_init(&g->mem, bi->cfg.guest_memory,
			  hv_alloc(bi->cfg.guest_memory >> PAGE_SHIFT),
			  &g->ept, &g->pool);
	return true;
}

static struct vcpu *create_vcpu(struct guest *g, unsigned id)
{
	struct vcpu *v = hv_alloc(sizeof(*v));

	v->id = id;
	v->vpid = (uint16_t)(id + 1);   /* VPID 0 is the host's */
	v->guest = g;
	g->vcpus[id] = v;
	return v;
}

struct guest *guest_create(const struct boot_info *bi)
{
	struct guest *g = hv_alloc(sizeof(*g));

	g->cfg = &bi->cfg;
	g->kvm_features = KVM_FEATURE_CLOCKSOURCE2 |
			  KVM_FEATURE_CLOCKSOURCE_STABLE_BIT;
	g->start_tsc = rdtsc();
	g->hv_start_tsc = bi->hv_start_tsc;
	g->start_epoch_sec = bi->boot_epoch_sec +
			     (g->start_tsc - bi->boot_tsc) / tsc_hz;
	g->clock_scale = pvclock_scale_for(tsc_hz);
	for (unsigned i = 0; i < GUEST_MAX_VCPUS; i++) {
		vcpu_msrs_init(&g->plat[i].msrs);
		g->plat[i].run_state = i ? VCPU_WAIT_FOR_SIPI : VCPU_RUNNABLE;
		g->plat[i].sipi_vector = -1;
	}
	guest_interrupts_init(g, tsc_hz);
	uart_init(&g->uart, print_guest_line);
	if (!setup_memory(g, bi)) {
		hv_error("cannot set up guest memory");
		return NULL;
	}
	g->is_linux = image_is_linux_bzimage(bi->kernel, bi->kernel_size);
	/* Test guests run on vCPU 0 only; Linux on every vCPU configured. */
	g->nvcpus = g->is_linux ? bi->cfg.guest_vcpus : 1;
	if (!g->is_linux && bi->cfg.guest_vcpus != 1)
		hv_info("guest.vcpus = %u: test guests run on vcpu 0 only",
			bi->cfg.guest_vcpus);
	if (g->is_linux ? !linux_loader_load(g, bi)
		     : !flat_loader_load(g, bi->kernel, bi->kernel_size,
					 bi->cfg.guest_cmdline))
		return NULL;
	if (!swap_daemon_setup(g, bi))
		return NULL;
	for (unsigned i = 0; i < g->nvcpus; i++)
		create_vcpu(g, i);
	return g;
}

/* The first end wins. Called with or without g->lock held. */
static void record_end(struct guest *g, enum guest_end_kind kind, bool clean,
		       const char *fmt, va_list ap)
{
	if (__atomic_exchange_n(&g->end_claimed, true, __ATOMIC_ACQ_REL))
		return;
	fmt_vsnprintf(g->end_reason, sizeof(g->end_reason), fmt, ap);
	g->end_tsc = rdtsc();
	g->ended_cleanly = clean;
	g->end_kind = kind;
	__atomic_store_n(&g->ended, true, __ATOMIC_RELEASE);
}

void guest_end(struct guest *g, bool clean, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_end(g, GUEST_END_HALTED, clean, fmt, ap);
	va_end(ap);
}

void guest_end_as(struct guest *g, enum guest_end_kind kind, bool clean,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record_end(g, kind, clean, fmt, ap);
	va_end(ap);
}

int guest_write(struct guest *g, uint64_t gpa, const void *src, uint64_t len)
{
	/* A hypervisor write never spans more than a few pages: retry each. */
	for (int attempt = 0; attempt < 4; attempt++) {
		int rc;

		spin_lock(&g->lock);
		rc = guest_memory_write(&g->mem, gpa, src, len);
		spin_unlock(&g->lock);
		if (rc == 0)
			return 0;
		for (uint64_t p = ALIGN_DOWN(gpa, PAGE_SIZE); p < gpa + len;
		     p += PAGE_SIZE)
			if (swap_daemon_fault(g, p) != GUEST_FAULT_RESOLVED)
				return -1;
	}
	return -1;
}

/* Core exit reasons are always listed, the others when they occurred. */
static bool always_listed(unsigned reason)
{
	return reason == VMX_EXIT_CPUID || reason == VMX_EXIT_HLT ||
	       reason == VMX_EXIT_IO || reason == VMX_EXIT_EPT_VIOLATION ||
	       reason == VMX_EXIT_RDMSR || reason == VMX_EXIT_WRMSR;
}

static void report_vcpu_exits(const struct guest *g)
{
	char name[48];

	for (unsigned r = 0; r < VMX_EXIT_REASON_MAX; r++) {
		uint64_t n = 0;

		for (unsigned i = 0; i < g->nvcpus; i++)
			n += g->vcpus[i]->stats.exits[r];
		if (!n && !always_listed(r))
			continue;
		fmt_snprintf(name, sizeof(name), "exit.%s",
			     vmx_exit_reason_name(r));
		hv_stat(name, n);
	}
}

void guest_report(const struct guest *g)
{
	uint64_t total = 0, unhandled_io = 0, gp = 0, lapic = 0, pic = 0;

	if (g->end_kind == GUEST_END_POWER_OFF)
		hv_info("guest powered off");
	else if (g->end_kind == GUEST_END_RESET)
		hv_info("guest reset");
	else
		hv_info("guest halted: %s", g->end_reason);
	if (g->end_kind != GUEST_END_HALTED)
		hv_info("how: %s", g->end_reason);
	report_vcpu_exits(g);
	for (unsigned i = 0; i < g->nvcpus; i++) {
		total += g->vcpus[i]->stats.exits_total;
		unhandled_io += g->vcpus[i]->stats.io_unhandled;
		gp += g->vcpus[i]->stats.msr_gp_injected;
		lapic += g->vcpus[i]->stats.irq_injected_lapic;
		pic += g->vcpus[i]->stats.irq_injected_pic;
	}
	hv_stat("exits.total", total);
	hv_stat("io.unhandled", unhandled_io);
	hv_stat("msr.gp_injected", gp);
	hv_stat("irq.injected_lapic", lapic);
	hv_stat("irq.injected_pic", pic);
	hv_stat("ept.violations", g->mem.stats.faults);
	hv_stat("ept.zero_fills", g->mem.stats.zero_fills);
	hv_stat("ept.tables", g->ept.tables);
	hv_stat("frames.in_use", frame_pool_in_use(&g->pool));
	hv_stat("frames.peak", g->pool.peak_in_use);
	hv_stat("frames.total", g->pool.total);
	swap_daemon_report(g);
	hv_stat("uart.bytes_out", g->uart.bytes_out);
	hv_stat("uart.bytes_in", g->uart.bytes_in);
	/* Under Bochs one TSC tick is one emulated instruction. */
	hv_stat("tsc.hz", tsc_hz);
	hv_stat("tsc.start_to_first_entry", g->first_entry_tsc - g->hv_start_tsc);
	hv_stat("tsc.first_entry_to_end", g->end_tsc - g->first_entry_tsc);
	/* Interrupt wiring at the end, to tell a lost IRQ from a masked one. */
	hv_stat("uart.ier", g->uart.ier);
	hv_stat("uart.mcr", g->uart.mcr);
	hv_stat("pic.master_imr", g->pic.chip[0].imr);
	hv_stat("pic.master_irr", g->pic.chip[0].irr);
	hv_stat("pic.master_isr", g->pic.chip[0].isr);
	hv_stat("pic.master_base", g->pic.chip[0].base);
	hv_stat("lapic0.lint0", g->plat[0].lapic.lvt[VLAPIC_LVT_LINT0]);
	hv_stat("lapic0.svr", g->plat[0].lapic.svr);
}
