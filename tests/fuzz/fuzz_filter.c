// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_filter.c - event filters (spec 14) from both ends: the guest's
 * verifier and interpreter (guest-module/gr_filter.c) on hostile slots,
 * and the host's compiler (host-agent/filter/filter.c) on hostile text.
 *
 * Input, first byte even: u16 fixed and u16 extra payload bounds, a
 * struct gr_filter_slot (512 bytes), then payload bytes. A slot the
 * verifier accepts must jump only forward and inside the program, end in
 * a return and load only inside the bounds (checked here independently);
 * it then runs on a payload allocated to the exact record length, so any
 * read past it is an ASan report.
 * First byte odd: an expression (the rest, NUL-terminated here) for a
 * sched_switch-like event. What the compiler accepts must pass the
 * guest's verifier; what it refuses must say where, inside the text.
 */
#include "fuzz.h"
#include "filter.h"
#include "gr_filter.h"

static void check_safe(const struct gr_filter_prog *p,
		       const struct gr_filter_bounds *b)
{
	const struct gr_filter_op *op;
	unsigned int pc;

	if (!p->nr_insns || p->nr_insns > GR_FILTER_MAX_INSNS ||
	    p->ops[p->nr_insns - 1].code != GR_FI_RET)
		FUZZ_BUG("accepted a program that does not end in a return");
	for (pc = 0; pc < p->nr_insns; pc++) {
		op = &p->ops[pc];
		if ((op->code == GR_FI_LD || op->code == GR_FI_LDS) &&
		    op->off + op->width > b->fixed)
			FUZZ_BUG("accepted a load at %u+%u past %u", op->off,
				 op->width, b->fixed);
		if (op->code >= GR_FI_JEQ &&
		    (pc + 1 + op->jt >= p->nr_insns ||
		     pc + 1 + op->jf >= p->nr_insns))
			FUZZ_BUG("accepted a jump out of the program at %u", pc);
		if ((op->code == GR_FI_JSTREQ || op->code == GR_FI_JGLOB) &&
		    op->off + op->arg > b->max)
			FUZZ_BUG("accepted a string past the payload at %u", pc);
	}
}

static void run(const struct gr_filter_prog *p, const uint8_t *data,
		size_t size, uint32_t len)
{
	uint8_t *pl = malloc(len ? len : 1);

	if (!pl)
		return;
	memset(pl, 0, len);
	memcpy(pl, data, size < len ? size : len);
	gr_filter_match(p, pl, len, 1, 0);
	free(pl);
}

static void fuzz_slot(const uint8_t *data, size_t size)
{
	static struct gr_filter_slot slot;
	struct gr_filter_bounds b;
	struct gr_filter_prog p;
	struct gr_filter_err err;
	uint16_t fixed, extra;

	if (fuzz_take(&data, &size, &fixed, sizeof(fixed)) ||
	    fuzz_take(&data, &size, &extra, sizeof(extra)) ||
	    fuzz_take(&data, &size, &slot, sizeof(slot)))
		return;
	b.fixed = fixed % 4096;
	b.max = b.fixed + extra % 4096;
	if (gr_filter_read(&slot, 0, &p, &err) != 1 ||
	    gr_filter_verify(&p, &b, &err))
		return;
	check_safe(&p, &b);
	run(&p, data, size, b.fixed);
	run(&p, data, size, b.max);
}

static void switch_view(struct gr_event_view *ev)
{
	static const char *const names[] = {
		"prev_comm", "prev_tid", "prev_prio", "prev_state",
		"next_comm", "next_tid", "next_prio",
	};
	static const uint16_t off[] = { 0, 16, 20, 24, 32, 48, 52 };
	static const uint16_t sz[] = { 16, 4, 4, 8, 16, 4, 4 };
	unsigned int i;

	memset(ev, 0, sizeof(*ev));
	strcpy(ev->name, "sched_switch");
	ev->payload_size = 56;
	ev->nr_fields = 7;
	for (i = 0; i < 7; i++) {
		strcpy(ev->fields[i].name, names[i]);
		ev->fields[i].offset = off[i];
		ev->fields[i].size = sz[i];
		ev->fields[i].type = sz[i] == 16 ? GR_FIELD_CHARS :
				     GR_FIELD_INTEGER;
		ev->fields[i].flags = i == 3 ? GR_FIELD_F_SIGNED : 0;
	}
}

static void fuzz_expr(const uint8_t *data, size_t size)
{
	struct gr_filter_bounds b = { 56, 56 };
	static struct gr_filter_slot slot;
	struct gr_event_view ev;
	struct gr_filter_prog p;
	struct gr_filter_err err;
	struct gr_fx_error fe;
	char *text;
	size_t n;

	text = malloc(size + 1);
	if (!text)
		return;
	memcpy(text, data, size);
	text[size] = '\0';
	n = strlen(text);
	switch_view(&ev);
	memset(&fe, 0, sizeof(fe));
	if (gr_fx_build(text, &ev, &slot, &fe)) {
		if (!fe.msg[0] || fe.pos > n + 1 || !fe.len)
			FUZZ_BUG("a refusal without a message or a place");
		free(text);
		return;
	}
	if (gr_filter_read(&slot, 0, &p, &err) != 1 ||
	    gr_filter_verify(&p, &b, &err))
		FUZZ_BUG("the guest refuses what the host compiled (reason %u "
			 "at %u): %s", err.reason, err.insn, text);
	check_safe(&p, &b);
	run(&p, data, size, 56);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (fuzz_take(&data, &size, &mode, 1))
		return 0;
	if (mode & 1)
		fuzz_expr(data, size);
	else
		fuzz_slot(data, size);
	return 0;
}
