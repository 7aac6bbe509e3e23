/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timeline.h - `guestrelay timeline`: stored traces as a picture
 *
 * One lane per guest CPU per trace on one time axis: the running task as
 * slices coloured by tid, IRQ and softirq marks under them, optionally the
 * wakeup-to-run latency above them, and red marks where events were lost
 * or the trace is damaged. Where a trace has a host stream (<session>/host,
 * hosttrace.c), each guest CPU's lane is shaded where its vCPU thread
 * was off its host CPU: preempted (runnable, the host ran another task)
 * apart from halted (sleeping). Written as SVG, or as HTML that holds the same
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
	unsigned int host_streams;	/* traces with a host stream drawn */
	uint64_t off_marks;	/* vCPU preempted / halted marks drawn */
	uint64_t damaged;	/* damaged spots in the traces */
};

/* the drawing of one lane (tl_lane.c) */
#include "tl_lane.h"

int gr_timeline(char *const *dirs, unsigned int ndirs, FILE *out,
		const struct gr_tl_opts *opts, struct gr_tl_stats *st,
		FILE *err);

#endif /* GR_TIMELINE_H */
