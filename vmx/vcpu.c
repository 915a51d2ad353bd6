// SPDX-License-Identifier: BSD-2-Clause
/* The vCPU loop: enter the guest, dispatch the exit, repeat. */
#include "vmx/vcpu.h"
#include "vmx/exit_dispatch.h"
#include "vmx/vmcs_setup.h"
#include "vmx/vmx_cpu.h"
#include "vmx/vmx_ops.h"
#include "vmx/vcpu_events.h"
#include "vmx/vcpu_entry.h"
#include "arch/x86/percpu.h"
#include "arch/x86/platform.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"
#include "lib/ratelimit.h"
#include "lib/string.h"
#include "lib/trace/trace.h"

/* vmx/vmx_entry.asm: 0 after a VM exit, else the entry failed. */
extern int vmx_run(struct guest_regs *regs, int launched);

enum vmx_run_result {
	VMX_RUN_EXITED = 0,
	VMX_RUN_FAIL_INVALID = 1,
	VMX_RUN_FAIL_VALID = 2,
	VMX_RUN_FAIL_HOST_RSP = 3,
};

NORETURN void vmcs_access_failed(const char *op, uint32_t field)
{
	uint64_t err = 0;

	vmread_checked(VMCS_VM_INSTRUCTION_ERROR, &err);
	hv_error("%s of VMCS field 0x%04x failed (VM-instruction error %llu)",
		 op, field, (unsigned long long)err);
	platform_stop();
}

/* SDM Vol. 3C, 31.4: VM-instruction error numbers of VMLAUNCH/VMRESUME. */
static void report_entry_failure(struct vcpu *v, int rc)
{
	uint64_t err = 0;

	if (rc == VMX_RUN_FAIL_VALID)
		vmread_checked(VMCS_VM_INSTRUCTION_ERROR, &err);
	hv_error("vcpu %u: %s failed (%s, VM-instruction error %llu%s)", v->id,
		 v->launched ? "VMRESUME" : "VMLAUNCH",
		 rc == VMX_RUN_FAIL_VALID ? "VMfailValid" : "VMfailInvalid",
		 (unsigned long long)err,
		 err == 7 ? ": invalid control fields" :
		 err == 8 ? ": invalid host-state fields" : "");
	vmcs_dump();
	vm_end(v->guest, false, "VM entry failed (VM-instruction error %llu)",
		  (unsigned long long)err);
}

static const struct counter_def vcpu_counter_defs[] = {
	VCPU_COUNTERS(COUNTER_DEF)
};

static void each_exit_counter(const void *obj, counter_fn fn, void *ctx)
{
	const struct vcpu *vcpus = obj;
	struct latency_hist minor, tier;

	exit_stats_each(&vcpus[0].stats.exit, vcpus[0].guest->nvcpus,
			sizeof(struct vcpu), fn, ctx);
	memset(&minor, 0, sizeof(minor));
	memset(&tier, 0, sizeof(tier));
	for (unsigned i = 0; i < vcpus[0].guest->nvcpus; i++) {
		latency_hist_merge(&minor, &vcpus[i].stats.minor_fault);
		latency_hist_merge(&tier, &vcpus[i].stats.tier_hit);
	}
	latency_hist_report(&minor, "fault_minor", fn, ctx);
	if (vcpus[0].guest->memory.ram.tier)
		latency_hist_report(&tier, "tier_hit", fn, ctx);
}

struct vcpu *vcpus_create(struct vm *vm)
{
	static struct counter_source exits, totals;
	struct vcpu *vcpus = hv_alloc(vm->nvcpus * sizeof(*vcpus));

	for (unsigned id = 0; id < vm->nvcpus; id++) {
		struct vcpu *v = &vcpus[id];

		v->id = id;
		v->vpid = (uint16_t)(id + 1);   /* VPID 0 is the host's */
		v->guest = vm;
		v->plat = &vm->plat[id];
		v->timer_written = UINT64_MAX;
		v->tlb_client = ept_shootdown_client(&vm->memory.tlb, id);
		exit_stats_init(&v->stats.exit);
		cpuid_cache_init(&v->cpuid_cache);
		vcpu_events_init(v);
	}
	exits = (struct counter_source){ .each = each_exit_counter,
					 .obj = vcpus };
	totals = (struct counter_source){
		.defs = vcpu_counter_defs,
		.ndefs = ARRAY_SIZE(vcpu_counter_defs),
		.instances = vm->nvcpus,
		.stride = sizeof(struct vcpu),
		.obj = &vcpus[0].stats,
	};
	counters_register(&exits);
	counters_register(&totals);
	vm->kick = vcpu_kick;
	vm->kick_ctx = vcpus;
	return vcpus;
}

/*
 * An AP waits for its SIPI (SDM Vol. 3A, 9.4.4) in the hypervisor, not in
 * the VMX wait-for-SIPI activity state: the BSP's ICR write lands in
 * guest/interrupts.c, which sends a VCPU_REQ_SIPI. False if the guest ended.
 */
static bool wait_for_sipi(struct vcpu *v, struct vcpu_entry_state *s)
{
	while (!v->sipi_pending) {
		if (!vcpu_take_requests(v))
			return false;
		if (!v->sipi_pending)
			vcpu_idle(v, rdtsc() + tsc_hz / VCPU_IDLE_CHECKS_PER_SECOND);
	}
	v->sipi_pending = false;
	v->plat->run_state = VCPU_RUNNABLE;
	vcpu_sipi_entry_state(v->plat->sipi_vector, s);
	return true;
}

static bool start_vcpu(struct vcpu *v)
{
	struct vm *g = v->guest;
	struct vcpu_entry_state sipi;
	const struct vcpu_entry_state *s = &g->entry;

	if (v->id != 0) {
		if (!wait_for_sipi(v, &sipi))
			return false;
		s = &sipi;
		hv_info("vcpu %u: SIPI, starting at 0x%x", v->id,
			sipi.real_mode_cs << 4);
	}
	if (!vmcs_setup(v, ept_pointer(&g->memory.ept), s)) {
		vm_end(g, false, "VMX could not be started on host cpu %u",
		       v->host->index);
		return false;
	}
	if (v->id == 0) {
		v->regs.rax = g->entry.rax;
		v->regs.rbx = g->entry.rbx;
		v->regs.rdx = g->entry.rdx;
		v->regs.rdi = g->entry.rdi;
		v->regs.rsi = g->entry.rsi;
	}
	return true;
}

/*
 * A guest can restart its APs as often as it likes (CPU hotplug, or a
 * loop): the first restarts are shown, the rest counted (lib/ratelimit.h).
 */
static struct ratelimit restart_lines = RATELIMIT("vcpu INIT/SIPI restarts",
						  8);

/* An INIT sent to a running AP: back to waiting for a SIPI. */
static bool restart_after_init(struct vcpu *v)
{
	struct vcpu_entry_state s;

	if (!wait_for_sipi(v, &s))
		return false;
	if (ratelimit_allow(&restart_lines))
		hv_info("vcpu %u: INIT, then SIPI: starting again at 0x%x",
			v->id, s.real_mode_cs << 4);
	vmcs_load_entry_state(&s);
	v->regs = (struct guest_regs){ 0 };
	return true;
}

/*
 * Enters guest mode unless a request arrived meanwhile (then false: take
 * it first). The sender sets its bit before it looks whether we are in
 * guest mode to kick us, and we say we are before we look at the bits:
 * so either we see the bit here or the sender sees us and kicks.
 */
static bool flush_ept(void *ctx)
{
	struct vcpu *v = ctx;

	return invept(INVEPT_SINGLE_CONTEXT,
		      ept_pointer(&v->guest->memory.ept));
}

static bool enter_guest_mode(struct vcpu *v, struct vm *g,
			     struct vcpu_platform *plat,
			     struct ept_client *client)
{
	bool flushed;

	if (!ept_client_enter_flushed(&g->memory.tlb, client, flush_ept, v,
				      &flushed)) {
		hv_error("vcpu %u: INVEPT failed: stale guest translations "
			 "could survive", v->id);
		vm_end(g, false, "INVEPT failed on vcpu %u", v->id);
		return false;
	}
	if (flushed)
		v->stats.invept++;
	if (vcpu_platform_has_requests(plat)) {
		ept_client_exit(client);
		v->stats.entries_retried++;
		return false;
	}
	return true;
}

/*
 * The exit being handled ends here (at an entry, or when the vCPU stops):
 * one vm_exit record for each exit the statistics counted, so a trace's
 * exit counts equal the "exit.*" counters.
 */
static void trace_closing_exit(const struct vcpu *v, uint64_t now)
{
	const struct exit_stats *s = &v->stats.exit;
	unsigned reason;

	if (!trace_on)
		return;
	reason = exit_stats_open_reason(s);
	if (reason >= VMX_EXIT_REASON_MAX)
		return;
	trace_vm_exit_at(s->exit_tsc, v->id, (uint16_t)reason,
			 v->traced_exit.qualification, v->traced_exit.rip,
			 now - s->exit_tsc);
}

/*
 * Taking requests can wait (for a SIPI): *now is read again after it.
 * The end of the guest need not be looked at apart: vm_end sets `ended`,
 * then sends every vCPU a VCPU_REQ_STOP, and whoever takes that request
 * returns false up to here.
 */
static bool take_requests(struct vcpu *v, uint64_t *now)
{
	if (!vcpu_take_requests(v))
		return false;
	if (v->plat->run_state == VCPU_WAIT_FOR_SIPI && !restart_after_init(v))
		return false;
	*now = rdtsc();
	return true;
}

static void run_loop(struct vcpu *v);

void vcpu_run(struct vcpu *v)
{
	run_loop(v);
	trace_closing_exit(v, rdtsc());
}

/*
 * The TSC read when the handler returned is also the time the work
 * before the entry goes by (`now`): one RDTSC less on every exit. The
 * vCPU's platform, VM and shootdown slot never change: kept in locals,
 * they need no loading again after the atomic accesses of every entry.
 */
static void run_loop(struct vcpu *v)
{
	struct vm *const g = v->guest;
	struct vcpu_platform *const plat = v->plat;
	struct ept_client *const client = v->tlb_client;
	uint64_t now;

	v->host = this_cpu();
	v->host->vcpu = v;
	if (!vmx_cpu_on(v->host)) {
		vm_end(g, false, "VMX could not be started on host cpu %u",
		       v->host->index);
		return;
	}
	hv_info("vcpu %u runs on host cpu %u", v->id, v->host->index);
	if (!start_vcpu(v))
		return;
	now = rdtsc();
	if (v->id == 0)
		g->stats.tsc.first_entry = now;
	for (;;) {
		/* Most entries find no request: no atomic exchange for them. */
		if (vcpu_platform_has_requests(plat) && !take_requests(v, &now))
			return;
		vcpu_prepare_entry(v, g, plat, now);
		if (!enter_guest_mode(v, g, plat, client))
			continue;
		uint64_t entry = rdtsc();

		trace_closing_exit(v, entry);
		exit_stats_entering(&v->stats.exit, entry);
		v->host->vm_entries++;
		int rc = vmx_run(&v->regs, v->launched);

		exit_stats_exited(&v->stats.exit, rdtsc());
		ept_client_exit(client);
		if (rc != VMX_RUN_EXITED) {
			report_entry_failure(v, rc);
			return;
		}
		v->launched = true;
		/* Before the exit's handler looks at the LAPIC. */
		if (pv_eoi_armed(&plat->pv_eoi) &&
		    pv_eoi_collect(g, v->id) == PV_EOI_DONE_POLL)
			vcpu_poll_again(v);
		enum exit_action next = vmx_dispatch_exit(v);

		now = rdtsc();
		exit_stats_handled(&v->stats.exit, now);
		if (next == EXIT_RESUME)
			continue;
		if (next == EXIT_STOP || !restart_after_init(v))
			return;
		now = rdtsc();
	}
}
