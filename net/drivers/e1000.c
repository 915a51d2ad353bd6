// SPDX-License-Identifier: BSD-2-Clause
/*
 * Intel 8254x over PCI: the hardware edge of the e1000 driver. Finds the
 * functions, maps BAR0, resets and configures each device as chapter 14
 * ("General Initialization and Reset Operation") of Intel's 8254x
 * Software Developer's Manual (8254x_GBe_SDM.pdf) asks, and leaves the
 * rings and everything the device writes into them to
 * net/drivers/e1000_ring.c. The rings and buffers come from the
 * hypervisor heap below 4 GiB, identity-mapped (a pointer is the address
 * the device uses), and are never freed, so even a device that ignores
 * its reset only ever writes into memory that is its own.
 *
 * What the emulators do differently from the silicon (QEMU hw/net/e1000.c,
 * Bochs iodev/network/e1000.cc): CTRL.RST only clears itself, nothing is
 * reset, so every register that matters is written here whatever it held
 * (firmware, say iPXE, may have left receive on with rings of its own);
 * Bochs leaves RAL0/RAH0 zero (the MAC address is only in the EEPROM) and
 * ignores the bus-master bit, so receive and transmit are switched off
 * explicitly whenever the device must stop.
 */
#include "net/drivers/e1000.h"
#include "net/drivers/e1000_ring.h"
#include "arch/x86/host_paging.h"
#include "arch/x86/pci.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/heap.h"

#define INTEL_VENDOR_ID         0x8086
#define E1000_DEV_82540EM       0x100e  /* QEMU "e1000", Bochs "e1000" */
#define E1000_DEV_82545EM       0x100f  /* QEMU "e1000-82545em" */
/* BAR0: 128 KiB of registers. */
#define E1000_REGS_SIZE         0x20000

/* Device registers (chapter 13), byte offsets into BAR0. */
#define E1000_CTRL      0x0000
#define E1000_STATUS    0x0008
#define E1000_EERD      0x0014
#define E1000_FCAL      0x0028
#define E1000_FCAH      0x002c
#define E1000_FCT       0x0030
#define E1000_ICR       0x00c0
#define E1000_IMC       0x00d8
#define E1000_RCTL      0x0100
#define E1000_FCTTV     0x0170
#define E1000_TCTL      0x0400
#define E1000_TIPG      0x0410
#define E1000_RXCSUM    0x5000
#define E1000_MTA       0x5200  /* 128 registers */
#define E1000_MTA_COUNT 128
#define E1000_RAL(n)    (0x5400 + 8 * (n))
#define E1000_RAH(n)    (0x5404 + 8 * (n))
#define E1000_RA_COUNT  16

#define E1000_CTRL_LRST     BIT(3)      /* link reset (TBI only) */
#define E1000_CTRL_SLU      BIT(6)      /* set link up */
#define E1000_CTRL_ILOS     BIT(7)      /* invert loss-of-signal */
#define E1000_CTRL_FRCSPD   BIT(11)
#define E1000_CTRL_FRCDPLX  BIT(12)
#define E1000_CTRL_RST      BIT(26)     /* device reset, self-clearing */
#define E1000_CTRL_VME      BIT(30)     /* VLAN mode */
#define E1000_CTRL_PHY_RST  BIT(31)

#define E1000_STATUS_LU     BIT(1)      /* link up */

/*
 * EERD on the 82540EP/EM and 82545/6 (the 82541 and 82547 move DONE to
 * bit 1 and the address to bit 2): start, done, word address, data.
 */
#define E1000_EERD_START        BIT(0)
#define E1000_EERD_DONE         BIT(4)
#define E1000_EERD_ADDR_SHIFT   8
#define E1000_EERD_DATA_SHIFT   16

#define E1000_RCTL_EN       BIT(1)
#define E1000_RCTL_BAM      BIT(15)     /* accept broadcast */
#define E1000_RCTL_SECRC    BIT(26)     /* strip the FCS */
/* BSIZE (bits 17:16) 00b with BSEX 0: 2048-byte buffers. */

#define E1000_TCTL_EN       BIT(1)
#define E1000_TCTL_PSP      BIT(3)      /* pad short packets */
#define E1000_TCTL_CT_SHIFT     4       /* collision threshold */
#define E1000_TCTL_COLD_SHIFT   12      /* collision distance */
/* 14.5: CT 0Fh; COLD 40h for full duplex (200h for half). */
#define E1000_TCTL_CT_VALUE     0x0f
#define E1000_TCTL_COLD_VALUE   0x40

/*
 * Table 13-77: IPGT 10 and IPGR1 8 for the IEEE 802.3 96-bit IPG; IPGR2 6
 * as Linux has it (e1000_hw.h: DEFAULT_82543_TIPG_IPGR2).
 */
#define E1000_TIPG_VALUE    (10u | 8u << 10 | 6u << 20)

#define E1000_RAH_AV        BIT(31)     /* address valid */

/* Waits, in microseconds. */
#define E1000_DMA_DRAIN_US  10000       /* receive/transmit off, to reset */
#define E1000_RESET_US      5000        /* after CTRL.RST: EEPROM reload */
#define E1000_RESET_MAX_US  100000      /* RST still set after this: dead */
#define E1000_EERD_MAX_US   10000       /* one EEPROM word */
#define E1000_POLL_STEP_US  10

struct e1000 {
	struct nic nic;
	char name[24];                  /* "e1000 00:03.0" */
	struct pci_device pci;
	volatile uint8_t *regs;         /* BAR0 */
	struct e1000_ring ring;
};

/* --------------------------------------------------------------- MMIO */

/* Registers are read and written 32 bits at a time. */
static uint32_t rd32(struct e1000 *e, uint32_t reg)
{
	return *(volatile uint32_t *)(e->regs + reg);
}

static void wr32(struct e1000 *e, uint32_t reg, uint32_t val)
{
	*(volatile uint32_t *)(e->regs + reg) = val;
}

static uint32_t ring_read32(void *ctx, uint32_t reg)
{
	return rd32(ctx, reg);
}

static void ring_write32(void *ctx, uint32_t reg, uint32_t val)
{
	wr32(ctx, reg, val);
}

/* Memory decoding on and INTx off either way (pci_enable does both). */
static void set_bus_master(struct e1000 *e, bool on)
{
	uint16_t cmd;

	if (on) {
		pci_enable(&e->pci, PCI_COMMAND_MEMORY |
			   PCI_COMMAND_BUS_MASTER);
		return;
	}
	cmd = pci_read16(&e->pci, PCI_COMMAND) | PCI_COMMAND_MEMORY |
	      PCI_COMMAND_INTX_DISABLE;
	pci_write16(&e->pci, PCI_COMMAND,
		    (uint16_t)(cmd & ~PCI_COMMAND_BUS_MASTER));
}

/*
 * No more DMA: receive and transmit off, interrupts masked (we poll; an
 * emulator that ignores the INTx-disable bit, as Bochs does, then never
 * raises the line either), bus mastering off.
 */
static void quiesce(struct e1000 *e)
{
	wr32(e, E1000_IMC, 0xffffffff);
	wr32(e, E1000_RCTL, 0);
	wr32(e, E1000_TCTL, 0);
	(void)rd32(e, E1000_STATUS);    /* the writes have reached it */
	set_bus_master(e, false);
}

/* The ring's stop: the device broke; it is shut off and reset for good. */
static void stop_device(void *ctx)
{
	struct e1000 *e = ctx;

	quiesce(e);
	wr32(e, E1000_CTRL, rd32(e, E1000_CTRL) | E1000_CTRL_RST);
}

static const struct e1000_ring_ops e1000_ring_mmio = {
	.read32 = ring_read32,
	.write32 = ring_write32,
	.stop = stop_device,
};

/* ------------------------------------------------------------ bring-up */

/*
 * The manual's software reset (CTRL.RST), with Linux's delays
 * (drivers/net/ethernet/intel/e1000/e1000_hw.c: e1000_reset_hw): receive
 * and transmit off and the DMA drained, CTRL.RST, 5 ms for the EEPROM
 * reload, then RST must have cleared itself. The reset sets every
 * register back, interrupt masks too; they are masked again in case it
 * did not (QEMU and Bochs reset nothing).
 */
static bool reset(struct e1000 *e, const char **why)
{
	unsigned waited = 0;

	quiesce(e);
	tsc_delay_us(E1000_DMA_DRAIN_US);
	wr32(e, E1000_CTRL, rd32(e, E1000_CTRL) | E1000_CTRL_RST);
	tsc_delay_us(E1000_RESET_US);
	while (rd32(e, E1000_CTRL) & E1000_CTRL_RST) {
		if (waited >= E1000_RESET_MAX_US) {
			*why = "the device did not finish its reset "
			       "(CTRL.RST still set after 100 ms)";
			return false;
		}
		tsc_delay_us(E1000_POLL_STEP_US);
		waited += E1000_POLL_STEP_US;
	}
	wr32(e, E1000_IMC, 0xffffffff);
	(void)rd32(e, E1000_ICR);       /* clears any cause pending */
	return true;
}

/* One 16-bit EEPROM word through EERD; false when DONE never comes. */
static bool eeprom_read(struct e1000 *e, unsigned word, uint16_t *out)
{
	unsigned waited = 0;
	uint32_t v;

	wr32(e, E1000_EERD, (uint32_t)word << E1000_EERD_ADDR_SHIFT |
			    E1000_EERD_START);
	while (!((v = rd32(e, E1000_EERD)) & E1000_EERD_DONE)) {
		if (waited >= E1000_EERD_MAX_US)
			return false;
		tsc_delay_us(E1000_POLL_STEP_US);
		waited += E1000_POLL_STEP_US;
	}
	*out = (uint16_t)(v >> E1000_EERD_DATA_SHIFT);
	return true;
}

static bool mac_usable(const uint8_t mac[6])
{
	unsigned zero = 0, ones = 0;

	for (unsigned i = 0; i < 6; i++) {
		zero += mac[i] == 0x00;
		ones += mac[i] == 0xff;
	}
	/* Not all zeros, not broadcast, not a group address. */
	return zero != 6 && ones != 6 && !(mac[0] & 1);
}

/*
 * The address the device loaded into RAL0/RAH0 from its EEPROM (QEMU and
 * the silicon do); when they are zero (Bochs), EEPROM words 0-2 (Table
 * 5-2: the Ethernet address, low byte first).
 */
static bool read_mac(struct e1000 *e, const char **why)
{
	uint32_t ral = rd32(e, E1000_RAL(0)), rah = rd32(e, E1000_RAH(0));
	uint8_t *mac = e->nic.mac;

	if (ral || (rah & 0xffff)) {
		for (unsigned i = 0; i < 4; i++)
			mac[i] = (uint8_t)(ral >> (8 * i));
		mac[4] = (uint8_t)rah;
		mac[5] = (uint8_t)(rah >> 8);
	} else {
		for (unsigned w = 0; w < 3; w++) {
			uint16_t v;

			if (!eeprom_read(e, w, &v)) {
				*why = "RAL0 is zero and the EEPROM read "
				       "(EERD) never completed";
				return false;
			}
			mac[2 * w] = (uint8_t)v;
			mac[2 * w + 1] = (uint8_t)(v >> 8);
		}
	}
	if (!mac_usable(mac)) {
		*why = "no usable MAC address (zero, broadcast or multicast)";
		return false;
	}
	return true;
}

/*
 * 14.3 - 14.5: link, address filters, rings, then transmit and receive
 * on, with bus mastering on just before.
 */
static void configure(struct e1000 *e)
{
	const uint8_t *mac = e->nic.mac;
	uint32_t ctrl = rd32(e, E1000_CTRL);

	/* The MAC takes speed and duplex from the internal PHY. */
	ctrl |= E1000_CTRL_SLU;
	ctrl &= ~(uint32_t)(E1000_CTRL_LRST | E1000_CTRL_ILOS |
			    E1000_CTRL_FRCSPD | E1000_CTRL_FRCDPLX |
			    E1000_CTRL_VME | E1000_CTRL_PHY_RST |
			    E1000_CTRL_RST);
	wr32(e, E1000_CTRL, ctrl);
	/* No flow control: its address, type and timer 0 (14.3). */
	wr32(e, E1000_FCAL, 0);
	wr32(e, E1000_FCAH, 0);
	wr32(e, E1000_FCT, 0);
	wr32(e, E1000_FCTTV, 0);
	/* No checksum offload, so TCPE/IPE are never set (any error drops). */
	wr32(e, E1000_RXCSUM, 0);
	/* Our address in RA[0] (valid), no other; no multicast (14.4). */
	wr32(e, E1000_RAL(0), (uint32_t)mac[0] | (uint32_t)mac[1] << 8 |
			      (uint32_t)mac[2] << 16 | (uint32_t)mac[3] << 24);
	wr32(e, E1000_RAH(0), (uint32_t)mac[4] | (uint32_t)mac[5] << 8 |
			      E1000_RAH_AV);
	for (unsigned i = 1; i < E1000_RA_COUNT; i++) {
		wr32(e, E1000_RAL(i), 0);
		wr32(e, E1000_RAH(i), 0);
	}
	for (unsigned i = 0; i < E1000_MTA_COUNT; i++)
		wr32(e, E1000_MTA + 4 * i, 0);
	e1000_ring_init(&e->ring,
			(void *)(uintptr_t)hv_alloc_pages_low(E1000_RING_PAGES),
			&e->nic, &e1000_ring_mmio, e);
	wr32(e, E1000_TIPG, E1000_TIPG_VALUE);
	set_bus_master(e, true);
	wr32(e, E1000_TCTL, E1000_TCTL_EN | E1000_TCTL_PSP |
			    E1000_TCTL_CT_VALUE << E1000_TCTL_CT_SHIFT |
			    E1000_TCTL_COLD_VALUE << E1000_TCTL_COLD_SHIFT);
	/* Unicast to RA[0] and broadcast; 2048-byte buffers, no FCS. */
	wr32(e, E1000_RCTL, E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_SECRC);
}

/* BAR0: a memory BAR of the whole register space, mapped. */
static bool map_bar0(struct e1000 *e, const char **why)
{
	struct pci_bar bar;

	if (pci_bar_decode(&e->pci, 0, &bar) || bar.io || !bar.base ||
	    bar.size < E1000_REGS_SIZE) {
		*why = "BAR0 is not a memory BAR of 128 KiB or more";
		return false;
	}
	if (!host_paging_map_mmio(bar.base, bar.size)) {
		*why = "BAR0 cannot be mapped";
		return false;
	}
	e->regs = (volatile uint8_t *)(uintptr_t)bar.base;
	return true;
}

/* ---------------------------------------------------------- nic_ops */

static enum hv_err e1000_transmit(struct nic *nic, const void *frame,
				  size_t len)
{
	struct e1000 *e = nic->driver;

	return e1000_ring_transmit(&e->ring, frame, len);
}

static size_t e1000_receive(struct nic *nic, void *buf)
{
	struct e1000 *e = nic->driver;

	return e1000_ring_receive(&e->ring, buf);
}

/* A broken device is reset and unused: its link is as good as down. */
static bool e1000_link_up(struct nic *nic)
{
	struct e1000 *e = nic->driver;

	return !nic->broken && (rd32(e, E1000_STATUS) & E1000_STATUS_LU);
}

static const struct nic_ops e1000_ops = {
	.transmit = e1000_transmit,
	.receive = e1000_receive,
	.link_up = e1000_link_up,
};

/* -------------------------------------------------------------- probe */

static struct nic *e1000_found[NIC_MAX];
static unsigned e1000_nfound;
static bool e1000_probed;

struct pci_list {
	struct pci_device dev[NIC_MAX];
	unsigned n;
};

/*
 * The 82540EM and the 82545EM share the programming model used here (the
 * 8254x manual covers both). The 82574L (8086:10d3, QEMU "e1000e") does
 * not: another EEPROM read register, extended descriptors, MSI-X; it is
 * left alone.
 */
static bool is_e1000(const struct pci_device *d, void *arg)
{
	struct pci_list *list = arg;

	if (d->vendor != INTEL_VENDOR_ID ||
	    (d->device != E1000_DEV_82540EM && d->device != E1000_DEV_82545EM))
		return false;
	list->dev[list->n++] = *d;
	return list->n == NIC_MAX;
}

static struct nic *bring_up(const struct pci_device *d)
{
	struct e1000 *e = hv_alloc(sizeof(*e));
	const uint8_t *mac = e->nic.mac;
	const char *why = NULL;

	e->pci = *d;
	fmt_snprintf(e->name, sizeof(e->name), "e1000 %02x:%02x.%x", d->bus,
		     d->dev, d->fn);
	e->nic = (struct nic){
		.ops = &e1000_ops,
		.name = e->name,
		.driver = e,
	};
	if (!map_bar0(e, &why)) {
		hv_error("net: %s: %s", e->name, why);
		return NULL;
	}
	if (!reset(e, &why) || !read_mac(e, &why)) {
		quiesce(e);
		hv_error("net: %s: %s", e->name, why);
		return NULL;
	}
	configure(e);
	hv_info("net: %s, MAC %02x:%02x:%02x:%02x:%02x:%02x, link %s",
		e->name, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5],
		e1000_link_up(&e->nic) ? "up" : "down");
	return &e->nic;
}

unsigned e1000_probe_all(struct nic **out, unsigned max)
{
	struct pci_list list = { .n = 0 };
	unsigned n;

	if (!e1000_probed) {
		pci_scan(is_e1000, &list);
		for (unsigned i = 0; i < list.n; i++) {
			struct nic *nic = bring_up(&list.dev[i]);

			if (nic)
				e1000_found[e1000_nfound++] = nic;
		}
		e1000_probed = true;
	}
	n = MIN(max, e1000_nfound);
	for (unsigned i = 0; i < n; i++)
		out[i] = e1000_found[i];
	return n;
}
