/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The VM object: one guest's memory (with its paging daemon), its EPT and
 * shootdown state, its virtual platform (APICs, 8259 pair, UART, ACPI PM)
 * and the per-vCPU state that lives outside the VMCS. vmx/ runs vCPUs
 * over it; it knows vCPUs only by number.
 *
 * Each part has a struct of its own, owned by the code named there:
 * memory, dev (devices), config, apf, clock, end, stats; the per-vCPU
 * state is plat[].
 *
 * Locks (lib/spinlock.h, ticket locks), never nested but for one:
 *   memory.lock  guest memory and the paging daemon (taken by faults, the
 *             daemon and hypervisor writes into guest RAM; not on VM entry)
 *   dev.lock  the virtual devices and interrupt routing (taken through
 *             vm_devices_lock/vm_devices_unlock, which keep irq_gen)
 *   fw_cfg_lock  the fw_cfg device, whose DMA transfers copy to and from
 *             guest RAM: it is taken before mem_lock (never after it, and
 *             never with dev_lock)
 *   plat[n].apf_lock  vCPU n's async-PF state (struct apf_vcpu): its
 *             own exits take it, and so does the completion of a swap-in
 *             it holds a token for, which puts the token on its done list
 *             (guest/async_pf.h). Taken after mem_lock, never before it,
 *             and never with dev_lock
 *
 * Telling a vCPU something goes through its request word only
 * (vm_request): the sender sets a bit and the vCPU is kicked out of guest
 * mode; it takes its bits before its next VM entry (as KVM's
 * kvm_make_request / vcpu_enter_guest).
 */
#ifndef GUEST_VM_H
#define GUEST_VM_H

#include "apf/apf.h"
#include "lib/counters.h"
#include "lib/limits.h"
#include "lib/spinlock.h"
#include "ept/ept.h"
#include "ept/ept_shootdown.h"
#include "guest/guest_format.h"
#include "guest/devices/io_registry.h"
#include "guest/devices/pc_testdev.h"
#include "swap/frame_pool.h"
#include "swap/guest_memory.h"
#include "swap/swap_daemon.h"
#include "swap/swap_params.h"
#include "guest/devices/fw_cfg.h"
#include "guest/guest_console.h"
#include "guest/kvmclock.h"
#include "guest/msr.h"
#include "guest/pv_eoi.h"
#include "guest/devices/pic8259.h"
#include "guest/devices/pit8254.h"
#include "guest/devices/port61.h"
#include "guest/devices/pci_host.h"
#include "guest/devices/ioapic.h"
#include "guest/devices/uart.h"
#include "guest/devices/vlapic.h"

#define VM_END_REASON_MAX 192

/* The bits of a vCPU's request word. */
enum vcpu_request {
	VCPU_REQ_TLB_FLUSH,     /* EPT shootdown: flush before entering */
	VCPU_REQ_EVENT,         /* interrupt state changed: look again */
	VCPU_REQ_NMI,           /* inject an NMI */
	VCPU_REQ_INIT,          /* INIT: back to wait-for-SIPI (APs) */
	VCPU_REQ_SIPI,          /* start at sipi_vector (after INIT) */
	/* A page this vCPU waited for is settled: a token of it may be on
	 * its done list (vm_apf_page_settled); deliver page-ready. */
	VCPU_REQ_PAGE_READY,
	VCPU_REQ_STOP,          /* the guest has ended */
};

enum vm_end_kind {
	VM_END_HALTED,                  /* "guest halted: <why>" */
	VM_END_POWER_OFF,               /* "guest powered off" */
	VM_END_RESET,                   /* "guest reset" */
};

/* What a vCPU is doing, as the platform sees it (SDM Vol. 3A, 9.4). */
enum vcpu_run_state {
	VCPU_RUNNABLE,
	VCPU_WAIT_FOR_SIPI,             /* an AP after INIT */
};

/* Where and how a vCPU starts; filled by the loaders, used by vmx/. */
struct vcpu_entry_state {
	uint64_t rip, rsp, rflags;
	uint64_t cr0, cr3, cr4, efer;
	uint64_t gdtr_base;
	uint16_t gdtr_limit;
	uint16_t idtr_limit;    /* base 0 */
	bool long_mode;         /* 64-bit flat segments */
	bool protected_mode;    /* else 32-bit flat segments, no paging; */
				/* neither: real mode */
	uint64_t rax, rbx, rdx, rdi, rsi; /* boot arguments in registers */
	uint16_t real_mode_cs;  /* real mode only: CS selector, base = CS << 4 */
};

/* Per-vCPU platform state outside the VMCS. */
struct vcpu_platform {
	volatile uint64_t requests;     /* BIT(enum vcpu_request) */
	/*
	 * NMIs sent and not yet taken (vm_send_nmi): a request bit alone
	 * would merge two NMIs sent close together, and the CPU keeps one
	 * NMI pending beside the one it delivers.
	 */
	volatile uint32_t nmis_sent;
	struct vlapic lapic;
	struct vcpu_msrs msrs;
	volatile enum vcpu_run_state run_state;
	volatile uint8_t sipi_vector;   /* with VCPU_REQ_SIPI */
	volatile bool parked;           /* in HLT with interrupts disabled */
	struct apf_vcpu apf;            /* async page faults, under apf_lock */
	struct spinlock apf_lock;
	/* The page of the async-PF area pinned for it, if one is. */
	bool apf_area_pinned;
	uint64_t apf_area_pin;
	/*
	 * The area itself through that pin (vm_pinned_page), so that the
	 * page-ready path reads and writes the token word without the memory
	 * lock, which the paging daemon holds for long stretches on its own
	 * CPU. NULL: through vm_read_ram/vm_write_ram.
	 */
	uint8_t *apf_area;
	struct pv_eoi pv_eoi;           /* vCPU n's own (guest/pv_eoi.h) */
};

/* What boot/ hands over to build a VM (from apfvisor.cfg and UEFI). */
struct vm_spec {
	const void *kernel;
	uint64_t kernel_size;
	const char *kernel_name;        /* as configured, for messages */
	enum guest_format format;       /* guest.format */
	const void *initrd;
	uint64_t initrd_size;
	const char *initrd_name;        /* as configured (a multiboot module's */
					/* string) */
	const char *cmdline;
	struct guest_ram_layout ram;    /* guest RAM (lib/guest_ram.h) */
	unsigned vcpus;
	const struct frame_range *frames;       /* host RAM for the guest */
	unsigned nframe_ranges;
	uint64_t epoch_sec, epoch_tsc;  /* wall-clock time at a TSC value */
	uint64_t hv_start_tsc;
	struct swap_params swap;
	bool service_cpu;               /* a host CPU for the daemon alone */
	bool apf;                       /* offer async page faults */
	/*
	 * A terminal for the guest's COM1 (console.passthrough), or NULLs:
	 * write gets every byte the guest transmits, as it is; read returns
	 * one typed byte or -1. The host console's input is read as well.
	 */
	size_t (*terminal_write)(const char *bytes, size_t len, bool wait);
	int (*terminal_read)(void);
	bool hide_xsavec;               /* the host's XSAVEC is wrong */
	bool debug_hypercall;           /* debug.hypercall */
	bool testdev;                   /* guest.testdev: QEMU's pc-testdev */
	bool balloon;                   /* balloon: virtio-balloon (Linux) */
};

/*
 * Guest memory, owned by swap/ and ept/: the EPT, its shootdown state, the
 * host frames, the page states and the paging daemon. Under lock (taken
 * by faults, the daemon and hypervisor writes into guest RAM; not on VM
 * entry).
 */
struct vm_memory {
	struct spinlock lock;
	struct ept ept;
	struct ept_shootdown tlb;
	struct frame_pool pool;
	struct guest_memory ram;
	struct swap_daemon *swap;
};

/* The ACPI PM1a registers (guest/devices/acpi_tables.h). */
struct vm_acpi_pm1 {
	uint16_t status, enable, control;
};

/*
 * The virtual platform, owned by guest/devices and guest/interrupts.c:
 * under lock (vm_devices_lock) but for fw_cfg, which has its own.
 */
struct vm_devices {
	struct spinlock lock;
	/*
	 * Moves on (under lock) whenever the devices' interrupt state
	 * may have changed: a vCPU that found nothing to inject at its last
	 * poll and sees the same value need not poll again.
	 */
	volatile uint64_t irq_gen;
	struct io_registry io;          /* every device's ports and MMIO */
	struct uart uart;
	struct guest_console console;   /* its lines, printed outside lock */
	int (*terminal_read)(void);     /* console.passthrough input, or NULL */
	struct pic pic;
	struct pit pit;
	struct port61 port61;
	struct pci_host pci_host;
	struct ioapic ioapic;
	struct vm_acpi_pm1 pm1;
	struct pc_testdev testdev;      /* with config.testdev */
	uint64_t testdev_iomem_pa;      /* its scratch memory (host), or 0 */
	/* guest.balloon (guest/balloon.h): its own lock; NULL when off. */
	struct vm_balloon *balloon;
	/* The levels guest_update_irq_lines last gave the controllers. */
	bool com1_line, balloon_line;
	struct fw_cfg fw_cfg;            /* under fw_cfg_lock */
	struct spinlock fw_cfg_lock;
	/* Where the loader put the command line and the initrd (for fw_cfg). */
	struct fw_cfg_platform loaded;
};

/* What the guest is offered, fixed when the VM is built (vm_create). */
struct vm_config {
	bool is_linux;                  /* a bzImage or ELF kernel, not flat */
	/*
	 * Port 0xf4 as QEMU's isa-debug-exit (multiboot kernels): a write of
	 * V ends the run with exit status (V << 1) | 1, not a test-exit code.
	 */
	bool isa_debug_exit;
	/* guest.testdev = on: QEMU's pc-testdev (guest/devices/pc_testdev.h). */
	bool testdev;
	/* Print the VGA text screen at the end (guest/devices/vga_text.h). */
	bool show_vga_text;
	uint32_t kvm_features;          /* CPUID 0x40000001 EAX offered */
	bool hide_xsavec;               /* CPUID 0xD.1 without XSAVEC */
	/* debug.hypercall: APFVISOR_HC_DEBUG (guest/debug_hypercall.h). */
	bool debug_hypercall;
};

/* The VM-wide part of async page faults (guest/async_pf.c, apf/). */
struct vm_apf {
	struct apf_msr_env env;         /* what the async-PF MSRs check */
	struct apf_counter_sources counters;
};

/* How the run ended (vm_end): the first caller fills it. */
struct vm_end_state {
	volatile bool ended;            /* set last, once the rest is */
	bool claimed;
	bool clean;
	enum vm_end_kind kind;
	char reason[VM_END_REASON_MAX];
};

/* What the run measured (printed as counters at the end). */
struct vm_stats {
	struct {
		uint64_t hv_start, first_entry, end;
	} tsc;                          /* milestones of the run */
	struct counter_source counters;
};

struct vm {
	/* The vCPUs: vmx/ runs them, knowing them by number. */
	struct vcpu_platform plat[MAX_VCPUS];
	unsigned nvcpus;
	struct vcpu_entry_state entry;  /* how vCPU 0 starts */
	/* Makes vCPU n leave guest mode soon (set by vmx/). */
	void (*kick)(void *ctx, unsigned n);
	void *kick_ctx;
	struct vm_memory memory;
	struct vm_devices dev;
	struct vm_config config;
	struct vm_apf apf;
	struct {
		uint64_t start_tsc;             /* kvmclock 0 */
		uint64_t start_epoch_sec;       /* wall-clock time then */
		struct pvclock_scale scale;
	} clock;
	struct vm_end_state end;
	struct vm_stats stats;
};

/*
 * Builds the VM for a guest of the given kind, its image not yet loaded
 * (guest/loaders/guest_image.c loads it, then calls vm_complete); NULL
 * after an error line.
 */
struct vm *vm_create(const struct vm_spec *spec, bool is_linux);

/* What follows the image's load: the firmware's view, the counters. */
void vm_complete(struct vm *vm, const struct vm_spec *spec);

/* Sets bit req in vCPU n's request word and kicks it. */
void vm_request(struct vm *vm, unsigned n, enum vcpu_request req);

/*
 * Sets bit req without a kick: vCPU n takes it before its next entry,
 * whenever that comes (an exit it is sure to make anyway).
 */
void vm_request_no_kick(struct vm *vm, unsigned n, enum vcpu_request req);

/* An NMI for vCPU n: counted, then VCPU_REQ_NMI. */
static inline void vm_send_nmi(struct vm *vm, unsigned n)
{
	if (n >= vm->nvcpus)
		return;
	__atomic_fetch_add(&vm->plat[n].nmis_sent, 1, __ATOMIC_SEQ_CST);
	vm_request(vm, n, VCPU_REQ_NMI);
}

/*
 * pc-testdev's page flush: drops the EPT translation of the resident page
 * at gpa (guest_memory_drop_translation) and waits until no vCPU can use
 * it any more; the guest's next access maps it again. Takes memory.lock.
 */
void vm_drop_translation(struct vm *vm, uint64_t gpa);

/* Takes and clears vCPU n's requests (the vCPU itself, before entry). */
static inline uint64_t vm_take_requests(struct vm *vm, unsigned n)
{
	return __atomic_exchange_n(&vm->plat[n].requests, 0, __ATOMIC_ACQ_REL);
}

static inline bool vcpu_platform_has_requests(const struct vcpu_platform *p)
{
	return __atomic_load_n(&p->requests, __ATOMIC_SEQ_CST) != 0;
}

static inline bool vm_has_requests(const struct vm *vm, unsigned n)
{
	return vcpu_platform_has_requests(&vm->plat[n]);
}

/*
 * The virtual devices' lock. A section that may have changed what an
 * interrupt poll finds (an APIC register or IRR, the 8259s, the UART's
 * interrupt line, a timer) ends with changed = true, which moves irq_gen
 * on; only a section that changes none of that passes false. A vCPU's own
 * poll (vmx/vcpu_events.c) keeps track of its changes itself.
 */
static inline void vm_devices_lock(struct vm *vm)
{
	spin_lock(&vm->dev.lock);
}

static inline void vm_devices_unlock(struct vm *vm, bool changed)
{
	if (changed)
		__atomic_store_n(&vm->dev.irq_gen, vm->dev.irq_gen + 1,
				 __ATOMIC_RELEASE);
	spin_unlock(&vm->dev.lock);
}

static inline uint64_t vm_irq_gen(const struct vm *vm)
{
	return __atomic_load_n(&vm->dev.irq_gen, __ATOMIC_ACQUIRE);
}

/*
 * Records why the guest ends (first caller wins) and asks every vCPU to
 * stop. clean = the guest asked for it (test exit 0, HLT with interrupts
 * off, power-off).
 */
void vm_end(struct vm *vm, bool clean, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* As vm_end, for a power-off or reset (printed as such). */
void vm_end_as(struct vm *vm, enum vm_end_kind kind, bool clean,
	       const char *fmt, ...) PRINTF_LIKE(4, 5);

/*
 * The guest-RAM interface for device models and loaders: writes into
 * guest RAM from the hypervisor (loaders, kvmclock, later the async-PF
 * area), bringing evicted pages back first. Returns 0, or -1 (outside RAM,
 * or a page that cannot come back).
 */
int vm_write_ram(struct vm *vm, uint64_t gpa, const void *src, uint64_t len);

/*
 * Keeps the page holding gpa resident (brought back first if need be)
 * until vm_unpin_ram: for pages the hypervisor writes on its own, such as
 * a vCPU's async-PF area or kvmclock record. 0, or -1.
 */
int vm_pin_ram(struct vm *vm, uint64_t gpa);
void vm_unpin_ram(struct vm *vm, uint64_t gpa);

/*
 * The hypervisor's pointer to the page of gpa, pinned by vm_pin_ram, for
 * access without the memory lock (guest_memory_pinned_page). NULL: none.
 */
void *vm_pinned_page(struct vm *vm, uint64_t gpa);

/* Reads guest RAM the same way (bringing evicted pages back): 0 or -1. */
int vm_read_ram(struct vm *vm, uint64_t gpa, void *dst, uint64_t len);

/*
 * Polls the host console for input to the guest's COM1, flushes an
 * idle partial output line and sends the host console's held output as
 * far as the UART takes it (con_poll); vCPU 0 hears of new input by a
 * request. Two callers: the service CPU (boot/hv_main.c, service_loop),
 * which has nothing else to wait on, 1000 times a second, and without
 * one vCPU 0 on its way back into the guest (vmx/vcpu_events.c) 100
 * times, where a poll is time taken from the guest (1000 cost the
 * exitcost guest's HLT-timer round trip 11%: 1,146 cycles against
 * 1,050). Without a service CPU held output thus leaves at 16 bytes a
 * poll, and at each line printed, slower than the UART could take it: it
 * waits in the ring, and the end sends the rest.
 */
#define VM_CONSOLE_POLLS_SERVICE_CPU 1000
#define VM_CONSOLE_POLLS_VCPU0 100
void vm_poll_console(struct vm *vm);

/* Prints how the guest ended (the "guest halted/powered off" lines). */
void vm_report_end(const struct vm *vm);

#endif
