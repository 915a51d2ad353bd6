/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * trace = on: rings for the host CPUs that run the VM, the trace disk,
 * and the trace written to it when the guest has ended.
 */
#ifndef BOOT_HV_TRACE_H
#define BOOT_HV_TRACE_H

#include "boot/boot_info.h"
#include "swap/blockdev.h"

/*
 * Finds the trace disk (any disk but swap_dev, which may be NULL) and
 * starts recording on the CPUs that run nvcpus vCPUs and the service CPU
 * (0 vCPUs: the boot CPU alone, as for the block self-test). Prints
 * "apfvisor: trace: recording, ..." or one error line; the run goes on
 * untraced after an error.
 */
void hv_trace_start(const struct boot_info *bi, unsigned nvcpus,
		    const struct blockdev *swap_dev);

/*
 * From the service loop: in stop mode, once a ring is full, writes the
 * trace so far at once (so it survives a run that never ends), and says
 * so. Cheap when there is nothing to do.
 */
void hv_trace_poll(const struct boot_info *bi, unsigned nvcpus);

/*
 * Stops recording and writes the trace (after every vCPU stopped):
 * "apfvisor: trace: N records (M lost) in B bytes on <disk>".
 */
void hv_trace_finish(const struct boot_info *bi, unsigned nvcpus);

#endif
