// SPDX-License-Identifier: BSD-2-Clause
/*
 * hypercall: what an unprivileged process gets from the hypervisor when it
 * executes VMCALL and the VMX instructions. Under KVM: VMCALL from CPL 3
 * returns -KVM_EPERM (-1) in RAX and the process goes on; each VMX
 * instruction raises #UD, i.e. SIGILL. A hypervisor that ends the VM here
 * lets any user of the guest stop it.
 *
 * Prints one line per instruction and a summary; exits 0 when every
 * answer was KVM's, 1 otherwise.
 *
 * `hypercall mark N` instead asks apfvisor (debug.hypercall = on) to print
 * its phase counters with the mark N (guest/debug_hypercall.h,
 * DEBUG_HC_MARK); exits 0 when it answered 0. tools/bench-real marks the
 * end of each run of its program so that each is measured apart.
 *
 * Build: gcc -static -O2 (the guest image has no libc).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KVM_EPERM 1
/* guest/debug_hypercall.h */
#define APFVISOR_HC_DEBUG 0x41504601l
#define DEBUG_HC_MARK 4

static sigjmp_buf resume;
static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
	siglongjmp(resume, 1);
}

static long do_vmcall(long nr)
{
	long rax = nr;

	__asm__ volatile("vmcall" : "+a"(rax) : : "memory");
	return rax;
}

static uint64_t region[4] __attribute__((aligned(16)));

static void do_vmxon(void)
{
	__asm__ volatile("vmxon %0" : : "m"(region[0]));
}

static void do_vmclear(void)
{
	__asm__ volatile("vmclear %0" : : "m"(region[0]));
}

static void do_vmptrld(void)
{
	__asm__ volatile("vmptrld %0" : : "m"(region[0]));
}

static void do_vmptrst(void)
{
	__asm__ volatile("vmptrst %0" : "=m"(region[0]));
}

static void do_vmread(void)
{
	__asm__ volatile("vmread %%rax, %%rbx" : : "a"(0) : "rbx");
}

static void do_vmwrite(void)
{
	__asm__ volatile("vmwrite %%rbx, %%rax" : : "a"(0), "b"(0));
}

static void do_vmlaunch(void)
{
	__asm__ volatile("vmlaunch");
}

static void do_vmresume(void)
{
	__asm__ volatile("vmresume");
}

static void do_vmxoff(void)
{
	__asm__ volatile("vmxoff");
}

static void do_invept(void)
{
	__asm__ volatile("invept %0, %%rax" : : "m"(region[0]), "a"(1));
}

static void do_invvpid(void)
{
	__asm__ volatile("invvpid %0, %%rax" : : "m"(region[0]), "a"(1));
}

static void do_getsec(void)
{
	__asm__ volatile("getsec" : : "a"(0) : "rbx", "rcx");
}

static const struct {
	const char *name;
	void (*run)(void);
} vmx_insns[] = {
	{ "vmxon", do_vmxon },     { "vmclear", do_vmclear },
	{ "vmptrld", do_vmptrld }, { "vmptrst", do_vmptrst },
	{ "vmread", do_vmread },   { "vmwrite", do_vmwrite },
	{ "vmlaunch", do_vmlaunch }, { "vmresume", do_vmresume },
	{ "vmxoff", do_vmxoff },   { "invept", do_invept },
	{ "invvpid", do_invvpid }, { "getsec", do_getsec },
};

static int mark(const char *arg)
{
	long rax = APFVISOR_HC_DEBUG;
	char *end;
	long n = strtol(arg, &end, 10);

	if (*arg == 0 || *end != 0 || n < 0) {
		fprintf(stderr, "hypercall: mark: not a number: %s\n", arg);
		return 2;
	}
	__asm__ volatile("vmcall"
			 : "+a"(rax)
			 : "b"((long)DEBUG_HC_MARK), "c"(n)
			 : "memory");
	if (rax != 0) {
		fprintf(stderr, "hypercall: mark %ld: refused (%ld); is "
			"debug.hypercall on?\n", n, rax);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const unsigned n = sizeof(vmx_insns) / sizeof(vmx_insns[0]);
	struct sigaction sa;
	volatile unsigned sigill = 0;
	long ret;
	int ok;

	if (argc == 3 && !strcmp(argv[1], "mark"))
		return mark(argv[2]);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	ret = do_vmcall(0x12345678);
	printf("hypercall: vmcall from user mode returned %ld\n", ret);
	ok = ret == -KVM_EPERM;

	for (unsigned i = 0; i < n; i++) {
		caught = 0;
		if (!sigsetjmp(resume, 1))
			vmx_insns[i].run();
		printf("hypercall: %s: %s\n", vmx_insns[i].name,
		       caught == SIGILL ? "SIGILL" :
		       caught == SIGSEGV ? "SIGSEGV" : "no signal");
		sigill += caught == SIGILL;
	}
	printf("hypercall: %u of %u VMX instructions raised SIGILL\n",
	       (unsigned)sigill, n);
	return ok && sigill == n ? 0 : 1;
}
