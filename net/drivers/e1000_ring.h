/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The descriptor rings of the e1000 driver (Intel 8254x, legacy
 * descriptors): one receive ring, one transmit ring and their buffers in
 * memory the device shares, and the bookkeeping of which descriptors are
 * on the device. Plain C: the few registers it touches (the ring bases,
 * lengths, heads and tails) go through struct e1000_ring_ops, so the unit
 * tests and the fuzzer drive it with a fake device; net/drivers/e1000.c
 * adds the PCI function, the MMIO and the bring-up.
 *
 * Sections and tables are those of Intel's "PCI/PCI-X Family of Gigabit
 * Ethernet Controllers Software Developer's Manual" (8254x_GBe_SDM.pdf);
 * the receive and transmit descriptor registers are in its chapter 13.
 *
 * Receive (3.2): the device owns the descriptors from RDH up to RDT - 1
 * and fills them in order, setting DD (and EOP on a frame's last one);
 * we take them from rx_next on, and one descriptor, the one before
 * rx_next, is always ours, so that RDT == RDH means "no descriptor" to
 * the device and never "all of them". Every descriptor keeps its own
 * 2048-byte buffer at a fixed place, so the address the device sees is
 * never read back from the ring.
 *
 * Transmit (3.3): frames are copied into the buffer of descriptor
 * tx_next, which is then handed over by moving TDT past it; with RS set
 * the device writes DD back once it has read the buffer, and the
 * descriptors from tx_clean on with DD are free again. At most
 * E1000_TX_DESCS - 1 are on the device (TDT == TDH means none).
 *
 * Nothing the device writes is trusted (net/nic.h): a receive descriptor
 * with a length under NIC_ETH_HEADER or over NIC_FRAME_MAX, an error bit
 * set, or without EOP (a frame spanning descriptors: we never enable long
 * frames, so it can only be garbage) is dropped and counted in
 * rx_dropped, one count per descriptor, and so is every descriptor up to
 * and including the EOP of a frame already being dropped. A head register
 * that reads outside its ring "breaks" the device: one "apfvisor: error:"
 * line, the stop callback resets it, and every later call fails
 * (HV_ERR_DEVICE, or no frame) without touching the rings or the
 * registers again.
 */
#ifndef NET_DRIVERS_E1000_RING_H
#define NET_DRIVERS_E1000_RING_H

#include "lib/types.h"
#include "net/nic.h"

/* Ring registers, byte offsets into BAR0. */
#define E1000_RDBAL 0x2800  /* receive descriptor base, low 32 bits */
#define E1000_RDBAH 0x2804  /* ... high 32 bits */
#define E1000_RDLEN 0x2808  /* receive ring bytes (a multiple of 128) */
#define E1000_RDH   0x2810  /* receive head: next one the device fills */
#define E1000_RDT   0x2818  /* receive tail: one past its last one */
#define E1000_TDBAL 0x3800
#define E1000_TDBAH 0x3804
#define E1000_TDLEN 0x3808
#define E1000_TDH   0x3810  /* transmit head: next one the device sends */
#define E1000_TDT   0x3818  /* transmit tail: one past the last queued */

/* Receive descriptor (3.2.3, Table 3-1). */
struct e1000_rx_desc {
	uint64_t addr;          /* buffer address; the device never writes it */
	uint16_t length;        /* bytes stored in the buffer */
	uint16_t csum;          /* packet checksum (unused) */
	uint8_t status;
	uint8_t errors;
	uint16_t special;       /* VLAN tag (unused) */
};
_Static_assert(sizeof(struct e1000_rx_desc) == 16, "8254x RX descriptor");

#define E1000_RXD_STAT_DD   BIT(0)      /* descriptor done */
#define E1000_RXD_STAT_EOP  BIT(1)      /* end of packet */
/*
 * Errors (3.2.3): CE (CRC), SE (symbol), SEQ (sequence), CXE (carrier
 * extension), TCPE, IPE (checksums, which e1000.c turns off) and RXE
 * (data). Bit 3 is reserved. Any bit set drops the descriptor.
 */
#define E1000_RXD_ERR_CE    BIT(0)
#define E1000_RXD_ERR_SE    BIT(1)
#define E1000_RXD_ERR_SEQ   BIT(2)
#define E1000_RXD_ERR_CXE   BIT(4)
#define E1000_RXD_ERR_TCPE  BIT(5)
#define E1000_RXD_ERR_IPE   BIT(6)
#define E1000_RXD_ERR_RXE   BIT(7)

/* Legacy transmit descriptor (3.3.3). */
struct e1000_tx_desc {
	uint64_t addr;
	uint16_t length;        /* bytes of this buffer */
	uint8_t cso;            /* checksum offset (unused: no offload) */
	uint8_t cmd;
	uint8_t status;         /* low nibble: the device writes DD there */
	uint8_t css;            /* checksum start (unused) */
	uint16_t special;
};
_Static_assert(sizeof(struct e1000_tx_desc) == 16, "8254x TX descriptor");

/* TDESC.CMD (3.3.3): the last buffer of the frame, add the FCS, report. */
#define E1000_TXD_CMD_EOP   BIT(0)
#define E1000_TXD_CMD_IFCS  BIT(1)
#define E1000_TXD_CMD_RS    BIT(3)
#define E1000_TXD_CMD_DEXT  BIT(5)      /* 0: legacy descriptor */
#define E1000_TXD_STAT_DD   BIT(0)

/*
 * Ring sizes: multiples of 8 descriptors, so that RDLEN and TDLEN are
 * multiples of 128 bytes, as RDLEN and TDLEN require. One 2048-byte
 * buffer per descriptor: RCTL.BSIZE 00b, and room for any TX frame.
 */
#define E1000_RX_DESCS      64
#define E1000_TX_DESCS      32
#define E1000_BUF_SIZE      2048

/*
 * The memory e1000_ring_init lays out: the two descriptor rings in the
 * first page (receive at 0, transmit at E1000_TX_RING_OFFSET), then the
 * receive buffers, then the transmit buffers.
 */
#define E1000_TX_RING_OFFSET 2048
#define E1000_RX_BUF_OFFSET  PAGE_SIZE
#define E1000_TX_BUF_OFFSET  (E1000_RX_BUF_OFFSET + \
			      E1000_RX_DESCS * E1000_BUF_SIZE)
#define E1000_RING_PAGES     ((E1000_TX_BUF_OFFSET + \
			       E1000_TX_DESCS * E1000_BUF_SIZE) / PAGE_SIZE)

_Static_assert(E1000_RX_DESCS % 8 == 0 && E1000_TX_DESCS % 8 == 0,
	       "ring lengths must be multiples of 128 bytes");
_Static_assert(E1000_RX_DESCS * sizeof(struct e1000_rx_desc) <=
	       E1000_TX_RING_OFFSET, "the RX ring overlaps the TX ring");
_Static_assert(E1000_TX_RING_OFFSET + E1000_TX_DESCS *
	       sizeof(struct e1000_tx_desc) <= E1000_RX_BUF_OFFSET,
	       "the TX ring overlaps the buffers");
_Static_assert(NIC_FRAME_MAX <= E1000_BUF_SIZE, "a frame fits a buffer");

/* The device's side, given by e1000.c (and by the tests' fake). */
struct e1000_ring_ops {
	uint32_t (*read32)(void *ctx, uint32_t reg);
	void (*write32)(void *ctx, uint32_t reg, uint32_t val);
	/*
	 * The device broke: stop it for good (receive and transmit off,
	 * bus mastering off, reset), so it no longer touches the rings.
	 */
	void (*stop)(void *ctx);
};

struct e1000_ring {
	struct nic *nic;        /* its name, counters and broken flag */
	const struct e1000_ring_ops *ops;
	void *ctx;
	struct e1000_rx_desc *rx;
	struct e1000_tx_desc *tx;
	uint8_t *rx_buf;        /* E1000_RX_DESCS buffers */
	uint8_t *tx_buf;        /* E1000_TX_DESCS buffers */
	uint16_t rx_next;       /* the next descriptor the device completes */
	uint16_t tx_next;       /* the next free one (our TDT) */
	uint16_t tx_clean;      /* the oldest one still on the device */
	bool rx_discard;        /* dropping a frame up to its EOP */
};

/*
 * Lays the rings and buffers out in mem (E1000_RING_PAGES pages,
 * identity-mapped, so that a pointer is the address the device uses),
 * fills every receive descriptor with its buffer and programs the ring
 * registers: the bases, lengths, both heads 0, RDT at the last receive
 * descriptor (all but one on the device), TDT 0 (none). Receive and
 * transmit are enabled by the caller (RCTL, TCTL) afterwards.
 */
void e1000_ring_init(struct e1000_ring *r, void *mem, struct nic *nic,
		     const struct e1000_ring_ops *ops, void *ctx);

/* struct nic_ops's transmit and receive (net/nic.h), on the rings. */
enum hv_err e1000_ring_transmit(struct e1000_ring *r, const void *frame,
				size_t len);
size_t e1000_ring_receive(struct e1000_ring *r, void *buf);

/* Transmit descriptors handed to the device and not yet taken back. */
static inline unsigned e1000_ring_tx_on_device(const struct e1000_ring *r)
{
	return (unsigned)(r->tx_next - r->tx_clean + E1000_TX_DESCS) %
	       E1000_TX_DESCS;
}

#endif
