// SPDX-License-Identifier: GPL-2.0
/*
 * fg_names.c - events by name (spec 18, GR_F_ANYEVENT) in the fake guest
 *
 * With --anyevent the fake guest lays out FG_ANY_SLOTS descriptor slots
 * after its table (desc_capacity, N1) and plays a kernel with a small
 * catalogue of trace events of its own besides its table's:
 *
 *   fsys:ev_ints    u8 a, s16 b, u32 c, s64 d    (integers of each size)
 *   fsys:ev_comm    u64 n, char name[16]         (a char array)
 *   fsys:ev_msg     u64 seq, u32 cpu, __data_loc char[] msg (a string)
 *   other:thing     u32 x, u64 y                 (a gap between them)
 *   other:no_rec    cannot be recorded (EOPNOTSUPP)
 *   other:fake_seq  its name is the table's fake_seq's (EEXIST, N4)
 *   long_systems_name_over_15:ev_name_longer_than_thirty_one_chars
 *                   --long (v1.15, spec 20): fsys:ev_ints's fields, the
 *                   last named a_field_name_over_twenty_three
 *   fsys:ev_many    --long: 24 u8 fields (more than 16), ev_ints's bytes
 *   bulk:ev<k>      --catalogue N more, for listings of several pages
 *   guestrelay:NAME the probes the host defined (--probes, fg_probe.c)
 *
 * Its control pass answers the request strip (N2): ADD appends the
 * descriptors (N3) and stores desc_live with release; LIST returns a
 * page of the listing. The writers record the added events once the
 * host enables them (fg_names_write()), with the payloads of fg_events.c
 * of the same shape. --names-hostile damages the answers or the
 * descriptors, for the host's checks (M2, M4).
 */
#include <fnmatch.h>

#include "fakeguest.h"

#define FG_TRACEFS_COMMON	8	/* ftrace's common fields, bytes */

static struct gr_name_req *gr_name_req_strip(u8 *region)
{
	return (struct gr_name_req *)(region + GR_NAME_REQ_OFFSET);
}

static struct gr_name_ans *gr_name_ans_strip(u8 *region)
{
	return (struct gr_name_ans *)(region + GR_NAME_ANS_OFFSET);
}

struct fg_cat {
	const char *system;
	const char *name;
	int err;			/* cannot be recorded: its errno */
	enum fg_event_kind kind;	/* the payload fg_events.c writes */
	const char *fields;		/* its LIST fields (18.1) */
};

#define FG_INTS_FIELDS	"u8 a@8+1u;s16 b@9+2s;u32 c@11+4u;s64 d@15+8s"

static const struct fg_cat fg_cat[] = {
	{ "fsys", "ev_ints", 0, FG_EV_INTS, FG_INTS_FIELDS },
	{ "fsys", "ev_comm", 0, FG_EV_CHARS,
	  "u64 n@8+8u;char name[16]@16+16s" },
	{ "fsys", "ev_msg", 0, FG_EV_STR,
	  "u64 seq@8+8u;unsigned int cpu@16+4u;__data_loc char[] msg@20+4u" },
	{ "other", "thing", 0, FG_EV_GAPS, "u32 x@8+4u;u64 y@16+8u" },
	{ "other", "no_rec", EOPNOTSUPP, FG_EV_INTS, "u64 arr[4]@8+32u" },
	{ "other", "fake_seq", EEXIST, FG_EV_INTS, "u64 v@8+8u" },
};

/* v1.15, --long: events that need a descriptor's extension (spec 20) */
#define FG_LONG_SYS	"long_systems_name_over_15"
#define FG_LONG_NAME	"ev_name_longer_than_thirty_one_chars"
#define FG_MANY_FIELDS	"u8 f0@8+1u;u8 f1@9+1u;u8 f2@10+1u;u8 f3@11+1u;"	\
	"u8 f4@12+1u;u8 f5@13+1u;u8 f6@14+1u;u8 f7@15+1u;u8 f8@16+1u;"	\
	"u8 f9@17+1u;u8 f10@18+1u;u8 f11@19+1u;u8 f12@20+1u;u8 f13@21+1u;" \
	"u8 f14@22+1u;u8 f15@23+1u;u8 f16@24+1u;u8 f17@25+1u;u8 f18@26+1u;" \
	"u8 f19@27+1u;u8 f20@28+1u;u8 f21@29+1u;u8 f22@30+1u;u8 f23@31+1u"

static const struct fg_cat fg_cat_long[] = {
	{ FG_LONG_SYS, FG_LONG_NAME, 0, FG_EV_INTS,
	  "u8 a@8+1u;s16 b@9+2s;u32 c@11+4u;s64 a_field_name_over_twenty_three@15+8s" },
	{ "fsys", "ev_many", 0, FG_EV_INTS, FG_MANY_FIELDS },
};

static unsigned int fg_cat_nlong(const struct fakeguest *fg)
{
	return fg->opt.long_desc ? ARRAY_SIZE(fg_cat_long) : 0;
}

static const char *const fg_names_hostile_names[] = {
	[FG_NAMES_HOSTILE_NONE] = "none",
	[FG_NAMES_HOSTILE_LEN] = "len",
	[FG_NAMES_HOSTILE_NEXT] = "next",
	[FG_NAMES_HOSTILE_GARBAGE] = "garbage",
	[FG_NAMES_HOSTILE_SEQ] = "seq",
	[FG_NAMES_HOSTILE_DESC] = "desc",
	[FG_NAMES_HOSTILE_LIVE] = "live",
	[FG_NAMES_HOSTILE_SILENT] = "silent",
	[FG_NAMES_HOSTILE_PROBE_REASON] = "probe-reason",
	[FG_NAMES_HOSTILE_PROBE_LONG] = "probe-long",
	[FG_NAMES_HOSTILE_PROBE_DLINE] = "probe-dline",
	[FG_NAMES_HOSTILE_PROBE_SYSTEM] = "probe-system",
};

/**
 * fg_names_hostile_parse() - --names-hostile KIND
 * @s: the option's value
 * @kind: receives the kind
 *
 * Return: 0 or -EINVAL.
 */
int fg_names_hostile_parse(const char *s, enum fg_names_hostile *kind)
{
	int i = fg_name_index(s, fg_names_hostile_names,
			      ARRAY_SIZE(fg_names_hostile_names));

	if (i <= FG_NAMES_HOSTILE_NONE)
		return -EINVAL;
	*kind = (enum fg_names_hostile)i;
	return 0;
}

/* A table event's fields as tracefs declares them (LIST, 18.1) */
static void fg_table_fields(const struct fg_event *ev, char *buf,
			    size_t size)
{
	const struct fg_field *f;
	size_t off = 0;
	unsigned int i;
	char sign;

	buf[0] = '\0';
	for (i = 0; i < ev->nr_fields && off < size; i++) {
		f = &ev->fields[i];
		sign = f->flags & GR_FIELD_F_SIGNED ? 's' : 'u';
		if (f->type == GR_FIELD_STRING)
			off += snprintf(buf + off, size - off,
					"%s__data_loc char[] %s@%u+4u",
					i ? ";" : "", f->name,
					f->offset + FG_TRACEFS_COMMON);
		else if (f->type == GR_FIELD_CHARS)
			off += snprintf(buf + off, size - off,
					"%schar %s[%u]@%u+%us", i ? ";" : "",
					f->name, f->size,
					f->offset + FG_TRACEFS_COMMON, f->size);
		else
			off += snprintf(buf + off, size - off,
					"%s%c%u %s@%u+%u%c", i ? ";" : "", sign,
					f->size * 8, f->name,
					f->offset + FG_TRACEFS_COMMON, f->size,
					sign);
	}
	if (off >= size)
		buf[0] = '\0';
}

static unsigned int fg_cat_count(const struct fakeguest *fg)
{
	return fg->nr_events + ARRAY_SIZE(fg_cat) + fg_cat_nlong(fg) +
	       fg->opt.catalogue + fg->nr_probes;
}

static void fg_cat_get(const struct fakeguest *fg, unsigned int i,
		       struct fg_cat_ev *e)
{
	memset(e, 0, sizeof(*e));
	e->table_id = -1;
	if (i < fg->nr_events) {
		snprintf(e->system, sizeof(e->system), "%s",
			 fg->events[i].system);
		snprintf(e->name, sizeof(e->name), "%s", fg->events[i].name);
		fg_table_fields(&fg->events[i], e->table_fields,
				sizeof(e->table_fields));
		e->fields = e->table_fields;
		e->table_id = (int)i;
		return;
	}
	i -= fg->nr_events;
	if (i < ARRAY_SIZE(fg_cat)) {
		snprintf(e->system, sizeof(e->system), "%s", fg_cat[i].system);
		snprintf(e->name, sizeof(e->name), "%s", fg_cat[i].name);
		e->err = fg_cat[i].err;
		e->kind = fg_cat[i].kind;
		e->fields = fg_cat[i].fields;
		return;
	}
	i -= ARRAY_SIZE(fg_cat);
	if (i < fg_cat_nlong(fg)) {
		snprintf(e->system, sizeof(e->system), "%s",
			 fg_cat_long[i].system);
		snprintf(e->name, sizeof(e->name), "%s", fg_cat_long[i].name);
		e->kind = fg_cat_long[i].kind;
		e->fields = fg_cat_long[i].fields;
		return;
	}
	i -= fg_cat_nlong(fg);
	if (i >= fg->opt.catalogue) {	/* P8: the host's probes, live ones */
		const struct fg_probe *p = &fg->probes[i - fg->opt.catalogue];

		snprintf(e->system, sizeof(e->system), GR_PROBE_GROUP);
		snprintf(e->name, sizeof(e->name), "%s", p->name);
		e->kind = FG_EV_PROBE;
		e->fields = p->fields;
		e->skip = !p->live;
		return;
	}
	snprintf(e->system, sizeof(e->system), "bulk");
	snprintf(e->name, sizeof(e->name), "ev%u", i);
	e->kind = FG_EV_INTS;
	e->fields = FG_INTS_FIELDS;
}

/* set_event's reading of a pattern, this guest's own */
static bool fg_pattern_names(const char *pat, const struct fg_cat_ev *e)
{
	char sys[64];
	const char *colon = strchr(pat, ':');

	if (!colon)
		return !fnmatch(pat, e->name, 0) || !fnmatch(pat, e->system, 0);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - pat), pat);
	return !fnmatch(sys, e->system, 0) &&
	       (!colon[1] || !fnmatch(colon + 1, e->name, 0));
}

/* The descriptor id of an event added before, else -1 */
static int fg_added_id(const struct fakeguest *fg, const struct fg_cat_ev *e)
{
	unsigned int k;

	for (k = 0; k < fg->nr_added; k++)
		if (!strcmp(fg->added[k].system, e->system) &&
		    !strcmp(fg->added[k].name, e->name))
			return (int)(fg->nr_events + k);
	return -1;
}

/* The fields of a LIST text into @ev's descriptor fields (tracefs - 8) */
static int fg_fields_from_text(struct fg_event *ev, const char *text)
{
	const char *p = text, *at, *semi, *nm;
	unsigned int off, size;
	struct fg_field *f;

	while (*p) {
		if (ev->nr_fields == GR_LONG_MAX_FIELDS)
			return -E2BIG;
		semi = strchr(p, ';');
		if (!semi)
			semi = p + strlen(p);
		at = memchr(p, '@', (size_t)(semi - p));
		if (!at || sscanf(at, "@%u+%u", &off, &size) != 2 ||
		    off < FG_TRACEFS_COMMON)
			return -EINVAL;
		f = &ev->fields[ev->nr_fields++];
		nm = at;
		while (nm > p && nm[-1] != ' ')
			nm--;
		snprintf(f->name, sizeof(f->name), "%.*s",
			 (int)strcspn(nm, "[@"), nm);
		f->offset = (u16)(off - FG_TRACEFS_COMMON);
		if (strstr(p, "__data_loc") && strstr(p, "__data_loc") < at) {
			f->type = GR_FIELD_STRING;
			f->size = FG_STR_MAX;
			ev->flags |= GR_EVENT_F_VARLEN;
		} else if (memchr(p, '[', (size_t)(at - p))) {
			f->type = GR_FIELD_CHARS;
			f->size = (u16)size;
		} else {
			f->type = GR_FIELD_INTEGER;
			f->size = (u16)size;
			f->flags = semi[-1] == 's' ? GR_FIELD_F_SIGNED : 0;
		}
		ev->payload_size = f->offset + f->size;
		p = *semi ? semi + 1 : semi;
	}
	return 0;
}

/*
 * N3: lay @e out in slot desc_live (the whole stride, unused bytes zero),
 * then desc_live + 1 with release; -ENOSPC when the slots are used up
 * (fg_probe.c adds its probes here too)
 */
int fg_names_add_event(struct fakeguest *fg, const struct fg_cat_ev *e)
{
	struct fg_event *ev;
	unsigned int id = fg->nr_events + fg->nr_added;
	u8 *slot;

	/* spec 19.2 W1: up to wide_capacity while the host has the bit */
	if (id >= ((fg->features & GR_F_WIDE_EVENTS) ?
		   fg->lay.wide_capacity : fg->desc_capacity) ||
	    fg->nr_added >= FG_ANY_ADDED_MAX)
		return -ENOSPC;
	ev = &fg->added[fg->nr_added];
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->system, sizeof(ev->system), "%s", e->system);
	snprintf(ev->name, sizeof(ev->name), "%s", e->name);
	ev->kind = e->kind;
	if (fg_fields_from_text(ev, e->fields))
		return -EOPNOTSUPP;
	/* v1.15 (spec 20.2 L2): what 576 bytes do not hold, only in use */
	if (fg_event_is_long(ev) &&
	    (!(fg->features & GR_F_LONG_DESC) ||
	     fg->lay.desc_stride < GR_LONG_DESC_STRIDE))
		return ev->nr_fields > GR_MAX_FIELDS ? -E2BIG : -ENAMETOOLONG;
	if (sizeof(struct gr_event_header) + ev->payload_size >
	    fg->lay.max_event_size)
		return -EOPNOTSUPP;
	slot = fg->region + fg->lay.desc_offset +
	       (size_t)id * fg->lay.desc_stride;
	memset(slot, 0, fg->lay.desc_stride);
	fg_desc_fill_event(id, ev, (struct gr_event_desc *)slot);
	if (fg_event_is_long(ev))
		fg_desc_fill_ext(id, ev, (struct gr_event_desc_long *)slot);
	if (fg->opt.names_hostile == FG_NAMES_HOSTILE_DESC &&
	    ev->nr_fields > 1) {
		/* 7.4: the second field overlaps the first */
		((struct gr_event_desc *)slot)->fields[1].offset = 0;
	}
	fg->nr_added++;
	/* the descriptor, then desc_live; pairs with the host's acquire */
	if (fg->lay.wide_offset &&
	    fg->opt.names_hostile != FG_NAMES_HOSTILE_LIVE)
		gr_status_set_live(fg->region, &fg->lay,
				   fg->nr_events + fg->nr_added);	/* W2 */
	else
		smp_store_release(&gr_status(fg->region)->desc_live,
				  cpu_to_le32(fg->opt.names_hostile ==
					      FG_NAMES_HOSTILE_LIVE ?
					      fg->desc_capacity + 5 :
					      fg->nr_events + fg->nr_added));
	/* the writers see the event once it is there (they never write it
	 * before the host enables its id)
	 */
	__atomic_store_n(&fg->nr_added_pub, fg->nr_added, __ATOMIC_RELEASE);
	return 0;
}

/* Append a line to the answer's text, whole lines only */
void fg_names_line(struct gr_name_ans *a, u32 *len, const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n <= 0 || (size_t)n >= sizeof(line) ||
	    *len + (u32)n > GR_NAME_ANS_TEXT)
		return;
	memcpy(a->text + *len, line, (size_t)n);
	*len += (u32)n;
}

/* ADD (N3, N4, N5): @text is the request's, NUL-terminated */
static int fg_names_add(struct fakeguest *fg, char *text,
			struct gr_name_ans *a)
{
	char *pats[64], *tok, *save = NULL;
	unsigned int np = 0, i, p, n = fg_cat_count(fg);
	bool hit[64] = { false };
	struct fg_cat_ev e;
	u32 len = 0;
	int id, ret;

	for (tok = strtok_r(text, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (np == ARRAY_SIZE(pats) || strlen(tok) > 63)
			return -EINVAL;
		pats[np++] = tok;
	}
	if (!np)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		bool named = false;

		fg_cat_get(fg, i, &e);
		if (e.skip)
			continue;
		for (p = 0; p < np; p++) {
			if (fg_pattern_names(pats[p], &e)) {
				hit[p] = true;
				named = true;
			}
		}
		if (!named)
			continue;
		a->matched++;
		id = e.table_id >= 0 ? e.table_id : fg_added_id(fg, &e);
		if (id >= 0) {
			fg_names_line(a, &len, "K %s:%s %d\n", e.system, e.name,
				    id);
			continue;
		}
		ret = e.err ? -e.err : fg_names_add_event(fg, &e);
		if (ret) {
			a->refused++;
			fg_names_line(a, &len, "R %s:%s %d\n", e.system, e.name,
				    -ret);
			continue;
		}
		a->added++;
		fg_names_line(a, &len, "A %s:%s %u\n", e.system, e.name,
			    fg->nr_events + fg->nr_added - 1);
	}
	for (p = 0; p < np; p++)
		if (!hit[p])
			fg_names_line(a, &len, "N %s %d\n", pats[p], ENOENT);
	a->len = len;
	return 0;
}

/* One LIST line of catalogue event @i into @line; its length */
static int fg_list_line(const struct fakeguest *fg, unsigned int i,
			char *line, size_t size)
{
	struct fg_cat_ev e;
	char state[16];
	int id;

	fg_cat_get(fg, i, &e);
	id = fg_added_id(fg, &e);
	if (e.table_id >= 0)
		snprintf(state, sizeof(state), "n");
	else if (id >= 0)
		snprintf(state, sizeof(state), "p");
	else if (e.err)
		snprintf(state, sizeof(state), "-%d", e.err);
	else
		snprintf(state, sizeof(state), "y");
	return snprintf(line, size, "%s:%s %s%s%s\n", e.system, e.name, state,
			e.fields[0] ? " " : "", e.fields);
}

/*
 * LIST: the page of the listing at @offset, filtered by @pat: whole
 * lines from @offset (a line start, else ERANGE) while they fit
 */
static int fg_names_list(struct fakeguest *fg, const char *pat, u32 offset,
			 struct gr_name_ans *a)
{
	unsigned int i, n = fg_cat_count(fg);
	u32 pos = 0, len = 0;
	bool full = false, inside = false;
	struct fg_cat_ev e;
	char line[512];
	int l;

	for (i = 0; i < n; i++) {
		fg_cat_get(fg, i, &e);
		if (e.skip || (pat[0] && !fg_pattern_names(pat, &e)))
			continue;
		l = fg_list_line(fg, i, line, sizeof(line));
		if (l <= 0 || (size_t)l >= sizeof(line))
			continue;
		a->matched++;
		if (pos < offset && pos + (u32)l > offset)
			inside = true;
		if (pos >= offset && !full) {
			if (len + (u32)l > GR_NAME_ANS_TEXT) {
				full = true;
				a->next = pos;
			} else {
				memcpy(a->text + len, line, (size_t)l);
				len += (u32)l;
			}
		}
		pos += (u32)l;
	}
	if (offset > pos || inside)
		return -ERANGE;
	a->total = pos;
	if (!full)
		a->next = pos;
	a->len = len;
	return 0;
}

/* The answer into the strip, seq last with release (N2) */
static void fg_names_answer(struct fakeguest *fg, struct gr_name_ans *a,
			    u64 seq)
{
	struct gr_name_ans *out = gr_name_ans_strip(fg->region);
	/* spec 19.2 W2: the wide area's count, all of them, if there is one */
	__le32 *at = fg->lay.wide_offset ?
		     &gr_wide(fg->region, fg->lay.wide_offset)->desc_live :
		     &gr_status(fg->region)->desc_live;
	u32 live = le32_to_cpu(READ_ONCE(*at));

	switch (fg->opt.names_hostile) {
	case FG_NAMES_HOSTILE_LEN:
		a->len = GR_NAME_ANS_TEXT + 100;
		break;
	case FG_NAMES_HOSTILE_NEXT:
		a->next = a->total + 100;
		break;
	case FG_NAMES_HOSTILE_GARBAGE:
		a->len = (u32)snprintf(a->text, sizeof(a->text),
				       "A \x1b[31mowned 1\nzz top\n");
		break;
	case FG_NAMES_HOSTILE_SEQ:
		seq += 7;
		break;
	default:
		break;
	}
	out->result = cpu_to_le32(a->result);
	out->matched = cpu_to_le32(a->matched);
	out->added = cpu_to_le32(a->added);
	out->refused = cpu_to_le32(a->refused);
	out->desc_live = cpu_to_le32(live);
	out->total = cpu_to_le32(a->total);
	out->next = cpu_to_le32(a->next);
	out->len = cpu_to_le32(a->len);
	memset(out->reserved, 0, sizeof(out->reserved));
	memcpy(out->text, a->text, sizeof(out->text));
	/* everything above before seq; pairs with the host's acquire */
	smp_store_release(&out->seq, cpu_to_le64(seq));
}

/**
 * fg_names_pass() - answer the host's request for events by name (N2)
 * @fg: the fake guest
 *
 * Context: the control pass, under pass_lock, after the settings.
 * Return: true if an answer was written (ring GR_VEC_STATUS).
 */
bool fg_names_pass(struct fakeguest *fg)
{
	struct gr_name_req *q = gr_name_req_strip(fg->region);
	struct gr_name_req req;
	struct gr_name_ans *a;
	char text[GR_NAME_REQ_TEXT + 1];
	u32 len, op;
	u64 seq;

	if (!fg->opt.anyevent ||
	    !(__atomic_load_n(&fg->features, __ATOMIC_RELAXED) &
	      GR_F_ANYEVENT))
		return false;
	seq = fg_load_req(&q->seq);
	if (seq == fg->names_seq)
		return false;
	fg->names_seq = seq;
	if (fg->opt.names_hostile == FG_NAMES_HOSTILE_SILENT)
		return false;
	/* the rest of the strip once, into private memory */
	memcpy(&req, q, sizeof(req));
	op = le32_to_cpu(req.op);
	len = le32_to_cpu(req.len);
	a = calloc(1, sizeof(*a));
	if (!a)
		return false;
	if (len > GR_NAME_REQ_TEXT) {
		a->result = EINVAL;
	} else {
		memcpy(text, req.text, len);
		text[len] = '\0';
		if (strlen(text) != len)
			a->result = EINVAL;
		else if (op == GR_NAME_OP_ADD)
			a->result = (u32)-fg_names_add(fg, text, a);
		else if (op == GR_NAME_OP_LIST)
			a->result = (u32)-fg_names_list(fg, text,
							le32_to_cpu(req.offset),
							a);
		else
			a->result = (u32)-fg_probe_pass(fg, op, text, a);
	}
	if (a->result && op != GR_NAME_OP_PROBE) {
		a->len = 0;
		a->matched = 0;
		a->added = 0;
		a->refused = 0;
	}
	fg->names_answered++;
	fg_names_answer(fg, a, seq);
	free(a);
	return true;
}

/**
 * fg_names_reset() - a new publication: nothing added, no probe (N6, P7)
 * @fg: the fake guest
 *
 * A request already in the strip was written for the instance before
 * (a guest that restarts finds the last one there): it is taken as
 * answered, never done again for this instance.
 */
void fg_names_reset(struct fakeguest *fg)
{
	fg->nr_added = 0;
	__atomic_store_n(&fg->nr_added_pub, 0, __ATOMIC_RELAXED);
	fg->names_seq = fg_load_req(&gr_name_req_strip(fg->region)->seq);
	fg_probes_reset(fg);
}

/**
 * fg_names_write() - the writer's records of the events added by name
 * @w: the writer
 * @tracing: recording is on
 *
 * Only the ids the host enabled (N3: never before); payloads as the
 * table events of the same shape.
 *
 * Context: a writer thread, inside its ring.
 */
void fg_names_write(struct fg_writer *w, bool tracing)
{
	struct fakeguest *fg = w->fg;
	unsigned int k, n, id;

	if (!tracing)
		return;
	/* pairs with the release in fg_add(): the event is complete */
	n = __atomic_load_n(&fg->nr_added_pub, __ATOMIC_ACQUIRE);
	for (k = 0; k < n; k++) {
		id = fg->nr_events + k;
		/* P6: a deleted probe records nothing, enabled or not */
		if (!fg_event_enabled(fg, id) ||
		    __atomic_load_n(&fg->added_gone[k], __ATOMIC_RELAXED))
			continue;
		if (!fg_write_event(fg->chan, &fg->added[k], id, w->cpu,
				    w->byname_next++))
			w->byname_written++;
	}
}
