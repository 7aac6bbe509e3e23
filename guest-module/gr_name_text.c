// SPDX-License-Identifier: GPL-2.0
/*
 * gr_name_text.c - the text of requests for events by name (spec 18.1)
 *
 * The patterns of a request (gr_name_parse(), gr_name_match() with the
 * kernel's glob_match()), the "system:name" lines of tracefs'
 * available_events (gr_name_next_event()), a LIST line from an event's
 * tracefs format file (gr_name_list_line()), a page of the listing
 * (gr_name_page()) and the ADD answer's whole lines (gr_name_append()).
 * Kernel code that also builds in userspace (see gr_env.h).
 */
#ifdef __KERNEL__
#include <linux/glob.h>
#endif
#include "gr_name_text.h"

/* Spec 18.1: printable ASCII other than space and ',' */
static bool gr_name_pat_byte(char c)
{
	return c > ' ' && c <= '~' && c != ',';
}

/* One pattern of @n bytes at @p into @pat: 0, or -EINVAL */
static int gr_name_parse_one(const char *p, u32 n, struct gr_name_pat *pat)
{
	const char *colon;
	u32 i, slen;

	if (!n || n > GR_NAME_PAT_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!gr_name_pat_byte(p[i]))
			return -EINVAL;
	memset(pat, 0, sizeof(*pat));
	colon = memchr(p, ':', n);
	if (!colon) {
		memcpy(pat->name, p, n);
		pat->bare = true;
		return 0;
	}
	slen = colon - p;
	/* "system:" or "system:name"; not ":name", not a second ':' */
	if (!slen || memchr(colon + 1, ':', n - slen - 1))
		return -EINVAL;
	memcpy(pat->sys, p, slen);
	memcpy(pat->name, colon + 1, n - slen - 1);
	return 0;
}

/**
 * gr_name_parse() - the patterns of a request's text
 * @text: the text, @len bytes, no NUL needed
 * @len: its bytes
 * @pats: receives them
 * @max: entries of @pats
 * @nr: receives their number (0 for an empty text)
 *
 * Patterns are separated by ','; each is 1 to GR_NAME_PAT_MAX printable
 * bytes other than space, at most one ':', not first.
 *
 * Context: any.
 * Return: 0, or -EINVAL (an empty or malformed pattern, more than @max).
 */
int gr_name_parse(const char *text, u32 len, struct gr_name_pat *pats,
		  unsigned int max, unsigned int *nr)
{
	const char *p = text, *end = text + len, *comma;
	unsigned int n = 0;
	int ret;

	*nr = 0;
	if (!len)
		return 0;
	for (;;) {
		comma = memchr(p, ',', end - p);
		if (n >= max)
			return -EINVAL;
		ret = gr_name_parse_one(p, (comma ?: end) - p, &pats[n]);
		if (ret)
			return ret;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	*nr = n;
	return 0;
}

/**
 * gr_name_match() - does @pat name event @sys:@name?
 * @pat: a pattern from gr_name_parse()
 * @sys: the event's system
 * @name: the event's name
 *
 * Context: any.
 */
bool gr_name_match(const struct gr_name_pat *pat, const char *sys,
		   const char *name)
{
	if (pat->bare)
		return glob_match(pat->name, name) ||
		       glob_match(pat->name, sys);
	return glob_match(pat->sys, sys) &&
	       (!pat->name[0] || glob_match(pat->name, name));
}

/**
 * gr_name_next_event() - the next "system:name" line of available_events
 * @cur: the cursor, moved past the line
 * @end: the end of the text
 * @sys: receives the system, GR_NAME_WORD_MAX bytes
 * @name: receives the name, GR_NAME_WORD_MAX bytes
 *
 * Lines that are not "system:name" of words shorter than
 * GR_NAME_WORD_MAX are skipped.
 *
 * Context: any.
 * Return: false at the end of the text.
 */
bool gr_name_next_event(const char **cur, const char *end, char *sys,
			char *name)
{
	const char *line, *nl, *colon;
	u32 slen, nlen;

	while (*cur < end) {
		line = *cur;
		nl = memchr(line, '\n', end - line) ?: end;
		*cur = nl < end ? nl + 1 : end;
		colon = memchr(line, ':', nl - line);
		if (!colon)
			continue;
		slen = colon - line;
		nlen = nl - colon - 1;
		if (!slen || !nlen || slen >= GR_NAME_WORD_MAX ||
		    nlen >= GR_NAME_WORD_MAX || memchr(line, '\0', nl - line))
			continue;
		memcpy(sys, line, slen);
		sys[slen] = '\0';
		memcpy(name, colon + 1, nlen);
		name[nlen] = '\0';
		return true;
	}
	return false;
}

/* The unsigned number after @key in [@p, @end): 0 if none */
static u32 gr_name_num(const char *p, const char *end, const char *key)
{
	size_t klen = strlen(key);
	u32 v = 0;

	for (; p + klen <= end; p++)
		if (!memcmp(p, key, klen))
			break;
	if (p + klen > end)
		return 0;
	for (p += klen; p < end && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v;
}

/*
 * One field line of a format file ("\tfield:DECL;\toffset:O;\tsize:S;
 * \tsigned:G;") as "DECL@O+S" and 's' or 'u' into @buf (@cap bytes);
 * its length, 0 if the line is not a field.
 */
static u32 gr_name_field(const char *line, const char *nl, char *buf,
			 u32 cap)
{
	const char *decl, *semi;
	int n;

	while (line < nl && (*line == '\t' || *line == ' '))
		line++;
	if (nl - line < 6 || memcmp(line, "field:", 6))
		return 0;
	decl = line + 6;
	semi = memchr(decl, ';', nl - decl);
	if (!semi || semi == decl)
		return 0;
	n = snprintf(buf, cap, "%.*s@%u+%u%c", (int)(semi - decl), decl,
		     gr_name_num(semi, nl, "offset:"),
		     gr_name_num(semi, nl, "size:"),
		     gr_name_num(semi, nl, "signed:") ? 's' : 'u');
	return n > 0 && (u32)n < cap ? n : 0;
}

/**
 * gr_name_list_line() - one LIST line of an event (spec 18.1)
 * @out: receives the line, "\n" included, no NUL
 * @cap: bytes of @out (at most GR_NAME_ANS_TEXT are used)
 * @sys: the event's system
 * @name: the event's name
 * @state: "n", "p", "y" or "-E"
 * @fmt: the event's tracefs format file, @fmt_len bytes; NULL for none
 * @fmt_len: its bytes
 *
 * "system:name state field;field;..." with the fields after ftrace's
 * common ones (those after the format's first empty line), each as
 * "declaration@offset+size" and 's' or 'u'. Without fields the line ends
 * after the state. A line longer than @cap ends at the last whole field
 * that fits, followed by ";...".
 *
 * Context: any.
 * Return: its bytes, 0 if even "system:name state" does not fit.
 */
u32 gr_name_list_line(char *out, u32 cap, const char *sys,
		      const char *name, const char *state, const char *fmt,
		      u32 fmt_len)
{
	const char *p = fmt, *end = fmt + fmt_len, *nl;
	u32 len, flen, safe, nfields = 0;
	unsigned int blank = 0;
	char field[256];
	int n;

	cap = min_t(u32, cap, GR_NAME_ANS_TEXT);
	n = snprintf(out, cap, "%s:%s %s", sys, name, state);
	if (n < 0 || (u32)n + 1 > cap)
		return 0;
	len = n;
	/* the last end after which ";...\n" still fits */
	safe = len + 5 <= cap ? len : 0;
	while (fmt && p < end && blank < 2) {
		nl = memchr(p, '\n', end - p) ?: end;
		if (nl == p) {
			/* common fields, then the event's, each group ends so */
			blank++;
		} else if (blank == 1) {
			flen = gr_name_field(p, nl, field, sizeof(field));
			if (flen && len + 1 + flen + 1 > cap) {
				if (!safe)
					return 0;
				len = safe;
				memcpy(out + len, nfields ? ";..." : " ...", 4);
				len += 4;
				break;
			}
			if (flen) {
				out[len++] = nfields++ ? ';' : ' ';
				memcpy(out + len, field, flen);
				len += flen;
				if (len + 5 <= cap)
					safe = len;
			}
		} else if (nl - p >= 10 && !memcmp(p, "print fmt:", 10)) {
			break;
		}
		p = nl < end ? nl + 1 : end;
	}
	out[len++] = '\n';
	return len;
}

/**
 * gr_name_page() - a LIST page of whole lines (spec 18.1)
 * @list: the whole listing, @total bytes of whole lines
 * @total: its bytes
 * @offset: the request's offset: 0, or a line start at most @total
 * @cap: bytes of the answer's text
 * @len: receives the page's bytes, from @offset
 * @next: receives the offset of the next page (@total after the last)
 *
 * Context: any.
 * Return: 0, or -ERANGE (@offset past @total or not a line start).
 */
int gr_name_page(const char *list, u32 total, u32 offset, u32 cap, u32 *len,
		 u32 *next)
{
	u32 end, i;

	if (offset > total || (offset && list[offset - 1] != '\n'))
		return -ERANGE;
	end = offset;
	for (i = offset; i < total && i - offset < cap; i++)
		if (list[i] == '\n')
			end = i + 1;
	*len = end - offset;
	*next = end;
	return 0;
}

/**
 * gr_name_append() - append a whole line to answer text, if it fits
 * @text: the answer's text
 * @len: its bytes so far, moved on
 * @cap: its room
 * @line: the line, "\n" included
 * @n: its bytes
 *
 * Context: any.
 * Return: false if it did not fit (nothing written).
 */
bool gr_name_append(char *text, u32 *len, u32 cap, const char *line, u32 n)
{
	if (n > cap - *len)
		return false;
	memcpy(text + *len, line, n);
	*len += n;
	return true;
}
