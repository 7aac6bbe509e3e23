// SPDX-License-Identifier: GPL-2.0
/*
 * hist.c - ftrace hist trigger requests compiled to guest aggregation
 * requests (spec 17.2)
 *
 * The text is ftrace's hist trigger without the "hist:" prefix (which is
 * accepted too): parts separated by ':', each "NAME=LIST" with the items
 * of a list separated by ','. The parts may come in any order, each at
 * most once; sort= is resolved last, against the keys and values the
 * other parts named. Every refusal points at the offending token in the
 * text (struct gr_fx_error, printed by gr_fx_format_error()). The
 * optional filter is compiled by filter.c and must fit the smaller
 * program of a hist request (GR_HIST_MAX_INSNS).
 *
 * The four latency presets (spec 17.5) are built from the guest's own
 * event table: the events and fields are looked up by name, so a guest
 * that lacks one refuses the preset with its name instead of receiving a
 * request it would refuse. In a pair the keys are read on the end event
 * (the update happens there, when the delay is known).
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hist.h"

#define HIST_PREFIX	"hist:"

/* A token of the text: [pos, pos + len) */
struct hist_tok {
	uint32_t pos;
	uint32_t len;
};

struct hist_parser {
	const char *s;
	const struct gr_event_view *ev;
	struct gr_hist_spec *out;
	struct gr_fx_error *err;
	struct hist_tok sort;		/* the sort= list, resolved last */
	unsigned int max_log2;
	uint8_t seen;			/* HIST_P_* parts already given */
};

#define HIST_P_KEYS	0x1
#define HIST_P_VALS	0x2
#define HIST_P_SORT	0x4
#define HIST_P_SIZE	0x8
#define HIST_P_NAME	0x10

static bool tok_is(const char *s, struct hist_tok t, const char *word)
{
	return strlen(word) == t.len && !memcmp(s + t.pos, word, t.len);
}

/*
 * The next item of a list in [at, end) up to @sep into @t; @at moves past
 * it. Return: true if a separator follows (another item, maybe empty).
 */
static bool next_item(const char *s, uint32_t *at, uint32_t end, char sep,
		      struct hist_tok *t)
{
	t->pos = *at;
	while (*at < end && s[*at] != sep)
		(*at)++;
	t->len = *at - t->pos;
	if (*at == end)
		return false;
	(*at)++;		/* the separator */
	return true;
}

/* Do two operands read the same thing? */
static bool same_operand(const struct gr_hist_key *a,
			 const struct gr_hist_key *b)
{
	return a->src == b->src && (a->src != GR_HS_FIELD || a->off == b->off);
}

/* ---------------------------------------------------------------------- */
/* Fields                                                                 */

/*
 * Resolve @name (not NUL-terminated) on @ev into an operand: a field of
 * the payload, common_pid (alias common_tid) or common_cpu.
 * Return: 0, -ENOENT (no such field) or -EMEDIUMTYPE (a text field).
 */
static int hist_operand(const struct gr_event_view *ev, const char *name,
			size_t len, struct gr_hist_key *k)
{
	const struct gr_field_view *f;
	unsigned int i;

	memset(k, 0, sizeof(*k));
	if ((len == 10 && !memcmp(name, "common_pid", 10)) ||
	    (len == 10 && !memcmp(name, "common_tid", 10))) {
		k->src = GR_HS_TID;
		return 0;
	}
	if (len == 10 && !memcmp(name, "common_cpu", 10)) {
		k->src = GR_HS_CPU;
		return 0;
	}
	for (i = 0; i < ev->nr_fields && i < GR_LONG_MAX_FIELDS; i++) {
		f = &ev->fields[i];
		if (strlen(f->name) != len || memcmp(f->name, name, len))
			continue;
		if (f->type != GR_FIELD_INTEGER)
			return -EMEDIUMTYPE;
		k->src = GR_HS_FIELD;
		k->width = (uint8_t)f->size;
		k->off = htole16(f->offset);
		if (f->flags & GR_FIELD_F_SIGNED)
			k->flags = GR_HK_SIGNED;
		return 0;
	}
	return -ENOENT;
}

/* Refuse @t as an operand of @ev with the reason @ret of hist_operand() */
static int hist_bad_field(struct hist_parser *p, struct hist_tok t, int ret)
{
	char list[200];
	size_t off = 0;
	unsigned int i;

	if (ret == -EMEDIUMTYPE)
		return gr_fx_fail(p->err, t.pos, t.len,
				  "'%.*s' is a text field: a guest hist key or value is a 64-bit integer; key on an integer field",
				  (int)t.len, p->s + t.pos);
	for (i = 0; i < p->ev->nr_fields && i < GR_LONG_MAX_FIELDS; i++) {
		if (p->ev->fields[i].type != GR_FIELD_INTEGER)
			continue;
		off += snprintf(list + off, sizeof(list) - off, "%s, ",
				p->ev->fields[i].name);
		if (off >= sizeof(list))
			break;
	}
	return gr_fx_fail(p->err, t.pos, t.len,
			  "no integer field '%.*s' in %s (fields: %scommon_pid, common_cpu)",
			  (int)t.len, p->s + t.pos, p->ev->name,
			  off < sizeof(list) ? list : "");
}

/* Parse a decimal, 0x hex or 0 octal number in @t; 0 or -EINVAL */
static int hist_number(const char *s, struct hist_tok t, uint64_t *v)
{
	char buf[32], *end;

	if (!t.len || t.len >= sizeof(buf) || !isdigit((unsigned char)s[t.pos]))
		return -EINVAL;
	memcpy(buf, s + t.pos, t.len);
	buf[t.len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return *end || errno ? -EINVAL : 0;
}

/* ---------------------------------------------------------------------- */
/* keys= and vals=                                                        */

/* Modifiers ftrace knows that a guest hist does not implement */
static const char *const hist_unsupported_mods[] = {
	"sym-offset", "syscall", "usecs", "percent", "graph", "stacktrace",
};

/* Apply the modifier @m of key @i */
static int hist_key_mod(struct hist_parser *p, unsigned int i,
			struct hist_tok m)
{
	struct gr_hist_key *k = &p->out->req.key[i];
	uint8_t *disp = &p->out->key_display[i];
	struct hist_tok n;
	uint64_t width;
	size_t j;

	if (tok_is(p->s, m, "hex")) {
		*disp |= GR_HD_HEX;
		return 0;
	}
	if (tok_is(p->s, m, "sym")) {
		*disp |= GR_HD_SYM;
		return 0;
	}
	if (tok_is(p->s, m, "execname")) {
		if (k->src != GR_HS_TID &&
		    !strstr(p->out->key_name[i], "pid") &&
		    !strstr(p->out->key_name[i], "tid"))
			return gr_fx_fail(p->err, m.pos, m.len,
					  ".execname applies to a pid (common_pid or a *pid/*tid field)");
		*disp |= GR_HD_EXECNAME;
		return 0;
	}
	if (tok_is(p->s, m, "log2")) {
		k->xform = GR_HT_LOG2;
		return 0;
	}
	for (j = 0; j < m.len && p->s[m.pos + j] != '='; j++)
		;
	if (j < m.len && ((j == 7 && !memcmp(p->s + m.pos, "buckets", 7)) ||
			  (j == 6 && !memcmp(p->s + m.pos, "bucket", 6)))) {
		n.pos = m.pos + (uint32_t)j + 1;
		n.len = m.len - (uint32_t)j - 1;
		if (hist_number(p->s, n, &width) || !width)
			return gr_fx_fail(p->err, n.pos, n.len,
					  "expected a bucket width of at least 1 after '%.*s='",
					  (int)j, p->s + m.pos);
		k->xform = GR_HT_BUCKET;
		k->arg = htole64(width);
		return 0;
	}
	for (j = 0; j < ARRAY_SIZE(hist_unsupported_mods); j++)
		if (tok_is(p->s, m, hist_unsupported_mods[j]))
			return gr_fx_fail(p->err, m.pos, m.len,
					  "modifier '.%.*s' is not supported by a guest hist (supported: .log2, .buckets=N, .hex, .sym, .execname)",
					  (int)m.len, p->s + m.pos);
	return gr_fx_fail(p->err, m.pos, m.len,
			  "unknown modifier '.%.*s' (supported: .log2, .buckets=N, .hex, .sym, .execname)",
			  (int)m.len, p->s + m.pos);
}

/* Split @item at its first '.': @name before, @mod after; true if a '.' */
static bool split_dot(const char *s, struct hist_tok item,
		      struct hist_tok *name, struct hist_tok *mod)
{
	const char *dot = memchr(s + item.pos, '.', item.len);

	name->pos = item.pos;
	name->len = dot ? (uint32_t)(dot - (s + item.pos)) : item.len;
	mod->pos = item.pos + name->len + 1;
	mod->len = dot ? item.len - name->len - 1 : 0;
	return dot != NULL;
}

/* The keys or the values of a request, as one list */
struct hist_list {
	const char *what;		/* "key", "value" */
	const char *beside;		/* said after the cap */
	bool is_key;
	struct gr_hist_key *ops;
	char (*names)[GR_HIST_COL_LEN];
	uint8_t *nr;
	unsigned int max;
};

/*
 * Is the key @name of @ev a block event's rwbs flags (GR_RWBS_*)? Shown as
 * ftrace's letters, as ftrace shows its text rwbs (spec 7.5).
 */
static bool key_is_rwbs(const struct gr_event_view *ev, const char *name)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields && i < GR_LONG_MAX_FIELDS; i++)
		if (!strcmp(ev->fields[i].name, name))
			return gr_field_is_rwbs_flags(ev, &ev->fields[i]);
	return false;
}

/* Append the operand @name (@item with its modifier) to @l */
static int hist_add(struct hist_parser *p, const struct hist_list *l,
		    struct hist_tok item, struct hist_tok name)
{
	unsigned int n = *l->nr, i;
	int ret;

	if (n >= l->max)
		return gr_fx_fail(p->err, item.pos, item.len,
				  "too many %ss: a guest hist keeps at most %u%s",
				  l->what, l->max, l->beside);
	ret = hist_operand(p->ev, p->s + name.pos, name.len, &l->ops[n]);
	if (ret)
		return hist_bad_field(p, name, ret);
	for (i = 0; i < n; i++)
		if (same_operand(&l->ops[i], &l->ops[n]))
			return gr_fx_fail(p->err, name.pos, name.len,
					  "duplicate %s '%.*s'", l->what,
					  (int)name.len, p->s + name.pos);
	snprintf(l->names[n], GR_HIST_COL_LEN, "%.*s", (int)name.len,
		 p->s + name.pos);
	if (l->is_key && key_is_rwbs(p->ev, l->names[n]))
		p->out->key_display[n] |= GR_HD_RWBS;
	(*l->nr)++;
	return 0;
}

/* keys= (@l->is_key) or vals=: the list in [at, end) */
static int hist_operands(struct hist_parser *p, const struct hist_list *l,
			 uint32_t at, uint32_t end)
{
	struct hist_tok item, name, mod;
	bool more;
	int ret;

	do {
		more = next_item(p->s, &at, end, ',', &item);
		if (!item.len)
			return gr_fx_fail(p->err, item.pos, 1,
					  "empty %s: name a field after '=' or ','",
					  l->what);
		if (split_dot(p->s, item, &name, &mod) && !l->is_key)
			return gr_fx_fail(p->err, item.pos, item.len,
					  "a value takes no modifier: write the field alone");
		if (tok_is(p->s, name, "hitcount")) {
			if (!l->is_key)
				continue;	/* always kept, as ftrace does */
			return gr_fx_fail(p->err, name.pos, name.len,
					  "hitcount is not a key: it is always kept as a value");
		}
		ret = hist_add(p, l, item, name);
		if (ret || name.len == item.len)
			continue;
		if (!mod.len || memchr(p->s + mod.pos, '.', mod.len))
			return gr_fx_fail(p->err, mod.pos, mod.len,
					  "expected one modifier after '.' (log2, buckets=N, hex, sym or execname)");
		ret = hist_key_mod(p, *l->nr - 1, mod);
	} while (!ret && more);
	return ret;
}

static int hist_keys(struct hist_parser *p, uint32_t at, uint32_t end)
{
	struct gr_hist_req *req = &p->out->req;
	const struct hist_list keys = {
		"key", "", true, req->key, p->out->key_name, &req->nr_keys,
		GR_HIST_MAX_KEYS,
	};

	return hist_operands(p, &keys, at, end);
}

static int hist_vals(struct hist_parser *p, uint32_t at, uint32_t end)
{
	struct gr_hist_req *req = &p->out->req;
	const struct hist_list vals = {
		"value", " beside hitcount", false, req->val, p->out->val_name,
		&req->nr_vals, GR_HIST_MAX_VALS,
	};

	return hist_operands(p, &vals, at, end);
}

/* ---------------------------------------------------------------------- */
/* sort=, size=, name=                                                    */

static int hist_sort_col(const struct gr_hist_spec *o, const char *s,
			 struct hist_tok t)
{
	unsigned int i;

	if (tok_is(s, t, "hitcount"))
		return GR_HIST_SORT_HITCOUNT;
	for (i = 0; i < o->req.nr_keys; i++)
		if (tok_is(s, t, o->key_name[i]))
			return GR_HIST_SORT_KEY(i);
	for (i = 0; i < o->req.nr_vals; i++)
		if (tok_is(s, t, o->val_name[i]))
			return GR_HIST_SORT_VAL(i);
	return INT32_MIN;
}

static int hist_sort(struct hist_parser *p)
{
	struct gr_hist_spec *o = p->out;
	uint32_t at = p->sort.pos, end = p->sort.pos + p->sort.len;
	struct hist_tok item, name, dir;
	int col, i;
	bool more;

	do {
		more = next_item(p->s, &at, end, ',', &item);
		if (!item.len)
			return gr_fx_fail(p->err, item.pos, 1,
					  "empty sort column: name hitcount, a key or a value");
		if (o->nr_sort >= GR_HIST_MAX_SORT)
			return gr_fx_fail(p->err, item.pos, item.len,
					  "too many sort columns: at most %d",
					  GR_HIST_MAX_SORT);
		col = split_dot(p->s, item, &name, &dir);
		if (col && !tok_is(p->s, dir, "descending") &&
		    !tok_is(p->s, dir, "ascending"))
			return gr_fx_fail(p->err, dir.pos - 1, dir.len + 1,
					  "expected .descending or .ascending after a sort column");
		o->sort[o->nr_sort].descending = tok_is(p->s, dir, "descending");
		col = hist_sort_col(o, p->s, name);
		if (col == INT32_MIN)
			return gr_fx_fail(p->err, name.pos, name.len,
					  "cannot sort by '%.*s': not hitcount, a key or a value of this hist",
					  (int)name.len, p->s + name.pos);
		for (i = 0; i < o->nr_sort; i++)
			if (o->sort[i].col == col)
				return gr_fx_fail(p->err, name.pos, name.len,
						  "'%.*s' is already a sort column",
						  (int)name.len,
						  p->s + name.pos);
		o->sort[o->nr_sort++].col = col;
	} while (more);
	return 0;
}

static int hist_size(struct hist_parser *p, struct hist_tok t)
{
	unsigned int n = GR_HIST_MIN_ENTRIES_LOG2;
	uint64_t size;

	if (hist_number(p->s, t, &size) || !size)
		return gr_fx_fail(p->err, t.pos, t.len,
				  "expected a number of entries after size=");
	while (n < 63 && (UINT64_C(1) << n) < size)
		n++;
	if (n > p->max_log2)
		return gr_fx_fail(p->err, t.pos, t.len,
				  "size=%.*s needs 2^%u entries per CPU map; this guest's hist area holds at most %u (2^%u)",
				  (int)t.len, p->s + t.pos, n,
				  1u << p->max_log2, p->max_log2);
	p->out->req.entries_log2 = (uint8_t)n;
	return 0;
}

static int hist_name(struct hist_parser *p, struct hist_tok t)
{
	char name[GR_HIST_NAME_LEN];

	if (t.len >= sizeof(name))
		return gr_fx_fail(p->err, t.pos, t.len,
				  "name of %u bytes; at most %d", t.len,
				  GR_HIST_NAME_LEN - 1);
	memcpy(name, p->s + t.pos, t.len);
	name[t.len] = '\0';
	if (!gr_is_identifier(name, sizeof(name)))
		return gr_fx_fail(p->err, t.pos, t.len,
				  "a hist name is an identifier [a-z_][a-z0-9_]*");
	memcpy(p->out->name, name, sizeof(name));
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The parts                                                              */

struct hist_part {
	const char *word;	/* with its '=' */
	uint8_t bit;
};

static const struct hist_part hist_parts[] = {
	{ "keys=", HIST_P_KEYS }, { "key=", HIST_P_KEYS },
	{ "vals=", HIST_P_VALS }, { "values=", HIST_P_VALS },
	{ "val=", HIST_P_VALS }, { "sort=", HIST_P_SORT },
	{ "size=", HIST_P_SIZE }, { "name=", HIST_P_NAME },
};

/* ftrace's parts that a guest hist does not implement */
static const char *const hist_unsupported_parts[] = {
	"pause", "cont", "continue", "clear", "clock=", "onmatch(",
	"onmax(", "onchange(", "nohitcount", "NOHC",
};

static int hist_part(struct hist_parser *p, struct hist_tok part)
{
	const struct hist_part *hp = NULL;
	struct hist_tok list;
	size_t i, wl;

	for (i = 0; i < ARRAY_SIZE(hist_parts); i++) {
		wl = strlen(hist_parts[i].word);
		if (part.len >= wl &&
		    !memcmp(p->s + part.pos, hist_parts[i].word, wl)) {
			hp = &hist_parts[i];
			break;
		}
	}
	if (!hp) {
		for (i = 0; i < ARRAY_SIZE(hist_unsupported_parts); i++) {
			wl = strlen(hist_unsupported_parts[i]);
			if (part.len >= wl &&
			    !memcmp(p->s + part.pos, hist_unsupported_parts[i],
				    wl))
				return gr_fx_fail(p->err, part.pos, part.len,
						  "'%.*s' is not supported by a guest hist",
						  (int)part.len,
						  p->s + part.pos);
		}
		return gr_fx_fail(p->err, part.pos, part.len,
				  "unknown part '%.*s': expected keys=, vals=, sort=, size= or name=",
				  (int)part.len, p->s + part.pos);
	}
	if (p->seen & hp->bit)
		return gr_fx_fail(p->err, part.pos, (uint32_t)wl - 1,
				  "'%.*s' given twice", (int)wl - 1,
				  p->s + part.pos);
	p->seen |= hp->bit;
	list.pos = part.pos + (uint32_t)wl;
	list.len = part.len - (uint32_t)wl;
	switch (hp->bit) {
	case HIST_P_KEYS:
		return hist_keys(p, list.pos, list.pos + list.len);
	case HIST_P_VALS:
		return hist_vals(p, list.pos, list.pos + list.len);
	case HIST_P_SORT:
		p->sort = list;
		return 0;
	case HIST_P_SIZE:
		return hist_size(p, list);
	default:
		return hist_name(p, list);
	}
}

/* Compile @filter into @out->req's program (the smaller caps of 17.2) */
static int hist_filter(const char *filter, const struct gr_event_view *ev,
		       uint32_t text_len, struct gr_hist_spec *out,
		       struct gr_fx_error *err)
{
	struct gr_filter_slot *slot;
	struct gr_fx_error ferr;
	char line[sizeof(err->msg)];
	unsigned int nr, strtab;
	int ret;

	if (strlen(filter) >= sizeof(out->filter))
		return gr_fx_fail(err, 0, text_len,
				  "filter: longer than %zu bytes",
				  sizeof(out->filter) - 1);
	slot = calloc(1, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	ret = gr_fx_build(filter, ev, slot, &ferr);
	if (ret == -EINVAL) {
		gr_fx_error_line(line, sizeof(line), &ferr);
		gr_fx_fail(err, 0, text_len, "filter: %s", line);
		goto out;
	}
	if (ret)
		goto out;
	nr = le16toh(slot->nr_insns);
	strtab = le16toh(slot->strtab_len);
	if (nr > GR_HIST_MAX_INSNS || strtab > GR_HIST_STRTAB_LEN) {
		ret = gr_fx_fail(err, 0, text_len,
				 "filter: needs %u instructions and %u text bytes; a hist request holds at most %d and %d (column 1-%zu)",
				 nr, strtab, GR_HIST_MAX_INSNS,
				 GR_HIST_STRTAB_LEN, strlen(filter));
		goto out;
	}
	memcpy(out->req.insns, slot->insns, nr * sizeof(slot->insns[0]));
	memcpy(out->req.strtab, slot->strtab, strtab);
	out->req.nr_insns = htole16((uint16_t)nr);
	out->req.strtab_len = htole16((uint16_t)strtab);
	snprintf(out->filter, sizeof(out->filter), "%s", filter);
out:
	free(slot);
	return ret;
}

/**
 * gr_hist_filter() - add a filter to a built request (a latency preset's)
 * @filter: filter expression (filter.h's language)
 * @ev: the event it runs on: for a pair, the end event (spec 17.2)
 * @out: the request; its program and @out->filter are replaced
 * @err: receives the refusal, as gr_hist_parse() reports a filter's
 *
 * Return: 0, -EINVAL with @err filled, or -ENOMEM.
 */
int gr_hist_filter(const char *filter, const struct gr_event_view *ev,
		   struct gr_hist_spec *out, struct gr_fx_error *err)
{
	return hist_filter(filter, ev, (uint32_t)strlen(filter), out, err);
}

/**
 * gr_hist_parse() - compile an ftrace hist request for one event
 * @text: "keys=...[:vals=...][:sort=...][:size=N][:name=...]", "hist:"
 *	in front accepted
 * @filter: filter expression (filter.h's language), NULL or "" = none
 * @ev: the event, as the guest described it (validated)
 * @max_entries_log2: the largest map the hist area allows per CPU
 * @out: receives the request
 * @err: receives the offending token and a message
 *
 * A filter error is reported with @err->pos 0 and @err->len the length of
 * @text (the filter belongs to the whole request) and a message
 * "filter: MESSAGE (column A-B)", A-B counted in @filter from 1:
 * gr_fx_error_from_line() on @err->msg + 8 gives back the position in
 * @filter for gr_fx_format_error().
 *
 * Context: any; does not sleep.
 * Return: 0, -EINVAL with @err filled, or -ENOMEM.
 */
int gr_hist_parse(const char *text, const char *filter,
		  const struct gr_event_view *ev,
		  unsigned int max_entries_log2, struct gr_hist_spec *out,
		  struct gr_fx_error *err)
{
	struct hist_parser p = {
		.s = text, .ev = ev, .out = out, .err = err,
		.max_log2 = max_entries_log2,
	};
	size_t n = strnlen(text, GR_HIST_TEXT_LEN);
	uint32_t at = 0, end;
	struct hist_tok part;
	bool more;
	int ret;

	memset(out, 0, sizeof(*out));
	if (n >= GR_HIST_TEXT_LEN)
		return gr_fx_fail(err, 0, GR_HIST_TEXT_LEN - 1,
				  "hist request longer than %d bytes",
				  GR_HIST_TEXT_LEN - 1);
	end = (uint32_t)n;
	if (p.max_log2 > GR_HIST_MAX_ENTRIES_LOG2)
		p.max_log2 = GR_HIST_MAX_ENTRIES_LOG2;
	if (p.max_log2 < GR_HIST_MIN_ENTRIES_LOG2)
		return gr_fx_fail(err, 0, end,
				  "this guest's hist area has no room for a map of %d entries per CPU",
				  1 << GR_HIST_MIN_ENTRIES_LOG2);
	if (!strncmp(text, HIST_PREFIX, strlen(HIST_PREFIX)))
		at = (uint32_t)strlen(HIST_PREFIX);
	if (at == end)
		return gr_fx_fail(err, 0, end ? end : 1,
				  "empty hist request: give at least keys=FIELD");
	do {
		more = next_item(text, &at, end, ':', &part);
		if (!part.len)
			return gr_fx_fail(err, part.pos ? part.pos - 1 : 0, 1,
					  "empty part: remove the extra ':'");
		ret = hist_part(&p, part);
		if (ret)
			return ret;
	} while (more);
	if (!(p.seen & HIST_P_KEYS))
		return gr_fx_fail(err, 0, end,
				  "no keys=: a hist needs at least one key");
	if (p.seen & HIST_P_SORT) {
		ret = hist_sort(&p);
		if (ret)
			return ret;
	}
	if (filter && *filter) {
		ret = hist_filter(filter, ev, end, out, err);
		if (ret)
			return ret;
	}
	out->req.event_id = htole16(ev->id);
	out->req.kind = GR_HIST_PLAIN;
	if (!(p.seen & HIST_P_SIZE))
		out->req.entries_log2 = (uint8_t)p.max_log2;
	if (!(p.seen & HIST_P_NAME))
		snprintf(out->name, sizeof(out->name), "%.31s", ev->name);
	snprintf(out->event, sizeof(out->event), "%s", ev->name);
	memcpy(out->text, text, n + 1);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Latency presets                                                        */

/*
 * One preset of spec 17.5. A match on a field names its alternatives
 * (spec 17.5 says pid, this guest publishes tid); with none, @match_src
 * (TID or CPU) is both sides' match.
 */
struct hist_preset {
	const char *name;
	const char *start;
	const char *end;
	uint8_t match_src;
	const char *start_match[2];
	const char *end_match[2];
	const char *key;		/* a key of the end event, or NULL */
	const char *start2;		/* a second start (v1.6), or NULL */
};

static const struct hist_preset hist_presets[] = {
	{ "runq", "sched_wakeup", "sched_switch", GR_HS_FIELD,
	  { "pid", "tid" }, { "next_pid", "next_tid" }, NULL,
	  "sched_wakeup_new" },
	{ "syscall", "sys_enter", "sys_exit", GR_HS_TID,
	  { NULL, NULL }, { NULL, NULL }, "id", NULL },
	{ "block", "block_rq_issue", "block_rq_complete", GR_HS_FIELD,
	  { "sector", NULL }, { "sector", NULL }, "dev", NULL },
	{ "irq", "irq_handler_entry", "irq_handler_exit", GR_HS_CPU,
	  { NULL, NULL }, { NULL, NULL }, "irq", NULL },
};

static const struct gr_event_view *find_event(const struct gr_event_view *evs,
					      unsigned int nr, const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(evs[i].name, name))
			return &evs[i];
	return NULL;
}

/* A match operand: the first of @names that @ev has as an integer */
static int preset_field(const struct gr_event_view *ev,
			const char *const names[2], struct gr_hist_key *k)
{
	unsigned int i;

	for (i = 0; i < 2 && names[i]; i++)
		if (!hist_operand(ev, names[i], strlen(names[i]), k) &&
		    k->src == GR_HS_FIELD)
			return 0;
	return -ENOENT;
}

/**
 * gr_hist_latency() - one of the four latency requests (spec 17.5)
 * @preset: "runq", "syscall", "block" or "irq"
 * @events: the guest's events (validated)
 * @nr_events: entries of @events
 * @max_entries_log2: as for gr_hist_parse()
 * @out: receives the request (GR_HIST_PAIR), sorted by its keys
 * @err: receives why not
 * @errlen: size of @err
 *
 * Context: any; does not sleep.
 * Return: 0, -EINVAL (unknown preset, or no room for a map) or -ENOENT
 * (the guest lacks an event or field the preset needs), with @err filled.
 */
int gr_hist_latency(const char *preset, const struct gr_event_view *events,
		    unsigned int nr_events, unsigned int max_entries_log2,
		    struct gr_hist_spec *out, char *err, size_t errlen)
{
	const struct hist_preset *hp = NULL;
	const struct gr_event_view *start, *end;
	struct gr_hist_req *req = &out->req;
	struct gr_hist_key *delta;
	unsigned int i, k = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ARRAY_SIZE(hist_presets); i++)
		if (!strcmp(preset, hist_presets[i].name))
			hp = &hist_presets[i];
	if (!hp) {
		snprintf(err, errlen,
			 "unknown latency '%s' (runq, syscall, block or irq)",
			 preset);
		return -EINVAL;
	}
	if (max_entries_log2 > GR_HIST_MAX_ENTRIES_LOG2)
		max_entries_log2 = GR_HIST_MAX_ENTRIES_LOG2;
	if (max_entries_log2 < GR_HIST_MIN_ENTRIES_LOG2) {
		snprintf(err, errlen, "this guest's hist area has no room for a map");
		return -EINVAL;
	}
	start = find_event(events, nr_events, hp->start);
	end = find_event(events, nr_events, hp->end);
	if (!start || !end) {
		snprintf(err, errlen,
			 "latency %s needs events %s and %s; this guest has no %s",
			 hp->name, hp->start, hp->end,
			 start ? hp->end : hp->start);
		return -ENOENT;
	}
	if (hp->match_src == GR_HS_FIELD) {
		if (preset_field(start, hp->start_match, &req->match[0]) ||
		    preset_field(end, hp->end_match, &req->match[1])) {
			snprintf(err, errlen,
				 "latency %s needs integer fields %s of %s and %s of %s; this guest lacks one",
				 hp->name, hp->start_match[0], hp->start,
				 hp->end_match[0], hp->end);
			return -ENOENT;
		}
	} else {
		req->match[0].src = hp->match_src;
		req->match[1].src = hp->match_src;
	}
	if (hp->key) {
		if (hist_operand(end, hp->key, strlen(hp->key), &req->key[0]) ||
		    req->key[0].src != GR_HS_FIELD) {
			snprintf(err, errlen,
				 "latency %s needs integer field %s of %s; this guest lacks it",
				 hp->name, hp->key, hp->end);
			return -ENOENT;
		}
		snprintf(out->key_name[0], sizeof(out->key_name[0]), "%s",
			 hp->key);
		k = 1;
	}
	delta = &req->key[k];
	delta->src = GR_HS_DELTA;
	delta->xform = GR_HT_LOG2;
	out->key_display[k] = GR_HD_NSECS;
	snprintf(out->key_name[k], sizeof(out->key_name[k]), "delta");
	req->nr_keys = (uint8_t)(k + 1);
	for (i = 0; i < req->nr_keys; i++)
		out->sort[i].col = GR_HIST_SORT_KEY(i);
	out->nr_sort = req->nr_keys;
	req->kind = GR_HIST_PAIR;
	req->event_id = htole16(start->id);
	req->end_event_id = htole16(end->id);
	req->entries_log2 = (uint8_t)max_entries_log2;
	snprintf(out->name, sizeof(out->name), "%s", hp->name);
	snprintf(out->event, sizeof(out->event), "%s->%s", start->name,
		 end->name);
	snprintf(out->text, sizeof(out->text), "keys=%s%sdelta.log2",
		 hp->key ? hp->key : "", hp->key ? "," : "");
	return 0;
}

/**
 * gr_hist_latency_start2() - a preset's second start event (spec 17.5)
 * @preset: the preset @out was built from by gr_hist_latency()
 * @events: the guest's events (validated)
 * @nr_events: entries of @events
 * @out: the request, given GR_HIST_F_START2 if the preset has a second
 *	start the guest describes with match[0]'s field at the same place
 *
 * For a guest of ABI minor 6 or later (a 1.5 guest refuses the flag):
 * runq then also starts at sched_wakeup_new, a new task's first wakeup.
 *
 * Context: any.
 * Return: true if added, false if the request stays with one start.
 */
bool gr_hist_latency_start2(const char *preset,
			    const struct gr_event_view *events,
			    unsigned int nr_events, struct gr_hist_spec *out)
{
	const struct gr_event_view *start2 = NULL, *start;
	const struct hist_preset *hp = NULL;
	struct gr_hist_key m;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hist_presets); i++)
		if (!strcmp(preset, hist_presets[i].name))
			hp = &hist_presets[i];
	if (hp && hp->start2)
		start2 = find_event(events, nr_events, hp->start2);
	if (!start2 || out->req.kind != GR_HIST_PAIR ||
	    start2->id == le16toh(out->req.event_id))
		return false;
	/* the guest reads match[0] from both starts: the same bytes */
	memset(&m, 0, sizeof(m));
	if (hp->match_src == GR_HS_FIELD) {
		if (preset_field(start2, hp->start_match, &m) ||
		    memcmp(&m, &out->req.match[0], sizeof(m)))
			return false;
	}
	start = find_event(events, nr_events, hp->start);
	out->req.start2_event_id = htole16(start2->id);
	out->req.hflags |= GR_HIST_F_START2;
	snprintf(out->event, sizeof(out->event), "%s,%s->%s",
		 start ? start->name : hp->start, start2->name, hp->end);
	return true;
}

/**
 * gr_hist_max_entries_log2() - the largest per-CPU map a slot holds
 * @hist_size: bytes of the hist area (checked, spec 17.1)
 * @nr_cpus: the guest's possible CPUs
 *
 * Context: any.
 * Return: n in [GR_HIST_MIN_ENTRIES_LOG2, GR_HIST_MAX_ENTRIES_LOG2] with
 * @nr_cpus maps of 2^n entries fitting one slot, -EINVAL for 0 CPUs, or
 * -ENOSPC.
 */
int gr_hist_max_entries_log2(uint64_t hist_size, uint32_t nr_cpus)
{
	uint64_t slot;
	int n;

	if (!nr_cpus)
		return -EINVAL;
	if (hist_size <= GR_HIST_MAPS_OFFSET)
		return -ENOSPC;
	slot = gr_hist_slot_bytes(hist_size);
	for (n = GR_HIST_MAX_ENTRIES_LOG2; n >= GR_HIST_MIN_ENTRIES_LOG2; n--)
		if ((uint64_t)nr_cpus * gr_hist_map_bytes((uint32_t)n) <= slot)
			return n;
	return -ENOSPC;
}
