// SPDX-License-Identifier: BSD-2-Clause
/*
 * apfswap-format [--trace] IMAGE [SIZE]: make IMAGE an apfvisor swap area
 * (or, with --trace, a trace disk: lib/trace/trace_format.h) by writing the
 * header of swap/swap_format.h (the same code apfvisor checks it with) at
 * byte 0. A host program; built as build/tools/apfswap-format by
 * tools/tools.mk, run through the tools/apfswap-format wrapper.
 *
 * IMAGE is a regular file (created, or resized to SIZE when SIZE is given;
 * a new file is sparse) or a block device (SIZE, if given, must be its
 * size). Only the header page is written: slot contents are never read
 * before apfvisor writes them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/config_values.h"
#include "swap/swap_format.h"

#define PROG "apfswap-format"

/*
 * The tools/apfswap-format wrapper prints this same text for --help without
 * building the program (tests/unit/test_tools_help.py compares the two).
 */
static const char usage[] =
	"usage: tools/apfswap-format [--trace] IMAGE [SIZE]\n"
	"  Writes an apfvisor swap header to IMAGE (a file, created if\n"
	"  missing, or a block device). SIZE (e.g. 256M, 1G, bytes) resizes a\n"
	"  file; without it an existing file or device keeps its size. The\n"
	"  size must be a multiple of 4096 and at least 1 MiB + 4 KiB.\n"
	"  --trace makes IMAGE a trace disk instead (at least 68 KiB):\n"
	"  apfvisor writes its trace there (trace = on), read it with\n"
	"  tools/apftrace IMAGE.\n";

/* --trace: a trace disk, not a swap area. */
static bool trace_disk;

static enum hv_err build_header(void *page, uint64_t size,
				const uint8_t uuid[SWAP_UUID_LEN], char *err,
				size_t err_len)
{
	if (trace_disk)
		return trace_disk_header_build(page, size, uuid, err, err_len);
	return swap_header_build(page, size, uuid, err, err_len);
}

static int error(const char *image, const char *msg)
{
	fprintf(stderr, PROG ": error: %s: %s\n", image, msg);
	return 1;
}

static int sys_error(const char *image, const char *what)
{
	fprintf(stderr, PROG ": error: %s: %s: %s\n", image, what,
		strerror(errno));
	return 1;
}

/* A random (version 4, RFC 4122 4.4) UUID. */
static int make_uuid(uint8_t uuid[SWAP_UUID_LEN])
{
	if (getrandom(uuid, SWAP_UUID_LEN, 0) != SWAP_UUID_LEN)
		return -1;
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
	return 0;
}

/* Whether a swap area of size bytes is possible; says why not. */
static int check_size(const char *image, uint64_t size)
{
	static uint8_t scratch[SWAP_HEADER_SIZE];
	static const uint8_t no_uuid[SWAP_UUID_LEN];
	char err[160];

	if (build_header(scratch, size, no_uuid, err, sizeof(err)))
		return error(image, err);
	return 0;
}

/*
 * The size of what fd is open on: a file's length, or a block device's
 * size (which SIZE, when given, must equal: a device cannot be resized).
 */
static int existing_size(int fd, const char *image, const char *size_arg,
			 uint64_t *size, bool *is_file)
{
	struct stat st;
	off_t end;

	if (fstat(fd, &st))
		return sys_error(image, "stat");
	*is_file = S_ISREG(st.st_mode);
	if (*is_file) {
		if (!size_arg)
			*size = (uint64_t)st.st_size;
		return 0;
	}
	if (!S_ISBLK(st.st_mode))
		return error(image, "neither a regular file nor a block device");
	end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return sys_error(image, "seek");
	if (size_arg && *size != (uint64_t)end) {
		fprintf(stderr, PROG ": error: %s: a block device of %lld "
			"bytes cannot be resized to %llu\n", image,
			(long long)end, (unsigned long long)*size);
		return 1;
	}
	*size = (uint64_t)end;
	return 0;
}

/* When IMAGE held a valid header already, says which one goes. */
static void note_previous(int fd)
{
	static uint8_t old[SWAP_HEADER_SIZE];
	struct swap_header_info info;
	char uuid[SWAP_UUID_STR_LEN], err[160];
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0 ||
	    pread(fd, old, sizeof(old), 0) != (ssize_t)sizeof(old) ||
	    swap_header_parse(old, (uint64_t)end, &info, err, sizeof(err)))
		return;
	swap_uuid_format(info.uuid, uuid);
	printf(PROG ": replacing the swap header with uuid %s\n", uuid);
}

static int format(int fd, const char *image, uint64_t size, bool is_file)
{
	static uint8_t header[SWAP_HEADER_SIZE];
	uint8_t uuid[SWAP_UUID_LEN];
	char text[SWAP_UUID_STR_LEN], err[160];

	if (make_uuid(uuid))
		return sys_error(image, "getrandom");
	if (build_header(header, size, uuid, err, sizeof(err)))
		return error(image, err);
	note_previous(fd);
	if (is_file && ftruncate(fd, (off_t)size))
		return sys_error(image, "resize");
	if (pwrite(fd, header, sizeof(header), 0) != (ssize_t)sizeof(header))
		return sys_error(image, "write");
	/* A trace disk used before must not offer its old trace. */
	memset(header, 0, sizeof(header));
	if (trace_disk && pwrite(fd, header, sizeof(header),
				 TRACE_DISK_DATA_OFFSET) != (ssize_t)sizeof(header))
		return sys_error(image, "write");
	if (fsync(fd))
		return sys_error(image, "sync");
	swap_uuid_format(uuid, text);
	printf(PROG ": %s: %s%llu bytes (%llu MiB), %llu pages of 4 KiB after "
	       "the header, uuid %s\n", image, trace_disk ? "trace disk, " : "",
	       (unsigned long long)size,
	       (unsigned long long)(size >> 20),
	       (unsigned long long)((size - SWAP_HEADER_SIZE) / PAGE_SIZE),
	       text);
	return 0;
}

static int usage_exit(bool asked)
{
	fputs(usage, asked ? stdout : stderr);
	return asked ? 0 : 2;
}

int main(int argc, char **argv)
{
	const char *image, *size_arg;
	uint64_t size = 0;
	bool is_file;
	int fd, rc;

	if (argc == 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h")))
		return usage_exit(true);
	if (argc > 1 && !strcmp(argv[1], "--trace")) {
		trace_disk = true;
		argv++;
		argc--;
	}
	if (argc < 2 || argc > 3 || argv[1][0] == '-')
		return usage_exit(false);
	image = argv[1];
	size_arg = argc == 3 ? argv[2] : NULL;
	if (size_arg && !config_parse_size(size_arg, &size)) {
		fprintf(stderr, PROG ": error: bad SIZE '%s' (e.g. 64M, 1G, "
			"or a number of bytes)\n", size_arg);
		return 2;
	}
	/* Nothing is created or changed for a size that cannot work. */
	if (size_arg && check_size(image, size))
		return 1;
	fd = open(image, O_RDWR | (size_arg ? O_CREAT : 0), 0644);
	if (fd < 0 && errno == ENOENT) {
		fprintf(stderr, PROG ": error: %s does not exist: give a SIZE "
			"to create it\n", image);
		return 2;
	}
	if (fd < 0)
		return sys_error(image, "open");
	rc = existing_size(fd, image, size_arg, &size, &is_file);
	if (!rc)
		rc = format(fd, image, size, is_file);
	close(fd);
	return rc;
}
