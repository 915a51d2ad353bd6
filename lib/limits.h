/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The hypervisor's size limits, defined once; every array and range check
 * that depends on one is written in terms of it.
 *
 * MAX_VCPUS     vCPUs of the guest (guest.vcpus = 1..MAX_VCPUS). swap/
 *               keeps the vCPUs waiting for a page in one 64-bit word, a
 *               bit per vCPU, so it cannot grow past 64 without that word.
 * MAX_HOST_CPUS host CPUs apfvisor takes over (per-CPU state, trace rings,
 *               the firmware's CPU list). Every vCPU runs on a host CPU of
 *               its own.
 */
#ifndef LIB_LIMITS_H
#define LIB_LIMITS_H

#define MAX_VCPUS 64
#define MAX_HOST_CPUS 64

/* A limit as a string literal, for messages: LIMIT_STR(MAX_VCPUS) "64". */
#define LIMIT_STR_(x) #x
#define LIMIT_STR(x) LIMIT_STR_(x)

_Static_assert(MAX_VCPUS <= 64, "swap/'s waiter word has 64 bits");
_Static_assert(MAX_VCPUS <= MAX_HOST_CPUS, "a host CPU per vCPU");

#endif
