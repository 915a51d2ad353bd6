// SPDX-License-Identifier: BSD-2-Clause
/*
 * The framebuffer comes from the Graphics Output Protocol (UEFI 2.10,
 * 12.9): its current mode's base, size, resolution, pixels per scan line
 * and pixel format. A BltOnly mode has no framebuffer to draw into.
 */
#include <efi.h>
#include <efilib.h>

#include "boot/efi_files.h"
#include "boot/efi_screen.h"
#include "boot/screen_console.h"

#define HOLD_POLL_US 100000

enum framebuffer_search {
	FRAMEBUFFER_FOUND,
	FRAMEBUFFER_NONE,               /* no GOP */
	FRAMEBUFFER_BLT_ONLY,
	FRAMEBUFFER_UNUSABLE,           /* a pixel format we cannot draw */
};

static const char *format_name(EFI_GRAPHICS_PIXEL_FORMAT format)
{
	switch (format) {
	case PixelRedGreenBlueReserved8BitPerColor: return "RGB 32-bit";
	case PixelBlueGreenRedReserved8BitPerColor: return "BGR 32-bit";
	default: return "bitmask";
	}
}

static unsigned highest_bit(uint32_t v)
{
	unsigned bit = 0;

	while (v >>= 1)
		bit++;
	return bit;
}

static bool pixel_format_of(const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info,
			    struct pixel_format *f)
{
	const EFI_PIXEL_BITMASK *m = &info->PixelInformation;
	uint32_t all;

	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		*f = (struct pixel_format){ 0xff, 0xff00, 0xff0000, 4 };
		return true;
	case PixelBlueGreenRedReserved8BitPerColor:
		*f = (struct pixel_format){ 0xff0000, 0xff00, 0xff, 4 };
		return true;
	case PixelBitMask:
		all = m->RedMask | m->GreenMask | m->BlueMask | m->ReservedMask;
		if (!m->RedMask || !m->GreenMask || !m->BlueMask)
			return false;
		*f = (struct pixel_format){ m->RedMask, m->GreenMask,
					    m->BlueMask,
					    highest_bit(all) / 8 + 1 };
		return true;
	default:
		return false;
	}
}

static enum framebuffer_search find_framebuffer(struct framebuffer *fb)
{
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop = NULL;
	const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;
	struct pixel_format f;

	if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3,
					&GraphicsOutputProtocol, NULL,
					(void **)&gop)) ||
	    !gop || !gop->Mode || !gop->Mode->Info)
		return FRAMEBUFFER_NONE;
	info = gop->Mode->Info;
	if (info->PixelFormat == PixelBltOnly)
		return FRAMEBUFFER_BLT_ONLY;
	if (!pixel_format_of(info, &f) || !gop->Mode->FrameBufferBase ||
	    info->PixelsPerScanLine < info->HorizontalResolution ||
	    (uint64_t)info->PixelsPerScanLine * f.bytes_per_pixel *
			    info->VerticalResolution >
		    gop->Mode->FrameBufferSize)
		return FRAMEBUFFER_UNUSABLE;
	*fb = (struct framebuffer){
		.base = (uint8_t *)(uintptr_t)gop->Mode->FrameBufferBase,
		.width = info->HorizontalResolution,
		.height = info->VerticalResolution,
		.pitch = info->PixelsPerScanLine * f.bytes_per_pixel,
		.format = f,
	};
	hv_info("screen: %ux%u, %s, %u pixels per line, framebuffer at "
		"0x%llx (%llu KiB)", fb->width, fb->height,
		format_name(info->PixelFormat), info->PixelsPerScanLine,
		(unsigned long long)gop->Mode->FrameBufferBase,
		(unsigned long long)(gop->Mode->FrameBufferSize >> 10));
	return FRAMEBUFFER_FOUND;
}

/* Why there is no screen console, in one line. */
static void explain_no_screen(enum framebuffer_search found,
			      enum console_output output)
{
	if (found == FRAMEBUFFER_BLT_ONLY)
		hv_info("screen: the display has no framebuffer (GOP BltOnly): "
			"no screen console");
	else if (found == FRAMEBUFFER_UNUSABLE)
		hv_info("screen: the framebuffer's pixel format is not "
			"supported: no screen console");
	if (output == CONSOLE_OUTPUT_SCREEN)
		hv_error("apfvisor.cfg: console = screen, but there is no "
			 "framebuffer: using the serial console");
}

void efi_screen_setup(enum console_output output, struct boot_info *bi,
		      console_sink_fn serial_sink)
{
	enum framebuffer_search found;

	if (output == CONSOLE_OUTPUT_SERIAL) {
		screen_console_stop();
		return;
	}
	found = find_framebuffer(&bi->screen);
	if (found != FRAMEBUFFER_FOUND || !screen_console_start(&bi->screen)) {
		screen_console_stop();
		bi->screen = (struct framebuffer){ 0 };
		explain_no_screen(found, output);
		return;
	}
	/* The firmware's text console would draw on the same screen. */
	efi_console_detach(serial_sink);
	if (output == CONSOLE_OUTPUT_SCREEN)
		console_remove_sink(serial_sink);
}

static bool key_pressed(void)
{
	EFI_INPUT_KEY key;

	return ST->ConIn &&
	       !EFI_ERROR(uefi_call_wrapper(ST->ConIn->ReadKeyStroke, 2,
					    ST->ConIn, &key));
}

void efi_screen_hold_before_return(void)
{
	if (!screen_console_active())
		return;
	hv_info("screen: back to the firmware in %u s (or at a key press)",
		EFI_SCREEN_HOLD_SECONDS);
	for (unsigned waited = 0;
	     waited < EFI_SCREEN_HOLD_SECONDS * 1000000u && !key_pressed();
	     waited += HOLD_POLL_US)
		uefi_call_wrapper(BS->Stall, 1, HOLD_POLL_US);
	screen_console_stop();
}
