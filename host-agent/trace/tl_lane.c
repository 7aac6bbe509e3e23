// SPDX-License-Identifier: GPL-2.0
/*
 * tl_lane.c - drawing one lane of `guestrelay timeline` (see tl_lane.h):
 * the running task's slices, sub-pixel slices merged, IRQ, softirq,
 * latency and loss marks, one per pixel column. Pure: SVG text out, no
 * trace read here (timeline.c reads the traces and calls these).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "timeline.h"
#include "tl_lane.h"

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* --- pure parts: colour, escaping, slices -------------------------------- */

/**
 * gr_tl_colour() - the colour of a task
 * @tid: the task
 *
 * A fixed function of @tid: a hue from a hash of it, light enough for
 * black text. The same tid has the same colour in every picture.
 *
 * Return: 0xRRGGBB.
 */
uint32_t gr_tl_colour(uint32_t tid)
{
	uint32_t h = tid * 0x9e3779b1U, hue, seg, rgb[3], i;
	double s, l, c, x, m, v[3], hh;

	h ^= h >> 15;
	h *= 0x85ebca6bU;
	h ^= h >> 13;
	hue = h % 360U;
	s = 0.50 + 0.10 * (double)((h >> 9) & 3U);
	l = 0.60 + 0.05 * (double)((h >> 11) & 3U);
	if (hue >= 200 && hue < 300)	/* blues look darker: lighten them */
		l += 0.08;
	c = (1.0 - (2.0 * l > 1.0 ? 2.0 * l - 1.0 : 1.0 - 2.0 * l)) * s;
	seg = hue / 60U;
	hh = (double)(hue % 120U) / 60.0;	/* hue / 60 modulo 2 */
	x = c * (1.0 - (hh > 1.0 ? hh - 1.0 : 1.0 - hh));
	m = l - c / 2.0;
	v[0] = v[1] = v[2] = 0;
	switch (seg) {
	case 0: v[0] = c; v[1] = x; break;
	case 1: v[0] = x; v[1] = c; break;
	case 2: v[1] = c; v[2] = x; break;
	case 3: v[1] = x; v[2] = c; break;
	case 4: v[0] = x; v[2] = c; break;
	default: v[0] = c; v[2] = x; break;
	}
	for (i = 0; i < 3; i++)
		rgb[i] = (uint32_t)((v[i] + m) * 255.0 + 0.5);
	return rgb[0] << 16 | rgb[1] << 8 | rgb[2];
}

/**
 * gr_tl_escape() - write guest text as XML character data or attribute
 * @out: where
 * @text: the bytes, any values; ends at @len or at a NUL
 * @len: at most this many bytes
 *
 * '&', '<', '>', '"' and '\'' become entities; '\\' becomes "\\\\", and
 * control characters and bytes >= 0x7f become "\\xNN": the output is
 * printable ASCII, so neither invalid UTF-8 nor markup can come through.
 */
void gr_tl_escape(FILE *out, const void *text, size_t len)
{
	const uint8_t *p = text;
	size_t i;

	for (i = 0; i < len && p[i]; i++) {
		switch (p[i]) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		case '\\': fputs("\\\\", out); break;
		default:
			if (p[i] < 0x20 || p[i] > 0x7e)
				fprintf(out, "\\x%02x", p[i]);
			else
				fputc(p[i], out);
		}
	}
}

void gr_tl_fmt_dur(char *buf, size_t len, int64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lld ns", (long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < NSEC_PER_SEC)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
}

double gr_tl_x(const struct gr_tl_canvas *cv, int64_t t)
{
	return cv->left + (double)(t - cv->t0) * cv->scale;
}

/* "+SECONDS" of @t on the axis, for titles */
static void fmt_at(char *buf, size_t len, const struct gr_tl_canvas *cv,
		   int64_t t)
{
	snprintf(buf, len, "+%.6f s", (double)(t - cv->t0) / 1e9);
}

static void loss_flush(struct gr_tl_canvas *cv, struct gr_tl_lane *l);

/**
 * gr_tl_lane_init() - a lane with no task known yet
 * @l: the lane
 * @index: its number (data-l), from 0
 * @y: its top
 * @lo: from when it may draw (the later of its trace's start and the axis)
 * @hi: until when
 *
 * The first slice starts at @lo; set @l->start to the trace's start if
 * that is earlier.
 */
void gr_tl_lane_init(struct gr_tl_lane *l, unsigned int index, double y,
		     int64_t lo, int64_t hi)
{
	memset(l, 0, sizeof(*l));
	l->index = index;
	l->y = y;
	l->lo = lo;
	l->hi = hi;
	l->start = lo;
	l->irq_px = l->sirq_px = l->lat_px = l->loss_px = -1;
	l->irq_t = l->sirq_t = -1;
}

static void rect_open(struct gr_tl_canvas *cv, const char *cls,
		      const struct gr_tl_lane *l, double x, double y,
		      double w, double h, uint32_t fill)
{
	fprintf(cv->out, "<rect class=\"%s\" data-l=\"%u\" x=\"%.2f\" "
		"y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"#%06x\">",
		cls, l->index, x, y, w, h, fill);
}

/* the name of a task, where it fits */
static void label(struct gr_tl_canvas *cv, const struct gr_tl_lane *l,
		  double x, double w, const char *comm, unsigned int clen)
{
	size_t fit = w > 4 ? (size_t)((w - 4) / CHAR_W) : 0;

	if (fit < 3 || !clen)
		return;
	fprintf(cv->out, "<text class=\"n\" x=\"%.2f\" y=\"%.1f\">", x + 2,
		l->y + 18);
	gr_tl_escape(cv->out, comm, clen < fit ? clen : fit);
	fputs("</text>\n", cv->out);
}

/**
 * gr_tl_flush() - draw the lane's pending run of sub-pixel slices
 * @cv: the canvas
 * @l: the lane
 *
 * One rectangle over their extent (at least one pixel wide) in the colour
 * of the task of the longest of them, paler the more idle time the
 * extent holds; data-d holds the exact sum of their time.
 */
void gr_tl_flush(struct gr_tl_canvas *cv, struct gr_tl_lane *l)
{
	double w, fill;
	char d[32];

	if (!l->pend)
		return;
	l->pend = 0;
	w = l->px1 - l->px0 < 1.0 ? 1.0 : l->px1 - l->px0;
	fill = (double)l->pbusy * cv->scale / w;
	fill = fill < 0.35 ? 0.35 : fill > 1.0 ? 1.0 : fill;
	gr_tl_fmt_dur(d, sizeof(d), l->pbusy);
	fprintf(cv->out, "<rect class=\"s m\" data-l=\"%u\" data-d=\"%lld\" "
		"x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"16\" "
		"fill=\"#%06x\" fill-opacity=\"%.2f\"><title>", l->index,
		(long long)l->pbusy, l->px0, l->y + 6, w,
		gr_tl_colour(l->ptid), fill);
	if (l->pmixed) {
		fprintf(cv->out, "%llu slices of several tasks, %s busy; the "
			"longest: ", (unsigned long long)l->pn, d);
		gr_tl_escape(cv->out, l->pcomm, l->pclen);
		fprintf(cv->out, " (tid %u)", l->ptid);
	} else {
		gr_tl_escape(cv->out, l->pcomm, l->pclen);
		fprintf(cv->out, " (tid %u): %llu slice%s, %s", l->ptid,
			(unsigned long long)l->pn, l->pn == 1 ? "" : "s", d);
	}
	fputs("</title></rect>\n", cv->out);
	cv->st->rects++;
	cv->st->merged++;
}

/**
 * gr_tl_slice() - task @tid ran on the lane's CPU from @a to @b (ns)
 * @cv: the canvas
 * @l: the lane
 * @a: start
 * @b: end
 * @tid: the task; 0 (idle) is not drawn
 * @comm: its name (any bytes; @clen of them)
 * @clen: length of @comm
 *
 * Clipped to the lane's range. A slice of a pixel or more is drawn at
 * once (with its name if it fits); narrower ones are merged with the
 * lane's pending run while they start within its first pixel, so a lane
 * never has more than about two rectangles per pixel.
 */
void gr_tl_slice(struct gr_tl_canvas *cv, struct gr_tl_lane *l, int64_t a,
		 int64_t b, uint32_t tid, const void *comm, size_t clen)
{
	char d[32], s[32];
	double x0, x1;

	if (a < l->lo)
		a = l->lo;
	if (b > l->hi)
		b = l->hi;
	if (b <= a)
		return;
	cv->st->slices++;
	if (!tid)
		return;
	if (clen > sizeof(l->pcomm))
		clen = sizeof(l->pcomm);
	l->busy += b - a;
	x0 = gr_tl_x(cv, a);
	x1 = gr_tl_x(cv, b);
	if (x1 - x0 >= 1.0) {
		gr_tl_flush(cv, l);
		gr_tl_fmt_dur(d, sizeof(d), b - a);
		fmt_at(s, sizeof(s), cv, a);
		fprintf(cv->out, "<rect class=\"s\" data-l=\"%u\" "
			"data-d=\"%lld\" x=\"%.2f\" y=\"%.1f\" "
			"width=\"%.2f\" height=\"16\" fill=\"#%06x\"><title>",
			l->index, (long long)(b - a), x0, l->y + 6, x1 - x0,
			gr_tl_colour(tid));
		gr_tl_escape(cv->out, comm, clen);
		fprintf(cv->out, " (tid %u) at %s for %s</title></rect>\n",
			tid, s, d);
		label(cv, l, x0, x1 - x0, comm, (unsigned int)clen);
		cv->st->rects++;
		return;
	}
	if (l->pend && x0 < l->px0 + 1.0) {
		l->px1 = x1;
		l->pbusy += b - a;
		l->pn++;
		if (tid != l->ptid)
			l->pmixed = 1;
		if (b - a > l->plong) {
			l->plong = b - a;
			l->ptid = tid;
			memcpy(l->pcomm, comm, clen);
			l->pclen = (unsigned int)clen;
		}
		return;
	}
	gr_tl_flush(cv, l);
	l->pend = 1;
	l->px0 = x0;
	l->px1 = x1;
	l->pbusy = b - a;
	l->plong = b - a;
	l->pn = 1;
	l->ptid = tid;
	l->pmixed = 0;
	memcpy(l->pcomm, comm, clen);
	l->pclen = (unsigned int)clen;
}

static void set_task(struct gr_tl_lane *l, uint32_t tid, const void *comm,
		     size_t len)
{
	if (len > sizeof(l->comm))
		len = sizeof(l->comm);
	l->known = 1;
	l->tid = tid;
	memcpy(l->comm, comm, len);
	l->clen = (unsigned int)len;
}

/**
 * gr_tl_switch() - a sched_switch at @t on the lane's CPU
 * @cv: the canvas
 * @l: the lane
 * @t: when (ns)
 * @prev_tid: the task that ran until @t, since the lane's last switch
 * @prev_comm: its name (@prev_len bytes)
 * @prev_len: length of @prev_comm
 * @next_tid: the task that runs from @t
 * @next_comm: its name (@next_len bytes)
 * @next_len: length of @next_comm
 *
 * The slice is the prev task's as the event names it, even if events
 * were lost since the last switch and the lane believed another task ran.
 */
void gr_tl_switch(struct gr_tl_canvas *cv, struct gr_tl_lane *l, int64_t t,
		  uint32_t prev_tid, const void *prev_comm, size_t prev_len,
		  uint32_t next_tid, const void *next_comm, size_t next_len)
{
	gr_tl_slice(cv, l, l->start, t, prev_tid, prev_comm, prev_len);
	/*
	 * Even when time went back (a damaged trace, marked red): one wild
	 * timestamp must not swallow the rest of the lane.
	 */
	l->start = t;
	set_task(l, next_tid, next_comm, next_len);
}

/* gr_tl_lane_end() - the trace ended: the last task ran until the end */
void gr_tl_lane_end(struct gr_tl_canvas *cv, struct gr_tl_lane *l)
{
	if (l->known)
		gr_tl_slice(cv, l, l->start, l->hi, l->tid, l->comm, l->clen);
	gr_tl_flush(cv, l);
	loss_flush(cv, l);
}

/* --- marks ------------------------------------------------------------- */

/* clip [a, b] to the lane; 0 if nothing is left */
static int clip(const struct gr_tl_lane *l, int64_t *a, int64_t *b)
{
	if (*a < l->lo)
		*a = l->lo;
	if (*b > l->hi)
		*b = l->hi;
	return *b >= *a;
}

/*
 * Where a mark from @a to @b goes: clipped to the lane, in x; 0 if it is
 * outside the lane or if the lane's last mark of its kind (*@last) is in
 * the same pixel column (of @x0, or of @x1 with @by_end): one mark per
 * pixel column and kind.
 */
static int mark_place(const struct gr_tl_canvas *cv,
		      const struct gr_tl_lane *l, int64_t a, int64_t b,
		      long *last, int by_end, double *x0, double *x1)
{
	long px;

	if (!clip(l, &a, &b))
		return 0;
	*x0 = gr_tl_x(cv, a);
	*x1 = gr_tl_x(cv, b);
	px = (long)(by_end ? *x1 : *x0);
	if (px == *last)
		return 0;
	*last = px;
	return 1;
}

/* an IRQ (@soft 0) or softirq mark from @a to @b */
void gr_tl_irq_mark(struct gr_tl_canvas *cv, struct gr_tl_lane *l, int soft,
		     int64_t a, int64_t b)
{
	double x0, x1;
	char d[32], s[32];

	if (!mark_place(cv, l, a, b, soft ? &l->sirq_px : &l->irq_px, 0, &x0,
			&x1))
		return;
	rect_open(cv, soft ? "q" : "i", l, x0, l->y + (soft ? 27 : 23),
		  x1 - x0 < 1.0 ? 1.0 : x1 - x0, soft ? 3 : 4,
		  soft ? 0x7a3cc8U : 0xe06000U);
	gr_tl_fmt_dur(d, sizeof(d), b - a);
	fmt_at(s, sizeof(s), cv, a);
	if (soft) {
		fputs("<title>softirq ", cv->out);
		if (l->sirq_vec >= 0 &&
		    l->sirq_vec < (int64_t)(sizeof(softirq_names) /
					    sizeof(softirq_names[0])))
			fputs(softirq_names[l->sirq_vec], cv->out);
		else
			fprintf(cv->out, "%lld", (long long)l->sirq_vec);
	} else {
		fprintf(cv->out, "<title>irq %lld ", (long long)l->irq_no);
		gr_tl_escape(cv->out, l->irq_name, l->irq_nlen);
	}
	fprintf(cv->out, " at %s for %s</title></rect>\n", s, d);
	cv->st->irq_marks++;
}

/* wakeup-to-run latency of a task woken at @a that runs at @b */
void gr_tl_lat_mark(struct gr_tl_canvas *cv, struct gr_tl_lane *l,
		     int64_t a, int64_t b, uint32_t tid, const void *comm,
		     size_t clen)
{
	double x0, x1;
	char d[32];

	if (!mark_place(cv, l, a, b, &l->lat_px, 1, &x0, &x1))
		return;
	rect_open(cv, "w", l, x0, l->y + 1, x1 - x0 < 1.0 ? 1.0 : x1 - x0, 4,
		  0xc99700U);
	gr_tl_fmt_dur(d, sizeof(d), b - a);
	fputs("<title>wakeup to run: ", cv->out);
	gr_tl_escape(cv->out, comm, clen);
	fprintf(cv->out, " (tid %u) waited %s</title></rect>\n", tid, d);
	cv->st->lat_marks++;
}

/* draw the lane's pending loss mark */
static void loss_flush(struct gr_tl_canvas *cv, struct gr_tl_lane *l)
{
	if (!l->lpend)
		return;
	l->lpend = 0;
	rect_open(cv, "x", l, l->lx - 1, l->y, 2, LANE_H - 1, 0xe00000U);
	fputs("<title>", cv->out);
	gr_tl_escape(cv->out, l->ltext, strlen(l->ltext));
	if (l->lmore)
		fprintf(cv->out, "; and %u more", l->lmore);
	fputs("</title></rect>\n", cv->out);
	cv->st->loss_marks++;
}

/*
 * A loss or damaged spot: a red bar over the lane. Notes in one pixel
 * column share one bar, whose title tells the first two.
 */
void gr_tl_loss_mark(struct gr_tl_canvas *cv, struct gr_tl_lane *l,
		      int64_t t, const char *what)
{
	size_t n;
	double x;
	long px;

	if (t < l->lo)
		t = l->lo;
	if (t > l->hi)
		return;
	x = gr_tl_x(cv, t);
	px = (long)x;
	if (l->lpend && px == l->loss_px) {
		n = strlen(l->ltext);
		if (!l->ltwo && n + 2 < sizeof(l->ltext)) {
			snprintf(l->ltext + n, sizeof(l->ltext) - n, "; %s",
				 what);
			l->ltwo = 1;
		} else {
			l->lmore++;
		}
		return;
	}
	loss_flush(cv, l);
	l->loss_px = px;
	l->lpend = 1;
	l->lx = x;
	l->ltwo = 0;
	l->lmore = 0;
	snprintf(l->ltext, sizeof(l->ltext), "%s", what);
}

/**
 * gr_tl_off_flush() - draw a vCPU's pending interval(s) off its host CPU
 * @cv: the canvas
 * @o: the vCPU's state over its lane
 *
 * A translucent rectangle over the lane, at least a pixel wide: data-ns
 * holds the exact time of the intervals it stands for (cut to the axis),
 * data-n their number, data-a and data-b its extent in axis ns.
 */
void gr_tl_off_flush(struct gr_tl_canvas *cv, struct gr_tl_off *o)
{
	static const struct {
		const char *cls, *kind, *opacity, *text;
		uint32_t fill;
	} k[] = {
		[GR_TL_PREEMPTED] = { "hp", "preempted", "0.32",
				      "preempted on the host", 0xb00020 },
		[GR_TL_HALTED] = { "hh", "halted", "0.16",
				   "halted (sleeping on the host)", 0x4a6a8a },
		[GR_TL_WOKEN] = { "hw", "woken", "0.32",
				  "woken, waiting for its host CPU", 0xe06000 },
	};
	const int pre = o->kind == GR_TL_PREEMPTED;
	char d[32], lg[32], at[32];

	if (!o->pend || o->kind < GR_TL_PREEMPTED || o->kind > GR_TL_WOKEN)
		return;
	o->pend = 0;
	fprintf(cv->out, "<rect class=\"%s\" data-l=\"%u\" data-vcpu=\"%d\" "
		"data-kind=\"%s\" data-a=\"%lld\" data-b=\"%lld\" "
		"data-ns=\"%lld\" data-n=\"%llu\" x=\"%.2f\" y=\"%.1f\" "
		"width=\"%.2f\" height=\"%d\" fill=\"#%06x\" "
		"fill-opacity=\"%s\">", k[o->kind].cls, o->index, o->vcpu,
		k[o->kind].kind, (long long)o->a, (long long)o->b,
		(long long)o->ns, (unsigned long long)o->n, o->x0, o->y + 1,
		o->x1 - o->x0 < 1.0 ? 1.0 : o->x1 - o->x0, LANE_H - 3,
		k[o->kind].fill, k[o->kind].opacity);
	gr_tl_fmt_dur(d, sizeof(d), o->ns);
	gr_tl_fmt_dur(lg, sizeof(lg), o->longest);
	fmt_at(at, sizeof(at), cv, o->a);
	fprintf(cv->out, "<title>vCPU %d (host thread %d) %s at %s: %s", o->vcpu,
		o->tid, k[o->kind].text, at, d);
	if (o->n > 1)
		fprintf(cv->out, " in %llu intervals, the longest %s",
			(unsigned long long)o->n, lg);
	if (pre) {
		fprintf(cv->out, " on host CPU %d, ", o->cpu);
		gr_tl_escape(cv->out, o->by, strnlen(o->by, sizeof(o->by)));
		fputs(" switched in", cv->out);
	}
	fputs("</title></rect>\n", cv->out);
	cv->st->off_marks++;
}

/**
 * gr_tl_off_mark() - a vCPU thread was off its host CPU from @a to @b
 * @cv: the canvas
 * @o: the vCPU's state over its lane
 * @kind: GR_TL_PREEMPTED, GR_TL_HALTED or GR_TL_WOKEN
 * @a: from when, axis ns
 * @b: until when
 * @cpu: the host CPU it left
 * @by: the task switched in instead (NUL-terminated, from the host stream)
 *
 * Merged into the pending mark of the same kind when it starts less than
 * a pixel after that one's end, else drawn apart: the picture's size is
 * bounded by its width, whatever the number of intervals.
 */
void gr_tl_off_mark(struct gr_tl_canvas *cv, struct gr_tl_off *o, int kind,
		    int64_t a, int64_t b, int cpu, const char *by)
{
	double x0, x1;

	if (a < cv->t0)
		a = cv->t0;
	if (b > cv->t1)
		b = cv->t1;
	if (b <= a)
		return;
	x0 = gr_tl_x(cv, a);
	x1 = gr_tl_x(cv, b);
	if (!o->pend || o->kind != kind || x0 - o->x1 >= 1.0) {
		gr_tl_off_flush(cv, o);
		o->pend = 1;
		o->kind = kind;
		o->x0 = x0;
		o->a = a;
		o->ns = 0;
		o->n = 0;
		o->longest = -1;
	}
	o->x1 = x1;
	o->b = b;
	o->ns += b - a;
	o->n++;
	if (b - a > o->longest) {
		o->longest = b - a;
		o->cpu = cpu;
		snprintf(o->by, sizeof(o->by), "%s", by);
	}
}
