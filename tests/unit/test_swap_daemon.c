/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap/swap_daemon.c over fakes: guest memory and EPT in fake physical
 * memory (ept_fake.h), a fake block device that completes what the test
 * lets it, a fake TSC. Checked: the non-blocking fault begin and the wait,
 * one page-resident event per swap-in naming every waiting vCPU, daemon
 * work only where it belongs (the service CPU when there is one), reads
 * before queued writes at the device, a stuck request reported and then
 * fatal (its frame kept from the pool all along), the device's counters
 * in the registry, and a too-small swap area ending in one fatal error,
 * not a spin.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <cmocka.h>

#include "swap/swap_daemon.h"
#include "swap/swap_device.h"
#include "swap/swap_format.h"
#include "swap/swap_io_queue.h"
#include "lib/counters.h"
#include "lib/heap.h"
#include "tests/unit/ept_fake.h"

#define HEAP_BYTES (8u << 20)
#define MAX_REQ 64

/* ---- the fake TSC (arch/x86/cpu.h and tsc.h are replaced) */

uint64_t tsc_hz = 1000;
static volatile uint64_t fake_now;

uint64_t rdtsc(void)
{
	return __atomic_add_fetch(&fake_now, 1, __ATOMIC_RELAXED);
}

/* ---- the fake block device */

struct fake_disk {
	struct blockdev dev;
	struct fake_mem *fm;
	uint8_t *slots;                 /* nslots pages after the header */
	unsigned nslots;
	struct blk_request req[MAX_REQ];
	unsigned nreq;
	bool hold;                      /* complete nothing */
	enum blk_op order[256];         /* ops in submission order */
	unsigned nsubmitted;
	pthread_t service_thread;       /* where submissions belong */
	unsigned foreign_submits;       /* made by any other thread */
};

static struct fake_disk disk;

static enum hv_err fake_submit(struct blockdev *dev,
			       const struct blk_request *r)
{
	(void)dev;
	if (disk.nreq == MAX_REQ)
		return HV_ERR_BUSY;
	disk.req[disk.nreq++] = *r;
	if (disk.nsubmitted < 256)
		disk.order[disk.nsubmitted] = r->op;
	disk.nsubmitted++;
	if (!pthread_equal(pthread_self(), disk.service_thread))
		disk.foreign_submits++;
	return HV_OK;
}

static unsigned fake_poll(struct blockdev *dev, struct blk_completion *out,
			  unsigned max)
{
	unsigned n = 0;

	(void)dev;
	if (disk.hold)
		return 0;
	while (n < max && disk.nreq) {
		struct blk_request *r = &disk.req[0];
		uint8_t *frame = fake_phys_to_virt(disk.fm, r->buffer_pa);
		uint8_t *slot = disk.slots + (r->offset - PAGE_SIZE);

		if (r->op == BLK_READ)
			memcpy(frame, slot, PAGE_SIZE);
		else
			memcpy(slot, frame, PAGE_SIZE);
		out[n++] = (struct blk_completion){ r->cookie, BLK_OK };
		memmove(&disk.req[0], &disk.req[1],
			--disk.nreq * sizeof(disk.req[0]));
	}
	return n;
}

static const struct blockdev_ops fake_ops = { fake_submit, fake_poll };

struct blockdev *swap_device_open(enum swap_device_kind kind,
				  struct swap_header_info *hdr)
{
	(void)kind;
	memset(hdr, 0, sizeof(*hdr));
	hdr->page_count = disk.nslots;
	return &disk.dev;
}

/* ---- the daemon's callers */

struct env {
	struct fixture *ef;
	struct frame_pool pool;
	struct guest_memory mem;
	struct spinlock lock;
	struct swap_daemon *d;
	unsigned npages;
	/* callbacks seen */
	unsigned flushes, fatals, events;
	char last_fatal[160];
	uint64_t last_gpa, last_waiters;
	bool last_resident;
	volatile bool stop;
};

static void on_flush(void *ctx)
{
	((struct env *)ctx)->flushes++;
}

static void on_fatal(void *ctx, const char *reason)
{
	struct env *e = ctx;

	snprintf(e->last_fatal, sizeof(e->last_fatal), "%s", reason);
	e->fatals++;
	e->stop = true;
}

static void on_resident(void *ctx, uint64_t gpa, uint64_t waiters,
			bool resident)
{
	struct env *e = ctx;

	e->events++;
	e->last_gpa = gpa;
	e->last_waiters = waiters;
	e->last_resident = resident;
}

static void *heap;
static struct env *current;
static unsigned device_depth = 8;       /* for the next make_env */
static bool verify_next;                /* debug.swap_verify for it */
static uint64_t read_latency_next;      /* swap.read_latency, ns */

static struct env *make_env(unsigned npages, unsigned nframes, unsigned nslots,
			    bool service_cpu)
{
	struct env *e = calloc(1, sizeof(*e));
	void *ef;

	heap = aligned_alloc(PAGE_SIZE, HEAP_BYTES);
	current = e;
	counters_reset();       /* the last test's daemon is gone */
	assert_non_null(e);
	assert_non_null(heap);
	hv_heap_init((uint64_t)(uintptr_t)heap, HEAP_BYTES);
	assert_int_equal(ept_fixture_setup(&ef), 0);
	e->ef = ef;
	assert_int_equal(fake_frames_init(&e->ef->fm, nframes, 0x5a), 0);
	frame_pool_init(&e->pool, hv_alloc(frame_pool_storage_words(nframes) *
					   sizeof(uint64_t)), nframes);
	assert_int_equal(frame_pool_add_range(&e->pool, FAKE_FRAME_BASE,
					      nframes), 0);
	guest_memory_init(&e->mem, &(struct guest_ram_layout){
				  .low_size = (uint64_t)npages * PAGE_SIZE },
			  hv_alloc(npages), &e->ef->ept, &e->pool);
	e->npages = npages;
	memset(&disk, 0, sizeof(disk));
	disk.dev = (struct blockdev){ .ops = &fake_ops, .name = "fake",
				      .queue_depth = device_depth };
	disk.fm = &e->ef->fm;
	disk.service_thread = pthread_self();
	disk.nslots = nslots;
	disk.slots = calloc(nslots, PAGE_SIZE);
	e->d = swap_daemon_create(&(struct swap_daemon_config){
		.mem = &e->mem,
		.lock = &e->lock,
		.params = { .device = SWAP_DEVICE_AUTO, .verify = verify_next,
			    .read_latency_ns = read_latency_next },
		.ops = { on_flush, on_fatal, on_resident, NULL, e },
		.service_cpu = service_cpu,
		.host_frames = (uint64_t)nframes * PAGE_SIZE,
	});
	assert_non_null(e->d);
	return e;
}

static int free_env(void **state)
{
	void *ef = current ? current->ef : NULL;

	(void)state;
	if (ef)
		ept_fixture_teardown(&ef);
	free(disk.slots);
	disk.slots = NULL;
	free(current);
	current = NULL;
	free(heap);
	heap = NULL;
	return 0;
}

/* The guest writes a non-zero pattern into page gfn (a dirty page). */
static void guest_writes(struct env *e, uint64_t gfn)
{
	uint64_t gpa = gfn << PAGE_SHIFT;
	struct ept_mapping m;
	uint64_t *leaf;
	int level;

	assert_int_equal(swap_fault_wait(e->d, gpa, 0, &e->stop),
			 GUEST_FAULT_RESOLVED);
	assert_true(ept_lookup(&e->ef->ept, gpa, &m));
	memset(fake_frame(&e->ef->fm, m.hpa), (int)(gfn + 1), PAGE_SIZE);
	leaf = cpu_walk(e->ef, gpa, &level);
	*leaf |= BIT(8) | BIT(9);       /* accessed, dirty */
}

/* Runs the daemon until page gfn is swapped out. */
static void evict_until_swapped(struct env *e, uint64_t gfn)
{
	for (unsigned i = 0; i < 1000; i++) {
		swap_daemon_work(e->d);
		if (guest_memory_page_state(&e->mem, gfn << PAGE_SHIFT) ==
		    PAGE_SWAPPED)
			return;
	}
	fail_msg("page %llu never got swapped out", (unsigned long long)gfn);
}

static void fill_and_evict(struct env *e, unsigned pages)
{
	for (uint64_t g = 0; g < pages; g++)
		guest_writes(e, g);
	evict_until_swapped(e, 0);
}

static void begin_does_not_block_and_event_names_waiters(void **state)
{
	struct env *e = make_env(64, 16, 64, true);
	uint64_t gpa = 0;

	(void)state;
	fill_and_evict(e, 16);
	disk.hold = true;
	assert_int_equal(swap_fault_begin(e->d, gpa, 1),
			 GUEST_FAULT_SWAPIN_STARTED);
	assert_int_equal(swap_fault_begin(e->d, gpa, 3), GUEST_FAULT_WAIT_IO);
	swap_daemon_work(e->d);                 /* submits the read */
	assert_int_equal(e->events, 0);
	/* The APF halt's look, without the lock: only the waiters wait. */
	assert_true(swap_fault_pending(e->d, gpa, 1));
	assert_true(swap_fault_pending(e->d, gpa, 3));
	assert_false(swap_fault_pending(e->d, gpa, 2));
	disk.hold = false;
	swap_daemon_work(e->d);                 /* harvests it */
	assert_int_equal(e->events, 1);
	assert_false(swap_fault_pending(e->d, gpa, 1));
	assert_false(swap_fault_pending(e->d, gpa, 3));
	assert_int_equal(e->last_gpa, gpa);
	assert_int_equal(e->last_waiters, BIT(1) | BIT(3));
	assert_true(e->last_resident);
	/* The page is back, with what the guest wrote. */
	assert_int_equal(swap_fault_begin(e->d, gpa, 1), GUEST_FAULT_RESOLVED);
	assert_int_equal(e->fatals, 0);
	assert_true(e->flushes > 0);
}

/*
 * swap.read_latency: a read the device has finished is held until the
 * latency has passed since it was submitted. tsc_hz = 1000 and every
 * rdtsc() here moves the fake TSC by one, so 1 s is 1000 ticks, far more
 * than a few daemon passes take.
 */
static void read_latency_holds_completions(void **state)
{
	struct env *e;

	(void)state;
	read_latency_next = 1000000000;         /* 1 s */
	e = make_env(64, 16, 64, true);
	read_latency_next = 0;
	fill_and_evict(e, 16);
	assert_int_equal(swap_fault_begin(e->d, 0, 2),
			 GUEST_FAULT_SWAPIN_STARTED);
	for (int i = 0; i < 3; i++)
		swap_daemon_work(e->d);         /* submitted, done, held */
	assert_int_equal(e->events, 0);
	assert_int_equal(guest_memory_page_state(&e->mem, 0), PAGE_SWAPIN);
	fake_now += 1000;
	swap_daemon_work(e->d);
	assert_int_equal(e->events, 1);
	assert_int_equal(e->last_waiters, BIT(2));
	assert_int_equal(guest_memory_page_state(&e->mem, 0), PAGE_RESIDENT);
	assert_int_equal(e->fatals, 0);
}

static void wait_without_service_cpu_runs_the_daemon(void **state)
{
	struct env *e = make_env(64, 16, 64, false);

	(void)state;
	fill_and_evict(e, 16);
	assert_int_equal(swap_fault_wait(e->d, 0, 0, &e->stop),
			 GUEST_FAULT_RESOLVED);
	assert_int_equal(e->events, 1);
}

struct waiter {
	struct env *e;
	enum guest_fault_result r;
	volatile bool done;
};

static void *vcpu_waits(void *arg)
{
	struct waiter *w = arg;

	w->r = swap_fault_wait(w->e->d, 0, 2, &w->e->stop);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* With a service CPU a waiting vCPU never submits I/O itself. */
static void wait_with_service_cpu_leaves_work_to_it(void **state)
{
	struct env *e = make_env(64, 16, 64, true);
	struct waiter w = { e, GUEST_FAULT_INTERNAL_ERROR, false };
	unsigned before;
	pthread_t t;

	(void)state;
	fill_and_evict(e, 16);
	before = disk.nsubmitted;
	assert_int_equal(pthread_create(&t, NULL, vcpu_waits, &w), 0);
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		usleep(200);                    /* a slow service CPU */
		swap_daemon_work(e->d);
	}
	pthread_join(t, NULL);
	assert_int_equal(disk.foreign_submits, 0);
	assert_int_equal(w.r, GUEST_FAULT_RESOLVED);
	assert_true(disk.nsubmitted > before);
}

/*
 * A swap-in read goes to the device before writes queued earlier: with a
 * device that takes one request at a time and writes waiting, the next
 * request after the fault is its read.
 */
static void read_overtakes_queued_writes(void **state)
{
	struct env *e;
	unsigned at_fault;

	(void)state;
	device_depth = 1;
	e = make_env(512, 256, 512, false);
	device_depth = 8;
	fill_and_evict(e, 256);
	disk.hold = true;
	/* Use the free frames up (no waiting: they are free). */
	for (uint64_t g = 256; e->pool.nfree; g++)
		guest_writes(e, g);
	swap_daemon_work(e->d);         /* evicts: one write at the device */
	assert_int_equal(disk.nreq, 1);
	assert_true(swap_daemon_io_waiting(e->d) > 0);
	at_fault = disk.nsubmitted;
	disk.hold = false;
	swap_daemon_work(e->d);         /* the write completes, frames free */
	assert_int_equal(swap_fault_begin(e->d, 0, 0),
			 GUEST_FAULT_SWAPIN_STARTED);
	swap_daemon_work(e->d);         /* one more done; the read goes next */
	assert_true(disk.nsubmitted > at_fault);
	assert_int_equal(disk.order[disk.nsubmitted - 1], BLK_READ);
	assert_true(swap_daemon_io_waiting(e->d) > 0);   /* writes wait */
}

/*
 * debug.swap_verify: a page whose slot changed on the device is never
 * mapped; the reads are retried and the page ends up lost.
 */
static void verify_catches_a_changed_slot(void **state)
{
	struct env *e;
	struct guest_page_info info;

	(void)state;
	verify_next = true;
	e = make_env(64, 16, 64, false);
	verify_next = false;
	fill_and_evict(e, 16);
	assert_true(guest_memory_page_info(&e->mem, 0, &info));
	assert_true(info.flags & GPM_SLOT);
	disk.slots[(size_t)info.slot * PAGE_SIZE + 100] ^= 0x40;
	assert_int_equal(swap_fault_wait(e->d, 0, 0, &e->stop),
			 GUEST_FAULT_IO_ERROR);
	assert_int_equal(guest_memory_page_state(&e->mem, 0), PAGE_SWAPPED);
	assert_int_equal(e->events, 1);
	assert_false(e->last_resident);
	/* An untouched slot still comes back. */
	evict_until_swapped(e, 1);
	assert_int_equal(swap_fault_wait(e->d, 1 << PAGE_SHIFT, 0, &e->stop),
			 GUEST_FAULT_RESOLVED);
}

/*
 * debug.hypercall's "fail the swap-ins of this page": the page is read
 * from an intact slot, but every read is failed as if the disk had, so
 * the retries fail too and the page is lost (counted); its neighbour
 * comes back. Outside RAM the request is refused.
 */
static void reads_made_to_fail_lose_the_page(void **state)
{
	struct env *e = make_env(64, 16, 64, false);
	uint64_t v;

	(void)state;
	fill_and_evict(e, 16);
	assert_true(swap_daemon_fail_reads_of(e->d, 0x10));
	assert_false(swap_daemon_fail_reads_of(e->d, 64 << PAGE_SHIFT));
	assert_int_equal(swap_fault_wait(e->d, 0, 0, &e->stop),
			 GUEST_FAULT_IO_ERROR);
	assert_int_equal(guest_memory_page_state(&e->mem, 0), PAGE_SWAPPED);
	assert_false(e->last_resident);
	/* Lost for good: the next access does not read again. */
	assert_int_equal(swap_fault_begin(e->d, 0, 0), GUEST_FAULT_IO_ERROR);
	assert_int_equal(counters_find("swap.reads_made_to_fail", &v), 1);
	assert_int_equal(v, GUEST_IO_TRIES);
	assert_int_equal(counters_find("swap.pages_lost", &v), 1);
	assert_int_equal(v, 1);
	evict_until_swapped(e, 1);
	assert_int_equal(swap_fault_wait(e->d, 1 << PAGE_SHIFT, 0, &e->stop),
			 GUEST_FAULT_RESOLVED);
}

/*
 * A daemon with a CPU of its own whose page 0 was swapped out and whose
 * swap-in of it is now at the device, held there (disk.hold).
 */
static struct env *held_swapin(void)
{
	struct env *e = make_env(64, 16, 64, true);

	fill_and_evict(e, 16);
	disk.hold = true;
	assert_int_equal(swap_fault_begin(e->d, 0, 0),
			 GUEST_FAULT_SWAPIN_STARTED);
	swap_daemon_work(e->d);
	return e;
}

/*
 * A page that cannot be mapped again after its swap-in (guest memory
 * answers with ept_map's error, not with the stale-id one) stops the
 * guest with one fatal line naming it.
 */
static void page_not_mapped_again_is_fatal(void **state)
{
	struct env *e = held_swapin();

	(void)state;
	/* Something else got mapped at the page's address meanwhile. */
	assert_int_equal(ept_map(&e->ef->ept, 0, FAKE_FRAME_BASE, EPT_PAGE_4K,
				 EPT_RWX), HV_OK);
	disk.hold = false;
	swap_daemon_work(e->d);
	assert_int_equal(e->fatals, 1);
	assert_string_equal(e->last_fatal, "swap: the page at gpa 0x0 could "
			    "not be mapped again after its I/O");
}

static void stuck_request_is_reported_then_fatal(void **state)
{
	struct env *e = held_swapin();

	(void)state;
	fake_now += (SWAP_IO_DEADLINE_S + 1) * tsc_hz;
	swap_daemon_work(e->d);
	assert_int_equal(e->fatals, 0);         /* reported only */
	fake_now += 4 * SWAP_IO_DEADLINE_S * tsc_hz;
	swap_daemon_work(e->d);
	assert_int_equal(e->fatals, 1);
	/* The waiter does not wait for ever. */
	assert_int_not_equal(swap_fault_wait(e->d, 0, 0, &e->stop),
			     GUEST_FAULT_RESOLVED);
}

/*
 * A read the device never answers stays the device's: once the guest was
 * stopped for it, its frame is still out of the pool and the page still
 * waits for it (SWAPIN), so no late transfer can land in a frame given
 * to anyone else.
 */
static void given_up_read_keeps_its_frame(void **state)
{
	struct env *e = held_swapin();
	struct guest_page_info info;
	uint64_t free_before;

	(void)state;
	assert_int_equal(disk.nreq, 1);
	free_before = e->pool.nfree;
	fake_now += 5 * SWAP_IO_DEADLINE_S * tsc_hz;
	swap_daemon_work(e->d);
	assert_int_equal(e->fatals, 1);
	for (int i = 0; i < 10; i++)
		swap_daemon_work(e->d);
	assert_int_equal(e->pool.nfree, free_before);
	assert_true(guest_memory_page_info(&e->mem, 0, &info));
	assert_int_equal(info.state, PAGE_SWAPIN);
	assert_int_equal(info.frame_pa, disk.req[0].buffer_pa);
	assert_true(frame_pool_contains(&e->pool, info.frame_pa));
	assert_int_equal(e->events, 0);
}

/*
 * What the driver counted of a device that lied about a transfer or could
 * not be stopped reaches the counter registry.
 */
static void device_counters_are_registered(void **state)
{
	struct env *e = make_env(64, 16, 64, false);
	uint64_t v;

	(void)state;
	(void)e;
	disk.dev.short_transfers = 3;
	disk.dev.frames_held = 2;
	assert_int_equal(counters_find("swap.short_transfers", &v), 1);
	assert_int_equal(v, 3);
	assert_int_equal(counters_find("swap.frames_held", &v), 1);
	assert_int_equal(v, 2);
}

/* Too little swap for the working set: one fatal error, no endless wait. */
static void swap_too_small_ends_with_one_error(void **state)
{
	struct env *e = make_env(64, 8, 4, false);
	enum guest_fault_result r = GUEST_FAULT_RESOLVED;

	(void)state;
	for (uint64_t g = 0; g < 64 && r == GUEST_FAULT_RESOLVED; g++) {
		r = swap_fault_wait(e->d, g << PAGE_SHIFT, 0, &e->stop);
		if (r == GUEST_FAULT_RESOLVED) {
			struct ept_mapping m;

			assert_true(ept_lookup(&e->ef->ept, g << PAGE_SHIFT,
					       &m));
			memset(fake_frame(&e->ef->fm, m.hpa), 7, PAGE_SIZE);
			*cpu_walk(e->ef, g << PAGE_SHIFT, &(int){ 0 }) |=
				BIT(8) | BIT(9);
		}
	}
	assert_int_equal(r, GUEST_FAULT_NO_FRAME);
	assert_int_equal(e->fatals, 1);
}

/* One thrashing window in which vCPU 0 was halted for percent of it. */
static void halted_window(struct env *e, unsigned percent)
{
	const uint64_t window = (uint64_t)SWAP_THRASH_WINDOW_S * tsc_hz;

	swap_daemon_work(e->d);                 /* opens the window */
	swap_daemon_count_apf_halt(e->d, 0, window * percent / 100);
	fake_now += window;
	swap_daemon_work(e->d);                 /* closes it */
}

/*
 * A vCPU halted with async page faults outstanding waits for swap too:
 * SWAP_THRASH_WINDOWS windows in a row with the swap area full that it
 * spent mostly halted end the guest; a window spent half running starts
 * the count again.
 */
static void apf_halts_count_for_the_thrashing_rule(void **state)
{
	const uint64_t window = (uint64_t)SWAP_THRASH_WINDOW_S * tsc_hz;
	struct env *e = make_env(64, 32, 4, false);
	uint64_t halted;

	(void)state;
	/*
	 * As when the last slot went: frames are free (nothing is "stuck"),
	 * the guest only gets nowhere.
	 */
	e->mem.swap_full = true;
	for (unsigned i = 1; i < SWAP_THRASH_WINDOWS; i++)
		halted_window(e, 95);
	halted_window(e, SWAP_THRASH_PERCENT / 2);
	assert_string_equal(e->last_fatal, "");
	for (unsigned i = 1; i < SWAP_THRASH_WINDOWS; i++)
		halted_window(e, 95);
	assert_int_equal(e->fatals, 0);
	halted_window(e, 95);
	assert_int_equal(e->fatals, 1);
	assert_non_null(strstr(e->last_fatal, "(thrashing)"));
	assert_int_equal(counters_find("swap.apf_halt_tsc", &halted), 1);
	assert_int_equal(halted,
			 (2 * SWAP_THRASH_WINDOWS - 1) * (window * 95 / 100) +
				 window * (SWAP_THRASH_PERCENT / 2) / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(begin_does_not_block_and_event_names_waiters, free_env),
		cmocka_unit_test_teardown(wait_without_service_cpu_runs_the_daemon, free_env),
		cmocka_unit_test_teardown(wait_with_service_cpu_leaves_work_to_it, free_env),
		cmocka_unit_test_teardown(read_overtakes_queued_writes, free_env),
		cmocka_unit_test_teardown(verify_catches_a_changed_slot, free_env),
		cmocka_unit_test_teardown(reads_made_to_fail_lose_the_page,
					  free_env),
		cmocka_unit_test_teardown(read_latency_holds_completions,
					  free_env),
		cmocka_unit_test_teardown(page_not_mapped_again_is_fatal,
					  free_env),
		cmocka_unit_test_teardown(stuck_request_is_reported_then_fatal, free_env),
		cmocka_unit_test_teardown(given_up_read_keeps_its_frame,
					  free_env),
		cmocka_unit_test_teardown(device_counters_are_registered,
					  free_env),
		cmocka_unit_test_teardown(swap_too_small_ends_with_one_error, free_env),
		cmocka_unit_test_teardown(apf_halts_count_for_the_thrashing_rule,
					  free_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
