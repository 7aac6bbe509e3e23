// SPDX-License-Identifier: GPL-2.0
/*
 * hist_map.c - reading a guest's aggregation maps in place (spec 17.4)
 *
 * The maps are guest memory, written while the host reads them, by a
 * guest the host does not trust. Every word is loaded once, with an
 * atomic load (so the compiler neither tears nor repeats it), into host
 * memory, and only the host's copy is checked and used:
 *
 *	map header:  gen (acquire), then hits, dropped, nested, unmatched
 *	entry:       seq (acquire), used, keys, hitcount, values, then an
 *	             acquire fence and seq again: the read side of the
 *	             guest's seqcount (spec 17.4 step 4: seq odd, wmb,
 *	             fields, wmb, seq even)
 *
 * Where the maps lie comes from the checked header (hist_size, nr_cpus)
 * and the host's own copy of the request (entries_log2): nothing read
 * from the maps is an offset, an index or a count of what is read. A CPU's
 * entries are first read into a scratch copy, so that a map found bad
 * half-way is refused whole (F3) before any of it reaches the table; the
 * table is an open-addressing hash on the keys in host memory, holding at
 * most entries x CPUs rows.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist_map.h"
#include "validate.h"

/* the load of one guest word: once, untorn, not reordered by the compiler */
#define LOAD64(p)	le64toh(__atomic_load_n((p), __ATOMIC_RELAXED))
#define LOAD32(p)	le32toh(__atomic_load_n((p), __ATOMIC_RELAXED))

/* What one read of an entry gave */
enum entry_read {
	ENTRY_FREE,
	ENTRY_OK,
	ENTRY_TORN,
	ENTRY_BAD,
};

/* The table under construction: rows and their hash index */
struct hist_build {
	struct gr_hist_table *t;
	uint32_t *index;		/* row + 1, 0 = empty */
	uint32_t index_mask;
	unsigned int nr_keys;
	unsigned int nr_vals;
};

/*
 * One read of entry @e between two loads of its seq. The guest makes seq
 * odd, writes the fields, makes seq even: a reader that sees the same
 * even seq before and after (the fence orders the field loads before the
 * second seq load) copied a whole entry.
 */
static enum entry_read read_entry(const struct gr_hist_entry *e,
				  struct gr_hist_row *row)
{
	uint32_t seq, used;
	int i;

	/* pairs with the guest's second smp_wmb() of the update (17.4) */
	seq = le32toh(__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE));
	used = LOAD32(&e->used);
	if (used > 1)
		return ENTRY_BAD;
	if (!used)
		return ENTRY_FREE;
	for (i = 0; i < GR_HIST_MAX_KEYS; i++)
		row->key[i] = LOAD64(&e->key[i]);
	row->hitcount = LOAD64(&e->hitcount);
	for (i = 0; i < GR_HIST_MAX_VALS; i++)
		row->val[i] = LOAD64(&e->val[i]);
	/* order the field loads before the second load of seq */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((seq & 1) || LOAD32(&e->seq) != seq)
		return ENTRY_TORN;
	return ENTRY_OK;
}

static uint32_t hash_keys(const uint64_t *key)
{
	uint64_t h = key[0] * 0x9e3779b97f4a7c15ULL;

	h ^= (key[1] + (h >> 29)) * 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(h ^ (h >> 32));
}

/* Double the index (and the rows) so that the index stays half empty */
static int build_grow(struct hist_build *b)
{
	struct gr_hist_table *t = b->t;
	uint32_t size = (b->index_mask + 1) * 2, i, h;
	struct gr_hist_row *rows;
	uint32_t *index;

	rows = realloc(t->rows, (size_t)size / 2 * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	t->rows = rows;
	t->cap = size / 2;
	index = calloc(size, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (i = 0; i < t->nr_rows; i++) {
		h = hash_keys(rows[i].key) & (size - 1);
		while (index[h])
			h = (h + 1) & (size - 1);
		index[h] = i + 1;
	}
	free(b->index);
	b->index = index;
	b->index_mask = size - 1;
	return 0;
}

/* Add one CPU's entry to the row of its keys; sums modulo 2^64 */
static int build_add(struct hist_build *b, const struct gr_hist_row *r)
{
	struct gr_hist_table *t = b->t;
	struct gr_hist_row *row;
	uint32_t h;
	unsigned int i;
	int ret;

	if (t->nr_rows >= t->cap) {
		ret = build_grow(b);
		if (ret)
			return ret;
	}
	h = hash_keys(r->key) & b->index_mask;
	for (;;) {
		if (!b->index[h]) {
			row = &t->rows[t->nr_rows];
			memset(row, 0, sizeof(*row));
			memcpy(row->key, r->key, sizeof(row->key));
			b->index[h] = ++t->nr_rows;
			break;
		}
		row = &t->rows[b->index[h] - 1];
		if (!memcmp(row->key, r->key, sizeof(row->key)))
			break;
		h = (h + 1) & b->index_mask;
	}
	row->hitcount += r->hitcount;
	for (i = 0; i < b->nr_vals; i++)
		row->val[i] += r->val[i];
	return 0;
}

/*
 * Read CPU @cpu's map at @map of @n entries into @scratch; @nr receives
 * the entries in use, @torn those left out. Return: 0, or -EBADMSG for a
 * map to refuse whole.
 */
static int read_map(const struct gr_hist_entry *ent, uint32_t n,
		    const struct hist_build *b, struct gr_hist_row *scratch,
		    uint32_t *nr, uint64_t *torn)
{
	enum entry_read r;
	uint32_t i;
	unsigned int k;

	*nr = 0;
	*torn = 0;
	for (i = 0; i < n; i++) {
		struct gr_hist_row *row = &scratch[*nr];

		r = read_entry(&ent[i], row);
		if (r == ENTRY_TORN)	/* the guest was writing it: once more */
			r = read_entry(&ent[i], row);
		if (r == ENTRY_BAD)
			return -EBADMSG;
		if (r == ENTRY_TORN)
			(*torn)++;
		if (r != ENTRY_OK)
			continue;
		for (k = b->nr_keys; k < GR_HIST_MAX_KEYS; k++)
			row->key[k] = 0;
		for (k = b->nr_vals; k < GR_HIST_MAX_VALS; k++)
			row->val[k] = 0;
		(*nr)++;
	}
	return 0;
}

/* Are the arguments inside the checked geometry? */
static bool read_args_ok(const void *hist, uint64_t hist_size,
			 uint32_t nr_cpus, uint32_t slot,
			 const struct gr_hist_req *req)
{
	if (!hist || !req || slot >= GR_HIST_REQS || !nr_cpus ||
	    nr_cpus > GR_MAX_NR_CPUS || hist_size < GR_HIST_MIN_SIZE ||
	    hist_size % GR_PAGE_SIZE)
		return false;
	if (req->entries_log2 < GR_HIST_MIN_ENTRIES_LOG2 ||
	    req->entries_log2 > GR_HIST_MAX_ENTRIES_LOG2 ||
	    !req->nr_keys || req->nr_keys > GR_HIST_MAX_KEYS ||
	    req->nr_vals > GR_HIST_MAX_VALS)
		return false;
	/* nr_cpus maps fit the slot: every map lies inside the area */
	return (uint64_t)nr_cpus * gr_hist_map_bytes(req->entries_log2) <=
	       gr_hist_slot_bytes(hist_size);
}

/**
 * gr_hist_read() - read and merge one slot's maps (spec 17.4, F2-F4)
 * @hist: the mapped hist area (region + hist_offset, checked)
 * @hist_size: its bytes (checked: gr_check_region_hdr())
 * @nr_cpus: the header's nr_cpus (checked)
 * @slot: request slot, < GR_HIST_REQS
 * @req: the host's own copy of the request it wrote in @slot
 * @prev: the previous read of the same slot, for the backwards check;
 *	NULL, or one of another gen, checks nothing
 * @out: receives the table (rows allocated here; gr_hist_table_free())
 *
 * A map stamped with another gen counts in @out->stale_maps; one whose
 * hits went below @prev's for its CPU, or with a used word other than 0
 * or 1, in @out->bad_maps: neither adds anything else. An entry whose seq
 * is odd or moves in two reads counts in @out->torn and is left out.
 * Counts and sums add modulo 2^64, as the guest keeps them.
 *
 * Context: process; does not sleep; reads only [hist, hist + hist_size).
 * Return: 0, -EINVAL (arguments outside the checked geometry: a bug of
 * the caller, nothing read) or -ENOMEM; @out is empty on an error.
 */
int gr_hist_read(const void *hist, uint64_t hist_size, uint32_t nr_cpus,
		 uint32_t slot, const struct gr_hist_req *req,
		 const struct gr_hist_table *prev, struct gr_hist_table *out)
{
	struct hist_build b = { .t = out };
	const struct gr_hist_map_hdr *mh;
	struct gr_hist_row *scratch = NULL;
	uint64_t gen, hits, torn;
	uint32_t cpu, n, nr, i;
	bool check_prev;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!read_args_ok(hist, hist_size, nr_cpus, slot, req))
		return -EINVAL;
	gen = le64toh(req->gen);
	n = 1u << req->entries_log2;
	b.nr_keys = req->nr_keys;
	b.nr_vals = req->nr_vals;
	out->gen = gen;
	out->nr_cpus = nr_cpus;
	for (i = 0; i < b.nr_keys; i++)
		out->key_signed[i] = (req->key[i].flags & GR_HK_SIGNED) &&
				     req->key[i].xform != GR_HT_LOG2;
	check_prev = prev && prev->gen == gen && prev->cpu_hits;
	out->cpu_hits = calloc(nr_cpus, sizeof(*out->cpu_hits));
	scratch = malloc((size_t)n * sizeof(*scratch));
	if (!out->cpu_hits || !scratch)
		goto fail;
	b.index_mask = 63;
	b.index = calloc(b.index_mask + 1, sizeof(*b.index));
	out->rows = malloc((b.index_mask + 1) / 2 * sizeof(*out->rows));
	if (!b.index || !out->rows)
		goto fail;
	out->cap = (b.index_mask + 1) / 2;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		mh = (const void *)((const uint8_t *)hist +
				    gr_hist_map_off(hist_size, slot, cpu,
						    req->entries_log2));
		/* pairs with the guest's stamping of gen after the zeroing */
		if (le64toh(__atomic_load_n(&mh->gen, __ATOMIC_ACQUIRE)) != gen) {
			out->stale_maps++;
			continue;
		}
		hits = LOAD64(&mh->hits);
		if (check_prev && cpu < prev->nr_cpus &&
		    hits < prev->cpu_hits[cpu]) {
			out->bad_maps++;
			out->cpu_hits[cpu] = prev->cpu_hits[cpu];
			continue;
		}
		if (read_map((const void *)(mh + 1), n, &b, scratch, &nr,
			     &torn)) {
			out->bad_maps++;
			if (check_prev && cpu < prev->nr_cpus)
				out->cpu_hits[cpu] = prev->cpu_hits[cpu];
			continue;
		}
		out->cpu_hits[cpu] = hits;
		out->hits += hits;
		out->dropped += LOAD64(&mh->dropped);
		out->nested += LOAD64(&mh->nested);
		out->unmatched += LOAD64(&mh->unmatched);
		out->torn += torn;
		for (i = 0; i < nr; i++) {
			ret = build_add(&b, &scratch[i]);
			if (ret)
				goto fail;
		}
	}
	free(b.index);
	free(scratch);
	return 0;
fail:
	free(b.index);
	free(scratch);
	gr_hist_table_free(out);
	return -ENOMEM;
}

/**
 * gr_hist_table_free() - free what gr_hist_read() allocated
 * @t: the table; it becomes empty (freeing it again does nothing)
 */
void gr_hist_table_free(struct gr_hist_table *t)
{
	free(t->rows);
	free(t->cpu_hits);
	memset(t, 0, sizeof(*t));
}

/**
 * gr_hist_read_state() - one slot's state, read once and checked (17.3)
 * @hist: the mapped hist area
 * @slot: request slot; one >= GR_HIST_REQS reads as GR_HIST_IDLE
 * @state: receives a copy, fields CPU-endian: an unknown state or reason
 *	becomes GR_HIST_REFUSED with reason GR_HIST_E_NONE, an unknown
 *	filter_reason GR_FILTER_E_NONE; reserved bytes read as 0
 *
 * Context: any; does not sleep.
 */
void gr_hist_read_state(const void *hist, uint32_t slot,
			struct gr_hist_state *state)
{
	const struct gr_hist_state *s;
	uint32_t st;

	memset(state, 0, sizeof(*state));
	if (!hist || slot >= GR_HIST_REQS)
		return;
	s = (const void *)((const uint8_t *)hist + GR_HIST_STATE_OFFSET +
			   slot * sizeof(*s));
	/* pairs with the guest's release store of gen after the fields */
	state->gen = le64toh(__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE));
	st = LOAD32(&s->state);
	state->reason = __atomic_load_n(&s->reason, __ATOMIC_RELAXED);
	state->filter_reason = __atomic_load_n(&s->filter_reason,
					       __ATOMIC_RELAXED);
	state->bad = le16toh(__atomic_load_n(&s->bad, __ATOMIC_RELAXED));
	if (st > GR_HIST_REFUSED || state->reason > GR_HIST_E_ATTACH) {
		st = GR_HIST_REFUSED;
		state->reason = GR_HIST_E_NONE;
	}
	state->state = st;
	if (state->reason != GR_HIST_E_FILTER ||
	    state->filter_reason > GR_FILTER_E_SETUP)
		state->filter_reason = GR_FILTER_E_NONE;
}

/* ---------------------------------------------------------------------- */
/* Sorting                                                                */

struct sort_ctx {
	const int *cols;
	const bool *desc;
	int nr;
	const bool *key_signed;
};

static int cmp_u64(uint64_t a, uint64_t b, bool is_signed)
{
	if (is_signed)
		return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
	return a < b ? -1 : a > b;
}

/* Column @col of @r (GR_HIST_SORT_*: -1 hitcount, 0.. keys, 16.. values) */
static int cmp_col(const struct sort_ctx *c, int col,
		   const struct gr_hist_row *a, const struct gr_hist_row *b)
{
	if (col >= 0 && col < GR_HIST_MAX_KEYS)
		return cmp_u64(a->key[col], b->key[col],
			       c->key_signed[col]);
	if (col >= 16 && col < 16 + GR_HIST_MAX_VALS)
		return cmp_u64(a->val[col - 16], b->val[col - 16], false);
	return cmp_u64(a->hitcount, b->hitcount, false);
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	int i, r;

	for (i = 0; i < c->nr; i++) {
		r = cmp_col(c, c->cols[i], pa, pb);
		if (r)
			return c->desc[i] ? -r : r;
	}
	for (i = 0; i < GR_HIST_MAX_KEYS; i++) {
		r = cmp_col(c, i, pa, pb);
		if (r)
			return r;
	}
	return 0;
}

/**
 * gr_hist_sort_rows() - order rows by columns, ties broken by the keys
 * @t: the table
 * @cols: sort columns (filter/hist.h's GR_HIST_SORT_*; another value
 *	sorts as hitcount); @nr 0 = hitcount ascending (ftrace's default)
 * @desc: per column, descending
 * @nr: entries of @cols and @desc
 *
 * Keys compare as signed where the request's key was a signed field not
 * log2-transformed (gr_hist_table.key_signed), values as unsigned.
 */
void gr_hist_sort_rows(struct gr_hist_table *t, const int *cols,
		       const bool *desc, int nr)
{
	static const int hitcount = -1;
	static const bool ascending;
	struct sort_ctx c = { cols, desc, nr, t->key_signed };

	if (nr <= 0) {
		c.cols = &hitcount;
		c.desc = &ascending;
		c.nr = 1;
	}
	if (t->nr_rows > 1)
		qsort_r(t->rows, t->nr_rows, sizeof(*t->rows), cmp_rows, &c);
}

#define LOG2_BUCKETS	65	/* k 0..64: every delay of 64 bits */

/* @a + @b, 2^64 - 1 if it does not fit */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	uint64_t s;

	return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

double gr_hist_log2_quantile(const struct gr_hist_table *t, unsigned int key,
			     unsigned int permille)
{
	uint64_t cnt[LOG2_BUCKETS] = { 0 }, total = 0, rank, cum = 0;
	unsigned int k;
	uint32_t i;

	if (key >= GR_HIST_MAX_KEYS || !permille || permille > 1000)
		return -1;
	for (i = 0; i < t->nr_rows; i++) {
		k = t->rows[i].key[key] >= LOG2_BUCKETS - 1 ? LOG2_BUCKETS - 1 :
			(unsigned int)t->rows[i].key[key];
		cnt[k] = add_sat(cnt[k], t->rows[i].hitcount);
		total = add_sat(total, t->rows[i].hitcount);
	}
	if (!total)
		return -1;
	/* ceil(total x permille / 1000) without overflow, at least 1 */
	rank = total / 1000 * permille +
	       ((total % 1000) * permille + 999) / 1000;
	/* cum reaches total, so k stops at 64 at the latest */
	for (k = 0; k < LOG2_BUCKETS - 1; k++) {
		cum = add_sat(cum, cnt[k]);
		if (cum >= rank)
			break;
	}
	return (k < 64 ? (double)(1ULL << k) : 18446744073709551616.0) / 1e9;
}
