# SPDX-License-Identifier: BSD-2-Clause
#
# Host programs under tools/ (built for the machine that runs make, not for
# apfvisor). Included by the top-level Makefile; paths are relative to the
# repository root, outputs go under build/tools/.
#
#   make host-tools     builds build/tools/apfswap-format
#
# apfswap-format links the same swap/swap_format.c that apfvisor checks a
# swap header with, and boot/config_values.c for its SIZE syntax (that of
# apfvisor.cfg), so the tool and the hypervisor cannot disagree.

TOOLS_OUT := build/tools
TOOLS_CC ?= $(CC)
TOOLS_CFLAGS := -std=gnu11 -DAPF_HOSTED -I. -O2 -g -Wall -Wextra -Werror

APFSWAP_FORMAT_SRC := tools/apfswap_format.c swap/swap_format.c \
	boot/config_values.c lib/format.c lib/string.c

.PHONY: host-tools
host-tools: $(TOOLS_OUT)/apfswap-format

$(TOOLS_OUT)/apfswap-format: $(APFSWAP_FORMAT_SRC) swap/swap_format.h \
		boot/config_values.h swap/swap_params.h lib/format.h \
		lib/string.h lib/types.h lib/trace/trace_format.h \
		| $(TOOLS_AFTER)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(TOOLS_CC) $(TOOLS_CFLAGS) -o $@ $(APFSWAP_FORMAT_SRC)
