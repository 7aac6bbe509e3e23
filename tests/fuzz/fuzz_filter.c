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
 * First byte 2 modulo 4: a control block (512 bytes) whose follow block
 * (spec 15) the guest reads; what it accepts must obey 15.2 (checked here
 * independently) and its pids then go through a follow set, the probe's
 * test on the rest of the input as a payload, and out again.
 */
#include "fuzz.h"
#include "fuzz_views.h"
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

	text = fuzz_cstr(data, size);
	if (!text)
		return;
	n = strlen(text);
	fuzz_switch_view(&ev);
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

static void fuzz_follow(const uint8_t *data, size_t size)
{
	static unsigned long bits[GR_FOLLOW_PID_LIMIT / (8 * sizeof(long))];
	static struct gr_host_ctrl c;
	static struct gr_follow f;
	struct gr_follow_spec *s = &f.spec;
	struct gr_filter_err err;
	uint16_t off;
	unsigned int i;
	uint32_t len;

	if (fuzz_take(&data, &size, &c, sizeof(c)) ||
	    fuzz_take(&data, &size, &off, sizeof(off)))
		return;
	if (gr_follow_read(&c, s, &err)) {
		if (err.reason != GR_FILTER_E_FOLLOW &&
		    err.reason != GR_FILTER_E_RESERVED)
			FUZZ_BUG("follow block refused with reason %u",
				 err.reason);
		if (s->flags)
			FUZZ_BUG("a refused follow block left flags %#x",
				 s->flags);
		return;
	}
	if (!s->flags) {
		if (s->nr_pids || s->comm_len)
			FUZZ_BUG("no follow filter, but %u pids", s->nr_pids);
		return;
	}
	if (!(s->flags & GR_FOLLOW_F_ON) || (s->flags & ~GR_FOLLOW_F_KNOWN) ||
	    s->nr_pids > GR_FOLLOW_MAX_PIDS ||
	    s->comm_len > GR_FOLLOW_COMM_LEN ||
	    (!s->nr_pids && !s->comm_len))
		FUZZ_BUG("accepted flags %#x, %u pids, comm of %u", s->flags,
			 s->nr_pids, s->comm_len);
	f.bits = bits;
	f.nr_bits = GR_FOLLOW_PID_LIMIT;
	for (i = 0; i < GR_WIDE_MAX_EVENTS; i++)
		f.other_off[i] = GR_FOLLOW_NO_OFF;
	f.other_off[1] = off % 64;
	for (i = 0; i < s->nr_pids; i++) {
		if (!s->pids[i] || s->pids[i] >= GR_FOLLOW_PID_LIMIT)
			FUZZ_BUG("accepted pid %u", s->pids[i]);
		gr_follow_add(&f, s->pids[i]);
		if (!gr_follow_has(&f, s->pids[i]))
			FUZZ_BUG("pid %u added, not followed", s->pids[i]);
	}
	/* the probe's test on the rest of the input, at its exact length */
	len = size < 64 ? (uint32_t)size : 64;
	{
		uint8_t *pl = malloc(len ? len : 1);

		if (pl) {
			memcpy(pl, data, len);
			gr_follow_keep(&f, 1, pl, len, s->nr_pids ?
				       s->pids[0] : 1);
			gr_follow_keep(&f, 1, pl, len, 0);
			free(pl);
		}
	}
	gr_follow_comm(s, (const char *)c.follow_comm);
	for (i = 0; i < s->nr_pids; i++)
		gr_follow_del(&f, s->pids[i]);
	if (atomic_read(&f.tasks))
		FUZZ_BUG("%d tasks left after every pid was removed",
			 atomic_read(&f.tasks));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mode;

	if (fuzz_take(&data, &size, &mode, 1))
		return 0;
	if (mode & 1)
		fuzz_expr(data, size);
	else if ((mode & 3) == 2)
		fuzz_follow(data, size);
	else
		fuzz_slot(data, size);
	return 0;
}
