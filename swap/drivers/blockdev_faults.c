// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fault injection over a struct blockdev (see swap/drivers/blockdev_faults.h): a
 * failed request is kept back from the driver and its completion, with
 * BLK_IO_ERROR, is handed out by the next poll before the driver's own.
 * With a torn page a failed write does go to the driver, from the torn
 * page, under a cookie of the wrapper's (an entry of torn[]) that the poll
 * turns back into the caller's, with BLK_IO_ERROR.
 */
#include "swap/drivers/blockdev_faults.h"
#include "lib/console.h"
#include "lib/format.h"
#include "lib/string.h"

static struct blockdev_faults the_faults;
static bool the_faults_used;

static struct blockdev_faults *faults_of(struct blockdev *dev)
{
	return (struct blockdev_faults *)dev->driver;
}

/* The wrapper's counters: the driver's, plus the errors made up here. */
static void sync_counters(struct blockdev_faults *f)
{
	f->dev.reads = f->inner->reads;
	f->dev.writes = f->inner->writes;
	f->dev.errors = f->inner->errors +
			f->injected.injected_read_failures +
			f->injected.injected_write_failures;
	f->dev.short_transfers = f->inner->short_transfers;
	f->dev.frames_held = f->inner->frames_held;
}

/* Is the next accepted request of this kind one to fail? */
static bool fails_next(uint32_t every, uint64_t seen)
{
	return every && (seen + 1) % every == 0;
}

/*
 * A failed write with a torn page: the torn page goes to the request's
 * offset. HV_ERR_BUSY when the driver (or torn[]) is full: not counted, as
 * below.
 */
static enum hv_err torn_write(struct blockdev_faults *f,
			      const struct blk_request *req)
{
	struct blk_request r = *req;
	struct blockdev_torn_write *t = NULL;

	for (unsigned i = 0; !t && i < BLOCKDEV_FAULTS_PENDING; i++)
		if (!f->torn[i].busy)
			t = &f->torn[i];
	if (!t)
		return HV_ERR_BUSY;
	r.buffer_pa = f->torn_pa;
	r.cookie = t;
	if (blk_submit(f->inner, &r))
		return HV_ERR_BUSY;
	*t = (struct blockdev_torn_write){ .cookie = req->cookie, .busy = true };
	f->writes_seen++;
	f->injected.injected_write_failures++;
	sync_counters(f);
	return HV_OK;
}

/* A completion of the driver's for a torn write: the caller's, failed. */
static void untear(struct blockdev_faults *f, struct blk_completion *c)
{
	uintptr_t p = (uintptr_t)c->cookie, first = (uintptr_t)f->torn;
	struct blockdev_torn_write *t;

	if (p < first || p >= (uintptr_t)(f->torn + BLOCKDEV_FAULTS_PENDING))
		return;
	t = c->cookie;
	c->cookie = t->cookie;
	c->status = BLK_IO_ERROR;
	*t = (struct blockdev_torn_write){ 0 };
}

static enum hv_err faults_submit(struct blockdev *dev,
				 const struct blk_request *req)
{
	struct blockdev_faults *f = faults_of(dev);
	bool write = req->op == BLK_WRITE;
	uint64_t *seen = write ? &f->writes_seen : &f->reads_seen;
	enum hv_err err;

	if (!fails_next(write ? f->fail_writes : f->fail_reads, *seen)) {
		err = blk_submit(f->inner, req);
		if (err == HV_OK)
			(*seen)++;
		sync_counters(f);
		return err;
	}
	if (write && f->torn_pa)
		return torn_write(f, req);
	if (f->pending_count == BLOCKDEV_FAULTS_PENDING)
		return HV_ERR_BUSY;     /* the caller polls and retries */
	f->pending[(f->pending_head + f->pending_count) %
		   BLOCKDEV_FAULTS_PENDING] = req->cookie;
	f->pending_count++;
	/* Host memory is identity-mapped (arch/x86/host_paging.h). */
	if (!write && f->torn_pa)
		memcpy((void *)(uintptr_t)req->buffer_pa,
		       (const void *)(uintptr_t)f->torn_pa, PAGE_SIZE);
	(*seen)++;
	if (write)
		f->injected.injected_write_failures++;
	else
		f->injected.injected_read_failures++;
	sync_counters(f);
	return HV_OK;
}

static unsigned faults_poll(struct blockdev *dev, struct blk_completion *out,
			    unsigned max)
{
	struct blockdev_faults *f = faults_of(dev);
	unsigned n = 0;

	while (n < max && f->pending_count) {
		out[n++] = (struct blk_completion){
			.cookie = f->pending[f->pending_head],
			.status = BLK_IO_ERROR,
		};
		f->pending_head = (f->pending_head + 1) %
				  BLOCKDEV_FAULTS_PENDING;
		f->pending_count--;
	}
	if (n < max) {
		unsigned got = blk_poll(f->inner, out + n, max - n);

		for (unsigned i = n; i < n + got; i++)
			untear(f, &out[i]);
		n += got;
	}
	sync_counters(f);
	return n;
}

static const struct blockdev_ops faults_ops = {
	.submit = faults_submit,
	.poll = faults_poll,
};

void blockdev_faults_init(struct blockdev_faults *f, struct blockdev *inner,
			  uint32_t fail_reads, uint32_t fail_writes)
{
	memset(f, 0, sizeof(*f));
	f->inner = inner;
	f->fail_reads = fail_reads;
	f->fail_writes = fail_writes;
	f->dev = (struct blockdev){
		.ops = &faults_ops,
		.name = inner->name,
		.size = inner->size,
		.queue_depth = inner->queue_depth,
		.driver = f,
		.bus = inner->bus,
	};
	sync_counters(f);
}

/* "every 7th swap read", "every 2nd swap write", "no swap read". */
static void describe(char *buf, size_t len, uint32_t every, const char *what)
{
	static const char *const suffix[] = { "th", "st", "nd", "rd" };
	unsigned last = every % 10;

	if (!every) {
		fmt_snprintf(buf, len, "no swap %s", what);
		return;
	}
	if (last > 3 || (every % 100) / 10 == 1)
		last = 0;
	if (every == 1)
		fmt_snprintf(buf, len, "every swap %s", what);
	else
		fmt_snprintf(buf, len, "every %u%s swap %s", every,
			     suffix[last], what);
}

struct blockdev *blockdev_faults_wrap(struct blockdev *dev,
				      uint32_t fail_reads,
				      uint32_t fail_writes)
{
	char reads[40], writes[40];

	if (!dev || (!fail_reads && !fail_writes))
		return dev;
	blockdev_faults_init(&the_faults, dev, fail_reads, fail_writes);
	the_faults_used = true;
	describe(reads, sizeof(reads), fail_reads, "read");
	describe(writes, sizeof(writes), fail_writes, "write");
	hv_info("debug: failing %s, %s", reads, writes);
	return &the_faults.dev;
}

bool blockdev_faults_set_torn_page(uint64_t torn_pa)
{
	if (!the_faults_used)
		return false;
	the_faults.torn_pa = torn_pa;
	return true;
}

struct blockdev_fault_counts blockdev_faults_injected(void)
{
	if (!the_faults_used)
		return (struct blockdev_fault_counts){ 0 };
	return the_faults.injected;
}
