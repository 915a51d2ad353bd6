// SPDX-License-Identifier: BSD-2-Clause
/*
 * The fake IDE channels of tests/unit/ata_fake.h. Enough of ATA/ATAPI-6
 * for swap/drivers/ata.c: the shared command block with the 48-bit two-byte
 * register FIFOs, IDENTIFY DEVICE, READ/WRITE SECTORS (EXT) sector by
 * sector with DRQ, device 0 answering 00h for an absent device 1, and an
 * all-ones floating bus.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/ata_fake.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/tsc.h"

#define ST_BSY  0x80
#define ST_DRDY 0x40
#define ST_DRQ  0x08
#define ST_ERR  0x01
#define ERR_ABRT 0x04
#define ERR_IDNF 0x10

enum { R_COUNT, R_LOW, R_MID, R_HIGH };

struct fake_channel fake_ata[2];
uint64_t fake_tsc;
uint64_t tsc_hz = 1000000000ull;        /* 1 GHz */
unsigned fake_srst, fake_no_drq_access;

/* Each read is a millisecond: a 10 s wait is 10000 reads. */
uint64_t rdtsc(void)
{
	return fake_tsc += tsc_hz / 1000;
}

void fake_ata_reset(void)
{
	for (unsigned c = 0; c < 2; c++)
		for (unsigned p = 0; p < 2; p++)
			free(fake_ata[c].dev[p].data);
	memset(fake_ata, 0, sizeof(fake_ata));
	fake_tsc = 0;
	fake_srst = fake_no_drq_access = 0;
}

void fake_identify_checksum(struct fake_dev *d)
{
	uint8_t sum = 0;

	d->identify[255] = 0xa5;
	for (unsigned i = 0; i < 256; i++)
		sum += (uint8_t)(d->identify[i] & 0xff) +
		       (uint8_t)(d->identify[i] >> 8);
	d->identify[255] |= (uint16_t)((uint8_t)-sum) << 8;
}

static void put_string(uint16_t *w, const char *s, unsigned chars)
{
	char tmp[64];

	memset(tmp, ' ', sizeof(tmp));
	memcpy(tmp, s, strlen(s));
	for (unsigned i = 0; i < chars / 2; i++)
		w[i] = (uint16_t)((uint8_t)tmp[2 * i] << 8 |
				  (uint8_t)tmp[2 * i + 1]);
}

void fake_disk(unsigned channel, unsigned position, uint64_t sectors,
	       bool lba48)
{
	struct fake_dev *d = &fake_ata[channel].dev[position];
	uint64_t lba28 = sectors < 0x0fffffff ? sectors : 0x0fffffff;

	fake_ata[channel].present = true;
	memset(d, 0, sizeof(*d));
	d->kind = FAKE_DISK;
	d->sectors = sectors;
	d->data_sectors = sectors < FAKE_DATA_SECTORS ? sectors :
			  FAKE_DATA_SECTORS;
	d->data = malloc(d->data_sectors * 512);
	fake_window(d, 0);
	d->status = ST_DRDY;
	put_string(&d->identify[27], "FAKE DISK", 40);
	d->identify[49] = 1 << 9;               /* LBA */
	d->identify[60] = (uint16_t)lba28;
	d->identify[61] = (uint16_t)(lba28 >> 16);
	d->identify[83] = 0x4000 | (lba48 ? 1 << 10 : 0);
	for (unsigned i = 0; i < 4 && lba48; i++)
		d->identify[100 + i] = (uint16_t)(sectors >> (16 * i));
	fake_identify_checksum(d);
}

void fake_window(struct fake_dev *d, uint64_t base)
{
	d->data_base = base;
	for (uint64_t i = 0; i < d->data_sectors * 512; i++)
		d->data[i] = (uint8_t)(i * 7 + 3);
}

void fake_fail(struct fake_dev *d, uint64_t lba, uint8_t error)
{
	d->fail_set = true;
	d->fail_lba = lba;
	d->fail_error = error;
}

void fake_packet(unsigned channel, unsigned position)
{
	struct fake_dev *d = &fake_ata[channel].dev[position];

	fake_ata[channel].present = true;
	memset(d, 0, sizeof(*d));
	d->kind = FAKE_PACKET;
	d->status = ST_DRDY;    /* so that IDENTIFY DEVICE is sent, aborted */
}

/* Port -> channel and register (0-7 command block, 8 control). */
static struct fake_channel *decode(uint16_t port, unsigned *reg)
{
	static const uint16_t cmd[2] = { 0x1f0, 0x170 };
	static const uint16_t ctl[2] = { 0x3f6, 0x376 };

	for (unsigned c = 0; c < 2; c++) {
		if (port >= cmd[c] && port < cmd[c] + 8) {
			*reg = port - cmd[c];
			return &fake_ata[c];
		}
		if (port == ctl[c]) {
			*reg = 8;
			return &fake_ata[c];
		}
	}
	abort();                /* the driver touched a port it must not */
}

static struct fake_dev *selected(struct fake_channel *ch)
{
	return &ch->dev[ch->sel];
}

static uint8_t read_status(struct fake_channel *ch)
{
	struct fake_dev *d = selected(ch);

	if (d->kind == FAKE_NONE)
		return 0;
	if (d->busy_reads) {
		d->busy_reads--;
		return ST_BSY;
	}
	return d->status;
}

static void abort_command(struct fake_channel *ch, uint8_t error)
{
	struct fake_dev *d = selected(ch);

	d->status = ST_DRDY | ST_ERR;
	d->error = error;
}

static void load_sector(struct fake_dev *d)
{
	memcpy(d->buf, d->data + (d->lba - d->data_base) * 512, 512);
	d->word = 0;
}

/* The sector at d->lba: ERR instead of data when it is the failing one. */
static void next_block(struct fake_dev *d)
{
	d->busy_reads = d->latency;
	if (d->fail_set && d->lba == d->fail_lba && d->fail_drq &&
	    !d->writing) {
		d->status = ST_DRDY | ST_ERR | ST_DRQ;
		d->error = d->fail_error;
		load_sector(d);
		return;
	}
	if (d->fail_set && d->lba == d->fail_lba) {
		d->status = ST_DRDY | ST_ERR;
		d->error = d->fail_error;
		d->remaining = 0;
		return;
	}
	d->status = ST_DRDY | ST_DRQ;
	d->word = 0;
	if (!d->writing)
		load_sector(d);
}

static void start_rw(struct fake_channel *ch, bool ext, bool writing)
{
	struct fake_dev *d = selected(ch);
	uint64_t lba;
	unsigned count;

	if (!(ch->device & 0x40))
		return abort_command(ch, ERR_ABRT);    /* CHS: not modelled */
	if (ext) {
		lba = ch->reg[R_LOW][0] | (uint64_t)ch->reg[R_MID][0] << 8 |
		      (uint64_t)ch->reg[R_HIGH][0] << 16 |
		      (uint64_t)ch->reg[R_LOW][1] << 24 |
		      (uint64_t)ch->reg[R_MID][1] << 32 |
		      (uint64_t)ch->reg[R_HIGH][1] << 40;
		count = ch->reg[R_COUNT][0] | ch->reg[R_COUNT][1] << 8;
		count = count ? count : 65536;
	} else {
		lba = ch->reg[R_LOW][0] | (uint64_t)ch->reg[R_MID][0] << 8 |
		      (uint64_t)ch->reg[R_HIGH][0] << 16 |
		      (uint64_t)(ch->device & 0x0f) << 24;
		count = ch->reg[R_COUNT][0] ? ch->reg[R_COUNT][0] : 256;
	}
	d->last_count = count;
	d->last_ext = ext;
	if (lba + count > d->sectors || lba < d->data_base ||
	    lba + count > d->data_base + d->data_sectors)
		return abort_command(ch, ERR_IDNF);
	d->lba = lba;
	d->remaining = (unsigned)((int)count + d->count_skew);
	d->writing = writing;
	next_block(d);
}

static void command(struct fake_channel *ch, uint8_t cmd)
{
	struct fake_dev *d = selected(ch);

	if (d->kind == FAKE_NONE)
		return;                 /* nobody takes it */
	d->commands++;
	d->cmd = cmd;
	d->error = 0;
	if (d->stuck) {
		d->status = ST_BSY;
		return;
	}
	d->busy_reads = d->latency;
	if (cmd == 0xec && d->kind == FAKE_PACKET) {
		ch->reg[R_MID][0] = 0x14;
		ch->reg[R_HIGH][0] = 0xeb;
		return abort_command(ch, ERR_ABRT);
	}
	if (d->kind == FAKE_PACKET)
		return abort_command(ch, ERR_ABRT);
	switch (cmd) {
	case 0xec:
		memcpy(d->buf, d->identify, 512);
		d->word = 0;
		d->remaining = 1;
		d->writing = false;
		d->status = ST_DRDY | ST_DRQ;
		return;
	case 0x20: return start_rw(ch, false, false);
	case 0x24: return start_rw(ch, true, false);
	case 0x30: return start_rw(ch, false, true);
	case 0x34: return start_rw(ch, true, true);
	default: return abort_command(ch, ERR_ABRT);
	}
}

uint8_t inb(uint16_t port)
{
	unsigned reg;
	struct fake_channel *ch = decode(port, &reg);

	if (!ch->present)
		return 0xff;
	switch (reg) {
	case 1: return selected(ch)->error;
	case 2: case 3: case 4: case 5: return ch->reg[reg - 2][0];
	case 6: return ch->device;
	case 7: case 8: return read_status(ch);
	default: abort();       /* 8-bit access to the data register */
	}
}

void outb(uint16_t port, uint8_t v)
{
	unsigned reg;
	struct fake_channel *ch = decode(port, &reg);

	if (!ch->present)
		return;
	switch (reg) {
	case 2: case 3: case 4: case 5:
		ch->reg[reg - 2][1] = ch->reg[reg - 2][0];
		ch->reg[reg - 2][0] = v;
		return;
	case 6:
		ch->device = v;
		ch->sel = (v >> 4) & 1;
		return;
	case 7:
		return command(ch, v);
	case 8:
		ch->devctl = v;
		fake_srst += !!(v & 0x04);
		return;
	default:
		return;                 /* Features: unused */
	}
}

/* After the last word of a data block: the next block, or the end. */
static void block_done(struct fake_dev *d)
{
	if (d->cmd == 0xec) {
		d->status = ST_DRDY;
		return;
	}
	if (d->writing)
		memcpy(d->data + (d->lba - d->data_base) * 512, d->buf, 512);
	d->lba++;
	if (--d->remaining == 0) {
		d->status = ST_DRDY;
		d->busy_reads = d->latency;
		return;
	}
	next_block(d);
}

static struct fake_dev *data_dev(uint16_t port)
{
	unsigned reg;
	struct fake_channel *ch = decode(port, &reg);
	struct fake_dev *d = selected(ch);

	if (reg != 0)
		abort();
	if (!ch->present || d->kind == FAKE_NONE || d->busy_reads ||
	    !(d->status & ST_DRQ)) {
		fake_no_drq_access++;
		return NULL;
	}
	return d;
}

void insw(uint16_t port, void *buf, size_t n)
{
	struct fake_dev *d = data_dev(port);
	uint16_t *w = buf;

	for (size_t i = 0; i < n; i++) {
		if (!d || d->writing) {
			w[i] = 0xffff;
			continue;
		}
		w[i] = d->buf[d->word++];
		if (d->word == 256) {
			block_done(d);
			if (i + 1 < n)
				d = data_dev(port);
		}
	}
}

void outsw(uint16_t port, const void *buf, size_t n)
{
	struct fake_dev *d = data_dev(port);
	const uint16_t *w = buf;

	for (size_t i = 0; i < n; i++) {
		if (!d || !d->writing)
			continue;
		d->buf[d->word++] = w[i];
		if (d->word == 256) {
			block_done(d);
			if (i + 1 < n)
				d = data_dev(port);
		}
	}
}
