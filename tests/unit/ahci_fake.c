// SPDX-License-Identifier: BSD-2-Clause
/*
 * The fake AHCI HBA of tests/unit/ahci_fake.h. Addresses in the command
 * list and tables are host pointers (the driver's memory is identity
 * mapped, the test's is the process's).
 */
#include <string.h>

#include "tests/unit/ahci_fake.h"
#include "swap/drivers/ahci_defs.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"

#define TFD_DRDY 0x40
#define ERR_ABRT 0x04

struct fake_ahci_port fake_ahci[FAKE_AHCI_PORTS];
uint32_t fake_ahci_cap;
uint64_t fake_tsc;
uint64_t tsc_hz = 1000000000ull;        /* 1 GHz */
struct ahci_hba fake_hba = { .abar = 0, .pci_name = "00:1f.2" };

/* Each read is a millisecond: a 10 s wait is 10000 reads. */
uint64_t rdtsc(void)
{
	return fake_tsc += tsc_hz / 1000;
}

void fake_ahci_reset(void)
{
	memset(fake_ahci, 0, sizeof(fake_ahci));
	fake_tsc = 0;
	fake_ahci_cap = AHCI_CAP_S64A | AHCI_CAP_SNCQ | AHCI_CAP_SCLO |
			(31u << 8) | (FAKE_AHCI_PORTS - 1);
	fake_hba.cap = fake_ahci_cap;
}

/* ATA strings: 40 characters, blank-padded, the first in bits 15:8. */
static void put_model(uint16_t *w, const char *model)
{
	char tmp[40];

	memset(tmp, ' ', sizeof(tmp));
	memcpy(tmp, model, strlen(model));
	for (unsigned i = 0; i < 20; i++)
		w[27 + i] = (uint16_t)((uint8_t)tmp[2 * i] << 8 |
				       (uint8_t)tmp[2 * i + 1]);
}

void fake_ahci_disk(unsigned n)
{
	struct fake_ahci_port *p = &fake_ahci[n];
	uint16_t *w = p->identify;

	memset(p, 0, sizeof(*p));
	p->short_transfer = -1;
	p->cmd = PX_CMD_ST | PX_CMD_FRE | PX_CMD_CR | PX_CMD_FR;
	p->tfd = TFD_DRDY;
	p->sig = AHCI_SIG_ATA;
	p->ssts = 0x123;                /* IPM active, Gen 2, DET 3 */
	w[49] = 1u << 9;                /* LBA */
	w[83] = 0x4000 | 1u << 10;      /* LBA48 */
	w[100] = FAKE_AHCI_SECTORS;
	w[75] = 31;                     /* queue depth 32 */
	w[76] = 1u << 8;                /* NCQ */
	put_model(w, "FAKE DISK");
	for (size_t i = 0; i < sizeof(p->data); i++)
		p->data[i] = (uint8_t)(i * 7 + 3);
}

/* ------------------------------------------------------- the commands */

static void *from_pa(uint32_t lo, uint32_t hi)
{
	return (void *)(uintptr_t)((uint64_t)hi << 32 | lo);
}

static uint64_t fis_lba(const uint8_t *f)
{
	return (uint64_t)f[4] | (uint64_t)f[5] << 8 | (uint64_t)f[6] << 16 |
	       (uint64_t)f[8] << 24 | (uint64_t)f[9] << 32 |
	       (uint64_t)f[10] << 40;
}

static void task_file_error(struct fake_ahci_port *p, uint8_t error)
{
	p->tfd = (uint32_t)error << 8 | TFD_DRDY | ATA_STS_ERR;
	p->is |= PX_IS_TFES;
}

/* Runs slot s; false when it failed (the list stops there). */
static bool run_slot(struct fake_ahci_port *p, unsigned s)
{
	struct ahci_cmd_header *h = (struct ahci_cmd_header *)
		from_pa(p->clb, p->clbu) + s;
	struct ahci_cmd_table *t = from_pa(h->ctba, h->ctbau);
	const uint8_t *f = t->cfis;
	uint8_t *buf = from_pa(t->prdt[0].dba, t->prdt[0].dbau);
	unsigned bytes = (t->prdt[0].dbc & 0x3fffff) + 1;
	bool ncq = f[2] == ATA_CMD_READ_FPDMA_QUEUED ||
		   f[2] == ATA_CMD_WRITE_FPDMA_QUEUED;
	unsigned count = ncq ? f[3] : f[12];
	uint64_t lba = fis_lba(f);

	p->commands++;
	p->last_command = f[2];
	if (p->ncq_failed || f[0] != FIS_TYPE_REG_H2D ||
	    (h->flags & 0x1f) != 5) {
		task_file_error(p, ERR_ABRT);
		return false;
	}
	if (f[2] == ATA_CMD_IDENTIFY_DEVICE) {
		if (!p->identify_no_data)
			memcpy(buf, p->identify, 512);
		h->prdbc = p->identify_no_data ? 0 : 512;
		return true;
	}
	if (bytes != count * 512 || lba + count > FAKE_AHCI_SECTORS ||
	    (p->fail_set && p->fail_lba >= lba && p->fail_lba < lba + count)) {
		task_file_error(p, p->fail_error ? p->fail_error : ERR_ABRT);
		p->ncq_failed = ncq;
		return false;
	}
	if (p->short_transfer >= 0) {
		bytes = (unsigned)p->short_transfer;
		p->short_transfer = -1;
	}
	if (h->flags & AHCI_HDR_WRITE)
		memcpy(p->data + lba * 512, buf, bytes);
	else
		memcpy(buf, p->data + lba * 512, bytes);
	if (!ncq)
		h->prdbc = bytes;
	p->sact &= ~(uint32_t)BIT(s);
	return true;
}

/* Each PxCI read ages the issued slots; old enough ones run, in order. */
static void tick(struct fake_ahci_port *p)
{
	if (!(p->cmd & PX_CMD_ST) || p->hang || (p->is & PX_IS_TFES))
		return;
	for (unsigned s = 0; s < 32; s++) {
		if (!(p->ci & BIT(s)) || p->age[s]++ < p->latency)
			continue;
		if (!run_slot(p, s))
			return;
		p->ci &= ~(uint32_t)BIT(s);
	}
}

/* ------------------------------------------------------- the registers */

static uint32_t *port_reg(struct fake_ahci_port *p, uint32_t off)
{
	switch (off) {
	case PX_CLB: return &p->clb;
	case PX_CLBU: return &p->clbu;
	case PX_FB: return &p->fb;
	case PX_FBU: return &p->fbu;
	case PX_IS: return &p->is;
	case PX_IE: return &p->ie;
	case PX_CMD: return &p->cmd;
	case PX_TFD: return &p->tfd;
	case PX_SIG: return &p->sig;
	case PX_SSTS: return &p->ssts;
	case PX_SCTL: return &p->sctl;
	case PX_SERR: return &p->serr;
	case PX_SACT: return &p->sact;
	case PX_CI: return &p->ci;
	default: return NULL;
	}
}

static struct fake_ahci_port *port_of(uint32_t reg, uint32_t *off)
{
	unsigned n = (reg - 0x100) / 0x80;

	*off = (reg - 0x100) % 0x80;
	return n < FAKE_AHCI_PORTS ? &fake_ahci[n] : NULL;
}

uint32_t ahci_read32(const struct ahci_hba *hba, uint32_t reg)
{
	struct fake_ahci_port *p;
	uint32_t off, *r;

	(void)hba;
	if (reg == AHCI_CAP)
		return fake_ahci_cap;
	if (reg < 0x100)
		return 0;
	p = port_of(reg, &off);
	r = p ? port_reg(p, off) : NULL;
	if (!r)
		return 0;
	if (off == PX_CI)
		tick(p);
	return *r;
}

/* PxCMD: CR follows ST, FR follows FRE; clearing ST empties the list. */
static void write_cmd(struct fake_ahci_port *p, uint32_t v)
{
	if (p->ncmd_writes < FAKE_AHCI_CMD_LOG)
		p->cmd_writes[p->ncmd_writes++] = v;
	p->cmd = (p->cmd & (PX_CMD_CR | PX_CMD_FR)) |
		 (v & (PX_CMD_ST | PX_CMD_FRE));
	if (v & PX_CMD_ST) {
		p->cmd |= PX_CMD_CR;
	} else {
		p->ci = p->sact = 0;
		memset(p->age, 0, sizeof(p->age));
		if (!p->cr_stuck)
			p->cmd &= ~PX_CMD_CR;
	}
	if (v & PX_CMD_FRE)
		p->cmd |= PX_CMD_FR;
	else
		p->cmd &= ~PX_CMD_FR;
	if (v & PX_CMD_CLO)
		p->tfd &= ~(uint32_t)(ATA_STS_BSY | ATA_STS_DRQ);
}

void ahci_write32(const struct ahci_hba *hba, uint32_t reg, uint32_t v)
{
	struct fake_ahci_port *p;
	uint32_t off, *r;

	(void)hba;
	if (reg < 0x100)
		return;
	p = port_of(reg, &off);
	r = p ? port_reg(p, off) : NULL;
	if (!r)
		return;
	switch (off) {
	case PX_CMD:
		write_cmd(p, v);
		break;
	case PX_IS:
	case PX_SERR:
		*r &= ~v;               /* write one to clear */
		if (off == PX_IS && !(p->is & PX_IS_TFES))
			p->tfd &= ~(uint32_t)ATA_STS_ERR;
		break;
	case PX_SCTL:
		/*
		 * DET 1 -> 0 with ST clear: COMRESET; the disk comes back
		 * idle and well (unless told to lose its link).
		 */
		if ((*r & 0xf) == 1 && (v & 0xf) == 0 &&
		    !(p->cmd & PX_CMD_ST)) {
			p->comresets++;
			if (p->link_lost_on_reset)
				p->ssts &= ~0xfu;
			p->ncq_failed = false;
			p->tfd = TFD_DRDY;
			p->ci = p->sact = 0;
			p->serr |= 1u << 26;    /* DIAG.X: COMINIT seen */
		}
		*r = v;
		break;
	case PX_CI:
	case PX_SACT:
		*r |= v;
		if (off == PX_CI)
			for (unsigned s = 0; s < 32; s++)
				if (v & BIT(s))
					p->age[s] = 0;
		break;
	default:
		*r = v;
	}
}
