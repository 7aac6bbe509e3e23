// SPDX-License-Identifier: GPL-2.0
/*
 * report_host.c - `guestrelay report --host`: a session's guest trace and
 * its host stream (hoststream.h) as one listing, on one clock: host
 * CLOCK_MONOTONIC, the host stream's own
 *
 * Two readers (reader.c), each merging its own stream files by time, and
 * a merge of their two heads: memory is one packet per stream file of
 * either trace, whatever their size. A host event is printed at its own
 * time. A guest event goes through the clock mapping of the guest's
 * .guestrelay (host CLOCK_REALTIME, as report --host-time prints it),
 * less the realtime - monotonic offset the agent made the mapping with
 * (gr_ctf_clock.mono_to_real), so that no step of the host's wall clock
 * comes between the two; a trace stored before the agent kept that
 * offset uses the host stream's own. The mapping is an offset only; its
 * bound is what the agent measured by checking it against every clock
 * sync series (hostctl.c): checked_ns over the samples' span, drift_ppb
 * beyond it.
 *
 * A host event names the vCPU its thread runs when the thread is one of
 * QEMU's vCPU threads (steal.c's rule: the name "CPU <n>/<accel>", and
 * one of the threads the state dumps list once there is one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "hoststream.h"
#include "reader.h"
#include "report.h"
#include "report_int.h"
#include "steal.h"

#define HR_NO_VCPU	(-2)		/* not a vCPU thread */
#define HR_VCPUS	64		/* vCPUs counted by --summary */

/* the two traces and what is printed of them */
struct hr {
	struct gr_reader g;		/* the guest's trace */
	struct gr_reader h;		/* its host stream */
	uint8_t sel[2][GR_WIDE_MAX_EVENTS];	/* --events: guest, host */
	const struct gr_report_opts *opts;
	struct gr_steal *threads;	/* QEMU's threads, from state dumps */
	int64_t mono_to_real;		/* guest's host time - this: mono */
	int summary;

	/* counted */
	uint64_t guest_events, host_events, vcpu_events, notes;
	uint64_t outside;		/* guest events beyond the span */
	uint64_t outside_ns;		/* the farthest of them from it */
	uint64_t per_vcpu[HR_VCPUS];
	__int128 first, last;
	int any;
};

/* host CLOCK_MONOTONIC ns of guest clock value @ts */
static __int128 guest_ns(const struct hr *x, uint64_t ts)
{
	return gr_time_ns(x->g.info, ts, 1) - x->mono_to_real;
}

static __int128 host_ns(const struct hr *x, uint64_t ts)
{
	return gr_time_ns(x->h.info, ts, 0);
}

/* ns from guest clock value @ts to the checked span; 0 inside it */
static uint64_t outside_span(const struct gr_ctf_info *info, uint64_t ts)
{
	const struct gr_ctf_clock *c = &info->clock;
	uint64_t d;

	if (ts < c->span_first)
		d = c->span_first - ts;
	else if (ts > c->span_last)
		d = ts - c->span_last;
	else
		return 0;
	return (uint64_t)((__int128)d * NSEC_PER_SEC / info->view.clock_freq);
}

/* the bound of a guest time @d ns from the checked span, "" if none */
static void bound_at(char *buf, size_t len, const struct gr_ctf_clock *c,
		     uint64_t d)
{
	__int128 b = (__int128)c->drift_ppb * d / NSEC_PER_SEC + c->checked_ns;

	if (c->samples < 2 && d)
		snprintf(buf, len, "no bound derived (one sample: no drift "
			 "measured)");
	else
		snprintf(buf, len, "+-%llu ns", b > (__int128)UINT64_MAX ?
			 (unsigned long long)UINT64_MAX : (unsigned long long)b);
}

static void print_clock(FILE *out, const struct hr *x)
{
	const struct gr_ctf_info *g = x->g.info, *h = x->h.info;
	const struct gr_ctf_clock *c = &g->clock;
	char a[48], b[48], z[48];

	gr_report_fmt_ns(z, sizeof(z), guest_ns(x, 0), 0);
	fprintf(out, "# host stream of %s (Linux %s): %u host CPU%s, clock "
		"%s; one clock: host CLOCK_MONOTONIC, seconds\n",
		h->view.nodename, h->view.kernel_release, h->view.nr_rings,
		h->view.nr_rings == 1 ? "" : "s", h->view.clock_name);
	fprintf(out, "# mapping: host events at their own time; guest events "
		"through the guest clock's mapping to host CLOCK_REALTIME "
		"less %s CLOCK_REALTIME - CLOCK_MONOTONIC (%lld ns): guest "
		"clock 0 = host monotonic %s\n", c->checked ?
		"the agent's" : "the host stream's", (long long)x->mono_to_real,
		z);
	if (!c->checked) {
		fprintf(out, "# bound: not stored with this trace (recorded "
			"before the agent checked its mapping): +-%llu ns at "
			"the sync sample the mapping comes from; other times "
			"and a step of the host's wall clock between that "
			"sample and the host stream's start are not bounded\n",
			(unsigned long long)c->error_ns);
		return;
	}
	gr_report_fmt_ns(a, sizeof(a), guest_ns(x, c->span_first), 0);
	gr_report_fmt_ns(b, sizeof(b), guest_ns(x, c->span_last), 0);
	fprintf(out, "# bound: a guest event is within +-%llu ns of its true "
		"host time for guest times from %s to %s (host monotonic), "
		"the span of %u clock sync sample%s checked against the "
		"mapping (the largest deviation of a sample plus half its "
		"round trip, the guest clock's rate taken as steady between "
		"samples; the mapping's own sample: +-%llu ns)",
		(unsigned long long)c->checked_ns, a, b, c->samples,
		c->samples == 1 ? "" : "s", (unsigned long long)c->error_ns);
	if (c->samples < 2)
		fprintf(out, "; outside it no bound is derived (one sample: "
			"no drift measured)\n");
	else
		fprintf(out, "; outside it add %llu ns per second of distance "
			"from the span (the largest drift between two "
			"consecutive samples)\n",
			(unsigned long long)c->drift_ppb);
}

/* vCPU of the thread @comm_field/@tid_field of the head host event */
static int vcpu_of(const struct hr *x, const struct gr_cursor *c,
		   const char *comm_field, const char *tid_field)
{
	const struct gr_event_view *ev = &x->h.info->events[c->rec.id];
	const uint8_t *p;
	char comm[17];
	uint32_t len;
	int tid, index;

	p = gr_cursor_payload(c, &len);
	gr_event_text(ev, comm_field, p, len, comm, sizeof(comm));
	tid = (int)gr_event_int(ev, tid_field, p, len);
	return gr_steal_is_vcpu(x->threads, comm, tid, &index) ? index :
	       HR_NO_VCPU;
}

/*
 * The vCPUs a host event is about, in @v (HR_NO_VCPU: none), and their
 * names as printed after its fields; a state dump names one of QEMU's
 * threads first. Return: vCPUs found.
 */
static unsigned int host_vcpus(struct hr *x, const struct gr_cursor *c,
			       int v[2], const char *name[2])
{
	const uint8_t *p;
	uint32_t len;

	v[0] = v[1] = HR_NO_VCPU;
	name[0] = "vcpu";
	name[1] = NULL;
	switch (c->rec.id) {
	case GR_HS_SWITCH:
		v[0] = vcpu_of(x, c, "prev_comm", "prev_tid");
		v[1] = vcpu_of(x, c, "next_comm", "next_tid");
		name[0] = "prev_vcpu";
		name[1] = "next_vcpu";
		break;
	case GR_HS_WAKEUP:
	case GR_HS_MIGRATE:
		v[0] = vcpu_of(x, c, "comm", "tid");
		break;
	case GR_HS_STATEDUMP:
		p = gr_cursor_payload(c, &len);
		gr_steal_thread(x->threads,
				(int)gr_event_int(&x->h.info->events[c->rec.id],
						  "tid", p, len));
		v[0] = vcpu_of(x, c, "name", "tid");
		break;
	}
	return (v[0] != HR_NO_VCPU) + (v[1] != HR_NO_VCPU);
}

static void count_vcpu(struct hr *x, int v)
{
	if (v >= 0 && v < HR_VCPUS)
		x->per_vcpu[v]++;
}

static void host_item(FILE *out, struct hr *x, const struct gr_cursor *c,
		      const char *when)
{
	const char *name[2];
	unsigned int i, n;
	int v[2];

	if (c->kind == GR_ITEM_NOTE) {
		x->notes++;
		if (!x->summary)
			fprintf(out, "H        [%03u] %s: ** host stream: %s\n",
				c->cpu, when, c->note);
		return;
	}
	n = host_vcpus(x, c, v, name);
	if (!x->sel[1][c->rec.id] ||
	    (x->opts->cpu >= 0 && v[0] != x->opts->cpu &&
	     v[1] != x->opts->cpu))
		return;
	x->host_events++;
	if (n)
		x->vcpu_events++;
	count_vcpu(x, v[0]);
	if (v[1] != v[0])
		count_vcpu(x, v[1]);
	if (x->summary)
		return;
	gr_report_event(out, &x->h, c, "H ", when);
	for (i = 0; i < 2; i++)
		if (v[i] != HR_NO_VCPU)
			fprintf(out, " %s=%d", name[i], v[i]);
	fputc('\n', out);
}

static void guest_item(FILE *out, struct hr *x, const struct gr_cursor *c,
		       const char *when)
{
	const struct gr_ctf_info *info = x->g.info;
	uint64_t d;

	if (x->opts->cpu >= 0 && (unsigned int)x->opts->cpu != c->cpu &&
	    !(c->kind == GR_ITEM_NOTE && gr_view_is_global(&info->view)))
		return;
	if (c->kind == GR_ITEM_NOTE) {
		x->notes++;
		if (!x->summary)
			fprintf(out, "G        [%03u] %s: ** %s\n", c->cpu, when,
				c->note);
		return;
	}
	if (!x->sel[0][c->rec.id])
		return;
	x->guest_events++;
	d = info->clock.checked ? outside_span(info, c->ts) : 0;
	if (d) {
		x->outside++;
		if (d > x->outside_ns)
			x->outside_ns = d;
	}
	if (x->summary)
		return;
	gr_report_event(out, &x->g, c, "G ", when);
	fputc('\n', out);
}

/* both heads merged by host time: each item once, in time order */
static void merge(FILE *out, struct hr *x)
{
	struct gr_cursor *g, *h;
	__int128 tg = 0, th = 0, t;
	char when[48];

	for (;;) {
		g = gr_reader_merge_head(&x->g);
		h = gr_reader_merge_head(&x->h);
		if (!g && !h)
			break;
		if (g)
			tg = guest_ns(x, g->ts);
		if (h)
			th = host_ns(x, h->ts);
		t = g && (!h || tg <= th) ? tg : th;
		if (!x->any || t < x->first)
			x->first = t;
		if (!x->any || t > x->last)
			x->last = t;
		x->any = 1;
		gr_report_fmt_ns(when, sizeof(when), t, 1);
		if (g && (!h || tg <= th)) {
			guest_item(out, x, g, when);
			gr_reader_merge_next(&x->g);
		} else {
			host_item(out, x, h, when);
			gr_reader_merge_next(&x->h);
		}
	}
}

static void print_summary(FILE *out, const struct hr *x)
{
	char a[48], b[48];
	unsigned int i;

	fprintf(out, "guest events: %llu\nhost events: %llu, %llu of them "
		"of vCPU threads\nlosses and damage (\"**\" lines): %llu\n",
		(unsigned long long)x->guest_events,
		(unsigned long long)x->host_events,
		(unsigned long long)x->vcpu_events,
		(unsigned long long)x->notes);
	for (i = 0; i < HR_VCPUS; i++)
		if (x->per_vcpu[i])
			fprintf(out, "  vCPU %-3u %12llu host events\n", i,
				(unsigned long long)x->per_vcpu[i]);
	if (x->any) {
		gr_report_fmt_ns(a, sizeof(a), x->first, 0);
		gr_report_fmt_ns(b, sizeof(b), x->last, 0);
		fprintf(out, "time span: %s .. %s host monotonic\n", a, b);
	}
}

static void print_outside(FILE *out, const struct hr *x)
{
	const struct gr_ctf_clock *c = &x->g.info->clock;
	char b[96];

	if (!x->outside)
		return;
	bound_at(b, sizeof(b), c, x->outside_ns);
	fprintf(out, "# %llu guest event%s outside the checked span, up to "
		"%llu.%09llu s from it: %s there\n",
		(unsigned long long)x->outside, x->outside == 1 ? "" : "s",
		(unsigned long long)(x->outside_ns / NSEC_PER_SEC),
		(unsigned long long)(x->outside_ns % NSEC_PER_SEC), b);
}

/* both traces open, their clocks checked; the preamble said */
static int hr_open(struct hr *x, const char *dir, FILE *out, FILE *err)
{
	const struct gr_ctf_info *infos[2];
	char path[4096];
	int ret;

	ret = gr_reader_open(&x->g, dir, err, 0);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/" GR_HS_DIR, dir);
	if (access(path, F_OK)) {
		fprintf(err, "error: %s: no host stream (%s/) in this trace: "
			"the agent records one when it may trace the host "
			"scheduler (see `guestrelay steal`)\n", dir, GR_HS_DIR);
		gr_reader_close(&x->g);
		return -ENOENT;
	}
	ret = gr_steal_open(&x->h, path, err);
	if (ret) {
		if (ret == -ENOENT)
			fprintf(err, "error: %s: not a host stream\n", path);
		gr_reader_close(&x->g);
		return ret;
	}
	ret = -EINVAL;
	if (!x->g.info->clock.synced) {
		fprintf(err, "error: %s: the guest's clock was never "
			"synchronized with the host: its events cannot be put "
			"on the host's clock\n", dir);
		goto fail;
	}
	if (!x->g.info->clock.checked && !x->h.info->clock.synced) {
		fprintf(err, "error: %s: the host stream's clock has no "
			"mapping to host wall time\n", path);
		goto fail;
	}
	x->mono_to_real = x->g.info->clock.checked ?
			  x->g.info->clock.mono_to_real :
			  (int64_t)gr_ctf_clock_ns(&x->h.info->clock,
						   NSEC_PER_SEC, 0);
	infos[0] = x->g.info;
	infos[1] = x->h.info;
	ret = gr_report_select(infos, x->sel, 2, x->opts->events, err);
	if (ret)
		goto fail;
	gr_report_preamble(out, &x->g, "host CLOCK_MONOTONIC");
	print_clock(out, x);
	if (!x->summary)
		fprintf(out, "# G: a guest event, [guest CPU]; H: a host "
			"event, [host CPU], with vcpu= (prev_vcpu=, "
			"next_vcpu=) where the thread is QEMU's thread of "
			"that vCPU\n");
	return 0;
fail:
	gr_reader_close(&x->h);
	gr_reader_close(&x->g);
	return ret;
}

/**
 * gr_report_host() - a session's guest trace and host stream as text,
 * merged on host CLOCK_MONOTONIC
 * @dir: the session directory: the guest's trace, its host stream in
 *	GR_HS_DIR
 * @out: where to print
 * @err: where a fatal problem is printed, as one "error: " line
 * @opts: @cpu: guest CPU N and the host events of vCPU N's thread; @events:
 *	names of either trace's events; @host_time is not used; NULL for all
 * @summary: print counts instead of the events
 *
 * Prints the guest trace's preamble, then the clock, the mapping and its
 * bound, then each event as report does, after "G " (guest, its guest
 * CPU) or "H " (host, its host CPU; "vcpu=N", or "prev_vcpu=N" and
 * "next_vcpu=N" for sched_switch, after the fields where the thread is
 * QEMU's thread of vCPU N), in time order, with times in seconds of host
 * CLOCK_MONOTONIC. A last "#" line counts guest events outside the span
 * the bound covers.
 *
 * Context: process; blocks on file I/O; allocates one packet per stream.
 * Return: damaged spots of both traces, or -errno: -ENOENT (no host
 * stream), -EINVAL (a clock not synchronized, an --events name neither
 * trace has), the readers' errors.
 */
int gr_report_host(const char *dir, FILE *out, FILE *err,
		   const struct gr_report_opts *opts, int summary)
{
	static const struct gr_report_opts all = { .cpu = -1 };
	uint64_t damaged;
	struct hr *x;
	int ret;

	x = calloc(1, sizeof(*x));
	if (x)
		x->threads = calloc(1, sizeof(*x->threads));
	if (!x || !x->threads) {
		free(x);
		fprintf(err, "error: out of memory\n");
		return -ENOMEM;
	}
	x->opts = opts ? opts : &all;
	x->summary = summary;
	ret = hr_open(x, dir, out, err);
	if (ret)
		goto out;
	if (gr_reader_merge_start(&x->g) || gr_reader_merge_start(&x->h)) {
		fprintf(err, "error: out of memory\n");
		ret = -ENOMEM;
	} else {
		merge(out, x);
		if (summary)
			print_summary(out, x);
		print_outside(out, x);
		damaged = gr_reader_damaged(&x->g) + gr_reader_damaged(&x->h);
		ret = damaged > INT32_MAX ? INT32_MAX : (int)damaged;
	}
	gr_reader_close(&x->h);
	gr_reader_close(&x->g);
out:
	free(x->threads);
	free(x);
	return ret;
}
