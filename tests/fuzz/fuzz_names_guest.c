// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_names_guest.c - events by name (spec 18), the guest against a
 * hostile host: the request strip's text through the guest's pattern
 * parser (guest-module/gr_name_text.c, gr_name_parse()), each pattern
 * then matched against event names the input gives, and a LIST page cut
 * at an offset the host chose (gr_name_page()) out of a listing built
 * from the input.
 *
 * Input: bytes 0..3 the LIST offset, bytes 4..5 the page's capacity,
 * byte 6 the length of the request text, the text, then the rest as an
 * available_events text (lines "system:name"). Checked here
 * independently: accepted patterns are printable, non-empty where 18.1
 * says so and NUL-terminated; a page accepted starts at a line start,
 * holds whole lines, fits its capacity, is not empty before the end when
 * its first line fits (the guest cuts longer lines), and its next offset moves forward up to the total; an offset that is
 * not a line start or past the total is refused.
 *
 * Spec 18.4 (probes from the host) on the same input: the request text as
 * a PROBE definition through gr_probe_parse() and gr_probe_cmd() (an
 * accepted head has an identifier NAME of at most 31 bytes; the command
 * is "p:" or "r[N]:", "guestrelay/NAME", then the definition's words
 * after one space each; a refusal names a column inside the text), every
 * column of the command mapped back by gr_probe_column() onto the same
 * byte of the definition; the rest as a tracefs error_log for that
 * command (gr_probe_errlog(): a message of printable bytes, terminated)
 * and as an event's format file (gr_name_format_fields(): terminated,
 * non-empty types and names, at most the entries given).
 */
#include "fuzz.h"
#include "gr_name_text.h"

static void check_pat(const char *w, size_t size, const char *what)
{
	size_t i, n = strnlen(w, size);

	if (n == size)
		FUZZ_BUG("%s not NUL-terminated", what);
	for (i = 0; i < n; i++)
		if (w[i] <= 0x20 || w[i] > 0x7e || w[i] == ',')
			FUZZ_BUG("%s holds byte 0x%02x", what,
				 (unsigned char)w[i]);
}

static void patterns(const char *text, u32 len, const char *avail,
		     size_t alen)
{
	struct gr_name_pat pats[GR_NAME_PATS_MAX];
	char sys[GR_NAME_WORD_MAX], name[GR_NAME_WORD_MAX];
	const char *cur = avail, *end = avail + alen;
	unsigned int i, nr = 0, lines = 0;

	if (gr_name_parse(text, len, pats, GR_NAME_PATS_MAX, &nr))
		return;
	if (nr > GR_NAME_PATS_MAX)
		FUZZ_BUG("%u patterns accepted", nr);
	for (i = 0; i < nr; i++) {
		check_pat(pats[i].sys, sizeof(pats[i].sys), "system pattern");
		check_pat(pats[i].name, sizeof(pats[i].name), "name pattern");
		if (!pats[i].sys[0] && !pats[i].name[0])
			FUZZ_BUG("an empty pattern accepted");
	}
	while (gr_name_next_event(&cur, end, sys, name)) {
		if (cur > end)
			FUZZ_BUG("the cursor went past the text");
		if (strnlen(sys, sizeof(sys)) == sizeof(sys) ||
		    strnlen(name, sizeof(name)) == sizeof(name))
			FUZZ_BUG("a word not NUL-terminated");
		for (i = 0; i < nr; i++)
			gr_name_match(&pats[i], sys, name);
		if (++lines > alen + 1)
			FUZZ_BUG("more lines than bytes");
	}
}

static void page(const char *list, u32 total, u32 offset, u32 cap)
{
	const char *eol;
	u32 len = 0, next = 0;
	bool start = !offset || (offset <= total && list[offset - 1] == '\n');

	if (gr_name_page(list, total, offset, cap, &len, &next)) {
		if (start && offset <= total)
			FUZZ_BUG("offset %u of %u, a line start, refused",
				 offset, total);
		return;
	}
	if (!start || offset > total)
		FUZZ_BUG("offset %u of %u, not a line start, accepted",
			 offset, total);
	if (next < offset || next > total || next - offset != len)
		FUZZ_BUG("page [%u, +%u) next %u of %u", offset, len, next,
			 total);
	if (len && list[offset + len - 1] != '\n')
		FUZZ_BUG("a page ends inside a line");
	if (len > cap)
		FUZZ_BUG("a page of %u bytes past its %u", len, cap);
	/* lines are at most the capacity (18.1 cuts longer ones) */
	eol = offset < total ? memchr(list + offset, '\n', total - offset) : NULL;
	if (eol && (u32)(eol - (list + offset)) < cap && !len)
		FUZZ_BUG("an empty page before the end");
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static void probe_cmd(const char *def, u32 len, const struct gr_probe_head *h,
		      const char *log, u32 loglen)
{
	char cmd[GR_PROBE_CMD_MAX], msg[GR_PROBE_MSG_MAX];
	u32 n, i, head, col, pos;

	n = gr_probe_cmd(def, len, h, cmd, sizeof(cmd));
	if (!n)
		return;
	if (strlen(cmd) != n)
		FUZZ_BUG("command of %u bytes, %zu to its NUL", n, strlen(cmd));
	head = strcspn(cmd, " ");
	if ((cmd[0] != 'p' && cmd[0] != 'r') ||
	    !strstr(cmd, ":" GR_PROBE_GROUP "/") ||
	    head < strlen(h->name) ||
	    memcmp(cmd + head - strlen(h->name), h->name, strlen(h->name)))
		FUZZ_BUG("command head %.*s", (int)head, cmd);
	if (cmd[n - 1] == ' ' || strstr(cmd, "  ") || strchr(cmd, '\t'))
		FUZZ_BUG("command words not single-spaced: %s", cmd);
	for (pos = 0; pos <= n + 1; pos++) {
		col = gr_probe_column(def, len, head, pos);
		if (col > len + 1)
			FUZZ_BUG("column %u of %u past the definition (%u)",
				 pos, n, col);
		if (pos > head && pos < n && cmd[pos] != ' ' &&
		    (col >= len || def[col] != cmd[pos]))
			FUZZ_BUG("column %u ('%c') maps to %u", pos, cmd[pos],
				 col);
	}
	if (gr_probe_errlog(log, loglen, cmd, msg, sizeof(msg), &pos)) {
		if (strnlen(msg, sizeof(msg)) == sizeof(msg))
			FUZZ_BUG("message not terminated");
		for (i = 0; msg[i]; i++)
			if (msg[i] < ' ' || msg[i] > '~')
				FUZZ_BUG("message byte 0x%02x",
					 (unsigned char)msg[i]);
	}
}

static void probe(const char *def, u32 len, const char *rest, u32 rlen)
{
	struct gr_name_field f[8];
	struct gr_probe_head h;
	unsigned int i, nr = 0;
	size_t n;

	if (gr_probe_parse(def, len, &h)) {
		if (!h.why || h.col > len)
			FUZZ_BUG("a refusal at column %u of %u", h.col, len);
	} else {
		n = strnlen(h.name, sizeof(h.name));
		if (!n || n == sizeof(h.name) || n > GR_PROBE_NAME_MAX)
			FUZZ_BUG("NAME of %zu bytes", n);
		for (i = 0; i < n; i++)
			if (!(h.name[i] == '_' ||
			      (h.name[i] >= 'a' && h.name[i] <= 'z') ||
			      (i && h.name[i] >= '0' && h.name[i] <= '9')))
				FUZZ_BUG("NAME %s not an identifier", h.name);
		if (h.rest > len || (h.rest < len && !blank(def[h.rest])))
			FUZZ_BUG("the rest at %u of %u", h.rest, len);
		probe_cmd(def, len, &h, rest, rlen);
	}
	if (gr_name_format_fields(rest, rlen, f, ARRAY_SIZE(f), &nr))
		return;
	if (nr > ARRAY_SIZE(f))
		FUZZ_BUG("%u fields of %zu", nr, ARRAY_SIZE(f));
	for (i = 0; i < nr; i++) {
		if (strnlen(f[i].type, sizeof(f[i].type)) == sizeof(f[i].type) ||
		    strnlen(f[i].name, sizeof(f[i].name)) == sizeof(f[i].name) ||
		    !f[i].type[0] || !f[i].name[0])
			FUZZ_BUG("field %u: type or name empty or unterminated",
				 i);
	}
	for (i = 1; i < 200; i++)
		gr_probe_errname(i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u32 offset, cap, tlen, total;
	char *text, *rest;
	uint16_t c;

	if (size < 7)
		return 0;
	memcpy(&offset, data, 4);
	memcpy(&c, data + 4, 2);
	cap = c % (GR_NAME_ANS_TEXT + 1);
	tlen = data[6];
	data += 7;
	size -= 7;
	if (tlen > size)
		tlen = size;
	text = malloc(tlen ? tlen : 1);
	rest = malloc(size - tlen + 1);
	if (!text || !rest)
		goto out;
	memcpy(text, data, tlen);
	memcpy(rest, data + tlen, size - tlen);
	patterns(text, tlen, rest, size - tlen);
	probe(text, tlen, rest, size - tlen);
	/* a listing is whole lines: cut after its last newline */
	total = size - tlen;
	while (total && rest[total - 1] != '\n')
		total--;
	if (total)
		offset %= total + 2;
	page(rest, total, offset, cap ? cap : 1);
out:
	free(text);
	free(rest);
	return 0;
}
