// SPDX-License-Identifier: GPL-2.0
/*
 * steal.c - steal per vCPU from a VM's host stream (see steal.h)
 *
 * A vCPU thread is one whose name, in a sched_switch of the host stream,
 * is QEMU's "CPU <n>/<accel>" (or "ALL CPUs/<accel>"). Each time it is
 * switched out, the interval until it is switched in again counts as
 *
 *   preempted  prev_state R or R+ (runnable: the host ran something
 *              else; the guest believes it ran): steal
 *   halted     any other state (sleeping: the vCPU idles, or waits for
 *              QEMU's I/O), until a sched_wakeup of the thread
 *   woken      from that wakeup until it is switched in: runnable and
 *              waiting for its CPU (an interrupt for the guest waits
 *              too): steal as much as preempted
 *
 * The task that ran instead is the one the same sched_switch switched in
 * on that host CPU, under the name it has when it leaves the CPU to the
 * vCPU again (a forked child that exec'd meanwhile); only the first: the
 * stream holds QEMU's switches, not the others' between them. An
 * interval still open at the stream's end is not counted. The stream is read with reader.c, which merges the host CPUs
 * in time order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hoststream.h"
#include "reader.h"
#include "steal.h"

/* QEMU's cpu-index in a vCPU thread's name; 0 if not one */
static int vcpu_index(const char *comm, int *index)
{
	char *end;
	long n;

	if (!strncmp(comm, "ALL CPUs/", 9)) {
		*index = -1;
		return 1;
	}
	if (strncmp(comm, "CPU ", 4) || comm[4] < '0' || comm[4] > '9')
		return 0;
	n = strtol(comm + 4, &end, 10);
	if (*end != '/' || n > 100000)
		return 0;
	*index = (int)n;
	return 1;
}

/**
 * gr_steal_is_vcpu() - whether a thread of the host stream runs a vCPU
 * @s: the state: the QEMU threads state dumps named so far
 * @comm: its name, NUL-terminated
 * @tid: its tid
 * @index: receives QEMU's cpu-index (-1 for "ALL CPUs")
 *
 * Return: 1 if @comm is a vCPU thread's name and, once state dumps named
 * QEMU's threads, @tid is one of them; else 0.
 */
int gr_steal_is_vcpu(const struct gr_steal *s, const char *comm, int tid,
		     int *index)
{
	unsigned int i;

	if (!tid || !vcpu_index(comm, index))
		return 0;
	for (i = 0; i < s->nknown && s->known[i] != tid; i++)
		;
	return !s->nknown || i < s->nknown;	/* one of this QEMU's */
}

static struct gr_steal_vcpu *find(struct gr_steal *s, const char *comm,
				  int tid)
{
	struct gr_steal_vcpu *v;
	unsigned int i;
	int index;

	for (i = 0; i < s->n; i++)
		if (s->v[i].tid == tid)
			return &s->v[i];
	if (s->n == GR_STEAL_MAX || !gr_steal_is_vcpu(s, comm, tid, &index))
		return NULL;
	v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	v->index = index;
	v->tid = tid;
	v->longest_cpu = -1;
	return v;
}

/**
 * gr_steal_thread() - a thread of the VM's QEMU (a state dump names it)
 * @s: the state
 * @tid: the thread
 */
void gr_steal_thread(struct gr_steal *s, int tid)
{
	unsigned int i;

	for (i = 0; i < s->nknown; i++)
		if (s->known[i] == tid)
			return;
	if (s->nknown < GR_STEAL_KNOWN)
		s->known[s->nknown++] = tid;
}

/* @d more ns of preemption of @v while @comm ran instead */
static void add_by(struct gr_steal_vcpu *v, const char *comm, uint64_t d)
{
	unsigned int i;

	for (i = 0; i < v->nby; i++)
		if (!strcmp(v->by[i].comm, comm))
			break;
	if (i == v->nby) {
		if (v->nby == GR_STEAL_BY)
			return;
		strcpy(v->by[v->nby++].comm, comm);
	}
	v->by[i].ns += d;
}

/**
 * gr_steal_switch() - account one sched_switch of the host stream
 * @s: the state (zeroed before the first)
 * @ts: its time
 * @cpu: the host CPU
 * @prev_comm: the task switched out (16 bytes at most, NUL-terminated)
 * @prev_tid: its tid
 * @prev_state: its state (sched_switch prev_state)
 * @next_comm: the task switched in
 * @next_tid: its tid
 *
 * Context: any.
 */
void gr_steal_switch(struct gr_steal *s, uint64_t ts, int cpu,
		     const char *prev_comm, int prev_tid, int64_t prev_state,
		     const char *next_comm, int next_tid)
{
	struct gr_steal_vcpu *v;
	uint64_t d;

	if (!s->switches++)
		s->first_ts = ts;
	s->last_ts = ts;
	v = find(s, prev_comm, prev_tid);
	if (v && prev_tid) {
		v->off = ((uint64_t)prev_state & GR_HS_STATE_MASK) ?
			 GR_STEAL_HALTED : GR_STEAL_PREEMPTED;
		v->off_ts = ts;
		v->off_cpu = cpu;
		memcpy(v->off_by, next_comm, sizeof(v->off_by) - 1);
		v->off_by[sizeof(v->off_by) - 1] = '\0';
		v->off_by_tid = next_tid;
		v->woke_ts = 0;
	}
	v = find(s, next_comm, next_tid);
	if (!v || !next_tid || v->off == GR_STEAL_ON)
		return;
	/*
	 * the task leaving is the one that came in: its name now (an exec
	 * since, as a forked child's)
	 */
	if (prev_tid && prev_tid == v->off_by_tid && v->off_cpu == cpu) {
		memcpy(v->off_by, prev_comm, sizeof(v->off_by) - 1);
		v->off_by[sizeof(v->off_by) - 1] = '\0';
	}
	if (v->off == GR_STEAL_HALTED && v->woke_ts) {
		if (s->off_fn) {
			s->off_fn(s->off_arg, s, v, GR_STEAL_HALTED, v->off_ts,
				  v->woke_ts);
			s->off_fn(s->off_arg, s, v, GR_STEAL_WOKEN, v->woke_ts,
				  ts);
		}
		v->halted_ns += v->woke_ts - v->off_ts;
		v->halts++;
		v->woken_ns += ts >= v->woke_ts ? ts - v->woke_ts : 0;
		v->wakeups++;
		v->off = GR_STEAL_ON;
		return;
	}
	if (s->off_fn)
		s->off_fn(s->off_arg, s, v, v->off, v->off_ts, ts);
	d = ts >= v->off_ts ? ts - v->off_ts : 0;
	if (v->off == GR_STEAL_HALTED) {
		v->halted_ns += d;
		v->halts++;
	} else {
		v->preempted_ns += d;
		v->preemptions++;
		add_by(v, v->off_by, d);
		if (d > v->longest_ns) {
			v->longest_ns = d;
			v->longest_at = v->off_ts;
			v->longest_cpu = v->off_cpu;
			memcpy(v->longest_by, v->off_by, sizeof(v->longest_by));
			v->longest_by_tid = v->off_by_tid;
		}
	}
	v->off = GR_STEAL_ON;
}

/**
 * gr_steal_wakeup() - account one sched_wakeup of the host stream
 * @s: the state
 * @ts: its time
 * @comm: the task woken (NUL-terminated)
 * @tid: its tid
 *
 * A vCPU thread that sleeps (halted) is runnable again from its first
 * wakeup on: the rest of the interval, until it is switched in, counts
 * as woken.
 *
 * Context: any.
 */
void gr_steal_wakeup(struct gr_steal *s, uint64_t ts, const char *comm,
		     int tid)
{
	struct gr_steal_vcpu *v = find(s, comm, tid);

	if (v && tid && v->off == GR_STEAL_HALTED && !v->woke_ts &&
	    ts >= v->off_ts)
		v->woke_ts = ts;
}

/**
 * gr_steal_kvm() - account one kvm_x86_entry or kvm_x86_exit
 * @s: the state
 * @ts: its time
 * @tid: the thread it ran in (the record's)
 * @entry: 1 for an entry into guest mode, 0 for an exit
 * @reason: an exit's reason, by name ("" if its host had none)
 *
 * The time from an entry to the exit that follows is time in guest
 * mode. The events of a thread not yet known as a vCPU (before its
 * first switch in the stream) are not counted.
 *
 * Context: any.
 */
void gr_steal_kvm(struct gr_steal *s, uint64_t ts, int tid, int entry,
		  const char *reason)
{
	struct gr_steal_vcpu *v = NULL;
	unsigned int i;

	for (i = 0; i < s->n && !v; i++)
		if (s->v[i].tid == tid)
			v = &s->v[i];
	s->kvm++;
	if (!v || !tid)
		return;
	if (entry) {
		v->entry_ts = ts;
		return;
	}
	if (v->entry_ts && ts >= v->entry_ts)
		v->guest_ns += ts - v->entry_ts;
	v->entry_ts = 0;
	v->exits++;
	for (i = 0; i < v->nreasons && strcmp(v->reasons[i].reason, reason);
	     i++)
		;
	if (i == v->nreasons && i < GR_STEAL_EXITS) {
		snprintf(v->reasons[i].reason, sizeof(v->reasons[i].reason),
			 "%s", *reason ? reason : "?");
		v->nreasons++;
	}
	if (i < v->nreasons)
		v->reasons[i].n++;
}

static int by_count(const void *a, const void *b)
{
	const struct gr_steal_exit *x = a, *y = b;

	return (x->n < y->n) - (x->n > y->n);
}

static int by_index(const void *a, const void *b)
{
	const struct gr_steal_vcpu *x = a, *y = b;

	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int by_ns(const void *a, const void *b)
{
	const struct gr_steal_by *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/**
 * gr_steal_sort() - the vCPUs by index (then tid: a restarted QEMU's),
 * the tasks that ran instead of each by time, its exit reasons by count
 * @s: the state
 */
void gr_steal_sort(struct gr_steal *s)
{
	unsigned int i;

	qsort(s->v, s->n, sizeof(s->v[0]), by_index);
	for (i = 0; i < s->n; i++) {
		qsort(s->v[i].by, s->v[i].nby, sizeof(s->v[i].by[0]), by_ns);
		qsort(s->v[i].reasons, s->v[i].nreasons,
		      sizeof(s->v[i].reasons[0]), by_count);
	}
}

/**
 * gr_steal_open() - open a host stream with the one reader
 * @r: the reader
 * @dir: the host stream's directory
 * @err: where the reader says what is damaged
 *
 * Context: process; reads the files.
 * Return: 0, -ENOENT if @dir is no host stream (another trace, or its
 * events are not the host stream's), or the reader's -errno.
 */
int gr_steal_open(struct gr_reader *r, const char *dir, FILE *err)
{
	int ret = gr_reader_open(r, dir, err, 0);

	if (ret)
		return ret;
	if (strcmp(r->info->view.clock_name, "monotonic") ||
	    (r->info->nr_events != GR_HS_NR_EVENTS &&
	     r->info->nr_events != GR_HS_NR_EVENTS_V1) ||
	    !r->info->valid[GR_HS_SWITCH] ||
	    strcmp(r->info->events[GR_HS_SWITCH].name, "sched_switch")) {
		gr_reader_close(r);
		return -ENOENT;
	}
	return 0;
}

/**
 * gr_steal_read() - steal per vCPU of a VM's host stream
 * @dir: a session directory (its host/ is read) or the host stream's own
 * @s: receives the vCPUs, sorted
 * @err: where the reader says what is damaged
 *
 * Context: process; reads the files.
 * Return: 0, -ENOENT if @dir has no host stream, or the reader's -errno.
 */
int gr_steal_read(const char *dir, struct gr_steal *s, FILE *err)
{
	return gr_steal_walk(dir, s, NULL, NULL, err);
}

/**
 * gr_steal_walk() - gr_steal_read(), and each interval a vCPU thread was
 * off its host CPU as it ends
 * @dir: a session directory (its host/ is read) or the host stream's own
 * @s: receives the vCPUs, sorted
 * @fn: NULL, or called at the end of each interval (gr_steal_off_fn),
 *	in time order, with @s->info set
 * @arg: its argument
 * @err: where the reader says what is damaged
 *
 * Context: process; reads the files.
 * Return: 0, -ENOENT if @dir has no host stream, or the reader's -errno.
 */
int gr_steal_walk(const char *dir, struct gr_steal *s, gr_steal_off_fn fn,
		  void *arg, FILE *err)
{
	char path[4096];
	struct gr_reader r;
	struct gr_cursor *c;
	const struct gr_event_view *ev;
	char prev[17], next[17], reason[32];
	const uint8_t *p;
	uint32_t len;
	int ret;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/" GR_HS_DIR, dir);
	ret = gr_steal_open(&r, access(path, F_OK) ? dir : path, err);
	if (ret)
		return ret;
	s->off_fn = fn;
	s->off_arg = arg;
	s->info = r.info;
	ev = &r.info->events[GR_HS_SWITCH];
	ret = gr_reader_merge_start(&r);
	while (!ret && (c = gr_reader_merge_head(&r))) {
		if (c->kind == GR_ITEM_EVENT && c->rec.id == GR_HS_STATEDUMP) {
			p = gr_cursor_payload(c, &len);
			gr_steal_thread(s, (int)gr_event_int(&r.info->events[GR_HS_STATEDUMP],
						       "tid", p, len));
		}
		if (c->kind == GR_ITEM_EVENT && c->rec.id == GR_HS_WAKEUP &&
		    r.info->valid[GR_HS_WAKEUP]) {
			p = gr_cursor_payload(c, &len);
			gr_event_text(&r.info->events[GR_HS_WAKEUP], "comm", p,
				      len, next, sizeof(next));
			gr_steal_wakeup(s, c->ts, next,
					(int)gr_event_int(&r.info->events[GR_HS_WAKEUP],
							  "tid", p, len));
		}
		if (c->kind == GR_ITEM_EVENT && c->rec.id == GR_HS_SWITCH) {
			p = gr_cursor_payload(c, &len);
			gr_event_text(ev, "prev_comm", p, len, prev,
				      sizeof(prev));
			gr_event_text(ev, "next_comm", p, len, next,
				      sizeof(next));
			gr_steal_switch(s, c->ts, (int)c->cpu, prev,
					(int)gr_event_int(ev, "prev_tid", p, len),
					gr_event_int(ev, "prev_state", p, len), next,
					(int)gr_event_int(ev, "next_tid", p, len));
		}
		if (c->kind == GR_ITEM_EVENT && c->rec.id == GR_HS_KVM_ENTRY &&
		    r.info->nr_events > GR_HS_KVM_EXIT)
			gr_steal_kvm(s, c->ts, (int)c->rec.tid, 1, "");
		if (c->kind == GR_ITEM_EVENT && c->rec.id == GR_HS_KVM_EXIT &&
		    r.info->nr_events > GR_HS_KVM_EXIT) {
			p = gr_cursor_payload(c, &len);
			gr_event_text(&r.info->events[GR_HS_KVM_EXIT],
				      "exit_reason_name", p, len, reason,
				      sizeof(reason));
			gr_steal_kvm(s, c->ts, (int)c->rec.tid, 0, reason);
		}
		gr_reader_merge_next(&r);
	}
	gr_reader_close(&r);
	s->info = NULL;
	s->off_fn = NULL;
	gr_steal_sort(s);
	return ret;
}
