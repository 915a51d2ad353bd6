// SPDX-License-Identifier: BSD-2-Clause
/*
 * An AHCI port's command engine and slots (swap/drivers/ahci_port.h). Section
 * numbers are those of "Serial ATA AHCI 1.3.1"; the error handling
 * follows 6.2.2 (non-queued and NCQ error recovery) in its simplest form:
 * the port is stopped, everything in flight fails, the port is cleared
 * and started.
 */
#include "swap/drivers/ahci_port.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"
#include "swap/drivers/read_poison.h"

#define FOUR_GIB (1ull << 32)

/* ------------------------------------------------------------ registers */

static uint32_t port_read(const struct ahci_port *p, uint32_t reg)
{
	return ahci_read32(p->hba, AHCI_PORT_BASE(p->index) + reg);
}

static void port_write(const struct ahci_port *p, uint32_t reg, uint32_t v)
{
	ahci_write32(p->hba, AHCI_PORT_BASE(p->index) + reg, v);
}

static uint64_t tsc_after_ms(uint64_t ms)
{
	/* Before calibration assume 4 GHz: a wait can only get longer. */
	uint64_t hz = tsc_hz ? tsc_hz : 4000000000ull;

	return rdtsc() + hz / 1000 * ms;
}

/* Polls reg until (value & mask) == want; false on timeout. */
static bool wait_reg(const struct ahci_port *p, uint32_t reg, uint32_t mask,
		     uint32_t want, unsigned ms, uint32_t *value)
{
	uint64_t end = tsc_after_ms(ms);

	for (;;) {
		*value = port_read(p, reg);
		if ((*value & mask) == want)
			return true;
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
}

/* ----------------------------------------------------- engine control */

void ahci_port_attach(struct ahci_port *p, const struct ahci_hba *hba,
		      unsigned index, void *mem)
{
	uint8_t *m = mem;

	memset(p, 0, sizeof(*p));
	p->hba = hba;
	p->index = index;
	fmt_snprintf(p->name, sizeof(p->name), "ahci %s port%u",
		     hba->pci_name, index);
	memset(m, 0, AHCI_PORT_MEM_PAGES * PAGE_SIZE);
	p->cmd_list = (struct ahci_cmd_header *)m;
	p->rx_fis = m + AHCI_CMD_LIST_BYTES;
	p->tables = (struct ahci_cmd_table *)(m + 2 * AHCI_CMD_LIST_BYTES);
	p->nslots = 1;
	p->poison_seed = read_poison_seed(rdtsc() ^ index);
}

struct engine_part {
	uint32_t enable, running;       /* PxCMD bits */
	const char *what, *enable_name, *running_name;
};

/* Clears part's enable bit and waits until its running bit follows. */
static bool stop_part(struct ahci_port *p, const struct engine_part *part)
{
	uint32_t cmd = port_read(p, PX_CMD);

	if (cmd & part->enable)
		port_write(p, PX_CMD, cmd & ~part->enable);
	if (wait_reg(p, PX_CMD, part->running, 0, AHCI_STOP_TIMEOUT_MS, &cmd))
		return true;
	hv_error("%s: %s did not stop (PxCMD 0x%08x: %s still set %u ms "
		 "after %s was cleared)", p->name, part->what, cmd,
		 part->running_name, AHCI_STOP_TIMEOUT_MS, part->enable_name);
	return false;
}

bool ahci_port_stop(struct ahci_port *p)
{
	static const struct engine_part command_list = {
		PX_CMD_ST, PX_CMD_CR, "the command list", "ST", "CR",
	};
	static const struct engine_part fis_receive = {
		PX_CMD_FRE, PX_CMD_FR, "FIS receive", "FRE", "FR",
	};

	return stop_part(p, &command_list) && stop_part(p, &fis_receive);
}

bool ahci_port_start(struct ahci_port *p)
{
	uint32_t cmd = port_read(p, PX_CMD), tfd;

	port_write(p, PX_CMD, cmd | PX_CMD_FRE);
	/* ST only while BSY and DRQ are clear (3.3.7, PxCMD.ST). */
	if (!wait_reg(p, PX_TFD, ATA_STS_BSY | ATA_STS_DRQ, 0,
		      AHCI_READY_TIMEOUT_MS, &tfd)) {
		hv_error("%s: the disk stays busy (PxTFD 0x%08x after %u ms); "
			 "the port is not started", p->name, tfd,
			 AHCI_READY_TIMEOUT_MS);
		return false;
	}
	cmd = port_read(p, PX_CMD);
	port_write(p, PX_CMD, cmd | PX_CMD_FRE | PX_CMD_ST);
	return true;
}

/* PxSERR and PxIS are write-one-to-clear (3.3.5, 3.3.12). */
static void clear_errors(struct ahci_port *p)
{
	port_write(p, PX_SERR, 0xffffffffu);
	port_write(p, PX_IS, 0xffffffffu);
}

bool ahci_port_init(struct ahci_port *p)
{
	uint64_t clb = (uintptr_t)p->cmd_list, fb = (uintptr_t)p->rx_fis;

	if (!ahci_port_stop(p))
		return false;
	/* PxCLB and PxFB may change only while the port is idle (3.3.1). */
	port_write(p, PX_CLB, (uint32_t)clb);
	port_write(p, PX_CLBU, (uint32_t)(clb >> 32));
	port_write(p, PX_FB, (uint32_t)fb);
	port_write(p, PX_FBU, (uint32_t)(fb >> 32));
	port_write(p, PX_IE, 0);
	clear_errors(p);
	return ahci_port_start(p);
}

/* --------------------------------------------------------- IDENTIFY */

bool ahci_port_identify(struct ahci_port *p, uint16_t *words)
{
	uint64_t end = tsc_after_ms(AHCI_IDENTIFY_TIMEOUT_MS);
	uint32_t is, ci, tfd;

	/*
	 * An IDENTIFY that ends without moving its data must not leave an
	 * earlier disk's words (the buffer serves every port) to be taken
	 * for this disk's: all zeros are no disk to use.
	 */
	memset(words, 0, AHCI_SECTOR_SIZE);
	ahci_cmd_build_identify(&p->cmd_list[0], &p->tables[0],
				(uintptr_t)&p->tables[0], (uintptr_t)words);
	port_write(p, PX_CI, BIT(0));
	for (;;) {
		is = port_read(p, PX_IS);
		ci = port_read(p, PX_CI);
		if ((is & PX_IS_ERRORS) || !(ci & BIT(0)))
			break;
		if (rdtsc() > end) {
			hv_error("%s: IDENTIFY DEVICE timed out after %u ms "
				 "(PxTFD 0x%08x); the disk is not used",
				 p->name, AHCI_IDENTIFY_TIMEOUT_MS,
				 port_read(p, PX_TFD));
			ahci_port_stop(p);
			return false;
		}
		cpu_relax();
	}
	tfd = port_read(p, PX_TFD);
	if ((is & PX_IS_ERRORS) || (PX_TFD_STS(tfd) & ATA_STS_ERR)) {
		hv_error("%s: IDENTIFY DEVICE failed: %s (PxIS 0x%08x, PxTFD "
			 "0x%08x, PxSERR 0x%08x); the disk is not used",
			 p->name, ahci_error_cause(is, tfd), is, tfd,
			 port_read(p, PX_SERR));
		ahci_port_stop(p);
		return false;
	}
	return true;
}

void ahci_port_configure(struct ahci_port *p, unsigned nslots, bool ncq,
			 uint64_t size)
{
	p->nslots = MIN(nslots, (unsigned)AHCI_MAX_SLOTS);
	p->ncq = ncq;
	p->size = size;
}

/* ------------------------------------------------------------- slots */

static void finish(struct ahci_port *p, unsigned slot, enum blk_status st)
{
	p->slot[slot].state = AHCI_SLOT_DONE;
	p->slot[slot].status = st;
	p->issued &= ~(uint32_t)BIT(slot);
}

/*
 * The commands in flight fail. While the port is not confirmed stopped
 * (!stopped) the HBA may still write into the page of a read, which must
 * then go neither back to the frame pool nor to the guest: the read stays
 * issued, held (counted once), until a poll finds the command list
 * stopped (poll_failed_port). A write fails at once: the HBA only reads
 * its page.
 */
static void fail_or_hold_issued(struct ahci_port *p, bool stopped)
{
	bool held_now = false;

	for (unsigned i = 0; i < p->nslots; i++) {
		struct ahci_slot *s = &p->slot[i];

		if (!(p->issued & BIT(i)))
			continue;
		if (!stopped && s->op == BLK_READ) {
			if (!s->held) {
				p->frames_held++;
				held_now = true;
			}
			s->held = true;
			continue;
		}
		s->held = false;
		finish(p, i, BLK_IO_ERROR);
	}
	if (held_now)
		hv_error("%s: the pages of the reads in flight stay held "
			 "until the port stops", p->name);
}

static void fail_issued(struct ahci_port *p)
{
	fail_or_hold_issued(p, true);
}

static unsigned count_bits(uint32_t v)
{
	unsigned n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static bool in_range(const struct ahci_port *p, const struct blk_request *r)
{
	return IS_ALIGNED(r->offset, PAGE_SIZE) && r->offset < p->size &&
	       p->size - r->offset >= PAGE_SIZE;
}

/* A buffer the HBA cannot address (no CAP.S64A) fails its request. */
static bool reachable(const struct ahci_port *p, uint64_t pa)
{
	return (p->hba->cap & AHCI_CAP_S64A) || pa + PAGE_SIZE <= FOUR_GIB;
}

static void issue(struct ahci_port *p, unsigned slot,
		  const struct blk_request *r)
{
	struct ahci_slot *s = &p->slot[slot];

	/*
	 * PRDBC starts at 0 (the header is cleared) and then counts a DMA
	 * command's bytes; an NCQ read is checked by its poison instead.
	 */
	ahci_cmd_build_rw(&p->cmd_list[slot], &p->tables[slot],
			  (uintptr_t)&p->tables[slot], r->op, s->lba,
			  r->buffer_pa, p->ncq, slot);
	if (p->ncq && r->op == BLK_READ)
		read_poison_fill(r->buffer_pa,
				 read_poison_word(p->poison_seed,
						  r->buffer_pa));
	s->state = AHCI_SLOT_ISSUED;
	s->deadline = tsc_after_ms(AHCI_IO_TIMEOUT_MS);
	p->issued |= BIT(slot);
	/* NCQ: the tag's PxSACT bit before its PxCI bit (3.3.13). */
	if (p->ncq)
		port_write(p, PX_SACT, BIT(slot));
	port_write(p, PX_CI, BIT(slot));
}

enum hv_err ahci_port_submit(struct ahci_port *p, const struct blk_request *r)
{
	int slot = ahci_slot_alloc(p->busy, p->nslots, &p->next_slot);
	struct ahci_slot *s;

	if (slot < 0)
		return HV_ERR_BUSY;
	s = &p->slot[slot];
	*s = (struct ahci_slot){ .op = r->op, .cookie = r->cookie,
				 .lba = r->offset / AHCI_SECTOR_SIZE,
				 .buffer_pa = r->buffer_pa };
	p->busy |= BIT(slot);
	if (p->failed || !reachable(p, r->buffer_pa))
		finish(p, (unsigned)slot, BLK_IO_ERROR);
	else if (!in_range(p, r))
		finish(p, (unsigned)slot, BLK_OUT_OF_RANGE);
	else
		issue(p, (unsigned)slot, r);
	return HV_OK;
}

/* ------------------------------------------------------------ errors */

static const char *op_name(enum blk_op op)
{
	return op == BLK_READ ? "read" : "write";
}

static bool show_error(struct ahci_port *p)
{
	if (p->errors_shown == AHCI_ERRORS_SHOWN)
		return false;
	p->errors_shown++;
	return true;
}

/*
 * A command that ended without an error: did it move its whole page?
 * A DMA command's PRDBC says how many bytes the HBA transferred (4.2.2;
 * it was 0 at issue). An HBA need not update PRDBC for an NCQ command
 * (QEMU's does not), so an NCQ read's page was poisoned at issue and any
 * poison left is what the HBA never wrote; an NCQ write cannot be told.
 * Short, the command fails as a device error would (counted, shown).
 */
static enum blk_status transfer_status(struct ahci_port *p, unsigned slot)
{
	const struct ahci_slot *s = &p->slot[slot];
	uint32_t bytes = *(volatile uint32_t *)&p->cmd_list[slot].prdbc;
	char what[64];

	if (!p->ncq) {
		if (bytes == PAGE_SIZE)
			return BLK_OK;
		fmt_snprintf(what, sizeof(what), "%u of %u bytes transferred "
			     "(PRDBC)", bytes, (unsigned)PAGE_SIZE);
	} else {
		unsigned left;

		if (s->op != BLK_READ)
			return BLK_OK;
		left = read_poison_left(s->buffer_pa,
					read_poison_word(p->poison_seed,
							 s->buffer_pa));
		if (!left)
			return BLK_OK;
		fmt_snprintf(what, sizeof(what), "%u of its %u words never "
			     "written", left, (unsigned)READ_POISON_WORDS);
	}
	p->short_transfers++;
	if (show_error(p))
		hv_error("%s: %s of sectors %llu-%llu ended with %s; it "
			 "fails%s", p->name, op_name(s->op),
			 (unsigned long long)s->lba,
			 (unsigned long long)(s->lba + AHCI_SECTORS_PER_PAGE -
					      1), what,
			 p->errors_shown == AHCI_ERRORS_SHOWN ?
			 "; further errors are only counted" : "");
	return BLK_IO_ERROR;
}

/*
 * COMRESET (AHCI 1.3.1 10.4.2), with the port stopped: PxSCTL.DET = 1
 * for at least a millisecond, then 0, and the link back (PxSSTS.DET = 3)
 * within AHCI_LINK_TIMEOUT_MS. A disk that failed an NCQ command aborts
 * everything after it until it is reset or its error log is read (SATA
 * 3.x 13.6.4), and QEMU keeps a failed batch's tags busy (dropping new
 * commands on them without a word) until a reset cancels them: the
 * reset is what makes the next command run.
 */
static bool port_comreset(struct ahci_port *p)
{
	uint32_t sctl = port_read(p, PX_SCTL) & ~(uint32_t)PX_SCTL_DET_MASK;
	uint64_t end;
	uint32_t ssts;

	port_write(p, PX_SCTL, sctl | PX_SCTL_DET_COMRESET);
	end = tsc_after_ms(1);
	while (rdtsc() <= end)
		cpu_relax();
	port_write(p, PX_SCTL, sctl);
	if (wait_reg(p, PX_SSTS, PX_SSTS_DET_MASK, PX_SSTS_DET_PRESENT,
		     AHCI_LINK_TIMEOUT_MS, &ssts))
		return true;
	hv_error("%s: the link did not come back after a COMRESET (PxSSTS "
		 "0x%08x after %u ms)", p->name, ssts, AHCI_LINK_TIMEOUT_MS);
	return false;
}

/*
 * Back to a port that takes commands (6.2.2.1), once stopped (which
 * cleared PxCI and PxSACT): reset the disk, clear the errors (the reset
 * itself sets PxSERR.DIAG.X), start once the disk is no longer busy.
 */
static void restart(struct ahci_port *p)
{
	bool ok = port_comreset(p);

	clear_errors(p);
	if (!ok || !ahci_port_start(p)) {
		p->failed = true;
		hv_error("%s: the port could not be restarted after an "
			 "error; the disk is not used any more", p->name);
	}
}

static void port_error(struct ahci_port *p, uint32_t is)
{
	uint32_t tfd = port_read(p, PX_TFD), serr = port_read(p, PX_SERR);
	unsigned n = count_bits(p->issued);

	if (show_error(p))
		hv_error("%s: %u command%s failed: %s (PxIS 0x%08x, PxTFD "
			 "0x%08x, PxSERR 0x%08x)%s", p->name, n,
			 n == 1 ? "" : "s", ahci_error_cause(is, tfd), is, tfd,
			 serr, p->errors_shown == AHCI_ERRORS_SHOWN ?
			 "; further errors are only counted" : "");
	if (!ahci_port_stop(p)) {
		p->failed = true;
		fail_or_hold_issued(p, false);
		hv_error("%s: the port could not be restarted after an "
			 "error; the disk is not used any more", p->name);
		return;
	}
	fail_issued(p);
	restart(p);
}

static void port_timeout(struct ahci_port *p, unsigned slot)
{
	const struct ahci_slot *s = &p->slot[slot];

	hv_error("%s: %s of sectors %llu-%llu timed out after %u ms (PxCI "
		 "0x%08x, PxTFD 0x%08x); the disk is not used any more",
		 p->name, op_name(s->op), (unsigned long long)s->lba,
		 (unsigned long long)(s->lba + AHCI_SECTORS_PER_PAGE - 1),
		 AHCI_IO_TIMEOUT_MS, port_read(p, PX_CI),
		 port_read(p, PX_TFD));
	p->failed = true;
	/* The HBA must not keep working on our tables and pages. */
	fail_or_hold_issued(p, ahci_port_stop(p));
}

/*
 * A failed port with reads held: are they safe to fail now? PxCMD.CR
 * clear means the command list engine, which moves the commands' data,
 * has stopped (FR only concerns FIS receive into the port's own area).
 */
static void poll_failed_port(struct ahci_port *p)
{
	if (!(port_read(p, PX_CMD) & PX_CMD_CR))
		fail_issued(p);
}

/* -------------------------------------------------------- completion */

/*
 * A slot is done when the HBA cleared its PxCI bit and, for NCQ, the
 * device cleared its PxSACT bit (by a Set Device Bits FIS). What is
 * done is harvested before the error bits are looked at: those commands
 * ended well before the error.
 */
static void check_hardware(struct ahci_port *p)
{
	uint32_t is = port_read(p, PX_IS);
	uint32_t pending = port_read(p, PX_CI);
	uint32_t done;
	uint64_t now;

	if (p->ncq)
		pending |= port_read(p, PX_SACT);
	done = p->issued & ~pending;
	for (unsigned i = 0; done; i++, done >>= 1)
		if (done & 1)
			finish(p, i, transfer_status(p, i));
	if (is & PX_IS_ERRORS) {
		port_error(p, is);
		return;
	}
	now = rdtsc();
	for (unsigned i = 0; i < p->nslots; i++) {
		if ((p->issued & BIT(i)) && now > p->slot[i].deadline) {
			port_timeout(p, i);
			return;
		}
	}
}

unsigned ahci_port_poll(struct ahci_port *p, struct blk_completion *out,
			unsigned max)
{
	unsigned n = 0;

	if (p->issued && p->failed)
		poll_failed_port(p);
	else if (p->issued)
		check_hardware(p);
	for (unsigned i = 0; i < p->nslots && n < max; i++) {
		struct ahci_slot *s = &p->slot[i];

		if (s->state != AHCI_SLOT_DONE)
			continue;
		out[n].cookie = s->cookie;
		out[n++].status = s->status;
		s->state = AHCI_SLOT_FREE;
		p->busy &= ~(uint32_t)BIT(i);
	}
	return n;
}
