/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VMREAD and VMWRITE for the exit-handler unit tests (in place of
 * vmx/vmx_ops.h, by the include path): a VMCS of plain words,
 * fake_vmcs[field], that the test sets up and inspects.
 */
#ifndef VMX_VMX_OPS_H
#define VMX_VMX_OPS_H

#include "lib/types.h"
#include "vmx/vmcs_fields.h"

#define FAKE_VMCS_FIELDS 0x8000
extern uint64_t fake_vmcs[FAKE_VMCS_FIELDS];

static inline uint64_t vmcs_read(uint32_t field)
{
	return fake_vmcs[field % FAKE_VMCS_FIELDS];
}

static inline uint32_t vmcs_read32(uint32_t field)
{
	return (uint32_t)vmcs_read(field);
}

static inline void vmcs_write(uint32_t field, uint64_t value)
{
	fake_vmcs[field % FAKE_VMCS_FIELDS] = value;
}

/* INVVPID: recorded by the test (tests/unit/exit_env.h). */
#define INVVPID_SINGLE_CONTEXT 1
#define INVVPID_ALL_CONTEXT 2
bool invvpid(uint64_t type, uint16_t vpid);

#endif
