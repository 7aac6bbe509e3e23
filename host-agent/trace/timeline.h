/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeline.h - `guestrelay timeline`: stored traces as a picture
 *
 * One lane per guest CPU per trace on one time axis: the running task as
 * slices coloured by tid, IRQ and softirq marks under them, optionally the
 * wakeup-to-run latency above them, and red marks where events were lost
 * or the trace is damaged. Written as SVG, or as HTML that holds the same
 * SVG and a few lines of inline script (hover details, latency toggle).
 * Nothing is fetched from anywhere: the file stands alone.
 *
 * The events are read once, in time order (reader.h), and drawn as they
 * come: memory is per-lane state, and the output is bounded by the width
 * in pixels times the lanes, whatever the number of events (slices
 * narrower than a pixel are merged, marks are kept one per pixel).
 */
#ifndef GR_TIMELINE_H
#define GR_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#define GR_TL_WIDTH_DEFAULT	1600
#define GR_TL_WIDTH_MIN		200
#define GR_TL_WIDTH_MAX		100000
#define GR_TL_MAX_TRACES	64

/**
 * struct gr_tl_opts - what gr_timeline() draws
 * @html: write HTML (the SVG, a legend, hover details, a latency toggle)
 *	instead of a bare SVG
 * @width: pixels of the time axis
 * @latency: draw wakeup-to-run latency (in HTML: shown at first; the
 *	toggle always works)
 * @have_from, @from: cut the axis from this time: seconds after the start
 *	of the earliest trace, or, if >= GR_TL_ABSOLUTE, seconds of the axis'
 *	clock itself (host CLOCK_REALTIME when the traces' clocks are
 *	synchronized)
 * @have_to, @to: cut the axis at this time (the same two forms)
 */
struct gr_tl_opts {
	int html;
	unsigned int width;
	int latency;
	int have_from, have_to;
	double from, to;
};

#define GR_TL_ABSOLUTE	1e9	/* 2001-09-09: smaller values are relative */

/**
 * struct gr_tl_stats - what gr_timeline() drew
 */
struct gr_tl_stats {
	unsigned int traces;
	unsigned int lanes;
	int host_time;		/* 1: the axis is host time */
	int64_t t0, t1;		/* the axis, ns */
	uint64_t events;	/* events read */
	uint64_t switches;	/* sched_switch events used */
	uint64_t slices;	/* task slices seen in the window */
	uint64_t rects;		/* slice rectangles drawn */
	uint64_t merged;	/* of them: merged from slices < 1 pixel */
	uint64_t irq_marks, lat_marks, loss_marks;
	uint64_t damaged;	/* damaged spots in the traces */
};

/*
 * A lane's drawing state; exposed for the unit tests of the slice
 * builder. gr_timeline() keeps one per CPU of the trace it reads.
 */
struct gr_tl_canvas {
	FILE *out;
	int64_t t0, t1;		/* the axis */
	double left;		/* x of t0 */
	double scale;		/* pixels per ns */
	struct gr_tl_stats *st;
};

struct gr_tl_lane {
	unsigned int index;	/* data-l: lanes numbered from 0 */
	double y;		/* top of the lane */
	int64_t lo, hi;		/* what the lane may show (trace and axis) */
	/* the running task */
	int64_t start;		/* since when */
	int known;		/* a sched_switch said who runs */
	uint32_t tid;
	char comm[16];
	unsigned int clen;
	/* slices narrower than a pixel, merged */
	int pend;
	double px0, px1;	/* its extent, x */
	int64_t pbusy;		/* ns of tasks in it */
	int64_t plong;		/* its longest slice, ns */
	uint32_t ptid;		/* that slice's task */
	char pcomm[16];
	unsigned int pclen;
	int pmixed;
	uint64_t pn;		/* slices in it */
	/* marks: one per pixel column */
	long irq_px, sirq_px, lat_px, loss_px;
	int64_t irq_t, sirq_t;	/* entry time; -1: none open */
	int64_t irq_no, sirq_vec;
	char irq_name[24];
	unsigned int irq_nlen;
	int64_t busy;		/* ns of tasks drawn, for the stats */
	/* a loss mark waiting for the end of its pixel column */
	int lpend, ltwo;
	unsigned int lmore;
	double lx;
	char ltext[2 * 200 + 4];
};

uint32_t gr_tl_colour(uint32_t tid);
void gr_tl_escape(FILE *out, const void *text, size_t len);
void gr_tl_lane_init(struct gr_tl_lane *l, unsigned int index, double y,
		     int64_t lo, int64_t hi);
void gr_tl_slice(struct gr_tl_canvas *cv, struct gr_tl_lane *l, int64_t a,
		 int64_t b, uint32_t tid, const void *comm, size_t clen);
void gr_tl_flush(struct gr_tl_canvas *cv, struct gr_tl_lane *l);
void gr_tl_switch(struct gr_tl_canvas *cv, struct gr_tl_lane *l, int64_t t,
		  uint32_t prev_tid, const void *prev_comm, size_t prev_len,
		  uint32_t next_tid, const void *next_comm, size_t next_len);
void gr_tl_lane_end(struct gr_tl_canvas *cv, struct gr_tl_lane *l);

int gr_timeline(char *const *dirs, unsigned int ndirs, FILE *out,
		const struct gr_tl_opts *opts, struct gr_tl_stats *st,
		FILE *err);

#endif /* GR_TIMELINE_H */
