/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: an emulated MMIO access from the EPT violation to the
 * register written back (vmx/exit_mmio.c handle_mmio): the instruction
 * fetched at CS:RIP through the guest's page tables
 * (guest/guest_pagewalk.c), decoded (guest/mmio_decode.c), performed on
 * the vCPU's xAPIC page (guest/vlapic*.c), the I/O APIC page
 * (guest/devices/ioapic.c) or an address where there is nothing, and the result
 * merged into the register. Built with tests/unit/fake_exits first on the
 * include path (a VMCS of plain words); the guest's RAM, IPI delivery and
 * the VM's end are defined here.
 *
 * The input is a header (fuzz_take), then the guest's RAM as
 * tests/fuzz/fuzz_guest_ram.h pieces (64 KiB at 0 and, as page 16, the
 * page below 4 GiB, where a ROM would be): the first `pieces` of them before
 * the first exit, the rest (the code changed, by another vCPU say)
 * between the first exit and the second. The header: CR0, CR3, CR4,
 * EFER (IA-32e mode with paging and PAE), CS and SS access rights (64-,
 * 32- or 16-bit code, user or supervisor), the CS base, RIP (the code may
 * cross pages, and 4 GiB outside 64-bit code), a seed for the sixteen
 * registers, the local APIC's mode (xAPIC at its reset base or
 * relocated, x2APIC, disabled; software-enabled or not), then for each of
 * the two exits whether it was a store and the guest-physical address
 * (in the xAPIC page, the I/O APIC page, or anywhere); the second exit is
 * at the same RIP (another try) or at the next instruction.
 *
 * The check is a model: the instruction's bytes fetched one by one, each
 * through its own page walk of the RAM as it stands (wrapping at 4 GiB
 * outside 64-bit code), up to the first byte that cannot be read, and
 * decoded. Where the model finds a decodable MOV whose direction is that
 * of the exit (in 32- or 64-bit code), the handler must resume with RIP
 * past exactly that many bytes, the device state equal to the model's
 * copy after the same access (same offset, size and value; for the xAPIC
 * the same IPI routed on), a load's register holding the device's value
 * (all ones where there is no device) merged as the CPU merges it, and no
 * other register changed; elsewhere it must end the VM and change
 * nothing. Besides, RAM is only read.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "arch/x86/cpu.h"
#include "guest/guest_pagewalk.h"
#include "guest/interrupts.h"
#include "guest/devices/ioapic.h"
#include "guest/io_mmio.h"
#include "guest/mmio_decode.h"
#include "guest/devices/vlapic_mmio.h"
#include "vmx/ept_qualification.h"
#include "vmx/exit_handlers.h"
#include "vmx/vmx_ops.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_guest_ram.h"
#include "tests/fuzz/fuzz_script.h"

#define LOW_RAM (64u << 10)
#define TOP_PAGE 0xfffff000ull  /* one more page: the last below 4 GiB */
#define RAM_SIZE (LOW_RAM + 4096u)
#define TSC_HZ 2000000000ull
#define CS_AR_D BIT(14)

uint64_t fake_vmcs[FAKE_VMCS_FIELDS];
static struct vm vm;
static struct vcpu v;
static uint8_t ram[RAM_SIZE];
static uint64_t now;

/* Where len bytes at gpa lie in ram[], or NULL: not all in one part. */
static uint8_t *ram_at(uint64_t gpa, uint64_t len)
{
	if (gpa < LOW_RAM && len <= LOW_RAM - gpa)
		return ram + gpa;
	if (gpa >= TOP_PAGE && gpa < (1ull << 32) &&
	    len <= (1ull << 32) - gpa)
		return ram + LOW_RAM + (gpa - TOP_PAGE);
	return NULL;
}

/* What the handler did, as the fakes saw it. */
static struct {
	bool ended;
	unsigned ipis, eois;
	struct vlapic_ipi ipi;
	uint8_t eoi_vector;
} seen;

/* ---- what exit_mmio.c and the devices call ---- */

uint64_t rdtsc(void)
{
	return now;
}

uint64_t rdmsr(uint32_t msr)
{
	(void)msr;
	return 0;
}

void cpuid_count(uint32_t leaf, uint32_t subleaf, struct cpuid_regs *r)
{
	(void)leaf;
	(void)subleaf;
	memset(r, 0, sizeof(*r));
}

void xsetbv(uint32_t xcr, uint64_t value)
{
	(void)xcr;
	(void)value;
}

uint64_t read_dr6(void)
{
	return 0;
}

void write_dr6(uint64_t value)
{
	(void)value;
}

int vm_read_ram(struct vm *g, uint64_t gpa, void *dst, uint64_t len)
{
	uint8_t *at = ram_at(gpa, len);

	CHECK(g == &vm && len >= 1 && len <= MMIO_INSN_MAX);
	if (!at)
		return -1;
	memcpy(dst, at, len);
	return 0;
}

int vm_write_ram(struct vm *g, uint64_t gpa, const void *src, uint64_t len)
{
	(void)g;
	(void)gpa;
	(void)src;
	(void)len;
	CHECK(!"handle_mmio writes no guest RAM");
	return -1;
}

void vm_end(struct vm *g, bool clean, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	CHECK(g == &vm && !clean && !seen.ended);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	CHECK(strlen(line) < sizeof(line) - 1);
	seen.ended = true;
	g->end.ended = true;
}

void guest_deliver_ipi(struct vm *g, const struct vlapic_ipi *ipi)
{
	CHECK(g == &vm);
	seen.ipis++;
	seen.ipi = *ipi;
}

void guest_level_eoi(struct vm *g, uint8_t vector)
{
	CHECK(g == &vm);
	seen.eois++;
	seen.eoi_vector = vector;
}

static void ioapic_deliver(void *ctx, const struct ioapic_message *m)
{
	(void)ctx;
	(void)m;
}

void vmx_inject_exception(uint8_t vector, bool has_error_code,
			  uint32_t error_code)
{
	(void)vector;
	(void)has_error_code;
	(void)error_code;
	CHECK(!"handle_mmio injects no exception");
}

/* ---- the model ---- */

static int model_read(void *ctx, uint64_t gpa, void *buf, unsigned len)
{
	uint8_t *at = ram_at(gpa, len);

	(void)ctx;
	if (!at)
		return -1;
	memcpy(buf, at, len);
	return 0;
}

/* The bytes at CS:RIP, each walked on its own, up to the first missing. */
static unsigned model_fetch(bool mode64, uint64_t rip, uint8_t *bytes)
{
	struct guest_paging p = {
		fake_vmcs[VMCS_GUEST_CR0], fake_vmcs[VMCS_GUEST_CR3],
		fake_vmcs[VMCS_GUEST_CR4], fake_vmcs[VMCS_GUEST_IA32_EFER],
	};
	bool user = (fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] >> 5 & 3) == 3;
	uint64_t la = mode64 ? rip : fake_vmcs[VMCS_GUEST_CS_BASE] + rip;
	unsigned n;

	for (n = 0; n < MMIO_INSN_MAX; n++) {
		uint64_t byte_la = la + n, gpa;
		uint32_t err;

		if (!mode64)
			byte_la &= 0xffffffffull;
		if (guest_pagewalk(&p, byte_la, false, user, model_read, NULL,
				   &gpa, &err) != GUEST_WALK_OK ||
		    !ram_at(gpa, 1))
			break;
		bytes[n] = *ram_at(gpa, 1);
	}
	return n;
}

static uint64_t *gpr(enum mmio_gpr r)
{
	uint64_t *slots[MMIO_GPR_COUNT] = {
		&v.regs.rax, &v.regs.rcx, &v.regs.rdx, &v.regs.rbx,
		&fake_vmcs[VMCS_GUEST_RSP], &v.regs.rbp, &v.regs.rsi,
		&v.regs.rdi, &v.regs.r8, &v.regs.r9, &v.regs.r10, &v.regs.r11,
		&v.regs.r12, &v.regs.r13, &v.regs.r14, &v.regs.r15,
	};

	return slots[r];
}

/* One exit at rip for an access to gpa; false when the VM ended. */
static bool one_exit(uint64_t rip, bool write, uint64_t gpa, uint64_t *next)
{
	struct vmx_exit ex = {
		.reason = 48,
		.qualification = write ? EPT_QUAL_WRITE : EPT_QUAL_READ,
		.guest_rip = rip,
	};
	uint32_t cs = (uint32_t)fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS];
	bool mode64 = vcpu_in_64bit_code();
	bool decodable = mode64 || (cs & CS_AR_D);
	struct vlapic *lapic = &vm.plat[0].lapic, lapic_model = *lapic;
	struct ioapic ioapic_model = vm.dev.ioapic;
	uint64_t regs_before[MMIO_GPR_COUNT], emulated = v.stats.mmio_emulated;
	struct vlapic_ipi ipi = { 0 };
	uint8_t bytes[MMIO_INSN_MAX];
	struct mmio_insn insn;
	struct guest_mmio_hit hit;
	enum exit_action a;
	unsigned n;
	bool ok;
	int rc = 0;

	for (unsigned r = 0; r < MMIO_GPR_COUNT; r++)
		regs_before[r] = *gpr(r);
	fake_vmcs[VMCS_GUEST_RIP] = rip;
	n = model_fetch(mode64, rip, bytes);
	ok = decodable &&
	     mmio_decode(bytes, n, mode64 ? MMIO_MODE_64 : MMIO_MODE_32,
			 &insn) && insn.write == write;

	memset(&seen, 0, sizeof(seen));
	a = handle_mmio(&v, &ex, gpa,
			vmx_mmio_range(&v, gpa, &hit) ? &hit : NULL);

	if (!ok) {
		CHECK(a == EXIT_STOP && seen.ended);
		CHECK(fake_vmcs[VMCS_GUEST_RIP] == rip);
		CHECK(v.stats.mmio_emulated == emulated);
		for (unsigned r = 0; r < MMIO_GPR_COUNT; r++)
			CHECK(*gpr(r) == regs_before[r]);
		CHECK(!memcmp(lapic, &lapic_model, sizeof(*lapic)));
		CHECK(!memcmp(&vm.dev.ioapic, &ioapic_model,
			      sizeof(vm.dev.ioapic)));
		CHECK(!seen.ipis && !seen.eois);
		return false;
	}
	CHECK(a == EXIT_RESUME && !seen.ended);
	CHECK(v.stats.mmio_emulated == emulated + 1);
	*next = rip + insn.length;
	if (!mode64)
		*next &= 0xffffffffull;
	CHECK(fake_vmcs[VMCS_GUEST_RIP] == *next);

	/* The same access on the model's copies of the devices. */
	uint64_t value = ~0ull;
	bool on_lapic = vlapic_mmio_owns(&lapic_model, gpa);
	bool on_ioapic = !on_lapic && ioapic_owns_address(gpa);

	if (write) {
		uint32_t stored = (uint32_t)mmio_store_value(
			&insn, regs_before[insn.reg]);

		if (on_lapic)
			rc = vlapic_mmio_write(&lapic_model,
					       (uint32_t)(gpa -
					       vlapic_mmio_base(&lapic_model)),
					       insn.size, stored, now, &ipi);
		else if (on_ioapic)
			ioapic_write(&ioapic_model, gpa - IOAPIC_BASE,
				     insn.size, stored);
	} else if (on_lapic) {
		value = vlapic_mmio_read(&lapic_model,
					 (uint32_t)(gpa -
					 vlapic_mmio_base(&lapic_model)),
					 insn.size, now);
	} else if (on_ioapic) {
		value = ioapic_read(&ioapic_model, gpa - IOAPIC_BASE,
				    insn.size);
	}
	CHECK(!memcmp(lapic, &lapic_model, sizeof(*lapic)));
	CHECK(!memcmp(&vm.dev.ioapic, &ioapic_model,
			      sizeof(vm.dev.ioapic)));
	CHECK(seen.ipis == (rc != VLAPIC_GP && (rc & VLAPIC_WR_IPI) ? 1u : 0));
	if (seen.ipis)          /* field by field: the padding is not set */
		CHECK(seen.ipi.mode == ipi.mode &&
		      seen.ipi.shorthand == ipi.shorthand &&
		      seen.ipi.vector == ipi.vector &&
		      seen.ipi.logical == ipi.logical &&
		      seen.ipi.dest == ipi.dest &&
		      seen.ipi.source == ipi.source);
	CHECK(seen.eois == (rc != VLAPIC_GP && (rc & VLAPIC_WR_LEVEL_EOI) ?
			    1u : 0));
	for (unsigned r = 0; r < MMIO_GPR_COUNT; r++) {
		uint64_t want = regs_before[r];

		if (!write && r == insn.reg)
			want = mmio_merge_load(&insn, want, value);
		CHECK(*gpr(r) == want);
	}
	return true;
}

static uint64_t exit_gpa(struct fuzz_script *in)
{
	unsigned where = (unsigned)fuzz_take(in, 1) % 4;
	uint64_t offset = fuzz_take(in, 2) & 0xfff;

	switch (where) {
	case 0:
		return vlapic_mmio_base(&vm.plat[0].lapic) + offset;
	case 1:
		return IOAPIC_BASE + offset;
	case 2:                 /* nothing there: below or above the pages */
		return (offset & 1 ? IOAPIC_BASE + IOAPIC_PAGE_SIZE
				   : VLAPIC_DEFAULT_BASE + VLAPIC_MMIO_SIZE) +
		       offset;
	default:
		return fuzz_take(in, 8);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	uint64_t cr0, cr4, efer, rip, seed, gpa[2], next;
	struct vlapic *a = &vm.plat[0].lapic;
	unsigned how, pieces;

	memset(&vm, 0, sizeof(vm));
	memset(&v, 0, sizeof(v));
	v.guest = &vm;
	v.plat = &vm.plat[0];
	vm.nvcpus = 1;
	now = 1000;
	fake_vmcs[VMCS_GUEST_INTERRUPTIBILITY] = 0;
	fake_vmcs[VMCS_GUEST_PENDING_DEBUG] = 0;
	fake_vmcs[VMCS_GUEST_RFLAGS] = 2;

	cr0 = fuzz_take(&in, 4);
	fake_vmcs[VMCS_GUEST_CR3] = fuzz_take(&in, 8);
	cr4 = fuzz_take(&in, 4);
	efer = fuzz_take(&in, 2);
	if (efer & EFER_LMA) {  /* what VM entry guarantees */
		cr0 |= CR0_PG | CR0_PE;
		cr4 |= CR4_PAE;
		efer |= EFER_LME;
	}
	if (cr0 & CR0_PG)
		cr0 |= CR0_PE;
	fake_vmcs[VMCS_GUEST_CR0] = cr0;
	fake_vmcs[VMCS_GUEST_CR4] = cr4;
	fake_vmcs[VMCS_GUEST_IA32_EFER] = efer;
	fake_vmcs[VMCS_GUEST_CS_ACCESS_RIGHTS] = fuzz_take(&in, 2);
	fake_vmcs[VMCS_GUEST_SS_ACCESS_RIGHTS] = fuzz_take(&in, 1);
	fake_vmcs[VMCS_GUEST_CS_BASE] = fuzz_take(&in, 4);
	rip = fuzz_take(&in, 8);
	if (!vcpu_in_64bit_code())
		rip &= 0xffffffffull;           /* EIP */
	seed = fuzz_take(&in, 8);
	for (unsigned r = 0; r < MMIO_GPR_COUNT; r++)
		*gpr(r) = seed ^ (0x9e3779b97f4a7c15ull * (r + 1));

	/* The local APIC: bits 0-1 mode, bit 2 software-enabled. */
	how = (unsigned)fuzz_take(&in, 1);
	vlapic_init(a, 0, true, TSC_HZ);
	switch (how & 3) {
	case 1:                 /* relocated (xAPIC) */
		vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE,
			     (fuzz_take(&in, 4) << 12 & VLAPIC_BASE_ADDR_MASK) |
			     VLAPIC_BASE_EN | VLAPIC_BASE_BSP, now, NULL);
		break;
	case 2:                 /* x2APIC: the page is not the APIC */
		vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE, a->apic_base |
			     VLAPIC_BASE_EXTD, now, NULL);
		break;
	case 3:                 /* disabled */
		vlapic_wrmsr(a, VLAPIC_MSR_APIC_BASE,
			     a->apic_base & ~VLAPIC_BASE_EN, now, NULL);
		break;
	}
	if ((how & 4) && vlapic_xapic_mode(a)) {
		struct vlapic_ipi ipi;

		vlapic_mmio_write(a, 0xf0, 4, 0x1ff, now, &ipi);
	}
	ioapic_init(&vm.dev.ioapic, ioapic_deliver, NULL);
	CHECK(guest_io_mmio_register(&vm));

	how = (unsigned)fuzz_take(&in, 1);      /* the exits */
	gpa[0] = exit_gpa(&in);
	gpa[1] = exit_gpa(&in);
	pieces = (unsigned)fuzz_take(&in, 1);

	memset(ram, 0, RAM_SIZE);
	for (unsigned i = 0; i < pieces; i++)
		if (!fuzz_ram_piece(&in, ram, RAM_SIZE))
			break;
	if (!one_exit(rip, how & 1, gpa[0], &next))
		return 0;
	/* Another vCPU changes the code, or this one goes on. */
	while (fuzz_ram_piece(&in, ram, RAM_SIZE))
		;
	now += 12345;
	vm.end.ended = false;
	one_exit(how & 4 ? rip : next, how & 2, gpa[1], &next);
	return 0;
}
