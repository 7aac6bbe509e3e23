// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the relay channel core (guest-module/gr_relay.c, its fast
 * path in gr_relay.h, gr_layout.c), built in userspace through
 * tests/shim/gr_user_env.h. Every test uses the
 * real core over a real mmap'd region framed by guard pages' worth of
 * known bytes; the test itself plays the host (reads produced and commit
 * records, writes consumed and prod_event) and, with threads, the CPUs.
 */
#include "gr_test.h"
#include <poll.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "gr_relay.h"

#define REGION_SIZE	(1U << 20)
#define GUARD_SIZE	4096
#define GUARD_BYTE	0xa5
#define MAX_CALLS	1024
#define EV_TEST		1
#define HDR		((u32)sizeof(struct gr_packet_header))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------------- */
/* The region and the host's view of it                                   */

struct test_region {
	u8 *map;
	size_t map_size;
	u8 *base;
	u64 size;
};

static void region_open(struct test_region *r, u64 size)
{
	r->map_size = size + 2 * GUARD_SIZE;
	r->map = mmap(NULL, r->map_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(r->map != MAP_FAILED);
	memset(r->map, GUARD_BYTE, GUARD_SIZE);
	memset(r->map + GUARD_SIZE + size, GUARD_BYTE, GUARD_SIZE);
	r->base = r->map + GUARD_SIZE;
	r->size = size;
}

static bool region_guards_intact(const struct test_region *r)
{
	size_t i;

	for (i = 0; i < GUARD_SIZE; i++)
		if (r->map[i] != GUARD_BYTE ||
		    r->base[r->size + i] != GUARD_BYTE)
			return false;
	return true;
}

static void region_close(struct test_region *r)
{
	CU_ASSERT(region_guards_intact(r));
	munmap(r->map, r->map_size);
}

static struct gr_ring *h_ring(u8 *base, const struct gr_layout *lay,
			      u32 ring)
{
	return (struct gr_ring *)(base + lay->ring_offset) + ring;
}

static struct gr_subbuf_rec *h_rec(u8 *base, const struct gr_layout *lay,
				   u32 ring, u32 slot)
{
	return (struct gr_subbuf_rec *)(base + lay->subbuf_rec_offset) +
	       (u64)ring * lay->n_subbufs + slot;
}

static u8 *h_subbuf(u8 *base, const struct gr_layout *lay, u32 ring,
		    u32 slot)
{
	return base + lay->data_offset +
	       ((u64)ring * lay->n_subbufs + slot) * lay->subbuf_size;
}

static struct gr_packet_header *h_hdr(u8 *base, const struct gr_layout *lay,
				      u32 ring, u32 slot)
{
	return (struct gr_packet_header *)h_subbuf(base, lay, ring, slot);
}

static u64 h_load(const __le64 *field)
{
	return le64toh(__atomic_load_n(field, __ATOMIC_RELAXED));
}

static u64 h_produced(struct gr_ring *ring)
{
	return le64toh(__atomic_load_n(&ring->prod.produced,
				       __ATOMIC_ACQUIRE));
}

static u64 h_seq(struct gr_subbuf_rec *rec)
{
	return le64toh(__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE));
}

static void h_set_consumed(struct gr_ring *ring, u64 consumed)
{
	__atomic_store_n(&ring->cons.consumed, htole64(consumed),
			 __ATOMIC_RELEASE);
}

static void h_set_prod_event(struct gr_ring *ring, u64 event)
{
	__atomic_store_n(&ring->cons.prod_event, htole64(event),
			 __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------------- */
/* Callbacks that record what the core asked                              */

struct sb_call {
	u32 ring;
	u8 *subbuf;
	u8 *prev;
	size_t padding;
	int ret;
};

struct cb_log {
	struct sb_call calls[MAX_CALLS];
	u32 nr_calls;
	u32 mapped;
	u32 unmapped;
	u64 doorbells;
	int efd;
};

static int log_subbuf_start(struct gr_buf *buf, void *subbuf, void *prev,
			    size_t padding)
{
	struct cb_log *log = buf->chan->private_data;
	int ret = gr_ctf_subbuf_start(buf, subbuf, prev, padding);
	u32 i = __atomic_fetch_add(&log->nr_calls, 1, __ATOMIC_RELAXED);

	if (i < MAX_CALLS)
		log->calls[i] = (struct sb_call){ buf->index, subbuf, prev,
						  padding, ret };
	return ret;
}

static void log_mapped(struct gr_buf *buf)
{
	struct cb_log *log = buf->chan->private_data;

	log->mapped++;
}

static void log_unmapped(struct gr_buf *buf)
{
	struct cb_log *log = buf->chan->private_data;

	log->unmapped++;
}

static void log_doorbell(struct gr_buf *buf)
{
	struct cb_log *log = buf->chan->private_data;
	u64 one = 1;

	__atomic_fetch_add(&log->doorbells, 1, __ATOMIC_RELAXED);
	if (log->efd >= 0 && write(log->efd, &one, sizeof(one)) < 0)
		perror("eventfd write");
}

static const struct gr_callbacks log_callbacks = {
	.subbuf_start = log_subbuf_start,
	.buf_mapped = log_mapped,
	.buf_unmapped = log_unmapped,
	.doorbell = log_doorbell,
};

static struct sb_call *last_call(struct cb_log *log)
{
	CU_ASSERT_FATAL(log->nr_calls > 0 && log->nr_calls <= MAX_CALLS);
	return &log->calls[log->nr_calls - 1];
}

/* ---------------------------------------------------------------------- */
/* Fixture: a region, a layout, a channel                                 */

struct fixture {
	struct test_region region;
	struct gr_layout lay;
	struct gr_chan *chan;
	struct cb_log log;
};

static void make_layout(struct gr_layout *lay, u32 nr_cpus, bool global,
			u32 subbuf_size, u32 n_subbufs)
{
	struct gr_geometry geo = {
		.region_size = REGION_SIZE,
		.nr_cpus = nr_cpus,
		.desc_count = 4,
		.subbuf_size = subbuf_size,
		.n_subbufs = n_subbufs,
		.global = global,
	};

	CU_ASSERT_FATAL(gr_layout_compute(&geo, lay) == 0);
	CU_ASSERT_FATAL(lay->subbuf_size == subbuf_size);
	CU_ASSERT_FATAL(lay->n_subbufs == n_subbufs);
}

/* Region prepared, channel not opened yet */
static void fixture_prepare(struct fixture *f, u32 nr_cpus, bool global,
			    u32 subbuf_size, u32 n_subbufs)
{
	memset(f, 0, sizeof(*f));
	f->log.efd = -1;
	region_open(&f->region, REGION_SIZE);
	make_layout(&f->lay, nr_cpus, global, subbuf_size, n_subbufs);
	gr_user_set_cpu(0);
}

static void fixture_open_chan(struct fixture *f)
{
	CU_ASSERT_FATAL(gr_chan_open(&f->chan, f->region.base, &f->lay,
				     &log_callbacks, &f->log) == 0);
}

static void fixture_open(struct fixture *f, u32 nr_cpus, bool global,
			 u32 subbuf_size, u32 n_subbufs)
{
	fixture_prepare(f, nr_cpus, global, subbuf_size, n_subbufs);
	fixture_open_chan(f);
}

static void fixture_close(struct fixture *f)
{
	gr_chan_close(f->chan);
	f->chan = NULL;
	region_close(&f->region);
}

static struct gr_ring *f_ring(struct fixture *f, u32 ring)
{
	return h_ring(f->region.base, &f->lay, ring);
}

static struct gr_subbuf_rec *f_rec(struct fixture *f, u32 ring, u32 slot)
{
	return h_rec(f->region.base, &f->lay, ring, slot);
}

static u8 *f_subbuf(struct fixture *f, u32 ring, u32 slot)
{
	return h_subbuf(f->region.base, &f->lay, ring, slot);
}

static struct gr_packet_header *f_hdr(struct fixture *f, u32 ring, u32 slot)
{
	return h_hdr(f->region.base, &f->lay, ring, slot);
}

static void fill_pattern(u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 31 + i);
}

static bool check_pattern(const u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (u8)(seed * 31 + i))
			return false;
	return true;
}

static int write_msg(struct gr_chan *chan, size_t len, u32 seed)
{
	static u8 msg[70000];

	fill_pattern(msg, len, seed);
	return gr_relay_write(chan, msg, len);
}

/* ---------------------------------------------------------------------- */
/* Layout                                                                 */

static void test_layout_default_fits_largest_n(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2, .desc_count = 16,
	};
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.nr_rings, 2);
	CU_ASSERT_EQUAL(lay.nr_cpus, 2);
	CU_ASSERT_EQUAL(lay.flags, 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, GR_DEFAULT_SUBBUF_SIZE);
	CU_ASSERT_EQUAL(lay.desc_offset, GR_LAYOUT_START);
	CU_ASSERT_EQUAL(lay.desc_stride, 576);
	CU_ASSERT_EQUAL(lay.desc_count, 16);
	/* 0x2000 + 16 * 576 = 0x4400, page aligned */
	CU_ASSERT_EQUAL(lay.ring_offset, 0x5000);
	CU_ASSERT_EQUAL(lay.subbuf_rec_offset, 0x5100);
	/* (4 MiB - 0x5100) / (2 * (64 KiB + 16)) = 31.8 */
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	CU_ASSERT_EQUAL(lay.data_offset, 0x6000);
	CU_ASSERT_EQUAL(lay.packet_header_size, 72);
	CU_ASSERT_EQUAL(lay.max_event_size, 65536 - 72);
	CU_ASSERT(lay.data_offset + 2ULL * 31 * 65536 <= lay.region_size);
	/* one more per ring would not fit */
	CU_ASSERT(lay.data_offset + 2ULL * 32 * 65536 > lay.region_size);
}

static void test_layout_halves_subbuf_size_until_two_fit(void)
{
	struct gr_geometry geo = { .region_size = 64 << 10, .nr_cpus = 2 };
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	/* 64K, 32K: no sub-buffer fits; 16K: one; 8K: three */
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	CU_ASSERT_EQUAL(lay.n_subbufs, 3);
	CU_ASSERT_EQUAL(lay.ring_offset, 0x2000);
	CU_ASSERT_EQUAL(lay.subbuf_rec_offset, 0x2100);
	CU_ASSERT_EQUAL(lay.data_offset, 0x3000);
	CU_ASSERT_EQUAL(lay.max_event_size, 8192 - 72);
	CU_ASSERT(lay.data_offset + 2ULL * 3 * 8192 <= lay.region_size);
}

static void test_layout_enospc_when_two_subbufs_cannot_fit(void)
{
	struct gr_geometry geo = { .region_size = 64 << 10, .nr_cpus = 8 };
	struct gr_layout lay;

	memset(&lay, 0x5a, sizeof(lay));
	/* 8 rings of 2 * 4 KiB need more than 64 KiB - 9 KiB */
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -ENOSPC);
	/* descriptors alone overflow the region */
	geo.nr_cpus = 1;
	geo.desc_count = GR_MAX_EVENTS;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -ENOSPC);
	/* the output is untouched on error */
	CU_ASSERT_EQUAL(lay.nr_rings, 0x5a5a5a5a);
}

static void test_layout_global_buffer_has_one_ring(void)
{
	struct gr_geometry geo = {
		.region_size = 64 << 10, .nr_cpus = 64, .global = true,
	};
	struct gr_layout lay;

	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
	CU_ASSERT_EQUAL(lay.nr_rings, 1);
	CU_ASSERT_EQUAL(lay.nr_cpus, 64);
	CU_ASSERT_EQUAL(lay.flags, GR_HDR_GLOBAL);
	CU_ASSERT(lay.n_subbufs >= 2);
	/* the same CPUs with per-CPU rings do not fit */
	geo.global = false;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -ENOSPC);
	/* more CPUs than GR_MAX_RINGS: only the global ring is possible */
	geo.nr_cpus = GR_MAX_RINGS + 1;
	geo.region_size = 1ULL << 30;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.global = true;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
}

static void test_layout_host_wish_honoured(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2,
		.subbuf_size = 16384, .n_subbufs = 8,
	};
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 16384);
	CU_ASSERT_EQUAL(lay.n_subbufs, 8);
	CU_ASSERT_EQUAL(lay.max_event_size, 16384 - 72);
	/* the module's default size is overridden by a valid wish */
	geo.default_subbuf_size = 8192;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 16384);
	/* big sub-buffers: max_event_size is bounded by the u16 size */
	geo.subbuf_size = 1U << 20;
	geo.n_subbufs = 2;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.max_event_size, GR_MAX_RECORD_SIZE);
}

static void test_layout_host_wish_rejected(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2,
		.subbuf_size = 3000, .n_subbufs = 8,
	};
	struct gr_layout lay;

	/* not a power of two: the module's size */
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, GR_DEFAULT_SUBBUF_SIZE);
	CU_ASSERT_EQUAL(lay.n_subbufs, 8);
	geo.default_subbuf_size = 8192;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	/* too small, too big */
	geo.subbuf_size = 2048;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	geo.subbuf_size = 32U << 20;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.subbuf_size, 8192);
	/* n: one, too many for the ABI, too many for the region */
	geo.subbuf_size = 65536;
	geo.n_subbufs = 1;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	geo.n_subbufs = GR_MAX_SUBBUFS + 1;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	geo.n_subbufs = 1000;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, 31);
	/* a huge region caps n at GR_MAX_SUBBUFS */
	geo.region_size = 1ULL << 30;
	geo.subbuf_size = 4096;
	geo.n_subbufs = 0;
	geo.nr_cpus = 1;
	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	CU_ASSERT_EQUAL(lay.n_subbufs, GR_MAX_SUBBUFS);
}

static void test_layout_rejects_impossible_input(void)
{
	struct gr_geometry good = { .region_size = 1 << 20, .nr_cpus = 2 };
	struct gr_geometry geo;
	struct gr_layout lay;

	geo = good;
	geo.region_size = 3 << 20;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.region_size = 32 << 10;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo.region_size = 1ULL << 41;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	geo.nr_cpus = 0;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	geo.desc_count = GR_MAX_EVENTS + 1;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	geo.default_subbuf_size = 5000;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), -EINVAL);
	geo = good;
	CU_ASSERT_EQUAL(gr_layout_compute(&geo, &lay), 0);
}

static void test_layout_written_to_header(void)
{
	struct gr_geometry geo = {
		.region_size = 4U << 20, .nr_cpus = 2, .desc_count = 16,
		.global = true,
	};
	struct gr_region_hdr hdr;
	struct gr_layout lay;

	CU_ASSERT_FATAL(gr_layout_compute(&geo, &lay) == 0);
	memset(&hdr, 0xee, sizeof(hdr));
	gr_layout_write_hdr(&hdr, &lay);
	CU_ASSERT_EQUAL(le16toh(hdr.abi_major), GR_ABI_MAJOR);
	CU_ASSERT_EQUAL(le16toh(hdr.abi_minor), GR_ABI_MINOR);
	CU_ASSERT_EQUAL(le32toh(hdr.hdr_size), 512);
	CU_ASSERT_EQUAL(le64toh(hdr.region_size), 4U << 20);
	CU_ASSERT_EQUAL(le32toh(hdr.nr_rings), 1);
	CU_ASSERT_EQUAL(le32toh(hdr.nr_cpus), 2);
	CU_ASSERT_EQUAL(le32toh(hdr.flags), GR_HDR_GLOBAL);
	CU_ASSERT_EQUAL(le32toh(hdr.subbuf_size), lay.subbuf_size);
	CU_ASSERT_EQUAL(le32toh(hdr.n_subbufs), lay.n_subbufs);
	CU_ASSERT_EQUAL(le64toh(hdr.desc_offset), lay.desc_offset);
	CU_ASSERT_EQUAL(le32toh(hdr.desc_count), 16);
	CU_ASSERT_EQUAL(le32toh(hdr.desc_stride), 576);
	CU_ASSERT_EQUAL(le64toh(hdr.ring_offset), lay.ring_offset);
	CU_ASSERT_EQUAL(le64toh(hdr.subbuf_rec_offset), lay.subbuf_rec_offset);
	CU_ASSERT_EQUAL(le64toh(hdr.data_offset), lay.data_offset);
	CU_ASSERT_EQUAL(le32toh(hdr.packet_header_size), 72);
	CU_ASSERT_EQUAL(le32toh(hdr.max_event_size), lay.max_event_size);
	/* magic, features, instance, clock and identity are the caller's */
	CU_ASSERT_EQUAL(hdr.magic, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL(hdr.guest_features, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL(hdr.instance_id, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL(hdr.clock_freq, 0xeeeeeeeeeeeeeeeeULL);
	CU_ASSERT_EQUAL((u8)hdr.clock_name[0], 0xee);
	CU_ASSERT_EQUAL((u8)hdr.nodename[0], 0xee);
	CU_ASSERT_EQUAL(hdr.boot_id[0], 0xee);
}

static void test_open_rejects_inconsistent_layout(void)
{
	struct test_region r;
	struct gr_layout lay, bad;
	struct gr_chan *chan = NULL;

	region_open(&r, REGION_SIZE);
	make_layout(&lay, 2, false, 4096, 4);
	bad = lay;
	bad.n_subbufs = 1;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	bad = lay;
	bad.data_offset = REGION_SIZE - 4096;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	bad = lay;
	bad.max_event_size = 4096;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	/* less than spec 4.2's value: writers skip the check of small payloads */
	bad = lay;
	bad.max_event_size = 64;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	bad = lay;
	bad.nr_rings = 1;
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &bad, NULL, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(chan);
	CU_ASSERT_EQUAL(gr_chan_open(&chan, r.base, &lay, NULL, NULL), 0);
	CU_ASSERT_EQUAL(gr_chan_set_mode(chan, 7), -EINVAL);
	CU_ASSERT_EQUAL(gr_chan_set_online(chan, 2, false), -EINVAL);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(chan, 2), -EINVAL);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(chan), 0);
	gr_chan_close(chan);
	region_close(&r);
}

/* ---------------------------------------------------------------------- */
/* Opening, switching, padding                                            */

static void test_open_calls_subbuf_start_with_null_prev(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	u32 ring, slot;

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	for (ring = 0; ring < 2; ring++) {
		struct sb_call *c = &f.log.calls[ring];

		CU_ASSERT_EQUAL(c->ring, ring);
		CU_ASSERT_PTR_NULL(c->prev);
		CU_ASSERT_EQUAL(c->padding, 0);
		CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, ring, 0));
		CU_ASSERT_EQUAL(c->ret, 1);
		ph = f_hdr(&f, ring, 0);
		CU_ASSERT_EQUAL(le32toh(ph->magic), GR_CTF_MAGIC);
		CU_ASSERT_EQUAL(le32toh(ph->stream_id), 0);
		CU_ASSERT_EQUAL(le64toh(ph->stream_instance_id), ring);
		CU_ASSERT_EQUAL(le32toh(ph->cpu_id), ring);
		CU_ASSERT_EQUAL(le64toh(ph->packet_size), 4096 * 8);
		CU_ASSERT_EQUAL(le64toh(ph->packet_seq_num), 0);
		CU_ASSERT_EQUAL(le64toh(ph->content_size), HDR * 8);
		CU_ASSERT(le64toh(ph->timestamp_begin) > 0);
		for (slot = 0; slot < 4; slot++)
			CU_ASSERT_EQUAL(h_seq(f_rec(&f, ring, slot)),
					GR_SEQ_BUSY);
		CU_ASSERT_EQUAL(h_produced(f_ring(&f, ring)), 0);
		CU_ASSERT_EQUAL(le32toh(f_ring(&f, ring)->prod.flags),
				GR_RING_F_ONLINE);
		CU_ASSERT_EQUAL(f.chan->bufs[ring].offset, HDR);
	}
	fixture_close(&f);
}

static void test_open_continues_counters_from_consumed(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	const u64 near_wrap = UINT64_MAX - 1;
	int i;

	fixture_prepare(&f, 2, false, 4096, 4);
	h_set_consumed(f_ring(&f, 0), 1001);
	h_set_consumed(f_ring(&f, 1), near_wrap);
	fixture_open_chan(&f);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1001);
	CU_ASSERT_PTR_EQUAL(f.log.calls[0].subbuf, f_subbuf(&f, 0, 1001 % 4));
	ph = f_hdr(&f, 0, 1001 % 4);
	CU_ASSERT_EQUAL(le64toh(ph->packet_seq_num), 1001);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), near_wrap);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 1, 2)->packet_seq_num), near_wrap);

	/* ring 1 finishes sub-buffer 2^64 - 2; the next one is 2^64 - 1 */
	gr_user_set_cpu(1);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), UINT64_MAX);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 1, 2)), near_wrap);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 1, 3)->packet_seq_num), UINT64_MAX);
	fixture_close(&f);
}

static void test_message_exactly_filling_subbuf(void)
{
	struct fixture f;
	struct sb_call *c;

	fixture_open(&f, 2, false, 4096, 4);
	/* 4096 - 72 = 4024 bytes: the sub-buffer is exactly full */
	CU_ASSERT_EQUAL(write_msg(f.chan, 4024, 7), 0);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, 4096);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	/* the next message switches, with no padding */
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 8), 0);
	CU_ASSERT_EQUAL(f.log.nr_calls, 3);
	c = last_call(&f.log);
	CU_ASSERT_PTR_EQUAL(c->prev, f_subbuf(&f, 0, 0));
	CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 1));
	CU_ASSERT_EQUAL(c->padding, 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), 4096);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->content_size), 4096 * 8);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 4024, 7));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 1) + HDR, 8, 8));
	/* a write stores nothing in the ring's prod half (spec 6.4) */
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 2);
	fixture_close(&f);
}

static void test_message_larger_than_subbuf_is_rejected(void)
{
	struct fixture f;
	static u8 payload[4096];

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(write_msg(f.chan, 4025, 1), -E2BIG);
	CU_ASSERT_EQUAL(write_msg(f.chan, 65536, 1), -E2BIG);
	CU_ASSERT_EQUAL(write_msg(f.chan, 0, 1), -EINVAL);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 2);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR);
	/* event records: 16 header bytes + at most 4008 payload bytes */
	CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, payload, 4009),
			-E2BIG);
	CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, payload,
				       (size_t)-1), -E2BIG);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 4);
	CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, payload, 4008), 0);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, 4096);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 1);
	/* lost events show in the next packet's events_discarded */
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 1), 0);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->events_discarded), 4);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->events_discarded), 4);
	fixture_close(&f);
}

static void test_padding_passed_to_subbuf_start_and_content_size(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	struct sb_call *c;
	int i;

	fixture_open(&f, 2, false, 4096, 4);
	/* 72 + 4 * 1000 = 4072: the fifth message leaves 24 bytes */
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	c = last_call(&f.log);
	CU_ASSERT_PTR_EQUAL(c->prev, f_subbuf(&f, 0, 0));
	CU_ASSERT_EQUAL(c->padding, 24);
	ph = f_hdr(&f, 0, 0);
	CU_ASSERT_EQUAL(le64toh(ph->content_size), 4072 * 8);
	CU_ASSERT_EQUAL(le64toh(ph->packet_size), 4096 * 8);
	CU_ASSERT(le64toh(ph->timestamp_begin) <= le64toh(ph->timestamp_end));
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), 4072);
	for (i = 0; i < 4; i++)
		CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR + i * 1000,
					1000, i));
	/* 1201 bytes take 1208: two fit after message 4, 608 bytes pad */
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1201, 10 + i), 0);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR + 1000 + 2 * 1208);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1201, 12), 0);
	c = last_call(&f.log);
	CU_ASSERT_PTR_EQUAL(c->prev, f_subbuf(&f, 0, 1));
	CU_ASSERT_EQUAL(c->padding, 608);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->bytes), 4096 - 608);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->content_size),
			(4096 - 608) * 8);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 1) + HDR + 1000 + 1208,
				1201, 11));
	/* the record's tail padding is zero */
	CU_ASSERT_EQUAL(*(f_subbuf(&f, 0, 1) + HDR + 1000 + 1208 + 1201), 0);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 2) + HDR, 1201, 12));
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* Modes                                                                  */

static void test_stream_full_drops_counts_and_resumes_after_consumed(void)
{
	struct fixture f;
	struct gr_buf *buf;
	struct sb_call *c;
	u32 calls;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	/* four sub-buffers of four messages */
	for (i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 3);
	/* the 17th finishes sub-buffer 3; sub-buffer 4 would overwrite 0 */
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 16), -ENOSPC);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, i)), (u64)i);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	CU_ASSERT(gr_buf_full(buf));
	c = last_call(&f.log);
	CU_ASSERT_EQUAL(c->ret, 0);
	/*
	 * No GR_VEC_CONSUMED is asked for (spec 8.3): cons_event stays at
	 * consumed - 1, a value consumed has passed; the guest's handler
	 * would only count the interrupt
	 */
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.cons_event), UINT64_MAX);

	/* every later write retries the switch once, and fails */
	for (i = 0; i < 3; i++) {
		calls = f.log.nr_calls;
		CU_ASSERT_EQUAL(write_msg(f.chan, 8, 100 + i), -ENOSPC);
		CU_ASSERT_EQUAL(f.log.nr_calls, calls + 1);
		c = last_call(&f.log);
		CU_ASSERT_PTR_NULL(c->prev);
		CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 0));
		CU_ASSERT_EQUAL(c->ret, 0);
	}
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 4);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 4);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);

	/* the host consumes sub-buffer 0: writing resumes into slot 0 */
	h_set_consumed(f_ring(&f, 0), 1);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 200), 0);
	c = last_call(&f.log);
	CU_ASSERT_EQUAL(c->ret, 1);
	CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 0));
	CU_ASSERT_EQUAL(buf->consumed, 1);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->packet_seq_num), 4);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->events_discarded), 4);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 1000, 200));
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 4);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 0);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan), 0);
	CU_ASSERT_FALSE(gr_buf_full(buf));
	fixture_close(&f);
}

static void test_flight_overwrites_oldest_and_counts(void)
{
	struct fixture f;
	u32 slot;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	CU_ASSERT_EQUAL(gr_chan_set_mode(f.chan, GR_MODE_FLIGHT), 0);
	/* 41 messages, 4 per sub-buffer: 10 switches, never a drop */
	for (i = 0; i < 41; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 10);
	/* switches that produced 4..10 reused an unconsumed sub-buffer */
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 7);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 0);
	/* the n most recent: 7, 8, 9 finished and 10 being filled */
	for (slot = 0; slot < 4; slot++) {
		u64 k = slot == 3 ? 7 : 8 + slot;
		u64 seq = h_seq(f_rec(&f, 0, slot));

		CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, slot)->packet_seq_num), k);
		CU_ASSERT_EQUAL(seq, k == 10 ? GR_SEQ_BUSY : k);
		CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR, 1000,
					k * 4));
	}
	/* back to stream mode at runtime: the ring is full, writes drop */
	CU_ASSERT_EQUAL(gr_chan_set_mode(f.chan, GR_MODE_STREAM), 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 41 + i), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 44), -ENOSPC);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 11);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	/* and to flight again: the next write overwrites */
	CU_ASSERT_EQUAL(gr_chan_set_mode(f.chan, GR_MODE_FLIGHT), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 45), 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 8);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 11 % 4)->packet_seq_num), 11);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* Flush, reset, close                                                    */

static void test_flush_delivers_partly_filled_subbuf(void)
{
	struct fixture f;
	struct gr_packet_header *ph;
	struct sb_call *c;

	fixture_open(&f, 2, false, 4096, 4);
	CU_ASSERT_EQUAL(write_msg(f.chan, 100, 3), 0);
	gr_chan_flush(f.chan);
	/* ring 1 was empty: only ring 0 switched */
	CU_ASSERT_EQUAL(f.log.nr_calls, 3);
	c = last_call(&f.log);
	CU_ASSERT_EQUAL(c->ring, 0);
	CU_ASSERT_EQUAL(c->padding, 4096 - (HDR + 104));
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), HDR + 104);
	ph = f_hdr(&f, 0, 0);
	CU_ASSERT_EQUAL(le64toh(ph->content_size), (HDR + 104) * 8);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 100, 3));
	/* the 4 bytes of record padding are zero */
	CU_ASSERT_EQUAL(*(u32 *)(f_subbuf(&f, 0, 0) + HDR + 100), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->packet_seq_num), 1);
	fixture_close(&f);
}

static void test_flush_of_empty_subbuf_delivers_nothing(void)
{
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(f.log.nr_calls, 2);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 1), 0);
	gr_chan_flush(f.chan);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(f.log.nr_calls, 3);
	CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	fixture_close(&f);
}

static void test_flush_this_cpu_flushes_only_its_ring(void)
{
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 1), 0);
	gr_user_set_cpu(1);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 2), 0);
	CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 1);
	CU_ASSERT(check_pattern(f_subbuf(&f, 1, 0) + HDR, 16, 2));
	fixture_close(&f);
}

static void test_reset_discards_current_and_zeroes_lost_counters(void)
{
	struct fixture f;
	struct sb_call *c;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	/* one produced sub-buffer, two messages in the current one */
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 5000, 0), -E2BIG);
	gr_chan_set_mode(f.chan, GR_MODE_FLIGHT);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 1);
	gr_chan_reset(f.chan);
	c = last_call(&f.log);
	CU_ASSERT_PTR_NULL(c->prev);
	CU_ASSERT_PTR_EQUAL(c->subbuf, f_subbuf(&f, 0, 1));
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.overwritten), 0);
	/* what was produced stays the host's */
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1)), GR_SEQ_BUSY);
	/* the restarted sub-buffer holds only what comes after the reset */
	CU_ASSERT_EQUAL(write_msg(f.chan, 40, 99), 0);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 2);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 1)->bytes), HDR + 40);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->packet_seq_num), 1);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 1) + HDR, 40, 99));
	/* CTF's events_discarded never goes back */
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->events_discarded), 1);
	fixture_close(&f);
}

static void test_reset_of_waiting_ring_retries_switch(void)
{
	struct fixture f;
	int i;

	fixture_open(&f, 1, false, 4096, 2);
	for (i = 0; i < 8; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 8), -ENOSPC);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	gr_chan_reset(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 0);
	CU_ASSERT_EQUAL(last_call(&f.log)->ret, 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 2);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1)), 1);
	CU_ASSERT_EQUAL(write_msg(f.chan, 1000, 9), -ENOSPC);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 1);
	fixture_close(&f);
}

static void test_close_flushes_marks_offline_and_unmaps(void)
{
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_buf_mapped(f.chan);
	gr_buf_mapped(f.chan);
	CU_ASSERT_EQUAL(f.log.mapped, 2);
	CU_ASSERT_EQUAL(write_msg(f.chan, 300, 5), 0);
	CU_ASSERT_EQUAL(gr_chan_set_online(f.chan, 1, false), 0);
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 1)->prod.flags), 0);
	CU_ASSERT_EQUAL(gr_chan_set_online(f.chan, 1, true), 0);
	gr_chan_close(f.chan);
	CU_ASSERT_EQUAL(f.log.unmapped, 2);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 0);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, 0)->bytes), HDR + 304);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 300, 5));
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 0)->prod.flags), 0);
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 1)->prod.flags), 0);
	region_close(&f.region);

	/* detached before close: no second buf_unmapped */
	fixture_open(&f, 1, false, 4096, 4);
	gr_buf_mapped(f.chan);
	gr_buf_unmapped(f.chan);
	gr_buf_unmapped(f.chan);
	CU_ASSERT_EQUAL(f.log.unmapped, 1);
	fixture_close(&f);
	CU_ASSERT_EQUAL(f.log.unmapped, 1);
}

/* ---------------------------------------------------------------------- */
/* Buffer-only channel                                                    */

static void test_buffer_only_channel_late_setup_keeps_data(void)
{
	struct fixture f;
	struct gr_chan *chan;
	u8 zero[4096] = { 0 };
	u32 slot;
	int i;

	fixture_prepare(&f, 2, false, 4096, 4);
	CU_ASSERT_FATAL(gr_chan_open(&chan, NULL, &f.lay, &log_callbacks,
				     &f.log) == 0);
	f.chan = chan;
	/* ring 0: two produced sub-buffers and two messages being filled */
	for (i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(write_msg(chan, 1000, i), 0);
	gr_user_set_cpu(1);
	CU_ASSERT_EQUAL(write_msg(chan, 24, 77), 0);
	gr_user_set_cpu(0);
	/* nothing reached the region yet */
	for (i = 0; i < (int)(f.lay.data_offset / sizeof(zero)); i++)
		CU_ASSERT(!memcmp(f.region.base + i * sizeof(zero), zero,
				  sizeof(zero)));
	CU_ASSERT(!memcmp(f_subbuf(&f, 0, 0), zero, sizeof(zero)));

	/* the region's counters are at 1001 (a previous instance) */
	h_set_consumed(f_ring(&f, 0), 1001);
	CU_ASSERT_EQUAL(gr_chan_late_setup(chan, f.region.base), 0);
	CU_ASSERT_EQUAL(gr_chan_late_setup(chan, f.region.base), -EINVAL);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1003);
	CU_ASSERT_EQUAL(le32toh(f_ring(&f, 0)->prod.flags), GR_RING_F_ONLINE);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 10);
	for (i = 0; i < 2; i++) {
		slot = (1001 + i) % 4;
		CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, slot)), 1001 + (u64)i);
		CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, slot)->bytes), 4072);
		CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, slot)->packet_seq_num),
				1001 + (u64)i);
		CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR + 1000,
					1000, i * 4 + 1));
	}
	slot = 1003 % 4;
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, slot)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 1000 % 4)), GR_SEQ_BUSY);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, slot)->packet_seq_num), 1003);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR + 1000, 1000, 9));
	/* writers continue in the region */
	CU_ASSERT_EQUAL(write_msg(chan, 1000, 10), 0);
	gr_chan_flush(chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1004);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, slot)), 1003);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 0, slot)->bytes), HDR + 3000);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR, 1000, 8));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, slot) + HDR + 2000, 1000, 10));
	/* ring 1 kept its counters at 0 and its message */
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 1);
	CU_ASSERT_EQUAL(le32toh(f_rec(&f, 1, 0)->bytes), HDR + 24);
	CU_ASSERT(check_pattern(f_subbuf(&f, 1, 0) + HDR, 24, 77));
	fixture_close(&f);
}

static void test_buffer_only_channel_closed_without_setup(void)
{
	struct gr_layout lay;
	struct gr_chan *chan;
	int i;

	gr_user_set_cpu(0);
	make_layout(&lay, 2, false, 4096, 4);
	CU_ASSERT_FATAL(gr_chan_open(&chan, NULL, &lay, NULL, NULL) == 0);
	for (i = 0; i < 50; i++)
		gr_relay_write(chan, "x", 1);
	CU_ASSERT_EQUAL(gr_chan_late_setup(chan, NULL), -EINVAL);
	gr_chan_close(chan);
}

/* ---------------------------------------------------------------------- */
/* Writing interfaces                                                     */

struct test_payload {
	__le32 writer;
	__le32 pad;
	__le64 seq;
};

static void test_event_record_header_fields(void)
{
	struct fixture f;
	struct gr_event_header *eh;
	u8 payload[13];
	u8 *rec;
	u64 t0, t1;

	fixture_open(&f, 1, false, 4096, 4);
	fill_pattern(payload, sizeof(payload), 42);
	t0 = gr_clock();
	CU_ASSERT_EQUAL(gr_event_write(f.chan, 9, payload, sizeof(payload)),
			0);
	t1 = gr_clock();
	rec = f_subbuf(&f, 0, 0) + HDR;
	eh = (struct gr_event_header *)rec;
	CU_ASSERT_EQUAL(le16toh(eh->id), 9);
	CU_ASSERT_EQUAL(le16toh(eh->size), 32);
	CU_ASSERT_EQUAL(le32toh(eh->tid), (u32)gettid());
	CU_ASSERT(le64toh(eh->timestamp) >= t0);
	CU_ASSERT(le64toh(eh->timestamp) <= t1);
	CU_ASSERT(check_pattern(rec + 16, 13, 42));
	CU_ASSERT_EQUAL(rec[29], 0);
	CU_ASSERT_EQUAL(rec[30], 0);
	CU_ASSERT_EQUAL(rec[31], 0);
	/* an event without payload is just its header */
	CU_ASSERT_EQUAL(gr_event_write(f.chan, 3, NULL, 0), 0);
	eh = (struct gr_event_header *)(rec + 32);
	CU_ASSERT_EQUAL(le16toh(eh->size), 16);
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR + 48);
	/* the timestamps of a packet lie within its begin and end */
	gr_chan_flush(f.chan);
	CU_ASSERT(le64toh(f_hdr(&f, 0, 0)->timestamp_begin) <=
		  le64toh(((struct gr_event_header *)rec)->timestamp));
	CU_ASSERT(le64toh(f_hdr(&f, 0, 0)->timestamp_end) >=
		  le64toh(eh->timestamp));
	fixture_close(&f);
}

/* Spec 6.9: a write that switches reads the clock once; that T ends the
 * old packet, begins the new one and stamps the record. */
static void test_switch_shares_write_timestamp(void)
{
	struct fixture f;
	struct gr_event_header *eh;
	u8 payload[1000];
	size_t prev;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	fill_pattern(payload, sizeof(payload), 7);
	for (i = 0; i < 10; i++) {
		prev = f.chan->bufs[0].offset;
		CU_ASSERT_EQUAL(gr_event_write(f.chan, 9, payload,
					       sizeof(payload)), 0);
		if (f.chan->bufs[0].offset < prev)
			break;
	}
	CU_ASSERT(i < 10);
	eh = (struct gr_event_header *)(f_subbuf(&f, 0, 1) + HDR);
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->timestamp_end),
			le64toh(eh->timestamp));
	CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 1)->timestamp_begin),
			le64toh(eh->timestamp));
	fixture_close(&f);
}

static void test_probe_writes_record_in_place(void)
{
	struct fixture f;
	struct test_payload *p;
	struct gr_event_header *eh;
	struct gr_buf *buf;
	unsigned long flags;

	fixture_open(&f, 2, false, 4096, 4);
	gr_user_set_cpu(1);
	local_irq_save(flags);
	buf = gr_buf_enter(f.chan);
	CU_ASSERT_PTR_EQUAL_FATAL(buf, &f.chan->bufs[1]);
	p = gr_event_reserve(buf, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->writer = htole32(1);
	p->pad = 0;
	p->seq = htole64(0x1122334455667788ULL);
	gr_buf_exit(buf);
	local_irq_restore(flags);
	eh = (struct gr_event_header *)(f_subbuf(&f, 1, 0) + HDR);
	CU_ASSERT_PTR_EQUAL((void *)(eh + 1), (void *)p);
	CU_ASSERT_EQUAL(le16toh(eh->size), 32);
	CU_ASSERT_EQUAL(le64toh(p->seq), 0x1122334455667788ULL);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 1)->prod.events), 1);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	fixture_close(&f);
}

/* A filter on EV_TEST at slot 3 keeping records whose seq is odd */
static void odd_seq_filter(struct gr_filter_set *set)
{
	struct gr_filter_bounds b = { 16, 16 };
	struct gr_filter_prog *prog = &set->progs[0];
	struct gr_filter_err err;

	memset(set, 0, sizeof(*set));
	memset(set->slot_of, GR_FILTER_NONE, sizeof(set->slot_of));
	set->nr_progs = 1;
	set->slot_of[EV_TEST] = 0;
	prog->event_id = EV_TEST;
	prog->slot = 3;
	prog->nr_insns = 4;
	prog->ops[0] = (struct gr_filter_op){ .code = GR_FI_LD, .width = 8,
					      .off = 8 };
	prog->ops[1] = (struct gr_filter_op){ .code = GR_FI_JSET, .jf = 1,
					      .k = 1 };
	prog->ops[2] = (struct gr_filter_op){ .code = GR_FI_RET, .k = 1 };
	prog->ops[3] = (struct gr_filter_op){ .code = GR_FI_RET, .k = 0 };
	CU_ASSERT_EQUAL_FATAL(gr_filter_verify(prog, &b, &err), 0);
}

/* A record of EV_TEST naming @writer as its second task */
static void rec_write_writer(u64 seq, u32 writer)
{
	struct test_payload *p;
	struct gr_rec rec;

	p = gr_rec_begin(&rec, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->writer = htole32(writer);
	p->pad = 0;
	p->seq = htole64(seq);
	gr_rec_commit(&rec);
}

static void rec_write(u64 seq)
{
	rec_write_writer(seq, 0);
}

/*
 * Spec 14.5: a record a filter rejects is taken back before the commit:
 * the ring holds exactly the accepted records, back to back, events
 * counts only them, the slot's filtered count the others, and a record
 * taken back right after the switch it caused leaves an empty sub-buffer
 * that a flush does not deliver.
 */
static void test_record_api_filter_takes_back(void)
{
	u64 enable[GR_MAX_EVENTS / 64] = { 0 };
	static struct gr_filter_set set;
	struct gr_event_header *eh;
	struct test_payload *p;
	struct gr_buf *buf;
	struct fixture f;
	u64 want = 1, seq;
	u32 slot, off, end;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	gr_user_set_cpu(0);
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	gr_rec_activate(f.chan);
	odd_seq_filter(&set);
	CU_ASSERT_PTR_NULL(gr_rec_set_filters(&set));
	CU_ASSERT(gr_event_filtered(EV_TEST));
	CU_ASSERT(!gr_event_filtered(EV_TEST + 1));

	for (seq = 0; seq < 200; seq++)
		rec_write(seq);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 100);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, 3), 100);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, 0), 0);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, GR_FILTER_SLOTS), 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full), 0);

	/* Fill the sub-buffer, then a rejected record switches and leaves */
	while (buf->offset + 32 <= buf->subbuf_size)
		rec_write(seq++ | 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	rec_write(seq++ & ~1ULL);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(buf->offset, buf->hdr_reserved);
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);

	/* Every record of the packet is accepted, in order */
	for (slot = 0; slot < 1; slot++) {
		end = (u32)(le64toh(f_hdr(&f, 0, slot)->content_size) / 8);
		for (off = HDR; off < end; off += 32) {
			eh = (struct gr_event_header *)(f_subbuf(&f, 0, slot) +
							off);
			p = (struct test_payload *)(eh + 1);
			CU_ASSERT_EQUAL(le16toh(eh->size), 32);
			CU_ASSERT_EQUAL(le64toh(p->seq) & 1, 1);
			if (le64toh(p->seq) < 200) {
				CU_ASSERT_EQUAL(le64toh(p->seq), want);
				want += 2;
			}
		}
	}
	CU_ASSERT_EQUAL(want, 201);

	/* No set: nothing is filtered any more */
	CU_ASSERT_PTR_EQUAL(gr_rec_set_filters(NULL), &set);
	CU_ASSERT(!gr_event_filtered(EV_TEST));
	off = (u32)buf->offset;
	rec_write(2);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	fixture_close(&f);
}

/*
 * Spec 15.4: with a follow set in effect every event goes through the
 * filter; a record is kept if the recording thread is followed or the
 * event's second task is, else taken back and counted in the follow
 * slot; with a program beside it, the program sees only what the follow
 * set kept. Taking the set out sends the events back to the plain path.
 */
static void test_record_api_follow_takes_back(void)
{
	u64 enable[GR_MAX_EVENTS / 64] = { 0 };
	static struct gr_filter_set set;
	static unsigned long bits[GR_FOLLOW_PID_LIMIT / (8 * sizeof(long))];
	static struct gr_follow fol;
	u32 me = gr_current_tid(), other = me ^ 1, off;
	struct fixture f;
	struct gr_buf *buf;
	unsigned int i;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	gr_user_set_cpu(0);
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	gr_rec_activate(f.chan);

	memset(&fol, 0, sizeof(fol));
	fol.nr_bits = GR_FOLLOW_PID_LIMIT;
	fol.bits = bits;
	memset(bits, 0, sizeof(bits));
	for (i = 0; i < GR_MAX_EVENTS; i++)
		fol.other_off[i] = GR_FOLLOW_NO_OFF;
	fol.other_off[EV_TEST] = offsetof(struct test_payload, writer);
	fol.spec.flags = GR_FOLLOW_F_ON;
	CU_ASSERT_PTR_NULL(gr_rec_set_follow(&fol));
	/* every event is sent out of line, whether or not it has a program */
	CU_ASSERT(gr_event_filtered(EV_TEST));
	CU_ASSERT(gr_event_filtered(EV_TEST + 1));

	/* neither this thread nor the writer is followed: taken back */
	off = (u32)buf->offset;
	rec_write_writer(0, other);
	CU_ASSERT_EQUAL(buf->offset, off);
	/* the second task is followed: kept */
	CU_ASSERT(gr_follow_add(&fol, other));
	rec_write_writer(1, other);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	/* this thread is followed: kept whoever the second task is */
	gr_follow_del(&fol, other);
	rec_write_writer(2, other);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	CU_ASSERT(gr_follow_add(&fol, me));
	CU_ASSERT(!gr_follow_add(&fol, me));
	rec_write_writer(3, 0);
	CU_ASSERT_EQUAL(buf->offset, off + 64);
	/* a program beside it judges what the follow set kept */
	odd_seq_filter(&set);
	gr_rec_set_filters(&set);
	rec_write_writer(4, 0);
	rec_write_writer(5, 0);
	CU_ASSERT_EQUAL(buf->offset, off + 96);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, 3), 1);
	gr_rec_set_filters(NULL);
	gr_follow_del(&fol, me);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(gr_chan_filtered(f.chan, GR_FOLLOW_SLOT), 2);
	CU_ASSERT_EQUAL(atomic_read(&fol.tasks), 0);

	/* no set: back to the plain path */
	CU_ASSERT_PTR_EQUAL(gr_rec_set_follow(NULL), &fol);
	CU_ASSERT(!gr_event_filtered(EV_TEST));
	off = (u32)buf->offset;
	rec_write_writer(6, other);
	CU_ASSERT_EQUAL(buf->offset, off + 32);
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	fixture_close(&f);
}

/* The record API of the probes: one enable bitmap, the active channel */
static void test_record_api_over_active_channel(void)
{
	u64 enable[GR_MAX_EVENTS / 64] = { 0 };
	struct gr_rec rec, nested;
	struct test_payload *p;
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	gr_user_set_cpu(0);
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	/* no channel active yet */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST, sizeof(*p)));
	gr_rec_activate(f.chan);
	CU_ASSERT(gr_event_on(EV_TEST));
	CU_ASSERT(!gr_event_on(EV_TEST + 1));
	CU_ASSERT(!gr_event_on(GR_MAX_EVENTS));
	/* an event that is not enabled writes nothing */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST + 1, sizeof(*p)));
	p = gr_rec_begin(&rec, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->writer = htole32(7);
	p->pad = 0;
	p->seq = htole64(1);
	/* nested on this CPU: dropped and counted */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&nested, EV_TEST, sizeof(*p)));
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_nested), 1);
	gr_rec_commit(&rec);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 1);
	/* a reservation that fails closes the record (no commit) */
	CU_ASSERT_FATAL(gr_rec_open(&rec, EV_TEST));
	CU_ASSERT_PTR_NULL(gr_rec_reserve(&rec, 5000));
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 1);
	CU_ASSERT_EQUAL(f.chan->bufs[0].nesting, 0);
	/* recording off: the bitmap is empty */
	gr_rec_set_events(NULL);
	CU_ASSERT(!gr_event_on(EV_TEST));
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST, sizeof(*p)));
	gr_rec_set_events(enable);
	gr_rec_deactivate();
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST, sizeof(*p)));
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	gr_rec_activate(f.chan);
	CU_ASSERT_EQUAL(gr_rec_flush_this_cpu(), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	fixture_close(&f);
}

/*
 * Panic: a CPU stopped inside a write keeps its ring; every other ring,
 * those of idle CPUs too, is delivered.
 */
static void test_panic_flush_skips_only_rings_mid_write(void)
{
	struct fixture f;
	u32 cpu;

	fixture_open(&f, 4, false, 4096, 4);
	for (cpu = 0; cpu < 3; cpu++) {
		gr_user_set_cpu(cpu);
		CU_ASSERT_EQUAL(write_msg(f.chan, 16, cpu), 0);
	}
	f.chan->bufs[1].nesting = 1;	/* stopped mid-write */
	gr_user_set_cpu(3);		/* the panicking CPU, idle ring */
	gr_chan_flush_idle(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 1)), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 2)), 1);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 3)), 0);
	f.chan->bufs[1].nesting = 0;
	fixture_close(&f);

	/* global ring: any CPU inside may hold its lock, so leave it */
	fixture_open(&f, 2, true, 4096, 4);
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 3), 0);
	f.chan->cpus[0].nesting = 1;
	gr_user_set_cpu(1);
	gr_chan_flush_idle(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	f.chan->cpus[0].nesting = 0;
	gr_chan_flush_idle(f.chan);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	CU_ASSERT_EQUAL(le32toh(f_hdr(&f, 0, 0)->cpu_id), 0);
	fixture_close(&f);
}

static void test_reserve_and_preempt_only_write(void)
{
	struct fixture f;
	u8 *slot;

	fixture_open(&f, 1, false, 4096, 4);
	slot = gr_relay_reserve(f.chan, 20);
	CU_ASSERT_PTR_EQUAL_FATAL(slot, f_subbuf(&f, 0, 0) + HDR);
	/* the tail of the 24-byte slot is zeroed */
	CU_ASSERT_EQUAL(*(u32 *)(slot + 20), 0);
	fill_pattern(slot, 20, 5);
	CU_ASSERT_PTR_NULL(gr_relay_reserve(f.chan, 5000));
	CU_ASSERT_PTR_NULL(gr_relay_reserve(f.chan, 0));
	CU_ASSERT_EQUAL(__gr_relay_write(f.chan, "abcdefgh", 8), 0);
	CU_ASSERT(!memcmp(f_subbuf(&f, 0, 0) + HDR + 24, "abcdefgh", 8));
	CU_ASSERT_EQUAL(f.chan->bufs[0].offset, HDR + 32);
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 2);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_too_big), 1);
	fixture_close(&f);
}

static void test_global_channel_one_ring_for_all_cpus(void)
{
	struct fixture f;
	struct gr_packet_header *ph;

	fixture_open(&f, 4, true, 4096, 4);
	CU_ASSERT_EQUAL(f.log.nr_calls, 1);
	gr_user_set_cpu(2);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 2), 0);
	gr_user_set_cpu(3);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 3), 0);
	gr_user_set_cpu(0);
	CU_ASSERT_EQUAL(write_msg(f.chan, 16, 0), 0);
	CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 1);
	ph = f_hdr(&f, 0, 0);
	CU_ASSERT_EQUAL(le32toh(ph->cpu_id), 0);
	CU_ASSERT_EQUAL(le64toh(ph->stream_instance_id), 0);
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR, 16, 2));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR + 16, 16, 3));
	CU_ASSERT(check_pattern(f_subbuf(&f, 0, 0) + HDR + 32, 16, 0));
	fixture_close(&f);
}

static void test_nesting_guard_drops_and_counts(void)
{
	struct fixture f;
	struct gr_buf *buf;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		bool global = mode == 1;

		fixture_open(&f, 2, global, 4096, 4);
		gr_user_set_cpu(0);
		buf = gr_buf_enter(f.chan);
		CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
		/* an interrupt or NMI on CPU 0 writing meanwhile */
		CU_ASSERT_EQUAL(write_msg(f.chan, 8, 1), -EBUSY);
		CU_ASSERT_EQUAL(gr_event_write(f.chan, EV_TEST, "ab", 2),
				-EBUSY);
		CU_ASSERT_PTR_NULL(gr_buf_enter(f.chan));
		/* a flush is refused too, but it is not a lost event */
		CU_ASSERT_EQUAL(gr_chan_flush_this_cpu(f.chan), -EBUSY);
		CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_nested), 3);
		if (!global) {
			/* CPU 1 has its own guard and ring */
			gr_user_set_cpu(1);
			CU_ASSERT_EQUAL(write_msg(f.chan, 8, 2), 0);
			gr_user_set_cpu(0);
		}
		gr_buf_exit(buf);
		CU_ASSERT_EQUAL(write_msg(f.chan, 8, 3), 0);
		gr_chan_publish_events(f.chan);
		CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 1);
		gr_chan_flush(f.chan);
		CU_ASSERT_EQUAL(le64toh(f_hdr(&f, 0, 0)->events_discarded), 3);
		gr_chan_reset(f.chan);
		CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_nested), 0);
		fixture_close(&f);
	}
}

/* ---------------------------------------------------------------------- */
/* The host, in a thread                                                  */

#define MAX_TEST_RINGS		4
#define MAX_WRITERS		4

struct host {
	u8 *base;
	const struct gr_layout *lay;
	bool global;
	u32 nr_writers;
	int done;
	int efd;		/* sleep on doorbells when >= 0 */
	u32 batch_delay_us;	/* after a doorbell, before draining */
	u64 consumed[MAX_TEST_RINGS];
	u64 next_seq[MAX_WRITERS];
	u64 received[MAX_WRITERS];
	u64 packets;
	u64 bad_counters;
	u64 bad_packets;
	u64 bad_records;
	u64 order_errors;
	u64 rearms;
	u64 wakeups;
};

/* The host's checks of a produced sub-buffer, as the trust rules say. */
static void host_consume_packet(struct host *h, u32 ring, u64 k)
{
	const struct gr_layout *lay = h->lay;
	u32 slot = (u32)(k % lay->n_subbufs);
	struct gr_subbuf_rec *rec = h_rec(h->base, lay, ring, slot);
	u8 *sb = h_subbuf(h->base, lay, ring, slot);
	struct gr_packet_header ph;
	u32 bytes, off;

	if (h_seq(rec) != k) {
		h->bad_packets++;
		return;
	}
	bytes = le32toh(__atomic_load_n(&rec->bytes, __ATOMIC_RELAXED));
	memcpy(&ph, sb, sizeof(ph));
	if (le32toh(ph.magic) != GR_CTF_MAGIC || ph.stream_id ||
	    le64toh(ph.stream_instance_id) != ring ||
	    le32toh(ph.cpu_id) != (h->global ? 0 : ring) ||
	    le64toh(ph.packet_size) != (u64)lay->subbuf_size * 8 ||
	    le64toh(ph.content_size) != (u64)bytes * 8 ||
	    bytes < HDR || bytes > lay->subbuf_size ||
	    le64toh(ph.packet_seq_num) != k ||
	    le64toh(ph.timestamp_begin) > le64toh(ph.timestamp_end)) {
		h->bad_packets++;
		return;
	}
	h->packets++;
	for (off = HDR; off < bytes; ) {
		struct gr_event_header eh;
		struct test_payload p;
		u32 size, w;
		u64 seq;

		memcpy(&eh, sb + off, sizeof(eh));
		size = le16toh(eh.size);
		if (size != 32 || off + size > bytes ||
		    le16toh(eh.id) != EV_TEST) {
			h->bad_records++;
			return;
		}
		memcpy(&p, sb + off + sizeof(eh), sizeof(p));
		w = le32toh(p.writer);
		seq = le64toh(p.seq);
		if (w >= h->nr_writers) {
			h->bad_records++;
			return;
		}
		if (seq < h->next_seq[w])
			h->order_errors++;
		h->next_seq[w] = seq + 1;
		h->received[w]++;
		off += size;
	}
}

static u32 host_drain(struct host *h)
{
	u32 ring, got = 0;

	for (ring = 0; ring < h->lay->nr_rings; ring++) {
		struct gr_ring *rg = h_ring(h->base, h->lay, ring);
		u64 produced = h_produced(rg);

		if (produced - h->consumed[ring] > h->lay->n_subbufs) {
			h->bad_counters++;
			continue;
		}
		while (h->consumed[ring] != produced) {
			host_consume_packet(h, ring, h->consumed[ring]);
			h->consumed[ring]++;
			h_set_consumed(rg, h->consumed[ring]);
			got++;
		}
	}
	return got;
}

static bool host_all_drained(struct host *h)
{
	u32 ring;

	for (ring = 0; ring < h->lay->nr_rings; ring++)
		if (h_produced(h_ring(h->base, h->lay, ring)) !=
		    h->consumed[ring])
			return false;
	return true;
}

/* Before sleeping: ask for a doorbell at the next sub-buffer, re-check. */
static bool host_arm_and_recheck(struct host *h)
{
	struct gr_ring *rg = h_ring(h->base, h->lay, 0);

	h_set_prod_event(rg, h->consumed[0]);
	h->rearms++;
	/* pairs with the guest's smp_mb() in gr_buf_need_doorbell() */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return h_produced(rg) != h->consumed[0];
}

static void *host_thread(void *arg)
{
	struct host *h = arg;

	for (;;) {
		int done = __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
		u32 got = host_drain(h);

		if (done && !got && host_all_drained(h))
			break;
		if (got)
			continue;
		if (h->efd >= 0) {
			struct pollfd pfd = { .fd = h->efd, .events = POLLIN };
			u64 v;

			if (host_arm_and_recheck(h))
				continue;
			if (poll(&pfd, 1, 10) == 1 &&
			    read(h->efd, &v, sizeof(v)) == sizeof(v)) {
				h->wakeups++;
				usleep(h->batch_delay_us);
			}
		} else {
			sched_yield();
		}
	}
	return NULL;
}

struct writer {
	struct gr_chan *chan;
	u32 cpu;
	u32 id;
	u64 n;			/* events to record */
	u32 flush_every;	/* flush after every so many, 0 = never */
	bool retry_full;	/* on -ENOSPC, yield and record it again */
	u64 attempts;
	u64 ok;
	u64 lost;
	u64 other;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	u64 seq;

	gr_user_set_cpu(w->cpu);
	for (seq = 0; seq < w->n; seq++) {
		struct test_payload p = {
			.writer = htole32(w->id), .seq = htole64(seq),
		};
		int ret;

		for (;;) {
			ret = gr_event_write(w->chan, EV_TEST, &p, sizeof(p));
			w->attempts++;
			if (ret != -ENOSPC || !w->retry_full)
				break;
			w->lost++;
			sched_yield();
		}
		if (!ret)
			w->ok++;
		else if (ret == -ENOSPC)
			w->lost++;
		else
			w->other++;
		if (w->flush_every && seq % w->flush_every == 0 &&
		    gr_chan_flush_this_cpu(w->chan))
			w->other++;
	}
	if (gr_chan_flush_this_cpu(w->chan))
		w->other++;
	return NULL;
}

/* Run writers on their CPUs against the host thread; check accounting. */
static void run_writers_and_host(struct fixture *f, struct host *h,
				 struct writer *w, u32 nr_writers)
{
	pthread_t ht, wt[MAX_WRITERS];
	u64 lost_full = 0, received = 0, ok = 0, attempts = 0;
	u32 i;

	h->base = f->region.base;
	h->lay = &f->lay;
	h->global = f->lay.flags & GR_HDR_GLOBAL;
	h->nr_writers = nr_writers;
	CU_ASSERT_FATAL(pthread_create(&ht, NULL, host_thread, h) == 0);
	for (i = 0; i < nr_writers; i++)
		CU_ASSERT_FATAL(pthread_create(&wt[i], NULL, writer_thread,
					       &w[i]) == 0);
	for (i = 0; i < nr_writers; i++)
		pthread_join(wt[i], NULL);
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	pthread_join(ht, NULL);

	for (i = 0; i < f->lay.nr_rings; i++) {
		lost_full += h_load(&f_ring(f, i)->prod.lost_full);
		CU_ASSERT_EQUAL(h_load(&f_ring(f, i)->prod.lost_nested), 0);
		CU_ASSERT_EQUAL(h_load(&f_ring(f, i)->prod.lost_too_big), 0);
	}
	for (i = 0; i < nr_writers; i++) {
		CU_ASSERT_EQUAL(w[i].other, 0);
		CU_ASSERT_EQUAL(w[i].ok, h->received[i]);
		CU_ASSERT_EQUAL(w[i].attempts, w[i].ok + w[i].lost);
		attempts += w[i].attempts;
		ok += w[i].ok;
		received += h->received[i];
	}
	CU_ASSERT_EQUAL(attempts, received + lost_full);
	CU_ASSERT_EQUAL(ok, received);
	CU_ASSERT_EQUAL(h->bad_counters, 0);
	CU_ASSERT_EQUAL(h->bad_packets, 0);
	CU_ASSERT_EQUAL(h->bad_records, 0);
	CU_ASSERT_EQUAL(h->order_errors, 0);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f->chan), 0);
	printf("\n    %llu events, %llu received, %llu lost (full), %llu packets ",
	       (unsigned long long)attempts, (unsigned long long)received,
	       (unsigned long long)lost_full, (unsigned long long)h->packets);
}

/*
 * @n writers as @proto, writer i recording event i on CPU i of @f's
 * channel, and a host consuming without a doorbell: run them all
 */
static void run_writers_like(struct fixture *f, struct host *h,
			     struct writer *w, u32 n, struct writer proto)
{
	u32 i;

	memset(h, 0, sizeof(*h));
	h->efd = -1;
	for (i = 0; i < n; i++) {
		w[i] = proto;
		w[i].chan = f->chan;
		w[i].cpu = i;
		w[i].id = i;
	}
	run_writers_and_host(f, h, w, n);
}

static void test_concurrent_per_cpu_writers_with_consumer(void)
{
	static struct host h;
	struct writer w[2];
	struct fixture f;

	fixture_open(&f, 2, false, 4096, 4);
	run_writers_like(&f, &h, w, 2, (struct writer){ .n = 200000 });
	CU_ASSERT(h.received[0] > 0 && h.received[1] > 0);
	fixture_close(&f);
}

static void test_concurrent_global_writers_with_consumer(void)
{
	static struct host h;
	struct writer w[3];
	struct fixture f;

	fixture_open(&f, 3, true, 4096, 8);
	run_writers_like(&f, &h, w, 3, (struct writer){ .n = 100000 });
	fixture_close(&f);
}

static void test_commit_record_visible_before_produced(void)
{
	static struct host h;
	struct writer w[2];
	struct fixture f;
	u32 i;

	/*
	 * Many tiny packets, and writers that wait for room: every move of
	 * produced is checked by the host while the next packet is written.
	 */
	fixture_open(&f, 2, false, 4096, 2);
	run_writers_like(&f, &h, w, 2,
			 (struct writer){ .n = 30000, .flush_every = 3,
					  .retry_full = true });
	CU_ASSERT_EQUAL(h.received[0], 30000);
	CU_ASSERT_EQUAL(h.received[1], 30000);
	CU_ASSERT(h.packets >= 20000);
	/* state after the run: the last finished record carries its number */
	for (i = 0; i < 2; i++) {
		u64 produced = h_produced(f_ring(&f, i));

		CU_ASSERT_EQUAL(h_seq(f_rec(&f, i, (produced - 1) % 2)),
				produced - 1);
	}
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* A hostile host                                                         */

static u64 xorshift64(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_hostile_consumed_is_ignored_and_counted(void)
{
	struct fixture f;
	struct gr_buf *buf;
	struct gr_ring *rg;
	u64 errors;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	buf = &f.chan->bufs[0];
	rg = f_ring(&f, 0);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 1);

	/* ahead of produced */
	h_set_consumed(rg, 2);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	CU_ASSERT_EQUAL(buf->consumed, 0);
	/* wrapped: "minus one" */
	h_set_consumed(rg, UINT64_MAX);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan), 2);
	/* valid */
	h_set_consumed(rg, 1);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), 0);
	CU_ASSERT_EQUAL(buf->consumed, 1);
	/* behind the mirror, and far behind */
	h_set_consumed(rg, 0);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	h_set_consumed(rg, 1 - 1000000);
	CU_ASSERT_EQUAL(gr_subbufs_consumed(f.chan, 0), -EINVAL);
	CU_ASSERT_EQUAL(buf->consumed, 1);
	CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan), 4);

	/* stuck on garbage: every switch attempt reads it once, rejects it */
	h_set_consumed(rg, 1ULL << 63);
	errors = gr_chan_consumed_errors(f.chan);
	for (i = 0; i < 100; i++)
		write_msg(f.chan, 1000, i);
	CU_ASSERT(gr_chan_consumed_errors(f.chan) > errors);
	CU_ASSERT_EQUAL(h_produced(rg), 5);
	CU_ASSERT(h_load(&rg->prod.lost_full) > 0);
	CU_ASSERT_EQUAL(buf->consumed, 1);
	CU_ASSERT(region_guards_intact(&f.region));
	fixture_close(&f);
}

static void test_hostile_consumed_random_never_corrupts(void)
{
	struct fixture f;
	struct gr_buf *buf;
	struct gr_ring *rg;
	u64 s = 0x9e3779b97f4a7c15ULL;
	u64 i, errors, invalid = 0;
	bool valid;
	int ret;

	fixture_open(&f, 2, false, 4096, 3);
	gr_user_set_cpu(1);
	buf = &f.chan->bufs[1];
	rg = f_ring(&f, 1);
	for (i = 0; i < 200000; i++) {
		u64 r = xorshift64(&s);
		u64 c;

		switch (r % 16) {
		case 0: case 1:
			c = xorshift64(&s);
			break;
		case 2:
			c = buf->published + 1 + xorshift64(&s) % 8;
			break;
		case 3:
			c = buf->consumed - 1 - xorshift64(&s) % 8;
			break;
		case 4: case 5:
			c = buf->consumed + xorshift64(&s) %
				(buf->published - buf->consumed + 1);
			break;
		case 6:
			gr_chan_flush(f.chan);
			continue;
		case 7:
			if (r % 1024 == 7)
				gr_chan_reset(f.chan);
			else
				gr_chan_set_mode(f.chan, (r >> 8) & 1);
			continue;
		default:
			ret = write_msg(f.chan, 1 + (r >> 16) % 4200,
					(u32)i);
			CU_ASSERT(ret == 0 || ret == -ENOSPC || ret == -E2BIG);
			CU_ASSERT(buf->offset <= 4096 + 1);
			continue;
		}
		valid = buf->published - c <= buf->published - buf->consumed;
		h_set_consumed(rg, c);
		errors = gr_chan_consumed_errors(f.chan);
		ret = gr_subbufs_consumed(f.chan, 1);
		if (!valid) {
			CU_ASSERT_EQUAL(ret, -EINVAL);
			CU_ASSERT_EQUAL(gr_chan_consumed_errors(f.chan),
					errors + 1);
			invalid++;
		} else {
			CU_ASSERT_EQUAL(ret, 0);
			CU_ASSERT_EQUAL(buf->consumed, c);
		}
		CU_ASSERT_EQUAL(buf->published, buf->produced);
	}
	CU_ASSERT(invalid > 10000);
	CU_ASSERT(region_guards_intact(&f.region));
	/* ring 0 was never touched by any of it */
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 0);
	CU_ASSERT_EQUAL(h_seq(f_rec(&f, 0, 0)), GR_SEQ_BUSY);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */
/* Doorbells                                                              */

static void test_doorbell_per_subbuf_without_event_idx(void)
{
	struct fixture f;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	gr_chan_set_mode(f.chan, GR_MODE_FLIGHT);
	/* events alone never ring */
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(f.log.doorbells, 0);
	for (i = 0; i < 40; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(f_ring(&f, 0)), 10);
	CU_ASSERT_EQUAL(f.log.doorbells, 10);
	CU_ASSERT_EQUAL(f.chan->bufs[0].doorbells, 10);
	fixture_close(&f);
}

static void test_doorbell_with_event_idx_follows_prod_event(void)
{
	struct fixture f;
	struct gr_ring *rg;
	int i;

	fixture_open(&f, 1, false, 4096, 4);
	rg = f_ring(&f, 0);
	gr_chan_set_mode(f.chan, GR_MODE_FLIGHT);
	gr_chan_set_event_idx(f.chan, true);
	/* prod_event 0: wake the host when sub-buffer 0 is produced, once */
	for (i = 0; i < 4 * 20 + 1; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 20);
	CU_ASSERT_EQUAL(f.log.doorbells, 1);
	/* the host sleeps, asking for the next one: exactly one more */
	h_set_prod_event(rg, 20);
	for (i = 0; i < 4 * 10; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 30);
	CU_ASSERT_EQUAL(f.log.doorbells, 2);
	/* far ahead, or behind (garbage): silence */
	h_set_prod_event(rg, 1000);
	for (i = 0; i < 4 * 10; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	h_set_prod_event(rg, 35);
	for (i = 0; i < 4 * 10; i++)
		CU_ASSERT_EQUAL(write_msg(f.chan, 1000, i), 0);
	CU_ASSERT_EQUAL(h_produced(rg), 50);
	CU_ASSERT_EQUAL(f.log.doorbells, 2);
	/* a flush that produces also asks */
	h_set_prod_event(rg, 50);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(h_produced(rg), 51);
	CU_ASSERT_EQUAL(f.log.doorbells, 3);
	CU_ASSERT_EQUAL(f.chan->bufs[0].doorbells, 3);
	/* event index negotiated away again: every sub-buffer rings */
	gr_chan_set_event_idx(f.chan, false);
	CU_ASSERT_EQUAL(write_msg(f.chan, 8, 0), 0);
	gr_chan_flush(f.chan);
	CU_ASSERT_EQUAL(f.log.doorbells, 4);
	fixture_close(&f);
}

static void test_doorbell_with_event_idx_rare_under_load(void)
{
	static struct host h;
	struct writer w;
	struct fixture f;
	u64 produced;

	fixture_open(&f, 1, false, 4096, 64);
	gr_chan_set_event_idx(f.chan, true);
	f.log.efd = eventfd(0, EFD_NONBLOCK);
	CU_ASSERT_FATAL(f.log.efd >= 0);
	memset(&h, 0, sizeof(h));
	h.efd = f.log.efd;
	h.batch_delay_us = 500;
	w = (struct writer){ .chan = f.chan, .cpu = 0, .id = 0,
			     .n = 300000 };
	run_writers_and_host(&f, &h, &w, 1);
	produced = h_produced(f_ring(&f, 0));
	printf("\n    %llu sub-buffers, %llu doorbells, %llu host sleeps ",
	       (unsigned long long)produced,
	       (unsigned long long)f.log.doorbells,
	       (unsigned long long)h.rearms);
	/* one doorbell per sleep of the host at most, far fewer than packets */
	CU_ASSERT(f.log.doorbells <= h.rearms + 1);
	CU_ASSERT(f.log.doorbells * 2 < produced);
	CU_ASSERT_EQUAL(f.log.doorbells, f.chan->bufs[0].doorbells);
	close(f.log.efd);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */

#define TEST(fn) GR_TEST(fn)

static const struct gr_test tests[] = {
	TEST(test_layout_default_fits_largest_n),
	TEST(test_layout_halves_subbuf_size_until_two_fit),
	TEST(test_layout_enospc_when_two_subbufs_cannot_fit),
	TEST(test_layout_global_buffer_has_one_ring),
	TEST(test_layout_host_wish_honoured),
	TEST(test_layout_host_wish_rejected),
	TEST(test_layout_rejects_impossible_input),
	TEST(test_layout_written_to_header),
	TEST(test_open_rejects_inconsistent_layout),
	TEST(test_open_calls_subbuf_start_with_null_prev),
	TEST(test_open_continues_counters_from_consumed),
	TEST(test_message_exactly_filling_subbuf),
	TEST(test_message_larger_than_subbuf_is_rejected),
	TEST(test_padding_passed_to_subbuf_start_and_content_size),
	TEST(test_stream_full_drops_counts_and_resumes_after_consumed),
	TEST(test_flight_overwrites_oldest_and_counts),
	TEST(test_flush_delivers_partly_filled_subbuf),
	TEST(test_flush_of_empty_subbuf_delivers_nothing),
	TEST(test_flush_this_cpu_flushes_only_its_ring),
	TEST(test_reset_discards_current_and_zeroes_lost_counters),
	TEST(test_reset_of_waiting_ring_retries_switch),
	TEST(test_close_flushes_marks_offline_and_unmaps),
	TEST(test_buffer_only_channel_late_setup_keeps_data),
	TEST(test_buffer_only_channel_closed_without_setup),
	TEST(test_event_record_header_fields),
	TEST(test_switch_shares_write_timestamp),
	TEST(test_probe_writes_record_in_place),
	TEST(test_record_api_over_active_channel),
	TEST(test_record_api_filter_takes_back),
	TEST(test_record_api_follow_takes_back),
	TEST(test_panic_flush_skips_only_rings_mid_write),
	TEST(test_reserve_and_preempt_only_write),
	TEST(test_global_channel_one_ring_for_all_cpus),
	TEST(test_nesting_guard_drops_and_counts),
	TEST(test_concurrent_per_cpu_writers_with_consumer),
	TEST(test_concurrent_global_writers_with_consumer),
	TEST(test_commit_record_visible_before_produced),
	TEST(test_hostile_consumed_is_ignored_and_counted),
	TEST(test_hostile_consumed_random_never_corrupts),
	TEST(test_doorbell_per_subbuf_without_event_idx),
	TEST(test_doorbell_with_event_idx_follows_prod_event),
	TEST(test_doorbell_with_event_idx_rare_under_load),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay", tests, GR_ARRAY_SIZE(tests), NULL, NULL);
}
