// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctf_added.c - the metadata of events a guest adds at run time
 * (v1.7, GR_F_ANYEVENT, spec 18.3 M2)
 *
 * A trace whose table is four events (with a system call family) in a
 * layout of ten descriptor slots; two more descriptors are added, checked
 * (gr_check_added_descs()) and adopted. The metadata written after the
 * addition is the one written before it with the two event declarations
 * appended (what a live viewer fetches as new metadata); babeltrace2
 * reads a trace whose records use the added ids; .guestrelay reads back
 * with them; metadata names never change nor clash as events are added.
 *
 * Needs babeltrace2 and /usr/bin/python3 with bt2 (skipped without).
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_fixture.h"
#include "gr_build.h"

#define ADD_TABLE	4		/* switch, irq, kmalloc, sys_enter */
#define ADD_CAPACITY	10
#define ADD_FAMILY	10		/* sys_enter's members from here */
#define ADD_NR		3		/* read, write, open */

/* @t: the table of four, then tick (4) and blob (5) to be added */
static void added_trace(struct trace *t)
{
	struct gr_field_desc *f;

	trace_init(t, "guest1", 0x41, 1000000000ULL, "vm1", 0x21);
	make_hdr(&t->h, ADD_TABLE, 0x41, "guest1", 1000000000ULL);
	t->h.guest_features |= htole64(GR_F_ANYEVENT | GR_F_SYSCALLS);
	t->h.desc_capacity = htole32(ADD_CAPACITY);
	/* gaps (3) makes way for sys_enter; tick and blob stay at 4, 5 */
	memset(&t->d[EV_GAPS], 0, sizeof(t->d[EV_GAPS]));
	f = gr_build_event(&t->d[EV_GAPS], EV_GAPS, "sys_enter",
			   "raw_syscalls", 16, 0, 2);
	gr_build_field(&f[0], "id", 0, 8, INT, SG);
	gr_build_field(&f[1], "arg0", 8, 8, INT, HX);
	t->d[EV_GAPS].family_base = htole16(ADD_FAMILY);
	t->d[EV_GAPS].family_count = htole16(ADD_NR);
	t->nd = ADD_TABLE;
}

static char *metadata_text(struct trace *t, size_t *len)
{
	char *text = NULL;

	CU_ASSERT_EQUAL(gr_ctf_metadata(&t->v, t->ev, t->nd, &t->env,
					&t->clock, &text, len), 0);
	return text;
}

/* check and adopt descriptors ADD_TABLE .. @live - 1 as vm_desc.c does */
static int adopt(struct trace *t, unsigned int live)
{
	struct gr_event_view out[ADD_CAPACITY];
	struct gr_event_desc_long slots[ADD_CAPACITY];
	const char *why = NULL;
	unsigned int i;
	int ret;

	memset(slots, 0, sizeof(slots));
	for (i = t->v.desc_count; i < live && i < ADD_CAPACITY; i++)
		slots[i - t->v.desc_count].desc = t->d[i];
	ret = gr_check_added_descs(&t->v, t->ev, slots, live, out, &why);
	if (ret)
		return ret;
	memcpy(&t->ev[t->v.desc_count], out,
	       (live - t->v.desc_count) * sizeof(out[0]));
	ret = gr_ctf_names_check(t->ev, t->v.desc_table, live);
	if (ret)
		return ret;
	t->v.desc_count = live;
	t->nd = live;
	return 0;
}

/* the trace's metadata and .guestrelay, from its views and copies */
static int write_files(struct trace *t)
{
	size_t len;
	char *text = metadata_text(t, &len);
	int ret;

	if (!text)
		return -EINVAL;
	ret = gr_ctf_write_metadata(t->dirfd, text, len, NULL);
	free(text);
	return ret ?: gr_ctf_write_info(t->dirfd, &t->h, T_REGION, t->d,
					sizeof(t->d[0]), t->nd,
					&t->clock, t->env.trace_uuid, NULL);
}

static unsigned int count(const char *text, const char *what)
{
	unsigned int n = 0;

	for (; (text = strstr(text, what)); text++)
		n++;
	return n;
}

static void test_added_events_are_appended_declarations(void)
{
	struct trace t;
	char *before, *after;
	const char *tail;
	size_t blen, alen;

	added_trace(&t);
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "appended"), 0);
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&t.v, t.ev, t.nd, NULL), 0);
	before = metadata_text(&t, &blen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(before);
	/* the family's members declared with the table */
	CU_ASSERT_PTR_NOT_NULL(strstr(before, "syscall_entry_write"));
	CU_ASSERT_EQUAL_FATAL(adopt(&t, ADD_TABLE + 2), 0);
	after = metadata_text(&t, &alen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(after);
	/* the text grew by the new declarations only, at its end */
	CU_ASSERT_FATAL(alen > blen);
	CU_ASSERT(!memcmp(before, after, blen));
	tail = after + blen;
	CU_ASSERT_EQUAL(count(tail, "event {"), 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(tail, "name = \"tick\";\n\tid = 4;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(tail, "name = \"blob\";\n\tid = 5;"));
	CU_ASSERT_PTR_NULL(strstr(tail, "syscall_entry_"));
	free(before);
	free(after);
	trace_close(&t);
}

/* babeltrace2 reads records of the added ids; .guestrelay keeps them */
static void test_babeltrace_reads_records_of_added_events(void)
{
	char *argv[] = { "babeltrace2", NULL, NULL };
	uint8_t sys[16] = { 1 }, blob[12];
	struct gr_ctf_info *info;
	struct trace t;
	struct pkt p;
	struct run r;
	const char *why = NULL;

	added_trace(&t);
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "records"), 0);
	CU_ASSERT_EQUAL_FATAL(gr_check_families(&t.v, t.ev, t.nd, NULL), 0);
	memset(blob, 0x5a, sizeof(blob));
	pkt_start(&p, 0, 0, 900, 0);
	pkt_add(&p, ADD_FAMILY + 1, 3, 1000, sys, sizeof(sys));
	pkt_add(&p, EV_TICK, 3, 2000, NULL, 0);
	pkt_add(&p, EV_BLOB, 3, 3000, blob, sizeof(blob));
	pkt_finish(&p, 3500);
	/* records of ids not adopted yet are refused as unknown (H24) */
	CU_ASSERT_EQUAL(gr_check_records(&t.v, t.ev, t.v.desc_count, p.b,
					 p.len, &why), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(adopt(&t, ADD_TABLE + 2), 0);
	CU_ASSERT_EQUAL(gr_check_records(&t.v, t.ev, t.v.desc_count, p.b,
					 p.len, &why), 0);
	/* written again, as the agent does once it adopted them */
	CU_ASSERT_EQUAL_FATAL(write_files(&t), 0);
	CU_ASSERT_EQUAL_FATAL(stream_append(&t, 0, p.b, sizeof(p.b)), 0);
	argv[1] = t.dir;
	CU_ASSERT_EQUAL_FATAL(run(argv, &r), 0);
	CU_ASSERT(exited_ok(&r));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "syscall_entry_write:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "guest1 tick:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "guest1 blob:"));
	if (!exited_ok(&r))
		fprintf(stderr, "\n%s\n", r.err);
	run_free(&r);

	info = calloc(1, sizeof(*info));
	CU_ASSERT_PTR_NOT_NULL_FATAL(info);
	CU_ASSERT_EQUAL(gr_ctf_read_info(t.dirfd, info, &why), 0);
	CU_ASSERT_EQUAL(info->stored_desc_count, ADD_TABLE + 2);
	CU_ASSERT_EQUAL(info->nr_events, ADD_TABLE + 2);
	CU_ASSERT_EQUAL(info->view.desc_count, ADD_TABLE + 2);
	CU_ASSERT_EQUAL(info->view.desc_table, ADD_TABLE);
	CU_ASSERT(info->valid[EV_BLOB]);
	CU_ASSERT_STRING_EQUAL(info->events[EV_BLOB].name, "blob");
	CU_ASSERT_EQUAL(info->view.nr_families, 1);
	free(info);
	trace_close(&t);
}

/*
 * kmem:kfree added after a table whose sched_switch is renamed @table
 * (unless NULL): its declaration holds @decl
 */
static void kfree_declared(const char *table, const char *decl)
{
	struct trace t;
	char *text;
	size_t len;

	added_trace(&t);
	if (table)
		snprintf(t.d[EV_SWITCH].name, sizeof(t.d[EV_SWITCH].name),
			 "%s", table);
	memcpy(t.d[EV_TICK].name, "kfree", 6);
	memcpy(t.d[EV_TICK].system, "kmem", 5);
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "kfree"), 0);
	CU_ASSERT_EQUAL_FATAL(adopt(&t, ADD_TABLE + 1), 0);
	text = metadata_text(&t, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, decl));
	free(text);
	trace_close(&t);
}

/* a declared name never changes, and an added one never repeats one */
static void test_added_metadata_names_stay_unique(void)
{
	struct trace t;

	added_trace(&t);
	/* the table's kmalloc is kmem_kmalloc: an added event of that name
	 * would have to rename it (or clash): refused
	 */
	memcpy(t.d[EV_TICK].name, "kmem_kmalloc", 13);
	CU_ASSERT_EQUAL_FATAL(trace_create(&t, "names"), 0);
	CU_ASSERT_EQUAL(adopt(&t, ADD_TABLE + 1), -EEXIST);
	trace_close(&t);

	/* an added kmem:kfree is named as lttng-modules names it, unless
	 * a table event carries that name: then it keeps its own
	 */
	kfree_declared(NULL, "name = \"kmem_kfree\";\n\tid = 4;");
	kfree_declared("kmem_kfree", "name = \"kfree\";\n\tid = 4;");
}

static const struct gr_test tests[] = {
	GR_TEST_NAMED("added events are appended declarations",
		      test_added_events_are_appended_declarations),
	GR_TEST_NAMED("babeltrace2 reads records of added events",
		      test_babeltrace_reads_records_of_added_events),
	GR_TEST_NAMED("added metadata names stay unique",
		      test_added_metadata_names_stay_unique),
};

static const struct gr_test_suite suites[] = {
	GR_SUITE("ctf: events added at run time", tests, NULL, NULL),
};

int main(void)
{
	return ctf_fixture_main("test_ctf_added", suites, ARRAY_SIZE(suites));
}
