// SPDX-License-Identifier: BSD-2-Clause
#include "vmx/msr_bitmap.h"
#include "lib/heap.h"
#include "lib/string.h"

#define MSR_LOW_LAST 0x1fffu
#define MSR_HIGH_FIRST 0xc0000000u
#define MSR_HIGH_LAST 0xc0001fffu
#define READ_LOW 0
#define READ_HIGH 1024
#define WRITE_LOW 2048
#define WRITE_HIGH 3072

#define MSR_STAR 0xc0000081u
#define MSR_LSTAR 0xc0000082u
#define MSR_CSTAR 0xc0000083u
#define MSR_SFMASK 0xc0000084u
#define MSR_FS_BASE 0xc0000100u
#define MSR_GS_BASE 0xc0000101u
#define MSR_KERNEL_GS_BASE 0xc0000102u
#define MSR_TSC_AUX 0xc0000103u

/*
 * Only the syscall and segment-base MSRs: the hypervisor never uses them,
 * so the guest's values can live in the CPU, and Linux writes some of them
 * on every context switch. FS/GS base are also saved and loaded by VM exit
 * and entry through the VMCS.
 */
static const uint32_t pass_through[] = {
	MSR_STAR, MSR_LSTAR, MSR_CSTAR, MSR_SFMASK, MSR_FS_BASE, MSR_GS_BASE,
	MSR_KERNEL_GS_BASE, MSR_TSC_AUX,
};

static void clear_bit_at(uint8_t *bitmap, unsigned base, uint32_t index)
{
	bitmap[base + index / 8] &= (uint8_t)~(1u << (index % 8));
}

void msr_bitmap_pass_through(uint8_t *bitmap, uint32_t msr)
{
	if (msr <= MSR_LOW_LAST) {
		clear_bit_at(bitmap, READ_LOW, msr);
		clear_bit_at(bitmap, WRITE_LOW, msr);
	} else if (msr >= MSR_HIGH_FIRST && msr <= MSR_HIGH_LAST) {
		clear_bit_at(bitmap, READ_HIGH, msr - MSR_HIGH_FIRST);
		clear_bit_at(bitmap, WRITE_HIGH, msr - MSR_HIGH_FIRST);
	}
}

uint64_t msr_bitmap_create(void)
{
	uint64_t pa = hv_alloc_pages_low(1);
	uint8_t *bitmap = (uint8_t *)(uintptr_t)pa;

	memset(bitmap, 0xff, PAGE_SIZE);
	for (size_t i = 0; i < ARRAY_SIZE(pass_through); i++)
		msr_bitmap_pass_through(bitmap, pass_through[i]);
	return pa;
}
