// SPDX-License-Identifier: BSD-2-Clause
/*
 * One lwIP network interface over one NIC (net/net_stack.h). lwIP runs
 * without an operating system: its input is fed here from the NIC's
 * receive ring, its timers run from net_poll, and its output is copied
 * into the NIC's transmit ring.
 */
#include "net/net_stack.h"
#include "arch/x86/cpu.h"
#include "arch/x86/tsc.h"
#include "lib/console.h"
#include "lib/counters.h"
#include "lib/format.h"
#include "lib/string.h"
#include "net/nic.h"
#include "net/drivers/e1000.h"
#include "net/drivers/virtio_net.h"
#include "lwip/dhcp.h"
#include "lwip/etharp.h"
#include "lwip/init.h"
#include "lwip/ip4_addr.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

/* A link that is not up this long after the driver set it up is down. */
#define LINK_WAIT_MS        3000
/* A transmit ring full this long is stuck: the frame is dropped (TCP
 * sends it again). */
#define TX_BUSY_WAIT_MS     10
/* Frames taken from the NIC per net_poll, so one poll stays short. */
#define FRAMES_PER_POLL     64

static struct {
	enum hv_err result;
	bool tried;
	struct nic *nic;
	struct netif netif;
	uint8_t rx_frame[NIC_FRAME_MAX];
	uint8_t tx_frame[NIC_FRAME_MAX];
	/* counters */
	uint64_t rx_no_pbuf;    /* lwIP's pool was empty: frame dropped */
	uint64_t rx_rejected;   /* lwIP's input refused the frame */
	uint64_t tx_dropped;    /* too long, or the ring stayed full */
} net;

static uint64_t ms_ticks(unsigned ms)
{
	return tsc_hz / 1000 * ms;
}

void net_format_ip(uint32_t ip, char buf[16])
{
	fmt_snprintf(buf, 16, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff,
		     (ip >> 8) & 0xff, ip & 0xff);
}

static void to_lwip(uint32_t host_order, ip4_addr_t *a)
{
	IP4_ADDR(a, host_order >> 24, (host_order >> 16) & 0xff,
		 (host_order >> 8) & 0xff, host_order & 0xff);
}

static uint32_t from_lwip(const ip4_addr_t *a)
{
	return lwip_ntohl(ip4_addr_get_u32(a));
}

static err_t link_output(struct netif *nif, struct pbuf *p)
{
	uint64_t start = rdtsc();
	enum hv_err e;

	if (p->tot_len > NIC_FRAME_MAX) {
		net.tx_dropped++;
		return ERR_IF;
	}
	pbuf_copy_partial(p, net.tx_frame, p->tot_len, 0);
	while ((e = nic_transmit(net.nic, net.tx_frame, p->tot_len)) ==
	       HV_ERR_BUSY) {
		if (rdtsc() - start > ms_ticks(TX_BUSY_WAIT_MS)) {
			net.tx_dropped++;
			return ERR_IF;
		}
		cpu_relax();
	}
	return e ? ERR_IF : ERR_OK;
}

static err_t netif_setup(struct netif *nif)
{
	nif->name[0] = 'e';
	nif->name[1] = 'n';
	nif->output = etharp_output;
	nif->linkoutput = link_output;
	nif->mtu = NIC_MTU;
	nif->hwaddr_len = ETH_HWADDR_LEN;
	memcpy(nif->hwaddr, net.nic->mac, ETH_HWADDR_LEN);
	nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP |
		     NETIF_FLAG_ETHERNET;
	return ERR_OK;
}

void net_poll(void)
{
	if (net.result != HV_OK || !net.nic)
		return;
	for (unsigned i = 0; i < FRAMES_PER_POLL; i++) {
		size_t len = nic_receive(net.nic, net.rx_frame);
		struct pbuf *p;

		if (!len)
			break;
		p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL);
		if (!p) {
			net.rx_no_pbuf++;
			continue;
		}
		pbuf_take(p, net.rx_frame, (u16_t)len);
		if (net.netif.input(p, &net.netif) != ERR_OK) {
			net.rx_rejected++;
			pbuf_free(p);
		}
	}
	sys_check_timeouts();
}

/* The interface's counters, for the registry (lib/counters.h). */
static void each_counter(const void *obj, counter_fn fn, void *ctx)
{
	(void)obj;
	fn(ctx, "net.rx_frames", net.nic->rx_frames);
	fn(ctx, "net.tx_frames", net.nic->tx_frames);
	fn(ctx, "net.rx_dropped", net.nic->rx_dropped);
	fn(ctx, "net.rx_no_buffer", net.rx_no_pbuf);
	fn(ctx, "net.rx_rejected", net.rx_rejected);
	fn(ctx, "net.tx_dropped", net.tx_dropped);
	fn(ctx, "net.tx_busy", net.nic->tx_busy);
}

static struct counter_source counters = { .each = each_counter };

static struct nic *find_nic(enum net_device_kind kind)
{
	struct nic *found[NIC_MAX];
	unsigned n = 0;

	if (kind == NET_DEVICE_AUTO || kind == NET_DEVICE_E1000)
		n += e1000_probe_all(found + n, NIC_MAX - n);
	if (kind == NET_DEVICE_AUTO || kind == NET_DEVICE_VIRTIO_NET)
		n += virtio_net_probe_all(found + n, NIC_MAX - n);
	return n ? found[0] : NULL;
}

static bool wait_for(bool (*done)(void), unsigned ms)
{
	uint64_t start = rdtsc();

	while (!done()) {
		if (rdtsc() - start > ms_ticks(ms))
			return false;
		net_poll();
		cpu_relax();
	}
	return true;
}

static bool link_is_up(void)
{
	return nic_link_up(net.nic);
}

static bool dhcp_done(void)
{
	return dhcp_supplied_address(&net.netif);
}

/* 24 for 255.255.255.0 (libgcc, with its popcount, is not linked). */
static unsigned prefix_length(uint32_t mask)
{
	unsigned n = 0;

	while (mask & 0x80000000u) {
		n++;
		mask <<= 1;
	}
	return n;
}

static enum hv_err bring_up(const struct net_config *cfg)
{
	ip4_addr_t addr, mask, gw;
	char a[16], g[16];

	net.nic = find_nic(cfg->device);
	if (!net.nic) {
		hv_error("net: no network card found (e1000 or virtio-net): "
			 "attach one (tools/qemu-run --net, tools/bochs-run "
			 "--net)");
		return HV_ERR_NOT_FOUND;
	}
	counters_register(&counters);
	if (!wait_for(link_is_up, LINK_WAIT_MS)) {
		hv_error("net: %s: the link is still down after %u ms",
			 net.nic->name, LINK_WAIT_MS);
		return HV_ERR_TIMEOUT;
	}
	lwip_init();
	ip4_addr_set_zero(&addr);
	ip4_addr_set_zero(&mask);
	ip4_addr_set_zero(&gw);
	if (!cfg->dhcp) {
		to_lwip(cfg->address, &addr);
		to_lwip(cfg->prefix_len ? ~0u << (32 - cfg->prefix_len) : 0,
			&mask);
		to_lwip(cfg->gateway, &gw);
	}
	netif_add(&net.netif, &addr, &mask, &gw, NULL, netif_setup,
		  ethernet_input);
	netif_set_default(&net.netif);
	netif_set_link_up(&net.netif);
	netif_set_up(&net.netif);
	/* From here net_poll feeds lwIP. */
	net.result = HV_OK;
	if (cfg->dhcp) {
		if (dhcp_start(&net.netif) != ERR_OK) {
			hv_error("net: %s: DHCP could not start",
				 net.nic->name);
			return HV_ERR_DEVICE;
		}
		if (!wait_for(dhcp_done, cfg->dhcp_timeout_ms)) {
			hv_error("net: %s: no DHCP server answered in %u ms "
				 "(set net.address and net.gateway instead)",
				 net.nic->name, cfg->dhcp_timeout_ms);
			return HV_ERR_TIMEOUT;
		}
	}
	net_format_ip(from_lwip(netif_ip4_addr(&net.netif)), a);
	net_format_ip(from_lwip(netif_ip4_gw(&net.netif)), g);
	hv_info("net: %s is %s/%u, gateway %s (%s)", net.nic->name, a,
		prefix_length(from_lwip(netif_ip4_netmask(&net.netif))),
		g, cfg->dhcp ? "dhcp" : "static");
	return HV_OK;
}

enum hv_err net_start(const struct net_config *cfg)
{
	if (net.tried)
		return net.result;
	net.tried = true;
	net.result = HV_ERR_DEVICE;     /* net_poll idle until lwIP is up */
	net.result = bring_up(cfg);
	return net.result;
}

uint32_t net_address(void)
{
	return net.result == HV_OK ? from_lwip(netif_ip4_addr(&net.netif))
				   : 0;
}

