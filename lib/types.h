/* SPDX-License-Identifier: BSD-2-Clause */
/* Basic freestanding types shared by the hypervisor and its host unit tests. */
#ifndef LIB_TYPES_H
#define LIB_TYPES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE (1ull << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define LARGE_PAGE_SHIFT 21
#define LARGE_PAGE_SIZE (1ull << LARGE_PAGE_SHIFT)

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + ((a)-1)) & ~((uint64_t)(a)-1))
#define ALIGN_DOWN(x, a) ((x) & ~((uint64_t)(a)-1))
#define IS_ALIGNED(x, a) (((x) & ((uint64_t)(a)-1)) == 0)
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define BIT(n) (1ull << (n))

#define PACKED __attribute__((packed))
#define NORETURN __attribute__((noreturn))
#define NOINLINE __attribute__((noinline))
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

#endif
