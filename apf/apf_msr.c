// SPDX-License-Identifier: BSD-2-Clause
/*
 * MSR_KVM_ASYNC_PF_EN, _INT and _ACK with the rules of KVM 6.1
 * (arch/x86/kvm/x86.c: kvm_set_msr_common, kvm_get_msr_common,
 * kvm_pv_enable_async_pf, kvm_pv_enable_async_pf_int; APF-PROTOCOL.md
 * section 2). The CPUID gate is applied always, as KVM does with
 * KVM_CAP_ENFORCE_PV_FEATURE_CPUID: with apf = off the guest sees no
 * feature bit and every one of these MSRs raises #GP.
 */
#include "apf/apf_internal.h"

bool apf_msr_is_async_pf(uint32_t msr)
{
	return msr == MSR_KVM_ASYNC_PF_EN || msr == MSR_KVM_ASYNC_PF_INT ||
	       msr == MSR_KVM_ASYNC_PF_ACK;
}

static bool offered(const struct apf_msr_env *env, uint32_t feature)
{
	return (env->kvm_features & feature) != 0;
}

/* KVM maps (kvm_gfn_to_hva_cache_init) only the 8 bytes it writes. */
static bool area_in_ram(const struct apf_msr_env *env, uint64_t gpa)
{
	return guest_ram_contains_span(&env->guest_ram, gpa,
				       KVM_APF_AREA_HOST_BYTES);
}

static bool en_value_allowed(const struct apf_msr_env *env, uint64_t value)
{
	if (value & KVM_ASYNC_PF_EN_RESERVED)
		return false;
	if ((value & KVM_ASYNC_PF_DELIVERY_AS_PF_VMEXIT) &&
	    !offered(env, KVM_FEATURE_ASYNC_PF_VMEXIT))
		return false;
	if ((value & KVM_ASYNC_PF_DELIVERY_AS_INT) &&
	    !offered(env, KVM_FEATURE_ASYNC_PF_INT))
		return false;
	return true;
}

static void count_enable(struct apf_vcpu *v)
{
	v->stats.enables++;
	v->stats.vcpus_enabled = 1;
}

/*
 * Any value that does not turn the protocol on (0 included) is stored and
 * forgets every token, without #GP. A value that turns it on needs its
 * area in guest RAM; then a "wake all" is queued, so that sleepers from
 * before (a resume, a kexec) retry.
 *
 * Unlike KVM, an area newly in use has its token word cleared: Linux
 * writes EN = 0 with interrupts off (CPU offline, kexec, suspend), and a
 * page-ready raised just before is then taken by a handler that skips
 * the word while async PF is off. KVM sends a page-ready only into a word
 * that reads 0, so after the next enable it sends none, ever.
 *
 * Unlike KVM, a refused area leaves the MSR unchanged: KVM stores the
 * value before the check, so after the #GP it reads back, and counts as
 * enabled, with no area mapped.
 */
static enum apf_msr_result write_en(struct apf_vcpu *v,
				    const struct apf_msr_env *env,
				    uint64_t value, struct apf_msr_effect *effect)
{
	uint64_t area = value & ~(uint64_t)(KVM_ASYNC_PF_AREA_ALIGN - 1);
	uint64_t old = v->msr_en;
	bool was_on = apf_enabled(v);
	uint64_t old_area = apf_area_gpa(v);

	if (!offered(env, KVM_FEATURE_ASYNC_PF) || !en_value_allowed(env, value))
		return APF_MSR_RAISE_GP;
	v->msr_en = value;
	if (!apf_enabled(v)) {
		apf_forget_all(v, &effect->orphans);
		return APF_MSR_OK;
	}
	if (!area_in_ram(env, area)) {
		v->msr_en = old;
		return APF_MSR_RAISE_GP;
	}
	count_enable(v);
	effect->clear_token = !was_on || old_area != area;
	apf_queue_wake_all(v);
	effect->check_page_ready = apf_has_page_ready(v);
	return APF_MSR_OK;
}

/*
 * KVM does not check the vector itself; bits 63:8 are reserved. A
 * page-ready held for an illegal vector may go now.
 */
static enum apf_msr_result write_int(struct apf_vcpu *v,
				     const struct apf_msr_env *env,
				     uint64_t value, struct apf_msr_effect *effect)
{
	if (!offered(env, KVM_FEATURE_ASYNC_PF_INT) ||
	    (value & ~(uint64_t)KVM_ASYNC_PF_VEC_MASK))
		return APF_MSR_RAISE_GP;
	v->msr_int = value;
	effect->check_page_ready = apf_has_page_ready(v);
	return APF_MSR_OK;
}

/* Bits other than 0 are ignored, without #GP. */
static enum apf_msr_result write_ack(struct apf_vcpu *v,
				     const struct apf_msr_env *env,
				     uint64_t value, struct apf_msr_effect *effect)
{
	if (!offered(env, KVM_FEATURE_ASYNC_PF_INT))
		return APF_MSR_RAISE_GP;
	if (value & KVM_ASYNC_PF_ACK_SLOT_FREE) {
		v->page_ready_pending = false;
		v->stats.acks++;
		/*
		 * Nothing queued: no look at the next entry. A completion
		 * after this write finds no page-ready pending and kicks.
		 */
		effect->check_page_ready = apf_has_page_ready(v);
	}
	return APF_MSR_OK;
}

enum apf_msr_result apf_wrmsr(struct apf_vcpu *v,
			      const struct apf_msr_env *env, uint32_t msr,
			      uint64_t value, struct apf_msr_effect *effect)
{
	effect->check_page_ready = false;
	effect->clear_token = false;
	effect->orphans.count = 0;
	switch (msr) {
	case MSR_KVM_ASYNC_PF_EN:
		return write_en(v, env, value, effect);
	case MSR_KVM_ASYNC_PF_INT:
		return write_int(v, env, value, effect);
	case MSR_KVM_ASYNC_PF_ACK:
		return write_ack(v, env, value, effect);
	default:
		return APF_MSR_RAISE_GP;
	}
}

enum apf_msr_result apf_rdmsr(const struct apf_vcpu *v,
			      const struct apf_msr_env *env, uint32_t msr,
			      uint64_t *value)
{
	switch (msr) {
	case MSR_KVM_ASYNC_PF_EN:
		if (!offered(env, KVM_FEATURE_ASYNC_PF))
			return APF_MSR_RAISE_GP;
		*value = v->msr_en;
		return APF_MSR_OK;
	case MSR_KVM_ASYNC_PF_INT:
		if (!offered(env, KVM_FEATURE_ASYNC_PF_INT))
			return APF_MSR_RAISE_GP;
		*value = v->msr_int;
		return APF_MSR_OK;
	case MSR_KVM_ASYNC_PF_ACK:
		if (!offered(env, KVM_FEATURE_ASYNC_PF_INT))
			return APF_MSR_RAISE_GP;
		*value = 0;
		return APF_MSR_OK;
	default:
		return APF_MSR_RAISE_GP;
	}
}
