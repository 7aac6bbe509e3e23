// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of aggregation in the guest (spec 17, gr_hist.c): the real
 * verifier, control and map update, built in userspace through
 * tests/shim/gr_user_env.h, over a real mmap'd hist area framed by guard
 * bytes. The test plays the host (writes requests, reads states and maps
 * as the ABI lays them out) and the CPUs (calls the probes' entry points
 * with a CPU number), and checks every map against a reference computed
 * here from the same records.
 */
#include "relay_fixture.h"

#include "gr_hist.h"

#define T_CPUS		4
#define T_EVENTS	8
#define T_AREA		(4U << 20)
#define T_EV_VAR	2	/* a VARLEN event: 5 fixed bytes */
#define T_MAX_REF	4096

/* The payload of the test events: 32 fixed bytes */
struct t_payload {
	__le32 pid;
	__le32 other;
	__le64 val;
	__le64 big;
	__le16 s16;
	u8 pad[6];
};

static struct test_region area;
static struct gr_hist_ctx ctx;
static struct gr_filter_bounds bounds[T_EVENTS];
static int attach_fail = -1;
static u32 attached;

static int t_attach(unsigned int id)
{
	if ((int)id == attach_fail)
		return -ENOENT;
	attached |= 1U << id;
	return 0;
}

static void hist_open(u64 clock_freq)
{
	unsigned int i;

	region_open(&area, T_AREA);
	/* what another publication left: the guest zeroes its part */
	memset(area.base, 0x5a, T_AREA);
	memset(area.base, 0, GR_HIST_STATE_OFFSET);
	for (i = 0; i < T_EVENTS; i++) {
		bounds[i].fixed = sizeof(struct t_payload);
		bounds[i].max = sizeof(struct t_payload);
	}
	bounds[T_EV_VAR].fixed = 5;
	bounds[T_EV_VAR].max = 37;
	attach_fail = -1;
	attached = 0;
	gr_hist_ctx_init(&ctx, area.base, T_AREA, T_CPUS, T_EVENTS, bounds,
			 clock_freq, t_attach);
}

static void hist_close(void)
{
	gr_hist_stop(&ctx);
	CU_ASSERT_PTR_NULL(ctx.live);
	CU_ASSERT(region_guards_intact(&area));
	region_close(&area);
}

/* ---- the host's side ------------------------------------------------- */

static struct gr_hist_req *h_req(unsigned int slot)
{
	return (struct gr_hist_req *)(area.base + GR_HIST_REQ_OFFSET) + slot;
}

static struct gr_hist_state *h_state(unsigned int slot)
{
	return (struct gr_hist_state *)(area.base + GR_HIST_STATE_OFFSET) +
	       slot;
}

static struct gr_hist_map_hdr *h_map(unsigned int slot, u32 cpu, u8 elog2)
{
	return (struct gr_hist_map_hdr *)
	       (area.base + gr_hist_map_off(T_AREA, slot, cpu, elog2));
}

static struct gr_hist_key op_field(u16 off, u8 width, u8 flags, u8 xform,
				   u64 arg)
{
	return (struct gr_hist_key){
		.src = GR_HS_FIELD, .width = width, .flags = flags,
		.xform = xform, .off = htole16(off), .arg = htole64(arg),
	};
}

static struct gr_hist_key op_src(u8 src, u8 xform, u64 arg)
{
	return (struct gr_hist_key){
		.src = src, .xform = xform, .arg = htole64(arg),
	};
}

/* A plain request on @ev keyed by pid, 2^@elog2 entries */
static void req_plain(struct gr_hist_req *r, u64 gen, u16 ev, u8 elog2)
{
	memset(r, 0, sizeof(*r));
	r->gen = htole64(gen);
	r->event_id = htole16(ev);
	r->kind = GR_HIST_PLAIN;
	r->nr_keys = 1;
	r->key[0] = op_field(0, 4, 0, GR_HT_NONE, 0);
	r->entries_log2 = elog2;
}

/* A latency from @start (match pid) to @end (match other), log2 keyed */
static void req_pair(struct gr_hist_req *r, u64 gen, u16 start, u16 end)
{
	memset(r, 0, sizeof(*r));
	r->gen = htole64(gen);
	r->event_id = htole16(start);
	r->end_event_id = htole16(end);
	r->kind = GR_HIST_PAIR;
	r->nr_keys = 1;
	r->key[0] = op_src(GR_HS_DELTA, GR_HT_LOG2, 0);
	r->nr_vals = 1;
	r->val[0] = op_src(GR_HS_DELTA, GR_HT_NONE, 0);
	r->match[0] = op_field(0, 4, 0, GR_HT_NONE, 0);
	r->match[1] = op_field(4, 4, 0, GR_HT_NONE, 0);
	r->entries_log2 = 6;
}

/* Write @r into @slot and run a control pass over the area */
static bool host_set(unsigned int slot, const struct gr_hist_req *r)
{
	memcpy(h_req(slot), r, sizeof(*r));
	return gr_hist_apply(&ctx, true);
}

static u32 st_state(unsigned int slot)
{
	return le32toh(__atomic_load_n(&h_state(slot)->state,
				       __ATOMIC_ACQUIRE));
}

static u64 st_gen(unsigned int slot)
{
	return le64toh(__atomic_load_n(&h_state(slot)->gen, __ATOMIC_ACQUIRE));
}

/* ---- the reference --------------------------------------------------- */

struct ref_entry {
	u64 k[2];
	u64 hits;
	u64 v[3];
};

struct ref_map {
	struct ref_entry e[T_MAX_REF];
	u32 n;
	u32 cap;		/* entries that fit before drops */
	u64 hits;
	u64 dropped;
	u64 nested;
	u64 unmatched;
};

static struct ref_map ref[T_CPUS];

static void ref_reset(u32 cap)
{
	unsigned int c;

	memset(ref, 0, sizeof(ref));
	for (c = 0; c < T_CPUS; c++)
		ref[c].cap = cap;
}

static void ref_add(u32 cpu, const u64 *k, const u64 *v, unsigned int nv)
{
	struct ref_map *m = &ref[cpu];
	struct ref_entry *e = NULL;
	unsigned int i;

	m->hits++;
	for (i = 0; i < m->n; i++)
		if (m->e[i].k[0] == k[0] && m->e[i].k[1] == k[1])
			e = &m->e[i];
	if (!e) {
		if (m->n >= m->cap) {
			m->dropped++;
			return;
		}
		e = &m->e[m->n++];
		e->k[0] = k[0];
		e->k[1] = k[1];
	}
	e->hits++;
	for (i = 0; i < nv; i++)
		e->v[i] += v[i];
}

/* The maps of @slot equal the reference, entry by entry */
static void ref_check(unsigned int slot, u8 elog2, u64 gen)
{
	const struct gr_hist_entry *ents, *e;
	const struct gr_hist_map_hdr *map;
	const struct ref_entry *r;
	unsigned int c, i, j, used, found;

	for (c = 0; c < T_CPUS; c++) {
		map = h_map(slot, c, elog2);
		ents = (const struct gr_hist_entry *)(map + 1);
		CU_ASSERT_EQUAL(le64toh(map->gen), gen);
		CU_ASSERT_EQUAL(le64toh(map->hits), ref[c].hits);
		CU_ASSERT_EQUAL(le64toh(map->dropped), ref[c].dropped);
		CU_ASSERT_EQUAL(le64toh(map->nested), ref[c].nested);
		CU_ASSERT_EQUAL(le64toh(map->unmatched), ref[c].unmatched);
		used = 0;
		found = 0;
		for (i = 0; i < (1U << elog2); i++) {
			e = &ents[i];
			CU_ASSERT_EQUAL(le32toh(e->seq) % 2, 0);
			if (!le32toh(e->used)) {
				CU_ASSERT_EQUAL(le64toh(e->hitcount), 0);
				continue;
			}
			CU_ASSERT_EQUAL(le32toh(e->used), 1);
			used++;
			for (j = 0; j < ref[c].n; j++) {
				r = &ref[c].e[j];
				if (r->k[0] != le64toh(e->key[0]) ||
				    r->k[1] != le64toh(e->key[1]))
					continue;
				found++;
				CU_ASSERT_EQUAL(le64toh(e->hitcount), r->hits);
				CU_ASSERT_EQUAL(le64toh(e->val[0]), r->v[0]);
				CU_ASSERT_EQUAL(le64toh(e->val[1]), r->v[1]);
				CU_ASSERT_EQUAL(le64toh(e->val[2]), r->v[2]);
			}
		}
		CU_ASSERT_EQUAL(used, ref[c].n);
		CU_ASSERT_EQUAL(found, ref[c].n);
	}
}

/* ftrace's .log2: ilog2(roundup_pow_of_two(v)), by counting */
static u64 ref_log2(u64 v)
{
	u64 p = 1;
	u64 n = 0;

	if (v <= 1)
		return 0;
	while (p < v && n < 64) {
		p <<= 1;
		n++;
	}
	return n;
}

static u32 rnd_state = 12345;

static u32 rnd(void)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return rnd_state >> 8;
}

static void run(unsigned int id, const struct t_payload *p, u32 len, u32 tid,
		u32 cpu, u64 ts)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx.live);
	gr_hist_event(ctx.live, id, (const u8 *)p, len, tid, cpu, ts);
}

/* A record of @id with pid @pid on @cpu, counted by a request keyed on pid */
static void count_pid(unsigned int id, u32 cpu, u32 pid)
{
	struct t_payload p = { .pid = htole32(pid) };
	u64 k[2] = { pid, 0 };

	ref_add(cpu, k, NULL, 0);
	run(id, &p, sizeof(p), 1, cpu, 0);
}

/* ---------------------------------------------------------------------- */

/* Spec 17.1: the area a module parameter gives, in every corner */
static void test_hist_area_size(void)
{
	CU_ASSERT_EQUAL(gr_hist_area_size(64 << 20, 0), 0);
	CU_ASSERT_EQUAL(gr_hist_area_size(64 << 20, 1024), 1 << 20);
	CU_ASSERT_EQUAL(gr_hist_area_size(64 << 20, 1), GR_HIST_MIN_SIZE);
	CU_ASSERT_EQUAL(gr_hist_area_size(64 << 20, 1000000), 8 << 20);
	CU_ASSERT_EQUAL(gr_hist_area_size(1 << 20, 1024), 128 << 10);
	CU_ASSERT_EQUAL(gr_hist_area_size(256 << 10, 1024), 0);
	CU_ASSERT_EQUAL(gr_hist_area_size(64 << 20, 67), 64 << 10);
	CU_ASSERT_EQUAL(gr_hist_area_size(64 << 20, 70), 68 << 10);
}

/* GR_HT_LOG2 is ftrace's .log2 for every power of two and its neighbours */
static void test_hist_log2_is_ftrace_log2(void)
{
	unsigned int b;
	u64 v;

	CU_ASSERT_EQUAL(gr_hist_log2(0), 0);
	CU_ASSERT_EQUAL(gr_hist_log2(1), 0);
	CU_ASSERT_EQUAL(gr_hist_log2(2), 1);
	CU_ASSERT_EQUAL(gr_hist_log2(3), 2);
	CU_ASSERT_EQUAL(gr_hist_log2(~0ULL), 64);
	for (b = 1; b < 64; b++) {
		v = 1ULL << b;
		CU_ASSERT_EQUAL(gr_hist_log2(v - 1), ref_log2(v - 1));
		CU_ASSERT_EQUAL(gr_hist_log2(v), ref_log2(v));
		CU_ASSERT_EQUAL(gr_hist_log2(v + 1), ref_log2(v + 1));
	}
}

/*
 * Many keys over four CPUs, two keys (one log2), three values (a field,
 * a constant, the thread id): every map equals the reference.
 */
static void test_hist_plain_many_keys(void)
{
	struct t_payload p = { 0 };
	struct gr_hist_req r;
	u64 k[2], v[3];
	unsigned int i;
	u32 cpu, tid;

	hist_open(1000000000ULL);
	req_plain(&r, 7, 3, 10);
	r.nr_keys = 2;
	r.key[1] = op_field(8, 8, 0, GR_HT_LOG2, 0);
	r.nr_vals = 3;
	r.val[0] = op_field(16, 8, 0, GR_HT_NONE, 0);
	r.val[1] = op_src(GR_HS_CONST, GR_HT_NONE, 1);
	r.val[2] = op_src(GR_HS_TID, GR_HT_NONE, 0);
	CU_ASSERT(host_set(5, &r));
	CU_ASSERT_EQUAL(st_state(5), GR_HIST_RUNNING);
	CU_ASSERT_EQUAL(st_gen(5), 7);
	CU_ASSERT_EQUAL(h_state(5)->reason, GR_HIST_E_NONE);
	CU_ASSERT_EQUAL(attached, 1U << 3);
	/* slot 5's maps are zeroed and stamped, every other slot idle */
	ref_reset(T_MAX_REF);
	ref_check(5, 10, 7);
	for (i = 0; i < GR_HIST_REQS; i++)
		if (i != 5)
			CU_ASSERT_EQUAL(st_state(i), GR_HIST_IDLE);

	for (i = 0; i < 20000; i++) {
		cpu = rnd() % T_CPUS;
		tid = 100 + rnd() % 50;
		p.pid = htole32(rnd() % 24);
		p.val = htole64(rnd() % 5000);
		p.big = htole64((u64)rnd() * rnd());
		k[0] = le32toh(p.pid);
		k[1] = ref_log2(le64toh(p.val));
		v[0] = le64toh(p.big);
		v[1] = 1;
		v[2] = tid;
		ref_add(cpu, k, v, 3);
		run(3, &p, sizeof(p), tid, cpu, 0);
		/* another event: not counted */
		run(4, &p, sizeof(p), tid, cpu, 0);
	}
	ref_check(5, 10, 7);
	hist_close();
}

/* A signed field in buckets, the CPU as second key */
static void test_hist_signed_buckets(void)
{
	struct t_payload p = { 0 };
	struct gr_hist_req r;
	u64 k[2], v[1] = { 0 };
	unsigned int i;
	int16_t s;
	u32 cpu;

	hist_open(0);
	req_plain(&r, 1, 0, 8);
	r.nr_keys = 2;
	r.key[0] = op_field(24, 2, GR_HK_SIGNED, GR_HT_BUCKET, 100);
	r.key[1] = op_src(GR_HS_CPU, GR_HT_NONE, 0);
	CU_ASSERT(host_set(0, &r));
	CU_ASSERT_EQUAL(st_state(0), GR_HIST_RUNNING);
	ref_reset(T_MAX_REF);
	for (i = 0; i < 3000; i++) {
		cpu = rnd() % T_CPUS;
		s = (int16_t)((int)(rnd() % 1000) - 500);
		p.s16 = htole16((u16)s);
		k[0] = (u64)(s64)s / 100 * 100;
		k[1] = cpu;
		ref_add(cpu, k, v, 0);
		run(0, &p, sizeof(p), 1, cpu, 0);
	}
	ref_check(0, 8, 1);
	hist_close();
}

/*
 * Spec 17.4: a full map counts dropped, not a wrong entry; with 8
 * entries every lookup probes the whole map, so the first 8 keys of a
 * CPU are in and every other key drops.
 */
static void test_hist_overflow_drops(void)
{
	struct gr_hist_req r;
	unsigned int i;

	hist_open(0);
	req_plain(&r, 3, 1, GR_HIST_MIN_ENTRIES_LOG2);
	CU_ASSERT(host_set(2, &r));
	ref_reset(1U << GR_HIST_MIN_ENTRIES_LOG2);
	for (i = 0; i < 5000; i++)
		count_pid(1, rnd() % 2, rnd() % 40);
	CU_ASSERT(ref[0].dropped > 0);
	ref_check(2, GR_HIST_MIN_ENTRIES_LOG2, 3);
	hist_close();
}

/*
 * Spec 17.4: an update that interrupts one on the same CPU counts nested
 * and writes nothing else; a filter program picks the records counted.
 */
static void test_hist_nested_and_filter(void)
{
	struct t_payload p = { 0 };
	struct gr_hist_req r;
	u64 k[2] = { 0 }, v[1] = { 0 };
	unsigned int i;

	hist_open(0);
	req_plain(&r, 9, 1, 6);
	/* count only records whose other field is 7 */
	r.nr_insns = htole16(4);
	r.insns[0] = (struct gr_filter_insn){ .code = GR_FI_LD, .width = 4,
					      .off = htole16(4) };
	r.insns[1] = (struct gr_filter_insn){ .code = GR_FI_JEQ, .jf = 1,
					      .k = htole64(7) };
	r.insns[2] = (struct gr_filter_insn){ .code = GR_FI_RET,
					      .k = htole64(1) };
	r.insns[3] = (struct gr_filter_insn){ .code = GR_FI_RET };
	CU_ASSERT(host_set(1, &r));
	CU_ASSERT_EQUAL_FATAL(st_state(1), GR_HIST_RUNNING);
	ref_reset(T_MAX_REF);
	for (i = 0; i < 100; i++) {
		p.pid = htole32(i % 5);
		p.other = htole32(i % 2 ? 7 : 8);
		if (i % 2) {
			k[0] = i % 5;
			ref_add(0, k, v, 0);
		}
		run(1, &p, sizeof(p), 1, 0, 0);
	}
	/* CPU 1 is inside an update of this request: nested */
	ctx.progs[1]->pcpu[1].busy = 1;
	p.other = htole32(7);
	for (i = 0; i < 5; i++)
		run(1, &p, sizeof(p), 1, 1, 0);
	ref[1].nested = 5;
	ctx.progs[1]->pcpu[1].busy = 0;
	gr_hist_event(ctx.live, 1, NULL, 0, 1, 2, 0);
	ref[2].nested = 1;
	ref_check(1, 6, 9);
	hist_close();
}

/*
 * Latency pairs (spec 17.5): a start stores its time under the match
 * value, the end takes it back and counts the delta (log2 key, sum);
 * an end without its start, or a second end, counts unmatched. The TSC
 * case: deltas are converted to nanoseconds (2 GHz: half the ticks).
 */
static void test_hist_pair_latency(void)
{
	/* the third run: v1.6's second start event (7) beside event 5 */
	static const u64 freqs[] = { 1000000000ULL, 2000000000ULL,
				     1000000000ULL };
	struct t_payload s = { 0 }, e = { 0 };
	struct gr_hist_req r;
	u64 k[2] = { 0 }, v[1], ts = 1000, d;
	unsigned int f, i;
	u32 cpu, id;
	bool two;

	for (f = 0; f < ARRAY_SIZE(freqs); f++) {
		two = f == 2;
		hist_open(freqs[f]);
		req_pair(&r, 4, 5, 6);
		if (two) {
			r.hflags = GR_HIST_F_START2;
			r.start2_event_id = htole16(7);
		}
		CU_ASSERT(host_set(3, &r));
		CU_ASSERT_EQUAL_FATAL(st_state(3), GR_HIST_RUNNING);
		CU_ASSERT_EQUAL(attached, (1U << 5) | (1U << 6) |
				(two ? 1U << 7 : 0));
		CU_ASSERT_PTR_NOT_NULL(ctx.progs[3]->starts);
		ref_reset(T_MAX_REF);
		for (i = 0; i < 2000; i++) {
			id = 1000 + i % 300;
			d = 1 + rnd() % 100000;
			cpu = rnd() % T_CPUS;
			s.pid = htole32(id);
			e.other = htole32(id);
			if (i % 10 != 3) {
				/* the start on another CPU than the end */
				run(two && i % 2 ? 7 : 5, &s, sizeof(s), 1,
				    (cpu + 1) % T_CPUS, ts);
			}
			ts += d;
			run(6, &e, sizeof(e), 1, cpu, ts);
			if (i % 10 == 3) {
				ref[cpu].unmatched++;
			} else {
				v[0] = freqs[f] == 1000000000ULL ? d : d / 2;
				k[0] = ref_log2(v[0]);
				ref_add(cpu, k, v, 1);
			}
			if (i % 10 == 5) {
				/* a second end: its start was taken */
				run(6, &e, sizeof(e), 1, cpu, ts + 1);
				ref[cpu].unmatched++;
			}
			ts += 1 + rnd() % 1000;
		}
		ref_check(3, 6, 4);
		hist_close();
	}
}

/*
 * Spec 17.3: gen 0 is idle, a new gen runs on zeroed maps stamped with
 * it, the same request again changes nothing, a cleared one (new gen)
 * starts from zero, a refused replacement takes the old one out, and a
 * host that leaves GR_F_HIST idles every slot.
 */
static void test_hist_lifecycle(void)
{
	struct t_payload p = { .pid = htole32(3) };
	struct gr_hist_req r, bad;

	hist_open(0);
	CU_ASSERT(!gr_hist_apply(&ctx, true));
	CU_ASSERT_PTR_NULL(ctx.live);
	req_plain(&r, 10, 0, 5);
	CU_ASSERT(host_set(4, &r));
	CU_ASSERT_EQUAL(st_state(4), GR_HIST_RUNNING);
	CU_ASSERT_EQUAL(gr_hist_running(&ctx), 1U << 4);
	run(0, &p, sizeof(p), 1, 0, 0);
	run(0, &p, sizeof(p), 1, 0, 0);
	CU_ASSERT_EQUAL(le64toh(h_map(4, 0, 5)->hits), 2);
	/* the same request: nothing happens, the counts stay */
	CU_ASSERT(!host_set(4, &r));
	CU_ASSERT_EQUAL(le64toh(h_map(4, 0, 5)->hits), 2);
	/* --clear: a new gen, zeroed maps stamped with it */
	r.gen = htole64(11);
	CU_ASSERT(host_set(4, &r));
	CU_ASSERT_EQUAL(st_gen(4), 11);
	CU_ASSERT_EQUAL(le64toh(h_map(4, 0, 5)->hits), 0);
	CU_ASSERT_EQUAL(le64toh(h_map(4, 3, 5)->gen), 11);
	run(0, &p, sizeof(p), 1, 0, 0);
	CU_ASSERT_EQUAL(le64toh(h_map(4, 0, 5)->hits), 1);
	/* the same gen, other content: processed again */
	r.entries_log2 = 4;
	CU_ASSERT(host_set(4, &r));
	CU_ASSERT_EQUAL(st_state(4), GR_HIST_RUNNING);
	CU_ASSERT_EQUAL(le64toh(h_map(4, 1, 4)->gen), 11);
	/* a refused replacement: the old request no longer runs */
	bad = r;
	bad.gen = htole64(12);
	bad.nr_keys = 0;
	CU_ASSERT(host_set(4, &bad));
	CU_ASSERT_EQUAL(st_state(4), GR_HIST_REFUSED);
	CU_ASSERT_EQUAL(st_gen(4), 12);
	CU_ASSERT_EQUAL(h_state(4)->reason, GR_HIST_E_KIND);
	CU_ASSERT_EQUAL(gr_hist_running(&ctx), 0);
	CU_ASSERT_PTR_NULL(ctx.live);
	/* gen 0: idle */
	r.gen = 0;
	CU_ASSERT(host_set(4, &r));
	CU_ASSERT_EQUAL(st_state(4), GR_HIST_IDLE);
	CU_ASSERT_EQUAL(st_gen(4), 0);
	/* two running, then the host leaves GR_F_HIST: both idle */
	req_plain(&r, 20, 0, 5);
	memcpy(h_req(0), &r, sizeof(r));
	r.gen = htole64(21);
	CU_ASSERT(host_set(7, &r));
	CU_ASSERT_EQUAL(gr_hist_running(&ctx), 0x81);
	CU_ASSERT(gr_hist_apply(&ctx, false));
	CU_ASSERT_EQUAL(gr_hist_running(&ctx), 0);
	CU_ASSERT_EQUAL(st_state(0), GR_HIST_IDLE);
	CU_ASSERT_EQUAL(st_state(7), GR_HIST_IDLE);
	/* and back: they run again, from zero */
	CU_ASSERT(gr_hist_apply(&ctx, true));
	CU_ASSERT_EQUAL(gr_hist_running(&ctx), 0x81);
	hist_close();
}

/* One refusal: a mutation of a valid request and what it must give */
struct refusal {
	const char *what;
	void (*mutate)(struct gr_hist_req *r);
	u8 reason;
	u16 bad;
	u8 filter_reason;
};

#define MUT(name, ...)							\
	static void name(struct gr_hist_req *r)				\
	{								\
		__VA_ARGS__;						\
	}

MUT(m_event, r->event_id = htole16(T_EVENTS))
MUT(m_end_event, r->end_event_id = htole16(200))
MUT(m_kind, r->kind = 2)
MUT(m_keys0, r->nr_keys = 0)
MUT(m_keys3, r->nr_keys = 3)
MUT(m_vals4, r->nr_vals = 4)
MUT(m_plain_end, r->kind = GR_HIST_PLAIN; r->match[0] = (struct gr_hist_key){ 0 };
    r->match[1] = (struct gr_hist_key){ 0 }; r->key[0] = op_src(GR_HS_TID, 0, 0);
    r->val[0] = op_src(GR_HS_TID, 0, 0))
MUT(m_width3, r->key[0] = op_field(0, 3, 0, GR_HT_NONE, 0))
MUT(m_off_out, r->key[0] = op_field(28, 8, 0, GR_HT_NONE, 0))
MUT(m_var_out, r->end_event_id = htole16(T_EV_VAR);
    r->key[0] = op_field(2, 4, 0, GR_HT_NONE, 0))
MUT(m_bucket0, r->key[0] = op_field(0, 4, 0, GR_HT_BUCKET, 0))
MUT(m_xform9, r->key[0] = op_field(0, 4, 0, 9, 0))
MUT(m_const_key, r->key[0] = op_src(GR_HS_CONST, 0, 1))
MUT(m_src_none, r->key[0] = op_src(GR_HS_NONE, 0, 0))
MUT(m_src_bad, r->key[0] = op_src(6, 0, 0))
MUT(m_tid_width, r->key[0] = op_src(GR_HS_TID, 0, 0); r->key[0].width = 4)
MUT(m_arg_unused, r->key[0] = op_src(GR_HS_CPU, GR_HT_NONE, 5))
MUT(m_signed_tid, r->key[0] = op_src(GR_HS_TID, 0, 0);
    r->key[0].flags = GR_HK_SIGNED)
MUT(m_key1_bad, r->nr_keys = 2; r->key[1] = op_field(40, 1, 0, 0, 0))
MUT(m_val_xform, r->val[0] = op_src(GR_HS_DELTA, GR_HT_LOG2, 0))
MUT(m_val_bad, r->nr_vals = 2; r->val[1] = op_field(31, 2, 0, 0, 0))
MUT(m_match_delta, r->match[1] = op_src(GR_HS_DELTA, 0, 0))
MUT(m_match_const, r->match[0] = op_src(GR_HS_CONST, 0, 1))
MUT(m_match_xform, r->match[0] = op_field(0, 4, 0, GR_HT_LOG2, 0))
MUT(m_match_none, r->match[1] = op_src(GR_HS_NONE, 0, 0))
MUT(m_plain_delta, r->end_event_id = 0; r->kind = GR_HIST_PLAIN;
    r->match[0] = (struct gr_hist_key){ 0 };
    r->match[1] = (struct gr_hist_key){ 0 };
    r->val[0] = op_src(GR_HS_TID, 0, 0))
MUT(m_plain_match, r->end_event_id = 0; r->kind = GR_HIST_PLAIN;
    r->key[0] = op_src(GR_HS_TID, 0, 0); r->val[0] = op_src(GR_HS_TID, 0, 0))
MUT(m_elog2_lo, r->entries_log2 = GR_HIST_MIN_ENTRIES_LOG2 - 1)
MUT(m_elog2_hi, r->entries_log2 = GR_HIST_MAX_ENTRIES_LOG2 + 1)
MUT(m_elog2_big, r->entries_log2 = 12)
MUT(m_rsvd0, r->reserved0 = 1)
MUT(m_hflags, r->hflags = 0x2)
MUT(m_start2_noflag, r->start2_event_id = htole16(7))
MUT(m_start2_plain, r->kind = GR_HIST_PLAIN; r->end_event_id = 0;
    r->match[0] = (struct gr_hist_key){ 0 };
    r->match[1] = (struct gr_hist_key){ 0 };
    r->key[0] = op_src(GR_HS_TID, 0, 0); r->val[0] = op_src(GR_HS_TID, 0, 0);
    r->hflags = GR_HIST_F_START2; r->start2_event_id = htole16(7))
MUT(m_start2_same, r->hflags = GR_HIST_F_START2;
    r->start2_event_id = r->event_id)
MUT(m_start2_out, r->hflags = GR_HIST_F_START2;
    r->start2_event_id = htole16(T_EVENTS))
MUT(m_start2_match, r->hflags = GR_HIST_F_START2;
    r->match[0] = op_field(4, 4, 0, GR_HT_NONE, 0);
    r->start2_event_id = htole16(T_EV_VAR))
MUT(m_rsvd1, r->reserved1 = htole64(1))
MUT(m_key_rsvd, r->key[0].reserved = htole16(1))
MUT(m_key_flags, r->key[0].flags = 0x80)
MUT(m_unused_key, r->key[1] = op_src(GR_HS_TID, 0, 0))
MUT(m_unused_val, r->val[2].arg = htole64(1))
MUT(m_filter_len, r->nr_insns = htole16(GR_HIST_MAX_INSNS + 1))
MUT(m_strtab_len, r->nr_insns = htole16(1);
    r->insns[0].code = GR_FI_RET;
    r->strtab_len = htole16(GR_HIST_STRTAB_LEN + 1))
MUT(m_strtab_only, r->strtab_len = htole16(1))
MUT(m_filter_load, r->nr_insns = htole16(2);
    r->insns[0] = (struct gr_filter_insn){ .code = GR_FI_LD, .width = 8,
					   .off = htole16(30) };
    r->insns[1] = (struct gr_filter_insn){ .code = GR_FI_RET })
MUT(m_filter_noret, r->nr_insns = htole16(1);
    r->insns[0] = (struct gr_filter_insn){ .code = GR_FI_LD_TID })

static const struct refusal refusals[] = {
	{ "event", m_event, GR_HIST_E_EVENT, 0, 0 },
	{ "end event", m_end_event, GR_HIST_E_EVENT, 1, 0 },
	{ "kind", m_kind, GR_HIST_E_KIND, 0, 0 },
	{ "no key", m_keys0, GR_HIST_E_KIND, 0, 0 },
	{ "3 keys", m_keys3, GR_HIST_E_KIND, 0, 0 },
	{ "4 vals", m_vals4, GR_HIST_E_KIND, 0, 0 },
	{ "plain with an end", m_plain_end, GR_HIST_E_KIND, 0, 0 },
	{ "width 3", m_width3, GR_HIST_E_KEY, 0, 0 },
	{ "field past the payload", m_off_out, GR_HIST_E_KEY, 0, 0 },
	{ "field past a VARLEN end's fixed bytes", m_var_out,
	  GR_HIST_E_KEY, 0, 0 },
	{ "bucket 0", m_bucket0, GR_HIST_E_KEY, 0, 0 },
	{ "transform 9", m_xform9, GR_HIST_E_KEY, 0, 0 },
	{ "constant key", m_const_key, GR_HIST_E_KEY, 0, 0 },
	{ "no source", m_src_none, GR_HIST_E_KEY, 0, 0 },
	{ "source 6", m_src_bad, GR_HIST_E_KEY, 0, 0 },
	{ "tid with a width", m_tid_width, GR_HIST_E_KEY, 0, 0 },
	{ "cpu with an arg", m_arg_unused, GR_HIST_E_KEY, 0, 0 },
	{ "signed tid", m_signed_tid, GR_HIST_E_KEY, 0, 0 },
	{ "key 1 outside", m_key1_bad, GR_HIST_E_KEY, 1, 0 },
	{ "value transform", m_val_xform, GR_HIST_E_VAL, 0, 0 },
	{ "value 1 outside", m_val_bad, GR_HIST_E_VAL, 1, 0 },
	{ "match delta", m_match_delta, GR_HIST_E_MATCH, 1, 0 },
	{ "match constant", m_match_const, GR_HIST_E_MATCH, 0, 0 },
	{ "match transform", m_match_xform, GR_HIST_E_MATCH, 0, 0 },
	{ "match without source", m_match_none, GR_HIST_E_MATCH, 1, 0 },
	{ "delta in a plain request", m_plain_delta, GR_HIST_E_KEY, 0, 0 },
	{ "match in a plain request", m_plain_match, GR_HIST_E_KIND, 0, 0 },
	{ "entries_log2 low", m_elog2_lo, GR_HIST_E_SIZE, 0, 0 },
	{ "entries_log2 high", m_elog2_hi, GR_HIST_E_SIZE, 0, 0 },
	{ "maps larger than the slot", m_elog2_big, GR_HIST_E_SIZE, 0, 0 },
	{ "reserved0", m_rsvd0, GR_HIST_E_RESERVED, 0, 0 },
	{ "unknown hflags", m_hflags, GR_HIST_E_RESERVED, 0, 0 },
	{ "second start without its flag", m_start2_noflag,
	  GR_HIST_E_RESERVED, 0, 0 },
	{ "second start of a plain request", m_start2_plain,
	  GR_HIST_E_KIND, 0, 0 },
	{ "second start equal to the first", m_start2_same,
	  GR_HIST_E_KIND, 0, 0 },
	{ "second start out of range", m_start2_out, GR_HIST_E_EVENT, 2, 0 },
	{ "match outside the second start", m_start2_match,
	  GR_HIST_E_MATCH, 0, 0 },
	{ "reserved1", m_rsvd1, GR_HIST_E_RESERVED, 0, 0 },
	{ "operand reserved", m_key_rsvd, GR_HIST_E_RESERVED, 0, 0 },
	{ "operand flag", m_key_flags, GR_HIST_E_RESERVED, 0, 0 },
	{ "unused key", m_unused_key, GR_HIST_E_RESERVED, 1, 0 },
	{ "unused value", m_unused_val, GR_HIST_E_RESERVED, 2, 0 },
	{ "17 instructions", m_filter_len, GR_HIST_E_FILTER,
	  GR_FILTER_NO_INSN, GR_FILTER_E_LENGTH },
	{ "strtab too long", m_strtab_len, GR_HIST_E_FILTER,
	  GR_FILTER_NO_INSN, GR_FILTER_E_LENGTH },
	{ "strtab without program", m_strtab_only, GR_HIST_E_FILTER,
	  GR_FILTER_NO_INSN, GR_FILTER_E_LENGTH },
	{ "filter load outside", m_filter_load, GR_HIST_E_FILTER, 0,
	  GR_FILTER_E_LOAD },
	{ "filter without return", m_filter_noret, GR_HIST_E_FILTER, 0,
	  GR_FILTER_E_NORET },
};

/*
 * Spec 17.2: every refusal reason, with its operand or instruction, and
 * nothing of a refused request is installed; an attach failure refuses
 * too (GR_HIST_E_ATTACH).
 */
static void test_hist_refusals(void)
{
	struct gr_hist_req base, r;
	struct gr_hist_prog prog;
	struct gr_hist_err err;
	unsigned int i;
	u64 gen = 100;

	hist_open(0);
	req_pair(&base, 1, 0, 1);
	base.nr_vals = 1;
	CU_ASSERT(host_set(6, &base));
	CU_ASSERT_EQUAL_FATAL(st_state(6), GR_HIST_RUNNING);
	CU_ASSERT(host_set(6, &(struct gr_hist_req){ 0 }));
	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		r = base;
		r.gen = htole64(++gen);
		refusals[i].mutate(&r);
		CU_ASSERT(host_set(6, &r));
		if (st_state(6) != GR_HIST_REFUSED ||
		    h_state(6)->reason != refusals[i].reason ||
		    le16toh(h_state(6)->bad) != refusals[i].bad ||
		    h_state(6)->filter_reason != refusals[i].filter_reason)
			fprintf(stderr, "refusal %s: state %u reason %u bad %u filter %u\n",
				refusals[i].what, st_state(6),
				h_state(6)->reason, le16toh(h_state(6)->bad),
				h_state(6)->filter_reason);
		CU_ASSERT_EQUAL(st_state(6), GR_HIST_REFUSED);
		CU_ASSERT_EQUAL(st_gen(6), gen);
		CU_ASSERT_EQUAL(h_state(6)->reason, refusals[i].reason);
		CU_ASSERT_EQUAL(le16toh(h_state(6)->bad), refusals[i].bad);
		CU_ASSERT_EQUAL(h_state(6)->filter_reason,
				refusals[i].filter_reason);
		CU_ASSERT_PTR_NULL(ctx.live);
		/* the verifier alone says the same */
		CU_ASSERT_EQUAL(gr_hist_verify(&r, T_EVENTS, bounds, T_AREA,
					       T_CPUS, &prog, &err), -EINVAL);
		CU_ASSERT_EQUAL(err.reason, refusals[i].reason);
	}
	/* the probe of an event cannot be attached */
	attach_fail = 1;
	r = base;
	r.gen = htole64(++gen);
	CU_ASSERT(host_set(6, &r));
	CU_ASSERT_EQUAL(st_state(6), GR_HIST_REFUSED);
	CU_ASSERT_EQUAL(h_state(6)->reason, GR_HIST_E_ATTACH);
	/* and the valid request still runs */
	attach_fail = -1;
	r.gen = htole64(++gen);
	CU_ASSERT(host_set(6, &r));
	CU_ASSERT_EQUAL(st_state(6), GR_HIST_RUNNING);
	CU_ASSERT_EQUAL(h_state(6)->reason, GR_HIST_E_NONE);
	hist_close();
}

/*
 * The probes' path (gr_record.c): with recording off a record goes into
 * the CPU's scratch buffer and is counted, not recorded; recorded, it is
 * counted in the ring and still recorded; a scratch record nested in
 * another on the same CPU counts nested; a record the full ring drops is
 * still counted.
 */
static void test_hist_record_paths(void)
{
	u64 enable[GR_WIDE_MAX_EVENTS / 64] = { 0 };
	struct test_payload *p, *q;
	struct gr_hist_req r;
	struct gr_rec rec, inner;
	struct fixture f;
	unsigned int i;

	fixture_open(&f, 1, false, 4096, 4);
	gr_user_set_cpu(0);
	hist_open(0);
	CU_ASSERT_EQUAL_FATAL(gr_rec_scratch_init(64), 0);
	gr_rec_activate(f.chan);
	req_plain(&r, 5, EV_TEST, 6);
	r.key[0] = op_field(0, 4, 0, GR_HT_NONE, 0);
	r.nr_vals = 1;
	r.val[0] = op_field(8, 8, 0, GR_HT_NONE, 0);
	CU_ASSERT(host_set(0, &r));
	CU_ASSERT(gr_event_filtered(EV_TEST));
	CU_ASSERT(!gr_event_filtered(EV_TEST + 1));

	/* not recorded: counted from the scratch buffer */
	for (i = 0; i < 10; i++) {
		p = gr_rec_begin(&rec, EV_TEST, sizeof(*p));
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_PTR_NULL(rec.buf);
		p->writer = htole32(i % 2);
		p->pad = 0;
		p->seq = htole64(i);
		gr_rec_commit(&rec);
	}
	/* another event nobody counts: nothing at all */
	CU_ASSERT_PTR_NULL(gr_rec_begin(&rec, EV_TEST + 1, sizeof(*p)));
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 0);
	CU_ASSERT_EQUAL(le64toh(h_map(0, 0, 6)->hits), 10);

	/* a scratch record inside another on the same CPU: nested */
	p = gr_rec_begin(&rec, EV_TEST, sizeof(*p));
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_PTR_NULL(gr_rec_begin(&inner, EV_TEST, sizeof(*p)));
	memset(p, 0, sizeof(*p));
	gr_rec_commit(&rec);
	CU_ASSERT_EQUAL(le64toh(h_map(0, 0, 6)->nested), 1);
	CU_ASSERT_EQUAL(le64toh(h_map(0, 0, 6)->hits), 11);

	/* recorded: counted from the ring, and in the ring */
	enable[0] = 1ULL << EV_TEST;
	gr_rec_set_events(enable);
	for (i = 0; i < 10; i++) {
		q = gr_rec_begin(&rec, EV_TEST, sizeof(*q));
		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		CU_ASSERT_PTR_NOT_NULL(rec.buf);
		q->writer = htole32(1);
		q->pad = 0;
		q->seq = htole64(100);
		gr_rec_commit(&rec);
	}
	gr_chan_publish_events(f.chan);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.events), 10);
	CU_ASSERT_EQUAL(le64toh(h_map(0, 0, 6)->hits), 21);
	/* key 1: 5 scratch records (1+3+5+7+9) and 10 of 100 */
	ref_reset(T_MAX_REF);
	ref[0].hits = 21;
	ref[0].nested = 1;
	ref[0].n = 2;
	ref[0].e[0] = (struct ref_entry){ .k = { 0, 0 }, .hits = 6,
					  .v = { 20 } };
	ref[0].e[1] = (struct ref_entry){ .k = { 1, 0 }, .hits = 15,
					  .v = { 1025 } };
	ref_check(0, 6, 5);

	/* the ring full (nobody consumes): dropped there, still counted */
	for (i = 0; i < 2000; i++) {
		q = gr_rec_begin(&rec, EV_TEST, sizeof(*q));
		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		q->writer = htole32(2);
		q->pad = 0;
		q->seq = htole64(1);
		gr_rec_commit(&rec);
	}
	gr_chan_publish_events(f.chan);
	CU_ASSERT(h_load(&f_ring(&f, 0)->prod.lost_full) > 0);
	CU_ASSERT_EQUAL(h_load(&f_ring(&f, 0)->prod.lost_full) +
			h_load(&f_ring(&f, 0)->prod.events), 2010);
	CU_ASSERT_EQUAL(le64toh(h_map(0, 0, 6)->hits), 2021);
	ref[0].hits = 2021;
	ref[0].n = 3;
	ref[0].e[2] = (struct ref_entry){ .k = { 2, 0 }, .hits = 2000,
					  .v = { 2000 } };
	ref_check(0, 6, 5);

	gr_hist_stop(&ctx);
	CU_ASSERT(!gr_event_filtered(EV_TEST));
	gr_rec_deactivate();
	gr_rec_set_events(NULL);
	hist_close();
	gr_rec_scratch_exit();
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- */

static const struct gr_test tests[] = {
	GR_TEST(test_hist_area_size),
	GR_TEST(test_hist_log2_is_ftrace_log2),
	GR_TEST(test_hist_plain_many_keys),
	GR_TEST(test_hist_signed_buckets),
	GR_TEST(test_hist_overflow_drops),
	GR_TEST(test_hist_nested_and_filter),
	GR_TEST(test_hist_pair_latency),
	GR_TEST(test_hist_lifecycle),
	GR_TEST(test_hist_refusals),
	GR_TEST(test_hist_record_paths),
};

int main(void)
{
	/* a test that loops forever is a failure, not a hang */
	alarm(600);
	return gr_test_main("relay_hist", tests, ARRAY_SIZE(tests), NULL,
			    NULL);
}
