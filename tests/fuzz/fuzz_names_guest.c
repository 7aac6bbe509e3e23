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
