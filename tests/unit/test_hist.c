// SPDX-License-Identifier: GPL-2.0
/*
 * test_hist.c - aggregation, host side: the ftrace hist parser and the
 * latency presets (host-agent/filter/hist.c) against event views laid out
 * as this guest publishes them
 *
 * Every accepted form is checked field by field in the wire request;
 * every refusal by its message and the position and length of the token
 * it points at.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "hist.h"
#include "gr_test.h"

/* ---------------------------------------------------------------------- */
/* Events, as guest-module/gr_events_table.h lays them out                */

#define I	GR_FIELD_INTEGER
#define C	GR_FIELD_CHARS
#define S	GR_FIELD_F_SIGNED
#define X	GR_FIELD_F_HEX

enum { E_SWITCH, E_WAKEUP, E_SYS_ENTER, E_SYS_EXIT, E_RQ_ISSUE,
	E_RQ_COMPLETE, E_IRQ_ENTRY, E_IRQ_EXIT, NR_EVENTS };

/* one event: id, system, name, then its fields (name, offset, size, type, flags) */
static const struct {
	uint16_t id;
	const char *sys;
	const char *name;
	struct gr_field_view f[8];
} defs[NR_EVENTS] = {
	[E_SWITCH] = { 0, "sched", "sched_switch", {
		{ "prev_comm", 0, 16, C, 0 }, { "prev_tid", 16, 4, I, S },
		{ "prev_prio", 20, 4, I, S }, { "prev_state", 24, 8, I, S },
		{ "next_comm", 32, 16, C, 0 }, { "next_tid", 48, 4, I, S },
		{ "next_prio", 52, 4, I, S } } },
	[E_WAKEUP] = { 1, "sched", "sched_wakeup", {
		{ "comm", 0, 16, C, 0 }, { "tid", 16, 4, I, S },
		{ "prio", 20, 4, I, S }, { "target_cpu", 24, 4, I, S } } },
	[E_SYS_ENTER] = { 20, "raw_syscalls", "sys_enter", {
		{ "id", 0, 8, I, S }, { "arg0", 8, 8, I, X },
		{ "arg1", 16, 8, I, X }, { "arg2", 24, 8, I, X },
		{ "arg3", 32, 8, I, X }, { "arg4", 40, 8, I, X },
		{ "arg5", 48, 8, I, X } } },
	[E_SYS_EXIT] = { 21, "raw_syscalls", "sys_exit", {
		{ "id", 0, 8, I, S }, { "ret", 8, 8, I, S } } },
	[E_RQ_ISSUE] = { 22, "block", "block_rq_issue", {
		{ "dev", 0, 4, I, 0 }, { "tid", 4, 4, I, S },
		{ "sector", 8, 8, I, 0 }, { "nr_sector", 16, 4, I, 0 },
		{ "bytes", 20, 4, I, 0 }, { "rwbs", 24, 8, C, 0 },
		{ "comm", 32, 16, C, 0 } } },
	[E_RQ_COMPLETE] = { 23, "block", "block_rq_complete", {
		{ "dev", 0, 4, I, 0 }, { "error", 4, 4, I, S },
		{ "sector", 8, 8, I, 0 }, { "nr_sector", 16, 4, I, 0 },
		{ "bytes", 20, 4, I, 0 }, { "rwbs", 24, 8, C, 0 } } },
	[E_IRQ_ENTRY] = { 8, "irq", "irq_handler_entry", {
		{ "irq", 0, 4, I, S },
		{ "name", 4, 32, GR_FIELD_STRING, 0 } } },
	[E_IRQ_EXIT] = { 9, "irq", "irq_handler_exit", {
		{ "irq", 0, 4, I, S }, { "ret", 4, 4, I, S } } },
};

static struct gr_event_view evs[NR_EVENTS];

static void events_init(void)
{
	const struct gr_field_view *f;
	struct gr_event_view *e;
	int i;

	for (i = 0; i < NR_EVENTS; i++) {
		e = &evs[i];
		memset(e, 0, sizeof(*e));
		e->id = defs[i].id;
		snprintf(e->system, sizeof(e->system), "%s", defs[i].sys);
		snprintf(e->name, sizeof(e->name), "%s", defs[i].name);
		for (f = defs[i].f; f < defs[i].f + 8 && f->size; f++) {
			e->fields[e->nr_fields++] = *f;
			if (f->offset + f->size > e->payload_size)
				e->payload_size = f->offset + f->size;
			if (f->type == GR_FIELD_STRING)
				e->flags = GR_EVENT_F_VARLEN;
		}
	}
}

/* ---------------------------------------------------------------------- */
/* The parser                                                             */

static struct gr_hist_spec spec;

static int parse(int e, const char *text, const char *filter)
{
	struct gr_fx_error err;

	memset(&err, 0, sizeof(err));
	return gr_hist_parse(text, filter, &evs[e], 12, &spec, &err);
}

static void check_key(const struct gr_hist_key *k, uint8_t src, uint8_t width,
		      uint16_t off, uint8_t flags, uint8_t xform, uint64_t arg)
{
	CU_ASSERT_EQUAL(k->src, src);
	CU_ASSERT_EQUAL(k->width, width);
	CU_ASSERT_EQUAL(le16toh(k->off), off);
	CU_ASSERT_EQUAL(k->flags, flags);
	CU_ASSERT_EQUAL(k->xform, xform);
	CU_ASSERT_EQUAL(le64toh(k->arg), arg);
	CU_ASSERT_EQUAL(k->reserved, 0);
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static void test_parse_keys(void)
{
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid", NULL), 0);
	CU_ASSERT_EQUAL(le16toh(spec.req.event_id), 0);
	CU_ASSERT_EQUAL(spec.req.kind, GR_HIST_PLAIN);
	CU_ASSERT_EQUAL(spec.req.nr_keys, 1);
	CU_ASSERT_EQUAL(spec.req.nr_vals, 0);
	CU_ASSERT_EQUAL(spec.req.entries_log2, 12);
	CU_ASSERT_EQUAL(spec.req.gen, 0);
	CU_ASSERT_EQUAL(spec.req.nr_insns, 0);
	check_key(&spec.req.key[0], GR_HS_FIELD, 4, 16, GR_HK_SIGNED,
		  GR_HT_NONE, 0);
	CU_ASSERT(all_zero(&spec.req.key[1], sizeof(spec.req.key[1])));
	CU_ASSERT(all_zero(spec.req.match, sizeof(spec.req.match)));
	CU_ASSERT_STRING_EQUAL(spec.key_name[0], "prev_tid");
	CU_ASSERT_STRING_EQUAL(spec.name, "sched_switch");
	CU_ASSERT_STRING_EQUAL(spec.event, "sched_switch");
	CU_ASSERT_STRING_EQUAL(spec.text, "keys=prev_tid");
	CU_ASSERT_STRING_EQUAL(spec.filter, "");
	CU_ASSERT_EQUAL(spec.nr_sort, 0);

	/* the "hist:" prefix, key=, two keys, common fields */
	CU_ASSERT_EQUAL(parse(E_SWITCH, "hist:key=common_pid,common_cpu", NULL),
			0);
	CU_ASSERT_EQUAL(spec.req.nr_keys, 2);
	check_key(&spec.req.key[0], GR_HS_TID, 0, 0, 0, GR_HT_NONE, 0);
	check_key(&spec.req.key[1], GR_HS_CPU, 0, 0, 0, GR_HT_NONE, 0);
	CU_ASSERT_STRING_EQUAL(spec.key_name[1], "common_cpu");
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=common_tid", NULL), 0);
	check_key(&spec.req.key[0], GR_HS_TID, 0, 0, 0, GR_HT_NONE, 0);

	/* unsigned fields carry no GR_HK_SIGNED; hex fields neither */
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "keys=sector", NULL), 0);
	check_key(&spec.req.key[0], GR_HS_FIELD, 8, 8, 0, GR_HT_NONE, 0);
	CU_ASSERT_EQUAL(parse(E_SYS_ENTER, "keys=arg1.hex", NULL), 0);
	check_key(&spec.req.key[0], GR_HS_FIELD, 8, 16, 0, GR_HT_NONE, 0);
	CU_ASSERT_EQUAL(spec.key_display[0], GR_HD_HEX);
}

static void test_parse_modifiers(void)
{
	CU_ASSERT_EQUAL(parse(E_SYS_EXIT, "keys=ret.log2", NULL), 0);
	check_key(&spec.req.key[0], GR_HS_FIELD, 8, 8, GR_HK_SIGNED,
		  GR_HT_LOG2, 0);
	CU_ASSERT_EQUAL(spec.key_display[0], 0);
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "keys=bytes.buckets=4096", NULL), 0);
	check_key(&spec.req.key[0], GR_HS_FIELD, 4, 20, 0, GR_HT_BUCKET, 4096);
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "keys=bytes.bucket=0x10,dev.hex",
			      NULL), 0);
	check_key(&spec.req.key[0], GR_HS_FIELD, 4, 20, 0, GR_HT_BUCKET, 16);
	CU_ASSERT_EQUAL(spec.key_display[1], GR_HD_HEX);
	CU_ASSERT_EQUAL(parse(E_SYS_ENTER, "keys=arg0.sym", NULL), 0);
	CU_ASSERT_EQUAL(spec.key_display[0], GR_HD_SYM);
	CU_ASSERT_EQUAL(spec.req.key[0].xform, GR_HT_NONE);
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=common_pid.execname", NULL), 0);
	CU_ASSERT_EQUAL(spec.key_display[0], GR_HD_EXECNAME);
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=next_tid.execname", NULL), 0);
	CU_ASSERT_EQUAL(spec.key_display[0], GR_HD_EXECNAME);
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=common_cpu.log2", NULL), 0);
	check_key(&spec.req.key[0], GR_HS_CPU, 0, 0, 0, GR_HT_LOG2, 0);
}

static void test_parse_vals(void)
{
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE,
			      "keys=dev:vals=hitcount,bytes,nr_sector,tid",
			      NULL), 0);
	CU_ASSERT_EQUAL(spec.req.nr_vals, 3);
	check_key(&spec.req.val[0], GR_HS_FIELD, 4, 20, 0, GR_HT_NONE, 0);
	check_key(&spec.req.val[1], GR_HS_FIELD, 4, 16, 0, GR_HT_NONE, 0);
	check_key(&spec.req.val[2], GR_HS_FIELD, 4, 4, GR_HK_SIGNED,
		  GR_HT_NONE, 0);
	CU_ASSERT_STRING_EQUAL(spec.val_name[0], "bytes");
	CU_ASSERT_STRING_EQUAL(spec.val_name[2], "tid");
	/* values=, val=, hitcount alone, common_cpu as a value */
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "values=hitcount:keys=dev", NULL), 0);
	CU_ASSERT_EQUAL(spec.req.nr_vals, 0);
	CU_ASSERT(all_zero(spec.req.val, sizeof(spec.req.val)));
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "keys=dev:val=common_cpu", NULL), 0);
	check_key(&spec.req.val[0], GR_HS_CPU, 0, 0, 0, GR_HT_NONE, 0);
}

static void test_parse_sort_size_name(void)
{
	/* sort= may come before the keys and values it names */
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE,
			      "sort=bytes.descending,dev:keys=dev:vals=bytes",
			      NULL), 0);
	CU_ASSERT_EQUAL(spec.nr_sort, 2);
	CU_ASSERT_EQUAL(spec.sort[0].col, GR_HIST_SORT_VAL(0));
	CU_ASSERT(spec.sort[0].descending);
	CU_ASSERT_EQUAL(spec.sort[1].col, GR_HIST_SORT_KEY(0));
	CU_ASSERT(!spec.sort[1].descending);
	CU_ASSERT_EQUAL(parse(E_SWITCH,
			      "keys=prev_tid,next_tid:sort=hitcount.ascending,next_tid.descending",
			      NULL), 0);
	CU_ASSERT_EQUAL(spec.sort[0].col, GR_HIST_SORT_HITCOUNT);
	CU_ASSERT(!spec.sort[0].descending);
	CU_ASSERT_EQUAL(spec.sort[1].col, GR_HIST_SORT_KEY(1));
	CU_ASSERT(spec.sort[1].descending);

	/* size= rounds up to a power of two, at least 2^3 */
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid:size=2048", NULL), 0);
	CU_ASSERT_EQUAL(spec.req.entries_log2, 11);
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid:size=2049", NULL), 0);
	CU_ASSERT_EQUAL(spec.req.entries_log2, 12);
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid:size=1", NULL), 0);
	CU_ASSERT_EQUAL(spec.req.entries_log2, GR_HIST_MIN_ENTRIES_LOG2);
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid:size=4096", NULL), 0);
	CU_ASSERT_EQUAL(spec.req.entries_log2, 12);

	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid:name=switches_by_tid",
			      NULL), 0);
	CU_ASSERT_STRING_EQUAL(spec.name, "switches_by_tid");
	CU_ASSERT_STRING_EQUAL(spec.event, "sched_switch");
}

static void test_parse_filter(void)
{
	const struct gr_filter_insn *in = spec.req.insns;

	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=next_tid",
			      "prev_comm == \"bash\" && prev_tid > 10"), 0);
	CU_ASSERT_EQUAL(le16toh(spec.req.strtab_len), 4);
	CU_ASSERT_EQUAL(memcmp(spec.req.strtab, "bash", 4), 0);
	CU_ASSERT(le16toh(spec.req.nr_insns) >= 4);
	CU_ASSERT_EQUAL(in[0].code, GR_FI_JSTREQ);
	CU_ASSERT_EQUAL(in[le16toh(spec.req.nr_insns) - 1].code, GR_FI_RET);
	CU_ASSERT_STRING_EQUAL(spec.filter,
			       "prev_comm == \"bash\" && prev_tid > 10");
	/* "" is no filter */
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=next_tid", ""), 0);
	CU_ASSERT_EQUAL(spec.req.nr_insns, 0);
}

/* @text refused with a message containing @msg at [pos, pos + len) */
static void expect_error(int e, const char *text, const char *filter,
			 unsigned int max_log2, const char *msg, uint32_t pos,
			 uint32_t len)
{
	struct gr_fx_error err;
	char buf[2048];
	int ret;

	memset(&err, 0, sizeof(err));
	ret = gr_hist_parse(text, filter, &evs[e], max_log2, &spec, &err);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	if (!strstr(err.msg, msg) || err.pos != pos || err.len != len)
		fprintf(stderr, "\n'%s': got '%s' at %u+%u, want '%s' at %u+%u\n",
			text, err.msg, err.pos, err.len, msg, pos, len);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, msg));
	CU_ASSERT_EQUAL(err.pos, pos);
	CU_ASSERT_EQUAL(err.len, len);
	CU_ASSERT(gr_fx_format_error(buf, sizeof(buf), text, &err) > 0);
}

#define ERR(e, text, msg, pos, len) \
	expect_error(e, text, NULL, 12, msg, pos, len)

static void test_parse_errors(void)
{
	char big[GR_HIST_TEXT_LEN + 8];

	ERR(E_SWITCH, "", "empty hist request", 0, 1);
	ERR(E_SWITCH, "hist:", "empty hist request", 0, 5);
	ERR(E_SWITCH, "vals=prev_prio", "no keys=", 0, 14);
	ERR(E_SWITCH, "keys=", "empty key", 5, 1);
	ERR(E_SWITCH, "keys=prev_tid,", "empty key", 14, 1);
	ERR(E_SWITCH, "keys=prev_tid::vals=prev_prio", "empty part", 13, 1);
	ERR(E_SWITCH, "keys=prev_tid:", "empty part", 13, 1);
	ERR(E_SWITCH, "keys=prev_tidd", "no integer field 'prev_tidd' in sched_switch (fields: prev_tid, prev_prio, prev_state, next_tid, next_prio, common_pid, common_cpu)", 5, 9);
	ERR(E_SWITCH, "keys=next_tid,bogus.log2", "no integer field 'bogus'", 14, 5);
	ERR(E_SWITCH, "keys=prev_comm", "'prev_comm' is a text field: a guest hist key or value is a 64-bit integer", 5, 9);
	ERR(E_IRQ_ENTRY, "keys=name", "'name' is a text field", 5, 4);
	ERR(E_SWITCH, "keys=prev_tid,next_tid,prev_prio", "too many keys: a guest hist keeps at most 2", 23, 9);
	ERR(E_SWITCH, "keys=prev_tid,prev_tid.hex", "duplicate key 'prev_tid'", 14, 8);
	ERR(E_SWITCH, "keys=common_pid,common_tid", "duplicate key 'common_tid'", 16, 10);
	ERR(E_SWITCH, "keys=hitcount", "hitcount is not a key", 5, 8);
	ERR(E_SWITCH, "keys=prev_tid.log3", "unknown modifier '.log3'", 14, 4);
	ERR(E_SWITCH, "keys=prev_tid.usecs", "modifier '.usecs' is not supported by a guest hist", 14, 5);
	ERR(E_SWITCH, "keys=prev_tid.", "expected one modifier after '.'", 14, 1);
	ERR(E_SWITCH, "keys=prev_tid.log2.hex", "expected one modifier", 14, 8);
	ERR(E_SWITCH, "keys=prev_tid.buckets=0", "expected a bucket width of at least 1 after 'buckets='", 22, 1);
	ERR(E_SWITCH, "keys=prev_tid.buckets=x", "bucket width", 22, 1);
	ERR(E_SWITCH, "keys=prev_tid.buckets=", "bucket width", 22, 0 + 1);
	ERR(E_SWITCH, "keys=prev_prio.execname", ".execname applies to a pid", 15, 8);
	ERR(E_SWITCH, "keys=prev_tid:vals=prev_prio,prev_state,next_prio,next_tid", "too many values: a guest hist keeps at most 3 beside hitcount", 50, 8);
	ERR(E_SWITCH, "keys=prev_tid:vals=prev_prio,prev_prio", "duplicate value 'prev_prio'", 29, 9);
	ERR(E_SWITCH, "keys=prev_tid:vals=prev_prio.hex", "a value takes no modifier", 19, 13);
	ERR(E_SWITCH, "keys=prev_tid:vals=next_comm", "'next_comm' is a text field", 19, 9);
	ERR(E_SWITCH, "keys=prev_tid:vals=", "empty value", 19, 1);
	ERR(E_SWITCH, "keys=prev_tid:sort=prev_prio", "cannot sort by 'prev_prio': not hitcount, a key or a value", 19, 9);
	ERR(E_SWITCH, "keys=prev_tid:sort=prev_tid.down", "expected .descending or .ascending", 27, 5);
	ERR(E_SWITCH, "keys=prev_tid,next_tid:vals=prev_prio:sort=prev_tid,next_tid,hitcount", "too many sort columns: at most 2", 61, 8);
	ERR(E_SWITCH, "keys=prev_tid:sort=hitcount,hitcount.descending", "'hitcount' is already a sort column", 28, 8);
	ERR(E_SWITCH, "keys=prev_tid:sort=", "empty sort column", 19, 1);
	ERR(E_SWITCH, "keys=prev_tid:size=0", "expected a number of entries after size=", 19, 1);
	ERR(E_SWITCH, "keys=prev_tid:size=lots", "expected a number of entries", 19, 4);
	ERR(E_SWITCH, "keys=prev_tid:size=4097", "size=4097 needs 2^13 entries per CPU map; this guest's hist area holds at most 4096 (2^12)", 19, 4);
	ERR(E_SWITCH, "keys=prev_tid:name=Bad-Name", "a hist name is an identifier", 19, 8);
	ERR(E_SWITCH, "keys=prev_tid:name=", "a hist name is an identifier", 19, 1);
	ERR(E_SWITCH, "keys=prev_tid:name=a234567890123456789012345678901234", "name of 34 bytes; at most 31", 19, 34);
	ERR(E_SWITCH, "keys=prev_tid:keys=next_tid", "'keys' given twice", 14, 4);
	ERR(E_SWITCH, "keys=prev_tid:vals=prev_prio:values=next_prio", "'values' given twice", 29, 6);
	ERR(E_SWITCH, "keys=prev_tid:pause", "'pause' is not supported by a guest hist", 14, 5);
	ERR(E_SWITCH, "keys=prev_tid:onmatch(sched.sched_wakeup).trace(x)", "is not supported by a guest hist", 14, 36);
	ERR(E_SWITCH, "keys=prev_tid:clock=global", "'clock=global' is not supported", 14, 12);
	ERR(E_SWITCH, "keys=prev_tid:bogus", "unknown part 'bogus': expected keys=, vals=, sort=, size= or name=", 14, 5);
	ERR(E_SWITCH, "keys=prev_tid:lat=$ts0", "unknown part 'lat=$ts0'", 14, 8);
	expect_error(E_SWITCH, "keys=prev_tid", NULL, 2, "no room for a map", 0, 13);

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ERR(E_SWITCH, big, "hist request longer than 511 bytes", 0, 511);
}

static void test_parse_filter_errors(void)
{
	struct gr_fx_error err, ferr;
	char filter[1200];
	size_t off = 0;
	int i;

	/* a filter error keeps its own position, as a column in the message */
	memset(&err, 0, sizeof(err));
	CU_ASSERT_EQUAL(gr_hist_parse("keys=prev_tid", "prev_tid == 1 && zz == 2",
				      &evs[E_SWITCH], 12, &spec, &err), -EINVAL);
	CU_ASSERT_EQUAL(err.pos, 0);
	CU_ASSERT_EQUAL(err.len, 13);
	CU_ASSERT_EQUAL(strncmp(err.msg, "filter: no field 'zz'", 21), 0);
	CU_ASSERT_EQUAL(gr_fx_error_from_line(err.msg + 8, &ferr), 0);
	CU_ASSERT_EQUAL(ferr.pos, 17);
	CU_ASSERT_EQUAL(ferr.len, 2);

	/* a program that fits a filter slot (24) but not a request (16) */
	for (i = 0; i < 9; i++)
		off += snprintf(filter + off, sizeof(filter) - off, "%sprev_tid == %d",
				i ? " || " : "", i);
	expect_error(E_SWITCH, "keys=prev_tid", filter, 12,
		     "filter: needs 20 instructions and 0 text bytes; a hist request holds at most 16 and 112",
		     0, 13);
	for (i = 0; i < 14; i++)
		off += snprintf(filter + off, sizeof(filter) - off, " || prev_tid == %d", i);
	expect_error(E_SWITCH, "keys=prev_tid", filter, 12,
		     "a guest runs at most 24", 0, 13);
	/* and one just under the cap passes */
	CU_ASSERT_EQUAL(parse(E_SWITCH, "keys=prev_tid",
			      "prev_tid == 1 || prev_tid == 2 || prev_tid == 3 || prev_tid == 4 || prev_tid == 5 || prev_tid == 6 || prev_tid == 7"),
			0);
	CU_ASSERT_EQUAL(le16toh(spec.req.nr_insns), 16);
}

/* ---------------------------------------------------------------------- */
/* Latency presets                                                        */

static void test_latency_presets(void)
{
	char err[256];
	struct gr_hist_req *r = &spec.req;

	CU_ASSERT_EQUAL(gr_hist_latency("runq", evs, NR_EVENTS, 10, &spec,
					err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(r->kind, GR_HIST_PAIR);
	CU_ASSERT_EQUAL(le16toh(r->event_id), 1);
	CU_ASSERT_EQUAL(le16toh(r->end_event_id), 0);
	CU_ASSERT_EQUAL(r->nr_keys, 1);
	CU_ASSERT_EQUAL(r->nr_vals, 0);
	CU_ASSERT_EQUAL(r->entries_log2, 10);
	check_key(&r->key[0], GR_HS_DELTA, 0, 0, 0, GR_HT_LOG2, 0);
	check_key(&r->match[0], GR_HS_FIELD, 4, 16, GR_HK_SIGNED, 0, 0);
	check_key(&r->match[1], GR_HS_FIELD, 4, 48, GR_HK_SIGNED, 0, 0);
	CU_ASSERT_EQUAL(spec.key_display[0], GR_HD_NSECS);
	CU_ASSERT_STRING_EQUAL(spec.key_name[0], "delta");
	CU_ASSERT_STRING_EQUAL(spec.name, "runq");
	CU_ASSERT_STRING_EQUAL(spec.event, "sched_wakeup->sched_switch");
	CU_ASSERT_EQUAL(spec.nr_sort, 1);
	CU_ASSERT_EQUAL(spec.sort[0].col, GR_HIST_SORT_KEY(0));

	CU_ASSERT_EQUAL(gr_hist_latency("syscall", evs, NR_EVENTS, 20, &spec,
					err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(le16toh(r->event_id), 20);
	CU_ASSERT_EQUAL(le16toh(r->end_event_id), 21);
	CU_ASSERT_EQUAL(r->nr_keys, 2);
	CU_ASSERT_EQUAL(r->entries_log2, GR_HIST_MAX_ENTRIES_LOG2);
	check_key(&r->key[0], GR_HS_FIELD, 8, 0, GR_HK_SIGNED, 0, 0);
	check_key(&r->key[1], GR_HS_DELTA, 0, 0, 0, GR_HT_LOG2, 0);
	check_key(&r->match[0], GR_HS_TID, 0, 0, 0, 0, 0);
	check_key(&r->match[1], GR_HS_TID, 0, 0, 0, 0, 0);
	CU_ASSERT_STRING_EQUAL(spec.key_name[0], "id");
	CU_ASSERT_EQUAL(spec.key_display[1], GR_HD_NSECS);
	CU_ASSERT_STRING_EQUAL(spec.text, "keys=id,delta.log2");
	CU_ASSERT_EQUAL(spec.nr_sort, 2);

	CU_ASSERT_EQUAL(gr_hist_latency("block", evs, NR_EVENTS, 10, &spec,
					err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(le16toh(r->event_id), 22);
	CU_ASSERT_EQUAL(le16toh(r->end_event_id), 23);
	check_key(&r->key[0], GR_HS_FIELD, 4, 0, 0, 0, 0);
	check_key(&r->match[0], GR_HS_FIELD, 8, 8, 0, 0, 0);
	check_key(&r->match[1], GR_HS_FIELD, 8, 8, 0, 0, 0);
	CU_ASSERT_STRING_EQUAL(spec.key_name[0], "dev");

	CU_ASSERT_EQUAL(gr_hist_latency("irq", evs, NR_EVENTS, 10, &spec,
					err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(le16toh(r->event_id), 8);
	CU_ASSERT_EQUAL(le16toh(r->end_event_id), 9);
	check_key(&r->key[0], GR_HS_FIELD, 4, 0, GR_HK_SIGNED, 0, 0);
	check_key(&r->match[0], GR_HS_CPU, 0, 0, 0, 0, 0);
	check_key(&r->match[1], GR_HS_CPU, 0, 0, 0, 0, 0);
	CU_ASSERT_STRING_EQUAL(spec.event, "irq_handler_entry->irq_handler_exit");
}

static void test_latency_errors(void)
{
	struct gr_event_view mine[NR_EVENTS];
	char err[256];

	CU_ASSERT_EQUAL(gr_hist_latency("disk", evs, NR_EVENTS, 10, &spec,
					err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown latency 'disk'"));
	CU_ASSERT_EQUAL(gr_hist_latency("runq", evs, NR_EVENTS, 2, &spec,
					err, sizeof(err)), -EINVAL);
	/* a guest without block events */
	CU_ASSERT_EQUAL(gr_hist_latency("block", evs, E_RQ_ISSUE, 10, &spec,
					err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "this guest has no block_rq_issue"));
	/* a sched_switch without the woken task's field */
	memcpy(mine, evs, sizeof(mine));
	snprintf(mine[E_SWITCH].fields[5].name, GR_FIELD_NAME_LEN, "nxt");
	CU_ASSERT_EQUAL(gr_hist_latency("runq", mine, NR_EVENTS, 10, &spec,
					err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "next_pid of sched_switch"));
	/* a text field does not match */
	memcpy(mine, evs, sizeof(mine));
	mine[E_RQ_COMPLETE].fields[2].type = GR_FIELD_CHARS;
	CU_ASSERT_EQUAL(gr_hist_latency("block", mine, NR_EVENTS, 10, &spec,
					err, sizeof(err)), -ENOENT);
	/* the other key missing */
	memcpy(mine, evs, sizeof(mine));
	snprintf(mine[E_SYS_EXIT].fields[0].name, GR_FIELD_NAME_LEN, "nr");
	CU_ASSERT_EQUAL(gr_hist_latency("syscall", mine, NR_EVENTS, 10, &spec,
					err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "field id of sys_exit"));
}

static void test_max_entries(void)
{
	uint64_t slot;

	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(GR_HIST_MIN_SIZE, 0), -EINVAL);
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(4096, 1), -ENOSPC);
	/* 64 KiB: slot (65536 - 8192) / 8 = 7168 bytes */
	slot = gr_hist_slot_bytes(GR_HIST_MIN_SIZE);
	CU_ASSERT_EQUAL(slot, 7168);
	/* one CPU: 64 + 56 * 64 = 3648 fits, 64 + 56 * 128 = 7232 does not */
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(GR_HIST_MIN_SIZE, 1), 6);
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(GR_HIST_MIN_SIZE, 2), 5);
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(GR_HIST_MIN_SIZE, 14), 3);
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(GR_HIST_MIN_SIZE, 15), -ENOSPC);
	/* 1 GiB, one CPU: capped at 2^16 */
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(1ULL << 30, 1),
			GR_HIST_MAX_ENTRIES_LOG2);
	/* 65536 CPUs: 65536 * (64 + 56 * 32) fits 134 MB, * 64 does not */
	CU_ASSERT_EQUAL(gr_hist_max_entries_log2(1ULL << 30, GR_MAX_NR_CPUS),
			5);
}

static const struct gr_test tests[] = {
	GR_TEST(test_parse_keys),
	GR_TEST(test_parse_modifiers),
	GR_TEST(test_parse_vals),
	GR_TEST(test_parse_sort_size_name),
	GR_TEST(test_parse_filter),
	GR_TEST(test_parse_errors),
	GR_TEST(test_parse_filter_errors),
	GR_TEST(test_latency_presets),
	GR_TEST(test_latency_errors),
	GR_TEST(test_max_entries),
};

int main(void)
{
	events_init();
	return gr_test_main("hist", tests, ARRAY_SIZE(tests), NULL, NULL);
}
