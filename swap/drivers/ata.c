// SPDX-License-Identifier: BSD-2-Clause
/*
 * ATA hard disk on the legacy IDE ports, programmed I/O, polled.
 *
 * The block interface is asynchronous but PIO is not: the CPU moves every
 * word. So submit() only queues a request in a small ring, and poll() runs
 * the head request as a state machine that never waits for the device:
 * each call issues the command when the device can take one, moves the
 * sectors whose data is ready (DRQ), and completes the request when the
 * device reports the command done. One call moves at most one 4 KiB page
 * (8 sectors of 512 bytes), so the caller's loop (the service CPU, or a VM
 * exit with one host CPU) stays responsive; a busy device costs a couple
 * of status reads. Requests complete in submission order.
 *
 * Commands are READ/WRITE SECTORS EXT (48-bit LBA) or, on disks without
 * the 48-bit Address feature set, READ/WRITE SECTORS, 8 sectors each; the
 * host side of the PIO data-in and data-out protocols of ATA/ATAPI-6
 * clause 9 with nIEN set (no interrupts). A device error (ERR or DF in
 * Status) completes the request with BLK_IO_ERROR and is counted; so
 * does a command that ends cleanly after fewer data blocks than asked
 * (counted in short_transfers: the driver moves and counts every word
 * itself); a command that takes longer than ATA_IO_TIMEOUT_US is an
 * error too, after which the disk is no longer used (the master on the
 * same channel is the boot disk, so no software reset, which would reset
 * it as well). A timed-out request's page needs no holding: with PIO no
 * device writes into memory, only the CPU does, and it stops.
 *
 * Why not bus-master DMA (the PIIX IDE function Bochs has): Bochs starts
 * every bus-master transfer on a timer 1000 emulated microseconds out
 * (iodev/pci_ide.cc), so a page by DMA costs 1 ms of emulated time where
 * PIO with REP INSW/OUTSW, which Bochs moves in bulk, costs about 50 us.
 *
 * Not reentrant: the caller serializes submit() and poll(), as for every
 * driver behind swap/blockdev.h.
 */
#include "swap/drivers/ata.h"
#include "swap/drivers/ata_error.h"
#include "swap/drivers/ata_identify.h"
#include "arch/x86/cpu.h"
#include "arch/x86/io.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/string.h"

/*
 * Compatibility-mode ports (PCI IDE Controller Specification 1.0, 2.1).
 * The control block has one register: Alternate Status when read (Status
 * without side effects), Device Control when written.
 */
#define ATA0_CMD 0x1f0
#define ATA0_CTL 0x3f6
#define ATA1_CMD 0x170
#define ATA1_CTL 0x376

/* Command block registers, offsets from its base (ATA/ATAPI-6 clause 7). */
#define REG_DATA     0
#define REG_ERROR    1          /* read */
#define REG_COUNT    2
#define REG_LBA_LOW  3
#define REG_LBA_MID  4
#define REG_LBA_HIGH 5
#define REG_DEVICE   6
#define REG_STATUS   7          /* read; reading it clears INTRQ */
#define REG_COMMAND  7          /* write */

#define ST_BSY  BIT(7)
#define ST_DRDY BIT(6)
#define ST_DF   BIT(5)
#define ST_DRQ  BIT(3)
#define ST_ERR  BIT(0)

#define DEV_OBSOLETE 0xa0       /* bits 7 and 5: set, as old devices want */
#define DEV_LBA      BIT(6)
#define DEV_DEV1     BIT(4)     /* the slave */

#define CTL_NIEN BIT(1)         /* no INTRQ: apfvisor polls */

#define CMD_READ_SECTORS      0x20
#define CMD_READ_SECTORS_EXT  0x24
#define CMD_WRITE_SECTORS     0x30
#define CMD_WRITE_SECTORS_EXT 0x34
#define CMD_IDENTIFY_DEVICE   0xec

/*
 * The signature a packet device leaves in LBA Mid/High when it aborts
 * IDENTIFY DEVICE (ATA/ATAPI-6 clause 9, "Signature and persistence").
 */
#define SIG_PACKET_MID  0x14
#define SIG_PACKET_HIGH 0xeb

#define SECTORS_PER_PAGE (PAGE_SIZE / ATA_SECTOR_SIZE)
#define SECTOR_WORDS     (ATA_SECTOR_SIZE / 2)

#define ATA_QUEUE_DEPTH 32
/* Bounds of every wait. Selecting a position nobody may answer: short. */
#define ATA_SELECT_TIMEOUT_US 100000
/* IDENTIFY DEVICE: a disk may still be spinning up. */
#define ATA_PROBE_TIMEOUT_US 5000000
/* One read or write of a page, from its turn in the queue to its end. */
#define ATA_IO_TIMEOUT_US    10000000
/* Between the data blocks a failed read still offers (rare, short). */
#define ATA_DRAIN_TIMEOUT_US 10000
#define ATA_ERRORS_SHOWN 8

struct ata_port {
	uint16_t cmd, ctl;      /* command and control block bases */
	uint8_t dev;            /* DEV bit of the Device register */
	const char *name;
};

/* Where a swap disk may be: anywhere but ata0-master, the boot disk. */
static const struct ata_port ata_ports[] = {
	{ ATA0_CMD, ATA0_CTL, DEV_DEV1, "ata0-slave" },
	{ ATA1_CMD, ATA1_CTL, 0, "ata1-master" },
	{ ATA1_CMD, ATA1_CTL, DEV_DEV1, "ata1-slave" },
};

/* The head request's progress. */
struct ata_cmd {
	bool active;            /* deadline set */
	bool issued;            /* command register written */
	unsigned sectors;       /* data blocks moved */
	uint64_t deadline;      /* TSC */
};

struct ata_disk {
	struct blockdev dev;
	const struct ata_port *port;
	struct ata_identity id;
	struct blk_request ring[ATA_QUEUE_DEPTH];
	unsigned head, count;
	struct ata_cmd cmd;
	bool failed;            /* timed out: the device state is unknown */
	unsigned errors_shown;
};

/* One per port; probed once (ata_probe_all), then kept. */
static struct ata_disk ata_disks[ARRAY_SIZE(ata_ports)];
static struct blockdev *ata_found[ARRAY_SIZE(ata_ports)];
static unsigned ata_nfound;
static bool ata_probed;
static uint16_t ata_scratch[SECTOR_WORDS];

enum step {
	STEP_PENDING,           /* the device is busy: come back later */
	STEP_DONE,              /* the head request has its status */
};

/* ----------------------------------------------------------- time, status */

static uint64_t tsc_after_us(uint64_t us)
{
	/* Before calibration assume 4 GHz: a wait can only get longer. */
	uint64_t hz = tsc_hz ? tsc_hz : 4000000000ull;

	return rdtsc() + hz / 1000000 * us;
}

static uint8_t alt_status(const struct ata_port *p)
{
	return inb(p->ctl);
}

/*
 * The device may take 400 ns to show BSY after a write to the Command or
 * Device register or after a data block (ATA/ATAPI-6 clause 9); reading
 * Alternate Status four times spans that on any bus.
 */
static void delay_400ns(const struct ata_port *p)
{
	for (int i = 0; i < 4; i++)
		(void)alt_status(p);
}

/* Polls Alternate Status until (status & mask) == 0; false on timeout. */
static bool wait_clear(const struct ata_port *p, uint8_t mask, uint64_t us,
		       uint8_t *status)
{
	uint64_t end = tsc_after_us(us);

	for (;;) {
		*status = alt_status(p);
		if (!(*status & mask))
			return true;
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
}

/* ------------------------------------------------------------------ probe */

enum probe {
	PROBE_NONE,             /* nothing there, or not an ATA disk */
	PROBE_DISK,             /* IDENTIFY DEVICE data read */
	PROBE_UNUSABLE,         /* an ATA disk that failed; error printed */
};

/*
 * Selects the position (ATA/ATAPI-6 clause 9, "Device selection
 * protocol": only while BSY and DRQ are clear) and tells whether a device
 * may be there.
 */
static bool select_device(const struct ata_port *p)
{
	uint8_t s = alt_status(p);

	/* No controller decodes the ports: the bus floats to all ones. */
	if (s == 0xff)
		return false;
	if (!wait_clear(p, ST_BSY | ST_DRQ, ATA_SELECT_TIMEOUT_US, &s))
		return false;
	outb(p->cmd + REG_DEVICE, DEV_OBSOLETE | p->dev);
	delay_400ns(p);
	/*
	 * Status 00h: device 0 answering for an absent device 1 (ATA/ATAPI-6
	 * clause 9, device 0 responding for device 1), or nothing at all. An
	 * ATA disk shows BSY or DRDY.
	 */
	s = alt_status(p);
	return s != 0 && s != 0xff;
}

static enum probe probe_failed(const struct ata_port *p, const char *what,
			       uint8_t status)
{
	hv_error("%s: IDENTIFY DEVICE %s (status 0x%02x, error 0x%02x); "
		 "the disk is not used", p->name, what, status,
		 inb(p->cmd + REG_ERROR));
	return PROBE_UNUSABLE;
}

/* An abort with the packet signature: a CD-ROM or the like, not ours. */
static bool is_packet_device(const struct ata_port *p)
{
	return inb(p->cmd + REG_LBA_MID) == SIG_PACKET_MID &&
	       inb(p->cmd + REG_LBA_HIGH) == SIG_PACKET_HIGH;
}

/* IDENTIFY DEVICE (ATA/ATAPI-6 8.15) by the PIO data-in protocol. */
static enum probe identify(const struct ata_port *p, uint16_t *words)
{
	uint8_t s;

	if (!select_device(p))
		return PROBE_NONE;
	if (!wait_clear(p, ST_BSY, ATA_PROBE_TIMEOUT_US, &s))
		return probe_failed(p, "not started: device busy", s);
	outb(p->ctl, CTL_NIEN);
	outb(p->cmd + REG_COMMAND, CMD_IDENTIFY_DEVICE);
	delay_400ns(p);
	if (alt_status(p) == 0)
		return PROBE_NONE;      /* nobody took the command */
	if (!wait_clear(p, ST_BSY, ATA_PROBE_TIMEOUT_US, &s))
		return probe_failed(p, "timed out", s);
	if (s & ST_ERR)
		return is_packet_device(p) ? PROBE_NONE :
		       probe_failed(p, "failed", s);
	if (!(s & ST_DRQ))
		return probe_failed(p, "sent no data", s);
	insw(p->cmd + REG_DATA, words, ATA_IDENTIFY_WORDS);
	delay_400ns(p);
	s = inb(p->cmd + REG_STATUS);
	if (s & (ST_BSY | ST_DRQ | ST_ERR))
		return probe_failed(p, "did not end", s);
	return PROBE_DISK;
}

/* ----------------------------------------------------------- PIO engine */

static bool in_range(const struct ata_disk *d, const struct blk_request *r)
{
	return IS_ALIGNED(r->offset, PAGE_SIZE) && r->offset < d->dev.size &&
	       d->dev.size - r->offset >= PAGE_SIZE;
}

static const char *op_name(enum blk_op op)
{
	return op == BLK_READ ? "read" : "write";
}

/*
 * LBA and count into the command block. With the 48-bit Address feature
 * set each register is a two-deep FIFO: the high-order byte is written
 * first ("previous content"), then the low-order one (ATA/ATAPI-6
 * clause 6, "48-bit Address feature set").
 */
static void write_taskfile(const struct ata_disk *d, uint64_t lba)
{
	uint16_t c = d->port->cmd;
	uint8_t dev = DEV_OBSOLETE | DEV_LBA | d->port->dev;

	if (d->id.lba48) {
		outb(c + REG_DEVICE, dev);
		outb(c + REG_COUNT, 0);
		outb(c + REG_LBA_LOW, (uint8_t)(lba >> 24));
		outb(c + REG_LBA_MID, (uint8_t)(lba >> 32));
		outb(c + REG_LBA_HIGH, (uint8_t)(lba >> 40));
	} else {
		outb(c + REG_DEVICE, dev | ((lba >> 24) & 0x0f));
	}
	outb(c + REG_COUNT, SECTORS_PER_PAGE);
	outb(c + REG_LBA_LOW, (uint8_t)lba);
	outb(c + REG_LBA_MID, (uint8_t)(lba >> 8));
	outb(c + REG_LBA_HIGH, (uint8_t)(lba >> 16));
}

static uint8_t command_for(const struct ata_disk *d, enum blk_op op)
{
	if (op == BLK_READ)
		return d->id.lba48 ? CMD_READ_SECTORS_EXT : CMD_READ_SECTORS;
	return d->id.lba48 ? CMD_WRITE_SECTORS_EXT : CMD_WRITE_SECTORS;
}

/*
 * The host writes the command block only while BSY and DRQ are clear
 * (ATA/ATAPI-6 clause 9, "Bus idle protocol"). False: still busy.
 */
static bool pio_issue(struct ata_disk *d, const struct blk_request *r)
{
	const struct ata_port *p = d->port;

	if (alt_status(p) & (ST_BSY | ST_DRQ))
		return false;
	write_taskfile(d, r->offset / ATA_SECTOR_SIZE);
	outb(p->cmd + REG_COMMAND, command_for(d, r->op));
	delay_400ns(p);
	d->cmd.issued = true;
	return true;
}

static void pio_sector(struct ata_disk *d, const struct blk_request *r)
{
	/* Host memory is identity-mapped (arch/x86/host_paging.h). */
	uintptr_t buf = (uintptr_t)(r->buffer_pa +
				    d->cmd.sectors * ATA_SECTOR_SIZE);

	if (r->op == BLK_READ)
		insw(d->port->cmd + REG_DATA, (void *)buf, SECTOR_WORDS);
	else
		outsw(d->port->cmd + REG_DATA, (const void *)buf,
		      SECTOR_WORDS);
	d->cmd.sectors++;
	delay_400ns(d->port);
}

static unsigned long long first_sector(const struct blk_request *r)
{
	return r->offset / ATA_SECTOR_SIZE;
}

static void show_error(struct ata_disk *d, const struct blk_request *r,
		       uint8_t status, uint8_t error, const char *what)
{
	if (d->errors_shown == ATA_ERRORS_SHOWN)
		return;
	hv_info("%s: %s of sectors %llu-%llu failed: %s (status 0x%02x, "
		"error 0x%02x)%s", d->port->name, op_name(r->op),
		first_sector(r), first_sector(r) + SECTORS_PER_PAGE - 1,
		what, status, error,
		++d->errors_shown == ATA_ERRORS_SHOWN ?
		"; further errors are only counted" : "");
}

/*
 * ERR or DF: the command ended (ATA/ATAPI-6 clause 7, Status and Error
 * registers). A read may still offer data blocks (DRQ); they are drained
 * so that the device goes back to idle for the next command.
 */
static enum blk_status device_error(struct ata_disk *d,
				    const struct blk_request *r,
				    uint8_t status)
{
	const struct ata_port *p = d->port;
	uint8_t error = inb(p->cmd + REG_ERROR);

	for (unsigned i = d->cmd.sectors; i < SECTORS_PER_PAGE; i++) {
		uint8_t s;

		if (r->op != BLK_READ ||
		    !wait_clear(p, ST_BSY, ATA_DRAIN_TIMEOUT_US, &s) ||
		    !(s & ST_DRQ))
			break;
		insw(p->cmd + REG_DATA, ata_scratch, SECTOR_WORDS);
		delay_400ns(p);
	}
	(void)inb(p->cmd + REG_STATUS);
	show_error(d, r, status, error, ata_error_name(status, error));
	return BLK_IO_ERROR;
}

static enum step timed_out(struct ata_disk *d, const struct blk_request *r,
			   uint8_t status, enum blk_status *st)
{
	if (rdtsc() <= d->cmd.deadline)
		return STEP_PENDING;
	hv_error("%s: %s of sectors %llu-%llu timed out after %u s (status "
		 "0x%02x, %u of %u sectors moved); the disk is not used any "
		 "more", d->port->name, op_name(r->op), first_sector(r),
		 first_sector(r) + SECTORS_PER_PAGE - 1,
		 (unsigned)(ATA_IO_TIMEOUT_US / 1000000), status,
		 d->cmd.sectors, (unsigned)SECTORS_PER_PAGE);
	d->failed = true;
	*st = BLK_IO_ERROR;
	return STEP_DONE;
}

/*
 * After the command: each data block is offered with DRQ (BSY clear);
 * the command is over when BSY and DRQ are both clear. Bounded: at most
 * one page of data blocks per call.
 */
static enum step pio_transfer(struct ata_disk *d, const struct blk_request *r,
			      enum blk_status *st)
{
	uint8_t s;

	for (;;) {
		s = alt_status(d->port);
		if (s & ST_BSY)
			return timed_out(d, r, s, st);
		if (s & (ST_ERR | ST_DF)) {
			*st = device_error(d, r, s);
			return STEP_DONE;
		}
		if (!(s & ST_DRQ))
			break;
		if (d->cmd.sectors == SECTORS_PER_PAGE) {
			/* Its state is unknown now: no further commands. */
			hv_error("%s: %s of sectors %llu-%llu: the device "
				 "offers more than the %u sectors asked for "
				 "(status 0x%02x); the disk is not used any "
				 "more", d->port->name, op_name(r->op),
				 first_sector(r), first_sector(r) +
				 SECTORS_PER_PAGE - 1,
				 (unsigned)SECTORS_PER_PAGE, s);
			d->failed = true;
			*st = BLK_IO_ERROR;
			return STEP_DONE;
		}
		pio_sector(d, r);
	}
	(void)inb(d->port->cmd + REG_STATUS);
	if (d->cmd.sectors == SECTORS_PER_PAGE) {
		*st = BLK_OK;
	} else {
		/* The missing sectors' words never reached the page. */
		d->dev.short_transfers++;
		show_error(d, r, s, 0, "command ended early");
		*st = BLK_IO_ERROR;
	}
	return STEP_DONE;
}

static enum step ata_step(struct ata_disk *d, enum blk_status *st)
{
	const struct blk_request *r = &d->ring[d->head];

	if (d->failed) {
		*st = BLK_IO_ERROR;
		return STEP_DONE;
	}
	if (!in_range(d, r)) {
		*st = BLK_OUT_OF_RANGE;
		return STEP_DONE;
	}
	if (!d->cmd.active) {
		d->cmd.active = true;
		d->cmd.deadline = tsc_after_us(ATA_IO_TIMEOUT_US);
	}
	if (!d->cmd.issued && !pio_issue(d, r))
		return timed_out(d, r, alt_status(d->port), st);
	return pio_transfer(d, r, st);
}

/* ------------------------------------------------------ blockdev ops */

static enum hv_err ata_submit(struct blockdev *dev,
			      const struct blk_request *req)
{
	struct ata_disk *d = dev->driver;

	if (d->count == ATA_QUEUE_DEPTH)
		return HV_ERR_BUSY;
	d->ring[(d->head + d->count) % ATA_QUEUE_DEPTH] = *req;
	d->count++;
	blk_count_submitted(dev, req);
	return HV_OK;
}

static unsigned ata_poll(struct blockdev *dev, struct blk_completion *out,
			 unsigned max)
{
	struct ata_disk *d = dev->driver;
	unsigned n = 0;

	while (n < max && d->count) {
		enum blk_status st;
		bool moved_data;

		if (ata_step(d, &st) == STEP_PENDING)
			break;
		moved_data = d->cmd.issued;
		out[n].cookie = d->ring[d->head].cookie;
		out[n++].status = st;
		if (st != BLK_OK)
			dev->errors++;
		d->head = (d->head + 1) % ATA_QUEUE_DEPTH;
		d->count--;
		memset(&d->cmd, 0, sizeof(d->cmd));
		if (moved_data)
			break;          /* one page per call */
	}
	return n;
}

static const struct blockdev_ops ata_ops = {
	.submit = ata_submit,
	.poll = ata_poll,
};

/* -------------------------------------------------------------- probe */

static struct blockdev *use_disk(unsigned index, const uint16_t *words)
{
	const struct ata_port *p = &ata_ports[index];
	struct ata_disk *d = &ata_disks[index];
	const char *why;

	memset(d, 0, sizeof(*d));
	why = ata_identity_parse(words, &d->id);
	if (why) {
		hv_error("%s: ATA disk \"%s\": %s; the disk is not used",
			 p->name, d->id.model, why);
		return NULL;
	}
	d->port = p;
	d->dev = (struct blockdev){
		.ops = &ata_ops,
		.name = p->name,
		.size = ALIGN_DOWN(d->id.sectors * ATA_SECTOR_SIZE, PAGE_SIZE),
		.queue_depth = ATA_QUEUE_DEPTH,
		.driver = d,
		.bus = p->cmd,
	};
	hv_info("%s: ATA disk \"%s\", %llu sectors (%llu MiB), %s, PIO",
		p->name, d->id.model, (unsigned long long)d->id.sectors,
		(unsigned long long)(d->dev.size >> 20),
		d->id.lba48 ? "LBA48" : "LBA28");
	return &d->dev;
}

unsigned ata_probe_all(struct blockdev **out, unsigned max)
{
	uint16_t words[ATA_IDENTIFY_WORDS];
	unsigned n;

	for (unsigned i = 0; i < ARRAY_SIZE(ata_ports) && !ata_probed; i++) {
		struct blockdev *dev = NULL;

		if (identify(&ata_ports[i], words) == PROBE_DISK)
			dev = use_disk(i, words);
		if (dev)
			ata_found[ata_nfound++] = dev;
	}
	ata_probed = true;
	n = MIN(max, ata_nfound);
	for (unsigned i = 0; i < n; i++)
		out[i] = ata_found[i];
	return n;
}

void ata_forget(void)
{
	memset(ata_disks, 0, sizeof(ata_disks));
	ata_nfound = 0;
	ata_probed = false;
}

struct blockdev *ata_probe(void)
{
	struct blockdev *dev;

	return ata_probe_all(&dev, 1) ? dev : NULL;
}

void ata_fill_drain_buffer(uint64_t value)
{
	for (unsigned i = 0; i < sizeof(ata_scratch); i += sizeof(value))
		memcpy((uint8_t *)ata_scratch + i, &value, sizeof(value));
}
