// SPDX-License-Identifier: GPL-2.0
/*
 * test_filter.c - event filters: the host's compiler (host-agent/filter)
 * and the guest's verifier and interpreter (guest-module/gr_filter.c)
 *
 * The compiler is checked operator by operator, for precedence, types and
 * every error message; its programs must pass the guest's verifier and
 * give, on random payloads, what a tree-walking reference evaluation of
 * the same expression gives. The verifier is checked for every rejection,
 * and fuzzed: no random program it accepts may jump backwards, jump past
 * the end, fall off the end or load outside the payload (the interpreter
 * then runs it on a payload allocated to the exact size, under ASan).
 */
#include <fnmatch.h>
#include <inttypes.h>

#include "gr_filter.h"
#include "filter.h"
#include "gr_test.h"

/* ---------------------------------------------------------------------- */
/* Events                                                                 */

static void add_field(struct gr_event_view *ev, const char *name, uint16_t off,
		      uint16_t size, uint8_t type, uint8_t flags)
{
	struct gr_field_view *f = &ev->fields[ev->nr_fields++];

	snprintf(f->name, sizeof(f->name), "%s", name);
	f->offset = off;
	f->size = size;
	f->type = type;
	f->flags = flags;
}

/* sched_switch as this guest publishes it */
static void ev_switch(struct gr_event_view *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "sched_switch");
	snprintf(ev->system, sizeof(ev->system), "sched");
	ev->id = 3;
	add_field(ev, "prev_comm", 0, 16, GR_FIELD_CHARS, 0);
	add_field(ev, "prev_tid", 16, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "prev_prio", 20, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "prev_state", 24, 8, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "next_comm", 32, 16, GR_FIELD_CHARS, 0);
	add_field(ev, "next_tid", 48, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "next_prio", 52, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	ev->payload_size = 56;
}

/* every integer width and signedness, and a variable-length string */
static void ev_mixed(struct gr_event_view *ev)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "mixed");
	snprintf(ev->system, sizeof(ev->system), "test");
	ev->id = 1;
	add_field(ev, "u8", 0, 1, GR_FIELD_INTEGER, 0);
	add_field(ev, "s8", 1, 1, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "u16", 2, 2, GR_FIELD_INTEGER, GR_FIELD_F_HEX);
	add_field(ev, "s16", 4, 2, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "u32", 8, 4, GR_FIELD_INTEGER, 0);
	add_field(ev, "s32", 12, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "u64", 16, 8, GR_FIELD_INTEGER, 0);
	add_field(ev, "s64", 24, 8, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "name", 32, 8, GR_FIELD_CHARS, 0);
	add_field(ev, "path", 40, 64, GR_FIELD_STRING, 0);
	ev->flags = GR_EVENT_F_VARLEN;
	ev->payload_size = 104;
}

static struct gr_filter_bounds ev_bounds(const struct gr_event_view *ev)
{
	struct gr_filter_bounds b = { ev->payload_size, ev->payload_size };
	const struct gr_field_view *last = &ev->fields[ev->nr_fields - 1];

	if (ev->flags & GR_EVENT_F_VARLEN)
		b.fixed = last->offset + 1;
	return b;
}

/* ---------------------------------------------------------------------- */
/* Reference evaluation of a tree                                         */

static uint64_t ref_load(const uint8_t *p, unsigned int size, int is_signed)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~UINT64_C(0) << (8 * size);
	return v;
}

static bool ref_eval(const struct gr_fx_tree *t, int idx,
		     const struct gr_event_view *ev, const uint8_t *pl,
		     uint32_t len, uint32_t tid, uint32_t cpu)
{
	const struct gr_fx_node *n = &t->nodes[idx];
	const struct gr_field_view *f;
	char text[300], pat[GR_FX_MAX_STR + 1];
	uint64_t v;
	int is_signed;
	uint32_t i;

	switch (n->kind) {
	case GR_FX_AND:
		return ref_eval(t, n->left, ev, pl, len, tid, cpu) &&
		       ref_eval(t, n->right, ev, pl, len, tid, cpu);
	case GR_FX_OR:
		return ref_eval(t, n->left, ev, pl, len, tid, cpu) ||
		       ref_eval(t, n->right, ev, pl, len, tid, cpu);
	case GR_FX_NOT:
		return !ref_eval(t, n->left, ev, pl, len, tid, cpu);
	case GR_FX_PRED:
		break;
	}
	if (n->is_str) {
		f = &ev->fields[n->field];
		for (i = 0; i < f->size && f->offset + i < len &&
			    pl[f->offset + i]; i++)
			text[i] = (char)pl[f->offset + i];
		text[i] = '\0';
		memcpy(pat, n->str, n->str_len);
		pat[n->str_len] = '\0';
		if (n->op == GR_FX_GLOB)
			return !fnmatch(pat, text, FNM_NOESCAPE);
		return (strlen(text) == n->str_len &&
			!memcmp(text, n->str, n->str_len)) == (n->op == GR_FX_EQ);
	}
	if (n->field == GR_FX_FIELD_TID) {
		v = tid;
		is_signed = 0;
	} else if (n->field == GR_FX_FIELD_CPU) {
		v = cpu;
		is_signed = 0;
	} else {
		f = &ev->fields[n->field];
		is_signed = !!(f->flags & GR_FIELD_F_SIGNED);
		v = ref_load(pl + f->offset, f->size, is_signed);
	}
	switch (n->op) {
	case GR_FX_EQ:
		return v == n->ival;
	case GR_FX_NE:
		return v != n->ival;
	case GR_FX_BAND:
		return (v & n->ival) != 0;
	case GR_FX_LT:
		return is_signed ? (int64_t)v < (int64_t)n->ival : v < n->ival;
	case GR_FX_LE:
		return is_signed ? (int64_t)v <= (int64_t)n->ival : v <= n->ival;
	case GR_FX_GT:
		return is_signed ? (int64_t)v > (int64_t)n->ival : v > n->ival;
	case GR_FX_GE:
		return is_signed ? (int64_t)v >= (int64_t)n->ival : v >= n->ival;
	default:
		CU_FAIL("bad operator");
		return false;
	}
}

/* Compile @expr for @ev and verify it as a guest would */
static int compile_verified(const char *expr, const struct gr_event_view *ev,
			    struct gr_fx_tree *tree, struct gr_filter_prog *prog)
{
	struct gr_filter_bounds b = ev_bounds(ev);
	struct gr_filter_slot slot;
	struct gr_filter_err ferr;
	struct gr_fx_error err;
	int ret;

	ret = gr_fx_parse(expr, ev, tree, &err);
	if (!ret)
		ret = gr_fx_compile(tree, ev, expr, &slot, &err);
	if (ret) {
		fprintf(stderr, "compile '%s': %s\n", expr, err.msg);
		return ret;
	}
	CU_ASSERT_EQUAL_FATAL(gr_filter_read(&slot, 2, prog, &ferr), 1);
	CU_ASSERT_EQUAL(prog->event_id, ev->id);
	ret = gr_filter_verify(prog, &b, &ferr);
	if (ret)
		fprintf(stderr, "verify '%s': reason %u insn %u\n", expr,
			ferr.reason, ferr.insn);
	return ret;
}

/* Does @expr accept the record? (compiled, verified and run) */
static int run_expr(const char *expr, const struct gr_event_view *ev,
		    const uint8_t *pl, uint32_t len, uint32_t tid, uint32_t cpu)
{
	static struct gr_fx_tree tree;
	struct gr_filter_prog prog;
	bool got, want;

	if (compile_verified(expr, ev, &tree, &prog))
		return -1;
	got = gr_filter_match(&prog, pl, len, tid, cpu);
	want = ref_eval(&tree, tree.root, ev, pl, len, tid, cpu);
	CU_ASSERT_EQUAL(got, want);
	return got;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void switch_payload(uint8_t *pl, const char *prev, int32_t prev_tid,
			   const char *next, int32_t next_tid)
{
	memset(pl, 0, 56);
	strncpy((char *)pl, prev, 16);
	put_le(pl + 16, (uint32_t)prev_tid, 4);
	put_le(pl + 20, 120, 4);
	put_le(pl + 24, (uint64_t)-1, 8);
	strncpy((char *)pl + 32, next, 16);
	put_le(pl + 48, (uint32_t)next_tid, 4);
	put_le(pl + 52, (uint32_t)-5, 4);
}

/* ---------------------------------------------------------------------- */
/* Compiler: operators, precedence, types                                 */

static void test_compile_operators(void)
{
	struct gr_event_view ev;
	uint8_t pl[56];

	ev_switch(&ev);
	switch_payload(pl, "bash", 100, "swapper/0", 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid == 100", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid == 101", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid != 100", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid != 5", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid < 100", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid < 101", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid <= 100", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid <= 99", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid > 99", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid > 100", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid >= 100", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid >= 101", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_tid & 4", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid & 0x3", &ev, pl, 56, 7, 1), 0);
	/* signed: next_prio is -5 */
	CU_ASSERT_EQUAL(run_expr("next_prio < 0", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("next_prio == -5", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("next_prio > -6", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_state < 0", &ev, pl, 56, 7, 1), 1);
	/* strings */
	CU_ASSERT_EQUAL(run_expr("prev_comm == \"bash\"", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_comm == 'bas'", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("prev_comm == bash", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("prev_comm != bash", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("next_comm ~ \"swapper*\"", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("next_comm ~ *per/?", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("next_comm ~ \"*[0-9]\"", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("next_comm ~ \"*[!0-9]\"", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("next_comm == \"swapper*\"", &ev, pl, 56, 7, 1), 0);
	/* common fields */
	CU_ASSERT_EQUAL(run_expr("common_tid == 7", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("common_pid == 8", &ev, pl, 56, 7, 1), 0);
	CU_ASSERT_EQUAL(run_expr("common_cpu == 1", &ev, pl, 56, 7, 1), 1);
	CU_ASSERT_EQUAL(run_expr("common_cpu>=2", &ev, pl, 56, 7, 1), 0);
}

static void test_compile_precedence(void)
{
	struct gr_event_view ev;
	uint8_t pl[56];

	ev_switch(&ev);
	switch_payload(pl, "a", 1, "b", 2);
	/* && binds tighter than ||: true || (false && false) */
	CU_ASSERT_EQUAL(run_expr("prev_tid == 1 || prev_tid == 9 && next_tid == 9",
				 &ev, pl, 56, 0, 0), 1);
	/* (true || false) && false */
	CU_ASSERT_EQUAL(run_expr("(prev_tid == 1 || prev_tid == 9) && next_tid == 9",
				 &ev, pl, 56, 0, 0), 0);
	/* ! binds tighter than && */
	CU_ASSERT_EQUAL(run_expr("!prev_tid == 1 && next_tid == 2", &ev, pl, 56,
				 0, 0), 0);
	CU_ASSERT_EQUAL(run_expr("!(prev_tid == 1 && next_tid == 3)", &ev, pl,
				 56, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("!!(prev_tid == 1)", &ev, pl, 56, 0, 0), 1);
	/* the e2e filter */
	CU_ASSERT_EQUAL(run_expr("prev_tid == 2 || next_tid == 2", &ev, pl, 56,
				 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("prev_tid == 3 || next_tid == 3", &ev, pl, 56,
				 0, 0), 0);
	CU_ASSERT_EQUAL(run_expr("((prev_tid == 1)) && ((next_tid == 2))", &ev,
				 pl, 56, 0, 0), 1);
}

static void test_compile_types(void)
{
	struct gr_event_view ev;
	uint8_t pl[104];

	ev_mixed(&ev);
	memset(pl, 0, sizeof(pl));
	put_le(pl + 0, 200, 1);
	put_le(pl + 1, (uint8_t)-3, 1);
	put_le(pl + 2, 0xbeef, 2);
	put_le(pl + 4, (uint16_t)-300, 2);
	put_le(pl + 8, 0xfffffffe, 4);
	put_le(pl + 12, (uint32_t)INT32_MIN, 4);
	put_le(pl + 16, UINT64_MAX, 8);
	put_le(pl + 24, (uint64_t)INT64_MIN, 8);
	memcpy(pl + 32, "eightchr", 8);		/* fills CHARS[8]: no NUL */
	strcpy((char *)pl + 40, "/usr/bin/true");
	CU_ASSERT_EQUAL(run_expr("u8 == 200 && u8 > 199 && u8 < 201", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("s8 == -3 && s8 < 0", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("u16 == 0xbeef && u16 & 0x8000", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("s16 == -300", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("u32 == 4294967294 && u32 > 0x7fffffff", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("s32 == -2147483648 && s32 <= -2147483648", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("u64 == 18446744073709551615", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("u64 >= 0xffffffffffffffff", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("s64 == -9223372036854775808", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("s64 < -9223372036854775807", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("u32 == 037777777776", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("name == eightchr", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("name ~ \"eight*\"", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("path == \"/usr/bin/true\"", &ev, pl, 54, 0, 0), 1);
	CU_ASSERT_EQUAL(run_expr("path ~ \"*/true\"", &ev, pl, 54, 0, 0), 1);
	/* the record is cut at its length: the text ends at "/usr/bin/t" */
	CU_ASSERT_EQUAL(run_expr("path ~ \"*/true\"", &ev, pl, 50, 0, 0), 0);
	CU_ASSERT_EQUAL(run_expr("path == \"/usr/bin/t\"", &ev, pl, 50, 0, 0), 1);
}

/* Constants are stored once in the string table */
static void test_compile_strtab(void)
{
	struct gr_event_view ev;
	struct gr_filter_slot slot;
	struct gr_fx_error err;

	ev_switch(&ev);
	CU_ASSERT_EQUAL(gr_fx_build("prev_comm == bash || next_comm == bash",
				    &ev, &slot, &err), 0);
	CU_ASSERT_EQUAL(le16toh(slot.strtab_len), 4);
	CU_ASSERT_EQUAL(le16toh(slot.event_id), 3);
	/* ld, jeq, ld, jeq, ret 1, ret 0 */
	CU_ASSERT_EQUAL(gr_fx_build("prev_tid == 5 || next_tid == 5", &ev, &slot,
				    &err), 0);
	CU_ASSERT_EQUAL(le16toh(slot.nr_insns), 6);
	CU_ASSERT_EQUAL(slot.insns[0].code, GR_FI_LDS);
	CU_ASSERT_EQUAL(slot.insns[1].code, GR_FI_JEQ);
	CU_ASSERT_EQUAL(slot.insns[1].jt, 2);	/* to "return 1" */
	CU_ASSERT_EQUAL(slot.insns[1].jf, 0);
	CU_ASSERT_EQUAL(slot.insns[3].jt, 0);
	CU_ASSERT_EQUAL(slot.insns[3].jf, 1);
	CU_ASSERT_EQUAL(slot.insns[4].code, GR_FI_RET);
	CU_ASSERT_EQUAL(le64toh(slot.insns[4].k), 1);
	CU_ASSERT_EQUAL(le64toh(slot.insns[5].k), 0);
}

/* ---------------------------------------------------------------------- */
/* Compiler: every error message                                          */

static void expect_error(const struct gr_event_view *ev, const char *expr,
			 const char *msg, uint32_t pos, uint32_t len)
{
	struct gr_filter_slot slot;
	struct gr_fx_error err;
	char text[2048];

	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(gr_fx_build(expr, ev, &slot, &err), -EINVAL);
	if (!strstr(err.msg, msg) || err.pos != pos || err.len != len)
		fprintf(stderr, "'%s': got '%s' at %u+%u, want '%s' at %u+%u\n",
			expr, err.msg, err.pos, err.len, msg, pos, len);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
	CU_ASSERT_EQUAL(err.pos, pos);
	CU_ASSERT_EQUAL(err.len, len);
	CU_ASSERT(gr_fx_format_error(text, sizeof(text), expr, &err) > 0);
}

/* block_rq_issue as this guest publishes it: rwbs is an integer (7.5) */
static void ev_block(struct gr_event_view *ev, uint8_t rwbs_type)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->name, sizeof(ev->name), "block_rq_issue");
	snprintf(ev->system, sizeof(ev->system), "block");
	ev->id = 12;
	add_field(ev, "dev", 0, 4, GR_FIELD_INTEGER, 0);
	add_field(ev, "tid", 4, 4, GR_FIELD_INTEGER, GR_FIELD_F_SIGNED);
	add_field(ev, "sector", 8, 8, GR_FIELD_INTEGER, 0);
	add_field(ev, "nr_sector", 16, 4, GR_FIELD_INTEGER, 0);
	add_field(ev, "bytes", 20, 4, GR_FIELD_INTEGER, 0);
	add_field(ev, "rwbs", 24, 8, rwbs_type, 0);
	add_field(ev, "comm", 32, 16, GR_FIELD_CHARS, 0);
	ev->payload_size = 48;
}

/* the integer rwbs of a block event takes ftrace's letters (spec 14.6) */
static void test_compile_rwbs_letters(void)
{
	static const struct {
		const char *expr;
		uint64_t rwbs;
		int want;
	} c[] = {
		{ "rwbs == WS", GR_RWBS_WRITE | GR_RWBS_SYNC, 1 },
		{ "rwbs == \"WS\"", GR_RWBS_WRITE | GR_RWBS_SYNC, 1 },
		{ "rwbs == 'WS' && nr_sector == 8",
		  GR_RWBS_WRITE | GR_RWBS_SYNC, 1 },
		{ "rwbs == W", GR_RWBS_WRITE | GR_RWBS_SYNC, 0 },
		{ "rwbs != R", GR_RWBS_WRITE | GR_RWBS_SYNC, 1 },
		{ "rwbs == 33", GR_RWBS_WRITE | GR_RWBS_SYNC, 1 },
		{ "rwbs & 1", GR_RWBS_WRITE | GR_RWBS_SYNC, 1 },
		{ "rwbs == R", GR_RWBS_READ, 1 },
		{ "rwbs == RA", GR_RWBS_READ | GR_RWBS_RAHEAD, 1 },
		{ "rwbs == RSM", GR_RWBS_READ | GR_RWBS_SYNC | GR_RWBS_META, 1 },
		{ "rwbs == F", GR_RWBS_FLUSH, 1 },
		{ "rwbs == FF", GR_RWBS_PREFLUSH | GR_RWBS_FLUSH, 1 },
		{ "rwbs == FWFS", GR_RWBS_PREFLUSH | GR_RWBS_WRITE |
		  GR_RWBS_FUA | GR_RWBS_SYNC, 1 },
		{ "rwbs == DE", GR_RWBS_DISCARD | GR_RWBS_SECURE, 1 },
		{ "rwbs == D", GR_RWBS_DISCARD | GR_RWBS_SECURE, 0 },
		{ "rwbs == N", 0, 1 },
		{ "rwbs == NS", GR_RWBS_SYNC, 1 },
		{ "rwbs == FDEFASM", GR_RWBS_PREFLUSH | GR_RWBS_DISCARD |
		  GR_RWBS_SECURE | GR_RWBS_FUA | GR_RWBS_RAHEAD | GR_RWBS_SYNC |
		  GR_RWBS_META, 1 },
	};
	struct gr_event_view ev;
	uint8_t pl[48];
	unsigned int i;
	int got;

	ev_block(&ev, GR_FIELD_INTEGER);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		memset(pl, 0, sizeof(pl));
		put_le(pl + 16, 8, 4);
		put_le(pl + 24, c[i].rwbs, 8);
		got = run_expr(c[i].expr, &ev, pl, sizeof(pl), 1, 0);
		if (got != c[i].want)
			fprintf(stderr, "'%s' on rwbs 0x%llx: %d, not %d\n",
				c[i].expr, (unsigned long long)c[i].rwbs, got,
				c[i].want);
		CU_ASSERT_EQUAL(got, c[i].want);
	}
	expect_error(&ev, "rwbs < W", "rwbs letters take == or != only", 5, 1);
	expect_error(&ev, "rwbs == WX", "not ftrace's rwbs letters", 8, 2);
	expect_error(&ev, "rwbs == SW", "not ftrace's rwbs letters", 8, 2);
	expect_error(&ev, "rwbs == WSS", "not ftrace's rwbs letters", 8, 3);
	expect_error(&ev, "rwbs == WMS", "not ftrace's rwbs letters", 8, 3);
	expect_error(&ev, "rwbs == ''", "not ftrace's rwbs letters", 8, 2);

	/* ftrace's text (an event by name) stays text */
	ev_block(&ev, GR_FIELD_CHARS);
	memset(pl, 0, sizeof(pl));
	memcpy(pl + 24, "WS", 2);
	CU_ASSERT_EQUAL(run_expr("rwbs == WS", &ev, pl, sizeof(pl), 1, 0), 1);
	CU_ASSERT_EQUAL(run_expr("rwbs ~ \"W*\"", &ev, pl, sizeof(pl), 1, 0),
			1);
	/* an integer rwbs outside system block is only an integer */
	ev_block(&ev, GR_FIELD_INTEGER);
	snprintf(ev.system, sizeof(ev.system), "test");
	expect_error(&ev, "rwbs == WS", "expected an integer", 8, 2);
}

/* v1.11: only the first variable field is where its descriptor says */
static void test_compile_dynarr(void)
{
	struct gr_filter_slot slot;
	struct gr_event_view ev;
	struct gr_fx_error err;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "pm");
	snprintf(ev.system, sizeof(ev.system), "power");
	add_field(&ev, "cpus_len", 0, 4, GR_FIELD_INTEGER, 0);
	add_field(&ev, "device", 4, 64, GR_FIELD_STRING, 0);
	add_field(&ev, "driver", 68, 64, GR_FIELD_STRING, 0);
	add_field(&ev, "cpus", 132, 32, GR_FIELD_SEQUENCE, GR_FIELD_F_HEX);
	ev.fields[3].elem_size = 8;
	ev.flags = GR_EVENT_F_VARLEN;
	ev.payload_size = 164;
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(gr_fx_build("device ~ \"0000*\" && cpus_len > 1", &ev,
				    &slot, &err), 0);
	expect_error(&ev, "driver == \"virtio\"",
		     "field 'driver' is a dynamic array or not the event's first string: filters cannot test it",
		     0, 6);
	expect_error(&ev, "cpus == 1", "field 'cpus' is a dynamic array", 0, 4);
}

/* v1.14 (spec 14.6): a fixed array is not an operand either */
static void test_compile_array(void)
{
	struct gr_filter_slot slot;
	struct gr_event_view ev;
	struct gr_fx_error err;

	memset(&ev, 0, sizeof(ev));
	snprintf(ev.name, sizeof(ev.name), "tcp_probe");
	snprintf(ev.system, sizeof(ev.system), "tcp");
	add_field(&ev, "sport", 0, 2, GR_FIELD_INTEGER, 0);
	add_field(&ev, "saddr", 2, 28, GR_FIELD_ARRAY, 0);
	ev.fields[1].elem_size = 1;
	ev.payload_size = 32;
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(gr_fx_build("sport == 22", &ev, &slot, &err), 0);
	expect_error(&ev, "sport == 22 || saddr == 1",
		     "field 'saddr' is an array: filters cannot test it", 15, 5);
}

static void test_compile_errors(void)
{
	struct gr_event_view ev;
	char big[GR_FX_MAX_LEN + 8];
	char text[512];
	struct gr_fx_error err;
	int i;

	ev_switch(&ev);
	expect_error(&ev, "next_pidd == 5",
		     "no field 'next_pidd' in sched_switch; did you mean next_tid?",
		     0, 9);
	expect_error(&ev, "prev_tid == 1 && zzz == 1", "no field 'zzz' in sched_switch (fields: prev_comm, prev_tid, prev_prio, prev_state, next_comm, next_tid, next_prio, common_tid, common_cpu)", 17, 3);
	expect_error(&ev, "common_tdi == 1", "did you mean common_tid?", 0, 10);
	expect_error(&ev, "", "empty filter; use --clear", 0, 1);
	expect_error(&ev, "   ", "empty filter", 0, 1);
	expect_error(&ev, "prev_tid = 1", "unexpected '='; did you mean '=='?", 9, 1);
	expect_error(&ev, "prev_tid == 1 | next_tid == 1", "unexpected '|'; did you mean '||'?", 14, 1);
	expect_error(&ev, "prev_comm !~ a", "'!~' is not an operator", 10, 2);
	expect_error(&ev, "prev_comm == \"bash", "unterminated string: add a closing \"", 13, 5);
	expect_error(&ev, "prev_tid == 1 && ", "expected a field name at the end", 17, 1);
	expect_error(&ev, "5 == prev_tid", "expected a field name, got '5'", 0, 1);
	expect_error(&ev, "prev_tid 5", "expected an operator (== != < <= > >= & ~) after 'prev_tid'", 9, 1);
	expect_error(&ev, "prev_comm < a", "operator '<' does not apply to text field 'prev_comm'; use ==, != or ~", 10, 1);
	expect_error(&ev, "prev_comm & 1", "operator '&' does not apply to text field", 10, 1);
	expect_error(&ev, "prev_tid ~ 1*", "operator '~' (glob) applies to text fields only; 'prev_tid' is an integer", 9, 1);
	expect_error(&ev, "prev_tid ==", "expected a value after 'prev_tid =='", 11, 1);
	expect_error(&ev, "prev_tid == (", "expected a value after", 12, 1);
	expect_error(&ev, "prev_tid == abc", "expected an integer for 'prev_tid', got 'abc'", 12, 3);
	expect_error(&ev, "prev_tid == 12x", "expected an integer for 'prev_tid', got '12x'", 12, 3);
	expect_error(&ev, "prev_tid == \"1\"", "expected an integer for 'prev_tid'", 12, 3);
	expect_error(&ev, "prev_tid == 2147483648",
		     "value 2147483648 is out of range for signed 32-bit field 'prev_tid' (-2147483648..2147483647)",
		     12, 10);
	expect_error(&ev, "prev_tid == -2147483649", "out of range for signed 32-bit", 12, 11);
	expect_error(&ev, "common_cpu == -1",
		     "value -1 is out of range for unsigned 32-bit field 'common_cpu' (0..4294967295)",
		     14, 2);
	expect_error(&ev, "prev_state == 99999999999999999999", "out of range for signed 64-bit", 14, 20);
	expect_error(&ev, "prev_comm == \"abcdefghijklmnopq\"",
		     "is longer than field 'prev_comm' (16 bytes): it can never match", 13, 19);
	expect_error(&ev, "(prev_tid == 1", "missing ')' for the '(' at offset 0", 14, 1);
	expect_error(&ev, "(prev_tid == 1 next_tid", "expected ')' for the '(' at offset 0", 15, 8);
	expect_error(&ev, "prev_tid == 1)", "unmatched ')'", 13, 1);
	expect_error(&ev, "prev_tid == 1 next_tid == 2", "expected '&&', '||' or the end, got 'next_tid'", 14, 8);
	expect_error(&ev, "prev_tid == 1 && #", "expected a field name, got '#'", 17, 1);
	expect_error(&ev, "prev_tid == 1 && ==", "expected a field name, got '=='", 17, 2);

	memset(big, '(', 40);
	strcpy(big + 40, "prev_tid == 1");
	expect_error(&ev, big, "nested too deeply (more than 32 levels)", 32, 1);

	memset(big, ' ', GR_FX_MAX_LEN + 1);
	big[GR_FX_MAX_LEN + 1] = '\0';
	expect_error(&ev, big, "expression longer than 1024 bytes", 0, GR_FX_MAX_LEN);

	/* 13 predicates: 2 * 13 + 2 instructions > 24 */
	text[0] = '\0';
	for (i = 0; i < 13; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%sprev_tid == %d", i ? " || " : "", i);
	expect_error(&ev, text, "filter needs 28 instructions; a guest runs at most 24",
		     0, (uint32_t)strlen(text));
	/* 65 predicates: more nodes than the tree holds */
	text[0] = '\0';
	for (i = 0; i < 65; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%su8==%d", i ? "||" : "", i % 10);
	ev_mixed(&ev);
	expect_error(&ev, text, "expression too complex (more than 128 terms)", 446, 1);

	/* Text constants over the slot's string table */
	snprintf(text, sizeof(text),
		 "path ~ \"%060d*\" || path ~ \"*%060d\"", 1, 2);
	expect_error(&ev, text, "text constants need 122 bytes; a guest holds at most 112",
		     0, (uint32_t)strlen(text));
	snprintf(text, sizeof(text), "path ~ \"%0113d\"", 3);
	expect_error(&ev, text, "text constant of 113 bytes; at most 112", 7, 115);

	/* The caret points at the token */
	ev_switch(&ev);
	CU_ASSERT_EQUAL(gr_fx_build("prev_tid == 1 && next_pidd == 2", &ev, NULL,
				    &err), -EINVAL);
	gr_fx_format_error(text, sizeof(text), "prev_tid == 1 && next_pidd == 2",
			   &err);
	CU_ASSERT_STRING_EQUAL(text,
		"no field 'next_pidd' in sched_switch; did you mean next_tid?\n"
		"  prev_tid == 1 && next_pidd == 2\n"
		"                   ^~~~~~~~~");
}

/* ---------------------------------------------------------------------- */
/* Compiler against the reference, on random trees and payloads           */

static uint64_t rnd64(void)
{
	return ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^
	       (uint64_t)random();
}

static const char *const glob_atoms[] = {
	"a", "b", "c", "?", "*", "[ab]", "[!a]", "[a-c]", "ab", "[]a]",
};

static void rnd_text(char *out, size_t size, bool glob)
{
	size_t n = 0;
	int i, k = (int)(random() % 5);

	out[0] = '\0';
	for (i = 0; i < k; i++) {
		const char *atom = glob ? glob_atoms[random() % 10] :
					  glob_atoms[random() % 3];

		if (n + strlen(atom) + 1 > size)
			break;
		strcpy(out + n, atom);
		n += strlen(atom);
	}
}

static int rnd_expr(char *out, size_t size, const struct gr_event_view *ev,
		    const uint64_t *vals, int depth)
{
	static const char *const iops[] = { "==", "!=", "<", "<=", ">", ">=", "&" };
	static const char *const sops[] = { "==", "!=", "~" };
	char a[256], b[256], text[16];
	const struct gr_field_view *f;
	int r = (int)(random() % 10), fi;
	uint64_t v;

	if (depth < 3 && r < 3) {
		rnd_expr(a, sizeof(a), ev, vals, depth + 1);
		rnd_expr(b, sizeof(b), ev, vals, depth + 1);
		return snprintf(out, size, "(%s %s %s)", a,
				r ? "&&" : "||", b);
	}
	if (depth < 3 && r == 3) {
		rnd_expr(a, sizeof(a), ev, vals, depth + 1);
		return snprintf(out, size, "!(%s)", a);
	}
	fi = (int)(random() % (ev->nr_fields + 1));
	if (fi == ev->nr_fields)
		return snprintf(out, size, "common_tid %s %u",
				iops[random() % 7], (unsigned int)(random() % 4));
	f = &ev->fields[fi];
	if (f->type != GR_FIELD_INTEGER) {
		int op = (int)(random() % 3);

		size_t room = sizeof(text);

		if (op != 2 && (size_t)f->size + 1 < room)
			room = (size_t)f->size + 1;
		rnd_text(text, room, op == 2);
		return snprintf(out, size, "%s %s \"%s\"", f->name, sops[op],
				text);
	}
	/* Near the payload's value, so every comparison goes both ways */
	v = vals[fi] + (uint64_t)(random() % 3) - 1;
	if (random() % 4 == 0)
		v = rnd64();
	if (f->size < 8) {
		uint64_t m = (UINT64_C(1) << (8 * f->size)) - 1;

		v &= m;
		if ((f->flags & GR_FIELD_F_SIGNED) && (v >> (8 * f->size - 1)))
			return snprintf(out, size, "%s %s %" PRId64, f->name,
					iops[random() % 7],
					(int64_t)(v | ~m));
	}
	if (f->flags & GR_FIELD_F_SIGNED)
		return snprintf(out, size, "%s %s %" PRId64, f->name,
				iops[random() % 7], (int64_t)v);
	return snprintf(out, size, "%s %s %" PRIu64, f->name,
			iops[random() % 7], v);
}

static void rnd_payload(const struct gr_event_view *ev, uint8_t *pl,
			uint64_t *vals)
{
	const struct gr_field_view *f;
	char text[16];
	int i;

	memset(pl, 0, ev->payload_size);
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->type == GR_FIELD_INTEGER) {
			vals[i] = random() % 3 ? rnd64() : (uint64_t)(random() % 3);
			put_le(pl + f->offset, vals[i], f->size);
			vals[i] = ref_load(pl + f->offset, f->size,
					   f->flags & GR_FIELD_F_SIGNED);
		} else {
			rnd_text(text, sizeof(text), false);
			memcpy(pl + f->offset, text,
			       strlen(text) < f->size ? strlen(text) : f->size);
		}
	}
}

static void test_compile_random(void)
{
	struct gr_event_view evs[2];
	uint64_t vals[GR_MAX_FIELDS];
	char expr[1024];
	uint8_t pl[128];
	int i, j, e, compiled = 0;

	srandom(11);
	ev_switch(&evs[0]);
	ev_mixed(&evs[1]);
	for (i = 0; i < 3000; i++) {
		const struct gr_event_view *ev = &evs[i % 2];
		static struct gr_fx_tree tree;
		struct gr_filter_prog prog;
		struct gr_filter_slot slot;
		struct gr_fx_error err;
		uint32_t len, tid, cpu;

		rnd_payload(ev, pl, vals);
		rnd_expr(expr, sizeof(expr), ev, vals, 0);
		if (gr_fx_parse(expr, ev, &tree, &err)) {
			fprintf(stderr, "parse '%s': %s\n", expr, err.msg);
			CU_FAIL("random expression refused");
			continue;
		}
		if (gr_fx_compile(&tree, ev, expr, &slot, &err))
			continue;	/* over the caps: a refusal, tested above */
		compiled++;
		e = compile_verified(expr, ev, &tree, &prog);
		CU_ASSERT_EQUAL_FATAL(e, 0);
		for (j = 0; j < 20; j++) {
			if (j)
				rnd_payload(ev, pl, vals);
			len = ev->payload_size;
			if (ev->flags & GR_EVENT_F_VARLEN)
				len = 41 + (uint32_t)(random() % 64);
			tid = (uint32_t)(random() % 4);
			cpu = (uint32_t)(random() % 2);
			CU_ASSERT_EQUAL(gr_filter_match(&prog, pl, len, tid, cpu),
					ref_eval(&tree, tree.root, ev, pl, len,
						 tid, cpu));
		}
	}
	CU_ASSERT(compiled > 2000);
}

/* ---------------------------------------------------------------------- */
/* Verifier: every rejection                                              */

static struct gr_filter_prog mkprog(int n)
{
	struct gr_filter_prog p;

	memset(&p, 0, sizeof(p));
	p.nr_insns = (uint8_t)n;
	p.ops[n - 1].code = GR_FI_RET;
	p.ops[n - 1].k = 1;
	return p;
}

static void expect_reject(const struct gr_filter_prog *p, uint8_t reason,
			  uint16_t insn)
{
	struct gr_filter_bounds b = { 56, 120 };
	struct gr_filter_err err = { 0 };

	CU_ASSERT_EQUAL(gr_filter_verify(p, &b, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, reason);
	CU_ASSERT_EQUAL(err.insn, insn);
	CU_ASSERT_EQUAL(err.slot, p->slot);
}

static void test_verify_rejects(void)
{
	struct gr_filter_bounds b = { 56, 120 };
	struct gr_filter_err err;
	struct gr_filter_prog p;

	p = mkprog(1);
	CU_ASSERT_EQUAL(gr_filter_verify(&p, &b, &err), 0);
	p.nr_insns = 0;
	expect_reject(&p, GR_FILTER_E_LENGTH, GR_FILTER_NO_INSN);
	p = mkprog(1);
	p.strtab_len = GR_FILTER_STRTAB_LEN + 1;
	expect_reject(&p, GR_FILTER_E_LENGTH, GR_FILTER_NO_INSN);
	/* unknown codes */
	p = mkprog(2);
	p.ops[0].code = 0x00;
	expect_reject(&p, GR_FILTER_E_OPCODE, 0);
	p.ops[0].code = 0x16;
	expect_reject(&p, GR_FILTER_E_OPCODE, 0);
	p.ops[0].code = 0xff;
	expect_reject(&p, GR_FILTER_E_OPCODE, 0);
	/* return values and reserved fields */
	p = mkprog(1);
	p.ops[0].k = 2;
	expect_reject(&p, GR_FILTER_E_RET, 0);
	p = mkprog(1);
	p.ops[0].jt = 1;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	p = mkprog(2);
	p.ops[0].code = GR_FI_LD_TID;
	p.ops[0].k = 1;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	p.ops[0].code = GR_FI_LD_CPU;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	p.ops[0].k = 0;
	p.ops[0].width = 4;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	/* loads */
	p = mkprog(2);
	p.ops[0].code = GR_FI_LD;
	p.ops[0].width = 3;
	expect_reject(&p, GR_FILTER_E_LOAD, 0);
	p.ops[0].width = 8;
	p.ops[0].off = 48;
	CU_ASSERT_EQUAL(gr_filter_verify(&p, &b, &err), 0);
	p.ops[0].off = 49;
	expect_reject(&p, GR_FILTER_E_LOAD, 0);
	p.ops[0].off = 0xffff;
	expect_reject(&p, GR_FILTER_E_LOAD, 0);
	p.ops[0].code = GR_FI_LDS;
	p.ops[0].width = 0;
	p.ops[0].off = 0;
	expect_reject(&p, GR_FILTER_E_LOAD, 0);
	p.ops[0].width = 1;
	p.ops[0].jt = 1;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	/* jumps: forward, in range */
	p = mkprog(3);
	p.ops[0].code = GR_FI_JEQ;
	p.ops[0].jt = 1;
	p.ops[1] = p.ops[2];
	CU_ASSERT_EQUAL(gr_filter_verify(&p, &b, &err), 0);
	p.ops[0].jt = 2;
	expect_reject(&p, GR_FILTER_E_JUMP, 0);
	p.ops[0].jt = 0;
	p.ops[0].jf = 255;
	expect_reject(&p, GR_FILTER_E_JUMP, 0);
	p.ops[0].jf = 0;
	p.ops[0].off = 1;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	/* falling off the end */
	p = mkprog(2);
	p.ops[0].code = GR_FI_LD_CPU;
	p.ops[1].code = GR_FI_LD_TID;
	p.ops[1].k = 0;
	expect_reject(&p, GR_FILTER_E_NORET, 1);
	/* strings */
	p = mkprog(3);
	p.strtab_len = 4;
	p.ops[1] = p.ops[2];
	p.ops[0].code = GR_FI_JGLOB;
	p.ops[0].off = 100;
	p.ops[0].arg = 20;
	p.ops[0].k = 0 | 4 << 16;
	CU_ASSERT_EQUAL(gr_filter_verify(&p, &b, &err), 0);
	p.ops[0].arg = 21;
	expect_reject(&p, GR_FILTER_E_STRING, 0);
	p.ops[0].arg = 0;
	expect_reject(&p, GR_FILTER_E_STRING, 0);
	p.ops[0].arg = 20;
	p.ops[0].k = 1 | 4 << 16;
	expect_reject(&p, GR_FILTER_E_STRING, 0);
	p.ops[0].k = 1ULL << 32;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
	p.ops[0].k = 0;
	p.ops[0].code = GR_FI_JSTREQ;
	p.ops[0].jf = 2;
	expect_reject(&p, GR_FILTER_E_JUMP, 0);
	p.ops[0].jf = 0;
	p.ops[0].width = 1;
	expect_reject(&p, GR_FILTER_E_RESERVED, 0);
}

/* The wire format: lengths, reserved fields, events, duplicates */
static void test_verify_area(void)
{
	static uint8_t region[GR_LAYOUT_START];
	struct gr_filter_slot *area = (void *)(region + GR_FILTER_OFFSET);
	struct gr_filter_bounds bounds[4] = {
		{ 8, 8 }, { 8, 8 }, { 8, 8 }, { 8, 8 },
	};
	static struct gr_filter_set set;
	struct gr_filter_err err;
	struct gr_filter_prog p;

	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err), 0);
	CU_ASSERT_EQUAL(set.nr_progs, 0);
	CU_ASSERT_EQUAL(set.slot_of[0], GR_FILTER_NONE);

	area[2].event_id = htole16(3);
	area[2].nr_insns = htole16(1);
	area[2].insns[0].code = GR_FI_RET;
	area[5] = area[2];
	area[5].event_id = htole16(1);
	area[5].insns[0].k = htole64(1);
	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err), 0);
	CU_ASSERT_EQUAL(set.nr_progs, 2);
	CU_ASSERT_EQUAL(set.slot_of[3], 0);
	CU_ASSERT_EQUAL(set.slot_of[1], 1);
	CU_ASSERT_EQUAL(set.progs[1].slot, 5);
	CU_ASSERT_EQUAL(set.slot_of[0], GR_FILTER_NONE);

	area[5].event_id = htole16(4);
	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err),
			-EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_EVENT);
	CU_ASSERT_EQUAL(err.slot, 5);
	area[5].event_id = htole16(3);
	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err),
			-EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_DUP);
	CU_ASSERT_EQUAL(err.slot, 5);
	area[5].event_id = htole16(1);
	area[5].insns[0].k = htole64(7);
	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err),
			-EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_RET);
	CU_ASSERT_EQUAL(err.insn, 0);
	area[5].insns[0].k = htole64(1);

	area[0].nr_insns = htole16(GR_FILTER_MAX_INSNS + 1);
	CU_ASSERT_EQUAL(gr_filter_read(&area[0], 0, &p, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_LENGTH);
	area[0].nr_insns = htole16(0xffff);
	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err),
			-EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_LENGTH);
	CU_ASSERT_EQUAL(err.slot, 0);
	CU_ASSERT_EQUAL(err.insn, GR_FILTER_NO_INSN);
	area[0].nr_insns = htole16(1);
	area[0].strtab_len = htole16(GR_FILTER_STRTAB_LEN + 1);
	CU_ASSERT_EQUAL(gr_filter_read(&area[0], 0, &p, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_LENGTH);
	area[0].strtab_len = 0;
	area[0].reserved0 = htole16(1);
	CU_ASSERT_EQUAL(gr_filter_read(&area[0], 0, &p, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_RESERVED);
	area[0].reserved0 = 0;
	area[0].reserved1 = htole64(1);
	CU_ASSERT_EQUAL(gr_filter_read(&area[0], 0, &p, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_RESERVED);
	/* An unused slot is ignored whatever else it holds */
	area[0].nr_insns = 0;
	CU_ASSERT_EQUAL(gr_filter_read(&area[0], 0, &p, &err), 0);
	CU_ASSERT_EQUAL(gr_filter_read_area(region, 4, bounds, &set, &err), 0);
}

/* ---------------------------------------------------------------------- */
/* Verifier: random programs                                              */

/* What an accepted program must satisfy, checked independently */
static void check_safe(const struct gr_filter_prog *p,
		       const struct gr_filter_bounds *b)
{
	const struct gr_filter_op *op;
	unsigned int pc;

	CU_ASSERT_FATAL(p->nr_insns >= 1 && p->nr_insns <= GR_FILTER_MAX_INSNS);
	CU_ASSERT_EQUAL(p->ops[p->nr_insns - 1].code, GR_FI_RET);
	for (pc = 0; pc < p->nr_insns; pc++) {
		op = &p->ops[pc];
		if (op->code == GR_FI_LD || op->code == GR_FI_LDS)
			CU_ASSERT(op->off + op->width <= b->fixed);
		if (op->code >= GR_FI_JEQ) {
			CU_ASSERT(pc + 1 + op->jt < p->nr_insns);
			CU_ASSERT(pc + 1 + op->jf < p->nr_insns);
		}
		if (op->code == GR_FI_JSTREQ || op->code == GR_FI_JGLOB) {
			CU_ASSERT(op->off + op->arg <= b->max);
			CU_ASSERT((op->k & 0xffff) + ((op->k >> 16) & 0xffff) <=
				  p->strtab_len);
		}
	}
}

static void test_verify_fuzz(void)
{
	static const uint8_t codes[] = {
		GR_FI_RET, GR_FI_LD, GR_FI_LDS, GR_FI_LD_TID, GR_FI_LD_CPU,
		GR_FI_JEQ, GR_FI_JGT, GR_FI_JGE, GR_FI_JSGT, GR_FI_JSGE,
		GR_FI_JSET, GR_FI_JSTREQ, GR_FI_JGLOB, 0x06, 0x7f,
	};
	struct gr_filter_bounds b;
	struct gr_filter_err err;
	struct gr_filter_prog p;
	unsigned int i, pc, accepted = 0;
	uint8_t *pl;

	srandom(7);
	for (i = 0; i < 200000; i++) {
		memset(&p, 0, sizeof(p));
		p.nr_insns = (uint8_t)(1 + random() % GR_FILTER_MAX_INSNS);
		p.strtab_len = (uint16_t)(random() % (GR_FILTER_STRTAB_LEN + 1));
		for (pc = 0; pc < p.strtab_len; pc++)
			p.strtab[pc] = "ab*?[]!-"[random() % 8];
		b.fixed = (uint16_t)(1 + random() % 64);
		b.max = b.fixed + (uint16_t)(random() % 64);
		for (pc = 0; pc < p.nr_insns; pc++) {
			struct gr_filter_op *op = &p.ops[pc];
			/* Mostly plausible values, sometimes anything */
			bool wild = random() % 16 == 0;

			op->code = codes[random() % ARRAY_SIZE(codes)];
			op->width = wild ? (uint8_t)random() :
				    (uint8_t)(1u << (random() % 4));
			op->jt = wild ? (uint8_t)random() :
				 (uint8_t)(random() % (p.nr_insns + 1 - pc));
			op->jf = wild ? (uint8_t)random() :
				 (uint8_t)(random() % (p.nr_insns + 1 - pc));
			op->off = wild ? (uint16_t)random() :
				  (uint16_t)(random() % (b.max + 2));
			op->arg = (uint16_t)(random() % 24);
			op->k = wild ? rnd64() : (uint64_t)(random() % 2);
			if (op->code == GR_FI_JSTREQ || op->code == GR_FI_JGLOB)
				op->k = (random() % 120) |
					(random() % 60) << 16;
			/* Make valid shapes likely, so acceptance is common */
			if (!wild && op->code != GR_FI_LD &&
			    op->code != GR_FI_LDS)
				op->width = 0;
			if (!wild && (op->code < GR_FI_JEQ))
				op->jt = op->jf = 0;
			if (!wild && op->code < GR_FI_JSTREQ)
				op->arg = 0;
			if (!wild && op->code <= GR_FI_LD_CPU &&
			    op->code != GR_FI_LD && op->code != GR_FI_LDS)
				op->off = 0;
			if (!wild && op->code >= GR_FI_LD &&
			    op->code <= GR_FI_LD_CPU)
				op->k = 0;
		}
		if (random() % 2) {
			p.ops[p.nr_insns - 1].code = GR_FI_RET;
			p.ops[p.nr_insns - 1].width = 0;
			p.ops[p.nr_insns - 1].jt = 0;
			p.ops[p.nr_insns - 1].jf = 0;
			p.ops[p.nr_insns - 1].off = 0;
			p.ops[p.nr_insns - 1].arg = 0;
			p.ops[p.nr_insns - 1].k = random() % 2;
		}
		if (gr_filter_verify(&p, &b, &err)) {
			CU_ASSERT(err.reason >= GR_FILTER_E_LENGTH &&
				  err.reason <= GR_FILTER_E_NORET);
			continue;
		}
		accepted++;
		check_safe(&p, &b);
		/* Exactly the bytes a record may have: ASan sees any overrun */
		pl = malloc(b.max);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
		for (pc = 0; pc < b.max; pc++)
			pl[pc] = (uint8_t)random();
		gr_filter_match(&p, pl, b.max, 1, 0);
		free(pl);
		pl = malloc(b.fixed);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pl);
		memset(pl, 'a', b.fixed);
		gr_filter_match(&p, pl, b.fixed, 1, 0);
		free(pl);
	}
	CU_ASSERT(accepted > 1000);
}

/* The glob matcher against fnmatch(3) on patterns of its language */
static void test_glob(void)
{
	char pat[64], text[32];
	int i;

	CU_ASSERT(gr_glob_match("*", 1, (const uint8_t *)"", 0));
	CU_ASSERT(gr_glob_match("", 0, (const uint8_t *)"", 0));
	CU_ASSERT(!gr_glob_match("", 0, (const uint8_t *)"a", 1));
	CU_ASSERT(gr_glob_match("a*b*c", 5, (const uint8_t *)"aXbYbc", 6));
	CU_ASSERT(!gr_glob_match("a*b*c", 5, (const uint8_t *)"aXbYbd", 6));
	CU_ASSERT(gr_glob_match("[", 1, (const uint8_t *)"[", 1));
	CU_ASSERT(gr_glob_match("[a", 2, (const uint8_t *)"[a", 2));
	CU_ASSERT(gr_glob_match("[]]", 3, (const uint8_t *)"]", 1));
	CU_ASSERT(gr_glob_match("[a-]", 4, (const uint8_t *)"-", 1));
	CU_ASSERT(gr_glob_match("[!a]", 4, (const uint8_t *)"b", 1));
	CU_ASSERT(!gr_glob_match("[!a]", 4, (const uint8_t *)"a", 1));
	srandom(3);
	for (i = 0; i < 100000; i++) {
		rnd_text(pat, sizeof(pat), true);
		rnd_text(text, sizeof(text), false);
		CU_ASSERT_EQUAL(gr_glob_match(pat, (uint32_t)strlen(pat),
					      (const uint8_t *)text,
					      (uint32_t)strlen(text)),
				!fnmatch(pat, text, FNM_NOESCAPE));
	}
}

/* spec 15.2: the follow block, written by the host, read by the guest */
static void test_follow_block(void)
{
	static const struct {
		const char *pids, *comm;
		uint32_t flags;
		int ret;
		uint8_t reason;
		uint16_t insn;
	} cases[] = {
		{ "812,900", NULL, 3, 0, 0, 0 },
		{ NULL, "nginx*", 1, 0, 0, 0 },
		{ "1", NULL, 4 | 3, -EINVAL, GR_FILTER_E_FOLLOW, 0xffff },
		{ "1", NULL, 2, -EINVAL, GR_FILTER_E_FOLLOW, 0xffff },
	};
	struct gr_host_ctrl c;
	struct gr_fx_follow fo;
	struct gr_follow_spec spec;
	struct gr_filter_err err;
	char msg[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&fo, 0, sizeof(fo));
		if (cases[i].pids)
			CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, cases[i].pids,
							  msg, sizeof(msg)), 0);
		if (cases[i].comm)
			CU_ASSERT_EQUAL(gr_fx_follow_comm(&fo, cases[i].comm,
							  msg, sizeof(msg)), 0);
		fo.flags = cases[i].flags;
		memset(&c, 0xa5, sizeof(c));
		gr_fx_follow_fill(&fo, &c);
		memset(&err, 0, sizeof(err));
		CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), cases[i].ret);
		if (cases[i].ret) {
			CU_ASSERT_EQUAL(err.reason, cases[i].reason);
			CU_ASSERT_EQUAL(err.slot, GR_FILTER_NO_SLOT);
			CU_ASSERT_EQUAL(err.insn, cases[i].insn);
			CU_ASSERT_EQUAL(spec.flags, 0);
			continue;
		}
		CU_ASSERT_EQUAL(spec.flags, fo.flags);
		CU_ASSERT_EQUAL(spec.nr_pids, fo.nr_pids);
		CU_ASSERT_EQUAL(memcmp(spec.pids, fo.pids,
				       fo.nr_pids * sizeof(fo.pids[0])), 0);
		CU_ASSERT_EQUAL(spec.comm_len, strlen(fo.comm));
		CU_ASSERT_EQUAL(memcmp(spec.comm, fo.comm, spec.comm_len), 0);
	}

	/* flags 0: no follow filter, whatever the rest holds */
	memset(&c, 0xa5, sizeof(c));
	c.follow_flags = 0;
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), 0);
	CU_ASSERT_EQUAL(spec.flags, 0);
	CU_ASSERT_EQUAL(spec.nr_pids, 0);

	/* each rule of 15.2 on a block written by hand */
	memset(&fo, 0, sizeof(fo));
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "5,6,7", msg, sizeof(msg)), 0);
	gr_fx_follow_fill(&fo, &c);
	c.follow_reserved = 1;
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_RESERVED);
	gr_fx_follow_fill(&fo, &c);
	c.follow_nr_pids = htole16(GR_FOLLOW_MAX_PIDS + 1);
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_FOLLOW);
	gr_fx_follow_fill(&fo, &c);
	c.follow_nr_pids = 0;
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_FOLLOW);
	gr_fx_follow_fill(&fo, &c);
	c.follow_comm_len = GR_FOLLOW_COMM_LEN + 1;
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_FOLLOW);
	gr_fx_follow_fill(&fo, &c);
	c.follow_pids[2] = 0;
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.reason, GR_FILTER_E_FOLLOW);
	CU_ASSERT_EQUAL(err.insn, 2);
	gr_fx_follow_fill(&fo, &c);
	c.follow_pids[1] = htole32(GR_FOLLOW_PID_LIMIT);
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.insn, 1);
	/* pids past nr_pids are not read */
	gr_fx_follow_fill(&fo, &c);
	c.follow_pids[3] = htole32(0xffffffff);
	CU_ASSERT_EQUAL(gr_follow_read(&c, &spec, &err), 0);
	CU_ASSERT_EQUAL(spec.nr_pids, 3);

	/* the host's parser */
	memset(&fo, 0, sizeof(fo));
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "4194303", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "4194304", msg, sizeof(msg)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "1,,2", msg, sizeof(msg)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "-1", msg, sizeof(msg)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "4194303", msg, sizeof(msg)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(msg, "--pid: 4194303 given twice");
	CU_ASSERT_EQUAL(fo.nr_pids, 1);
	for (i = 2; i <= GR_FOLLOW_MAX_PIDS; i++) {
		snprintf(msg, sizeof(msg), "%u", i);
		CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, msg, msg, sizeof(msg)),
				0);
	}
	CU_ASSERT_EQUAL(gr_fx_follow_pids(&fo, "99", msg, sizeof(msg)),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_fx_follow_comm(&fo, "", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(gr_fx_follow_comm(&fo,
					  "123456789012345678901234567890123",
					  msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(gr_fx_follow_str(&fo, msg, sizeof(msg)) > 0, 1);
}

/* spec 15.3: the followed set, its counts and the test a probe runs */
static void test_follow_set(void)
{
	static unsigned long bits[GR_FOLLOW_PID_LIMIT / (8 * sizeof(long))];
	static struct gr_follow f;
	uint8_t payload[16] = { 0 };
	unsigned int i;

	memset(&f, 0, sizeof(f));
	f.bits = bits;
	f.nr_bits = GR_FOLLOW_PID_LIMIT;
	for (i = 0; i < GR_WIDE_MAX_EVENTS; i++)
		f.other_off[i] = GR_FOLLOW_NO_OFF;
	f.other_off[3] = 8;
	CU_ASSERT(gr_follow_add(&f, 1));
	CU_ASSERT(gr_follow_add(&f, 63));
	CU_ASSERT(gr_follow_add(&f, 64));
	CU_ASSERT(gr_follow_add(&f, GR_FOLLOW_PID_LIMIT - 1));
	CU_ASSERT(!gr_follow_add(&f, 64));
	CU_ASSERT(!gr_follow_add(&f, GR_FOLLOW_PID_LIMIT));
	CU_ASSERT_EQUAL(atomic_read(&f.tasks), 4);
	CU_ASSERT(gr_follow_has(&f, 63));
	CU_ASSERT(!gr_follow_has(&f, 62));
	CU_ASSERT(!gr_follow_has(&f, 0xffffffff));
	gr_follow_del(&f, 63);
	gr_follow_del(&f, 63);
	gr_follow_del(&f, GR_FOLLOW_PID_LIMIT + 5);
	CU_ASSERT_EQUAL(atomic_read(&f.tasks), 3);
	CU_ASSERT(!gr_follow_has(&f, 63));

	/* the recording thread, or the event's second task */
	CU_ASSERT(gr_follow_keep(&f, 2, payload, 16, 64));
	CU_ASSERT(!gr_follow_keep(&f, 2, payload, 16, 65));
	payload[8] = 64;
	CU_ASSERT(!gr_follow_keep(&f, 2, payload, 16, 65));
	CU_ASSERT(gr_follow_keep(&f, 3, payload, 16, 65));
	/* a second task past the record's end is not read */
	CU_ASSERT(!gr_follow_keep(&f, 3, payload, 11, 65));
	payload[8] = 0xff;
	payload[9] = 0xff;
	payload[10] = 0x3f;
	CU_ASSERT(gr_follow_keep(&f, 3, payload, 12, 65));

	/* the comm glob */
	f.spec.comm_len = 6;
	memcpy(f.spec.comm, "nginx*", 6);
	CU_ASSERT(gr_follow_comm(&f.spec, "nginx"));
	CU_ASSERT(gr_follow_comm(&f.spec, "nginx: worker"));
	CU_ASSERT(!gr_follow_comm(&f.spec, "sshd"));
	/* a full comm of 16 bytes without NUL is cut at 16 */
	CU_ASSERT(gr_follow_comm(&f.spec, "nginx0123456789abcdefXYZ"));
	f.spec.comm_len = 0;
	CU_ASSERT(!gr_follow_comm(&f.spec, "nginx"));
}

static const struct gr_test tests[] = {
	GR_TEST(test_compile_operators),
	GR_TEST(test_compile_precedence),
	GR_TEST(test_compile_types),
	GR_TEST(test_compile_strtab),
	GR_TEST(test_compile_errors),
	GR_TEST(test_compile_dynarr),
	GR_TEST(test_compile_array),
	GR_TEST(test_compile_rwbs_letters),
	GR_TEST(test_compile_random),
	GR_TEST(test_verify_rejects),
	GR_TEST(test_verify_area),
	GR_TEST(test_verify_fuzz),
	GR_TEST(test_glob),
	GR_TEST(test_follow_block),
	GR_TEST(test_follow_set),
};

int main(void)
{
	return gr_test_main("filter", tests, ARRAY_SIZE(tests), NULL, NULL);
}
