/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tl_lane.h - one lane of the timeline picture (one CPU of one trace,
 * LANE_H pixels high) and how it is drawn: slices of the running task,
 * IRQ, softirq, latency and loss marks
 */
#ifndef GR_TL_LANE_H
#define GR_TL_LANE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gr_tl_stats;

#define CHAR_W		6.1	/* of the 10-pixel monospace font */
#define LANE_H		32

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

/*
 * a vCPU thread's intervals off its host CPU (the VM's host stream),
 * drawn over the lane of the guest CPU it runs; those closer than a
 * pixel to the last one of their kind are merged into it
 */
struct gr_tl_off {
	unsigned int index;	/* data-l of the lane */
	double y;		/* its top */
	int vcpu, tid;
	int pend, kind;		/* GR_TL_PREEMPTED, ... */
	double x0, x1;
	int64_t a, b;		/* the merged extent, axis ns */
	int64_t ns, longest;
	uint64_t n;
	int cpu;		/* the longest's host CPU */
	char by[17];		/* and the task that ran instead */
};

/* preempted; halted (sleeping); woken, waiting for its CPU */
enum { GR_TL_PREEMPTED = 1, GR_TL_HALTED, GR_TL_WOKEN };

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

void gr_tl_fmt_dur(char *buf, size_t len, int64_t ns);
double gr_tl_x(const struct gr_tl_canvas *cv, int64_t t);
void gr_tl_irq_mark(struct gr_tl_canvas *cv, struct gr_tl_lane *l, int soft,
		    int64_t a, int64_t b);
void gr_tl_lat_mark(struct gr_tl_canvas *cv, struct gr_tl_lane *l,
		    int64_t a, int64_t b, uint32_t tid, const void *comm,
		    size_t clen);
void gr_tl_loss_mark(struct gr_tl_canvas *cv, struct gr_tl_lane *l,
		     int64_t t, const char *what);
void gr_tl_off_mark(struct gr_tl_canvas *cv, struct gr_tl_off *o, int kind,
		    int64_t a, int64_t b, int cpu, const char *by);
void gr_tl_off_flush(struct gr_tl_canvas *cv, struct gr_tl_off *o);

#endif /* GR_TL_LANE_H */
