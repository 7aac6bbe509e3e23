// SPDX-License-Identifier: GPL-2.0
/*
 * fg_control.c - the fake guest's driver half: doorbells and control
 *
 * The control thread plays the driver's interrupt handlers and tick: it
 * waits on the guest's own GR_VEC_CTRL and GR_VEC_CONSUMED eventfds (and
 * the ivshmem server's socket) for at most --tick-ms, and runs one control
 * pass per wake-up, exactly as spec section 9.2 orders it. Doorbells to the
 * host go to duplicates of the host peer's eventfds, replaced atomically
 * when the peer or its descriptors change, so writers can ring from their
 * own threads.
 */
#include <fcntl.h>
#include <poll.h>
#include <syslog.h>

#include "fakeguest.h"

/**
 * fg_ring_host() - ring one of the host's vectors, if allowed
 * @fg: the fake guest
 * @vector: GR_VEC_DATA or GR_VEC_STATUS
 *
 * As the driver's write to the Doorbell register: only when GR_F_DOORBELL
 * is in use and the host's peer id was validated (G23). Safe from any
 * thread: the descriptor is an atomically replaced duplicate that stays
 * open until exit.
 */
void fg_ring_host(struct fakeguest *fg, unsigned int vector)
{
	int fd;

	if (!(__atomic_load_n(&fg->features, __ATOMIC_RELAXED) &
	      GR_F_DOORBELL))
		return;
	fd = __atomic_load_n(&fg->host_fd[vector], __ATOMIC_ACQUIRE);
	if (fd < 0 || ivsh_eventfd_signal(fd))
		return;
	__atomic_fetch_add(vector == GR_VEC_DATA ? &fg->data_rung :
			   &fg->status_rung, 1, __ATOMIC_RELAXED);
}

/* A replaced descriptor may still be in a writer's hands: keep it open */
static void fg_retire_fd(struct fakeguest *fg, int fd)
{
	if (fd >= 0 && fg->nr_retired < FG_MAX_RETIRED_FDS)
		fg->retired[fg->nr_retired++] = fd;
}

/**
 * fg_refresh_host_fds() - follow the host peer's eventfds
 * @fg: the fake guest
 *
 * Duplicates the eventfds the ivshmem client knows for the host peer id
 * in effect (none if the id is GR_NO_PEER or above 65535) and swaps them
 * in; replaced duplicates stay open until exit (a writer may be using one).
 *
 * Context: the thread that owns the ivshmem client: the control thread,
 * or main before it starts.
 */
void fg_refresh_host_fds(struct fakeguest *fg)
{
	u32 peer = __atomic_load_n(&fg->host_peer, __ATOMIC_RELAXED);
	unsigned int v;
	int src, dup_fd, old;

	for (v = 0; v < GR_NR_VECTORS; v++) {
		src = -1;
		if (fg->have_client && peer <= IVSH_MAX_PEER_ID)
			src = ivsh_client_peer_eventfd(&fg->client, (int)peer,
						       v);
		if (src < 0)
			src = -1;
		if (src == fg->host_src[v] && !fg->host_fds_dirty)
			continue;
		dup_fd = src >= 0 ? fcntl(src, F_DUPFD_CLOEXEC, 0) : -1;
		old = __atomic_exchange_n(&fg->host_fd[v], dup_fd,
					  __ATOMIC_ACQ_REL);
		fg_retire_fd(fg, old);
		fg->host_src[v] = src;
	}
	fg->host_fds_dirty = false;
}

/**
 * fg_client_event() - on_event of the ivshmem client: peers changed
 * @data: the fake guest
 * @ev: what happened
 * @peer_id: to which peer
 * @vector: which vector
 *
 * Context: inside ivsh_client_process(), control thread.
 */
void fg_client_event(void *data, enum ivsh_client_event ev, int peer_id,
		     unsigned int vector)
{
	struct fakeguest *fg = data;

	(void)ev;
	(void)peer_id;
	(void)vector;
	fg->host_fds_dirty = true;
}

/**
 * fg_client_log() - log callback of the ivshmem client: warnings and errors
 * @data: unused
 * @prio: syslog priority
 * @fmt: format
 * @ap: arguments
 *
 * Context: inside the client's calls.
 */
void fg_client_log(void *data, int prio, const char *fmt, va_list ap)
{
	(void)data;
	if (prio > LOG_WARNING)
		return;
	fputs("fakeguest: ivshmem: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/**
 * fg_doorbell() - the channel's doorbell callback: ring GR_VEC_DATA
 * @buf: the ring that produced
 *
 * Context: the ring's writer, inside the core.
 */
void fg_doorbell(struct gr_buf *buf)
{
	struct fakeguest *fg = buf->chan->private_data;
	u64 before = __atomic_load_n(&fg->data_rung, __ATOMIC_RELAXED);

	fg_ring_host(fg, GR_VEC_DATA);
	if (__atomic_load_n(&fg->data_rung, __ATOMIC_RELAXED) != before)
		__atomic_fetch_add(&fg->rings[buf->index].doorbells_rung, 1,
				   __ATOMIC_RELAXED);
}

/**
 * fg_subbuf_start() - the channel's subbuf_start
 * @buf: the ring
 * @subbuf: the sub-buffer to start
 * @prev_subbuf: the sub-buffer just finished, or NULL
 * @prev_padding: unused bytes at its end
 *
 * gr_ctf_subbuf_start() plus bookkeeping: counts finished sub-buffers for
 * the switch timer and, with --hostile packets armed, spoils the header of
 * @prev_subbuf before the core commits it.
 *
 * Context: the ring's writer, inside the core.
 * Return: what gr_ctf_subbuf_start() returns.
 */
int fg_subbuf_start(struct gr_buf *buf, void *subbuf, void *prev_subbuf,
		    size_t prev_padding)
{
	struct fakeguest *fg = buf->chan->private_data;

	if (prev_subbuf) {
		if ((fg->opt.hostile == FG_HOSTILE_PACKETS ||
		     fg->opt.hostile == FG_HOSTILE_RECORDS) &&
		    __atomic_load_n(&fg->hostile_armed, __ATOMIC_ACQUIRE))
			fg_hostile_packet(fg, buf, prev_subbuf);
		__atomic_fetch_add(&fg->rings[buf->index].finished, 1,
				   __ATOMIC_RELAXED);
	}
	return gr_ctf_subbuf_start(buf, subbuf, prev_subbuf, prev_padding);
}

/* ---------------------------------------------------------------------- */
/* Settings and the control pass (spec 9.2)                               */

/**
 * fg_default_events() - the events the fake guest records on its own
 * @fg: the fake guest
 * @enable: receives one bit per event: all of them
 */
void fg_default_events(const struct fakeguest *fg, u64 *enable)
{
	unsigned int i;

	memset(enable, 0, GR_WIDE_MAX_EVENTS / 8);
	for (i = 0; i < fg->nr_events; i++)
		enable[i / 64] |= 1ULL << (i % 64);
}

/**
 * fg_defaults() - the settings without a valid host block
 * @fg: the fake guest
 * @req: receives the fake guest's own settings (its options)
 */
void fg_defaults(const struct fakeguest *fg, struct gr_ctrl_req *req)
{
	memset(req, 0, sizeof(*req));
	fg_default_events(fg, req->enable);
	req->tracing = 1;
	req->mode = fg->opt.mode;
	req->switch_timer_us = fg->opt.switch_timer_ms * 1000;
	req->host_peer_id = GR_NO_PEER;
}

/**
 * fg_ctrl_events() - the events an accepted block asks for (spec 9.6)
 * @fg: the fake guest
 * @req: a block gr_ctrl_read() accepted
 *
 * With GR_CTRL_F_DEFAULTS (and GR_F_DEFAULTS in use) the host has not
 * chosen events yet: @req->enable becomes the fake guest's own.
 */
void fg_ctrl_events(const struct fakeguest *fg, struct gr_ctrl_req *req)
{
	if (gr_ctrl_wants_defaults(req, GR_GUEST_FEATURES))
		fg_default_events(fg, req->enable);
}

/**
 * fg_timer_us() - the switch timer in effect for a requested period
 * @us: requested period, 0 = off
 *
 * Return: @us raised to FG_MIN_TIMER_US (spec 6.8 allows up to 1000 us).
 */
u32 fg_timer_us(u32 us)
{
	return us && us < FG_MIN_TIMER_US ? FG_MIN_TIMER_US : us;
}

/**
 * fg_apply() - put valid settings into effect
 * @fg: the fake guest
 * @req: checked settings (gr_ctrl_read(), or the defaults)
 *
 * What the writers read first (enable bits, tracing, timer, features in
 * use, host peer), then the core's mode and event index, then the host's
 * eventfds. Does not touch the status block.
 *
 * Context: control pass (under pass_lock), or start-up.
 * Return: true if recording was narrowed (an event or tracing turned
 * off): the caller waits for the writers (fg_quiesce()) before the ack.
 */
bool fg_apply(struct fakeguest *fg, const struct gr_ctrl_req *req)
{
	u64 in_use = req->features & fg->guest_features;
	bool narrowed = false;
	unsigned int i;
	u64 old;

	for (i = 0; i < GR_WIDE_MAX_EVENTS / 64; i++) {
		old = __atomic_exchange_n(&fg->enabled[i], req->enable[i],
					  __ATOMIC_SEQ_CST);
		if (old & ~req->enable[i])
			narrowed = true;
	}
	old = __atomic_exchange_n(&fg->tracing, req->tracing,
				  __ATOMIC_SEQ_CST);
	if (old && !req->tracing)
		narrowed = true;
	__atomic_store_n(&fg->timer_us, fg_timer_us(req->switch_timer_us),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fg->features, in_use, __ATOMIC_RELAXED);
	__atomic_store_n(&fg->host_peer, req->host_peer_id, __ATOMIC_RELAXED);
	fg->mode = req->mode;
	gr_chan_set_event_idx(fg->chan, in_use & GR_F_EVENT_IDX);
	gr_chan_set_mode(fg->chan, req->mode);
	fg->host_fds_dirty = true;
	fg_refresh_host_fds(fg);
	return narrowed;
}

/*
 * Settings into effect (a valid block's, GR_PASS_APPLY, or the defaults,
 * GR_PASS_DEFAULTS), then acknowledged under ctrl.seq = @seq
 */
static void fg_settings(struct fakeguest *fg, struct gr_ctrl_req *req,
			u64 seq)
{
	u32 state;

	if (fg_apply(fg, req))
		fg_quiesce(fg);
	fg_wake_writers(fg);
	state = req->tracing ? GR_STATE_TRACING : GR_STATE_IDLE;
	if (!fg->stopped && state != fg->state) {
		fg->state = state;
		gr_status_set_state(fg->region, state);
	}
	req->seq = seq;
	gr_status_applied(fg->region, fg->lay.wide_offset, req, req->enable,
			  req->mode, fg_timer_us(req->switch_timer_us));
	fg->ctrl_ack = seq;
}

/**
 * fg_load_req() - load a counter the host writes, once, with acquire
 * @field: seq or a *_req counter of the control block, or cons.consumed
 *
 * Return: its value.
 */
u64 fg_load_req(__le64 *field)
{
	/* Pairs with the host's smp_store_release() of the counter */
	return le64_to_cpu(smp_load_acquire(field));
}

/* --sync-tsc: this host's TSC as KVM would give it to a guest */
static u64 fg_guest_tsc(const struct fakeguest *fg)
{
	unsigned __int128 t;
	u32 lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) : :
			 "memory");
	t = ((unsigned __int128)((u64)hi << 32 | lo) * fg->opt.tsc_ratio) >>
	    fg->opt.tsc_frac;
	return (u64)t + (u64)fg->opt.tsc_offset + fg->opt.tsc_skew;
}

/*
 * The answer's time (spec 9.5), after --sync-delay-us; with
 * GR_F_SYNC_TSC in use, the TSC read around it as the module reads it
 */
static void fg_sync_time(struct fakeguest *fg)
{
	u64 before, clock;

	if (fg->opt.sync_delay_us)
		usleep(fg->opt.sync_delay_us);
	if (!(__atomic_load_n(&fg->features, __ATOMIC_RELAXED) &
	      GR_F_SYNC_TSC)) {
		gr_status_sync_time(fg->region);
		return;
	}
	before = fg_guest_tsc(fg);
	clock = gr_clock();
	gr_status_sync_time_tsc(fg->region, before, clock, fg_guest_tsc(fg));
}

/* A pending clock-sync request answered (spec 9.5); false if none */
static bool fg_sync_answer(struct fakeguest *fg)
{
	struct gr_host_ctrl *c = gr_ctrl(fg->region);
	u64 v;

	if (!(__atomic_load_n(&fg->features, __ATOMIC_RELAXED) &
	      GR_F_CLOCK_SYNC))
		return false;
	v = fg_load_req(&c->sync_req);
	if (v == fg->sync_ack)
		return false;
	/* spec 9.8: stored before the request's release */
	if (__atomic_load_n(&fg->features, __ATOMIC_RELAXED) & GR_F_VMSYNC)
		fg_vmsync(fg, v, le64_to_cpu(__atomic_load_n(&c->vm_uid,
							 __ATOMIC_RELAXED)));
	fg_sync_time(fg);
	gr_status_ack_sync(fg->region, v);
	fg->sync_ack = v;
	fg->pass_syncs++;
	return true;
}

/* --sync-poll with the host's bit, over doorbells */
static bool fg_sync_poll_on(const struct fakeguest *fg)
{
	return (__atomic_load_n(&fg->features, __ATOMIC_RELAXED) &
		GR_F_SYNC_POLL) && fg->have_client;
}

/*
 * v1.12, GR_F_SYNC_POLL (spec 9.5, G42): the series' next requests
 * answered by polling sync_req, within the module's bounds
 * (gr_sync_poll_may_start(), gr_sync_poll_more(): gr_proto.c's)
 */
static void fg_sync_poll(struct fakeguest *fg)
{
	struct gr_host_ctrl *c = gr_ctrl(fg->region);
	u64 start = fg_now_ns(), last = start, now;
	unsigned int n = 0;

	if (!gr_sync_poll_may_start(fg->sync_poll_ns, start))
		return;
	fg->sync_poll_ns = start;
	for (;;) {
		now = fg_now_ns();
		if (!gr_sync_poll_more(start, last, n, now))
			break;
		if (le64_to_cpu(READ_ONCE(c->sync_req)) == fg->sync_ack)
			continue;
		if (!fg_sync_answer(fg))
			break;
		fg->pass_syncs_polled++;
		n++;
		last = fg_now_ns();
	}
}

/*
 * One control pass, spec 9.2: sync first (it does not interact with the
 * rest and its delay widens the host's error bound), then the steps
 * gr_pass_decide() chooses (the driver's decision: settings, refusal or
 * defaults, reset, flush, at most one costly pass per
 * GR_PASS_MIN_INTERVAL_NS); then one GR_VEC_STATUS doorbell if anything
 * was acknowledged.
 */
static void fg_control_pass(struct fakeguest *fg)
{
	struct gr_pass_acks acks;
	struct gr_ctrl_req req;
	bool changed = false;
	u64 now, wait;
	u32 steps;
	int ret;

	pthread_mutex_lock(&fg->pass_lock);
	fg->pass_passes++;
	gr_status_heartbeat(fg->region);
	/* spec 5.7, 6.11: the tick publishes the event counts */
	gr_chan_publish_events(fg->chan);

	if (fg_sync_answer(fg)) {
		changed = true;
		/* v1.12: the answer rung now, the next ones polled for */
		if (fg_sync_poll_on(fg)) {
			fg_ring_host(fg, GR_VEC_STATUS);
			fg_sync_poll(fg);
		}
	}

	/* spec 9.6, 18: no enable bit at or above desc_live */
	ret = gr_ctrl_read(fg->region, fg->lay.wide_offset,
			   fg->nr_events + fg->nr_added, &req);
	acks.ctrl_ack = fg->ctrl_ack;
	acks.flush_ack = fg->flush_ack;
	acks.reset_ack = fg->reset_ack;
	acks.host_present = fg->host_applied;
	now = fg_now_ns();
	steps = gr_pass_decide(&acks, ret, &req, &fg->pass_rl, now, &wait);
	fg->retry_ns = steps & GR_PASS_DEFER ? now + wait : 0;
	if (steps & GR_PASS_APPLY) {
		fg_ctrl_events(fg, &req);
		fg_settings(fg, &req, req.seq);
		/* spec 17.3: after ctrl.seq's acquire, as gr_pass.c */
		fg_hist_apply(fg, fg->lay.hist_size &&
			      (req.features & GR_F_HIST));
		fg->host_applied = true;
		fg->pass_applied++;
	}
	if (steps & GR_PASS_REJECT) {
		fg->ctrl_ack = req.seq;
		fg->pass_rejected++;
		gr_status_rejected(fg->region, req.seq, -EINVAL,
				   (u32)fg->pass_rejected);
	}
	if (steps & GR_PASS_DEFAULTS) {
		fg_defaults(fg, &req);
		fg_settings(fg, &req, fg->ctrl_ack);
		fg_hist_apply(fg, false);
		fg->host_applied = false;
	}
	if (steps & GR_PASS_RESET) {
		fg_reset(fg);
		gr_status_ack_reset(fg->region, req.reset_req);
		fg->reset_ack = req.reset_req;
		fg->pass_resets++;
	}
	if (steps & GR_PASS_FLUSH) {
		fg_flush_all(fg);
		gr_chan_publish_events(fg->chan);
		gr_status_ack_flush(fg->region, req.flush_req);
		fg->flush_ack = req.flush_req;
		fg->pass_flushes++;
	}
	if (steps & ~GR_PASS_DEFER)
		changed = true;
	/* spec 18.2 N2: requests for events by name, after the settings */
	if (fg_names_pass(fg))
		changed = true;

	gr_status_set_consumed_errors(fg->region,
				      gr_chan_consumed_errors(fg->chan));
	pthread_mutex_unlock(&fg->pass_lock);
	if (changed)
		fg_ring_host(fg, GR_VEC_STATUS);
}

/* Milliseconds to the next pass: the tick, or sooner a deferred one's */
static int fg_pass_timeout_ms(const struct fakeguest *fg)
{
	u64 now = fg_now_ns(), ms;

	if (!fg->retry_ns)
		return (int)fg->opt.tick_ms;
	if (fg->retry_ns <= now)
		return 0;
	ms = (fg->retry_ns - now + 999999) / 1000000;
	return ms < fg->opt.tick_ms ? (int)ms : (int)fg->opt.tick_ms;
}

static void fg_drain_fd(int fd, u64 *counter)
{
	uint64_t n;

	if (!ivsh_eventfd_drain(fd, &n) && counter)
		__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/**
 * fg_pass_main() - the control thread
 * @arg: the fake guest
 *
 * The driver's interrupt handlers and tick: wakes on GR_VEC_CTRL (or
 * GR_VEC_CONSUMED, or a message from the ivshmem server), at least every
 * --tick-ms (sooner when a pass was deferred, as the driver's
 * pass_retry), and runs one control pass per wake-up (G21: bounded work
 * whatever the doorbell rate). Stops when pass_stop is set and wake_fd
 * signalled.
 *
 * Context: its own thread; owns the ivshmem client.
 * Return: NULL.
 */
void *fg_pass_main(void *arg)
{
	struct fakeguest *fg = arg;
	struct pollfd pfd[2 + GR_NR_VECTORS];
	unsigned int n, v;
	int sock, ret;

	/* At once after publication: a kick sent before may be lost (8.6) */
	fg_control_pass(fg);
	for (;;) {
		n = 0;
		sock = -1;
		pfd[n].fd = fg->wake_fd;
		pfd[n++].events = POLLIN;
		for (v = 0; v < GR_NR_VECTORS; v++) {
			if (fg->own_fd[v] < 0)
				continue;
			pfd[n].fd = fg->own_fd[v];
			pfd[n++].events = POLLIN;
		}
		if (fg->client_alive) {
			sock = (int)n;
			pfd[n].fd = ivsh_client_fd(&fg->client);
			pfd[n++].events = POLLIN;
		}
		ret = poll(pfd, n, fg_pass_timeout_ms(fg));
		if (__atomic_load_n(&fg->pass_stop, __ATOMIC_ACQUIRE))
			break;
		if (ret > 0) {
			if (pfd[0].revents)
				fg_drain_fd(fg->wake_fd, NULL);
			for (v = 0; v < GR_NR_VECTORS; v++) {
				if (fg->own_fd[v] < 0)
					continue;
				fg_drain_fd(fg->own_fd[v],
					    v == GR_VEC_CTRL ?
					    &fg->ctrl_doorbells :
					    &fg->consumed_doorbells);
			}
			if (sock >= 0 && pfd[sock].revents) {
				ret = ivsh_client_process(&fg->client, 0);
				if (ret < 0) {
					fg_log("ivshmem server connection lost (%s); polling",
					       strerror(-ret));
					fg->client_alive = false;
				}
			}
		}
		if (fg->host_fds_dirty)
			fg_refresh_host_fds(fg);
		fg_control_pass(fg);
	}
	return NULL;
}
