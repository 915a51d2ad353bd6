/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the AHCI driver (swap/drivers/ahci.c, ahci_port.c,
 * ahci_cmd.c, ata_error.c, ata_identify.c, and arch/x86/pci.c for ABAR)
 * with the fuzzer as the PCI function and the HBA behind
 * swap/drivers/ahci_regs.h. swap/drivers/ahci.c is included here, not linked, so that its
 * static bring-up (bring_up_hba, probe_ports) is reached without a bus
 * scan and its state starts afresh for each input; built with
 * tests/unit/fake_x86 first on the include path (port I/O, the TSC).
 *
 * The input: the function's configuration space
 * (tests/fuzz/fuzz_pci_device.h), the HBA's CAP, CAP2 and PI, whether the
 * BIOS keeps the HBA, the boot port to skip, and for each of the first
 * four ports its PxSSTS, PxSIG and the IDENTIFY data of its disk (built
 * from a few fields: LBA48, NCQ and its depth, the capacity; then patched
 * anywhere with pieces). Then a script the HBA follows one step per PxIS
 * read (the driver reads PxIS in each wait and each poll): run the lowest
 * issued command honestly (IDENTIFY data, READ data), fail the commands
 * with a task-file error, make PxCI, PxSACT and PxIS read anything, make
 * CR, FR or BSY stick, let time pass. After the bring-up the script goes
 * on with the block layer's Read and Write requests on each disk found,
 * its polls, and the HBA's steps; at the end every request is polled back
 * with time running out.
 *
 * Beyond the sanitizers' checks (the command lists, tables and buffers
 * are the exact allocations the driver asked for):
 *   - the boot port's registers are never touched, nor those of a port
 *     not in PI (but for the global ones);
 *   - PxCLB/PxFB change only while the engine (ST, CR) or FIS receive
 *     (FRE, FR) is stopped; PxCI is written only while the engine runs,
 *     with slots below the HBA's slot count and not still running (unless
 *     the HBA made a completion up);
 *   - every command the HBA runs is one the driver built: its table and
 *     PRD inside the port's memory, one PRD of 512 bytes (IDENTIFY) or
 *     4096 bytes into the page of a request in flight, whose direction
 *     and first sector it carries, 8 sectors inside the disk;
 *   - every request is handed back exactly once, out-of-range ones as
 *     BLK_OUT_OF_RANGE.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swap/drivers/ahci.c"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_guest_ram.h"
#include "tests/fuzz/fuzz_pages.h"
#include "tests/fuzz/fuzz_pci_device.h"
#include "tests/fuzz/fuzz_script.h"

#define PORTS 4                 /* ports with a disk model */
#define MAX_REQUESTS 96
#define MAX_ALLOCS 16

uint64_t tsc_hz = 1000000000ull;

/* ---- the rest of apfvisor ---- */

static struct {
	struct fuzz_script *in;
	uint64_t tsc;
	void *allocs[MAX_ALLOCS];
	unsigned nallocs;
} env;

uint64_t rdtsc(void)
{
	/* 1 ms a read while the script lasts, then racing on. */
	env.tsc += env.in->left ? 1000000 : 1ull << 40;
	return env.tsc;
}

void hv_info(const char *fmt, ...)
{
	(void)fmt;
}

void hv_error(const char *fmt, ...)
{
	(void)fmt;
}

void *hv_alloc(size_t bytes)
{
	CHECK(env.nallocs < MAX_ALLOCS);
	env.allocs[env.nallocs] = calloc(1, bytes);
	CHECK(env.allocs[env.nallocs]);
	return env.allocs[env.nallocs++];
}

uint64_t hv_alloc_pages_low(unsigned npages)
{
	void *p = fuzz_pages_alloc(npages);

	CHECK(p);
	return (uintptr_t)p;
}

/* ---- the HBA ---- */

struct hport {
	uint32_t clb, clbu, fb, fbu, is, cmd, tfd, sig, ssts, sctl, serr, sact;
	uint32_t ci;
	uint32_t issued;                /* by the driver, not yet run */
	bool cr_stuck, fr_stuck, busy;
	bool lied;                      /* PxCI/PxSACT read made-up values */
	uint16_t identify[256];
};

/* A request the block layer has out. */
struct request {
	uint8_t *page;
	uint64_t offset;
	struct blockdev *dev;
	enum blk_op op;
	bool out, in_range;
};

static struct {
	uint32_t cap, cap2, pi, ghc, bohc;
	bool bios_keeps;
	int skip;                       /* the boot port, -1: none */
	struct hport port[AHCI_MAX_PORTS];
	struct request req[MAX_REQUESTS];
	unsigned nreq;
} hba;

static uint64_t addr(uint32_t lo, uint32_t hi)
{
	return lo | (uint64_t)hi << 32;
}

/* The disk's size in sectors as its IDENTIFY data says. */
static uint64_t disk_sectors(const struct hport *p)
{
	struct ata_identity id;

	return ata_identity_parse(p->identify, &id) ? 0 : id.sectors;
}

static struct request *request_at(uint64_t pa)
{
	for (unsigned i = 0; i < hba.nreq; i++)
		if (hba.req[i].out && (uintptr_t)hba.req[i].page == pa)
			return &hba.req[i];
	return NULL;
}

/*
 * Command slot s of port n as the HBA would fetch it, checked; the data
 * buffer it names (NULL: nothing to move).
 */
static uint8_t *fetch(unsigned n, unsigned s, uint8_t *command)
{
	struct hport *p = &hba.port[n];
	uint64_t clb = addr(p->clb, p->clbu), ctba, dba, lba;
	struct ahci_cmd_header h;
	struct ahci_cmd_table t;
	struct request *r;
	unsigned count, bytes;

	CHECK(fuzz_pages_holding(clb, AHCI_CMD_LIST_BYTES) >= 0);
	memcpy(&h, (void *)(uintptr_t)(clb + 32u * s), sizeof(h));
	ctba = addr(h.ctba, h.ctbau);
	CHECK(ctba % 128 == 0);
	CHECK(fuzz_pages_holding(ctba, sizeof(t)) ==
	      fuzz_pages_holding(clb, 1));
	memcpy(&t, (void *)(uintptr_t)ctba, sizeof(t));
	CHECK(h.flags >> 16 == 1);              /* one PRD */
	CHECK(t.cfis[0] == FIS_TYPE_REG_H2D && (t.cfis[1] & FIS_H2D_COMMAND));
	*command = t.cfis[2];
	dba = addr(t.prdt[0].dba, t.prdt[0].dbau);
	bytes = (t.prdt[0].dbc & 0x3fffff) + 1;
	if (*command == ATA_CMD_IDENTIFY_DEVICE) {
		CHECK(bytes == 512 && fuzz_pages_holding(dba, 512) >= 0);
		return (uint8_t *)(uintptr_t)dba;
	}
	/* READ/WRITE DMA EXT, or FPDMA QUEUED with the slot as its tag. */
	lba = t.cfis[4] | (uint64_t)t.cfis[5] << 8 |
	      (uint64_t)t.cfis[6] << 16 | (uint64_t)t.cfis[8] << 24 |
	      (uint64_t)t.cfis[9] << 32 | (uint64_t)t.cfis[10] << 40;
	if (*command == ATA_CMD_READ_FPDMA_QUEUED ||
	    *command == ATA_CMD_WRITE_FPDMA_QUEUED) {
		count = t.cfis[3] | t.cfis[11] << 8;    /* features */
		CHECK(t.cfis[12] >> 3 == s);            /* the tag */
	} else {
		CHECK(*command == ATA_CMD_READ_DMA_EXT ||
		      *command == ATA_CMD_WRITE_DMA_EXT);
		count = t.cfis[12] | t.cfis[13] << 8;
	}
	r = request_at(dba);
	CHECK(r && bytes == PAGE_SIZE && count == PAGE_SIZE / 512);
	CHECK((r->op == BLK_WRITE) ==
	      (*command == ATA_CMD_WRITE_DMA_EXT ||
	       *command == ATA_CMD_WRITE_FPDMA_QUEUED));
	CHECK(!!(h.flags & AHCI_HDR_WRITE) == (r->op == BLK_WRITE));
	CHECK(lba * 512 == r->offset);
	CHECK(lba + count <= disk_sectors(p));
	return r->page;
}

/* The lowest issued slot of port n, run as a disk runs it. */
static void run_one(unsigned n)
{
	struct hport *p = &hba.port[n];
	uint32_t pending = p->issued;
	uint8_t command, *buf;
	unsigned s;

	if (!pending || !(p->cmd & PX_CMD_ST))
		return;
	s = (unsigned)__builtin_ctz(pending);
	buf = fetch(n, s, &command);
	if (command == ATA_CMD_IDENTIFY_DEVICE)
		memcpy(buf, p->identify, 512);
	else if (command == ATA_CMD_READ_DMA_EXT ||
		 command == ATA_CMD_READ_FPDMA_QUEUED)
		memset(buf, (int)(n + s), PAGE_SIZE);
	p->ci &= ~(uint32_t)BIT(s);
	p->sact &= ~(uint32_t)BIT(s);
	p->issued &= ~(uint32_t)BIT(s);
}

static void step(void)
{
	struct fuzz_script *in = env.in;
	unsigned op = (unsigned)fuzz_take(in, 1), n = (op >> 3) % PORTS;
	struct hport *p = &hba.port[n];

	if ((int)n == hba.skip)
		return;
	switch (op & 7) {
	case 1:
	case 2:
		run_one(n);
		break;
	case 3:                 /* a task-file error */
		p->is |= PX_IS_TFES;
		p->tfd = ATA_STS_ERR | (uint32_t)fuzz_take(in, 1) << 8;
		break;
	case 4:                 /* the registers say anything */
		p->is = (uint32_t)fuzz_take(in, 4);
		p->ci = (uint32_t)fuzz_take(in, 4);
		p->sact = (uint32_t)fuzz_take(in, 4);
		p->lied = true;
		/* Slots no longer in PxCI may be done for the driver: the
		 * HBA drops them, never to run them later. */
		p->issued &= p->ci;
		break;
	case 5: {
		unsigned bits = (unsigned)fuzz_take(in, 1);

		p->cr_stuck = bits & 1;
		p->fr_stuck = bits & 2;
		p->busy = bits & 4;
		break;
	}
	case 6:
		env.tsc += fuzz_take(in, 2) * 1000000ull;
		break;
	default:
		break;
	}
}

static void check_port(unsigned n)
{
	CHECK(n < AHCI_MAX_PORTS && (hba.pi & BIT(n)));
	CHECK((int)n != hba.skip);
}

static uint32_t port_read(unsigned n, uint32_t reg)
{
	struct hport *p = &hba.port[n];

	check_port(n);
	switch (reg) {
	case PX_IS:
		step();
		return p->is;
	case PX_CMD:
		return p->cmd;
	case PX_TFD:
		return p->busy ? p->tfd | ATA_STS_BSY : p->tfd;
	case PX_SIG:
		return p->sig;
	case PX_SSTS:
		return p->ssts;
	case PX_SCTL:
		return p->sctl;
	case PX_SERR:
		return p->serr;
	case PX_SACT:
		return p->sact;
	case PX_CI:
		return p->ci;
	case PX_CLB:
		return p->clb;
	case PX_FB:
		return p->fb;
	default:
		return 0;
	}
}

static void port_write(unsigned n, uint32_t reg, uint32_t v)
{
	struct hport *p = &hba.port[n];
	uint32_t slots = AHCI_CAP_NCS(hba.cap);

	check_port(n);
	switch (reg) {
	case PX_CLB:
	case PX_CLBU:
		CHECK(!(p->cmd & (PX_CMD_ST | PX_CMD_CR)));
		*(reg == PX_CLB ? &p->clb : &p->clbu) = v;
		break;
	case PX_FB:
	case PX_FBU:
		CHECK(!(p->cmd & (PX_CMD_FRE | PX_CMD_FR)));
		*(reg == PX_FB ? &p->fb : &p->fbu) = v;
		break;
	case PX_IS:
		p->is &= ~v;
		break;
	case PX_SERR:
		p->serr &= ~v;
		break;
	case PX_IE:
		CHECK(v == 0);
		break;
	case PX_CMD: {
		uint32_t old = p->cmd;

		/* FIS receive and the engine run on the driver's memory. */
		if ((v & PX_CMD_FRE) && !(old & PX_CMD_FRE))
			CHECK(fuzz_pages_holding(addr(p->fb, p->fbu),
						 AHCI_RX_FIS_BYTES) >= 0);
		if ((v & PX_CMD_ST) && !(old & PX_CMD_ST))
			CHECK(fuzz_pages_holding(addr(p->clb, p->clbu),
						 AHCI_CMD_LIST_BYTES) >= 0);
		/* ST 1 -> 0 clears PxCI and PxSACT (3.3.7). */
		if ((old & PX_CMD_ST) && !(v & PX_CMD_ST))
			p->ci = p->sact = p->issued = 0;
		/* CLO clears BSY and DRQ at once and itself. */
		if (v & PX_CMD_CLO)
			p->busy = false;
		v &= ~(uint32_t)(PX_CMD_CR | PX_CMD_FR | PX_CMD_CLO);
		/* CR follows ST and FR follows FRE, unless told to stick. */
		if ((v & PX_CMD_ST) || (p->cr_stuck && (old & PX_CMD_CR)))
			v |= PX_CMD_CR;
		if ((v & PX_CMD_FRE) || (p->fr_stuck && (old & PX_CMD_FR)))
			v |= PX_CMD_FR;
		p->cmd = v;
		break;
	}
	case PX_SCTL:
		/* DET: 0 or a COMRESET (1), and that only while the command
		 * list engine is stopped (10.4.2), which ended what ran. */
		CHECK((v & PX_SCTL_DET_MASK) <= PX_SCTL_DET_COMRESET);
		if (v & PX_SCTL_DET_COMRESET)
			CHECK(!(p->cmd & (PX_CMD_ST | PX_CMD_CR)) &&
			      !p->issued);
		p->sctl = v;
		break;
	case PX_SACT:
		CHECK(p->cmd & PX_CMD_ST);
		CHECK(v && (slots == 32 || v >> slots == 0));
		p->sact |= v;
		break;
	case PX_CI:
		CHECK((p->cmd & PX_CMD_ST) && (p->cmd & PX_CMD_CR));
		CHECK(v && (slots == 32 || v >> slots == 0));
		/* A slot still running is not issued again (unless the HBA
		 * made its completion up). */
		CHECK(!(v & p->ci) || p->lied);
		p->ci |= v;
		p->issued |= v;
		break;
	default:
		CHECK(!"a port register the driver never writes");
	}
}

uint32_t ahci_read32(const struct ahci_hba *h, uint32_t reg)
{
	(void)h;
	if (reg >= AHCI_PORT_BASE(0))
		return port_read((reg - AHCI_PORT_BASE(0)) / 0x80,
				 (reg - AHCI_PORT_BASE(0)) % 0x80);
	switch (reg) {
	case AHCI_CAP:
		return hba.cap;
	case AHCI_GHC:
		return hba.ghc;
	case AHCI_PI:
		return hba.pi;
	case AHCI_CAP2:
		return hba.cap2;
	case AHCI_BOHC:
		return hba.bohc;
	default:
		return 0;
	}
}

void ahci_write32(const struct ahci_hba *h, uint32_t reg, uint32_t value)
{
	(void)h;
	if (reg >= AHCI_PORT_BASE(0)) {
		port_write((reg - AHCI_PORT_BASE(0)) / 0x80,
			   (reg - AHCI_PORT_BASE(0)) % 0x80, value);
		return;
	}
	switch (reg) {
	case AHCI_GHC:
		CHECK(value & AHCI_GHC_AE);
		CHECK(!(value & AHCI_GHC_IE));
		hba.ghc = value;
		break;
	case AHCI_BOHC:
		CHECK(hba.cap2 & AHCI_CAP2_BOH);
		hba.bohc = value;
		if ((value & AHCI_BOHC_OOS) && !hba.bios_keeps)
			hba.bohc &= ~(uint32_t)(AHCI_BOHC_BOS | AHCI_BOHC_BB);
		break;
	default:
		CHECK(!"a global register the driver never writes");
	}
}

/* ---- the input ---- */

static void take_disk(struct fuzz_script *in, unsigned n)
{
	struct hport *p = &hba.port[n];
	unsigned flags = (unsigned)fuzz_take(in, 1);
	uint64_t sectors = fuzz_take(in, 4) + 8;
	uint16_t *w = p->identify;

	p->ssts = (uint32_t)fuzz_take(in, 1);
	p->sig = flags & 0x80 ? (uint32_t)fuzz_take(in, 4) : AHCI_SIG_ATA;
	p->tfd = 0x50;                          /* DRDY, DSC */
	/* Firmware ran the port: ST, FRE, CR, FR set. */
	p->cmd = PX_CMD_ST | PX_CMD_FRE | PX_CMD_CR | PX_CMD_FR;
	memset(w, 0, sizeof(p->identify));
	for (unsigned i = 27; i < 47; i++)
		w[i] = 0x2020;                  /* the model: blanks */
	memcpy(w + 27, "ufzzd si k", 10);       /* "fuzz disk", swapped */
	w[49] = BIT(9);                         /* LBA */
	w[60] = (uint16_t)MIN(sectors, 0x0fffffff);
	w[61] = (uint16_t)(MIN(sectors, 0x0fffffff) >> 16);
	if (flags & 1) {                        /* LBA48 */
		w[83] = 0x4000 | BIT(10);
		w[100] = (uint16_t)sectors;
		w[101] = (uint16_t)(sectors >> 16);
	}
	if (flags & 2) {                        /* NCQ */
		w[76] = BIT(8);
		w[75] = (uint16_t)(fuzz_take(in, 1) & 0x1f);
	}
	for (unsigned i = flags >> 2 & 3; i; i--)
		fuzz_ram_piece(in, (uint8_t *)w, sizeof(p->identify));
}

/* ---- the block layer's side ---- */

static void take_completions(struct blockdev *b, unsigned max)
{
	struct blk_completion out[AHCI_MAX_SLOTS];
	unsigned n = b->ops->poll(b, out, max);

	CHECK(n <= max);
	for (unsigned i = 0; i < n; i++) {
		struct request *r = out[i].cookie;

		CHECK(r >= hba.req && r < hba.req + hba.nreq && r->out);
		CHECK(r->dev == b);
		CHECK(out[i].status == BLK_OK || out[i].status == BLK_IO_ERROR ||
		      out[i].status == BLK_OUT_OF_RANGE);
		CHECK(out[i].status != BLK_OUT_OF_RANGE || !r->in_range);
		CHECK(r->in_range || out[i].status != BLK_OK);
		r->out = false;
		fuzz_page_free(r->page);
	}
}

static void submit(struct blockdev *b, unsigned how)
{
	struct request *r;
	uint64_t offset = how & 0x40 ? fuzz_take(env.in, 8)
				     : fuzz_take(env.in, 2) * PAGE_SIZE;

	if (hba.nreq == MAX_REQUESTS)
		return;
	r = &hba.req[hba.nreq];
	*r = (struct request){
		.page = fuzz_page_alloc(),
		.offset = offset,
		.dev = b,
		.op = how & 0x80 ? BLK_WRITE : BLK_READ,
		.out = true,
		.in_range = offset % PAGE_SIZE == 0 && offset < b->size &&
			    b->size - offset >= PAGE_SIZE,
	};
	CHECK(r->page);
	if (b->ops->submit(b, &(struct blk_request){
			.op = r->op, .offset = offset,
			.buffer_pa = (uintptr_t)r->page, .cookie = r })) {
		fuzz_page_free(r->page);        /* every slot taken */
		return;
	}
	hba.nreq++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_script in = { data, size };
	struct pci_device d;
	struct ahci_hba *h = &ahci_hbas[0];
	unsigned skip;

	memset(&env, 0, sizeof(env));
	memset(&hba, 0, sizeof(hba));
	fuzz_pages_reset();
	env.in = &in;
	env.tsc = 1;
	/* swap/drivers/ahci.c's state, as at boot. */
	memset(ahci_hbas, 0, sizeof(ahci_hbas));
	ahci_nfound = 0;
	ahci_probed = false;
	boot_port.known = false;

	fuzz_pci_take(&in);
	d = fuzz_pci_device();
	hba.cap = (uint32_t)fuzz_take(&in, 4);
	hba.cap2 = (uint32_t)fuzz_take(&in, 1);
	hba.bohc = AHCI_BOHC_BOS;
	hba.pi = (uint32_t)fuzz_take(&in, 4);
	skip = (unsigned)fuzz_take(&in, 1);
	hba.bios_keeps = skip & 0x40;
	hba.skip = skip & 0x80 ? (int)(skip % PORTS) : -1;
	if (hba.skip >= 0)
		ahci_skip_boot_port(d.dev, d.fn, (unsigned)hba.skip);
	for (unsigned n = 0; n < PORTS; n++)
		take_disk(&in, n);

	if (bring_up_hba(&d, h)) {
		CHECK(h->abar && h->cap == hba.cap);
		probe_ports(&d, h);
	}
	CHECK(ahci_nfound <= PORTS);
	for (unsigned i = 0; i < ahci_nfound; i++) {
		struct ahci_disk *disk = ahci_found[i]->driver;

		CHECK(ahci_found[i]->size >= PAGE_SIZE &&
		      ahci_found[i]->size % PAGE_SIZE == 0);
		CHECK(ahci_found[i]->size / 512 <=
		      disk_sectors(&hba.port[disk->port.index]));
		CHECK(disk->port.nslots >= 1 &&
		      disk->port.nslots <= AHCI_CAP_NCS(hba.cap));
	}
	while (ahci_nfound && in.left) {
		unsigned how = (unsigned)fuzz_take(&in, 1);
		struct blockdev *b = ahci_found[(how >> 2) % ahci_nfound];

		switch (how & 3) {
		case 0:
			submit(b, how);
			break;
		case 1:
			take_completions(b, 1 + how % AHCI_MAX_SLOTS);
			break;
		default:
			step();
			break;
		}
	}
	/* Every request back, the deadlines passing. */
	for (unsigned i = 0; i < ahci_nfound; i++)
		for (unsigned n = 0; n < 4; n++)
			take_completions(ahci_found[i], AHCI_MAX_SLOTS);
	/*
	 * Every request back, but reads of a port whose engine never
	 * stopped: their pages stay held (the device may still write them).
	 */
	for (unsigned i = 0; i < hba.nreq; i++) {
		struct request *r = &hba.req[i];

		CHECK(!r->out || (r->op == BLK_READ && r->dev->frames_held));
		if (r->out)
			fuzz_page_free(r->page);
	}
	for (unsigned i = 0; i < env.nallocs; i++)
		free(env.allocs[i]);
	return 0;
}
