# SPDX-License-Identifier: BSD-2-Clause
# apfvisor: `make` builds build/apfvisor.efi and the test guests,
# `make test` runs every test level and ends with "N passed, N failed".

# Every core builds unless make is given -j itself (make -j1 for one).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

BUILD      := build
CC         := gcc
NASM       := nasm
LD         := ld
OBJCOPY    := objcopy
EFI_INC    := /usr/include/efi
EFI_LIB    := /usr/lib
CFG        ?= tests/guests/hello.cfg

HV_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fpic -fshort-wchar \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector \
	-fno-strict-aliasing -fno-omit-frame-pointer -maccumulate-outgoing-args \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-DGNU_EFI_USE_MS_ABI -I. -I$(EFI_INC) -I$(EFI_INC)/x86_64
HV_LDFLAGS := -nostdlib --no-undefined -shared -Bsymbolic -znocombreloc \
	-T linker.ld -L$(EFI_LIB)

HV_DIRS  := boot arch/x86 vmx ept apf swap swap/drivers swap/policy net \
	net/drivers guest guest/devices guest/loaders lib lib/trace
HV_CSRC  := $(foreach d,$(HV_DIRS),$(wildcard $(d)/*.c))
HV_ASRC  := $(foreach d,$(HV_DIRS),$(wildcard $(d)/*.asm))
HV_OBJS  := $(HV_CSRC:%.c=$(BUILD)/hv/%.o) $(HV_ASRC:%.asm=$(BUILD)/hv/%.asm.o)

# The screen console's font (lib/bitmap_font.h), converted at build time
# from a Debian console font (console-setup-linux, see tools/install-deps).
CONSOLE_FONT_PSF := /usr/share/consolefonts/Uni2-Terminus16.psf.gz
CONSOLE_FONT_C   := $(BUILD)/gen/console_font.c
HV_OBJS  += $(CONSOLE_FONT_C:%.c=$(BUILD)/hv/%.o)

# The guest's DSDT, compiled from ASL by iasl (acpica-tools, see
# tools/install-deps) into build/gen/dsdt.hex (-tc: a C array) and made
# a C file declared by guest/devices/dsdt_aml.h. Every warning fails the
# build (-we, at iasl's most thorough level -w3). iasl writes no dependency
# list: DSDT_INCLUDES names the headers dsdt.asl includes.
DSDT_ASL      := guest/devices/dsdt.asl
DSDT_INCLUDES := guest/devices/acpi_sleep.h guest/devices/pci_layout.h
DSDT_AML_C    := $(BUILD)/gen/dsdt_aml.c
HV_OBJS  += $(DSDT_AML_C:%.c=$(BUILD)/hv/%.o)
# What every program that links acpi_tables.c links (tests/unit, tests/fuzz).
ACPI_TABLES_SRCS := guest/devices/acpi_tables.c $(DSDT_AML_C)

# lz4, for the compressed swap tier: Debian's source (tools/fetch-debian-
# source lz4, with Debian's patches), built freestanding at build time with
# the hypervisor's own flags; nothing of it is kept in the tree. Only
# swap/page_compress.c sees its header.
LZ4_DIR   := $(BUILD)/third-party/lz4
LZ4_SRC   := $(LZ4_DIR)/lib/lz4.c
LZ4_FLAGS := -DLZ4_FREESTANDING=1 -DLZ4_HEAPMODE=0 \
	'-DLZ4_memcpy(d,s,n)=__builtin_memcpy(d,s,n)' \
	'-DLZ4_memset(p,v,n)=__builtin_memset(p,v,n)' \
	'-DLZ4_memmove(d,s,n)=__builtin_memmove(d,s,n)'
HV_OBJS   += $(BUILD)/hv/third-party/lz4.o

# lwIP, the TCP/IP stack under the NBD client (far memory): Debian's source
# (tools/fetch-debian-source lwip), built freestanding at build time with
# its raw API and no operating system layer (net/lwip_port/lwipopts.h).
# Only net/ includes its headers.
LWIP_DIR   := $(BUILD)/third-party/lwip
LWIP_STAMP := $(LWIP_DIR)/.fetched
LWIP_CORE  := init def inet_chksum ip mem memp netif pbuf stats tcp tcp_in \
	tcp_out timeouts udp ipv4/dhcp ipv4/etharp ipv4/icmp ipv4/ip4 \
	ipv4/ip4_addr
LWIP_SRCS  := $(LWIP_CORE:%=$(LWIP_DIR)/src/core/%.c) \
	$(LWIP_DIR)/src/netif/ethernet.c
LWIP_INCLUDES := -Inet/lwip_port/include -Inet/lwip_port \
	-I$(LWIP_DIR)/src/include
HV_OBJS   += $(LWIP_CORE:%=$(BUILD)/hv/third-party/lwip/core/%.o) \
	$(BUILD)/hv/third-party/lwip/netif/ethernet.o

GUEST_SRC  := $(wildcard tests/guests/*.asm)
GUEST_BINS := $(GUEST_SRC:tests/guests/%.asm=$(BUILD)/guests/%.bin)
# Multiboot test kernels (32-bit ELF, as `qemu -kernel` takes them): one
# per tests/guests/multiboot/*.c but the shared mb_lib.c.
MB_DIR     := tests/guests/multiboot
MB_SRC     := $(filter-out $(MB_DIR)/mb_lib.c,$(wildcard $(MB_DIR)/*.c))
MB_BINS    := $(MB_SRC:$(MB_DIR)/%.c=$(BUILD)/guests/%.elf)
MB_CFLAGS  := -m32 -march=i686 -ffreestanding -fno-pic -fno-pie \
	      -fno-stack-protector -fno-asynchronous-unwind-tables \
	      -mgeneral-regs-only -nostdlib -O2 -Wall -Wextra -Werror

.PHONY: kut test-kut
.PHONY: all deps efi guests esp test test-unit test-quick test-qemu \
	test-bochs run \
	run-kvm usb-image clean bench bench-swap bench-apf

all: deps efi guests unit-binaries fuzz-binaries host-tools

deps:
	@tools/install-deps

efi: $(BUILD)/apfvisor.efi
guests: $(GUEST_BINS) $(MB_BINS)

# Order-only on deps: with make -j nothing compiles before the packages
# (gnu-efi, nasm, cmocka) are installed.
$(BUILD)/hv/%.o: %.c | deps
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(HV_CFLAGS) -MMD -MP -c $< -o $@

$(LZ4_SRC): tools/fetch-debian-source | deps
	@echo "  FETCH   lz4 (Debian source)"
	@tools/fetch-debian-source lz4 $(LZ4_DIR) >/dev/null
	@touch $@

# Not our code: its own warnings are not ours to fail on.
$(BUILD)/hv/third-party/lz4.o: $(LZ4_SRC) | deps
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(filter-out -Werror,$(HV_CFLAGS)) -w $(LZ4_FLAGS) -c $< -o $@

$(BUILD)/hv/swap/page_compress.o: HV_CFLAGS += -I$(LZ4_DIR)/lib
$(BUILD)/hv/swap/page_compress.o: | $(LZ4_SRC)

$(LWIP_STAMP): tools/fetch-debian-source | deps
	@echo "  FETCH   lwip (Debian source)"
	@tools/fetch-debian-source lwip $(LWIP_DIR) >/dev/null
	@touch $@

$(LWIP_SRCS): $(LWIP_STAMP)
	@true

# Not our code: its own warnings are not ours to fail on.
$(BUILD)/hv/third-party/lwip/%.o: $(LWIP_DIR)/src/%.c | $(LWIP_STAMP) deps
	@mkdir -p $(dir $@)
	@echo "  CC      lwip/$*.c"
	@$(CC) $(filter-out -Werror,$(HV_CFLAGS)) -w $(LWIP_INCLUDES) -c $< -o $@

# net/'s own objects include lwIP's headers: fetched before they compile.
NET_OBJS := $(filter $(BUILD)/hv/net/%.o,$(HV_OBJS))
$(NET_OBJS): HV_CFLAGS += $(LWIP_INCLUDES)
$(NET_OBJS): | $(LWIP_STAMP)

$(BUILD)/hv/%.asm.o: %.asm | deps
	@mkdir -p $(dir $@)
	@echo "  NASM    $<"
	@$(NASM) -f elf64 -g -w+all -Werror -I. $< -o $@

$(CONSOLE_FONT_C): tools/psf2c | deps
	@echo "  PSF2C   $@"
	@tools/psf2c $(CONSOLE_FONT_PSF) $@

# iasl may leave a .hex behind when it fails: it goes, so that the next
# make runs iasl again.
$(BUILD)/gen/dsdt.hex: $(DSDT_ASL) $(DSDT_INCLUDES) | deps
	@mkdir -p $(@D)
	@echo "  IASL    $<"
	@iasl -vs -we -w3 -I . -p $(BUILD)/gen/dsdt -tc $< \
		>$(BUILD)/gen/dsdt.log 2>&1 || \
		{ cat $(BUILD)/gen/dsdt.log; rm -f $@; exit 1; }

# iasl names the array after the output prefix: dsdt_aml_code.
$(DSDT_AML_C): $(BUILD)/gen/dsdt.hex
	@echo "  GEN     $@"
	@{ echo '/* From $(DSDT_ASL) by iasl -tc (Makefile). */'; \
	  echo '#include "guest/devices/dsdt_aml.h"'; \
	  sed 's/^unsigned char dsdt_aml_code\[\]/const uint8_t dsdt_aml[]/' $<; \
	  echo 'const size_t dsdt_aml_size = sizeof(dsdt_aml);'; \
	  echo '_Static_assert(sizeof(dsdt_aml) <= DSDT_AML_MAX_SIZE, "DSDT");'; \
	} >$@.tmp && mv $@.tmp $@

$(BUILD)/apfvisor.so: $(HV_OBJS) linker.ld
	@echo "  LD      $@"
	@$(LD) $(HV_LDFLAGS) $(EFI_LIB)/crt0-efi-x86_64.o $(HV_OBJS) \
		-o $@ -lefi -lgnuefi
	@tools/check-relocs $@

$(BUILD)/apfvisor.efi: $(BUILD)/apfvisor.so
	@echo "  EFI     $@"
	@$(OBJCOPY) -j .text -j .sdata -j .data -j .dynamic -j .dynsym \
		-j .rel -j .rela -j .reloc --target efi-app-x86_64 \
		--subsystem=10 $< $@

$(BUILD)/guests/%.bin: tests/guests/%.asm $(wildcard tests/guests/*.inc) | deps
	@mkdir -p $(dir $@)
	$(NASM) -f bin -w+all -Werror -Itests/guests/ $< -o $@

include tests/unit/unit.mk
include tests/fuzz/fuzz.mk
# tools/tools.mk is also run alone (tools/apfswap-format builds with it);
# here its program waits for the packages like everything else.
TOOLS_AFTER := deps
include tools/tools.mk
include guest/programs/guest.mk

$(BUILD)/guests/mb/%.o: $(MB_DIR)/%.c $(MB_DIR)/mb_lib.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(MB_CFLAGS) -c $< -o $@

$(BUILD)/guests/mb/mb_start.o: $(MB_DIR)/mb_start.asm | deps
	@mkdir -p $(dir $@)
	$(NASM) -f elf32 -w+all -Werror $< -o $@

$(BUILD)/guests/%.elf: $(BUILD)/guests/mb/mb_start.o $(BUILD)/guests/mb/mb_lib.o \
		$(BUILD)/guests/mb/%.o $(MB_DIR)/mb.ld
	$(LD) -m elf_i386 -nostdlib -no-pie -z noexecstack \
		--no-warn-rwx-segments -T $(MB_DIR)/mb.ld \
		$(filter %.o,$^) -o $@

# An ESP folder for CFG (a config file naming the guest files), in ESP.
ESP ?= $(BUILD)/esp
esp: deps efi guests
	tools/mkesp $(CFG) $(ESP)

# A stick for a real machine: the Linux guest (guest/linux-usb.cfg, which
# becomes apfvisor.cfg on it), apfvisor as EFI/BOOT/BOOTX64.EFI, a GPT disk.
usb-image: CFG = guest/linux-usb.cfg
usb-image: guest esp
	tools/mkimg $(ESP) $(BUILD)/apfvisor-usb.img --gpt
	@echo "write it with: dd if=$(BUILD)/apfvisor-usb.img of=/dev/sdX bs=4M conv=fsync (docs/real-hardware.md)"

# `make run`: the Linux guest with a shell on its console, this terminal
# its serial console (tools/bochs-run --interactive; Ctrl-] stops Bochs).
# Another guest: make run CFG=tests/guests/hello.cfg. RUN_ARGS: more
# options for the run script (tools/bochs-run --help).
run: CFG = guest/linux-shell.cfg
run: guest esp
	tools/bochs-run $(ESP) --cpus 2 --interactive $(RUN_ARGS)

run-kvm: CFG = guest/linux-shell.cfg
run-kvm: guest esp
	tools/qemu-run $(ESP) --kvm --interactive $(RUN_ARGS)

# The Multiboot Specification's example kernel (Debian's `multiboot`
# package), for the differential multiboot test: fetched, never built here.
MB_EXAMPLE := $(BUILD)/guests/multiboot-spec-example.elf
$(MB_EXAMPLE): tools/fetch-multiboot-example | deps
	tools/fetch-multiboot-example $@

test: all guest $(MB_EXAMPLE) kut
	tests/run-tests unit qemu bochs

test-unit: all
	tests/run-tests unit

# The developer's loop (docs/tests.md): the unit level (cmocka, fuzz
# smoke runs, the layer check, the tools' Python tests) and one short Bochs
# boot of a test guest on two host CPUs, in about a minute. It needs no
# Linux guest image.
test-quick: all
	tests/run-tests unit 'tests/bochs/test_guests.py::test_hello[cpus2]'

test-qemu: all guest
	tests/run-tests qemu

test-bochs: all guest $(MB_EXAMPLE) kut
	tests/run-tests bochs

# kvm-unit-tests (../shared/third-party/), built once under
# build/kvm-unit-tests by tools/kut-run; make test runs its short tests
# (tests/bochs/test_kut.py), make test-kut the whole selection of its
# x86/unittests.cfg, two at a time (about 20 minutes; CI does not run it).
kut: | deps
	tools/kut-run --build-only

test-kut: all kut
	tools/kut-run -j 2

# Benchmarks report figures measured side by side in one run (cycles =
# emulated instructions under Bochs), never wall-clock seconds.
# make bench: exits, boot, swap, apf and trace (tools/bench), one Bochs at
# a time; make bench SECTION=exits (or boot, swap, apf, trace, policy, real): one section.
bench: all guest
	tools/bench $(SECTION)

bench-swap: all guest
	tools/bench-swap

# Async PF on/off and the ceiling at 0, 200us, 1ms and 5ms read latency.
bench-apf: all guest
	tools/bench-apf

clean:
	rm -rf $(BUILD)

-include $(HV_OBJS:.o=.d)
