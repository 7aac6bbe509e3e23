// SPDX-License-Identifier: GPL-2.0
/*
 * name_text.c - the texts of events by name (spec 18.1): the host's
 * patterns, the guest's answers parsed and checked (M4)
 *
 *   ADD answer    A|K system:name id      R system:name errno
 *                 N pattern errno         D system:name id (v1.8)
 *                 E reason (v1.8: printable ASCII, one line, Q2)
 *   LIST answer   system:name state decl@offset+size(s|u);...[;...]
 *
 * Nothing here keeps state or touches the region beyond the one copy of
 * the answer strip (gr_name_answer_read()). A line that breaks the
 * syntax refuses the whole answer: the guest's counts and lines are
 * reports, what the host records is decided by the descriptors (M4).
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "name_text.h"

#define GR_NAME_MAX_PATTERNS	64	/* per request (N5) */
#define GR_NAME_MAX_ERRNO	4095
#define GR_NAME_LIST_FIELDS	128	/* fields of a LIST line kept */

/* printable ASCII other than space */
static bool graph(char c)
{
	return c > ' ' && c < 0x7f;
}

/**
 * gr_name_pattern_ok() - is @p a pattern of spec 18.1?
 * @p: the pattern
 * @len: its bytes
 *
 * `system:name`, `system:` or `name`; printable ASCII other than space
 * and ',', at most 63 bytes, one ':' at most and not first.
 *
 * Return: true if it is.
 */
bool gr_name_pattern_ok(const char *p, size_t len)
{
	unsigned int colons = 0;
	size_t i;

	if (!len || len > GR_NAME_PAT_MAX || p[0] == ':')
		return false;
	for (i = 0; i < len; i++) {
		if (!graph(p[i]) || p[i] == ',')
			return false;
		colons += p[i] == ':';
	}
	return colons <= 1;
}

/**
 * gr_name_patterns() - an ADD request's text from a list of patterns
 * @list: patterns separated by ',' or spaces
 * @text: receives them separated by ',' (not NUL-terminated if full)
 * @size: room in @text (GR_NAME_REQ_TEXT)
 * @why: receives the reason of a refusal
 *
 * Return: bytes of @text, or -EINVAL (a bad pattern, none, more than 64),
 * -E2BIG (longer than @size).
 */
int gr_name_patterns(const char *list, char *text, size_t size,
		     const char **why)
{
	const char *p = list, *end;
	unsigned int n = 0;
	size_t len, off = 0;

	while (*p) {
		len = strcspn(p, ", ");
		end = p + len;
		if (len) {
			if (!gr_name_pattern_ok(p, len)) {
				*why = "an event pattern is system:name, system: or name (printable, at most 63 bytes)";
				return -EINVAL;
			}
			if (++n > GR_NAME_MAX_PATTERNS) {
				*why = "more than 64 event patterns";
				return -EINVAL;
			}
			if (off + (off ? 1 : 0) + len > size) {
				*why = "the event patterns exceed 992 bytes";
				return -E2BIG;
			}
			if (off)
				text[off++] = ',';
			memcpy(text + off, p, len);
			off += len;
		}
		p = *end ? end + 1 : end;
	}
	if (!n) {
		*why = "no event pattern";
		return -EINVAL;
	}
	return (int)off;
}

/**
 * gr_name_match() - does @pattern name the event @system:@name?
 * @pattern: `system:name`, `system:` or `name`, globs in both parts
 * @system: the event's system
 * @name: the event's name
 *
 * As ftrace's set_event: a bare word is the event of that name in any
 * system, or every event of the system of that name.
 *
 * Return: true if it does.
 */
bool gr_name_match(const char *pattern, const char *system, const char *name)
{
	const char *colon = strchr(pattern, ':');
	char sys[GR_NAME_PAT_MAX + 1];
	size_t n;

	if (!colon)
		return !fnmatch(pattern, name, 0) ||
		       !fnmatch(pattern, system, 0);
	n = (size_t)(colon - pattern);
	if (n >= sizeof(sys))
		return false;
	memcpy(sys, pattern, n);
	sys[n] = '\0';
	if (fnmatch(sys, system, 0))
		return false;
	return !colon[1] || !fnmatch(colon + 1, name, 0);
}

/**
 * gr_name_answer_read() - the answer strip, once, into private memory
 * @a: the strip in the region
 * @out: receives it in host byte order
 *
 * @seq first, with acquire (pairs with the guest's release of seq, the
 * last store of its answer, N2); every other byte once afterwards.
 */
void gr_name_answer_read(const struct gr_name_ans *a,
			 struct gr_name_answer *out)
{
	out->seq = le64toh(__atomic_load_n(&a->seq, __ATOMIC_ACQUIRE));
	out->result = le32toh(a->result);
	out->matched = le32toh(a->matched);
	out->added = le32toh(a->added);
	out->refused = le32toh(a->refused);
	out->desc_live = le32toh(a->desc_live);
	out->total = le32toh(a->total);
	out->next = le32toh(a->next);
	out->len = le32toh(a->len);
	memcpy(out->text, a->text, sizeof(out->text));
}

/**
 * gr_name_answer_check() - M4: an answer's numbers and its text's shape
 * @a: the answer, read once
 * @op: GR_NAME_OP_* of the request
 * @offset: the request's LIST offset
 * @why: receives the reason of a refusal
 *
 * An answer refusing an ADD or LIST (@a->result) passes: its text is not
 * used; that of a refused PROBE or UNPROBE carries the reason (18.4) and
 * is checked as any text. Lines are checked by the parsers.
 *
 * Return: 0 or -EPROTO.
 */
int gr_name_answer_check(const struct gr_name_answer *a, uint32_t op,
			 uint32_t offset, const char **why)
{
	if (a->result) {
		if (a->result > GR_NAME_MAX_ERRNO) {
			*why = "its result is not an errno";
			return -EPROTO;
		}
		if (op != GR_NAME_OP_PROBE && op != GR_NAME_OP_UNPROBE)
			return 0;
	}
	if (a->len > GR_NAME_ANS_TEXT) {
		*why = "its text is longer than 1984 bytes";
		return -EPROTO;
	}
	if (a->len && a->text[a->len - 1] != '\n') {
		*why = "its text does not end with a whole line";
		return -EPROTO;
	}
	if (op != GR_NAME_OP_LIST)
		return 0;
	if (a->total > GR_NAME_LIST_MAX) {
		*why = "its listing is larger than 1 MiB";
		return -EPROTO;
	}
	if (a->next < offset || a->next > a->total) {
		*why = "its next page is outside [offset, total]";
		return -EPROTO;
	}
	if (a->next == offset && a->next != a->total) {
		*why = "its next page does not move on";
		return -EPROTO;
	}
	if (a->next - offset != a->len) {
		*why = "its text is not the page from offset to next";
		return -EPROTO;
	}
	return 0;
}

/* A decimal number of @s..@end, at most @max; -1 if it is not one */
static long number(const char *s, const char *end, long max)
{
	long v = 0;

	if (s == end || end - s > 10)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= max ? v : -1;
}

/* `system:name` of @s..@end into @sys and @name; -EPROTO if not one */
static int event_name(const char *s, const char *end, char *sys, char *name)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	const char *p;

	if (!colon || colon == s || colon + 1 == end ||
	    colon - s >= GR_NAME_PART_MAX || end - colon - 1 >= GR_NAME_PART_MAX)
		return -EPROTO;
	for (p = s; p < end; p++)
		if (!graph(*p) || *p == ',' || (*p == ':' && p != colon))
			return -EPROTO;
	memcpy(sys, s, (size_t)(colon - s));
	sys[colon - s] = '\0';
	memcpy(name, colon + 1, (size_t)(end - colon - 1));
	name[end - colon - 1] = '\0';
	return 0;
}

/* An E line's text, @s..@eol: printable ASCII, not empty (Q2) */
static bool reason_ok(const char *s, const char *eol)
{
	if (s == eol)
		return false;
	for (; s < eol; s++)
		if (*s < ' ' || *s >= 0x7f)
			return false;
	return true;
}

/**
 * gr_name_add_parse() - the lines of an ADD, PROBE or UNPROBE answer
 * @text: the answer's text
 * @len: its bytes (checked: whole lines)
 * @lines: receives the first @max lines
 * @max: room in @lines
 * @nr: receives the number of lines (all of them, also past @max)
 * @why: receives the reason of a refusal
 *
 * Return: 0 or -EPROTO (a line breaks the syntax of 18.1).
 */
int gr_name_add_parse(const char *text, size_t len,
		      struct gr_name_line *lines, unsigned int max,
		      unsigned int *nr, const char **why)
{
	const char *p = text, *end = text + len, *eol, *sp1, *sp2;
	struct gr_name_line l;
	long v;

	*nr = 0;
	while (p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			goto bad;
		memset(&l, 0, sizeof(l));
		if (eol - p >= 3 && p[0] == 'E' && p[1] == ' ') {
			if (!reason_ok(p + 2, eol))
				goto bad;
			l.kind = GR_NAME_REASON;
			goto keep;
		}
		if (eol - p < 5 || !p[0] || !strchr("AKRND", p[0]) || p[1] != ' ')
			goto bad;
		l.kind = (enum gr_name_kind)p[0];
		sp1 = p + 2;
		sp2 = memchr(sp1, ' ', (size_t)(eol - sp1));
		if (!sp2)
			goto bad;
		if (l.kind == GR_NAME_NONE) {
			if (!gr_name_pattern_ok(sp1, (size_t)(sp2 - sp1)))
				goto bad;
			memcpy(l.name, sp1, (size_t)(sp2 - sp1));
		} else if (event_name(sp1, sp2, l.system, l.name)) {
			goto bad;
		}
		v = number(sp2 + 1, eol, l.kind == GR_NAME_ADDED ||
			   l.kind == GR_NAME_KNOWN ||
			   l.kind == GR_NAME_DELETED ? GR_WIDE_MAX_EVENTS - 1 :
			   GR_NAME_MAX_ERRNO);
		if (v < 0 || ((l.kind == GR_NAME_REFUSED ||
			       l.kind == GR_NAME_NONE) && !v))
			goto bad;
		l.num = (uint32_t)v;
keep:
		if (*nr < max)
			lines[*nr] = l;
		(*nr)++;
		p = eol + 1;
	}
	return 0;
bad:
	*why = "a line of its text is not 'A|K|R|D system:name N', 'N pattern errno' or 'E reason'";
	return -EPROTO;
}

/* The last identifier of a declaration, before a trailing [N] */
static int decl_name(const char *decl, char *name)
{
	size_t n = strlen(decl), e;

	while (n && decl[n - 1] == ' ')
		n--;
	if (n && decl[n - 1] == ']') {
		while (n && decl[n - 1] != '[')
			n--;
		if (!n)
			return -EPROTO;
		n--;
	}
	e = n;
	while (n && (isalnum((unsigned char)decl[n - 1]) || decl[n - 1] == '_'))
		n--;
	if (n == e || e - n >= GR_NAME_PART_MAX ||
	    isdigit((unsigned char)decl[n]))
		return -EPROTO;
	memcpy(name, decl + n, e - n);
	name[e - n] = '\0';
	return 0;
}

/* One `decl@offset+size(s|u)` of @s..@end into @f */
static int field(const char *s, const char *end, struct gr_name_field *f)
{
	const char *at = NULL, *plus, *p;
	long off, size;

	for (p = s; p < end; p++) {
		if (*p < ' ' || *p >= 0x7f)
			return -EPROTO;
		if (*p == '@')
			at = p;
	}
	if (!at || at == s || at - s >= GR_NAME_DECL_MAX || end - at < 4 ||
	    (end[-1] != 's' && end[-1] != 'u'))
		return -EPROTO;
	plus = memchr(at, '+', (size_t)(end - at));
	if (!plus)
		return -EPROTO;
	off = number(at + 1, plus, 65535);
	size = number(plus + 1, end - 1, 65535);
	if (off < 0 || size < 0)
		return -EPROTO;
	memcpy(f->decl, s, (size_t)(at - s));
	f->decl[at - s] = '\0';
	f->offset = (uint32_t)off;
	f->size = (uint32_t)size;
	f->is_signed = end[-1] == 's';
	return decl_name(f->decl, f->name);
}

/* The fields of a LIST line, @s..@end, into @e */
static int fields(const char *s, const char *end, struct gr_name_event *e)
{
	struct gr_name_field f;
	const char *semi;
	void *more;

	while (s < end) {
		semi = memchr(s, ';', (size_t)(end - s));
		if (!semi)
			semi = end;
		if (semi - s == 3 && !memcmp(s, "...", 3) && semi == end) {
			e->cut = true;
			return 0;
		}
		memset(&f, 0, sizeof(f));
		if (field(s, semi, &f))
			return -EPROTO;
		if (e->nr_fields < GR_NAME_LIST_FIELDS) {
			more = realloc(e->fields, (e->nr_fields + 1) *
				       sizeof(*e->fields));
			if (!more)
				return -ENOMEM;
			e->fields = more;
			e->fields[e->nr_fields++] = f;
		} else {
			e->cut = true;
		}
		s = semi + 1;
	}
	return 0;
}

/* One LIST line, @p..@eol, into @e */
static int list_line(const char *p, const char *eol, struct gr_name_event *e)
{
	const char *sp1 = memchr(p, ' ', (size_t)(eol - p)), *sp2;
	long v;

	if (!sp1 || event_name(p, sp1, e->system, e->name))
		return -EPROTO;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2)
		sp2 = eol;
	if (sp2 - sp1 == 2 && sp1[1] && strchr("npy", sp1[1])) {
		e->state = (enum gr_name_state)sp1[1];
	} else if (sp2 - sp1 > 2 && sp1[1] == '-') {
		v = number(sp1 + 2, sp2, GR_NAME_MAX_ERRNO);
		if (v <= 0)
			return -EPROTO;
		e->state = GR_NAME_CANNOT;
		e->err = (uint32_t)v;
	} else {
		return -EPROTO;
	}
	return sp2 < eol ? fields(sp2 + 1, eol, e) : 0;
}

/**
 * gr_name_list_parse() - the lines of a LIST page, appended to @l
 * @text: the page's text
 * @len: its bytes (checked: whole lines)
 * @l: the listing so far
 * @why: receives the reason of a refusal
 *
 * Return: 0, -EPROTO (a line breaks the syntax of 18.1), -ENOMEM. On
 * error @l keeps the events of the earlier pages only.
 */
int gr_name_list_parse(const char *text, size_t len, struct gr_name_list *l,
		       const char **why)
{
	const char *p = text, *end = text + len, *eol;
	unsigned int first = l->nr;
	struct gr_name_event *e;
	void *more;
	int ret;

	while (p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol) {
			ret = -EPROTO;
			goto bad;
		}
		if (l->nr == l->cap) {
			more = realloc(l->ev, (l->cap ? l->cap * 2 : 16) *
				       sizeof(*l->ev));
			if (!more) {
				ret = -ENOMEM;
				goto bad;
			}
			l->ev = more;
			l->cap = l->cap ? l->cap * 2 : 16;
		}
		e = &l->ev[l->nr++];
		memset(e, 0, sizeof(*e));
		ret = list_line(p, eol, e);
		if (ret)
			goto bad;
		p = eol + 1;
	}
	return 0;
bad:
	while (l->nr > first)
		free(l->ev[--l->nr].fields);
	*why = ret == -ENOMEM ? "out of memory" :
	       "a line of its listing is not 'system:name state decl@offset+size(s|u);...'";
	return ret;
}

/* Free a listing's events; @l is empty afterwards */
void gr_name_list_free(struct gr_name_list *l)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		free(l->ev[i].fields);
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

/**
 * gr_name_printable() - guest text for a message: printable ASCII only
 * @dst: receives it, NUL-terminated, every other byte as '?'
 * @size: room in @dst (> 0)
 * @src: the text
 * @len: its bytes
 */
void gr_name_printable(char *dst, size_t size, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && i + 1 < size; i++)
		dst[i] = src[i] >= ' ' && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

/**
 * gr_name_reason() - the E line of a PROBE answer (spec 18.4, Q2)
 * @text: the answer's text
 * @len: its bytes
 * @reason: receives the line's text without "E ", NUL-terminated; a
 *	text longer than @size - 1 is cut and ends in "..."; "" if none
 * @size: room in @reason (at least 4)
 * @why: receives the reason of a refusal
 *
 * The text of a refused PROBE is at most one line, an E line of
 * printable ASCII (an empty text is the guest giving no reason).
 *
 * Return: 0 or -EPROTO.
 */
int gr_name_reason(const char *text, size_t len, char *reason, size_t size,
		   const char **why)
{
	const char *eol;
	size_t n;

	reason[0] = '\0';
	if (!len)
		return 0;
	eol = memchr(text, '\n', len);
	if (len < 3 || !eol || eol != text + len - 1 || text[0] != 'E' ||
	    text[1] != ' ' || !reason_ok(text + 2, eol)) {
		*why = "its reason is not one line 'E reason' of printable ASCII";
		return -EPROTO;
	}
	n = (size_t)(eol - text - 2);
	if (n >= size) {
		memcpy(reason, text + 2, size - 4);
		memcpy(reason + size - 4, "...", 4);
	} else {
		memcpy(reason, text + 2, n);
		reason[n] = '\0';
	}
	return 0;
}

/* ---- probes from the host (spec 18.4) ------------------------------ */

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/**
 * gr_probe_name_len() - the probe NAME at the start of @s (P2, 7.6)
 * @s: the text
 *
 * Return: the length of the identifier @s starts with, 0 if none or if
 * it is longer than 31 characters.
 */
size_t gr_probe_name_len(const char *s)
{
	size_t n;

	for (n = 0; ident_char(s[n], !n); n++)
		;
	return n < GR_NAME_PROBE_MAX ? n : 0;
}

/**
 * gr_probe_def_name() - the NAME of a definition's head (P2)
 * @def: `p[:[GRP/]NAME] SYMBOL...` or `r[MAXACTIVE][:[GRP/]NAME] ...`
 * @name: receives NAME (GR_NAME_PROBE_MAX bytes)
 * @why: receives the reason of a refusal
 *
 * The host checks what P2 has the guest check, for a message before
 * the guest is asked: printable ASCII, a type, a NAME (an identifier of
 * at most 31 characters), the group guestrelay if one is given, and
 * something after the head.
 *
 * Return: 0 or -EINVAL.
 */
int gr_probe_def_name(const char *def, char *name, const char **why)
{
	const char *p = def, *s;
	size_t n;

	for (s = def; *s; s++) {
		if (*s < ' ' || *s >= 0x7f) {
			*why = "a probe definition is printable ASCII";
			return -EINVAL;
		}
	}
	if (*p == 'r') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
	} else if (*p == 'p') {
		p++;
	} else {
		*why = "a probe definition starts with p: or r: (kprobe_events syntax)";
		return -EINVAL;
	}
	if (*p != ':') {
		*why = "a probe needs a name: p:NAME SYMBOL [FETCHARG...]";
		return -EINVAL;
	}
	p++;
	s = strchr(p, '/');
	if (s && s < p + strcspn(p, " ")) {
		if ((size_t)(s - p) != strlen(GR_PROBE_GROUP) ||
		    strncmp(p, GR_PROBE_GROUP, (size_t)(s - p))) {
			*why = "a probe's group, if given, is " GR_PROBE_GROUP;
			return -EINVAL;
		}
		p = s + 1;
	}
	n = gr_probe_name_len(p);
	if (!n || p[n] != ' ') {
		*why = "a probe's NAME is an identifier of at most 31 characters, followed by the symbol";
		return -EINVAL;
	}
	if (!p[n + strspn(p + n, " ")]) {
		*why = "a probe needs a symbol: p:NAME SYMBOL [FETCHARG...]";
		return -EINVAL;
	}
	memcpy(name, p, n);
	name[n] = '\0';
	return 0;
}
