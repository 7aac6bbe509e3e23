// SPDX-License-Identifier: GPL-2.0
/*
 * relay_fixture.c - the shared fixture of the relay core's unit tests
 * (see relay_fixture.h)
 */
#include <sys/mman.h>

#include "relay_fixture.h"

/* ---------------------------------------------------------------------- */
/* The region and the host's view of it                                   */

void region_open(struct test_region *r, u64 size)
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

bool region_guards_intact(const struct test_region *r)
{
	size_t i;

	for (i = 0; i < GUARD_SIZE; i++)
		if (r->map[i] != GUARD_BYTE ||
		    r->base[r->size + i] != GUARD_BYTE)
			return false;
	return true;
}

void region_close(struct test_region *r)
{
	CU_ASSERT(region_guards_intact(r));
	munmap(r->map, r->map_size);
}

struct gr_ring *h_ring(u8 *base, const struct gr_layout *lay, u32 ring)
{
	return (struct gr_ring *)(base + gr_ring_off(lay->ring_offset, ring));
}

struct gr_subbuf_rec *h_rec(u8 *base, const struct gr_layout *lay,
			    u32 ring, u32 slot)
{
	return (struct gr_subbuf_rec *)(base +
		gr_subbuf_rec_off(lay->subbuf_rec_offset, lay->n_subbufs,
				  ring, slot));
}

u8 *h_subbuf(u8 *base, const struct gr_layout *lay, u32 ring, u32 slot)
{
	return base + gr_subbuf_off(lay->data_offset, lay->n_subbufs,
				    lay->subbuf_size, ring, slot);
}

struct gr_packet_header *h_hdr(u8 *base, const struct gr_layout *lay,
			       u32 ring, u32 slot)
{
	return (struct gr_packet_header *)h_subbuf(base, lay, ring, slot);
}

u64 h_load(const __le64 *field)
{
	return le64toh(__atomic_load_n(field, __ATOMIC_RELAXED));
}

u64 h_produced(struct gr_ring *ring)
{
	return le64toh(__atomic_load_n(&ring->prod.produced,
				       __ATOMIC_ACQUIRE));
}

u64 h_seq(struct gr_subbuf_rec *rec)
{
	return le64toh(__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE));
}

void h_set_consumed(struct gr_ring *ring, u64 consumed)
{
	__atomic_store_n(&ring->cons.consumed, htole64(consumed),
			 __ATOMIC_RELEASE);
}

void h_set_prod_event(struct gr_ring *ring, u64 event)
{
	__atomic_store_n(&ring->cons.prod_event, htole64(event),
			 __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------------- */
/* Callbacks that record what the core asked                              */

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

const struct gr_callbacks log_callbacks = {
	.subbuf_start = log_subbuf_start,
	.doorbell = log_doorbell,
};

const struct gr_client_callbacks log_client_callbacks = {
	.buf_mapped = log_mapped,
	.buf_unmapped = log_unmapped,
};

struct sb_call *last_call(struct cb_log *log)
{
	CU_ASSERT_FATAL(log->nr_calls > 0 && log->nr_calls <= MAX_CALLS);
	return &log->calls[log->nr_calls - 1];
}

/* ---------------------------------------------------------------------- */
/* Fixture: a region, a layout, a channel                                 */

void make_layout(struct gr_layout *lay, u32 nr_cpus, bool global,
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
void fixture_prepare(struct fixture *f, u32 nr_cpus, bool global,
		     u32 subbuf_size, u32 n_subbufs)
{
	memset(f, 0, sizeof(*f));
	f->log.efd = -1;
	region_open(&f->region, REGION_SIZE);
	make_layout(&f->lay, nr_cpus, global, subbuf_size, n_subbufs);
	gr_user_set_cpu(0);
}

void fixture_open_chan(struct fixture *f)
{
	CU_ASSERT_FATAL(gr_chan_open(&f->chan, f->region.base, &f->lay,
				     &log_callbacks, &f->log) == 0);
}

void fixture_open(struct fixture *f, u32 nr_cpus, bool global,
		  u32 subbuf_size, u32 n_subbufs)
{
	fixture_prepare(f, nr_cpus, global, subbuf_size, n_subbufs);
	fixture_open_chan(f);
}

void fixture_close(struct fixture *f)
{
	gr_chan_close(f->chan);
	f->chan = NULL;
	region_close(&f->region);
}

struct gr_ring *f_ring(struct fixture *f, u32 ring)
{
	return h_ring(f->region.base, &f->lay, ring);
}

struct gr_subbuf_rec *f_rec(struct fixture *f, u32 ring, u32 slot)
{
	return h_rec(f->region.base, &f->lay, ring, slot);
}

u8 *f_subbuf(struct fixture *f, u32 ring, u32 slot)
{
	return h_subbuf(f->region.base, &f->lay, ring, slot);
}

struct gr_packet_header *f_hdr(struct fixture *f, u32 ring, u32 slot)
{
	return h_hdr(f->region.base, &f->lay, ring, slot);
}

/*
 * The state of @slot of @ring as the host sees it (spec 6.2): PRODUCED
 * if it holds packet k in [consumed, produced) with rec.seq = k,
 * BEING_WRITTEN if it is produced's slot (or a restarted one) and its
 * rec.seq is GR_SEQ_BUSY, else FREE.
 */
enum gr_subbuf_state f_state(struct fixture *f, u32 ring, u32 slot)
{
	struct gr_ring *r = f_ring(f, ring);
	u32 n = f->lay.n_subbufs;
	u64 p = h_produced(r);
	u64 c = h_load(&r->cons.consumed);
	u64 seq = h_seq(f_rec(f, ring, slot));
	u64 k;

	for (k = c; k != p; k++)
		if (gr_subbuf_slot(k, n) == slot)
			return seq == k ? GR_SUBBUF_PRODUCED :
					  GR_SUBBUF_BEING_WRITTEN;
	if (gr_subbuf_slot(p, n) == slot && seq == GR_SEQ_BUSY && p - c < n)
		return GR_SUBBUF_BEING_WRITTEN;
	return GR_SUBBUF_FREE;
}

void fill_pattern(u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 31 + i);
}

bool check_pattern(const u8 *p, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (u8)(seed * 31 + i))
			return false;
	return true;
}

int write_msg(struct gr_chan *chan, size_t len, u32 seed)
{
	static u8 msg[70000];

	fill_pattern(msg, len, seed);
	return gr_chan_write(chan, msg, len);
}

