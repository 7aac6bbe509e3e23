// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the text of requests for events by name (spec 18.1,
 * guest-module/gr_name_text.c), built in userspace through
 * tests/shim/gr_user_env.h: patterns and their checks, the match of
 * each kind of pattern (globs included), available_events lines, LIST
 * lines from a real 6.1 format file, their cut at whole fields, LIST
 * pages at whole lines, and whole ADD answer lines.
 */
#include "gr_test.h"

#include "gr_name_text.h"

#define TXT(s)	s, (u32)strlen(s)

static struct gr_name_pat pats[GR_NAME_PATS_MAX];

static void test_parse_kinds(void)
{
	unsigned int nr;

	CU_ASSERT_EQUAL_FATAL(gr_name_parse(TXT("sched:sched_switch,kmem:,timer,irq:*entry"),
					    pats, GR_NAME_PATS_MAX, &nr), 0);
	CU_ASSERT_EQUAL_FATAL(nr, 4);
	CU_ASSERT_STRING_EQUAL(pats[0].sys, "sched");
	CU_ASSERT_STRING_EQUAL(pats[0].name, "sched_switch");
	CU_ASSERT_FALSE(pats[0].bare);
	CU_ASSERT_STRING_EQUAL(pats[1].sys, "kmem");
	CU_ASSERT_STRING_EQUAL(pats[1].name, "");
	CU_ASSERT_STRING_EQUAL(pats[2].sys, "");
	CU_ASSERT_STRING_EQUAL(pats[2].name, "timer");
	CU_ASSERT_TRUE(pats[2].bare);
	CU_ASSERT_STRING_EQUAL(pats[3].name, "*entry");
	/* LIST: the empty text is every event */
	CU_ASSERT_EQUAL(gr_name_parse("", 0, pats, 1, &nr), 0);
	CU_ASSERT_EQUAL(nr, 0);
}

static void test_parse_refuses(void)
{
	static const char * const bad[] = {
		",", "a,", ",a", "a,,b", ":x", "a:b:c", "a b", "a\tb",
		"sched:\x7f", "caf\xc3\xa9",
		/* 64 bytes */
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	unsigned int i, nr;
	char many[4 * 65];

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(gr_name_parse(TXT(bad[i]), pats,
					      GR_NAME_PATS_MAX, &nr), -EINVAL);
	/* 63 bytes pass */
	CU_ASSERT_EQUAL(gr_name_parse(TXT("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
				      pats, GR_NAME_PATS_MAX, &nr), 0);
	/* 64 patterns pass, 65 do not */
	for (i = 0; i < 65; i++)
		memcpy(many + 4 * i, "a:b,", 4);
	CU_ASSERT_EQUAL(gr_name_parse(many, 4 * 64 - 1, pats,
				      GR_NAME_PATS_MAX, &nr), 0);
	CU_ASSERT_EQUAL(nr, 64);
	CU_ASSERT_EQUAL(gr_name_parse(many, 4 * 65 - 1, pats,
				      GR_NAME_PATS_MAX, &nr), -EINVAL);
	/* bytes after len are not the request's */
	CU_ASSERT_EQUAL(gr_name_parse("a:b, junk", 3, pats, 1, &nr), 0);
}

static bool match(const char *pat, const char *sys, const char *name)
{
	unsigned int nr;

	CU_ASSERT_EQUAL_FATAL(gr_name_parse(TXT(pat), pats, 1, &nr), 0);
	return gr_name_match(&pats[0], sys, name);
}

static void test_match(void)
{
	CU_ASSERT_TRUE(match("sched:sched_switch", "sched", "sched_switch"));
	CU_ASSERT_FALSE(match("sched:sched_switch", "sched", "sched_wakeup"));
	CU_ASSERT_TRUE(match("kmem:", "kmem", "kmalloc"));
	CU_ASSERT_FALSE(match("kmem:", "kmemx", "kmalloc"));
	/* a bare word: the event in any system, or the system */
	CU_ASSERT_TRUE(match("kmalloc", "kmem", "kmalloc"));
	CU_ASSERT_TRUE(match("timer", "timer", "timer_start"));
	CU_ASSERT_FALSE(match("timer", "sched", "sched_switch"));
	/* globs in either part */
	CU_ASSERT_TRUE(match("sched:sched_wak*", "sched", "sched_wakeup_new"));
	CU_ASSERT_TRUE(match("*:*_entry", "irq", "softirq_entry"));
	CU_ASSERT_TRUE(match("irq:softirq_?xit", "irq", "softirq_exit"));
	CU_ASSERT_TRUE(match("block:block_rq_[ci]*", "block", "block_rq_issue"));
	CU_ASSERT_FALSE(match("block:block_rq_[ci]*", "block", "block_rq_merge"));
	CU_ASSERT_TRUE(match("t*", "timer", "x"));
	CU_ASSERT_FALSE(match("t?", "timer", "x"));
}

static void test_available_events(void)
{
	static const char text[] = "sched:sched_switch\nbad line\n:x\n"
				   "kmem:kmalloc\nirq:irq_handler_entry";
	const char *cur = text, *end = text + sizeof(text) - 1;
	char sys[GR_NAME_WORD_MAX], name[GR_NAME_WORD_MAX];

	CU_ASSERT_TRUE_FATAL(gr_name_next_event(&cur, end, sys, name));
	CU_ASSERT_STRING_EQUAL(sys, "sched");
	CU_ASSERT_STRING_EQUAL(name, "sched_switch");
	CU_ASSERT_TRUE_FATAL(gr_name_next_event(&cur, end, sys, name));
	CU_ASSERT_STRING_EQUAL(name, "kmalloc");
	/* the last line needs no newline */
	CU_ASSERT_TRUE_FATAL(gr_name_next_event(&cur, end, sys, name));
	CU_ASSERT_STRING_EQUAL(sys, "irq");
	CU_ASSERT_STRING_EQUAL(name, "irq_handler_entry");
	CU_ASSERT_FALSE(gr_name_next_event(&cur, end, sys, name));
}

/* events/kmem/kmalloc/format of Linux 6.1 */
static const char kmalloc_fmt[] =
	"name: kmalloc\n"
	"ID: 472\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"call_site=%pS ptr=%p\", (void *)REC->call_site, REC->ptr\n";

static const char kmalloc_line[] =
	"kmem:kmalloc y unsigned long call_site@8+8u;const void * ptr@16+8u;"
	"size_t bytes_req@24+8u;size_t bytes_alloc@32+8u;"
	"unsigned long gfp_flags@40+8u;int node@48+4s\n";

static void test_list_line(void)
{
	static const char nofields[] =
		"name: x\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\n\nprint fmt: \"\"\n";
	char out[GR_NAME_ANS_TEXT + 16];
	u32 n;

	n = gr_name_list_line(out, sizeof(out), "kmem", "kmalloc", "y",
			      TXT(kmalloc_fmt));
	CU_ASSERT_EQUAL_FATAL(n, strlen(kmalloc_line));
	CU_ASSERT_NSTRING_EQUAL(out, kmalloc_line, n);
	/* no own fields: the line ends after the state */
	n = gr_name_list_line(out, sizeof(out), "ftrace", "x", "-95",
			      TXT(nofields));
	CU_ASSERT_EQUAL(n, 13);
	CU_ASSERT_NSTRING_EQUAL(out, "ftrace:x -95\n", n);
	/* no format file */
	n = gr_name_list_line(out, sizeof(out), "a", "b", "p", NULL, 0);
	CU_ASSERT_NSTRING_EQUAL(out, "a:b p\n", n);
}

static void test_list_line_cut(void)
{
	const char *cut = "kmem:kmalloc y unsigned long call_site@8+8u;"
			  "const void * ptr@16+8u;...\n";
	u32 full = strlen(kmalloc_line), n;
	char out[GR_NAME_ANS_TEXT];

	/* room for exactly the whole line */
	CU_ASSERT_EQUAL(gr_name_list_line(out, full, "kmem", "kmalloc", "y",
					  TXT(kmalloc_fmt)), full);
	/* a byte less: cut at the last whole field that fits, then ";..." */
	n = gr_name_list_line(out, full - 1, "kmem", "kmalloc", "y",
			      TXT(kmalloc_fmt));
	CU_ASSERT(n <= full - 1);
	CU_ASSERT_EQUAL(out[n - 1], '\n');
	CU_ASSERT_NSTRING_EQUAL(out + n - 5, ";...\n", 5);
	n = gr_name_list_line(out, strlen(cut) + 3, "kmem", "kmalloc", "y",
			      TXT(kmalloc_fmt));
	CU_ASSERT_EQUAL(n, strlen(cut));
	CU_ASSERT_NSTRING_EQUAL(out, cut, n);
	/* not even the name */
	CU_ASSERT_EQUAL(gr_name_list_line(out, 8, "kmem", "kmalloc", "y",
					  NULL, 0), 0);
}

static void test_page(void)
{
	static const char list[] = "a:b y\nc:d n\neeeeeeeeee:f p\n";
	u32 total = sizeof(list) - 1, len, next;

	CU_ASSERT_EQUAL(gr_name_page(list, total, 0, 13, &len, &next), 0);
	CU_ASSERT_EQUAL(len, 12);
	CU_ASSERT_EQUAL(next, 12);
	CU_ASSERT_EQUAL(gr_name_page(list, total, next, 1984, &len, &next), 0);
	CU_ASSERT_EQUAL(len, 15);
	CU_ASSERT_EQUAL(next, total);
	/* at the end: an empty page */
	CU_ASSERT_EQUAL(gr_name_page(list, total, total, 1984, &len, &next), 0);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(next, total);
	CU_ASSERT_EQUAL(gr_name_page(list, total, 3, 1984, &len, &next),
			-ERANGE);
	CU_ASSERT_EQUAL(gr_name_page(list, total, total + 1, 1984, &len,
				     &next), -ERANGE);
	CU_ASSERT_EQUAL(gr_name_page(NULL, 0, 0, 1984, &len, &next), 0);
	CU_ASSERT_EQUAL(len, 0);
}

static void test_append(void)
{
	char text[16];
	u32 len = 0;

	CU_ASSERT_TRUE(gr_name_append(text, &len, sizeof(text), "A x:y 28\n", 9));
	CU_ASSERT_FALSE(gr_name_append(text, &len, sizeof(text), "K x:z 29\n", 9));
	CU_ASSERT_EQUAL(len, 9);
	CU_ASSERT_TRUE(gr_name_append(text, &len, sizeof(text), "N q 2\n", 6));
	CU_ASSERT_EQUAL(len, 15);
	CU_ASSERT_NSTRING_EQUAL(text, "A x:y 28\nN q 2\n", 15);
}

static const struct gr_test tests[] = {
	GR_TEST(test_parse_kinds),
	GR_TEST(test_parse_refuses),
	GR_TEST(test_match),
	GR_TEST(test_available_events),
	GR_TEST(test_list_line),
	GR_TEST(test_list_line_cut),
	GR_TEST(test_page),
	GR_TEST(test_append),
};

int main(void)
{
	return gr_test_main("name_text", tests, GR_ARRAY_SIZE(tests), NULL,
			    NULL);
}
