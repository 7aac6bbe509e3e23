// SPDX-License-Identifier: GPL-2.0
/*
 * test_timeline.c - `guestrelay timeline`: slices, decimation, colours,
 * escaping, and pictures of synthetic traces (tl_synth.c) checked against
 * the workload that made them
 *
 * The SVG is parsed with libxml2 (well-formed, no stray markup), and the
 * slice rectangles' data-d (ns of tasks in each) summed per lane.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>

#include "gr_test.h"
#include "timeline.h"
#include "tl_synth.h"

static char tmp[256];

/* --- helpers ------------------------------------------------------------- */

struct pic {
	char *buf;
	size_t len;
	FILE *f;
	struct gr_tl_stats st;
	struct gr_tl_canvas cv;
};

static void pic_open(struct pic *p, int64_t t0, int64_t t1, double width)
{
	memset(p, 0, sizeof(*p));
	p->f = open_memstream(&p->buf, &p->len);
	p->cv.out = p->f;
	p->cv.t0 = t0;
	p->cv.t1 = t1;
	p->cv.left = 100;
	p->cv.scale = width / (double)(t1 - t0);
	p->cv.st = &p->st;
}

static void pic_close(struct pic *p)
{
	fflush(p->f);
}

static void pic_free(struct pic *p)
{
	if (p->f)
		fclose(p->f);
	free(p->buf);
	p->f = NULL;
	p->buf = NULL;
}

static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	while (s && (s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* sum of data-d of the slice rectangles per lane; returns rectangles */
static unsigned int busy_per_lane(const char *s, int64_t *busy,
				  unsigned int lanes)
{
	unsigned int n = 0, l;
	long long d;
	const char *p;

	memset(busy, 0, lanes * sizeof(*busy));
	while ((s = strstr(s, "<rect class=\"s"))) {
		s += 14;
		p = strstr(s, "data-l=\"");
		if (!p || sscanf(p, "data-l=\"%u\" data-d=\"%lld\"", &l, &d) != 2)
			continue;
		if (l < lanes)
			busy[l] += d;
		n++;
	}
	return n;
}

static int well_formed(const char *buf, size_t len)
{
	xmlDocPtr doc = xmlReadMemory(buf, (int)len, "t.svg", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR |
				      XML_PARSE_NOWARNING);

	if (!doc)
		return 0;
	xmlFreeDoc(doc);
	return 1;
}

static int ascii_only(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] > 0x7e ||
		    ((unsigned char)buf[i] < 0x20 && buf[i] != '\n' &&
		     buf[i] != '\t'))
			return 0;
	return 1;
}

/* --- pure parts ---------------------------------------------------------- */

static void test_colour_is_stable_and_spread(void)
{
	unsigned int distinct = 0, i, j;
	static uint32_t seen[1000];
	uint32_t c, r, g, b;

	for (i = 0; i < 1000; i++) {
		c = gr_tl_colour(i);
		CU_ASSERT_EQUAL(c, gr_tl_colour(i));
		CU_ASSERT(c <= 0xffffff);
		r = c >> 16;
		g = (c >> 8) & 0xff;
		b = c & 0xff;
		/* light enough for black names: luma above a third */
		CU_ASSERT(299 * r + 587 * g + 114 * b > 1000 * 85);
		for (j = 0; j < distinct && seen[j] != c; j++)
			;
		if (j == distinct)
			seen[distinct++] = c;
	}
	CU_ASSERT(distinct > 500);
	CU_ASSERT_NOT_EQUAL(gr_tl_colour(1), gr_tl_colour(2));
}

static void test_escape_makes_hostile_names_inert_ascii(void)
{
	static const char in[] = "<script>&\"'\\\xff\xfe\x01\x7fok";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gr_tl_escape(f, in, sizeof(in) - 1);
	fputc('|', f);
	gr_tl_escape(f, "ab\0cd", 5);	/* ends at the NUL */
	fputc('|', f);
	gr_tl_escape(f, "abcdef", 3);	/* and at the length */
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "&lt;script&gt;&amp;&quot;&#39;\\\\"
			       "\\xff\\xfe\\x01\\x7fok|ab|abc");
	CU_ASSERT(ascii_only(buf, len));
	free(buf);
}

static void test_wide_slices_are_drawn_one_each_with_names(void)
{
	struct gr_tl_lane l;
	struct pic p;
	int64_t busy;

	pic_open(&p, 0, 1000, 1000.0);		/* 1 px per ns */
	gr_tl_lane_init(&l, 0, 50, 0, 1000);
	gr_tl_slice(&p.cv, &l, 0, 100, 7, "bash", 4);
	gr_tl_slice(&p.cv, &l, 100, 150, 0, "swapper/0", 9);	/* idle */
	gr_tl_slice(&p.cv, &l, 150, 152, 8, "x", 1);
	gr_tl_flush(&p.cv, &l);
	pic_close(&p);
	CU_ASSERT_EQUAL(count(p.buf, "<rect class=\"s\""), 2);
	CU_ASSERT_EQUAL(count(p.buf, "class=\"s m\""), 0);
	CU_ASSERT_EQUAL(count(p.buf, ">bash</text>"), 1);
	CU_ASSERT_EQUAL(count(p.buf, "<text"), 1);	/* "x" does not fit */
	CU_ASSERT_EQUAL(busy_per_lane(p.buf, &busy, 1), 2);
	CU_ASSERT_EQUAL(busy, 102);
	CU_ASSERT_EQUAL(p.st.slices, 3);
	CU_ASSERT_EQUAL(p.st.rects, 2);
	pic_free(&p);
}

static void test_narrow_slices_merge_per_pixel_keeping_exact_time(void)
{
	struct gr_tl_lane l;
	struct pic p;
	int64_t t, busy, want = 0;

	pic_open(&p, 0, 1000000, 100.0);	/* 10000 ns per pixel */
	gr_tl_lane_init(&l, 3, 50, 0, 1000000);
	for (t = 0; t < 1000000; t += 10) {	/* 100000 slices */
		gr_tl_slice(&p.cv, &l, t, t + 7, 1 + (uint32_t)(t / 10 % 3),
			    "w", 1);
		want += 7;
	}
	gr_tl_flush(&p.cv, &l);
	pic_close(&p);
	CU_ASSERT_EQUAL(p.st.slices, 100000);
	/* bounded by the pixels, not the slices */
	CU_ASSERT(p.st.rects <= 2 * 100 + 2);
	CU_ASSERT(p.st.rects >= 50);
	CU_ASSERT_EQUAL(p.st.merged, p.st.rects);
	CU_ASSERT(count(p.buf, "<rect") == p.st.rects);
	/* the exact time survives the merging, on lane 3 */
	{
		int64_t b4[4];

		busy_per_lane(p.buf, b4, 4);
		busy = b4[3];
	}
	CU_ASSERT_EQUAL(busy, want);
	CU_ASSERT(count(p.buf, "of several tasks") > 0);
	CU_ASSERT(p.len < 200 * 300);
	pic_free(&p);
}

static void test_switch_attributes_time_to_prev_tid_and_clips(void)
{
	struct gr_tl_lane l;
	struct pic p;
	int64_t busy;

	pic_open(&p, 100, 1100, 1000.0);
	gr_tl_lane_init(&l, 0, 50, 100, 1100);
	l.start = 0;			/* the trace began before the axis */
	/* the first switch names who ran before it: tid 5 from 0 */
	gr_tl_switch(&p.cv, &l, 300, 5, "a", 1, 0, "swapper", 7);
	gr_tl_switch(&p.cv, &l, 400, 0, "swapper", 7, 6, "b", 1);
	/* events were lost: the switch says tid 9 ran, not 6 */
	gr_tl_switch(&p.cv, &l, 500, 9, "c", 1, 0, "swapper", 7);
	gr_tl_switch(&p.cv, &l, 1000, 0, "swapper", 7, 4, "d", 1);
	gr_tl_lane_end(&p.cv, &l);	/* 4 runs until hi = 1100 */
	pic_close(&p);
	busy_per_lane(p.buf, &busy, 1);
	CU_ASSERT_EQUAL(busy, (300 - 100) + (500 - 400) + (1100 - 1000));
	CU_ASSERT_EQUAL(l.busy, busy);
	CU_ASSERT_EQUAL(count(p.buf, "(tid 6)"), 0);
	CU_ASSERT_EQUAL(count(p.buf, "(tid 9)"), 1);
	pic_free(&p);
}

/* --- pictures of synthetic traces --------------------------------------- */

static int synth(const char *name, const struct tl_synth *o,
		 struct tl_truth *t, char *dir, size_t len)
{
	snprintf(dir, len, "%s/%s", tmp, name);
	gr_test_rm_tree(dir);
	return tl_synth_write(dir, o, t);
}

static int draw(char *dir, const struct gr_tl_opts *o, struct pic *p)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->f = open_memstream(&p->buf, &p->len);
	ret = gr_timeline(&dir, 1, p->f, o, &p->st, stderr);
	fflush(p->f);
	return ret;
}

static void test_synthetic_trace_lanes_and_busy_time_match_the_workload(void)
{
	struct tl_synth o = { .cpus = 4, .switches = 3000, .subbuf_size = 8192,
			      .seed = 7, .hostile = 1 };
	struct gr_tl_opts to = { .width = 1200 };
	int64_t busy[4];
	struct tl_truth t;
	char dir[512];
	struct pic p;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(synth("busy", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	CU_ASSERT_EQUAL(p.st.lanes, 4);
	CU_ASSERT_EQUAL(count(p.buf, "<rect class=\"lane"), 4);
	CU_ASSERT_EQUAL(p.st.t0, (int64_t)t.t0);
	CU_ASSERT_EQUAL(p.st.t1, (int64_t)t.t1);
	CU_ASSERT_EQUAL(p.st.switches, t.switches);
	busy_per_lane(p.buf, busy, 4);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(busy[i], (int64_t)t.busy[i]);
	/* a guest chose "<b>&\"'x\xff\xfe</b>\x01z": nothing of it is live */
	CU_ASSERT(well_formed(p.buf, p.len));
	CU_ASSERT(ascii_only(p.buf, p.len));
	CU_ASSERT_EQUAL(count(p.buf, "<b>"), 0);
	CU_ASSERT(count(p.buf, "&lt;b&gt;&amp;&quot;&#39;x\\xff\\xfe") > 0);
	CU_ASSERT(count(p.buf, "ahci&lt;0&gt;&amp;") > 0);
	CU_ASSERT(p.st.irq_marks > 0);
	CU_ASSERT_EQUAL(p.st.lat_marks, 0);	/* not asked for */
	CU_ASSERT_EQUAL(count(p.buf, "class=\"w\""), 0);
	pic_free(&p);

	to.latency = 1;
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	CU_ASSERT(p.st.lat_marks > 0);
	CU_ASSERT(count(p.buf, "<rect class=\"w\"") == p.st.lat_marks);
	pic_free(&p);
}

static void test_html_wraps_the_same_svg_and_one_inline_script(void)
{
	struct tl_synth o = { .cpus = 2, .switches = 500, .subbuf_size = 4096,
			      .seed = 3, .hostile = 1 };
	struct gr_tl_opts to = { .width = 800, .html = 1 };
	struct tl_truth t;
	char dir[512];
	struct pic p;

	CU_ASSERT_EQUAL_FATAL(synth("html", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	CU_ASSERT(!strncmp(p.buf, "<!DOCTYPE html>", 15));
	CU_ASSERT_EQUAL(count(p.buf, "<script"), 1);
	CU_ASSERT_EQUAL(count(p.buf, "<svg "), 1);
	CU_ASSERT_EQUAL(count(p.buf, "http://"), 1);	/* the SVG namespace */
	CU_ASSERT_EQUAL(count(p.buf, "https://"), 0);
	CU_ASSERT_EQUAL(count(p.buf, "src="), 0);
	CU_ASSERT_EQUAL(count(p.buf, "href"), 0);
	CU_ASSERT(strstr(p.buf, "class=\"nolat\"") != NULL);
	CU_ASSERT(p.st.lat_marks > 0);	/* there, hidden until toggled */
	CU_ASSERT(ascii_only(p.buf, p.len));
	pic_free(&p);
}

static void test_losses_get_red_marks(void)
{
	struct tl_synth o = { .cpus = 2, .switches = 4000, .subbuf_size = 4096,
			      .seed = 5, .losses = 1 };
	struct gr_tl_opts to = { .width = 1600 };
	struct tl_truth t;
	char dir[512];
	struct pic p;
	int ret;

	CU_ASSERT_EQUAL_FATAL(synth("loss", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT(t.lost > 4);
	ret = draw(dir, &to, &p);
	CU_ASSERT_EQUAL(ret, 0);	/* losses are not damage */
	CU_ASSERT(p.st.loss_marks > 4);
	CU_ASSERT(p.st.loss_marks <= 2 * t.lost);
	CU_ASSERT_EQUAL(count(p.buf, "<rect class=\"x\""), p.st.loss_marks);
	CU_ASSERT(count(p.buf, "lost 1 packet") > 0);
	CU_ASSERT(count(p.buf, "3 events discarded by the guest") > 0);
	pic_free(&p);
}

static void test_window_cuts_the_axis_and_the_busy_time(void)
{
	struct tl_synth o = { .cpus = 1, .switches = 2000, .subbuf_size = 8192,
			      .seed = 9, .synced = 1, .host_s = 1764000000 };
	struct gr_tl_opts to = { .width = 1000, .have_from = 1, .from = 0.25,
				 .have_to = 1, .to = 0.5 };
	struct tl_truth t;
	char dir[512];
	struct pic p;
	int64_t base;

	CU_ASSERT_EQUAL_FATAL(synth("win", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	CU_ASSERT_EQUAL(p.st.host_time, 1);
	base = 1764000000LL * 1000000000LL + (int64_t)t.t0;
	CU_ASSERT_EQUAL(p.st.t0, base + 250000000);
	CU_ASSERT_EQUAL(p.st.t1, base + 500000000);
	pic_free(&p);

	/* absolute host seconds mean the same window */
	to.from = (double)(base + 250000000) / 1e9;
	to.to = (double)(base + 500000000) / 1e9;
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	CU_ASSERT(llabs(p.st.t0 - (base + 250000000)) < 1000);
	CU_ASSERT(llabs(p.st.t1 - (base + 500000000)) < 1000);
	pic_free(&p);

	/* a window past the end is an error, with nothing drawn */
	to.from = 1e6;
	to.to = 1e6 + 1;
	CU_ASSERT_EQUAL(draw(dir, &to, &p), -EINVAL);
	CU_ASSERT_EQUAL(p.len, 0);
	pic_free(&p);
}

static void test_output_size_is_bounded_by_width_not_events(void)
{
	struct tl_synth o = { .cpus = 2, .subbuf_size = 65536, .seed = 11 };
	struct gr_tl_opts to = { .width = 400 };
	struct tl_truth t;
	size_t small, big;
	char dir[512];
	struct pic p;

	o.switches = 5000;
	CU_ASSERT_EQUAL_FATAL(synth("b1", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	small = p.len;
	pic_free(&p);
	o.switches = 50000;
	CU_ASSERT_EQUAL_FATAL(synth("b2", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	big = p.len;
	CU_ASSERT(p.st.slices >= 100000);
	CU_ASSERT(p.st.rects <= 2 * 2 * 400 + 8);
	pic_free(&p);
	CU_ASSERT(big < small * 2);
	CU_ASSERT(big < 2 * 3 * 400 * 400);
}

/* overwrite @n bytes at @off of @dir/@file with garbage, or truncate at @off */
static int damage(const char *dir, const char *file, long off, size_t n,
		  uint64_t *x)
{
	char path[600];
	uint8_t b[64];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!n)
		return truncate(path, off);
	f = fopen(path, "r+");
	if (!f)
		return -1;
	for (i = 0; i < n && i < sizeof(b); i++) {
		*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
		b[i] = (uint8_t)(*x >> 56);
	}
	fseek(f, off, SEEK_SET);
	fwrite(b, 1, i, f);
	return fclose(f);
}

static void test_damaged_traces_draw_what_validates_with_red_marks(void)
{
	struct tl_synth o = { .cpus = 2, .switches = 3000, .subbuf_size = 4096,
			      .hostile = 1 };
	struct gr_tl_opts to = { .width = 900, .latency = 1 };
	uint64_t x = 42;
	struct tl_truth t;
	char dir[512];
	struct pic p;
	unsigned int round, k;
	int ret;

	for (round = 0; round < 6; round++) {
		o.seed = 100 + round;
		CU_ASSERT_EQUAL_FATAL(synth("dmg", &o, &t, dir, sizeof(dir)),
				      0);
		/* garbage over headers and records, a file cut mid-packet */
		for (k = 0; k < 12; k++)
			damage(dir, k % 2 ? "stream_1" : "stream_0",
			       (long)((x = x * 2862933555777941757ULL + 3) %
				      (t.bytes / 2 - 64)),
			       k % 3 ? 16 : 64, &x);
		damage(dir, "stream_1", (long)(t.bytes / 2 - 1000), 0, &x);
		ret = draw(dir, &to, &p);
		CU_ASSERT(ret > 0);
		CU_ASSERT(p.st.loss_marks > 0);
		CU_ASSERT(well_formed(p.buf, p.len));
		CU_ASSERT(ascii_only(p.buf, p.len));
		CU_ASSERT_EQUAL(count(p.buf, "<rect class=\"lane"), 2);
		pic_free(&p);
	}
}

static void test_global_ring_is_one_lane_without_task_slices(void)
{
	struct tl_synth o = { .cpus = 4, .switches = 500, .subbuf_size = 4096,
			      .seed = 13, .global = 1 };
	struct gr_tl_opts to = { .width = 600, .latency = 1 };
	struct tl_truth t;
	char dir[512];
	struct pic p;

	CU_ASSERT_EQUAL_FATAL(synth("global", &o, &t, dir, sizeof(dir)), 0);
	CU_ASSERT_EQUAL_FATAL(draw(dir, &to, &p), 0);
	CU_ASSERT_EQUAL(p.st.lanes, 1);
	CU_ASSERT_EQUAL(count(p.buf, "<rect class=\"lane"), 1);
	CU_ASSERT(strstr(p.buf, ">all CPUs</text>") != NULL);
	CU_ASSERT(strstr(p.buf, "4 CPUs sharing one ring") != NULL);
	CU_ASSERT_EQUAL(p.st.rects, 0);
	CU_ASSERT_EQUAL(p.st.switches, 0);
	CU_ASSERT(p.st.irq_marks > 0);
	CU_ASSERT(well_formed(p.buf, p.len));
	pic_free(&p);
}

/* sum of data-ns of the marks of @cls ("hp", "hh"); returns marks */
static unsigned int off_ns(const char *s, const char *cls, int64_t *ns)
{
	char key[32];
	unsigned int n = 0;
	long long v;
	const char *p;

	snprintf(key, sizeof(key), "<rect class=\"%s\"", cls);
	*ns = 0;
	while ((s = strstr(s, key))) {
		s += strlen(key);
		p = strstr(s, "data-ns=\"");
		if (p && sscanf(p, "data-ns=\"%lld\"", &v) == 1)
			*ns += v;
		n++;
	}
	return n;
}

static void test_vcpu_off_marks_merge_below_a_pixel_and_keep_kinds(void)
{
	struct gr_tl_off o = { .index = 2, .y = 40, .vcpu = 1, .tid = 77 };
	int64_t t, ns, want = 0;
	struct pic p;

	pic_open(&p, 0, 1000000, 100.0);	/* 10000 ns per pixel */
	/* 1000 preemptions of 300 ns, 1000 ns apart: one run, one mark */
	for (t = 0; t < 1000000; t += 1000) {
		gr_tl_off_mark(&p.cv, &o, GR_TL_PREEMPTED, t, t + 300, 0,
			       "<b>hog</b>");
		want += 300;
	}
	gr_tl_off_flush(&p.cv, &o);
	pic_close(&p);
	CU_ASSERT_EQUAL(p.st.off_marks, 1);
	CU_ASSERT_EQUAL(off_ns(p.buf, "hp", &ns), 1);
	CU_ASSERT_EQUAL(ns, want);
	CU_ASSERT(count(p.buf, "data-n=\"1000\"") == 1);
	CU_ASSERT(count(p.buf, "<b>") == 0);	/* a host task's name, inert */
	CU_ASSERT(count(p.buf, "data-l=\"2\" data-vcpu=\"1\"") == 1);
	CU_ASSERT(well_formed(p.buf, p.len));
	pic_free(&p);

	/* apart by more than a pixel, or of the other kind: marks apart */
	pic_open(&p, 0, 1000000, 100.0);
	fputs("<g>", p.f);		/* one root for well_formed() */
	memset(&o, 0, sizeof(o));
	gr_tl_off_mark(&p.cv, &o, GR_TL_PREEMPTED, 0, 50000, 0, "a");
	gr_tl_off_mark(&p.cv, &o, GR_TL_PREEMPTED, 80000, 90000, 0, "b");
	gr_tl_off_mark(&p.cv, &o, GR_TL_HALTED, 90000, 400000, 0, "c");
	gr_tl_off_mark(&p.cv, &o, GR_TL_PREEMPTED, 400000, 450000, 1, "d");
	/* cut to the axis: from before its start, past its end */
	gr_tl_off_mark(&p.cv, &o, GR_TL_HALTED, 900000, 3000000, 0, "e");
	gr_tl_off_mark(&p.cv, &o, GR_TL_HALTED, 2000000, 3000000, 0, "f");
	gr_tl_off_flush(&p.cv, &o);
	fputs("</g>", p.f);
	pic_close(&p);
	CU_ASSERT_EQUAL(p.st.off_marks, 5);
	CU_ASSERT_EQUAL(off_ns(p.buf, "hp", &ns), 3);
	CU_ASSERT_EQUAL(ns, 50000 + 10000 + 50000);
	CU_ASSERT_EQUAL(off_ns(p.buf, "hh", &ns), 2);
	CU_ASSERT_EQUAL(ns, 310000 + 100000);
	CU_ASSERT(count(p.buf, "on host CPU 1, d switched in") == 1);
	CU_ASSERT(well_formed(p.buf, p.len));
	pic_free(&p);
}

static void test_not_a_trace_is_an_error(void)
{
	struct gr_tl_opts to = { .width = 400 };
	char dir[512];
	struct pic p;

	snprintf(dir, sizeof(dir), "%s/nothing", tmp);
	CU_ASSERT(draw(dir, &to, &p) < 0);
	CU_ASSERT_EQUAL(p.len, 0);
	pic_free(&p);
	to.width = 10;
	CU_ASSERT_EQUAL(draw(dir, &to, &p), -EINVAL);
	pic_free(&p);
}

static int suite_init(void)
{
	return gr_test_tmpdir(tmp, sizeof(tmp), "test_timeline");
}

static int suite_clean(void)
{
	gr_test_rm_tree(tmp);
	return 0;
}

static const struct gr_test tests[] = {
	GR_TEST(test_colour_is_stable_and_spread),
	GR_TEST(test_escape_makes_hostile_names_inert_ascii),
	GR_TEST(test_wide_slices_are_drawn_one_each_with_names),
	GR_TEST(test_narrow_slices_merge_per_pixel_keeping_exact_time),
	GR_TEST(test_switch_attributes_time_to_prev_tid_and_clips),
	GR_TEST(test_synthetic_trace_lanes_and_busy_time_match_the_workload),
	GR_TEST(test_html_wraps_the_same_svg_and_one_inline_script),
	GR_TEST(test_losses_get_red_marks),
	GR_TEST(test_window_cuts_the_axis_and_the_busy_time),
	GR_TEST(test_output_size_is_bounded_by_width_not_events),
	GR_TEST(test_damaged_traces_draw_what_validates_with_red_marks),
	GR_TEST(test_global_ring_is_one_lane_without_task_slices),
	GR_TEST(test_vcpu_off_marks_merge_below_a_pixel_and_keep_kinds),
	GR_TEST(test_not_a_trace_is_an_error),
};

int main(void)
{
	return gr_test_main("timeline", tests, ARRAY_SIZE(tests),
			    suite_init, suite_clean);
}
