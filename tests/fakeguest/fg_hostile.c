// SPDX-License-Identifier: GPL-2.0
/*
 * fg_hostile.c - the fake guest turns hostile, for the agent's robustness
 * tests (spec 11.2: what a hostile guest can and cannot do)
 *
 * Every mode first runs as a valid guest for --hostile-delay ms, so the
 * agent attaches, then does damage every --hostile-period ms (or without
 * pause for race and flood). The writers keep writing valid records all
 * along; the relay core never reads what the damage changes (it keeps
 * private copies, G26), so the fake guest itself is not disturbed.
 *
 *   magic     re-publications with a wrong magic, abi_major 2 and 0,
 *             hdr_size 4096, then a valid one; each a new instance_id
 *   geometry  re-publications with a sub-buffer size that is not a power
 *             of two or 1 GiB, n_subbufs 0 or 2^31 - 1, 100000 rings,
 *             data past the region or wrapping around 2^64, rings over
 *             the descriptors, records over the data, a wrong region
 *             size, 100000 descriptors, max_event_size > sub-buffer,
 *             desc_stride 8, packet_header_size 0; then a valid one
 *   strings   re-publications with an unterminated kernel_release, a
 *             nodename full of TSDL syntax, clock names that are a
 *             keyword, unterminated or TSDL syntax, event and field names
 *             unterminated, with TSDL syntax, with the host's _gr_ prefix,
 *             an empty system,
 *             a duplicate field; then a valid one
 *   counters  prod.produced of every ring stored far ahead (+10^12),
 *             backwards (-5), at 2^63 and at 2^64 - 1; lost counters and
 *             cons_event garbage (the core restores produced at its next
 *             commit)
 *   packets   every second finished packet gets a garbage header before
 *             its commit: bad magic, packet_size smaller than
 *             content_size, wrong packet_seq_num, timestamp_begin before
 *             the previous packet's end, timestamp_begin after
 *             timestamp_end, wrong cpu_id, stream_id, stream_instance_id
 *   race      a thread keeps rewriting headers and commit records of
 *             produced, unconsumed packets (and restoring them) while the
 *             host reads them
 *   flood     a doorbell storm on both of the host's eventfds
 *   random    random bytes over the whole region (keeping a valid magic;
 *             or under a valid re-published header; or everything)
 *   records   every second finished packet keeps a valid header but one
 *             record is damaged: an unknown id, a size that breaks the
 *             chain, a timestamp after the packet's end (what only the
 *             host's verify mode catches, spec H24)
 *   lastrec   every second committed, unconsumed packet gets a false
 *             rec.last_record (spec 3.8, G40), in turn: 8 bytes before
 *             its content's end, misaligned, at the end, far past the
 *             sub-buffer, the first record's offset; its bytes are valid
 *             (the host must refuse the value, H31, and walk)
 */
#include <sched.h>

#include "fakeguest.h"

static const char *const fg_hostile_names[] = {
	[FG_HOSTILE_NONE] = "none",
	[FG_HOSTILE_MAGIC] = "magic",
	[FG_HOSTILE_GEOMETRY] = "geometry",
	[FG_HOSTILE_STRINGS] = "strings",
	[FG_HOSTILE_COUNTERS] = "counters",
	[FG_HOSTILE_PACKETS] = "packets",
	[FG_HOSTILE_RACE] = "race",
	[FG_HOSTILE_FLOOD] = "flood",
	[FG_HOSTILE_RANDOM] = "random",
	[FG_HOSTILE_RECORDS] = "records",
	[FG_HOSTILE_LASTREC] = "lastrec",
};

/**
 * fg_hostile_parse() - a --hostile argument
 * @s: the argument
 * @kind: receives the mode
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int fg_hostile_parse(const char *s, enum fg_hostile *kind)
{
	int i = fg_name_index(s, fg_hostile_names,
			      ARRAY_SIZE(fg_hostile_names));

	if (i <= FG_HOSTILE_NONE)
		return -EINVAL;
	*kind = (enum fg_hostile)i;
	return 0;
}

/**
 * fg_hostile_name() - the name of a hostile mode
 * @kind: the mode
 *
 * Return: a static string.
 */
const char *fg_hostile_name(enum fg_hostile kind)
{
	return fg_hostile_names[kind];
}

/**
 * fg_rand() - xorshift64* pseudo-random numbers
 * @state: the generator, never 0
 *
 * Return: the next number.
 */
u64 fg_rand(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Sleep @ns unless told to stop. Return: false once stopped. */
static bool fg_hostile_sleep(struct fakeguest *fg, u64 ns)
{
	u64 deadline = fg_now_ns() + ns, now;
	u32 wake;

	for (;;) {
		wake = __atomic_load_n(&fg->hostile_wake, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&fg->hostile_stop, __ATOMIC_ACQUIRE))
			return false;
		now = fg_now_ns();
		if (now >= deadline)
			return true;
		fg_futex_wait(&fg->hostile_wake, wake, deadline - now);
	}
}

static bool fg_hostile_stopped(struct fakeguest *fg)
{
	return __atomic_load_n(&fg->hostile_stop, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------------- */
/* Re-publications with a damaged header or descriptors                   */

struct fg_pub {
	struct gr_region_hdr h;
	u8 *descs;
	u64 magic;
};

static struct gr_event_desc *fg_pub_desc(struct fakeguest *fg,
					 struct fg_pub *p, unsigned int i)
{
	if (i >= fg->lay.desc_count)
		i = 0;
	return (struct gr_event_desc *)(p->descs +
					(size_t)i * fg->lay.desc_stride);
}

static void fg_set_text(char *dst, size_t size, const char *text)
{
	memset(dst, 0, size);
	memcpy(dst, text, strnlen(text, size));
}

static void fg_mut_magic(struct fakeguest *fg, struct fg_pub *p,
			 unsigned int step)
{
	(void)fg;
	switch (step % 5) {
	case 0:
		p->magic = 0x434947414d444142ULL;	/* "BADMAGIC" */
		break;
	case 1:
		p->h.abi_major = cpu_to_le16(2);
		break;
	case 2:
		p->h.abi_major = cpu_to_le16(0);
		break;
	case 3:
		p->h.hdr_size = cpu_to_le32(4096);
		break;
	default:
		break;				/* a valid one: recovery */
	}
}

static void fg_mut_geometry(struct fakeguest *fg, struct fg_pub *p,
			    unsigned int step)
{
	struct gr_region_hdr *h = &p->h;
	u64 r = fg->region_size;

	switch (step % 15) {
	case 0:
		h->subbuf_size = cpu_to_le32(3000);
		break;
	case 1:
		h->subbuf_size = cpu_to_le32(1U << 30);
		break;
	case 2:
		h->n_subbufs = cpu_to_le32(0);
		break;
	case 3:
		h->n_subbufs = cpu_to_le32(0x7fffffff);
		break;
	case 4:
		h->nr_rings = cpu_to_le32(100000);
		h->nr_cpus = cpu_to_le32(100000);
		break;
	case 5:
		h->data_offset = cpu_to_le64(r + GR_PAGE_SIZE);
		break;
	case 6:
		h->data_offset = cpu_to_le64(0ULL - GR_PAGE_SIZE);
		break;
	case 7:
		h->ring_offset = h->desc_offset;
		break;
	case 8:
		h->subbuf_rec_offset = h->data_offset;
		break;
	case 9:
		h->region_size = cpu_to_le64(2 * r);
		break;
	case 10:
		h->desc_count = cpu_to_le32(100000);
		break;
	case 11:
		h->max_event_size = h->subbuf_size;
		break;
	case 12:
		h->desc_stride = cpu_to_le32(8);
		break;
	case 13:
		h->packet_header_size = cpu_to_le32(0);
		break;
	default:
		break;
	}
}

static void fg_mut_strings(struct fakeguest *fg, struct fg_pub *p,
			   unsigned int step)
{
	struct gr_region_hdr *h = &p->h;
	struct gr_event_desc *d0 = fg_pub_desc(fg, p, 0);
	struct gr_event_desc *d1 = fg_pub_desc(fg, p, 1);

	switch (step % 12) {
	case 0:
		memset(h->kernel_release, 'A', sizeof(h->kernel_release));
		break;
	case 1:
		/* Valid for the ABI; the host must escape it (spec 7.5) */
		fg_set_text(h->nodename, sizeof(h->nodename),
			    "evil\"; };\n\\env { hacked = 1; };\xff/*");
		break;
	case 2:
		fg_set_text(h->clock_name, sizeof(h->clock_name), "clock");
		break;
	case 3:
		memset(h->clock_name, 'a', sizeof(h->clock_name));
		break;
	case 4:
		fg_set_text(h->clock_name, sizeof(h->clock_name),
			    "mono\"; } evil {");
		break;
	case 5:
		memset(d0->name, 'x', sizeof(d0->name));
		break;
	case 6:
		fg_set_text(d1->name, sizeof(d1->name), "fake\"; }; event {");
		break;
	case 7:
		/* a keyword is a fine field name (spec 7.5); this is not */
		fg_set_text(d0->fields[0].name, sizeof(d0->fields[0].name),
			    "_gr_pad0");
		break;
	case 8:
		memset(d0->fields[1].name, 'y', sizeof(d0->fields[1].name));
		break;
	case 9:
		memset(d0->system, 0, sizeof(d0->system));
		break;
	case 10:
		memcpy(d0->fields[1].name, d0->fields[0].name,
		       sizeof(d0->fields[1].name));
		break;
	default:
		break;
	}
}

typedef void (*fg_mutate_t)(struct fakeguest *fg, struct fg_pub *p,
			    unsigned int step);

/*
 * Withdraw, then publish the valid image damaged by @mutate, under a new
 * instance_id, magic last (with release) as a real guest would.
 */
static void fg_republish(struct fakeguest *fg, fg_mutate_t mutate,
			 unsigned int step)
{
	size_t dlen = (size_t)fg->lay.desc_count * fg->lay.desc_stride;
	struct gr_region_hdr *hdr = gr_hdr(fg->region);
	struct fg_pub p;

	p.descs = malloc(dlen);
	if (!p.descs)
		return;
	gr_region_withdraw(fg->region);
	memcpy(&p.h, fg->image, sizeof(p.h));
	memcpy(p.descs, fg->image + fg->lay.desc_offset, dlen);
	p.magic = GR_REGION_MAGIC;
	fg->instance_id = fg_next_instance(fg->instance_id);
	p.h.instance_id = cpu_to_le64(fg->instance_id);
	mutate(fg, &p, step);
	memcpy(fg->region + fg->lay.desc_offset, p.descs, dlen);
	memcpy((u8 *)hdr + sizeof(hdr->magic), (u8 *)&p.h + sizeof(p.h.magic),
	       sizeof(p.h) - sizeof(p.h.magic));
	/* Pairs with the host's acquire load of magic */
	smp_store_release(&hdr->magic, cpu_to_le64(p.magic));
	free(p.descs);
}

/* ---------------------------------------------------------------------- */
/* Counters, race, flood, random                                          */

static struct gr_ring *fg_ring(struct fakeguest *fg, unsigned int r)
{
	return (struct gr_ring *)(fg->region + fg->lay.ring_offset +
				  (u64)r * sizeof(struct gr_ring));
}

static void fg_put(__le64 *field, u64 v)
{
	__atomic_store_n(field, cpu_to_le64(v), __ATOMIC_RELEASE);
}

static void fg_hostile_counters(struct fakeguest *fg, unsigned int step)
{
	struct gr_ring_prod *prod;
	unsigned int r;
	u64 real;

	for (r = 0; r < fg->lay.nr_rings; r++) {
		prod = &fg_ring(fg, r)->prod;
		real = le64_to_cpu(__atomic_load_n(&prod->produced,
						   __ATOMIC_RELAXED));
		switch (step % 6) {
		case 0:
			fg_put(&prod->produced, real + 1000000000000ULL);
			break;
		case 1:
			fg_put(&prod->produced, real - 5);
			break;
		case 2:
			fg_put(&prod->produced, 1ULL << 63);
			break;
		case 3:
			fg_put(&prod->produced, GR_SEQ_BUSY);
			break;
		case 4:
			fg_put(&prod->lost_full, ~0ULL);
			fg_put(&prod->events, 0);
			fg_put(&prod->overwritten, 1ULL << 62);
			break;
		default:
			fg_put(&prod->cons_event, real - 12345);
			__atomic_store_n(&prod->flags, cpu_to_le32(0xffffffff),
					 __ATOMIC_RELAXED);
			break;
		}
	}
}

/* A short busy wait: long enough for a reader to catch the damage */
static void fg_spin(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void fg_race_packet(struct gr_subbuf_rec *rec,
			   struct gr_packet_header *ph, u64 k, u64 *rng)
{
	u64 save64;
	u32 save32;

	switch (fg_rand(rng) % 6) {
	case 0:
		__atomic_store_n(&rec->seq, cpu_to_le64(GR_SEQ_BUSY),
				 __ATOMIC_RELAXED);
		fg_spin(2000);
		__atomic_store_n(&rec->seq, cpu_to_le64(k), __ATOMIC_RELEASE);
		break;
	case 1:
		save32 = __atomic_load_n(&ph->magic, __ATOMIC_RELAXED);
		__atomic_store_n(&ph->magic, save32 ^ 0xff, __ATOMIC_RELAXED);
		fg_spin(2000);
		__atomic_store_n(&ph->magic, save32, __ATOMIC_RELAXED);
		break;
	case 2:
		save64 = __atomic_load_n(&ph->content_size, __ATOMIC_RELAXED);
		__atomic_store_n(&ph->content_size,
				 cpu_to_le64(fg_rand(rng) & ~63ULL),
				 __ATOMIC_RELAXED);
		fg_spin(2000);
		__atomic_store_n(&ph->content_size, save64, __ATOMIC_RELAXED);
		break;
	case 3:
		save32 = __atomic_load_n(&rec->bytes, __ATOMIC_RELAXED);
		__atomic_store_n(&rec->bytes, (u32)fg_rand(rng),
				 __ATOMIC_RELAXED);
		fg_spin(2000);
		__atomic_store_n(&rec->bytes, save32, __ATOMIC_RELAXED);
		break;
	case 4:
		save64 = __atomic_load_n(&ph->packet_seq_num,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&ph->packet_seq_num,
				 cpu_to_le64(le64_to_cpu(save64) + 1),
				 __ATOMIC_RELAXED);
		fg_spin(2000);
		__atomic_store_n(&ph->packet_seq_num, save64,
				 __ATOMIC_RELAXED);
		break;
	default:
		save64 = __atomic_load_n(&ph->timestamp_begin,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&ph->timestamp_begin, ~0ULL,
				 __ATOMIC_RELAXED);
		fg_spin(2000);
		__atomic_store_n(&ph->timestamp_begin, save64,
				 __ATOMIC_RELAXED);
		break;
	}
}

/* Rewrite produced, unconsumed packets while the host reads them */
static void fg_hostile_race(struct fakeguest *fg, u64 *rng)
{
	u32 n = fg->lay.n_subbufs;
	struct gr_subbuf_rec *recs;
	struct gr_ring *ring;
	unsigned int r;
	u64 p, c, k;
	u32 slot;
	u8 *sb;

	while (!fg_hostile_stopped(fg)) {
		for (r = 0; r < fg->lay.nr_rings; r++) {
			ring = fg_ring(fg, r);
			p = le64_to_cpu(__atomic_load_n(&ring->prod.produced,
							__ATOMIC_ACQUIRE));
			c = le64_to_cpu(__atomic_load_n(&ring->cons.consumed,
							__ATOMIC_ACQUIRE));
			if (p == c || p - c > n)
				continue;
			recs = (struct gr_subbuf_rec *)(fg->region +
				fg->lay.subbuf_rec_offset +
				(u64)r * n * sizeof(*recs));
			for (k = c; k != p; k++) {
				slot = (u32)(k % n);
				sb = fg->region + fg->lay.data_offset +
				     ((u64)r * n + slot) * fg->lay.subbuf_size;
				fg_race_packet(&recs[slot], (void *)sb, k, rng);
				__atomic_fetch_add(&fg->hostile_steps, 1,
						   __ATOMIC_RELAXED);
			}
		}
		sched_yield();
	}
}

/* A false last_record for committed packet @k of @bytes content */
static u32 fg_lastrec_lie(u64 k, u32 bytes, u32 header)
{
	switch (k / 2 % 5) {
	case 0:
		return bytes - 8;
	case 1:
		return 4;
	case 2:
		return bytes;
	case 3:
		return 0x7ffffff8;
	default:
		return header;
	}
}

static void fg_hostile_lastrec(struct fakeguest *fg)
{
	u32 n = fg->lay.n_subbufs, bytes, lie;
	struct fg_ring_stats *rs;
	struct gr_subbuf_rec *rec;
	struct gr_ring *ring;
	unsigned int r;
	u64 p, c, k;

	while (!fg_hostile_stopped(fg)) {
		for (r = 0; r < fg->lay.nr_rings; r++) {
			ring = fg_ring(fg, r);
			rs = &fg->rings[r];
			p = le64_to_cpu(__atomic_load_n(&ring->prod.produced,
							__ATOMIC_ACQUIRE));
			c = le64_to_cpu(__atomic_load_n(&ring->cons.consumed,
							__ATOMIC_ACQUIRE));
			if (p - c > n)
				continue;
			for (k = c > rs->lie_next ? c : rs->lie_next; k < p;
			     k++) {
				if (!(k % 2))
					continue;
				rec = (struct gr_subbuf_rec *)(fg->region +
					fg->lay.subbuf_rec_offset) +
					(u64)r * n + k % n;
				bytes = le32_to_cpu(__atomic_load_n(&rec->bytes,
							__ATOMIC_RELAXED));
				lie = fg_lastrec_lie(k, bytes,
						     fg->lay.packet_header_size);
				__atomic_store_n(&rec->last_record,
						 cpu_to_le32(lie),
						 __ATOMIC_RELAXED);
				rs->lied++;
			}
			if (p > rs->lie_next)
				rs->lie_next = p;
		}
		__atomic_fetch_add(&fg->hostile_steps, 1, __ATOMIC_RELAXED);
		sched_yield();
	}
}

static void fg_hostile_flood(struct fakeguest *fg)
{
	unsigned int v, i = 0;
	int fd, rung;

	while (!fg_hostile_stopped(fg)) {
		rung = 0;
		for (v = 0; v < GR_NR_VECTORS; v++) {
			fd = __atomic_load_n(&fg->host_fd[v],
					     __ATOMIC_ACQUIRE);
			if (fd >= 0 && !ivsh_eventfd_signal(fd))
				rung++;
		}
		__atomic_fetch_add(&fg->hostile_steps, rung, __ATOMIC_RELAXED);
		if (!rung) {
			/* The host's peer is not known (yet): wait for it */
			if (!fg_hostile_sleep(fg, 10000000))
				return;
		} else if (!(++i % 256)) {
			sched_yield();
		}
	}
}

static void fg_fill_random(u8 *p, size_t len, u64 *rng)
{
	u64 v;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		v = fg_rand(rng);
		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = (u8)fg_rand(rng);
}

static void fg_mut_none(struct fakeguest *fg, struct fg_pub *p,
			unsigned int step)
{
	(void)fg;
	(void)p;
	(void)step;
}

static void fg_hostile_random(struct fakeguest *fg, unsigned int step,
			      u64 *rng)
{
	struct gr_region_hdr *hdr = gr_hdr(fg->region);

	switch (step % 3) {
	case 0:
		/* Garbage everywhere under a valid magic */
		fg_fill_random(fg->region, fg->region_size, rng);
		/* The garbage before the magic, as a publication would */
		smp_store_release(&hdr->magic, cpu_to_le64(GR_REGION_MAGIC));
		break;
	case 1:
		/* A valid header and descriptors over random rings and data */
		fg_fill_random(fg->region + fg->lay.ring_offset,
			       fg->region_size - fg->lay.ring_offset, rng);
		fg_republish(fg, fg_mut_none, step);
		break;
	default:
		fg_fill_random(fg->region, fg->region_size, rng);
		break;
	}
}

/* ---------------------------------------------------------------------- */

/**
 * fg_hostile_packet() - spoil the header of a packet about to be committed
 * @fg: the fake guest, with --hostile packets armed
 * @buf: the ring
 * @prev_subbuf: the finished sub-buffer, before the core finalizes it
 *
 * Every second finished packet of the ring gets one kind of damage, in
 * turn. Only fields the core's finalization leaves alone are changed, so
 * the damage survives the commit.
 *
 * Context: the ring's writer, inside subbuf_start.
 */
void fg_hostile_packet(struct fakeguest *fg, struct gr_buf *buf,
		       void *prev_subbuf)
{
	struct fg_ring_stats *rs = &fg->rings[buf->index];
	struct gr_packet_header *ph = prev_subbuf;

	if (!(rs->corrupt_turn++ % 2))
		return;
	if (fg->opt.hostile == FG_HOSTILE_RECORDS) {
		/* the first record, right after the header; the header stays */
		struct gr_event_header *eh = (void *)(ph + 1);

		switch (rs->corrupted++ % 3) {
		case 0:
			eh->id = cpu_to_le16(0xffff);
			break;
		case 1:
			eh->size = cpu_to_le16(le16_to_cpu(eh->size) + 8);
			break;
		default:
			eh->timestamp = cpu_to_le64(~0ULL >> 3);
			break;
		}
		return;
	}
	switch (rs->corrupted++ % 8) {
	case 0:
		ph->magic = cpu_to_le32(0xdeadbeef);
		break;
	case 1:
		/* content_size (set at finish, >= 72 * 8) > packet_size */
		ph->packet_size = cpu_to_le64(64 * 8);
		break;
	case 2:
		ph->packet_seq_num =
			cpu_to_le64(le64_to_cpu(ph->packet_seq_num) + 3);
		break;
	case 3:
		/* Before the end of the previous (valid) packet of the ring */
		ph->timestamp_begin = cpu_to_le64(1);
		break;
	case 4:
		/* After the timestamp_end the finish will write */
		ph->timestamp_begin = cpu_to_le64(~0ULL >> 1);
		break;
	case 5:
		ph->cpu_id = cpu_to_le32(buf->index + 1000);
		break;
	case 6:
		ph->stream_id = cpu_to_le32(7);
		break;
	default:
		ph->stream_instance_id = cpu_to_le64(99999);
		break;
	}
}

static void *fg_hostile_main(void *arg)
{
	struct fakeguest *fg = arg;
	u64 rng = fg->opt.seed * 0x9e3779b97f4a7c15ULL + 1;
	u64 period = (u64)fg->opt.hostile_period_ms * 1000000;
	unsigned int step;

	if (!rng)
		rng = 1;
	if (!fg_hostile_sleep(fg, (u64)fg->opt.hostile_delay_ms * 1000000))
		return NULL;
	__atomic_store_n(&fg->hostile_armed, 1, __ATOMIC_RELEASE);
	switch (fg->opt.hostile) {
	case FG_HOSTILE_PACKETS:
	case FG_HOSTILE_RECORDS:
		while (fg_hostile_sleep(fg, period))
			;
		return NULL;
	case FG_HOSTILE_RACE:
		fg_hostile_race(fg, &rng);
		return NULL;
	case FG_HOSTILE_FLOOD:
		fg_hostile_flood(fg);
		return NULL;
	case FG_HOSTILE_LASTREC:
		fg_hostile_lastrec(fg);
		return NULL;
	default:
		break;
	}
	for (step = 0;; step++) {
		switch (fg->opt.hostile) {
		case FG_HOSTILE_MAGIC:
			fg_republish(fg, fg_mut_magic, step);
			break;
		case FG_HOSTILE_GEOMETRY:
			fg_republish(fg, fg_mut_geometry, step);
			break;
		case FG_HOSTILE_STRINGS:
			fg_republish(fg, fg_mut_strings, step);
			break;
		case FG_HOSTILE_COUNTERS:
			fg_hostile_counters(fg, step);
			break;
		default:
			fg_hostile_random(fg, step, &rng);
			break;
		}
		__atomic_fetch_add(&fg->hostile_steps, 1, __ATOMIC_RELAXED);
		if (!fg_hostile_sleep(fg, period))
			return NULL;
	}
}

/**
 * fg_hostile_start() - start the hostile thread of --hostile, if any
 * @fg: the fake guest, published
 *
 * Return: 0 or -errno.
 */
int fg_hostile_start(struct fakeguest *fg)
{
	int ret;

	if (fg->opt.hostile == FG_HOSTILE_NONE)
		return 0;
	ret = pthread_create(&fg->hostile_thread, NULL, fg_hostile_main, fg);
	if (ret)
		return -ret;
	fg->hostile_started = true;
	return 0;
}

/**
 * fg_hostile_stop() - stop and join the hostile thread
 * @fg: the fake guest
 */
void fg_hostile_stop(struct fakeguest *fg)
{
	if (!fg->hostile_started)
		return;
	__atomic_store_n(&fg->hostile_stop, 1, __ATOMIC_RELEASE);
	fg_futex_wake(&fg->hostile_wake);
	pthread_join(fg->hostile_thread, NULL);
	fg->hostile_started = false;
	/* The damage stops here; the packets callback too */
	__atomic_store_n(&fg->hostile_armed, 0, __ATOMIC_RELEASE);
}
