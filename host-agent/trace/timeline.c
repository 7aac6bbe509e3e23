// SPDX-License-Identifier: GPL-2.0
/*
 * timeline.c - `guestrelay timeline`: stored traces as an SVG or HTML
 * picture (see timeline.h)
 *
 * Two passes over each trace: the packet headers only, for the time span
 * and the CPU count (the picture's size must be known before its first
 * element), then the events once, merged by time (reader.c), drawn as
 * they come. A lane (one CPU of one trace) keeps only the running task,
 * a pending run of sub-pixel slices, the open IRQ/softirq, and the pixel
 * column of its last mark of each kind.
 *
 * Picture of one lane (LANE_H pixels):
 *
 *   +1  .. +5   wakeup-to-run latency: from the wakeup to the switch in
 *   +6  .. +22  the running task: one rectangle per slice, the tid's colour
 *   +23 .. +26  IRQ handlers
 *   +27 .. +29  softirqs
 *   and a red bar over all of it where events were lost or damaged;
 *   with a host stream, the lane shaded where its vCPU thread was off its
 *   host CPU (draw_host()).
 *
 * Slice rule: a sched_switch at t ends the slice of its prev_tid, which
 * began at the previous switch of the CPU (or at the trace's start), and
 * starts one of next_tid; the last one ends at the trace's end. tid 0 is
 * idle and not drawn. Every string from the trace (comm, IRQ name, node
 * name) is escaped for XML and made ASCII (gr_tl_escape()): a guest
 * chooses them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hoststream.h"
#include "reader.h"
#include "steal.h"
#include "timeline.h"
#include "tl_lane.h"

#define LEFT		110	/* lane labels */
#define RIGHT		48
#define TOP		58	/* title, axis labels */
#define TRACE_HDR	22	/* one line per trace */
#define BOTTOM		34	/* legend */
#define WAKE_SLOTS	4096	/* wakeups waiting to run: a bounded table */
#define MIXED_FILL	0xb7d7f0U	/* legend: a pale task colour */

enum { K_NONE, K_SWITCH, K_WAKEUP, K_IRQ_IN, K_IRQ_OUT, K_SIRQ_IN,
       K_SIRQ_OUT };

/* --- one trace ---------------------------------------------------------- */

/* what pass 1 learnt about a trace */
struct tl_trace {
	const char *dir;
	int any;		/* packets with a time span */
	uint64_t first, last;	/* clock values */
	int64_t t0, t1;		/* the same, ns on the axis' clock */
	unsigned int nr_cpus;	/* lanes: rings of a per-CPU trace, else 1 */
	unsigned int guest_cpus;
	int global;		/* one ring shared by all CPUs */
	int synced;
	char nodename[GR_NODENAME_LEN];
	char release[GR_RELEASE_LEN];
};

/*
 * The events the picture uses, found by name, and per event id the
 * fields it reads, found by name in that event's own descriptor (never at
 * fixed offsets): sched_switch prev_tid, prev_comm, next_tid, next_comm;
 * sched_wakeup(_new) tid; irq_handler_entry irq, name; softirq_entry vec.
 */
struct tl_map {
	uint8_t kind[GR_WIDE_MAX_EVENTS];
	const struct gr_field_view *f[GR_WIDE_MAX_EVENTS][4];
};

static const struct {
	const char *name;
	uint8_t kind;
	const char *fields[4];	/* the first is required, an INTEGER */
} tl_events[] = {
	{ "sched_switch", K_SWITCH,
	  { "next_tid", "prev_tid", "prev_comm", "next_comm" } },
	{ "sched_wakeup", K_WAKEUP, { "tid" } },
	{ "sched_wakeup_new", K_WAKEUP, { "tid" } },
	{ "irq_handler_entry", K_IRQ_IN, { "irq", "name" } },
	{ "irq_handler_exit", K_IRQ_OUT, { NULL } },
	{ "softirq_entry", K_SIRQ_IN, { "vec" } },
	{ "softirq_exit", K_SIRQ_OUT, { NULL } },
};

static void map_events(const struct gr_ctf_info *info, struct tl_map *m)
{
	const struct gr_event_view *e;
	unsigned int i, j, k;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < info->nr_events; i++) {
		if (!info->valid[i])
			continue;
		e = &info->events[i];
		for (j = 0; j < ARRAY_SIZE(tl_events); j++) {
			if (strcmp(e->name, tl_events[j].name))
				continue;
			for (k = 0; k < 4 && tl_events[j].fields[k]; k++)
				m->f[i][k] = gr_event_field(e,
						tl_events[j].fields[k]);
			/* without its key field, an event is not drawn */
			if (!tl_events[j].fields[0] ||
			    (m->f[i][0] &&
			     m->f[i][0]->type == GR_FIELD_INTEGER))
				m->kind[i] = tl_events[j].kind;
		}
	}
}

/* integer field @k of the head event; @dflt if absent or cut */
static int64_t ev_int(const struct tl_map *m, const struct gr_cursor *c,
		      unsigned int k, int64_t dflt)
{
	const struct gr_field_view *f = m->f[c->rec.id][k];
	const uint8_t *p;
	uint32_t plen;
	int64_t v;

	if (!f)
		return dflt;
	p = gr_cursor_payload(c, &plen);
	return gr_field_int(f, p, plen, &v) ? dflt : v;
}

/* text field @k of the head event: its length, 0 if absent */
static size_t ev_text(const struct tl_map *m, const struct gr_cursor *c,
		      unsigned int k, const uint8_t **text)
{
	const struct gr_field_view *f = m->f[c->rec.id][k];
	const uint8_t *p;
	uint32_t plen;

	p = gr_cursor_payload(c, &plen);
	*text = p;
	return f ? gr_field_text(f, p, plen, text) : 0;
}

struct wake {
	uint32_t tid;
	int64_t t;		/* -1: empty */
};

static unsigned int wake_slot(uint32_t tid)
{
	return (tid * 0x9e3779b1U) >> 20;	/* 12 bits: WAKE_SLOTS */
}

static int64_t tl_ns(const struct gr_ctf_info *info, uint64_t ts, int host)
{
	__int128 t = gr_time_ns(info, ts, host);

	return t > INT64_MAX ? INT64_MAX : t < INT64_MIN ? INT64_MIN :
	       (int64_t)t;
}

/* pass 2: draw the events of one trace into its lanes */
static int draw_trace(struct gr_tl_canvas *cv, const struct tl_trace *tr,
		      unsigned int first_lane, double y, int host, int latency,
		      FILE *err)
{
	struct gr_tl_lane *lanes, *l;
	const uint8_t *a, *b;
	struct wake *wakes, *w;
	struct gr_reader r;
	struct gr_cursor *c;
	struct tl_map m;
	int64_t t, v, ntid;
	unsigned int i, kind;
	size_t na, nb;
	int ret;

	ret = gr_reader_open(&r, tr->dir, err, 0);
	if (ret)
		return ret;
	lanes = calloc(tr->nr_cpus, sizeof(*lanes));
	wakes = malloc(WAKE_SLOTS * sizeof(*wakes));
	if (!lanes || !wakes || gr_reader_merge_start(&r)) {
		fprintf(err, "error: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < WAKE_SLOTS; i++)
		wakes[i].t = -1;
	map_events(r.info, &m);
	for (i = 0; tr->global && i < GR_WIDE_MAX_EVENTS; i++)
		if (m.kind[i] == K_SWITCH || m.kind[i] == K_WAKEUP)
			m.kind[i] = K_NONE;
	for (i = 0; i < tr->nr_cpus; i++) {
		gr_tl_lane_init(&lanes[i], first_lane + i, y + i * LANE_H,
				tr->t0 > cv->t0 ? tr->t0 : cv->t0,
				tr->t1 < cv->t1 ? tr->t1 : cv->t1);
		lanes[i].start = tr->t0;
	}

	while ((c = gr_reader_merge_head(&r))) {
		l = c->cpu < tr->nr_cpus ? &lanes[c->cpu] : NULL;
		if (c->kind == GR_ITEM_NOTE) {
			if (l)
				gr_tl_loss_mark(cv, l, tl_ns(r.info, c->ts, host),
					  c->note);
			gr_reader_merge_next(&r);
			continue;
		}
		cv->st->events++;
		kind = m.kind[c->rec.id];
		if (kind == K_NONE || !l) {
			gr_reader_merge_next(&r);
			continue;
		}
		t = tl_ns(r.info, c->ts, host);
		switch (kind) {
		case K_SWITCH:
			cv->st->switches++;
			ntid = ev_int(&m, c, 0, 0);
			na = ev_text(&m, c, 2, &a);
			nb = ev_text(&m, c, 3, &b);
			gr_tl_switch(cv, l, t, (uint32_t)ev_int(&m, c, 1, 0),
				     a, na, (uint32_t)ntid, b, nb);
			w = &wakes[wake_slot((uint32_t)ntid)];
			if (ntid && w->t >= 0 && w->tid == (uint32_t)ntid &&
			    w->t <= t) {
				if (latency)
					gr_tl_lat_mark(cv, l, w->t, t, (uint32_t)ntid,
						 b, nb);
				w->t = -1;
			}
			break;
		case K_WAKEUP:
			v = ev_int(&m, c, 0, 0);
			if (v) {
				w = &wakes[wake_slot((uint32_t)v)];
				w->tid = (uint32_t)v;
				w->t = t;
			}
			break;
		case K_IRQ_IN:
			l->irq_t = t;
			l->irq_no = ev_int(&m, c, 0, -1);
			na = ev_text(&m, c, 1, &a);
			if (na > sizeof(l->irq_name))
				na = sizeof(l->irq_name);
			memcpy(l->irq_name, a, na);
			l->irq_nlen = (unsigned int)na;
			break;
		case K_IRQ_OUT:
			if (l->irq_t >= 0 && l->irq_t <= t)
				gr_tl_irq_mark(cv, l, 0, l->irq_t, t);
			l->irq_t = -1;
			break;
		case K_SIRQ_IN:
			l->sirq_t = t;
			l->sirq_vec = ev_int(&m, c, 0, -1);
			break;
		case K_SIRQ_OUT:
			if (l->sirq_t >= 0 && l->sirq_t <= t)
				gr_tl_irq_mark(cv, l, 1, l->sirq_t, t);
			l->sirq_t = -1;
			break;
		}
		gr_reader_merge_next(&r);
	}
	for (i = 0; i < tr->nr_cpus; i++) {
		gr_tl_lane_end(cv, &lanes[i]);
		fprintf(cv->out, "<desc class=\"busy\" data-l=\"%u\" "
			"data-busy=\"%lld\"/>\n", lanes[i].index,
			(long long)lanes[i].busy);
	}
	cv->st->damaged += gr_reader_damaged(&r);
	ret = 0;
out:
	free(wakes);
	free(lanes);
	gr_reader_close(&r);
	return ret;
}

/* --- the host's side ---------------------------------------------------- */

struct tl_host {
	struct gr_tl_canvas *cv;
	struct gr_tl_off *lanes;	/* by guest CPU = QEMU's cpu-index */
	unsigned int nr;
};

static void host_off(void *arg, const struct gr_steal *s,
		     const struct gr_steal_vcpu *v, enum gr_steal_off kind,
		     uint64_t from, uint64_t to)
{
	struct tl_host *h = arg;
	struct gr_tl_off *o;

	if (v->index < 0 || (unsigned int)v->index >= h->nr)
		return;
	o = &h->lanes[v->index];
	o->vcpu = v->index;
	if (o->tid != v->tid) {
		gr_tl_off_flush(h->cv, o);	/* a restarted QEMU's */
		o->tid = v->tid;
	}
	gr_tl_off_mark(h->cv, o, kind == GR_STEAL_HALTED ? GR_TL_HALTED :
		       kind == GR_STEAL_WOKEN ? GR_TL_WOKEN : GR_TL_PREEMPTED,
		       tl_ns(s->info, from, 1), tl_ns(s->info, to, 1),
		       v->off_cpu, v->off_by);
}

/*
 * a trace's host stream (<dir>/host) over its lanes: vCPU n's thread (QEMU
 * names it "CPU n/...") over guest CPU n, shaded where it was off its host
 * CPU. Both clocks go to host CLOCK_REALTIME (the guest's through its
 * synchronization, the host stream's through the agent's), so only on a
 * host-time axis; 1 if drawn.
 */
static int draw_host(struct gr_tl_canvas *cv, const struct tl_trace *tr,
		     unsigned int first_lane, double y, int host, FILE *err)
{
	char path[4096];
	struct gr_steal *s;
	struct tl_host h;
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "%s/" GR_HS_DIR, tr->dir);
	if (tr->global || access(path, F_OK))
		return 0;
	if (!host) {
		fprintf(err, "warning: %s: host stream not drawn: the axis is "
			"guest clock time\n", path);
		return 0;
	}
	s = malloc(sizeof(*s));
	h.lanes = calloc(tr->nr_cpus, sizeof(*h.lanes));
	if (!s || !h.lanes) {
		free(s);
		free(h.lanes);
		return 0;
	}
	h.cv = cv;
	h.nr = tr->nr_cpus;
	for (i = 0; i < tr->nr_cpus; i++) {
		h.lanes[i].index = first_lane + i;
		h.lanes[i].y = y + i * LANE_H;
	}
	fprintf(cv->out, "<g class=\"host\" data-first-lane=\"%u\">\n",
		first_lane);
	ret = gr_steal_walk(tr->dir, s, host_off, &h, err);
	for (i = 0; i < tr->nr_cpus; i++)
		gr_tl_off_flush(cv, &h.lanes[i]);
	fputs("</g>\n", cv->out);
	if (ret)
		fprintf(err, "warning: %s: host stream not drawn: %s\n", path,
			ret == -ENOENT ? "not a host stream" : strerror(-ret));
	free(h.lanes);
	free(s);
	return !ret;
}

/* --- the picture -------------------------------------------------------- */

/* pass 1: span, CPUs and clock of a trace, from its packet headers */
static int scan_trace(struct tl_trace *tr, const char *dir, FILE *err)
{
	struct gr_reader r;
	struct gr_cursor *c;
	unsigned int i;
	int ret;

	memset(tr, 0, sizeof(*tr));
	tr->dir = dir;
	ret = gr_reader_open(&r, dir, err, 1);
	if (ret)
		return ret;
	for (i = 0; i < r.nr_cur; i++) {
		c = &r.cur[i];
		do
			gr_cursor_advance(&r, c);
		while (c->kind != GR_ITEM_NONE);
		if (!c->packets)
			continue;
		if (!tr->any || c->pkt_first < tr->first)
			tr->first = c->pkt_first;
		if (!tr->any || c->pkt_last > tr->last)
			tr->last = c->pkt_last;
		tr->any = 1;
	}
	/*
	 * A global ring's packets say cpu_id 0 whichever CPU wrote an event
	 * (spec 3.9): one lane for all, without task slices.
	 */
	tr->guest_cpus = r.info->view.nr_cpus;
	tr->global = gr_view_is_global(&r.info->view);
	tr->nr_cpus = tr->global ? 1 : r.info->view.nr_rings;
	tr->synced = r.info->clock.synced;
	memcpy(tr->nodename, r.info->view.nodename, sizeof(tr->nodename));
	memcpy(tr->release, r.info->view.kernel_release,
	       sizeof(tr->release));
	gr_reader_close(&r);
	return 0;
}

/* a round step of about a tenth of @span ns: 1, 2 or 5 times 10^k */
static int64_t tick_step(int64_t span)
{
	int64_t step = 1;

	while (step * 10 <= span / 10 && step < INT64_MAX / 100)
		step *= 10;
	if (step * 5 <= span / 8)
		return step * 5;
	if (step * 2 <= span / 8)
		return step * 2;
	return step;
}

static void axis(struct gr_tl_canvas *cv, double height)
{
	int64_t span = cv->t1 - cv->t0, step = tick_step(span), t;
	char buf[32];
	double x;

	fprintf(cv->out, "<g class=\"axis\">\n");
	for (t = 0; t <= span; t += step) {
		x = gr_tl_x(cv, cv->t0 + t);
		fprintf(cv->out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" "
			"y2=\"%.1f\"/>", x, TOP - 6, x, height - BOTTOM);
		gr_tl_fmt_dur(buf, sizeof(buf), t);
		fprintf(cv->out, "<text x=\"%.2f\" y=\"%d\" "
			"text-anchor=\"middle\">%s%s</text>\n", x, TOP - 10,
			t ? "+" : "", t ? buf : "0");
		if (step > span)
			break;
	}
	fprintf(cv->out, "</g>\n");
}

static void title(struct gr_tl_canvas *cv, unsigned int ntr, int host)
{
	char when[64], d[32];
	struct tm tm;
	time_t sec;

	gr_tl_fmt_dur(d, sizeof(d), cv->t1 - cv->t0);
	if (host) {
		sec = (time_t)(cv->t0 / NSEC_PER_SEC);
		gmtime_r(&sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(cv->out, "<text class=\"h\" x=\"8\" y=\"18\">guestrelay "
			"timeline: %u trace%s, %s from %s.%09lld UTC (host "
			"time)</text>\n", ntr, ntr == 1 ? "" : "s", d, when,
			(long long)(cv->t0 % NSEC_PER_SEC));
	} else {
		fprintf(cv->out, "<text class=\"h\" x=\"8\" y=\"18\">guestrelay "
			"timeline: %u trace%s, %s from %lld.%09lld s (guest "
			"clock)</text>\n", ntr, ntr == 1 ? "" : "s", d,
			(long long)(cv->t0 / NSEC_PER_SEC),
			(long long)(cv->t0 % NSEC_PER_SEC));
	}
}

static void legend(struct gr_tl_canvas *cv, double y, int latency,
		   int host)
{
	static const struct { const char *cls, *text; uint32_t fill; } k[] = {
		{ "s", "task (colour: tid)", 0x6fa8dc },
		{ "s m", "slices < 1 px merged: longest's colour, paler = idler",
		  MIXED_FILL },
		{ "i", "IRQ handler", 0xe06000 },
		{ "q", "softirq", 0x7a3cc8 },
		{ "w", "wakeup-to-run latency", 0xc99700 },
		{ "x", "events lost / damaged", 0xe00000 },
		{ "hp", "vCPU preempted on the host", 0xe0a0aa },
		{ "hw", "vCPU woken, waiting for its host CPU", 0xf0c8a0 },
		{ "hh", "vCPU halted on the host", 0xdde2e8 },
	};
	unsigned int i;
	double x = LEFT;

	for (i = 0; i < ARRAY_SIZE(k); i++) {
		if (!strcmp(k[i].cls, "w") && !latency)
			continue;
		if (k[i].cls[0] == 'h' && !host)
			continue;
		fprintf(cv->out, "<rect class=\"key\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"14\" height=\"10\" fill=\"#%06x\"/><text "
			"x=\"%.1f\" y=\"%.1f\">", x, y, k[i].fill, x + 18,
			y + 9);
		gr_tl_escape(cv->out, k[i].text, strlen(k[i].text));
		fputs("</text>\n", cv->out);
		x += 30 + CHAR_W * strlen(k[i].text);
	}
}

static const char html_head[] =
"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
"<title>guestrelay timeline</title>\n"
"<style>body{font:13px sans-serif;margin:8px}"
"#bar{position:sticky;top:0;background:#fff;padding:4px 0;"
"border-bottom:1px solid #ccc}"
"#info{font-family:monospace;white-space:pre;margin-left:2em}</style>\n"
"</head><body>\n<div id=\"bar\"><label><input type=\"checkbox\" "
"id=\"lat\"> wakeup-to-run latency</label><span id=\"info\">hover a slice "
"or a mark for details</span></div>\n";

static const char html_tail[] =
"<script>\n"
"(function () {\n"
"\tvar svg = document.getElementById('tl');\n"
"\tvar info = document.getElementById('info');\n"
"\tvar lat = document.getElementById('lat');\n"
"\tlat.checked = !svg.classList.contains('nolat');\n"
"\tlat.addEventListener('change', function () {\n"
"\t\tsvg.classList.toggle('nolat', !lat.checked);\n"
"\t});\n"
"\tsvg.addEventListener('mousemove', function (e) {\n"
"\t\tvar t = e.target.querySelector && e.target.querySelector('title');\n"
"\t\tinfo.textContent = t ? t.textContent : '';\n"
"\t});\n"
"\tsvg.setAttribute('data-ready', '1');\n"
"})();\n"
"</script>\n</body></html>\n";

/* the window in axis ns: relative seconds or absolute */
static int64_t window_ns(double v, int64_t base)
{
	double ns = v * 1e9;

	if (ns >= 9.2e18)
		return INT64_MAX;
	/* relative: exact to the ns; absolute: as exact as a double is */
	if (v < GR_TL_ABSOLUTE)
		return base > INT64_MAX - (int64_t)(ns + 0.5) ? INT64_MAX :
		       base + (int64_t)(ns + 0.5);
	return (int64_t)(ns + 0.5);
}

/**
 * gr_timeline() - draw stored traces on one time axis
 * @dirs: trace directories (<store>/<vm>/<session>)
 * @ndirs: how many (1 .. GR_TL_MAX_TRACES)
 * @out: where the SVG or HTML goes
 * @opts: what to draw (see struct gr_tl_opts)
 * @st: receives what was drawn
 * @err: where a fatal problem is printed, as one "error: " line, and
 *	warnings as "warning: " lines
 *
 * The axis is host time (CLOCK_REALTIME through each trace's stored clock
 * offset) when every trace's clock was synchronized, else guest clock
 * time (then several traces do not line up: a warning says so).
 *
 * Context: process; blocks on file I/O; memory: one packet per stream of
 * the trace being drawn, and per-lane state.
 * Return: the number of damaged spots in the traces (0 if intact), or
 * -errno: -EINVAL (bad options, an empty window, no packets), -ENOENT,
 * -ENOMEM, -EIO (writing @out failed).
 */
int gr_timeline(char *const *dirs, unsigned int ndirs, FILE *out,
		const struct gr_tl_opts *opts, struct gr_tl_stats *st,
		FILE *err)
{
	struct gr_tl_canvas cv;
	struct tl_trace *trs;
	unsigned int i, lane = 0;
	int64_t t0 = 0, t1 = 0;
	int host = 1, any = 0, ret = 0;
	double height, y;

	memset(st, 0, sizeof(*st));
	if (!ndirs || ndirs > GR_TL_MAX_TRACES || opts->width < GR_TL_WIDTH_MIN ||
	    opts->width > GR_TL_WIDTH_MAX) {
		fprintf(err, "error: 1 to %d traces and a width of %d to %d "
			"pixels\n", GR_TL_MAX_TRACES, GR_TL_WIDTH_MIN,
			GR_TL_WIDTH_MAX);
		return -EINVAL;
	}
	trs = calloc(ndirs, sizeof(*trs));
	if (!trs) {
		fprintf(err, "error: out of memory\n");
		return -ENOMEM;
	}
	for (i = 0; i < ndirs; i++) {
		ret = scan_trace(&trs[i], dirs[i], err);
		if (ret)
			goto out;
		host &= trs[i].synced;
	}
	if (!host && ndirs > 1)
		fprintf(err, "warning: not every trace's clock was synchronized "
			"with the host: drawing guest clock time, on which the "
			"traces do not line up\n");
	for (i = 0; i < ndirs; i++)
		st->lanes += trs[i].nr_cpus;
	/* the clock values to ns need the trace's info: ask the reader */
	for (i = 0; i < ndirs; i++) {
		struct tl_trace *tr = &trs[i];
		struct gr_reader r;

		if (!tr->any)
			continue;
		ret = gr_reader_open(&r, tr->dir, err, 1);
		if (ret)
			goto out;
		tr->t0 = tl_ns(r.info, tr->first, host);
		tr->t1 = tl_ns(r.info, tr->last, host);
		gr_reader_close(&r);
		if (!any || tr->t0 < t0)
			t0 = tr->t0;
		if (!any || tr->t1 > t1)
			t1 = tr->t1;
		any = 1;
	}
	if (!any) {
		fprintf(err, "error: no valid packet in the trace%s\n",
			ndirs == 1 ? "" : "s");
		ret = -EINVAL;
		goto out;
	}
	if (opts->have_to)
		t1 = window_ns(opts->to, t0) < t1 ? window_ns(opts->to, t0) : t1;
	if (opts->have_from && window_ns(opts->from, t0) > t0)
		t0 = window_ns(opts->from, t0);
	if (t1 <= t0) {
		fprintf(err, "error: the window holds no time of the trace%s\n",
			ndirs == 1 ? "" : "s");
		ret = -EINVAL;
		goto out;
	}

	st->traces = ndirs;
	st->host_time = host;
	st->t0 = t0;
	st->t1 = t1;
	cv.out = out;
	cv.t0 = t0;
	cv.t1 = t1;
	cv.left = LEFT;
	cv.scale = (double)opts->width / (double)(t1 - t0);
	cv.st = st;
	height = TOP + ndirs * TRACE_HDR + st->lanes * LANE_H + BOTTOM;

	if (opts->html)
		fputs(html_head, out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"tl\" "
		"class=\"%s\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u "
		"%.0f\" font-family=\"DejaVu Sans Mono,monospace\" "
		"font-size=\"10\" data-t0=\"%lld\" data-t1=\"%lld\" "
		"data-lanes=\"%u\" data-host=\"%d\">\n",
		opts->latency ? "" : "nolat", LEFT + opts->width + RIGHT,
		height, LEFT + opts->width + RIGHT, height, (long long)t0,
		(long long)t1, st->lanes, host);
	fputs("<style>.lane{fill:#f3f3f3}.lane.odd{fill:#e8e8e8}"
	      ".axis line{stroke:#c8c8c8;stroke-width:1}"
	      ".n{pointer-events:none;fill:#111}.h{font-size:13px;"
	      "font-weight:bold}.t{font-size:11px;fill:#333;paint-order:stroke;"
	      "stroke:#fff;stroke-width:3px}"
	      ".nolat .w{display:none}.s:hover,.i:hover,.q:hover,.w:hover,"
	      ".x:hover,.hp:hover,.hw:hover,.hh:hover{stroke:#000;stroke-width:1}"
	      "</style>\n", out);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	title(&cv, ndirs, host);

	/* lane backgrounds and labels first: the axis' lines go over them */
	y = TOP;
	for (i = 0; i < ndirs; i++) {
		struct tl_trace *tr = &trs[i];
		unsigned int k;

		fprintf(out, "<text class=\"t\" x=\"8\" y=\"%.1f\" "
			"data-trace=\"%u\" data-start=\"%lld\" "
			"data-end=\"%lld\">", y + 15, i, (long long)tr->t0,
			(long long)tr->t1);
		gr_tl_escape(out, tr->dir, strlen(tr->dir));
		fputs(": guest ", out);
		gr_tl_escape(out, tr->nodename, sizeof(tr->nodename));
		fputs(" (Linux ", out);
		gr_tl_escape(out, tr->release, sizeof(tr->release));
		fprintf(out, "), %u CPU%s%s%s</text>\n", tr->guest_cpus,
			tr->guest_cpus == 1 ? "" : "s",
			tr->global ? " sharing one ring (events do not say "
			"their CPU: no task slices)" : "",
			tr->synced ? "" : ", clock not synchronized");
		y += TRACE_HDR;
		for (k = 0; k < tr->nr_cpus; k++) {
			fprintf(out, "<rect class=\"lane%s\" data-l=\"%u\" "
				"data-trace=\"%u\" data-cpu=\"%u\" x=\"%d\" "
				"y=\"%.1f\" width=\"%u\" height=\"%d\"/>"
				"<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
				(lane + k) % 2 ? " odd" : "", lane + k, i, k, LEFT,
				y + k * LANE_H, opts->width, LANE_H - 1,
				LEFT - 8, y + k * LANE_H + 19);
			if (tr->global)
				fputs("all CPUs</text>\n", out);
			else
				fprintf(out, "CPU %u</text>\n", k);
		}
		y += tr->nr_cpus * LANE_H;
		lane += tr->nr_cpus;
	}
	axis(&cv, height);

	y = TOP;
	lane = 0;
	for (i = 0; i < ndirs; i++) {
		y += TRACE_HDR;
		if (trs[i].any) {
			ret = draw_trace(&cv, &trs[i], lane, y, host,
					 opts->latency || opts->html, err);
			if (ret)
				goto out;
			st->host_streams += draw_host(&cv, &trs[i], lane, y,
						      host, err);
		}
		y += trs[i].nr_cpus * LANE_H;
		lane += trs[i].nr_cpus;
	}
	legend(&cv, height - BOTTOM + 12, opts->latency || opts->html,
	       st->host_streams > 0);
	fputs("</svg>\n", out);
	if (opts->html)
		fputs(html_tail, out);
	if (fflush(out) || ferror(out)) {
		ret = -EIO;
		fprintf(err, "error: writing the picture: %s\n", strerror(EIO));
		goto out;
	}
	ret = st->damaged > INT32_MAX ? INT32_MAX : (int)st->damaged;
out:
	free(trs);
	return ret;
}
