// SPDX-License-Identifier: GPL-2.0
/*
 * test_hist.c - aggregation, host side: the ftrace hist parser and the
 * latency presets (host-agent/filter/hist.c) against event views laid out
 * as this guest publishes them, and the map reader (region/hist_map.c)
 * on maps built by hand in real memory
 *
 * Every accepted form is checked field by field in the wire request;
 * every refusal by its message and the position and length of the token
 * it points at. The reader is checked for the merge of CPUs, each way a
 * map or entry is left out, sums modulo 2^64, and on random areas that
 * end at a PROT_NONE page.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "hist.h"
#include "hist_map.h"
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
		{ "bytes", 20, 4, I, 0 }, { "rwbs", 24, 8, I, 0 },
		{ "comm", 32, 16, C, 0 } } },
	[E_RQ_COMPLETE] = { 23, "block", "block_rq_complete", {
		{ "dev", 0, 4, I, 0 }, { "error", 4, 4, I, S },
		{ "sector", 8, 8, I, 0 }, { "nr_sector", 16, 4, I, 0 },
		{ "bytes", 20, 4, I, 0 }, { "rwbs", 24, 8, I, 0 } } },
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
	/* a block event's integer rwbs is shown as ftrace's letters */
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "keys=dev,rwbs", NULL), 0);
	CU_ASSERT_EQUAL(spec.key_display[0], 0);
	CU_ASSERT_EQUAL(spec.key_display[1], GR_HD_RWBS);
	CU_ASSERT_EQUAL(parse(E_RQ_COMPLETE, "keys=rwbs.hex", NULL), 0);
	CU_ASSERT_EQUAL(spec.key_display[0], GR_HD_RWBS | GR_HD_HEX);
	/* a value is summed, never shown as letters */
	CU_ASSERT_EQUAL(parse(E_RQ_ISSUE, "keys=dev:vals=rwbs", NULL), 0);
	CU_ASSERT_EQUAL(spec.key_display[0], 0);
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
	struct gr_hist_req *r = &spec.req;
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

	/*
	 * v1.6: runq's second start, sched_wakeup_new (here in the place
	 * of block_rq_issue, id 22), with its tid where sched_wakeup's is
	 */
	CU_ASSERT_FALSE(gr_hist_latency_start2("runq", evs, NR_EVENTS,
					       &spec));
	memcpy(mine, evs, sizeof(mine));
	mine[E_RQ_ISSUE] = evs[E_WAKEUP];
	mine[E_RQ_ISSUE].id = 22;
	snprintf(mine[E_RQ_ISSUE].name, GR_NAME_LEN, "sched_wakeup_new");
	CU_ASSERT_EQUAL_FATAL(gr_hist_latency("runq", mine, NR_EVENTS, 10,
					      &spec, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(r->hflags, 0);
	CU_ASSERT_EQUAL(r->start2_event_id, 0);
	CU_ASSERT_TRUE(gr_hist_latency_start2("runq", mine, NR_EVENTS, &spec));
	CU_ASSERT_EQUAL(r->hflags, GR_HIST_F_START2);
	CU_ASSERT_EQUAL(le16toh(r->start2_event_id), 22);
	CU_ASSERT_EQUAL(le16toh(r->event_id), 1);
	CU_ASSERT_STRING_EQUAL(spec.event,
			       "sched_wakeup,sched_wakeup_new->sched_switch");
	/* its tid elsewhere: match[0] would read other bytes, no second start */
	mine[E_RQ_ISSUE].fields[1].offset = 20;
	CU_ASSERT_EQUAL_FATAL(gr_hist_latency("runq", mine, NR_EVENTS, 10,
					      &spec, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(gr_hist_latency_start2("runq", mine, NR_EVENTS,
					       &spec));
	CU_ASSERT_EQUAL(r->hflags, 0);
	/* presets without a second start */
	CU_ASSERT_EQUAL_FATAL(gr_hist_latency("syscall", evs, NR_EVENTS, 10,
					      &spec, err, sizeof(err)), 0);
	CU_ASSERT_FALSE(gr_hist_latency_start2("syscall", evs, NR_EVENTS,
					       &spec));
	CU_ASSERT_EQUAL(r->hflags, 0);
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

/* ---------------------------------------------------------------------- */
/* The map reader, on maps built in real memory                           */

#define T_SIZE		(256 * 1024)	/* hist area */
#define T_SLOT		2
#define T_LOG2		4		/* 16 entries per CPU map */
#define T_CPUS		3
#define T_GEN		5

static uint8_t *area;			/* T_SIZE bytes, then a PROT_NONE page */
static struct gr_hist_req treq;

static int maps_init(void)
{
	area = mmap(NULL, T_SIZE + 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -1;
	/* a read past the area faults */
	return mprotect(area + T_SIZE, 4096, PROT_NONE);
}

static int maps_fini(void)
{
	return munmap(area, T_SIZE + 4096);
}

static struct gr_hist_map_hdr *map_hdr(uint32_t cpu)
{
	return (void *)(area + gr_hist_map_off(T_SIZE, T_SLOT, cpu, T_LOG2));
}

/* A fresh area: every CPU's map stamped T_GEN; a request of 1 key, 1 value */
static void maps_reset(void)
{
	uint32_t cpu;

	memset(area, 0, T_SIZE);
	memset(&treq, 0, sizeof(treq));
	treq.gen = htole64(T_GEN);
	treq.nr_keys = 1;
	treq.nr_vals = 1;
	treq.entries_log2 = T_LOG2;
	treq.key[0].src = GR_HS_TID;
	treq.val[0].src = GR_HS_CPU;
	for (cpu = 0; cpu < T_CPUS; cpu++)
		map_hdr(cpu)->gen = htole64(T_GEN);
}

static struct gr_hist_entry *put(uint32_t cpu, uint32_t i, uint64_t key,
				 uint64_t hitcount, uint64_t val)
{
	struct gr_hist_map_hdr *h = map_hdr(cpu);
	struct gr_hist_entry *e = (struct gr_hist_entry *)(h + 1) + i;

	e->seq = htole32(2);
	e->used = htole32(1);
	e->key[0] = htole64(key);
	e->hitcount = htole64(hitcount);
	e->val[0] = htole64(val);
	h->hits = htole64(le64toh(h->hits) + hitcount);
	return e;
}

static const struct gr_hist_row *row_of(const struct gr_hist_table *t,
					uint64_t key)
{
	uint32_t i;

	for (i = 0; i < t->nr_rows; i++)
		if (t->rows[i].key[0] == key)
			return &t->rows[i];
	return NULL;
}

static void check_row(const struct gr_hist_table *t, uint64_t key,
		      uint64_t hitcount, uint64_t val)
{
	const struct gr_hist_row *r = row_of(t, key);

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->hitcount, hitcount);
	CU_ASSERT_EQUAL(r->val[0], val);
	CU_ASSERT_EQUAL(r->key[1], 0);
	CU_ASSERT_EQUAL(r->val[1], 0);
	CU_ASSERT_EQUAL(r->val[2], 0);
}

static int read_maps(const struct gr_hist_table *prev, struct gr_hist_table *t)
{
	return gr_hist_read(area, T_SIZE, T_CPUS, T_SLOT, &treq, prev, t);
}

static void test_read_merge(void)
{
	struct gr_hist_table t;
	struct gr_hist_entry *e;

	maps_reset();
	put(0, 3, 100, 3, 10);
	put(0, 9, 200, 1, 5);
	e = put(1, 0, 100, 4, 1);
	/* bytes past nr_keys and nr_vals are the guest's: ignored */
	e->key[1] = htole64(77);
	e->val[2] = htole64(99);
	put(1, 15, 300, 2, 0);
	put(2, 7, 200, 6, 7);
	map_hdr(0)->dropped = htole64(1);
	map_hdr(1)->nested = htole64(2);
	map_hdr(2)->unmatched = htole64(3);
	map_hdr(2)->dropped = htole64(4);
	/* another slot's maps are not read */
	memset(area + GR_HIST_MAPS_OFFSET + 3 * gr_hist_slot_bytes(T_SIZE),
	       0xff, gr_hist_slot_bytes(T_SIZE));

	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	CU_ASSERT_EQUAL(t.gen, T_GEN);
	CU_ASSERT_EQUAL(t.nr_rows, 3);
	CU_ASSERT(t.cap >= t.nr_rows);
	check_row(&t, 100, 7, 11);
	check_row(&t, 200, 7, 12);
	check_row(&t, 300, 2, 0);
	CU_ASSERT_EQUAL(t.hits, 16);
	CU_ASSERT_EQUAL(t.dropped, 5);
	CU_ASSERT_EQUAL(t.nested, 2);
	CU_ASSERT_EQUAL(t.unmatched, 3);
	CU_ASSERT_EQUAL(t.torn + t.bad_maps + t.stale_maps, 0);
	CU_ASSERT_EQUAL(t.nr_cpus, T_CPUS);
	CU_ASSERT_EQUAL(t.cpu_hits[0], 4);
	CU_ASSERT_EQUAL(t.cpu_hits[1], 6);
	CU_ASSERT_EQUAL(t.cpu_hits[2], 6);
	gr_hist_table_free(&t);
	CU_ASSERT_EQUAL(t.nr_rows, 0);
	CU_ASSERT_PTR_NULL(t.rows);
	gr_hist_table_free(&t);

	/* two keys: rows differ by either */
	maps_reset();
	treq.nr_keys = 2;
	e = put(0, 0, 1, 1, 0);
	e->key[1] = htole64(1);
	e = put(1, 0, 1, 1, 0);
	e->key[1] = htole64(2);
	e = put(2, 5, 1, 1, 0);
	e->key[1] = htole64(2);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	CU_ASSERT_EQUAL(t.nr_rows, 2);
	gr_hist_table_free(&t);
}

static void test_read_many_keys(void)
{
	struct gr_hist_req req;
	struct gr_hist_table t;
	struct gr_hist_map_hdr *h;
	struct gr_hist_entry *e;
	uint32_t cpu, i;
	uint64_t sum = 0;

	/* 2 CPUs of 256 entries, 128 keys in common: 384 rows */
	memset(area, 0, T_SIZE);
	memset(&req, 0, sizeof(req));
	req.gen = htole64(1);
	req.nr_keys = 1;
	req.entries_log2 = 8;
	for (cpu = 0; cpu < 2; cpu++) {
		h = (void *)(area + gr_hist_map_off(T_SIZE, 0, cpu, 8));
		h->gen = htole64(1);
		e = (struct gr_hist_entry *)(h + 1);
		for (i = 0; i < 256; i++) {
			e[i].used = htole32(1);
			e[i].key[0] = htole64(cpu * 128 + i);
			e[i].hitcount = htole64(i + 1);
		}
	}
	CU_ASSERT_EQUAL_FATAL(gr_hist_read(area, T_SIZE, 2, 0, &req, NULL, &t),
			      0);
	CU_ASSERT_EQUAL(t.nr_rows, 384);
	for (i = 0; i < t.nr_rows; i++)
		sum += t.rows[i].hitcount;
	CU_ASSERT_EQUAL(sum, 2 * 256 * 257 / 2);
	CU_ASSERT_EQUAL(row_of(&t, 200)->hitcount, 201 + 73);
	gr_hist_table_free(&t);
}

static void test_read_torn(void)
{
	struct gr_hist_table t;
	struct gr_hist_entry *e;

	maps_reset();
	put(0, 0, 100, 3, 0);
	e = put(0, 1, 200, 5, 0);
	e->seq = htole32(7);		/* the guest is writing it */
	put(1, 1, 200, 2, 0);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	CU_ASSERT_EQUAL(t.torn, 1);
	CU_ASSERT_EQUAL(t.bad_maps, 0);
	CU_ASSERT_EQUAL(t.nr_rows, 2);
	check_row(&t, 100, 3, 0);
	check_row(&t, 200, 2, 0);
	/* the map's header still counts: hits are the map's */
	CU_ASSERT_EQUAL(t.hits, 10);
	gr_hist_table_free(&t);
}

static void test_read_stale(void)
{
	struct gr_hist_table t;

	maps_reset();
	put(0, 0, 100, 3, 0);
	put(1, 0, 100, 4, 0);
	put(2, 0, 100, 5, 0);
	map_hdr(1)->gen = htole64(T_GEN - 1);	/* not zeroed for T_GEN yet */
	map_hdr(1)->dropped = htole64(9);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	CU_ASSERT_EQUAL(t.stale_maps, 1);
	CU_ASSERT_EQUAL(t.nr_rows, 1);
	check_row(&t, 100, 8, 0);
	CU_ASSERT_EQUAL(t.hits, 8);
	CU_ASSERT_EQUAL(t.dropped, 0);
	CU_ASSERT_EQUAL(t.cpu_hits[1], 0);
	gr_hist_table_free(&t);

	/* every map of another gen: nothing served */
	treq.gen = htole64(T_GEN + 1);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	CU_ASSERT_EQUAL(t.stale_maps, T_CPUS);
	CU_ASSERT_EQUAL(t.nr_rows + t.hits, 0);
	gr_hist_table_free(&t);
}

static void test_read_backwards(void)
{
	struct gr_hist_table first, t;

	maps_reset();
	put(0, 0, 100, 30, 0);
	put(1, 0, 100, 4, 0);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &first), 0);
	CU_ASSERT_EQUAL(first.cpu_hits[0], 30);

	/* CPU 0's map lost counts for the same gen: refused whole */
	maps_reset();
	put(0, 0, 100, 10, 0);
	put(0, 1, 400, 50, 0);
	map_hdr(0)->hits = htole64(29);
	put(1, 0, 100, 5, 0);
	CU_ASSERT_EQUAL_FATAL(read_maps(&first, &t), 0);
	CU_ASSERT_EQUAL(t.bad_maps, 1);
	CU_ASSERT_EQUAL(t.nr_rows, 1);
	check_row(&t, 100, 5, 0);
	CU_ASSERT_PTR_NULL(row_of(&t, 400));
	CU_ASSERT_EQUAL(t.hits, 5);
	/* the next read still compares with what was served */
	CU_ASSERT_EQUAL(t.cpu_hits[0], 30);
	gr_hist_table_free(&t);

	/* against a read of another gen, nothing is compared */
	first.gen = T_GEN - 1;
	CU_ASSERT_EQUAL_FATAL(read_maps(&first, &t), 0);
	CU_ASSERT_EQUAL(t.bad_maps, 0);
	CU_ASSERT_EQUAL(t.hits, 34);
	gr_hist_table_free(&t);
	gr_hist_table_free(&first);
}

static void test_read_bad_used(void)
{
	struct gr_hist_table t;
	struct gr_hist_entry *e;

	maps_reset();
	put(0, 0, 100, 3, 0);
	put(1, 0, 100, 4, 0);
	put(1, 1, 500, 1, 0);
	e = put(1, 2, 600, 1, 0);
	e->used = htole32(7);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	CU_ASSERT_EQUAL(t.bad_maps, 1);
	CU_ASSERT_EQUAL(t.nr_rows, 1);
	check_row(&t, 100, 3, 0);
	CU_ASSERT_EQUAL(t.hits, 3);
	gr_hist_table_free(&t);
}

static void test_read_huge(void)
{
	struct gr_hist_table t;

	maps_reset();
	put(0, 0, UINT64_MAX, UINT64_MAX, UINT64_MAX - 1);
	put(1, 0, UINT64_MAX, 3, 5);
	map_hdr(0)->dropped = htole64(UINT64_MAX);
	map_hdr(1)->dropped = htole64(2);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	/* sums modulo 2^64, as the guest keeps them */
	check_row(&t, UINT64_MAX, 2, 3);
	CU_ASSERT_EQUAL(t.dropped, 1);
	gr_hist_table_free(&t);
}

static void test_read_args(void)
{
	struct gr_hist_table t;
	struct gr_hist_req req;

	maps_reset();
	req = treq;
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, T_CPUS, GR_HIST_REQS, &req,
				     NULL, &t), -EINVAL);
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, 0, 0, &req, NULL, &t),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE - 100, 1, 0, &req, NULL, &t),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_hist_read(area, 4096, 1, 0, &req, NULL, &t),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_hist_read(NULL, T_SIZE, 1, 0, &req, NULL, &t),
			-EINVAL);
	/* 1000 CPUs of 16 entries do not fit a slot of this area */
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, 1000, 0, &req, NULL, &t),
			-EINVAL);
	req.entries_log2 = 2;
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, 1, 0, &req, NULL, &t),
			-EINVAL);
	req.entries_log2 = 17;
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, 1, 0, &req, NULL, &t),
			-EINVAL);
	req = treq;
	req.nr_keys = 0;
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, 1, 0, &req, NULL, &t),
			-EINVAL);
	req = treq;
	req.nr_vals = 4;
	CU_ASSERT_EQUAL(gr_hist_read(area, T_SIZE, 1, 0, &req, NULL, &t),
			-EINVAL);
	CU_ASSERT_PTR_NULL(t.rows);
	CU_ASSERT_PTR_NULL(t.cpu_hits);
}

/* Random bytes everywhere, the last slot's maps up to the area's end */
static void test_read_hostile(void)
{
	uint64_t seed = gr_test_seed("test_hist"), st = seed, *w;
	struct gr_hist_table t, prev;
	struct gr_hist_state state;
	struct gr_hist_req req;
	unsigned int round, cpus, slot, log2;
	uint64_t slot_bytes = gr_hist_slot_bytes(T_SIZE), rows = 0, bad = 0;
	size_t i;

	memset(&prev, 0, sizeof(prev));
	for (round = 0; round < 200; round++) {
		for (w = (uint64_t *)area, i = 0; i < T_SIZE / 8; i++)
			w[i] = gr_test_rand(&st);
		/* small used words and gens, so that some maps pass */
		memset(&req, 0, sizeof(req));
		req.gen = htole64(gr_test_rand(&st) & 1);
		req.nr_keys = 1 + (gr_test_rand(&st) & 1);
		req.nr_vals = gr_test_rand(&st) % 4;
		log2 = GR_HIST_MIN_ENTRIES_LOG2 + gr_test_rand(&st) % 6;
		req.entries_log2 = (uint8_t)log2;
		slot = GR_HIST_REQS - 1 - (gr_test_rand(&st) & 1);
		cpus = (unsigned int)(slot_bytes / gr_hist_map_bytes(log2));
		cpus = 1 + gr_test_rand(&st) % cpus;
		for (i = 0; i < cpus; i++) {
			struct gr_hist_map_hdr *h = (void *)(area +
				gr_hist_map_off(T_SIZE, slot, (uint32_t)i, log2));
			struct gr_hist_entry *e = (void *)(h + 1);
			uint32_t j;

			h->gen = req.gen;
			for (j = 0; j < (1u << log2); j++) {
				e[j].used &= htole32(round & 1 ? 1 : 3);
				e[j].seq &= htole32(~1u);
			}
		}
		CU_ASSERT_EQUAL_FATAL(gr_hist_read(area, T_SIZE, cpus, slot,
						   &req, &prev, &t), 0);
		CU_ASSERT(t.nr_rows <= cpus << log2);
		CU_ASSERT(t.bad_maps + t.stale_maps <= cpus);
		rows += t.nr_rows;
		bad += t.bad_maps;
		gr_hist_sort_rows(&t, NULL, NULL, 0);
		gr_hist_table_free(&prev);
		prev = t;
		gr_hist_read_state(area, slot, &state);
		CU_ASSERT(state.state <= GR_HIST_REFUSED);
		CU_ASSERT(state.reason <= GR_HIST_E_ATTACH);
	}
	gr_hist_table_free(&prev);
	/* both ways were taken: maps served and maps refused */
	CU_ASSERT(rows > 0);
	CU_ASSERT(bad > 0);
}

/*
 * A guest CPU updating one entry by the protocol of spec 17.4 (seq odd,
 * barrier, fields, barrier, seq even) on a real thread while the host
 * reads: every row served holds val == 3 * hitcount, and hits never go
 * backwards.
 */
#define W_ROUNDS	20000

static int writer_done;

static void *writer(void *arg)
{
	struct gr_hist_map_hdr *h = arg;
	struct gr_hist_entry *e = (struct gr_hist_entry *)(h + 1) + 5;
	uint32_t seq = 0;
	uint64_t n;

	for (n = 1; n <= W_ROUNDS; n++) {
		__atomic_store_n(&h->hits, htole64(n), __ATOMIC_RELAXED);
		__atomic_store_n(&e->seq, htole32(++seq), __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&e->used, htole32(1), __ATOMIC_RELAXED);
		__atomic_store_n(&e->key[0], htole64(42), __ATOMIC_RELAXED);
		__atomic_store_n(&e->hitcount, htole64(n), __ATOMIC_RELAXED);
		__atomic_store_n(&e->val[0], htole64(3 * n), __ATOMIC_RELAXED);
		__atomic_store_n(&e->seq, htole32(++seq), __ATOMIC_RELEASE);
		if (!(n % 4))
			sched_yield();	/* let the reader find it still */
	}
	__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_read_concurrent_writer(void)
{
	uint64_t reads = 0, served = 0, wrong = 0, last = 0;
	struct gr_hist_table t, prev;
	const struct gr_hist_row *r;
	pthread_t th;

	maps_reset();
	writer_done = 0;
	memset(&prev, 0, sizeof(prev));
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, writer, map_hdr(0)), 0);
	while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE) &&
	       reads < 50000) {
		if (read_maps(&prev, &t))
			break;
		reads++;
		r = t.nr_rows ? &t.rows[0] : NULL;
		if (t.bad_maps || t.nr_rows > 1 ||
		    (r && (r->key[0] != 42 || r->val[0] != 3 * r->hitcount ||
			   r->hitcount < last)))
			wrong++;
		if (r) {
			last = r->hitcount;
			served++;
		}
		gr_hist_table_free(&prev);
		prev = t;
	}
	pthread_join(th, NULL);
	gr_hist_table_free(&prev);
	CU_ASSERT_EQUAL(wrong, 0);
	CU_ASSERT(reads > 0);
	CU_ASSERT_EQUAL_FATAL(read_maps(NULL, &t), 0);
	check_row(&t, 42, W_ROUNDS, 3ULL * W_ROUNDS);
	CU_ASSERT_EQUAL(t.torn, 0);
	gr_hist_table_free(&t);
	printf("(%" PRIu64 " reads, %" PRIu64 " served) ", reads, served);
}

static void test_read_state(void)
{
	struct gr_hist_state *s = (void *)(area + GR_HIST_STATE_OFFSET), st;

	memset(area, 0, T_SIZE);
	s[3].gen = htole64(12);
	s[3].state = htole32(GR_HIST_RUNNING);
	s[4].gen = htole64(13);
	s[4].state = htole32(GR_HIST_REFUSED);
	s[4].reason = GR_HIST_E_FILTER;
	s[4].filter_reason = GR_FILTER_E_JUMP;
	s[4].bad = htole16(5);
	s[5].state = htole32(9);
	s[5].reason = GR_HIST_E_KEY;
	s[6].state = htole32(GR_HIST_REFUSED);
	s[6].reason = 200;
	s[7].state = htole32(GR_HIST_REFUSED);
	s[7].reason = GR_HIST_E_KEY;
	s[7].filter_reason = GR_FILTER_E_JUMP;
	memset(s[7].reserved, 0xee, sizeof(s[7].reserved));

	gr_hist_read_state(area, 3, &st);
	CU_ASSERT_EQUAL(st.gen, 12);
	CU_ASSERT_EQUAL(st.state, GR_HIST_RUNNING);
	CU_ASSERT_EQUAL(st.reason, GR_HIST_E_NONE);
	gr_hist_read_state(area, 4, &st);
	CU_ASSERT_EQUAL(st.state, GR_HIST_REFUSED);
	CU_ASSERT_EQUAL(st.reason, GR_HIST_E_FILTER);
	CU_ASSERT_EQUAL(st.filter_reason, GR_FILTER_E_JUMP);
	CU_ASSERT_EQUAL(st.bad, 5);
	gr_hist_read_state(area, 5, &st);
	CU_ASSERT_EQUAL(st.state, GR_HIST_REFUSED);
	CU_ASSERT_EQUAL(st.reason, GR_HIST_E_NONE);
	gr_hist_read_state(area, 6, &st);
	CU_ASSERT_EQUAL(st.state, GR_HIST_REFUSED);
	CU_ASSERT_EQUAL(st.reason, GR_HIST_E_NONE);
	gr_hist_read_state(area, 7, &st);
	CU_ASSERT_EQUAL(st.reason, GR_HIST_E_KEY);
	CU_ASSERT_EQUAL(st.filter_reason, GR_FILTER_E_NONE);
	CU_ASSERT(all_zero(st.reserved, sizeof(st.reserved)));
	gr_hist_read_state(area, GR_HIST_REQS, &st);
	CU_ASSERT(all_zero(&st, sizeof(st)));
}

static void test_sort_rows(void)
{
	struct gr_hist_row rows[4] = {
		{ { 5, 0 }, 10, { 1, 0, 0 } },
		{ { (uint64_t)-3, 0 }, 2, { 9, 0, 0 } },
		{ { 1, 0 }, 10, { 4, 0, 0 } },
		{ { 7, 0 }, 1, { 9, 0, 0 } },
	};
	struct gr_hist_table t = { .rows = rows, .nr_rows = 4, .cap = 4 };
	int cols[2];
	bool desc[2];

	/* default: hitcount ascending, ties by key (unsigned) */
	gr_hist_sort_rows(&t, NULL, NULL, 0);
	CU_ASSERT_EQUAL(rows[0].key[0], 7);
	CU_ASSERT_EQUAL(rows[1].key[0], (uint64_t)-3);
	CU_ASSERT_EQUAL(rows[2].key[0], 1);
	CU_ASSERT_EQUAL(rows[3].key[0], 5);
	/* a signed key, ascending: -3 first */
	t.key_signed[0] = true;
	cols[0] = GR_HIST_SORT_KEY(0);
	desc[0] = false;
	gr_hist_sort_rows(&t, cols, desc, 1);
	CU_ASSERT_EQUAL(rows[0].key[0], (uint64_t)-3);
	CU_ASSERT_EQUAL(rows[3].key[0], 7);
	/* key descending */
	desc[0] = true;
	gr_hist_sort_rows(&t, cols, desc, 1);
	CU_ASSERT_EQUAL(rows[0].key[0], 7);
	CU_ASSERT_EQUAL(rows[3].key[0], (uint64_t)-3);
	/* value descending, then hitcount descending */
	cols[0] = GR_HIST_SORT_VAL(0);
	cols[1] = GR_HIST_SORT_HITCOUNT;
	desc[1] = true;
	gr_hist_sort_rows(&t, cols, desc, 2);
	CU_ASSERT_EQUAL(rows[0].key[0], (uint64_t)-3);
	CU_ASSERT_EQUAL(rows[1].key[0], 7);
	CU_ASSERT_EQUAL(rows[2].key[0], 1);
	CU_ASSERT_EQUAL(rows[3].key[0], 5);
	/* hitcount descending, ties by key ascending */
	cols[0] = GR_HIST_SORT_HITCOUNT;
	gr_hist_sort_rows(&t, cols, desc, 1);
	CU_ASSERT_EQUAL(rows[0].key[0], 1);
	CU_ASSERT_EQUAL(rows[1].key[0], 5);
	CU_ASSERT_EQUAL(rows[2].key[0], (uint64_t)-3);
	CU_ASSERT_EQUAL(rows[3].key[0], 7);
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

static const struct gr_test map_tests[] = {
	GR_TEST(test_read_merge),
	GR_TEST(test_read_many_keys),
	GR_TEST(test_read_torn),
	GR_TEST(test_read_stale),
	GR_TEST(test_read_backwards),
	GR_TEST(test_read_bad_used),
	GR_TEST(test_read_huge),
	GR_TEST(test_read_args),
	GR_TEST(test_read_hostile),
	GR_TEST(test_read_concurrent_writer),
	GR_TEST(test_read_state),
	GR_TEST(test_sort_rows),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("hist_parse", tests, NULL, NULL),
	GR_SUITE("hist_map", map_tests, maps_init, maps_fini),
};

int main(void)
{
	events_init();
	return gr_test_run(suites, ARRAY_SIZE(suites));
}
