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

/* ---- an event's format (spec 18.4: kprobe events) -------------------- */

/* One field line into @f: true if it is one */
static bool gr_name_format_field(const char *line, const char *nl,
				 struct gr_name_field *f)
{
	const char *decl, *semi, *sp, *br;
	u32 tlen, nlen, blen;

	while (line < nl && (*line == '\t' || *line == ' '))
		line++;
	if (nl - line < 6 || memcmp(line, "field:", 6))
		return false;
	decl = line + 6;
	semi = memchr(decl, ';', nl - decl);
	if (!semi || memchr(decl, '\0', semi - decl))
		return false;
	/* "TYPE NAME" or "TYPE NAME[N]": the name is the last word */
	for (sp = semi; sp > decl && sp[-1] != ' '; sp--)
		;
	if (sp == decl || sp == semi)
		return false;
	br = memchr(sp, '[', semi - sp) ?: semi;
	tlen = sp - 1 - decl;
	nlen = br - sp;
	blen = semi - br;
	if (!tlen || !nlen || tlen + blen >= sizeof(f->type) ||
	    nlen >= sizeof(f->name))
		return false;
	memcpy(f->type, decl, tlen);
	memcpy(f->type + tlen, br, blen);
	f->type[tlen + blen] = '\0';
	memcpy(f->name, sp, nlen);
	f->name[nlen] = '\0';
	f->offset = gr_name_num(semi, nl, "offset:");
	f->size = gr_name_num(semi, nl, "size:");
	f->is_signed = gr_name_num(semi, nl, "signed:");
	return true;
}

/**
 * gr_name_format_fields() - the event's own fields of a tracefs format
 * @fmt: the format file, @len bytes
 * @len: its bytes
 * @f: receives the fields, in the file's order
 * @max: entries of @f
 * @nr: receives their number
 *
 * The fields after ftrace's common ones (the group after the first empty
 * line), each "TYPE NAME" split at the last space, an array's brackets
 * moved to the type.
 *
 * Context: any.
 * Return: 0, -E2BIG (more than @max), -EINVAL (a field line not read).
 */
int gr_name_format_fields(const char *fmt, u32 len, struct gr_name_field *f,
			  unsigned int max, unsigned int *nr)
{
	const char *p = fmt, *end = fmt + len, *nl;
	unsigned int blank = 0, n = 0;

	*nr = 0;
	while (p < end && blank < 2) {
		nl = memchr(p, '\n', end - p) ?: end;
		if (nl == p) {
			blank++;
		} else if (blank == 1) {
			if (n >= max)
				return -E2BIG;
			if (!gr_name_format_field(p, nl, &f[n]))
				return -EINVAL;
			n++;
		}
		p = nl < end ? nl + 1 : end;
	}
	*nr = n;
	return 0;
}

/* ---- probes from the host (spec 18.4) -------------------------------- */

static bool gr_probe_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool gr_probe_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Spec 7.6: [a-z_][a-z0-9_]* */
static bool gr_probe_ident_byte(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && gr_probe_digit(c));
}

static int gr_probe_refuse(struct gr_probe_head *h, const char *why, u32 col)
{
	h->why = why;
	h->col = col;
	return -EINVAL;
}

/**
 * gr_probe_parse() - check the head of a PROBE definition (spec 18.4 P2)
 * @def: the request's text, @len bytes, no NUL needed
 * @len: its bytes
 * @h: receives the head, or the failed check (@h->why at @h->col)
 *
 * The text is printable ASCII, blanks (space, tab) between words; its
 * first word is "p:" or "r[MAXACTIVE]:", an optional "guestrelay/" and
 * NAME, an identifier (7.6) of at most GR_PROBE_NAME_MAX bytes. The rest
 * (from @h->rest) is the kernel's to check.
 *
 * Context: any.
 * Return: 0, or -EINVAL.
 */
int gr_probe_parse(const char *def, u32 len, struct gr_probe_head *h)
{
	static const char grp[] = GR_PROBE_GROUP "/";
	u32 i, n, d;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < len; i++)
		if (!gr_probe_blank(def[i]) && (def[i] < ' ' || def[i] > '~'))
			return gr_probe_refuse(h, "not printable ASCII", i);
	for (i = 0; i < len && gr_probe_blank(def[i]); i++)
		;
	h->start = i;
	if (i == len)
		return gr_probe_refuse(h, "empty definition", i);
	if (def[i] != 'p' && def[i] != 'r')
		return gr_probe_refuse(h, "the type is not p or r", i);
	h->ret = def[i++] == 'r';
	for (d = 0; i < len && gr_probe_digit(def[i]); i++, d++) {
		if (!h->ret)
			return gr_probe_refuse(h, "MAXACTIVE is for r probes", i);
		if (d >= sizeof(h->maxact) - 1)
			return gr_probe_refuse(h, "MAXACTIVE too long", i);
		h->maxact[d] = def[i];
	}
	if (i == len || def[i] != ':')
		return gr_probe_refuse(h, "a probe of the host needs a NAME", i);
	i++;
	n = sizeof(grp) - 1;
	if (len - i >= n && !memcmp(def + i, grp, n))
		i += n;
	for (n = 0; i + n < len && !gr_probe_blank(def[i + n]); n++) {
		if (def[i + n] == '/')
			return gr_probe_refuse(h, "the group is not " GR_PROBE_GROUP,
					       i);
		if (!gr_probe_ident_byte(def[i + n], !n))
			return gr_probe_refuse(h, "NAME is not an identifier",
					       i + n);
		if (n >= GR_PROBE_NAME_MAX)
			return gr_probe_refuse(h, "NAME too long", i + n);
		h->name[n] = def[i + n];
	}
	if (!n)
		return gr_probe_refuse(h, "a probe of the host needs a NAME", i);
	h->rest = i + n;
	return 0;
}

/**
 * gr_probe_cmd() - the command given to the kernel
 * @def: the definition, @len bytes, as gr_probe_parse() accepted it
 * @len: its bytes
 * @h: its head
 * @out: receives the command, NUL-terminated
 * @cap: bytes of @out
 *
 * "p:guestrelay/NAME" or "rMAXACTIVE:guestrelay/NAME", then each word of
 * the rest after one space: the words the kernel reads (it splits at
 * blanks), so that a column of its error log maps back to the
 * definition (gr_probe_column()).
 *
 * Context: any.
 * Return: the command's length, 0 if it does not fit.
 */
u32 gr_probe_cmd(const char *def, u32 len, const struct gr_probe_head *h,
		 char *out, u32 cap)
{
	u32 i, n;
	int head;

	head = snprintf(out, cap, "%c%s:" GR_PROBE_GROUP "/%s",
			h->ret ? 'r' : 'p', h->maxact, h->name);
	if (head < 0 || (u32)head >= cap)
		return 0;
	n = head;
	for (i = h->rest; i < len; i++) {
		if (gr_probe_blank(def[i]))
			continue;
		if (n + 2 > cap)
			return 0;
		if (i == h->rest || gr_probe_blank(def[i - 1]))
			out[n++] = ' ';
		out[n++] = def[i];
	}
	out[n] = '\0';
	return n;
}

/**
 * gr_probe_column() - a column of the kernel's command in the definition
 * @def: the definition, @len bytes
 * @len: its bytes
 * @head_len: bytes of the command's first word (gr_probe_cmd())
 * @pos: the column in the command
 *
 * Word by word: a column in the command's head is the definition's head;
 * one in word k of the rest, that word of the definition; one past the
 * last word, one past the definition's last word, as the kernel shows it.
 *
 * Context: any.
 */
u32 gr_probe_column(const char *def, u32 len, u32 head_len, u32 pos)
{
	u32 i = 0, c, w, wend = 0;

	while (i < len && gr_probe_blank(def[i]))
		i++;
	if (pos < head_len + 1)
		return i;
	/* skip the definition's head word */
	while (i < len && !gr_probe_blank(def[i]))
		i++;
	wend = i;
	c = head_len + 1;
	for (;;) {
		while (i < len && gr_probe_blank(def[i]))
			i++;
		if (i == len)
			return wend + (pos - c) + 1;
		for (w = 0; i + w < len && !gr_probe_blank(def[i + w]); w++)
			;
		if (pos <= c + w)
			return i + (pos - c);
		c += w + 1;
		i += w;
		wend = i;
	}
}

/**
 * gr_probe_errlog() - the last entry of tracefs error_log, if it is @cmd's
 * @log: error_log's text, @len bytes
 * @len: its bytes
 * @cmd: the command given to the kernel
 * @msg: receives the message, printable ASCII, NUL-terminated
 * @cap: bytes of @msg
 * @pos: receives the column the kernel's caret shows in @cmd
 *
 * An entry is "[TIME] LOC: error: MESSAGE", "  Command: COMMAND" and a
 * line of blanks ending in '^' under the column.
 *
 * Context: any.
 * Return: true if the last entry is one for @cmd.
 */
bool gr_probe_errlog(const char *log, u32 len, const char *cmd, char *msg,
		     u32 cap, u32 *pos)
{
	static const char err[] = "error: ", cmdp[] = "  Command: ";
	const char *p = log + len, *end = log + len, *e, *nl, *m, *c;
	u32 i, n, clen = strlen(cmd);

	if (!cap)
		return false;
	/* the last line starting with '[' */
	while (p > log && !(p[-1] == '[' && (p - 1 == log || p[-2] == '\n')))
		p--;
	if (p == log)
		return false;
	e = p - 1;
	nl = memchr(e, '\n', end - e);
	if (!nl)
		return false;
	for (m = e; m + sizeof(err) - 1 <= nl; m++)
		if (!memcmp(m, err, sizeof(err) - 1))
			break;
	if (m + sizeof(err) - 1 > nl)
		return false;
	m += sizeof(err) - 1;
	c = nl + 1;
	n = sizeof(cmdp) - 1;
	if (end - c < n + clen + 1 || memcmp(c, cmdp, n) ||
	    memcmp(c + n, cmd, clen) || c[n + clen] != '\n')
		return false;
	c += n + clen + 1;
	e = memchr(c, '^', end - c);
	if (!e || e - c < n)
		return false;
	*pos = e - c - n;
	for (i = 0; m < nl && i + 1 < cap; m++)
		if (*m >= ' ' && *m <= '~')
			msg[i++] = *m;
	msg[i] = '\0';
	return true;
}

/**
 * gr_probe_errname() - the name of errno @err (positive), for an E line
 * @err: the errno
 *
 * Context: any.
 * Return: its name, NULL for one not listed.
 */
const char *gr_probe_errname(int err)
{
	static const struct {
		int err;
		const char *name;
	} names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ENOMEM, "ENOMEM" },
		{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" }, { E2BIG, "E2BIG" }, { ERANGE, "ERANGE" },
		{ EILSEQ, "EILSEQ" }, { ENAMETOOLONG, "ENAMETOOLONG" },
		{ EOPNOTSUPP, "EOPNOTSUPP" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	return NULL;
}
