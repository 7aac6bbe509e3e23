// SPDX-License-Identifier: GPL-2.0
/*
 * gr_format: an event's record made from its ftrace entry (issue 25,
 * spec 7.1, 7.3, 18).
 *
 * The layout is the event's own fields (the ones after ftrace's common
 * fields), taken from the public field array of its class
 * (trace_event_class.fields_array) with the offsets ftrace gives them,
 * i.e. those of its tracefs format, less the 8 common bytes:
 *	- integers of 1, 2, 4 or 8 bytes: GR_FIELD_INTEGER, signed as the
 *	  format says, pointers in base 16;
 *	- char[N]: GR_FIELD_CHARS;
 *	- v1.14, while the host accepts them (GR_F_ARRAYS in use,
 *	  GR_FORMAT_ARRAYS): a fixed array T[N] of integers other than char:
 *	  GR_FIELD_ARRAY of N elements of sizeof(T), signed as the format
 *	  says; a field of another type of other than 1, 2, 4 or 8 bytes (a
 *	  struct by value) or an array of such: GR_FIELD_ARRAY of its bytes,
 *	  in base 16;
 *	- a __data_loc (or __rel_loc) char[] string: its 4-byte location
 *	  word stays in place as the integer <name>_loc, and the string
 *	  itself is appended after the fixed fields as the GR_FIELD_STRING
 *	  <name> (at most GR_ANYEVENT_STR_MAX bytes, NUL included);
 *	- a __data_loc (or __rel_loc) array of integers T[] (__bitmask,
 *	  __dynamic_array): its location word becomes in the record the
 *	  integer <name>_len, the number of elements, and the elements are
 *	  appended as the GR_FIELD_SEQUENCE <name> (at most
 *	  GR_ANYEVENT_ARR_MAX bytes; more elements are cut and counted).
 * The variable fields follow the fixed ones in the record, in the
 * format's order, each right after the previous (spec 7.1, 7.3). More
 * than one of them, or a sequence, only while the host accepts them
 * (GR_F_DYNARR in use, v1.11: GR_FORMAT_DYNARR); before that one string.
 * A kprobe event (spec 18.4) has fields defined by code: they are taken
 * from its tracefs format instead, at the offsets shown.
 * An event with any other field (without GR_F_ARRAYS an array of other
 * than char or a struct; a dynamic array of other than integers), with
 * fields defined by code
 * (system call events), more than GR_MAX_FIELDS fields, or names that are
 * not identifiers of the spec's lengths, is refused with its reason;
 * v1.15, while the host accepts descriptor extensions (GR_F_LONG_DESC
 * in use: GR_FORMAT_LONG), up to GR_LONG_MAX_FIELDS fields with names
 * shorter than GR_LONG_FIELD_NAME_LEN (spec 20), as long as each
 * sequence's count is among the fixed fields the 576-byte descriptor
 * keeps.
 *
 * The record of one entry: its fixed part copied as it is, then each
 * variable field (a string up to its NUL, a sequence in whole elements,
 * each within its maximum and within the entry); a sequence's location
 * word is replaced by its count of elements.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include "gr_format.h"

/**
 * gr_format_ident() - is @s a name the spec takes?
 * @s: a name
 * @max: its field's bytes, the NUL included
 *
 * Return: true for [a-z_][a-z0-9_]* shorter than @max, not starting with
 * the host's _gr_ prefix (spec 7.6).
 */
bool gr_format_ident(const char *s, size_t max)
{
	size_t i;

	if (!*s || isdigit(*s) || strlen(s) >= max || !strncmp(s, "_gr_", 4))
		return false;
	for (i = 0; s[i]; i++)
		if (!(islower(s[i]) || isdigit(s[i]) || s[i] == '_'))
			return false;
	return true;
}

static int gr_format_add(struct gr_format *fm, const char *name,
			 const char *suffix, u16 offset, u16 size, u8 type,
			 u8 flags)
{
	bool lng = fm->feats & GR_FORMAT_LONG;
	size_t nlen = lng ? GR_LONG_FIELD_NAME_LEN : GR_FIELD_NAME_LEN;
	struct gr_field_def *f = &fm->fields[fm->nr];
	char *n = fm->names[fm->nr];
	unsigned int i;

	if (fm->nr >= (lng ? GR_LONG_MAX_FIELDS : GR_MAX_FIELDS))
		return -E2BIG;
	if (snprintf(n, nlen, "%s%s", name, suffix) >= nlen ||
	    !gr_format_ident(n, nlen))
		return -ENAMETOOLONG;
	/* not -EEXIST: that is an event name another event has (18.1) */
	for (i = 0; i < fm->nr; i++)
		if (!strcmp(fm->names[i], n))
			return -ENOTUNIQ;
	f->name = n;
	f->offset = offset;
	f->size = size;
	f->type = type;
	f->flags = flags;
	f->elem_size = 0;
	f->len_field = 0;
	fm->nr++;
	return 0;
}

/*
 * Bytes of the integer type named by the @n bytes of @t (a type of the
 * kernel's formats, or a pointer); 0 for another type
 */
static unsigned int gr_format_int_size(const char *t, size_t n)
{
	static const struct {
		const char *name;
		unsigned int size;
	} types[] = {
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "unsigned char", 1 },
		{ "signed char", 1 }, { "bool", 1 }, { "u16", 2 }, { "s16", 2 },
		{ "__u16", 2 }, { "short", 2 }, { "unsigned short", 2 },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "int", 4 },
		{ "unsigned int", 4 }, { "u64", 8 }, { "s64", 8 },
		{ "__u64", 8 }, { "long", sizeof(long) },
		{ "unsigned long", sizeof(long) }, { "long long", 8 },
		{ "unsigned long long", 8 },
	};
	size_t i;

	if (n && t[n - 1] == '*')
		return sizeof(void *);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (strlen(types[i].name) == n && !strncmp(t, types[i].name, n))
			return types[i].size;
	return 0;
}

/*
 * Bytes of an element of a dynamic array of @t, "T[]" with T an integer
 * type of the kernel's formats; 0 for another
 */
static unsigned int gr_format_elem(const char *t)
{
	size_t n = strlen(t);

	if (n < 3 || strcmp(t + n - 2, "[]"))
		return 0;
	return gr_format_int_size(t, n - 2);
}

/*
 * v1.14, GR_F_ARRAYS (spec 7.3): a fixed array "T[N]" of integers as
 * N elements of sizeof(T), or a field of another type (a struct, an
 * array of them) as an array of its bytes in base 16
 */
static int gr_format_array(struct gr_format *fm,
			   const struct trace_event_fields *f, u16 o)
{
	const char *br = strchr(f->type, '[');
	unsigned int elem = 0;
	u8 flags = GR_FIELD_F_HEX;
	int ret;

	if (!(fm->feats & GR_FORMAT_ARRAYS) || !f->size)
		return -EOPNOTSUPP;
	if (br)
		elem = gr_format_int_size(f->type, br - f->type);
	if (elem && !(f->size % elem)) {
		if (br[-1] != '*')
			flags = f->is_signed ? GR_FIELD_F_SIGNED : 0;
	} else {
		elem = 1;
	}
	ret = gr_format_add(fm, f->name, "", o, f->size, GR_FIELD_ARRAY, flags);
	if (!ret)
		fm->fields[fm->nr - 1].elem_size = elem;
	return ret;
}

/*
 * A __data_loc or __rel_loc field of type @t (after the prefix) at entry
 * offset @off: its location word as a field of the fixed part, the
 * field itself noted for the variable part (gr_format_finish())
 */
static int gr_format_loc(struct gr_format *fm,
			 const struct trace_event_fields *f, const char *t,
			 bool rel, unsigned int off)
{
	struct gr_format_var *v = &fm->var[fm->nvar];
	unsigned int elem = 0;
	u8 flags = 0;
	int ret;

	if (f->size != 4 || fm->nvar >= GR_ANYEVENT_VARS)
		return -EOPNOTSUPP;
	if (strcmp(t, "char[]")) {
		elem = gr_format_elem(t);
		if (!elem)
			return -EOPNOTSUPP;
		if (strchr(t, '*'))
			flags = GR_FIELD_F_HEX;
		else if (f->is_signed)
			flags = GR_FIELD_F_SIGNED;
	}
	/* before GR_F_DYNARR (spec 7.3): one string, nothing else */
	if (!(fm->feats & GR_FORMAT_DYNARR) && (elem || fm->nvar))
		return -EOPNOTSUPP;
	if (strscpy(v->name, f->name, sizeof(v->name)) < 0)
		return -ENAMETOOLONG;
	v->loc = off;
	v->rel = rel;
	v->elem = elem;
	v->flags = flags;
	v->len_idx = fm->nr;
	v->max = elem ? GR_ANYEVENT_ARR_MAX - GR_ANYEVENT_ARR_MAX % elem :
		 GR_ANYEVENT_STR_MAX;
	ret = gr_format_add(fm, f->name, elem ? "_len" : "_loc",
			    off - GR_FORMAT_COMMON, 4, GR_FIELD_INTEGER,
			    elem ? 0 : GR_FIELD_F_HEX);
	if (!ret)
		fm->nvar++;
	return ret;
}

/* One field of the format at entry offset @off; -errno if refused. */
static int gr_format_field(struct gr_format *fm,
			   const struct trace_event_fields *f,
			   unsigned int off)
{
	const char *t = f->type;
	u16 o = off - GR_FORMAT_COMMON;
	u8 flags = 0;

	if (!strncmp(t, "__data_loc ", 11))
		return gr_format_loc(fm, f, t + 11, false, off);
	if (!strncmp(t, "__rel_loc ", 10))
		return gr_format_loc(fm, f, t + 10, true, off);
	if (!strncmp(t, "char[", 5) && f->size >= 1)
		return gr_format_add(fm, f->name, "", o, f->size,
				     GR_FIELD_CHARS, 0);
	if (strchr(t, '[') ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return gr_format_array(fm, f, o);
	if (strchr(t, '*'))
		flags = GR_FIELD_F_HEX;
	else if (f->is_signed)
		flags = GR_FIELD_F_SIGNED;
	return gr_format_add(fm, f->name, "", o, f->size, GR_FIELD_INTEGER,
			       flags);
}

/*
 * v1.15 (spec 20.1): the 576-byte descriptor of a layout with more
 * fields keeps the first fixed ones and the variable ones; a sequence's
 * count must be among those, and the stand-ins of the long field names
 * (gr_desc_short_name()) unique among its fields
 */
static int gr_format_check_short(const struct gr_format *fm)
{
	unsigned int keep = fm->nr, i, j, nlong = 0;
	char a[GR_FIELD_NAME_LEN], b[GR_FIELD_NAME_LEN];

	if (fm->nr > GR_MAX_FIELDS)
		keep = GR_MAX_FIELDS - fm->nvar;
	for (i = 0; i < fm->nr; i++) {
		if (fm->fields[i].type == GR_FIELD_SEQUENCE &&
		    fm->fields[i].len_field >= keep)
			return -E2BIG;
		if (strlen(fm->fields[i].name) >= GR_FIELD_NAME_LEN &&
		    ++nlong > GR_LONG_FIELD_NAMES)
			return -ENAMETOOLONG;
	}
	/* the descriptor's fields: 0 .. keep - 1, then the variable ones */
	for (i = 0; i < fm->nr; i++) {
		if (i >= keep && i < fm->nr - fm->nvar)
			continue;
		gr_desc_short_name(a, sizeof(a), fm->fields[i].name, i);
		for (j = 0; j < i; j++) {
			if (j >= keep && j < fm->nr - fm->nvar)
				continue;
			gr_desc_short_name(b, sizeof(b), fm->fields[j].name,
					   j);
			if (!strcmp(a[0] == '_' ? a + 1 : a,
				    b[0] == '_' ? b + 1 : b))
				return -ENOTUNIQ;
		}
	}
	return 0;
}

/* The payload's size from the end @off of the last field in the entry */
static int gr_format_finish(struct gr_format *fm, unsigned int off)
{
	struct gr_format_var *v;
	unsigned int i, share, var = 0;
	int ret;

	if (off - GR_FORMAT_COMMON > U16_MAX / 2)
		return -EPROTO;
	fm->fixed = off - GR_FORMAT_COMMON;
	fm->payload_size = fm->fixed;
	for (i = 0; i < fm->nvar; i++)
		var += fm->var[i].max;
	/* spec 7.3: past GR_ANYEVENT_VAR_MAX in all, an equal share each */
	if (var > GR_ANYEVENT_VAR_MAX)
		for (i = 0; i < fm->nvar; i++) {
			v = &fm->var[i];
			share = GR_ANYEVENT_VAR_MAX / fm->nvar;
			if (v->elem)
				share -= share % v->elem;
			v->max = min_t(unsigned int, v->max, share);
		}
	/* spec 7.1: the variable fields after the fixed ones, in order */
	for (i = 0; i < fm->nvar; i++) {
		v = &fm->var[i];
		ret = gr_format_add(fm, v->name, "", fm->payload_size,
				    v->max, v->elem ? GR_FIELD_SEQUENCE :
				    GR_FIELD_STRING, v->flags);
		if (ret)
			return ret;
		if (v->elem) {
			fm->fields[fm->nr - 1].elem_size = v->elem;
			fm->fields[fm->nr - 1].len_field = v->len_idx;
		}
		fm->payload_size += v->max;
		fm->flags = GR_EVENT_F_VARLEN;
	}
	return gr_format_check_short(fm);
}

/**
 * gr_format_of_call() - the payload layout of an event from its class
 * @fm: receives it
 * @call: the event
 * @nftrace: the number of its own fields in ftrace's list
 * @feats: GR_FORMAT_* the layout may use
 *
 * At the offsets ftrace gives the fields of @call's class (each aligned
 * to its type's alignment after the previous, from the end of the common
 * fields).
 *
 * Return: 0, or -errno if the event cannot be recorded.
 */
int gr_format_of_call(struct gr_format *fm, struct trace_event_call *call,
		      unsigned int nftrace, u8 feats)
{
	const struct trace_event_fields *f = call->class->fields_array;
	unsigned int off = GR_FORMAT_COMMON, n = 0;
	int ret;

	memset(fm, 0, sizeof(*fm));
	fm->feats = feats;
	if (!f || !call->class->perf_probe)
		return -EOPNOTSUPP;
	for (; f->type; f++, n++) {
		if (f->type == TRACE_FUNCTION_TYPE || f->align < 1)
			return -EOPNOTSUPP;
		off = ALIGN(off, f->align);
		ret = gr_format_field(fm, f, off);
		if (ret)
			return ret;
		off += f->size;
	}
	/* the field list tracefs shows has as many */
	if (n != nftrace)
		return -EPROTO;
	return gr_format_finish(fm, off);
}

/**
 * gr_format_of_probe() - the payload layout of a kprobe event (spec 18.4)
 * @fm: receives it
 * @call: the event
 * @ff: its fields from its tracefs format (its code defines them)
 * @nff: their number
 * @nftrace: the number of its fields in ftrace's list
 * @feats: GR_FORMAT_* the layout may use
 *
 * At the offsets the format shows (a probe's arguments are packed, not
 * aligned).
 *
 * Return: 0, or -errno if the event cannot be recorded.
 */
int gr_format_of_probe(struct gr_format *fm, struct trace_event_call *call,
		       const struct gr_name_field *ff, unsigned int nff,
		       unsigned int nftrace, u8 feats)
{
	unsigned int i, off = GR_FORMAT_COMMON;
	int ret;

	memset(fm, 0, sizeof(*fm));
	fm->feats = feats;
	if (!ff || !(call->flags & TRACE_EVENT_FL_KPROBE))
		return -EOPNOTSUPP;
	if (nff != nftrace)
		return -EPROTO;
	for (i = 0; i < nff; i++) {
		const struct trace_event_fields tf = {
			.type = ff[i].type,
			.name = ff[i].name,
			.size = ff[i].size,
			.is_signed = ff[i].is_signed,
		};

		if (ff[i].offset < off || ff[i].size > U16_MAX)
			return -EPROTO;
		ret = gr_format_field(fm, &tf, ff[i].offset);
		if (ret)
			return ret;
		off = ff[i].offset + ff[i].size;
	}
	return gr_format_finish(fm, off);
}

/**
 * gr_format_measure() - where an entry's variable fields are
 * @fm: its event's layout
 * @src: the entry ftrace's perf stage filled
 * @size: its bytes
 * @c: receives each variable field's place and length
 *
 * Every place is checked against @size: a location word that points out
 * of the entry gives an empty field.
 *
 * Context: any (the tracepoint's).
 * Return: the record's payload bytes, or -EINVAL if the entry is shorter
 * than the fixed part.
 */
notrace int gr_format_measure(const struct gr_format *fm, const u8 *src,
			      u32 size, struct gr_format_cursor *c)
{
	const struct gr_format_var *v;
	u32 len, loc;
	unsigned int i;

	if (size < GR_FORMAT_COMMON + fm->fixed)
		return -EINVAL;
	c->cut = false;
	len = fm->fixed;
	for (i = 0; i < fm->nvar; i++) {
		v = &fm->var[i];
		/* offset in the entry (low 16 bits), length in bytes */
		loc = get_unaligned((const u32 *)(src + v->loc));
		c->off[i] = (loc & 0xffff) + (v->rel ? v->loc + 4 : 0);
		c->len[i] = loc >> 16;
		if (c->off[i] > size || c->len[i] > size - c->off[i])
			c->len[i] = 0;
		if (v->elem) {
			/* a sequence: whole elements, at most v->max bytes */
			if (c->len[i] > v->max) {
				c->len[i] = v->max;
				c->cut = true;
			}
			c->len[i] -= c->len[i] % v->elem;
			len += c->len[i];
			continue;
		}
		if (c->len[i] > v->max && !memchr(src + c->off[i], 0, v->max))
			c->cut = true;
		c->len[i] = strnlen(src + c->off[i],
				    min_t(u32, c->len[i], v->max - 1));
		len += c->len[i] + 1;
	}
	return len;
}

/**
 * gr_format_copy() - an entry into a record's payload
 * @fm: its event's layout
 * @dst: the payload, of the bytes gr_format_measure() returned
 * @src: the entry
 * @c: what gr_format_measure() found in it
 *
 * Context: any (the tracepoint's).
 */
notrace void gr_format_copy(const struct gr_format *fm, u8 *dst,
			    const u8 *src, const struct gr_format_cursor *c)
{
	const struct gr_format_var *v;
	unsigned int i;
	u32 len;

	memcpy(dst, src + GR_FORMAT_COMMON, fm->fixed);
	len = fm->fixed;
	for (i = 0; i < fm->nvar; i++) {
		v = &fm->var[i];
		memcpy(dst + len, src + c->off[i], c->len[i]);
		len += c->len[i];
		if (v->elem)	/* its location word holds the count */
			put_unaligned(c->len[i] / v->elem,
				      (u32 *)(dst + v->loc - GR_FORMAT_COMMON));
		else
			dst[len++] = '\0';
	}
}
