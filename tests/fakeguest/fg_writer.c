// SPDX-License-Identifier: GPL-2.0
/*
 * fg_writer.c - the fake guest's CPUs
 *
 * One thread per CPU writes records into its ring (with --global all of
 * them into ring 0, serialized by the core's lock), in place as a probe
 * does, at --rate ticks per second (a token bucket; the thread sleeps on a
 * futex so that requests wake it) or as fast as it can. Only a ring's own
 * writer touches it: a flush asked by the control thread is done by the
 * writer (flush_req / flush_done); a reset pauses every writer and waits
 * until none is inside its ring (the "inside" counters, odd while a writer
 * touches its ring), as the driver waits for probes. The switch timer is
 * per writer: it flushes the ring when no sub-buffer was finished for a
 * whole period. Records a hist request counts are aggregated on the way
 * (fg_hist.c), recorded or not: with recording off the writers go on
 * ticking while a request runs.
 */
#include <sched.h>

#include "fakeguest.h"

/* Enter the ring: odd "inside", unless a reset pauses the writers. */
static bool fg_writer_enter(struct fg_writer *w)
{
	__atomic_fetch_add(&w->inside, 1, __ATOMIC_RELAXED);
	/*
	 * Pairs with the fence in fg_quiesce(): either the control thread
	 * sees us inside and waits, or we see what it stored before
	 * (paused, enabled, tracing).
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&w->fg->paused, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&w->inside, 1, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

static void fg_writer_leave(struct fg_writer *w)
{
	__atomic_fetch_add(&w->inside, 1, __ATOMIC_RELEASE);
}

/* Is event @id written (recording) or counted (a hist request) now? */
static bool fg_writer_wants(struct fakeguest *fg, unsigned int id,
			    bool tracing)
{
	return (tracing && fg_event_enabled(fg, id)) || fg_hist_counts(id);
}

static unsigned int fg_writer_next_other(struct fg_writer *w, bool tracing)
{
	struct fakeguest *fg = w->fg;
	unsigned int i, id, others = fg->opt.events - 1;

	for (i = 0; i < others; i++) {
		id = 1 + w->rr++ % others;
		if (fg_writer_wants(fg, id, tracing))
			return id;
	}
	return 0;
}

/*
 * One record of a non-fake_seq event: written if recorded, else only
 * aggregated (a hist request counts it); counted in other_*
 */
static void fg_writer_other(struct fg_writer *w, unsigned int id, u64 n,
			    bool tracing)
{
	struct fakeguest *fg = w->fg;

	if (!tracing || !fg_event_enabled(fg, id)) {
		fg_count_event(&fg->events[id], id, w->cpu, n);
	} else if (!fg_write_event(fg->chan, &fg->events[id], id, w->cpu,
				   n)) {
		w->other_written++;
		w->ev_written[id]++;
	} else {
		w->other_dropped++;
	}
}

/*
 * --sched, the run queue of fg_events.c: the tasks whose wait ends at
 * this tick are switched to (the task of tick j waits 1 + j % 8 ticks),
 * then the task of this tick is woken
 */
static void fg_writer_sched(struct fg_writer *w, bool tracing)
{
	struct fakeguest *fg = w->fg;
	u64 k = w->sched_next++, j;
	unsigned int lag;

	for (lag = 1; lag <= FG_SCHED_LAGS && lag <= k; lag++) {
		j = k - lag;
		if (j % FG_SCHED_LAGS == lag - 1 &&
		    fg_writer_wants(fg, fg->sched_switch, tracing))
			fg_writer_other(w, fg->sched_switch,
					fg_sched_tid(w->cpu, j), tracing);
	}
	if (fg_writer_wants(fg, fg->sched_wakeup, tracing))
		fg_writer_other(w, fg->sched_wakeup, fg_sched_tid(w->cpu, k),
				tracing);
}

/*
 * One tick: a fake_seq, the next other event, the sched pattern; with
 * recording off (tracing, or an event, off) only what a hist request
 * counts, aggregated (a fake_seq so counted takes no seq number)
 */
static void fg_writer_tick(struct fg_writer *w)
{
	struct fakeguest *fg = w->fg;
	unsigned int id;
	bool tracing;
	u64 n;

	if (!fg_writer_enter(w))
		return;
	tracing = __atomic_load_n(&fg->tracing, __ATOMIC_RELAXED);
	if (tracing || fg_hist_on()) {
		if (tracing && fg_event_enabled(fg, 0)) {
			n = w->seq_next++;
			if (!fg_write_event(fg->chan, &fg->events[0], 0,
					    w->cpu, n)) {
				if (!w->seq_written++)
					w->seq_first = n;
				w->seq_last = n;
				w->ev_written[0]++;
			} else {
				w->seq_dropped++;
			}
		} else {
			fg_count_event(&fg->events[0], 0, w->cpu,
				       w->seq_next);
		}
		id = fg_writer_next_other(w, tracing);
		if (id)
			fg_writer_other(w, id, w->other_next++, tracing);
		if (fg->opt.sched)
			fg_writer_sched(w, tracing);
		fg_names_write(w, tracing);
		w->ticks++;
	}
	fg_writer_leave(w);
}

/* Flush this writer's ring; false if a reset holds the writers off. */
static bool fg_writer_flush(struct fg_writer *w)
{
	if (!fg_writer_enter(w))
		return false;
	gr_chan_flush_this_cpu(w->fg->chan);
	fg_writer_leave(w);
	return true;
}

/* One vmsync record of sync request @req (spec 9.8), if recorded */
static void fg_vmsync_rec(struct fakeguest *fg, unsigned int id, u64 cnt,
			  u64 uid)
{
	struct gr_buf *buf;
	__le64 *p;

	if (!__atomic_load_n(&fg->tracing, __ATOMIC_RELAXED) ||
	    !fg_event_enabled(fg, id))
		return;
	buf = gr_buf_enter(fg->chan);
	if (!buf)
		return;
	p = gr_event_reserve(buf, (u16)id, 16);
	if (p) {
		p[0] = cpu_to_le64(cnt);
		p[1] = cpu_to_le64(uid);
	}
	gr_buf_exit(buf);
}

/* The vmsync records of request @req, on this writer's CPU */
static void fg_vmsync_write(struct fakeguest *fg, u64 req, u64 uid)
{
	if (!uid)
		return;
	fg_vmsync_rec(fg, fg->vmsync_hg, GR_VMSYNC_HG_CNT(req), uid);
	fg_vmsync_rec(fg, fg->vmsync_gh, GR_VMSYNC_GH_CNT(req), uid);
}

/* Requested flushes, vmsync records and the switch timer. */
static void fg_writer_service(struct fg_writer *w, u64 now)
{
	struct fakeguest *fg = w->fg;
	struct fg_ring_stats *rs = &fg->rings[fg_ring_of(fg, w->cpu)];
	u64 req, timer_ns, fin;

	/* Pairs with the release of vmsync_req in fg_vmsync() */
	req = __atomic_load_n(&w->vmsync_req, __ATOMIC_ACQUIRE);
	if (req != w->vmsync_done && fg_writer_enter(w)) {
		fg_vmsync_write(fg, req, __atomic_load_n(&w->vmsync_uid,
							 __ATOMIC_RELAXED));
		fg_writer_leave(w);
		/* Pairs with the acquire in fg_vmsync(): the records first */
		__atomic_store_n(&w->vmsync_done, req, __ATOMIC_RELEASE);
	}

	/* Pairs with the release of flush_req in fg_flush_all() */
	req = __atomic_load_n(&w->flush_req, __ATOMIC_ACQUIRE);
	if (req != w->flush_done && fg_writer_flush(w)) {
		w->flushes++;
		/* Pairs with the acquire in fg_flush_all(): our produced */
		__atomic_store_n(&w->flush_done, req, __ATOMIC_RELEASE);
	}

	timer_ns = (u64)__atomic_load_n(&fg->timer_us, __ATOMIC_RELAXED) *
		   1000;
	if (!timer_ns) {
		w->timer_next = 0;
		return;
	}
	if (!w->timer_next || w->timer_next > now + timer_ns) {
		w->timer_next = now + timer_ns;
		w->timer_seen = __atomic_load_n(&rs->finished,
						__ATOMIC_RELAXED);
		return;
	}
	if (now < w->timer_next)
		return;
	fin = __atomic_load_n(&rs->finished, __ATOMIC_RELAXED);
	if (fin == w->timer_seen && fg_writer_flush(w))
		w->timer_flushes++;
	w->timer_seen = __atomic_load_n(&rs->finished, __ATOMIC_RELAXED);
	w->timer_next = now + timer_ns;
}

static bool fg_writer_may_tick(struct fg_writer *w)
{
	struct fakeguest *fg = w->fg;

	return !__atomic_load_n(&w->done, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&fg->paused, __ATOMIC_RELAXED) &&
	       (__atomic_load_n(&fg->tracing, __ATOMIC_RELAXED) ||
		fg_hist_on());
}

/**
 * fg_writer_main() - one CPU
 * @arg: its struct fg_writer
 *
 * Ticks at --rate (or --max) while tracing is on (or a hist request
 * runs) and no reset pauses the writers, until --count ticks or the end;
 * serves flush requests and the switch timer meanwhile; at the end
 * flushes its ring and sets exited.
 *
 * Context: its own thread, gr_user_set_cpu(cpu).
 * Return: NULL.
 */
void *fg_writer_main(void *arg)
{
	struct fg_writer *w = arg;
	struct fakeguest *fg = w->fg;
	u64 period = fg->opt.max_rate ? 0 : (u64)(FG_NSEC / fg->opt.rate);
	u64 burst = period > 10000000 ? period : 10000000;
	u64 now, next, until, req;
	u32 wake;

	if (!fg->opt.max_rate && !period)
		period = 1;
	gr_user_set_cpu(w->cpu);
	next = fg_now_ns();
	for (;;) {
		wake = __atomic_load_n(&w->wake, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&fg->stop, __ATOMIC_ACQUIRE))
			break;
		now = fg_now_ns();
		fg_writer_service(w, now);
		if (!fg_writer_may_tick(w) || (period && now < next)) {
			if (!fg_writer_may_tick(w))
				next = now;
			until = now + 100000000;
			if (period && next > now && next < until)
				until = next;
			if (w->timer_next && w->timer_next < until)
				until = w->timer_next;
			fg_futex_wait(&w->wake, wake, until > now ?
				      until - now : 1);
			continue;
		}
		fg_writer_tick(w);
		if (period) {
			next += period;
			if (now > next + burst)
				next = now - burst;
		}
		if (fg->opt.count && w->ticks >= fg->opt.count)
			__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	}

	/* The end: deliver what the ring holds (spec 5.5 step 2) */
	req = __atomic_load_n(&w->flush_req, __ATOMIC_ACQUIRE);
	while (!fg_writer_flush(w))
		fg_sleep_ns(100000);
	__atomic_store_n(&w->flush_done, req, __ATOMIC_RELEASE);
	/* From here on the control thread may flush for us */
	__atomic_store_n(&w->exited, 1, __ATOMIC_RELEASE);
	return NULL;
}

/**
 * fg_wake_writers() - wake every writer to re-read what it depends on
 * @fg: the fake guest
 *
 * Context: any thread.
 */
void fg_wake_writers(struct fakeguest *fg)
{
	unsigned int i;

	for (i = 0; i < fg->opt.cpus; i++)
		fg_futex_wake(&fg->writers[i].wake);
}

/**
 * fg_quiesce() - wait for the writes that began before a settings change
 * @fg: the fake guest
 *
 * Returns once no writer is inside a write that began before the
 * caller's last store of paused, enabled or tracing (the fences pair with
 * fg_writer_enter()). Writers never block inside, so this is short; it is
 * bounded (5 s) anyway.
 *
 * Context: control thread.
 */
void fg_quiesce(struct fakeguest *fg)
{
	u64 deadline = fg_now_ns() + 5 * FG_NSEC;
	struct fg_writer *w;
	unsigned int i;
	u32 s;

	/* Pairs with the fence in fg_writer_enter() */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < fg->opt.cpus; i++) {
		w = &fg->writers[i];
		s = __atomic_load_n(&w->inside, __ATOMIC_RELAXED);
		if (!(s & 1))
			continue;
		while (__atomic_load_n(&w->inside, __ATOMIC_ACQUIRE) == s &&
		       !__atomic_load_n(&w->exited, __ATOMIC_ACQUIRE)) {
			if (fg_now_ns() > deadline) {
				fg_log("writer %u stuck in a write", i);
				break;
			}
			sched_yield();
		}
	}
}

/**
 * fg_vmsync() - the vmsync records of sync request @req (spec 9.8), before
 *	its answer
 * @fg: the fake guest
 * @req: the request
 * @uid: the host's vm_uid for it; 0: none
 *
 * CPU 0's writer writes them (one writer per ring); the control thread
 * waits for it, at most 100 ms, or writes them itself for a writer that
 * exited (nobody else writes its ring).
 *
 * Context: control thread, under pass_lock.
 */
void fg_vmsync(struct fakeguest *fg, u64 req, u64 uid)
{
	struct fg_writer *w = &fg->writers[0];
	u64 deadline = fg_now_ns() + FG_NSEC / 10;

	if (!uid)
		return;
	if (__atomic_load_n(&w->exited, __ATOMIC_ACQUIRE)) {
		gr_user_set_cpu(w->cpu);
		fg_vmsync_write(fg, req, uid);
		return;
	}
	__atomic_store_n(&w->vmsync_uid, uid, __ATOMIC_RELAXED);
	/* Pairs with the acquire in fg_writer_service() */
	__atomic_store_n(&w->vmsync_req, req, __ATOMIC_RELEASE);
	fg_futex_wake(&w->wake);
	while (__atomic_load_n(&w->vmsync_done, __ATOMIC_ACQUIRE) != req &&
	       !__atomic_load_n(&w->exited, __ATOMIC_ACQUIRE) &&
	       fg_now_ns() < deadline)
		sched_yield();
}

/* Flush the ring of a writer that has exited, from the control thread */
static void fg_flush_for(struct fakeguest *fg, struct fg_writer *w)
{
	gr_user_set_cpu(w->cpu);
	gr_chan_flush_this_cpu(fg->chan);
}

/**
 * fg_flush_all() - flush every ring (spec 6.7) and wait for it
 * @fg: the fake guest
 *
 * A ring's own writer does it; the ring of a writer that exited is
 * flushed here (nobody else writes it any more; a global ring is
 * protected by the core's lock). The acquire of each flush_done orders
 * the flushed produced counters before the caller's flush_ack (pair 13).
 *
 * Context: control thread, under pass_lock.
 */
void fg_flush_all(struct fakeguest *fg)
{
	u64 deadline = fg_now_ns() + 5 * FG_NSEC;
	u64 req[FG_MAX_CPUS];
	struct fg_writer *w;
	unsigned int i;

	for (i = 0; i < fg->opt.cpus; i++) {
		w = &fg->writers[i];
		req[i] = 0;
		if (__atomic_load_n(&w->exited, __ATOMIC_ACQUIRE)) {
			fg_flush_for(fg, w);
			continue;
		}
		req[i] = __atomic_add_fetch(&w->flush_req, 1,
					    __ATOMIC_RELEASE);
		fg_futex_wake(&w->wake);
	}
	for (i = 0; i < fg->opt.cpus; i++) {
		w = &fg->writers[i];
		if (!req[i])
			continue;
		while (__atomic_load_n(&w->flush_done, __ATOMIC_ACQUIRE) !=
		       req[i]) {
			if (__atomic_load_n(&w->exited, __ATOMIC_ACQUIRE)) {
				if (__atomic_load_n(&w->flush_done,
						    __ATOMIC_ACQUIRE) != req[i])
					fg_flush_for(fg, w);
				break;
			}
			if (fg_now_ns() > deadline) {
				fg_log("writer %u did not flush", i);
				break;
			}
			fg_sleep_ns(20000);
		}
	}
}

/**
 * fg_reset() - relay_reset() of every ring (spec 6.13)
 * @fg: the fake guest
 *
 * Pauses the writers, waits until none is inside its ring, resets the
 * channel and lets them go on. Events of the pause are not written.
 *
 * Context: control thread, under pass_lock.
 */
void fg_reset(struct fakeguest *fg)
{
	__atomic_store_n(&fg->paused, 1, __ATOMIC_SEQ_CST);
	fg_quiesce(fg);
	gr_chan_reset(fg->chan);
	__atomic_store_n(&fg->paused, 0, __ATOMIC_SEQ_CST);
	fg_wake_writers(fg);
}
