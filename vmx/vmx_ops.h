/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VMX instructions. VMREAD/VMWRITE failures are reported with the field and
 * the VM-instruction error (SDM Vol. 3C, 31.4 "VM Instruction Error Numbers")
 * by vmcs_access_failed(), never ignored.
 */
#ifndef VMX_VMX_OPS_H
#define VMX_VMX_OPS_H

#include "lib/types.h"
#include "vmx/vmcs_fields.h"

/* Reports a failed VMREAD/VMWRITE and stops the run. */
NORETURN void vmcs_access_failed(const char *op, uint32_t field);

/* RFLAGS.CF = VMfailInvalid, RFLAGS.ZF = VMfailValid (SDM Vol. 3C, 31.2). */
#define VMX_OK_OUTPUT "setna %[failed]"

static inline bool vmxon(uint64_t pa)
{
	bool failed;

	__asm__ volatile("vmxon %[pa]; " VMX_OK_OUTPUT
			 : [failed] "=qm"(failed)
			 : [pa] "m"(pa)
			 : "cc", "memory");
	return !failed;
}

static inline bool vmclear(uint64_t pa)
{
	bool failed;

	__asm__ volatile("vmclear %[pa]; " VMX_OK_OUTPUT
			 : [failed] "=qm"(failed)
			 : [pa] "m"(pa)
			 : "cc", "memory");
	return !failed;
}

static inline bool vmptrld(uint64_t pa)
{
	bool failed;

	__asm__ volatile("vmptrld %[pa]; " VMX_OK_OUTPUT
			 : [failed] "=qm"(failed)
			 : [pa] "m"(pa)
			 : "cc", "memory");
	return !failed;
}

static inline bool vmread_checked(uint32_t field, uint64_t *value)
{
	bool failed;

	__asm__ volatile("vmread %[field], %[value]; " VMX_OK_OUTPUT
			 : [value] "=rm"(*value), [failed] "=qm"(failed)
			 : [field] "r"((uint64_t)field)
			 : "cc");
	return !failed;
}

/*
 * The exit path's accessors branch on the failure flags themselves (asm
 * goto): one instruction more than the VMREAD or VMWRITE, not three.
 */
static inline uint64_t vmcs_read(uint32_t field)
{
	uint64_t v;

	__asm__ goto("vmread %[field], %[value]; jna %l[failed]"
		     : [value] "=r"(v)
		     : [field] "r"((uint64_t)field)
		     : "cc"
		     : failed);
	return v;
failed:
	vmcs_access_failed("VMREAD", field);
}

static inline uint32_t vmcs_read32(uint32_t field)
{
	return (uint32_t)vmcs_read(field);
}

static inline void vmcs_write(uint32_t field, uint64_t value)
{
	__asm__ goto("vmwrite %[value], %[field]; jna %l[failed]"
		     :
		     : [value] "rm"(value), [field] "r"((uint64_t)field)
		     : "cc"
		     : failed);
	return;
failed:
	vmcs_access_failed("VMWRITE", field);
}

/* INVEPT/INVVPID types (SDM Vol. 3C, 30.3). */
#define INVEPT_SINGLE_CONTEXT 1
#define INVEPT_ALL_CONTEXT 2
#define INVVPID_SINGLE_CONTEXT 1
#define INVVPID_ALL_CONTEXT 2

static inline bool invept(uint64_t type, uint64_t eptp)
{
	struct {
		uint64_t eptp, reserved;
	} desc = { eptp, 0 };
	bool failed;

	__asm__ volatile("invept %[desc], %[type]; " VMX_OK_OUTPUT
			 : [failed] "=qm"(failed)
			 : [desc] "m"(desc), [type] "r"(type)
			 : "cc", "memory");
	return !failed;
}

static inline bool invvpid(uint64_t type, uint16_t vpid)
{
	struct {
		uint64_t vpid, linear;
	} desc = { vpid, 0 };
	bool failed;

	__asm__ volatile("invvpid %[desc], %[type]; " VMX_OK_OUTPUT
			 : [failed] "=qm"(failed)
			 : [desc] "m"(desc), [type] "r"(type)
			 : "cc", "memory");
	return !failed;
}

#endif
