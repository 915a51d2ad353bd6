// SPDX-License-Identifier: BSD-2-Clause
/* The guest's image and its VM (guest/loaders/guest_image.h). */
#include "guest/loaders/guest_image.h"
#include "guest/loaders/flat_loader.h"
#include "guest/loaders/image_format.h"
#include "guest/loaders/linux_loader.h"
#include "guest/loaders/multiboot_loader.h"
#include "lib/console.h"

static bool is_linux(enum guest_format format)
{
	return format == GUEST_FORMAT_BZIMAGE || format == GUEST_FORMAT_ELF;
}

/* The kernel's format, or GUEST_FORMAT_UNKNOWN after an error line. */
static enum guest_format kernel_format(const struct vm_spec *spec)
{
	enum guest_format format;
	char err[256];

	format = image_format_choose(spec->format, spec->kernel,
				     spec->kernel_size, spec->kernel_name, err,
				     sizeof(err));
	if (format == GUEST_FORMAT_UNKNOWN)
		hv_error("%s", err);
	return format;
}

static bool load_kernel(struct vm *vm, const struct vm_spec *spec,
			enum guest_format format)
{
	switch (format) {
	case GUEST_FORMAT_FLAT:
		return flat_loader_load(vm, spec->kernel, spec->kernel_size,
					spec->cmdline);
	case GUEST_FORMAT_MULTIBOOT:
		return multiboot_loader_load(vm, spec);
	default:
		return linux_loader_load(vm, spec);
	}
}

bool guest_image_loadable(const struct vm_spec *spec)
{
	enum guest_format format = kernel_format(spec);

	if (format == GUEST_FORMAT_UNKNOWN)
		return false;
	if (is_linux(format))
		return linux_loader_check(spec);
	return true;
}

struct vm *guest_image_create_vm(const struct vm_spec *spec)
{
	enum guest_format format = kernel_format(spec);
	struct vm *vm;

	if (format == GUEST_FORMAT_UNKNOWN)
		return NULL;
	vm = vm_create(spec, is_linux(format));
	if (!vm || !load_kernel(vm, spec, format))
		return NULL;
	vm_complete(vm, spec);
	return vm;
}
