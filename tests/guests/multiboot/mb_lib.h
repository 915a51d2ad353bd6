/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What apfvisor's multiboot test kernels share: COM1 output, a small
 * printf, port I/O and QEMU's fw_cfg. They print the same lines under
 * QEMU (-kernel) and under apfvisor; a line that may differ between the
 * two (an address, a name, a CPU feature) starts with "host: " and the
 * differential test leaves it out.
 */
#ifndef MB_LIB_H
#define MB_LIB_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define MB_LOADER_MAGIC 0x2BADB002u

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outw(u16 port, u16 v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v),
			 "d"((u32)(v >> 32)));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return lo | (u64)hi << 32;
}

void serial_init(void);
/*
 * The interrupt descriptor table: idt_set_gate() points a vector at a stub
 * (32-bit interrupt gate, the current CS), idt_load() installs the table.
 * MB_INTERRUPT_STUB(stub, handler) defines a stub that saves the general
 * registers, calls void handler(void) and returns from the interrupt.
 */
void idt_set_gate(unsigned vector, const void *stub);
void idt_load(void);
#define MB_INTERRUPT_STUB(stub, handler)                                     \
	__asm__(".text\n.globl " #stub "\n" #stub ":\n\tpushal\n\tcld\n"     \
		"\tcall " #handler "\n\tpopal\n\tiretl\n");                  \
	extern char stub[]
void print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int str_eq(const char *a, const char *b);

/* fw_cfg (QEMU's docs/specs/fw_cfg.txt), the traditional interface. */
#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_ID        0x0001
#define FW_CFG_RAM_SIZE  0x0003
#define FW_CFG_NB_CPUS   0x0005
#define FW_CFG_MAX_CPUS  0x000f
#define FW_CFG_FILE_DIR  0x0019

void fw_cfg_read(u16 key, void *buf, u32 len);
/* The same through the DMA interface; 0, or the control word's error. */
u32 fw_cfg_dma_read(u16 key, void *buf, u32 len);
/* The selector of the named file and its size; 0 when there is none. */
u16 fw_cfg_find_file(const char *name, u32 *size);

#endif
