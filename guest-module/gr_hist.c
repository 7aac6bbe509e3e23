// SPDX-License-Identifier: GPL-2.0
/*
 * gr_hist.c - aggregation in the guest (spec 17, GR_F_HIST)
 *
 * Control (the control pass, gr_hist_apply()): every request slot of the
 * hist area is copied once into guest memory; a slot whose copy differs
 * from the one last processed is verified again (gr_hist_verify()) and
 * installed whole or refused with its reason, never half. Installing
 * takes the changed slots out of the set the probes run, waits a grace
 * period, zeroes and stamps the new maps, publishes the new set, and only
 * then answers in the slot's state, its gen stored last with release.
 *
 * Probes (gr_hist_event(), from gr_record.c, preemption off): a request
 * counts into its map for the current CPU, which no other context
 * writes but an interrupt or NMI on the same CPU, kept out by a private
 * busy flag (then counted as nested). An entry is written between two
 * stores of its seq, odd then even, so that the host reads whole entries
 * without any lock. No atomics, no allocation, a bounded number of steps.
 *
 * The maps are region memory the host can write too: the guest reads back
 * from them only entries at indices it computed, so a host that scribbles
 * on a map corrupts what it reads of that map and nothing else.
 */
#include "gr_hist.h"
#include "gr_record.h"

#define GR_HIST_NS_PER_SEC	1000000000ULL

/* ---------------------------------------------------------------------- */
/* Verification                                                           */

static int gr_hist_fail(struct gr_hist_err *err, u8 reason, u16 bad)
{
	err->reason = reason;
	err->filter_reason = GR_FILTER_E_NONE;
	err->bad = bad;
	return -EINVAL;
}

static void gr_hist_op_decode(struct gr_hist_op *op,
			      const struct gr_hist_key *k)
{
	op->src = k->src;
	op->width = k->width;
	op->flags = k->flags;
	op->xform = k->xform;
	op->off = le16_to_cpu(k->off);
	op->arg = le64_to_cpu(k->arg);
}

static bool gr_hist_op_zero(const struct gr_hist_key *k)
{
	return !k->src && !k->width && !k->flags && !k->xform && !k->off &&
	       !k->reserved && !k->arg;
}

/* Operand roles: what gr_hist_op_check() allows */
#define GR_HIST_ROLE_KEY	0
#define GR_HIST_ROLE_VAL	1
#define GR_HIST_ROLE_MATCH	2

/*
 * One used operand: 0, or GR_HIST_E_RESERVED for a reserved field or an
 * unknown flag, or 1 for an operand its role cannot have.
 */
static int gr_hist_op_check(const struct gr_hist_key *k, unsigned int role,
			    bool pair, const struct gr_filter_bounds *b)
{
	struct gr_hist_op op;

	if (k->reserved || (k->flags & ~GR_HK_KNOWN))
		return GR_HIST_E_RESERVED;
	gr_hist_op_decode(&op, k);
	if (op.xform != GR_HT_NONE && role != GR_HIST_ROLE_KEY)
		return 1;
	switch (op.xform) {
	case GR_HT_NONE:
	case GR_HT_LOG2:
		if (op.arg && op.src != GR_HS_CONST)
			return 1;
		break;
	case GR_HT_BUCKET:
		if (!op.arg)
			return 1;
		break;
	default:
		return 1;
	}
	if (op.src != GR_HS_FIELD && (op.width || op.off || op.flags))
		return 1;
	switch (op.src) {
	case GR_HS_FIELD:
		if (op.width != 1 && op.width != 2 && op.width != 4 &&
		    op.width != 8)
			return 1;
		return (u32)op.off + op.width > b->fixed;
	case GR_HS_TID:
	case GR_HS_CPU:
		return 0;
	case GR_HS_DELTA:
		return !pair || role == GR_HIST_ROLE_MATCH;
	case GR_HS_CONST:
		return role != GR_HIST_ROLE_VAL;
	default:
		return 1;
	}
}

/* Operands @k[0..@n) against @role, unused ones up to @max all zero */
static int gr_hist_ops_check(const struct gr_hist_key *k, unsigned int n,
			     unsigned int max, unsigned int role, bool pair,
			     const struct gr_filter_bounds *start,
			     const struct gr_filter_bounds *end,
			     u8 reason, struct gr_hist_err *err)
{
	const struct gr_filter_bounds *b;
	unsigned int i;
	int r;

	for (i = 0; i < max; i++) {
		if (i >= n) {
			if (!gr_hist_op_zero(&k[i]))
				return gr_hist_fail(err, GR_HIST_E_RESERVED, i);
			continue;
		}
		b = role == GR_HIST_ROLE_MATCH && i == 0 ? start : end;
		r = gr_hist_op_check(&k[i], role, pair, b);
		if (r)
			return gr_hist_fail(err, r == 1 ? reason : r, i);
	}
	return 0;
}

/* The filter program of @raw into @prog->filter, verified on @b */
static int gr_hist_filter_check(const struct gr_hist_req *raw,
				const struct gr_filter_bounds *b,
				struct gr_hist_prog *prog,
				struct gr_hist_err *err)
{
	struct gr_filter_prog *f = &prog->filter;
	struct gr_filter_err ferr;
	u16 nr = le16_to_cpu(raw->nr_insns);
	u16 len = le16_to_cpu(raw->strtab_len);
	unsigned int i;

	memset(f, 0, sizeof(*f));
	if (!nr && !len)
		return 0;
	if (nr > GR_HIST_MAX_INSNS || len > GR_HIST_STRTAB_LEN || !nr) {
		gr_hist_fail(err, GR_HIST_E_FILTER, GR_FILTER_NO_INSN);
		err->filter_reason = GR_FILTER_E_LENGTH;
		return -EINVAL;
	}
	f->event_id = prog->end_event_id;
	f->nr_insns = nr;
	f->strtab_len = len;
	for (i = 0; i < nr; i++) {
		f->ops[i].code = raw->insns[i].code;
		f->ops[i].width = raw->insns[i].width;
		f->ops[i].jt = raw->insns[i].jt;
		f->ops[i].jf = raw->insns[i].jf;
		f->ops[i].off = le16_to_cpu(raw->insns[i].off);
		f->ops[i].arg = le16_to_cpu(raw->insns[i].arg);
		f->ops[i].k = le64_to_cpu(raw->insns[i].k);
	}
	memcpy(f->strtab, raw->strtab, len);
	if (!gr_filter_verify(f, b, &ferr))
		return 0;
	gr_hist_fail(err, GR_HIST_E_FILTER, ferr.insn);
	err->filter_reason = ferr.reason;
	return -EINVAL;
}

/**
 * gr_hist_verify() - check a private copy of a request (spec 17.2)
 * @raw: the copy, little-endian as the host wrote it; gen not 0
 * @nr_events: events this guest describes
 * @bounds: per event, what may be read of its payload
 * @hist_size: bytes of the hist area
 * @nr_cpus: maps the request needs
 * @prog: receives the request, host byte order (not its memory)
 * @err: receives the reason of a refusal
 *
 * Events below @nr_events; kind, key and value counts; every operand
 * allowed in its role (FIELD of width 1, 2, 4 or 8 inside the fixed
 * payload of the event it is read from, DELTA only in a pair's keys and
 * values, CONST only in values, transforms only on keys, a bucket at
 * least 1 wide); unused operands and reserved fields 0 (a plain
 * request's match operands are pair fields: GR_HIST_E_KIND); the maps of
 * @nr_cpus CPUs inside the slot; the filter program as spec 14.4 with
 * this request's caps. Keys, values and the filter are read from the
 * end event of a pair, match[0] from its start.
 *
 * Context: any.
 * Return: 0, or -EINVAL with @err filled.
 */
int gr_hist_verify(const struct gr_hist_req *raw, u32 nr_events,
		   const struct gr_filter_bounds *bounds, u64 hist_size,
		   u32 nr_cpus, struct gr_hist_prog *prog,
		   struct gr_hist_err *err)
{
	const struct gr_filter_bounds *start, *end;
	unsigned int i;
	bool pair;
	int ret;

	memset(prog, 0, sizeof(*prog));
	prog->gen = le64_to_cpu(raw->gen);
	prog->event_id = le16_to_cpu(raw->event_id);
	prog->end_event_id = le16_to_cpu(raw->end_event_id);
	prog->start2_event_id = le16_to_cpu(raw->start2_event_id);
	prog->start2 = raw->hflags & GR_HIST_F_START2;
	prog->kind = raw->kind;
	prog->nr_keys = raw->nr_keys;
	prog->nr_vals = raw->nr_vals;
	prog->entries_log2 = raw->entries_log2;
	prog->nr_cpus = nr_cpus;
	pair = prog->kind == GR_HIST_PAIR;

	if (prog->event_id >= nr_events)
		return gr_hist_fail(err, GR_HIST_E_EVENT, 0);
	if (pair && prog->end_event_id >= nr_events)
		return gr_hist_fail(err, GR_HIST_E_EVENT, 1);
	if (prog->start2 && prog->start2_event_id >= nr_events)
		return gr_hist_fail(err, GR_HIST_E_EVENT, 2);
	if ((prog->kind != GR_HIST_PLAIN && !pair) ||
	    (!pair && prog->end_event_id) ||
	    (prog->start2 && (!pair ||
			      prog->start2_event_id == prog->event_id)) ||
	    prog->nr_keys < 1 || prog->nr_keys > GR_HIST_MAX_KEYS ||
	    prog->nr_vals > GR_HIST_MAX_VALS)
		return gr_hist_fail(err, GR_HIST_E_KIND, 0);
	if (raw->reserved0 || raw->reserved1 ||
	    (raw->hflags & ~GR_HIST_F_KNOWN) ||
	    (!prog->start2 && prog->start2_event_id))
		return gr_hist_fail(err, GR_HIST_E_RESERVED, 0);
	if (prog->entries_log2 < GR_HIST_MIN_ENTRIES_LOG2 ||
	    prog->entries_log2 > GR_HIST_MAX_ENTRIES_LOG2 ||
	    hist_size < GR_HIST_MIN_SIZE ||
	    (u64)nr_cpus * gr_hist_map_bytes(prog->entries_log2) >
	    gr_hist_slot_bytes(hist_size))
		return gr_hist_fail(err, GR_HIST_E_SIZE, 0);
	if (!pair)
		prog->end_event_id = prog->event_id;
	start = &bounds[prog->event_id];
	end = &bounds[prog->end_event_id];

	ret = gr_hist_ops_check(raw->key, prog->nr_keys, GR_HIST_MAX_KEYS,
				GR_HIST_ROLE_KEY, pair, end, end,
				GR_HIST_E_KEY, err);
	if (!ret)
		ret = gr_hist_ops_check(raw->val, prog->nr_vals,
					GR_HIST_MAX_VALS, GR_HIST_ROLE_VAL,
					pair, end, end, GR_HIST_E_VAL, err);
	/* spec 17.6 E2: a plain request's match is a pair field (KIND) */
	for (i = 0; !ret && !pair && i < 2; i++)
		if (!gr_hist_op_zero(&raw->match[i]))
			ret = gr_hist_fail(err, GR_HIST_E_KIND, i);
	if (!ret && pair)
		ret = gr_hist_ops_check(raw->match, 2, 2, GR_HIST_ROLE_MATCH,
					true, start, end, GR_HIST_E_MATCH, err);
	/* the second start is read with the same match[0] */
	if (!ret && prog->start2)
		ret = gr_hist_ops_check(raw->match, 2, 2, GR_HIST_ROLE_MATCH,
					true, &bounds[prog->start2_event_id],
					end, GR_HIST_E_MATCH, err);
	if (!ret)
		ret = gr_hist_filter_check(raw, end, prog, err);
	if (ret)
		return ret;
	for (i = 0; i < GR_HIST_MAX_KEYS; i++)
		gr_hist_op_decode(&prog->key[i], &raw->key[i]);
	for (i = 0; i < GR_HIST_MAX_VALS; i++)
		gr_hist_op_decode(&prog->val[i], &raw->val[i]);
	for (i = 0; i < 2; i++)
		gr_hist_op_decode(&prog->match[i], &raw->match[i]);
	prog->map_bytes = gr_hist_map_bytes(prog->entries_log2);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The probes' side                                                       */

static __always_inline u64 gr_hist_le_add(__le64 *p, u64 v)
{
	u64 n = le64_to_cpu(READ_ONCE(*p)) + v;

	WRITE_ONCE(*p, cpu_to_le64(n));
	return n;
}

/*
 * Little-endian load of a field the verifier placed in the payload: one
 * load of its width (x86 and arm64 take unaligned ones). The bytes are
 * the record this CPU just wrote; only the host could change them
 * meanwhile, which changes the value, never where it is read.
 */
static __always_inline u64 gr_hist_load(const u8 *p, u8 width)
{
	__le64 v64;
	__le32 v32;
	__le16 v16;

	switch (width) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, sizeof(v16));
		return le16_to_cpu(v16);
	case 4:
		memcpy(&v32, p, sizeof(v32));
		return le32_to_cpu(v32);
	default:
		memcpy(&v64, p, sizeof(v64));
		return le64_to_cpu(v64);
	}
}

static __always_inline u64 gr_hist_value(const struct gr_hist_op *op,
					 const u8 *payload, u32 len, u32 tid,
					 u32 cpu, u64 delta)
{
	u64 v;

	switch (op->src) {
	case GR_HS_FIELD:
		/* verified against the event: only a short record is shorter */
		if (unlikely((u32)op->off + op->width > len))
			return 0;
		v = gr_hist_load(payload + op->off, op->width);
		return op->flags & GR_HK_SIGNED ?
		       gr_filter_sext(v, op->width) : v;
	case GR_HS_TID:
		return tid;
	case GR_HS_CPU:
		return cpu;
	case GR_HS_DELTA:
		return delta;
	case GR_HS_CONST:
		return op->arg;
	default:
		return 0;
	}
}

static __always_inline u64 gr_hist_key(const struct gr_hist_op *op,
				       const u8 *payload, u32 len, u32 tid,
				       u32 cpu, u64 delta)
{
	u64 v = gr_hist_value(op, payload, len, tid, cpu, delta);

	if (op->xform == GR_HT_LOG2)
		return gr_hist_log2(v);
	if (op->xform == GR_HT_BUCKET)
		return div64_u64(v, op->arg) * op->arg;
	return v;
}

static __always_inline struct gr_hist_start *
gr_hist_start_slot(const struct gr_hist_prog *prog, u64 v)
{
	return &prog->starts[(v * GR_HIST_HASH_MUL) >>
			     (64 - GR_HIST_START_LOG2)];
}

/*
 * A start stored under @v. One writer per match value at a time (spec
 * 17.5); two values that share a slot may mix: the end then finds a tag
 * or time it does not trust and counts unmatched.
 */
static notrace void gr_hist_put_start(const struct gr_hist_prog *prog, u64 v,
				      u64 ts)
{
	struct gr_hist_start *s = gr_hist_start_slot(prog, v);

	WRITE_ONCE(s->ts, 0);
	/* empty before the new tag: pairs with gr_hist_take_start()'s rmb */
	smp_wmb();
	WRITE_ONCE(s->tag, v);
	/* the tag before the time: pairs with gr_hist_take_start()'s rmb */
	smp_wmb();
	WRITE_ONCE(s->ts, ts ? ts : 1);
}

static notrace bool gr_hist_take_start(const struct gr_hist_prog *prog,
				       u64 v, u64 *ts)
{
	struct gr_hist_start *s = gr_hist_start_slot(prog, v);
	u64 t1, t2, tag;

	t1 = READ_ONCE(s->ts);
	/* pairs with the smp_wmb()s of gr_hist_put_start() */
	smp_rmb();
	tag = READ_ONCE(s->tag);
	/* the tag before the second time: a changed slot is seen */
	smp_rmb();
	t2 = READ_ONCE(s->ts);
	if (!t1 || t1 != t2 || tag != v)
		return false;
	WRITE_ONCE(s->ts, 0);
	*ts = t1;
	return true;
}

/* The map of @prog for @cpu */
static __always_inline struct gr_hist_map_hdr *
gr_hist_map(const struct gr_hist_prog *prog, u32 cpu)
{
	return (struct gr_hist_map_hdr *)(prog->maps + prog->map_bytes * cpu);
}

/* Count @k (@v summed) in @map; the caller holds this CPU's busy flag */
static notrace void gr_hist_insert(const struct gr_hist_prog *prog,
				   struct gr_hist_map_hdr *map, const u64 *k,
				   const u64 *v)
{
	struct gr_hist_entry *ents = (struct gr_hist_entry *)(map + 1), *e;
	u32 mask = (1U << prog->entries_log2) - 1;
	unsigned int i, j;
	bool fresh = false;
	u64 h;
	u32 seq;

	gr_hist_le_add(&map->hits, 1);
	h = (k[0] * GR_HIST_HASH_MUL ^ k[1]) * GR_HIST_HASH_MUL;
	h >>= 64 - prog->entries_log2;
	for (i = 0; i < GR_HIST_PROBE; i++) {
		e = &ents[(h + i) & mask];
		if (!READ_ONCE(e->used)) {
			fresh = true;
			break;
		}
		if (le64_to_cpu(READ_ONCE(e->key[0])) == k[0] &&
		    le64_to_cpu(READ_ONCE(e->key[1])) == k[1])
			break;
	}
	if (i == GR_HIST_PROBE) {
		gr_hist_le_add(&map->dropped, 1);
		return;
	}
	seq = le32_to_cpu(READ_ONCE(e->seq)) | 1;
	WRITE_ONCE(e->seq, cpu_to_le32(seq));
	/* odd before the fields: pairs with the host's read barrier */
	smp_wmb();
	if (fresh) {
		WRITE_ONCE(e->key[0], cpu_to_le64(k[0]));
		WRITE_ONCE(e->key[1], cpu_to_le64(k[1]));
		WRITE_ONCE(e->hitcount, 0);
		for (j = 0; j < GR_HIST_MAX_VALS; j++)
			WRITE_ONCE(e->val[j], 0);
		WRITE_ONCE(e->used, cpu_to_le32(1));
	}
	gr_hist_le_add(&e->hitcount, 1);
	for (j = 0; j < prog->nr_vals; j++)
		gr_hist_le_add(&e->val[j], v[j]);
	/* the fields before even: pairs with the host's read barrier */
	smp_wmb();
	WRITE_ONCE(e->seq, cpu_to_le32(seq + 1));
}

/* Ticks of the event clock to nanoseconds */
static __always_inline u64 gr_hist_ns(const struct gr_hist_set *set, u64 d)
{
	return set->mult ? mul_u64_u32_shr(d, set->mult, set->shift) : d;
}

/* One record of the event @prog counts (a plain event, a pair's end) */
static notrace void gr_hist_count(const struct gr_hist_set *set,
				  const struct gr_hist_prog *prog,
				  const u8 *payload, u32 len, u32 tid,
				  u32 cpu, u64 ts)
{
	struct gr_hist_map_hdr *map = gr_hist_map(prog, cpu);
	struct gr_hist_pcpu *pc = &prog->pcpu[cpu];
	u64 k[GR_HIST_MAX_KEYS] = { 0 }, v[GR_HIST_MAX_VALS];
	u64 delta = 0, start;
	unsigned int i;

	/* spec 17.4: the filter first, then the nesting test */
	if (prog->filter.nr_insns && likely(payload) &&
	    !gr_filter_match(&prog->filter, payload, len, tid, cpu))
		return;
	/* interrupted an update, or no payload to read: nested */
	if (READ_ONCE(pc->busy) || unlikely(!payload)) {
		gr_hist_le_add(&map->nested, 1);
		return;
	}
	WRITE_ONCE(pc->busy, 1);
	barrier();
	if (prog->kind == GR_HIST_PAIR) {
		if (!gr_hist_take_start(prog,
					gr_hist_value(&prog->match[1], payload,
						      len, tid, cpu, 0),
					&start)) {
			gr_hist_le_add(&map->unmatched, 1);
			goto out;
		}
		delta = ts > start ? gr_hist_ns(set, ts - start) : 0;
	}
	for (i = 0; i < prog->nr_keys; i++)
		k[i] = gr_hist_key(&prog->key[i], payload, len, tid, cpu,
				   delta);
	for (i = 0; i < prog->nr_vals; i++)
		v[i] = gr_hist_value(&prog->val[i], payload, len, tid, cpu,
				     delta);
	gr_hist_insert(prog, map, k, v);
out:
	barrier();
	WRITE_ONCE(pc->busy, 0);
}

/**
 * gr_hist_event() - run the requests of event @id on one record
 * @set: the set in effect
 * @id: the record's event, < GR_WIDE_MAX_EVENTS
 * @payload: its payload (in the ring or a per-CPU scratch buffer);
 *	NULL: the record could not be written (the scratch buffer was in
 *	use by the context this interrupted): counted as nested
 * @len: its bytes, private
 * @tid: common_pid
 * @cpu: the current CPU
 * @ts: the record's event clock
 *
 * Pairs' ends first, then their starts, so that an event that ends and
 * starts intervals measures from its previous occurrence.
 *
 * Context: any, including NMI; preemption disabled, the caller in an
 * RCU-sched read-side section that covers @set.
 */
notrace void gr_hist_event(const struct gr_hist_set *set, unsigned int id,
			   const u8 *payload, u32 len, u32 tid, u32 cpu,
			   u64 ts)
{
	const struct gr_hist_prog *prog;
	unsigned int i;
	u8 m;

	m = set->agg_mask[id];
	for (i = 0; m; i++, m >>= 1) {
		prog = set->progs[i];
		if ((m & 1) && prog && cpu < prog->nr_cpus)
			gr_hist_count(set, prog, payload, len, tid, cpu, ts);
	}
	if (unlikely(!payload))
		return;
	m = set->start_mask[id];
	for (i = 0; m; i++, m >>= 1) {
		prog = set->progs[i];
		if ((m & 1) && prog)
			gr_hist_put_start(prog,
					  gr_hist_value(&prog->match[0],
							payload, len, tid,
							cpu, 0), ts);
	}
}

/* ---------------------------------------------------------------------- */
/* Control                                                                */

/**
 * gr_hist_ctx_init() - a hist area of a new publication
 * @ctx: the context, zeroed by the caller or stopped
 * @area: the hist area in the region
 * @size: its bytes, a layout's hist_size
 * @nr_cpus: maps per request
 * @nr_events: events this guest describes
 * @bounds: per event, what may be read of its payload
 * @clock_freq: event clock ticks per second
 * @attach: attaches an event's probe, or NULL
 *
 * Zeroes what the guest writes in the area (states and maps): no state
 * of another publication survives. The requests are the host's.
 *
 * Context: process; before the region is published.
 */
void gr_hist_ctx_init(struct gr_hist_ctx *ctx, u8 *area, u64 size,
		      u32 nr_cpus, u32 nr_events,
		      const struct gr_filter_bounds *bounds, u64 clock_freq,
		      int (*attach)(unsigned int id))
{
	u64 mult;

	memset(ctx, 0, sizeof(*ctx));
	ctx->area = area;
	ctx->size = size;
	ctx->nr_cpus = nr_cpus;
	ctx->nr_events = min_t(u32, nr_events, GR_WIDE_MAX_EVENTS);
	ctx->bounds = bounds;
	ctx->attach = attach;
	/* DELTA is in ns: mult/shift, with mult below 2^32 */
	if (clock_freq && clock_freq != GR_HIST_NS_PER_SEC) {
		ctx->shift = 32;
		mult = div64_u64(GR_HIST_NS_PER_SEC << 32, clock_freq);
		while (mult > U32_MAX && ctx->shift) {
			ctx->shift--;
			mult = div64_u64(GR_HIST_NS_PER_SEC << ctx->shift,
					 clock_freq);
		}
		ctx->mult = mult > U32_MAX ? U32_MAX : mult;
	}
	if (area && size > GR_HIST_STATE_OFFSET)
		memset(area + GR_HIST_STATE_OFFSET, 0,
		       size - GR_HIST_STATE_OFFSET);
}

static void gr_hist_prog_free(struct gr_hist_prog *prog)
{
	if (!prog)
		return;
	kvfree(prog->starts);
	kvfree(prog->pcpu);
	kvfree(prog);
}

/* A verified, allocated and attached request from @raw, or NULL + @err */
static struct gr_hist_prog *gr_hist_prog_new(struct gr_hist_ctx *ctx,
					     const struct gr_hist_req *raw,
					     unsigned int slot,
					     struct gr_hist_err *err)
{
	struct gr_hist_prog tmp, *prog;

	if (gr_hist_verify(raw, ctx->nr_events, ctx->bounds, ctx->size,
			   ctx->nr_cpus, &tmp, err))
		return NULL;
	prog = kvzalloc(sizeof(*prog), GFP_KERNEL);
	if (!prog)
		goto nomem;
	*prog = tmp;
	prog->pcpu = kvcalloc(ctx->nr_cpus, sizeof(*prog->pcpu), GFP_KERNEL);
	if (!prog->pcpu)
		goto nomem;
	if (prog->kind == GR_HIST_PAIR) {
		prog->starts = kvcalloc(1U << GR_HIST_START_LOG2,
					sizeof(*prog->starts), GFP_KERNEL);
		if (!prog->starts)
			goto nomem;
	}
	prog->maps = ctx->area + gr_hist_map_off(ctx->size, slot, 0,
						 prog->entries_log2);
	if (ctx->attach && (ctx->attach(prog->event_id) ||
			    ctx->attach(prog->end_event_id) ||
			    (prog->start2 &&
			     ctx->attach(prog->start2_event_id)))) {
		gr_hist_prog_free(prog);
		gr_hist_fail(err, GR_HIST_E_ATTACH, 0);
		return NULL;
	}
	return prog;
nomem:
	gr_hist_prog_free(prog);
	gr_hist_fail(err, GR_HIST_E_NOMEM, 0);
	return NULL;
}

/*
 * Publish what @ctx->progs hold (NULL for nothing) in the spare set, then
 * wait for every probe that may still run the set before it: afterwards
 * the spare is free again.
 */
static void gr_hist_publish(struct gr_hist_ctx *ctx)
{
	struct gr_hist_set *set = ctx->live == &ctx->sets[0] ?
				  &ctx->sets[1] : &ctx->sets[0];
	struct gr_hist_prog *prog;
	unsigned int i, n = 0;

	memset(set, 0, sizeof(*set));
	set->mult = ctx->mult;
	set->shift = ctx->shift;
	for (i = 0; i < GR_HIST_REQS; i++) {
		prog = ctx->progs[i];
		set->progs[i] = prog;
		if (!prog)
			continue;
		n++;
		set->agg_mask[prog->end_event_id] |= 1U << i;
		if (prog->kind == GR_HIST_PAIR) {
			set->start_mask[prog->event_id] |= 1U << i;
			if (prog->start2)
				set->start_mask[prog->start2_event_id] |=
					1U << i;
			set->pairs = true;
		}
	}
	if (!n)
		set = NULL;
	gr_rec_set_hist(set);
	synchronize_rcu();
	ctx->live = set;
}

/* The answer for @slot: its fields, then gen with release (spec 17.3) */
static void gr_hist_state_write(struct gr_hist_ctx *ctx, unsigned int slot,
				u64 gen, u32 state,
				const struct gr_hist_err *err)
{
	struct gr_hist_state *st = (struct gr_hist_state *)
		(ctx->area + GR_HIST_STATE_OFFSET) + slot;

	WRITE_ONCE(st->state, cpu_to_le32(state));
	WRITE_ONCE(st->reason, err ? err->reason : GR_HIST_E_NONE);
	WRITE_ONCE(st->filter_reason, err ? err->filter_reason : 0);
	WRITE_ONCE(st->bad, cpu_to_le16(err ? err->bad : 0));
	memset(st->reserved, 0, sizeof(st->reserved));
	/* the state and, when running, the zeroed maps before the gen */
	smp_store_release(&st->gen, cpu_to_le64(gen));
}

/* Zero @prog's maps and stamp them with its gen */
static void gr_hist_maps_reset(const struct gr_hist_prog *prog)
{
	struct gr_hist_map_hdr *map;
	u32 cpu;

	for (cpu = 0; cpu < prog->nr_cpus; cpu++) {
		map = gr_hist_map(prog, cpu);
		memset(map, 0, prog->map_bytes);
		WRITE_ONCE(map->gen, cpu_to_le64(prog->gen));
	}
}

/* Take the requests of the slots in @mask out of effect and free them */
static void gr_hist_remove(struct gr_hist_ctx *ctx, u32 mask)
{
	struct gr_hist_prog *old[GR_HIST_REQS] = { NULL };
	unsigned int i;

	for (i = 0; i < GR_HIST_REQS; i++) {
		if (!(mask & (1U << i)))
			continue;
		old[i] = ctx->progs[i];
		ctx->progs[i] = NULL;
	}
	gr_hist_publish(ctx);
	for (i = 0; i < GR_HIST_REQS; i++)
		gr_hist_prog_free(old[i]);
}

/**
 * gr_hist_apply() - the hist requests of a control pass (spec 17.3)
 * @ctx: the hist area
 * @in_use: GR_F_HIST is in use (the host's block has it); false: every
 *	slot is idle
 *
 * Each slot is copied once; one whose copy changed since it was last
 * processed is processed again: gen 0 is idle, any other gen is verified,
 * allocated and attached, then installed or refused. Changed slots leave
 * the probes' set first (a grace period), the maps of accepted ones are
 * zeroed and stamped, the new set is published, and the states are
 * written last.
 *
 * Context: process context (allocates, attaches probes, waits for grace
 * periods); the caller serializes (the control pass). Called after the
 * acquire load of ctrl.seq that published the requests.
 * Return: true if a state changed.
 */
bool gr_hist_apply(struct gr_hist_ctx *ctx, bool in_use)
{
	const struct gr_hist_req *shared = (const struct gr_hist_req *)
		(ctx->area + GR_HIST_REQ_OFFSET);
	struct gr_hist_prog *fresh[GR_HIST_REQS] = { NULL };
	struct gr_hist_err err[GR_HIST_REQS];
	struct gr_hist_req raw;
	u32 changed = 0, removed = 0;
	unsigned int i;
	u64 gen;

	if (!ctx->area)
		return false;
	for (i = 0; i < GR_HIST_REQS; i++) {
		if (in_use)
			memcpy(&raw, &shared[i], sizeof(raw));	/* once */
		else
			memset(&raw, 0, sizeof(raw));
		gen = le64_to_cpu(raw.gen);
		if (gen == ctx->gen[i] &&
		    (!gen || !memcmp(&raw, &ctx->raw[i], sizeof(raw))))
			continue;
		changed |= 1U << i;
		ctx->raw[i] = raw;
		ctx->gen[i] = gen;
		if (ctx->progs[i])
			removed |= 1U << i;
		if (gen)
			fresh[i] = gr_hist_prog_new(ctx, &raw, i, &err[i]);
	}
	if (!changed)
		return false;
	/* out of the probes' set before their maps are zeroed */
	if (removed)
		gr_hist_remove(ctx, removed);
	for (i = 0; i < GR_HIST_REQS; i++) {
		if (!fresh[i])
			continue;
		gr_hist_maps_reset(fresh[i]);
		ctx->progs[i] = fresh[i];
	}
	gr_hist_publish(ctx);
	for (i = 0; i < GR_HIST_REQS; i++) {
		if (!(changed & (1U << i)))
			continue;
		if (!ctx->gen[i])
			gr_hist_state_write(ctx, i, 0, GR_HIST_IDLE, NULL);
		else if (fresh[i])
			gr_hist_state_write(ctx, i, ctx->gen[i],
					    GR_HIST_RUNNING, NULL);
		else
			gr_hist_state_write(ctx, i, ctx->gen[i],
					    GR_HIST_REFUSED, &err[i]);
	}
	return true;
}

/**
 * gr_hist_stop() - take every request out of effect
 * @ctx: the hist area
 *
 * The probes run none afterwards and the requests are freed; the states
 * in the region stay as they were (the layout is being withdrawn, or the
 * host is gone). A later gr_hist_apply() starts from idle slots.
 *
 * Context: process context; waits for a grace period.
 */
void gr_hist_stop(struct gr_hist_ctx *ctx)
{
	gr_hist_remove(ctx, (1U << GR_HIST_REQS) - 1);
	memset(ctx->gen, 0, sizeof(ctx->gen));
	memset(ctx->raw, 0, sizeof(ctx->raw));
}

/**
 * gr_hist_running() - the request slots running
 * @ctx: the hist area
 *
 * Return: bit i set if slot i runs a request.
 */
u32 gr_hist_running(const struct gr_hist_ctx *ctx)
{
	u32 mask = 0;
	unsigned int i;

	for (i = 0; i < GR_HIST_REQS; i++)
		if (ctx->progs[i])
			mask |= 1U << i;
	return mask;
}
