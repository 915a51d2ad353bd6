// SPDX-License-Identifier: BSD-2-Clause
#include <efi.h>
#include <efilib.h>

#include "boot/efi_memory.h"
#include "boot/ram_map.h"
#include "lib/console.h"
#include "lib/string.h"

/* Fixed part of the heap; EPT tables and per-page state scale with RAM. */
#define HEAP_FIXED_BYTES MiB(24)
#define HEAP_PER_GUEST_GIB MiB(16)
#define BELOW_4G 0xffffffffull
#define BELOW_1M 0xfffffull
#define FOUR_GIB GiB(4)

/* Static so that no allocation changes the map between Get and Exit. */
static uint8_t map_buffer[64 * 1024] __attribute__((aligned(8)));

struct memory_map {
	EFI_MEMORY_DESCRIPTOR *desc;
	UINTN size, key, desc_size;
	UINT32 desc_version;
};

static EFI_STATUS get_memory_map(struct memory_map *m)
{
	m->desc = (EFI_MEMORY_DESCRIPTOR *)map_buffer;
	m->size = sizeof(map_buffer);
	return uefi_call_wrapper(BS->GetMemoryMap, 5, &m->size, m->desc,
				 &m->key, &m->desc_size, &m->desc_version);
}

static EFI_MEMORY_DESCRIPTOR *map_entry(const struct memory_map *m, UINTN i)
{
	return (EFI_MEMORY_DESCRIPTOR *)((uint8_t *)m->desc + i * m->desc_size);
}

static UINTN map_entries(const struct memory_map *m)
{
	return m->size / m->desc_size;
}

/* Memory that is RAM (cacheable) once boot services are gone. */
static bool is_ram(UINT32 type)
{
	switch (type) {
	case EfiLoaderCode:
	case EfiLoaderData:
	case EfiBootServicesCode:
	case EfiBootServicesData:
	case EfiRuntimeServicesCode:
	case EfiRuntimeServicesData:
	case EfiConventionalMemory:
	case EfiACPIReclaimMemory:
	case EfiACPIMemoryNVS:
		return true;
	default:
		return false;
	}
}

static bool is_usable(UINT32 type)
{
	return type == EfiConventionalMemory || type == EfiBootServicesCode ||
	       type == EfiBootServicesData || type == EfiLoaderCode ||
	       type == EfiLoaderData;
}

void efi_print_memory_summary(void)
{
	struct memory_map m;
	uint64_t usable = 0;

	if (EFI_ERROR(get_memory_map(&m))) {
		hv_info("memory map: unavailable");
		return;
	}
	for (UINTN i = 0; i < map_entries(&m); i++) {
		EFI_MEMORY_DESCRIPTOR *d = map_entry(&m, i);

		if (is_usable(d->Type))
			usable += d->NumberOfPages * EFI_PAGE_SIZE;
	}
	hv_info("memory map: %llu entries, %llu MiB usable",
		(unsigned long long)map_entries(&m),
		(unsigned long long)(usable >> 20));
}

static EFI_STATUS alloc_pages(EFI_ALLOCATE_TYPE how, uint64_t max_addr,
			      uint64_t bytes, uint64_t *pa)
{
	EFI_PHYSICAL_ADDRESS addr = max_addr;
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->AllocatePages, 4, how, EfiLoaderData,
			       EFI_SIZE_TO_PAGES(bytes), &addr);
	if (!EFI_ERROR(st))
		*pa = addr;
	return st;
}

static bool add_frame_range(struct boot_info *bi, uint64_t pa, uint64_t bytes)
{
	struct frame_range *r;

	if (bi->n_guest_frame_ranges == FRAME_POOL_MAX_RANGES)
		return false;
	r = &bi->guest_frames[bi->n_guest_frame_ranges++];
	r->base = pa;
	r->frames = bytes >> PAGE_SHIFT;
	return true;
}

/*
 * Free RAM above 4 GiB first, taken where the map says it is free: on a
 * large machine most RAM is there, and OVMF's AllocateAnyPages stays
 * below 4 GiB, which the heap, the AP start page and the firmware's
 * runtime need. Returns the bytes taken.
 */
static uint64_t take_frames_above_4g(struct boot_info *bi, uint64_t want)
{
	struct memory_map m;
	uint64_t taken = 0;

	if (EFI_ERROR(get_memory_map(&m)))
		return 0;
	for (UINTN i = 0; i < map_entries(&m) && taken < want; i++) {
		EFI_MEMORY_DESCRIPTOR *d = map_entry(&m, i);
		uint64_t end = d->PhysicalStart + d->NumberOfPages * EFI_PAGE_SIZE;
		uint64_t base = MAX(d->PhysicalStart, FOUR_GIB), pa = base;
		uint64_t bytes = MIN(end - base, want - taken);

		if (d->Type != EfiConventionalMemory || end <= FOUR_GIB)
			continue;
		if (EFI_ERROR(alloc_pages(AllocateAddress, base, bytes, &pa)))
			continue;
		if (!add_frame_range(bi, pa, bytes)) {
			uefi_call_wrapper(BS->FreePages, 2, pa,
					  EFI_SIZE_TO_PAGES(bytes));
			break;
		}
		taken += bytes;
	}
	return taken;
}

/*
 * What RAM above 4 GiB could not give may not fit in one contiguous block
 * either: take the largest blocks the firmware can give, halving the
 * request on each failure.
 */
static EFI_STATUS allocate_guest_frames(struct boot_info *bi)
{
	uint64_t left = bi->cfg.host_guest_frames;
	uint64_t chunk;

	left -= take_frames_above_4g(bi, left);
	chunk = left;
	while (left) {
		uint64_t pa;

		chunk = MIN(chunk, left);
		if (!EFI_ERROR(alloc_pages(AllocateAnyPages, 0, chunk, &pa))) {
			if (!add_frame_range(bi, pa, chunk))
				break;
			left -= chunk;
			continue;
		}
		if (chunk <= MiB(2))
			break;
		chunk = ALIGN_DOWN(chunk / 2, PAGE_SIZE);
	}
	if (left) {
		hv_error("cannot allocate host.guest_frames = %llu MiB "
			 "(%llu MiB short)",
			 (unsigned long long)(bi->cfg.host_guest_frames >> 20),
			 (unsigned long long)(left >> 20));
		return EFI_OUT_OF_RESOURCES;
	}
	return EFI_SUCCESS;
}

EFI_STATUS efi_allocate_hypervisor_memory(struct boot_info *bi)
{
	uint64_t guest_gib = ALIGN_UP(bi->cfg.guest_memory, GiB(1)) >> 30;
	EFI_STATUS st;

	/* Below 4 GiB: APs load CR3 while still in 32-bit mode. */
	bi->heap_size = HEAP_FIXED_BYTES + guest_gib * HEAP_PER_GUEST_GIB;
	/* trace = on: a ring per CPU that runs the VM (boot/hv_trace.c). */
	if (bi->cfg.trace)
		bi->heap_size += bi->cfg.trace_buffer *
				 (bi->cfg.guest_vcpus + 1);
	/* swap.tier = lz4: its slots, with room for their bookkeeping. */
	if (bi->cfg.swap_tier == SWAP_TIER_LZ4)
		bi->heap_size += bi->cfg.swap_tier_size +
				 bi->cfg.swap_tier_size / 64 + MiB(1);
	st = alloc_pages(AllocateMaxAddress, BELOW_4G, bi->heap_size,
			 &bi->heap_base);
	if (EFI_ERROR(st)) {
		hv_error("cannot allocate %llu MiB of hypervisor heap below 4 GiB",
			 (unsigned long long)(bi->heap_size >> 20));
		return st;
	}
	/* The SIPI vector names a 4 KiB page below 1 MiB (SDM Vol. 3A, 9.4.4). */
	st = alloc_pages(AllocateMaxAddress, BELOW_1M, PAGE_SIZE,
			 &bi->trampoline_pa);
	if (EFI_ERROR(st)) {
		hv_error("cannot allocate the AP start page below 1 MiB");
		return st;
	}
	return allocate_guest_frames(bi);
}

static void record_ram(struct boot_info *bi, const struct memory_map *m)
{
	bi->n_ram = 0;
	bi->n_ram_unrecorded = 0;
	bi->phys_top = 0;
	for (UINTN i = 0; i < map_entries(m); i++) {
		EFI_MEMORY_DESCRIPTOR *d = map_entry(m, i);
		uint64_t size = d->NumberOfPages * EFI_PAGE_SIZE;

		bi->phys_top = MAX(bi->phys_top, d->PhysicalStart + size);
		if (is_ram(d->Type) &&
		    !ram_map_add(bi->ram, &bi->n_ram, BOOT_MAX_RAM_RANGES,
				 d->PhysicalStart, size))
			bi->n_ram_unrecorded++;
	}
}

EFI_STATUS efi_take_memory_map_and_exit(EFI_HANDLE image, struct boot_info *bi)
{
	struct memory_map m;
	EFI_STATUS st = EFI_SUCCESS;

	/* The key goes stale if anything allocates in between: retry. */
	for (int attempt = 0; attempt < 4; attempt++) {
		st = get_memory_map(&m);
		if (EFI_ERROR(st))
			return st;
		record_ram(bi, &m);
		st = uefi_call_wrapper(BS->ExitBootServices, 2, image, m.key);
		if (!EFI_ERROR(st))
			return EFI_SUCCESS;
	}
	return st;
}
