/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * apfvisor.cfg: plain "key = value" lines, '#' starts a comment, blank lines
 * are ignored. Parsing is pure C over a buffer so tests/unit can drive it.
 *
 * Lines may end in LF or CRLF; spaces and tabs around keys and values are
 * ignored. Each key may appear once.
 *   guest.kernel = PATH       required; may be in double quotes, and then
 *   guest.initrd = PATH       may hold '#'; empty initrd = none
 *   guest.format = auto|bzimage|multiboot|elf|flat (auto: told by the
 *                             headers; a flat test guest must say flat)
 *   guest.cmdline = TEXT      the rest of the line: '#' does NOT start a
 *                             comment here (only at the start of a line);
 *                             one pair of quotes around it all is removed
 *   guest.memory = SIZE       multiple of 4 KiB, 2 MiB..60 GiB (64M)
 *   guest.vcpus = N           1..64 (1)
 *   host.guest_frames = SIZE  multiple of 4 KiB; 0 = guest.memory (0)
 *   swap.device = auto|virtio-blk|ata|none (none)
 *   swap.read_latency = DURATION  each swap-in completes no earlier than
 *                             this after it was submitted: 0, or a
 *                             number with ns, us, ms or s, at most 10s (0)
 *   apf = on|off (on)
 *   trace = on|off (off)
 *   trace.buffer = SIZE per host CPU, 64K..256M, a multiple of 4K (4M)
 *   trace.mode = stop|overwrite (stop)
 *   debug.swap_fail_reads = N, debug.swap_fail_writes = N
 *   debug.swap_verify = on|off (off)
 *   debug.hypercall = on|off (off)
 *   debug.isolation_secret = 0xHEX (none)
 *   console = serial|screen|both (both: the screen only when the firmware
 *                             gives a framebuffer)
 *   console.passthrough = off|com2 (off: the guest's COM1 is only in the
 *                             record, as "guest: " lines; com2: also raw,
 *                             both ways, on the host's COM2)
 *   tsc.source = auto|cpuid|pmtimer|pit (auto: CPUID 0x15, else the ACPI
 *                             PM timer, else the PIT; arch/x86/tsc_choice.h)
 *                             0..1000000 (0 = off)
 * SIZE is a decimal number of bytes, or one followed by K, M or G (binary
 * units; "64M", "64MiB", "64 MB" are the same).
 */
#ifndef BOOT_CONFIG_H
#define BOOT_CONFIG_H

#include "lib/types.h"

#define CONFIG_TRACE_BUFFER_MIN (64ull << 10)
#define CONFIG_TRACE_BUFFER_MAX (256ull << 20)
#include "swap/swap_params.h"
#include "guest/loaders/image_format.h"
#include "arch/x86/tsc_freq.h"

#define CONFIG_PATH_MAX 128
#define CONFIG_CMDLINE_MAX 1024
#define CONFIG_ERROR_MAX 160
#define CONFIG_DURATION_MAX_NS 10000000000ull

/* Where apfvisor's console lines (and the guest's, after them) appear. */
enum console_output {
	CONSOLE_OUTPUT_BOTH,            /* COM1 and the screen */
	CONSOLE_OUTPUT_SERIAL,          /* COM1 only */
	CONSOLE_OUTPUT_SCREEN,          /* the screen only */
};

enum console_passthrough {
	CONSOLE_PASSTHROUGH_OFF,
	CONSOLE_PASSTHROUGH_COM2,
};

struct hv_config {
	char guest_kernel[CONFIG_PATH_MAX];   /* guest.kernel (required) */
	enum guest_format guest_format;       /* guest.format (auto) */
	char guest_initrd[CONFIG_PATH_MAX];   /* guest.initrd ("" = none) */
	char guest_cmdline[CONFIG_CMDLINE_MAX]; /* guest.cmdline */
	uint64_t guest_memory;                /* guest.memory, bytes */
	uint32_t guest_vcpus;                 /* guest.vcpus */
	uint64_t host_guest_frames;           /* host.guest_frames, bytes */
	enum swap_device_kind swap_device;    /* swap.device */
	uint64_t swap_read_latency_ns;        /* swap.read_latency */
	bool apf;                             /* apf = on|off */
	/*
	 * console.passthrough = com2: the guest's COM1 bytes also go out raw
	 * on the host's COM2 as they come, and what arrives there is typed
	 * into the guest: a terminal (make run). COM1 keeps the record.
	 */
	enum console_passthrough console_passthrough;
	enum console_output console_output;   /* console */
	enum tsc_source tsc_source;           /* tsc.source */
	bool trace;                           /* trace = on|off */
	uint64_t trace_buffer;                /* trace.buffer, bytes per CPU */
	bool trace_overwrite;                 /* trace.mode = overwrite */
	/* debug.host_exception = on: fault in root mode on purpose (tests) */
	bool debug_host_exception;
	/*
	 * debug.blockdev_selftest = on: no guest; find the swap device, run
	 * the block driver self-test (swap/blockdev_selftest.c) and stop. Needs
	 * no VT-x, so it runs under QEMU TCG.
	 */
	bool debug_blockdev_selftest;
	/*
	 * bench.swap = on: measure the swap device first (the block self-
	 * test), then run the guest; the daemon prints its per-page costs
	 * beside the device's at the end (make bench-swap).
	 */
	bool bench_swap;
	/*
	 * debug.swap_fail_reads = N, debug.swap_fail_writes = M: fail every
	 * Nth swap read and every Mth swap write at the driver level (the
	 * completion reports an I/O error, no data moves), to exercise the
	 * paging daemon's error paths (swap/drivers/blockdev_faults.c). 0 = off.
	 */
	uint32_t debug_swap_fail_reads;
	uint32_t debug_swap_fail_writes;
	/*
	 * debug.swap_verify = on: a checksum of every page written to swap is
	 * kept and checked when the page is read back; a page that comes back
	 * different is treated as a failed read (never mapped).
	 */
	bool debug_swap_verify;
	/*
	 * debug.hypercall = on: VMCALL with RAX = APFVISOR_HC_DEBUG
	 * (guest/debug_hypercall.h) is answered, from any CPL, for test
	 * programs: fail a page's swap-ins, ask a page's state. Off: KVM's
	 * answer to an unknown hypercall, as for every other number.
	 */
	bool debug_hypercall;
	/*
	 * guest.testdev = on: QEMU's pc-testdev (guest/devices/pc_testdev.h) for
	 * kvm-unit-tests; refused for a Linux guest.
	 */
	bool guest_testdev;
	/*
	 * debug.isolation_secret = 0x...: written into hypervisor memory and
	 * every free guest frame before the guest starts, for a test guest
	 * to look for (it must never find it).
	 */
	uint64_t debug_isolation_secret;
};

/* Fills *cfg with the defaults (see config.c); every key may override. */
void config_set_defaults(struct hv_config *cfg);

/*
 * Parses len bytes of text into *cfg (which config_parse first resets to the
 * defaults). text need not be NUL-terminated. Returns 0 on success, and then
 * host_guest_frames is never 0 (0 was replaced by guest_memory). On the first
 * error returns -1 and writes one line without a trailing newline into err,
 * of the form
 *   "apfvisor.cfg:LINE: <what is wrong>"
 * for example "apfvisor.cfg:3: unknown key 'guest.memroy'", or
 * "apfvisor.cfg: guest.kernel is not set" after the last line.
 */
int config_parse(const char *text, size_t len, struct hv_config *cfg,
		 char *err, size_t err_len);

/* Parses "64M", "1G", "4096", "512K" (K/M/G, optional "iB"/"B"). */
bool config_parse_size(const char *s, uint64_t *bytes);

#endif
