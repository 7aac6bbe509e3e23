// SPDX-License-Identifier: GPL-2.0
/*
 * test_names.c - host-agent/agent/name_text.c: the texts of events by
 * name (spec 18.1): patterns, matches as ftrace's set_event, the checks
 * of an answer (M4) and the parsers of ADD and LIST answers, on good
 * and on hostile texts
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gr_test.h"
#include "name_text.h"

static void test_patterns(void)
{
	char text[GR_NAME_REQ_TEXT], big[2048];
	const char *why = NULL;
	int i, n;

	CU_ASSERT(gr_name_pattern_ok("sched:sched_switch", 18));
	CU_ASSERT(gr_name_pattern_ok("block:", 6));
	CU_ASSERT(gr_name_pattern_ok("irq_*", 5));
	CU_ASSERT(gr_name_pattern_ok("s[ab]?:e*", 9));
	CU_ASSERT(!gr_name_pattern_ok(":x", 2));
	CU_ASSERT(!gr_name_pattern_ok("a:b:c", 5));
	CU_ASSERT(!gr_name_pattern_ok("a b", 3));
	CU_ASSERT(!gr_name_pattern_ok("a\x01", 2));
	CU_ASSERT(!gr_name_pattern_ok("", 0));
	memset(big, 'a', 64);
	CU_ASSERT(gr_name_pattern_ok(big, 63));
	CU_ASSERT(!gr_name_pattern_ok(big, 64));

	n = gr_name_patterns("sys:ev*, other:thing,,block:", text,
			     sizeof(text), &why);
	CU_ASSERT_EQUAL_FATAL(n, 26);
	CU_ASSERT(!memcmp(text, "sys:ev*,other:thing,block:", 26));
	CU_ASSERT_EQUAL(gr_name_patterns(" , ", text, sizeof(text), &why),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_name_patterns("a::b", text, sizeof(text), &why),
			-EINVAL);
	/* 65 patterns */
	big[0] = '\0';
	for (i = 0; i < 65; i++)
		strcat(big, "ab,");
	CU_ASSERT_EQUAL(gr_name_patterns(big, text, sizeof(text), &why),
			-EINVAL);
	/* 992 bytes at most */
	big[0] = '\0';
	for (i = 0; i < 20; i++)
		strcat(big, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,");
	CU_ASSERT_EQUAL(gr_name_patterns(big, text, sizeof(text), &why),
			-E2BIG);
}

static void test_match_as_set_event(void)
{
	CU_ASSERT(gr_name_match("sched:sched_switch", "sched", "sched_switch"));
	CU_ASSERT(!gr_name_match("sched:sched_switch", "irq", "sched_switch"));
	CU_ASSERT(gr_name_match("block:", "block", "block_rq_issue"));
	CU_ASSERT(!gr_name_match("block:", "blockx", "block_rq_issue"));
	CU_ASSERT(gr_name_match("b*:*_issue", "block", "block_rq_issue"));
	CU_ASSERT(gr_name_match("block", "block", "block_rq_issue"));
	CU_ASSERT(gr_name_match("sched_switch", "sched", "sched_switch"));
	CU_ASSERT(gr_name_match("sched_*", "sched", "sched_wakeup"));
	CU_ASSERT(!gr_name_match("sched_*", "irq", "irq_handler_entry"));
	CU_ASSERT(gr_name_match("s[ab]s:e?", "sas", "ev"));
	CU_ASSERT(!gr_name_match("[:x", "a", "x"));
}

/* An answer strip as the guest writes it */
static void put_answer(struct gr_name_ans *a, uint64_t seq, uint32_t total,
		       uint32_t next, const char *text)
{
	memset(a, 0, sizeof(*a));
	a->total = htole32(total);
	a->next = htole32(next);
	a->len = htole32((uint32_t)strlen(text));
	memcpy(a->text, text, strlen(text));
	a->seq = htole64(seq);
}

static void test_answer_checks(void)
{
	struct gr_name_ans *a = calloc(1, sizeof(*a));
	struct gr_name_answer r;
	const char *why = NULL;

	CU_ASSERT_FATAL(a != NULL);
	put_answer(a, 7, 40, 10, "a:b y x@8+4u\n");
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(r.seq, 7);
	/* len 13 is not next - offset (10) */
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_LIST, 0, &why),
			-EPROTO);
	put_answer(a, 7, 40, 13, "a:b y x@8+4u\n");
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_LIST, 0, &why), 0);
	/* next past total, behind offset */
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_LIST, 20, &why),
			-EPROTO);
	put_answer(a, 7, 10, 13, "a:b y x@8+4u\n");
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_LIST, 0, &why),
			-EPROTO);
	/* no progress */
	put_answer(a, 7, 40, 0, "");
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_LIST, 0, &why),
			-EPROTO);
	/* a listing over 1 MiB */
	put_answer(a, 7, GR_NAME_LIST_MAX + 1, 13, "a:b y x@8+4u\n");
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_LIST, 0, &why),
			-EPROTO);
	/* len beyond the strip; a cut line */
	put_answer(a, 7, 0, 0, "A a:b 3\n");
	a->len = htole32(GR_NAME_ANS_TEXT + 1);
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_ADD, 0, &why),
			-EPROTO);
	put_answer(a, 7, 0, 0, "A a:b 3");
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_ADD, 0, &why),
			-EPROTO);
	/* a refusal passes whatever its text, an errno only */
	put_answer(a, 7, 0, 0, "garbage");
	a->result = htole32(EPERM);
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_ADD, 0, &why), 0);
	a->result = htole32(100000);
	gr_name_answer_read(a, &r);
	CU_ASSERT_EQUAL(gr_name_answer_check(&r, GR_NAME_OP_ADD, 0, &why),
			-EPROTO);
	free(a);
}

static void test_add_lines(void)
{
	const char *t = "A sys:ev_one 30\nK sched:sched_switch 0\n"
			"R sys:no_rec 95\nN nothing:here* 2\n";
	struct gr_name_line l[8];
	const char *why = NULL;
	unsigned int nr;

	CU_ASSERT_EQUAL_FATAL(gr_name_add_parse(t, strlen(t), l, 8, &nr, &why),
			      0);
	CU_ASSERT_EQUAL_FATAL(nr, 4);
	CU_ASSERT_EQUAL(l[0].kind, GR_NAME_ADDED);
	CU_ASSERT_STRING_EQUAL(l[0].system, "sys");
	CU_ASSERT_STRING_EQUAL(l[0].name, "ev_one");
	CU_ASSERT_EQUAL(l[0].num, 30);
	CU_ASSERT_EQUAL(l[1].kind, GR_NAME_KNOWN);
	CU_ASSERT_EQUAL(l[2].kind, GR_NAME_REFUSED);
	CU_ASSERT_EQUAL(l[2].num, 95);
	CU_ASSERT_EQUAL(l[3].kind, GR_NAME_NONE);
	CU_ASSERT_STRING_EQUAL(l[3].name, "nothing:here*");
	CU_ASSERT_EQUAL(l[3].num, ENOENT);
	/* more lines than room: counted, not kept */
	CU_ASSERT_EQUAL(gr_name_add_parse(t, strlen(t), l, 2, &nr, &why), 0);
	CU_ASSERT_EQUAL(nr, 4);
}

static void test_add_hostile_lines(void)
{
	static const char *const bad[] = {
		"X sys:ev 1\n", "A sys:ev\n", "A sysev 1\n", "A :ev 1\n",
		"A sys: 1\n", "A sys:ev 1024\n", "A sys:ev -1\n",
		"R sys:ev 0\n", "N pat 99999\n", "A sys:e\x7fv 1\n",
		"A sys:ev 1 \n", "A sys:ev  1\n", "A sys:a:b 1\n",
		"N a b 2\n", "A sys:ev 99999999999999999999\n",
		"A sys:ev 1\nK",
	};
	/* a NUL kind: strchr() finds the terminator (fuzz_names_host) */
	static const char nul[] = "\0 sys:ev 1\n";
	struct gr_name_line l[4];
	const char *why = NULL;
	unsigned int i, nr;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(gr_name_add_parse(bad[i], strlen(bad[i]), l, 4,
						  &nr, &why), -EPROTO);
	CU_ASSERT_EQUAL(gr_name_add_parse(nul, sizeof(nul) - 1, l, 4, &nr,
					  &why), -EPROTO);
}

static void test_list_lines(void)
{
	const char *t =
		"sys:ev_one y unsigned long call_site@8+8u;int delta@16+4s\n"
		"sys:ev_two p char comm[16]@8+16s;__data_loc char[] msg@24+4u\n"
		"other:thing n\n"
		"other:no_rec -95 u64 x@8+8u\n"
		"big:cut y int a@8+4s;...\n";
	struct gr_name_list l = { 0 };
	const char *why = NULL;

	CU_ASSERT_EQUAL_FATAL(gr_name_list_parse(t, strlen(t), &l, &why), 0);
	CU_ASSERT_EQUAL_FATAL(l.nr, 5);
	CU_ASSERT_STRING_EQUAL(l.ev[0].system, "sys");
	CU_ASSERT_STRING_EQUAL(l.ev[0].name, "ev_one");
	CU_ASSERT_EQUAL(l.ev[0].state, GR_NAME_AVAILABLE);
	CU_ASSERT_EQUAL_FATAL(l.ev[0].nr_fields, 2);
	CU_ASSERT_STRING_EQUAL(l.ev[0].fields[0].decl,
			       "unsigned long call_site");
	CU_ASSERT_STRING_EQUAL(l.ev[0].fields[0].name, "call_site");
	CU_ASSERT_EQUAL(l.ev[0].fields[0].offset, 8);
	CU_ASSERT_EQUAL(l.ev[0].fields[0].size, 8);
	CU_ASSERT(!l.ev[0].fields[0].is_signed);
	CU_ASSERT(l.ev[0].fields[1].is_signed);
	CU_ASSERT_EQUAL(l.ev[1].state, GR_NAME_PUBLISHED);
	CU_ASSERT_STRING_EQUAL(l.ev[1].fields[0].name, "comm");
	CU_ASSERT_STRING_EQUAL(l.ev[1].fields[1].name, "msg");
	CU_ASSERT_EQUAL(l.ev[2].state, GR_NAME_NATIVE);
	CU_ASSERT_EQUAL(l.ev[2].nr_fields, 0);
	CU_ASSERT_EQUAL(l.ev[3].state, GR_NAME_CANNOT);
	CU_ASSERT_EQUAL(l.ev[3].err, 95);
	CU_ASSERT(l.ev[4].cut);
	CU_ASSERT_EQUAL(l.ev[4].nr_fields, 1);
	/* a second page appends */
	CU_ASSERT_EQUAL(gr_name_list_parse("z:z y\n", 6, &l, &why), 0);
	CU_ASSERT_EQUAL(l.nr, 6);
	gr_name_list_free(&l);
	CU_ASSERT_EQUAL(l.nr, 0);
}

static void test_list_hostile_lines(void)
{
	static const char *const bad[] = {
		"sys:ev\n", "sys:ev q\n", "sys:ev -0\n", "sys:ev -x\n",
		"sysev y\n", "sys:ev y int a@8+4\n", "sys:ev y int a8+4u\n",
		"sys:ev y @8+4u\n", "sys:ev y int 9@8+4u\n",
		"sys:ev y int a@8+99999u\n", "sys:ev y int a@8+4u;\x01@1+1u\n",
		"sys:ev y int a[@8+4u\n", "sys:ev y ...;int a@8+4u\n",
		"sys:ev y\nno newline",
	};
	struct gr_name_list l = { 0 };
	const char *why = NULL;
	unsigned int i;

	CU_ASSERT_EQUAL(gr_name_list_parse("a:b y\n", 6, &l, &why), 0);
	/* a NUL state (fuzz_names_host) */
	CU_ASSERT_EQUAL(gr_name_list_parse("a:b \0\n", 6, &l, &why), -EPROTO);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CU_ASSERT_EQUAL(gr_name_list_parse(bad[i], strlen(bad[i]), &l,
						   &why), -EPROTO);
		/* the earlier pages stay, nothing of the bad one */
		CU_ASSERT_EQUAL(l.nr, 1);
	}
	gr_name_list_free(&l);
}

static void test_printable(void)
{
	char out[8];

	gr_name_printable(out, sizeof(out), "a\x1b[2Jb\n", 7);
	CU_ASSERT_STRING_EQUAL(out, "a?[2Jb?");
	gr_name_printable(out, 4, "abcdef", 6);
	CU_ASSERT_STRING_EQUAL(out, "abc");
}

/* Spec 18.4: D and E lines, the reason of a refused PROBE (Q2) */
static void test_probe_lines(void)
{
	const char *ok = "D guestrelay:myopen 33\nE error: bad at column 4\n";
	struct gr_name_line l[4];
	const char *why = "";
	char reason[GR_NAME_REASON_MAX], small[8], big[600];
	unsigned int nr;

	CU_ASSERT_EQUAL(gr_name_add_parse(ok, strlen(ok), l, 4, &nr, &why), 0);
	CU_ASSERT_EQUAL(nr, 2);
	CU_ASSERT_EQUAL(l[0].kind, GR_NAME_DELETED);
	CU_ASSERT_STRING_EQUAL(l[0].system, "guestrelay");
	CU_ASSERT_EQUAL(l[0].num, 33);
	CU_ASSERT_EQUAL(l[1].kind, GR_NAME_REASON);
	/* a D id past the table, an E line empty or not printable */
	CU_ASSERT_EQUAL(gr_name_add_parse("D g:n 4096\n", 11, l, 4, &nr, &why),
			-EPROTO);
	CU_ASSERT_EQUAL(gr_name_add_parse("E \n", 3, l, 4, &nr, &why), -EPROTO);
	CU_ASSERT_EQUAL(gr_name_add_parse("E a\tb\n", 6, l, 4, &nr, &why),
			-EPROTO);

	CU_ASSERT_EQUAL(gr_name_reason("", 0, reason, sizeof(reason), &why), 0);
	CU_ASSERT_STRING_EQUAL(reason, "");
	CU_ASSERT_EQUAL(gr_name_reason("E no such symbol\n", 17, reason,
				       sizeof(reason), &why), 0);
	CU_ASSERT_STRING_EQUAL(reason, "no such symbol");
	CU_ASSERT_EQUAL(gr_name_reason("E long reason\n", 14, small,
				       sizeof(small), &why), 0);
	CU_ASSERT_STRING_EQUAL(small, "long...");
	memset(big, 'x', sizeof(big));
	big[0] = 'E';
	big[1] = ' ';
	big[sizeof(big) - 1] = '\n';
	CU_ASSERT_EQUAL(gr_name_reason(big, sizeof(big), reason,
				       sizeof(reason), &why), 0);
	CU_ASSERT_EQUAL(strlen(reason), sizeof(reason) - 1);
	/* one line only, printable only, an E line only */
	CU_ASSERT_EQUAL(gr_name_reason("E a\nE b\n", 8, reason,
				       sizeof(reason), &why), -EPROTO);
	CU_ASSERT_EQUAL(gr_name_reason("E \x1b[2J\n", 7, reason,
				       sizeof(reason), &why), -EPROTO);
	CU_ASSERT_EQUAL(gr_name_reason("A g:n 1\n", 8, reason,
				       sizeof(reason), &why), -EPROTO);
	CU_ASSERT_EQUAL(gr_name_reason("E a", 3, reason, sizeof(reason),
				       &why), -EPROTO);
}

/* Spec 18.4 P2: the head of a definition, as the host checks it */
static void test_probe_def_name(void)
{
	char name[GR_NAME_PROBE_MAX];
	const char *why = "";

	CU_ASSERT_EQUAL(gr_probe_def_name("p:myopen do_sys_openat2 dfd=%di",
					  name, &why), 0);
	CU_ASSERT_STRING_EQUAL(name, "myopen");
	CU_ASSERT_EQUAL(gr_probe_def_name("r5:guestrelay/r_1 vfs_read", name,
					  &why), 0);
	CU_ASSERT_STRING_EQUAL(name, "r_1");
	CU_ASSERT_EQUAL(gr_probe_def_name("r:x vfs_read+0 $retval", name,
					  &why), 0);
	CU_ASSERT_EQUAL(gr_probe_def_name("p do_sys_openat2", name, &why),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("p:kprobes/x vfs_read", name, &why),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("f:x vfs_read", name, &why),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("p:9x vfs_read", name, &why),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("p:x", name, &why), -EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("p:x\tvfs_read", name, &why),
			-EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("p:abcdefghijabcdefghijabcdefghij12 a",
					  name, &why), -EINVAL);
	CU_ASSERT_EQUAL(gr_probe_def_name("p:abcdefghijabcdefghijabcdefghij1 a",
					  name, &why), 0);
	CU_ASSERT_EQUAL(gr_probe_name_len("abc def"), 3);
	CU_ASSERT_EQUAL(gr_probe_name_len("_9"), 2);
	CU_ASSERT_EQUAL(gr_probe_name_len("9a"), 0);
}

static const struct gr_test tests[] = {
	GR_TEST(test_patterns),
	GR_TEST(test_match_as_set_event),
	GR_TEST(test_answer_checks),
	GR_TEST(test_add_lines),
	GR_TEST(test_add_hostile_lines),
	GR_TEST(test_list_lines),
	GR_TEST(test_list_hostile_lines),
	GR_TEST(test_printable),
	GR_TEST(test_probe_lines),
	GR_TEST(test_probe_def_name),
};

int main(void)
{
	return gr_test_main("names", tests, ARRAY_SIZE(tests), NULL, NULL);
}
