# SPDX-License-Identifier: BSD-2-Clause
#
# The default Linux guest image. Included by the top-level Makefile (run
# from the repository root); the recipe itself is guest/programs/image/build-image.
#
#   make guest                  build/guests/vmlinuz, vmlinux (the same
#                               kernel uncompressed), vmlinuz.version and
#                               initrd.img (fetches Debian's kernel package
#                               and busybox-static with apt-get download)
#   make guest GUEST_EXTRA=DIR  the same, with the files of DIR in /bin
#   make guest-bins             only the guest programs, in build/guest-bin/
#
# The guest programs are static binaries (the image has no libc): one
# folder per program, guest/programs/<name>/<name>.c.

GUEST_CC ?= $(CC)
GUEST_PROGS := bm memcheck hypercall ymmcheck mcetest churn
GUEST_BIN_DIR := build/guest-bin
GUEST_BINS_OUT := $(GUEST_PROGS:%=$(GUEST_BIN_DIR)/%)
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror -pthread

.PHONY: guest guest-bins

guest-bins: $(GUEST_BINS_OUT)

guest: deps guest-bins
	guest/programs/image/build-image $(if $(GUEST_EXTRA),--extra "$(GUEST_EXTRA)")

# One rule per program: a pattern rule cannot say guest/%/%.c.
define guest_prog_rule
$(GUEST_BIN_DIR)/$(1): guest/programs/$(1)/$(1).c | deps
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$@"
	@$$(GUEST_CC) $$(GUEST_CFLAGS) $$< -o $$@
endef
$(foreach p,$(GUEST_PROGS),$(eval $(call guest_prog_rule,$(p))))
