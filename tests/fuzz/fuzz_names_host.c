// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_names_host.c - events by name (spec 18), the host against a
 * hostile guest: an answer strip (struct gr_name_ans, 2048 bytes) as the
 * guest may write it, read once (gr_name_answer_read()), checked (M4,
 * gr_name_answer_check()) as the answer to an ADD or to a LIST page at an
 * offset the input chooses, then parsed (gr_name_add_parse(),
 * gr_name_list_parse()) as the agent does; and (v1.8, spec 18.4) as the
 * answer to a PROBE: its D and E lines, the reason of a refusal
 * (gr_name_reason(), Q2), and the text taken as a definition's head
 * (gr_probe_def_name()).
 *
 * Input: byte 0 bits 0-1 the op (ADD, LIST, PROBE, UNPROBE), bytes 1..4
 * the LIST offset,
 * then the strip (missing bytes zero). Checked here independently: an
 * accepted answer has len <= GR_NAME_ANS_TEXT and, for LIST, next in
 * [offset, total]; every name kept is NUL-terminated inside its array
 * and printable; a refused answer says why; a reason and a probe NAME
 * kept are NUL-terminated, printable, within their arrays.
 */
#include "fuzz.h"
#include "name_text.h"

static void check_word(const char *w, size_t size, const char *what)
{
	size_t i, n = strnlen(w, size);

	if (n == size)
		FUZZ_BUG("%s not NUL-terminated", what);
	for (i = 0; i < n; i++)
		if (w[i] < 0x20 || w[i] > 0x7e)
			FUZZ_BUG("%s holds byte 0x%02x", what,
				 (unsigned char)w[i]);
}

static void add(const struct gr_name_answer *a)
{
	struct gr_name_line lines[16];
	unsigned int i, nr = 0;
	const char *why = NULL;

	if (gr_name_add_parse(a->text, a->len, lines, 16, &nr, &why)) {
		if (!why)
			FUZZ_BUG("an ADD text refused without a reason");
		return;
	}
	for (i = 0; i < nr && i < 16; i++) {
		check_word(lines[i].system, sizeof(lines[i].system), "system");
		check_word(lines[i].name, sizeof(lines[i].name), "name");
		if (lines[i].kind != GR_NAME_ADDED &&
		    lines[i].kind != GR_NAME_KNOWN &&
		    lines[i].kind != GR_NAME_REFUSED &&
		    lines[i].kind != GR_NAME_NONE &&
		    lines[i].kind != GR_NAME_DELETED &&
		    lines[i].kind != GR_NAME_REASON)
			FUZZ_BUG("a line of kind %d", lines[i].kind);
	}
}

static void list(const struct gr_name_answer *a)
{
	struct gr_name_list l = { 0 };
	const char *why = NULL;
	unsigned int i, j;

	if (gr_name_list_parse(a->text, a->len, &l, &why)) {
		if (!why)
			FUZZ_BUG("a LIST page refused without a reason");
	}
	for (i = 0; i < l.nr; i++) {
		const struct gr_name_event *e = &l.ev[i];

		check_word(e->system, sizeof(e->system), "system");
		check_word(e->name, sizeof(e->name), "event");
		for (j = 0; j < e->nr_fields; j++) {
			check_word(e->fields[j].decl,
				   sizeof(e->fields[j].decl), "decl");
			check_word(e->fields[j].name,
				   sizeof(e->fields[j].name), "field");
		}
	}
	gr_name_list_free(&l);
}

/* A refused PROBE: its one E line; the text as a definition */
static void probe(const struct gr_name_answer *a)
{
	char reason[GR_NAME_REASON_MAX], name[GR_NAME_PROBE_MAX];
	char *def;
	const char *why = NULL;

	if (gr_name_reason(a->text, a->len, reason, sizeof(reason), &why)) {
		if (!why)
			FUZZ_BUG("a reason refused without a reason");
	} else {
		check_word(reason, sizeof(reason), "reason");
	}
	def = strndup(a->text, a->len < GR_NAME_ANS_TEXT ? a->len :
		      GR_NAME_ANS_TEXT);
	if (!def)
		return;
	why = NULL;
	if (!gr_probe_def_name(def, name, &why)) {
		check_word(name, sizeof(name), "probe name");
		if (!name[0])
			FUZZ_BUG("an empty probe name accepted");
	} else if (!why) {
		FUZZ_BUG("a definition refused without a reason");
	}
	free(def);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gr_name_answer *a;
	struct gr_name_ans *strip;
	const char *why = NULL;
	uint32_t op, offset = 0;

	if (size < 5)
		return 0;
	op = GR_NAME_OP_ADD + (data[0] & 3);
	memcpy(&offset, data + 1, 4);
	data += 5;
	size -= 5;
	strip = calloc(1, sizeof(*strip));
	a = malloc(sizeof(*a));
	if (!strip || !a)
		goto out;
	memcpy(strip, data, size < sizeof(*strip) ? size : sizeof(*strip));
	gr_name_answer_read(strip, a);
	if (gr_name_answer_check(a, op, offset, &why)) {
		if (!why)
			FUZZ_BUG("an answer refused without a reason");
		goto out;
	}
	if (op == GR_NAME_OP_PROBE || op == GR_NAME_OP_UNPROBE)
		probe(a);
	if (a->result)
		goto out;
	if (a->len > GR_NAME_ANS_TEXT)
		FUZZ_BUG("accepted len %u", a->len);
	if (op == GR_NAME_OP_LIST &&
	    (a->next < offset || a->next > a->total))
		FUZZ_BUG("accepted next %u outside [%u, %u]", a->next, offset,
			 a->total);
	if (op == GR_NAME_OP_LIST)
		list(a);
	else
		add(a);
out:
	free(strip);
	free(a);
	return 0;
}
