// SPDX-License-Identifier: GPL-2.0
/*
 * fakeguest.c - a traced guest in userspace, for the host's tests
 *
 * Acts towards the host agent exactly as the guest driver does (spec
 * sections 5, 6, 8, 9 and 11.1), with the real relay core and protocol
 * code of guest-module/ built in userspace. See fakeguest.h for the
 * threads and --help for the options.
 *
 * Life cycle (spec 5.2 and 5.5):
 *
 *   map the region  ivshmem client (shm fd + eventfds) or /dev/shm file
 *   withdraw        old instance_id read, hdr.magic = 0
 *   control block   read once: geometry wish, settings (or defaults)
 *   layout          gr_layout_compute(); gr_chan_open() writes the rings
 *   status          every field but state
 *   publish         gr_region_publish(): descriptors, header, magic last
 *   state           IDLE or TRACING; ring GR_VEC_STATUS
 *   run             control thread, writers, hostile thread
 *   end             writers flush their rings; STOPPED; ring DATA and
 *                   STATUS; wait for the host to consume; withdraw
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "fakeguest.h"

/**
 * fg_log() - a message on stderr, "fakeguest: " first
 * @fmt: printf format
 *
 * Context: any thread.
 */
void fg_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fakeguest: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---------------------------------------------------------------------- */
/* Small helpers                                                          */

/**
 * fg_now_ns() - CLOCK_MONOTONIC in nanoseconds (the guest's event clock)
 *
 * Return: the time.
 */
u64 fg_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * FG_NSEC + (u64)ts.tv_nsec;
}

/**
 * fg_sleep_ns() - sleep @ns nanoseconds, resuming after signals
 * @ns: duration
 *
 * Context: may sleep.
 */
void fg_sleep_ns(u64 ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / FG_NSEC),
		.tv_nsec = (long)(ns % FG_NSEC),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/**
 * fg_futex_wait() - sleep while *@word is @val, at most @timeout_ns
 * @word: futex word
 * @val: value read before the caller checked its conditions
 * @timeout_ns: longest sleep
 */
void fg_futex_wait(u32 *word, u32 val, u64 timeout_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / FG_NSEC),
		.tv_nsec = (long)(timeout_ns % FG_NSEC),
	};

	if (!timeout_ns)
		return;
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

/**
 * fg_futex_wake() - bump *@word and wake its sleepers
 * @word: futex word
 */
void fg_futex_wake(u32 *word)
{
	__atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/**
 * fg_next_instance() - the instance_id that follows @id (never 0)
 * @id: previous instance_id
 *
 * Return: @id + 1, skipping 0 on wrap-around (spec 5.2 step 11).
 */
u64 fg_next_instance(u64 id)
{
	return id + 1 ? id + 1 : 1;
}

/* ---------------------------------------------------------------------- */
/* Run and end                                                            */

static bool fg_all_done(struct fakeguest *fg)
{
	unsigned int i;

	for (i = 0; i < fg->opt.cpus; i++)
		if (!__atomic_load_n(&fg->writers[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Wait up to @ns for SIGINT/SIGTERM. Return: true if one arrived. */
static bool fg_wait_signal(u64 ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / FG_NSEC),
		.tv_nsec = (long)(ns % FG_NSEC),
	};
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sig = sigtimedwait(&set, NULL, &ts);
	if (sig > 0) {
		fg_log("%s: finishing", strsignal(sig));
		return true;
	}
	return false;
}

static void fg_run(struct fakeguest *fg)
{
	u64 end = 0, now, step;

	if (fg->opt.duration > 0)
		end = fg->start_ns + (u64)(fg->opt.duration * FG_NSEC);
	for (;;) {
		now = fg_now_ns();
		if (end && now >= end)
			return;
		if (fg->opt.count && fg_all_done(fg))
			return;
		step = 20000000;
		if (end && end - now < step)
			step = end - now;
		if (fg_wait_signal(step))
			return;
	}
}

/* Has the host consumed everything produced? (under pass_lock) */
static bool fg_all_consumed(struct fakeguest *fg)
{
	struct gr_buf *buf;
	unsigned int i;
	u64 c;

	for (i = 0; i < fg->lay.nr_rings; i++) {
		buf = &fg->chan->bufs[i];
		/* Pairs with the host's release of consumed */
		c = le64_to_cpu(smp_load_acquire(&buf->ring->cons.consumed));
		if (c != buf->published)
			return false;
	}
	return true;
}

/* What is left of the channel once it is closed, for the statistics */
struct fg_ring_final {
	u64 events, lost_full, lost_too_big, lost_nested, overwritten;
	u64 produced, consumed, decisions, consumed_errors;
};

static void fg_finish(struct fakeguest *fg, struct fg_ring_final *fin)
{
	u64 deadline;
	struct gr_buf *buf;
	unsigned int i;
	bool done;

	fg_hostile_stop(fg);

	/* Writers deliver what their rings hold and leave */
	__atomic_store_n(&fg->stop, 1, __ATOMIC_RELEASE);
	fg_wake_writers(fg);
	for (i = 0; i < fg->opt.cpus; i++)
		if (fg->writers[i].started)
			pthread_join(fg->writers[i].thread, NULL);
	fg->end_ns = fg_now_ns();

	pthread_mutex_lock(&fg->pass_lock);
	fg->stopped = true;
	fg->state = GR_STATE_STOPPED;
	gr_status_set_state(fg->region, GR_STATE_STOPPED);
	pthread_mutex_unlock(&fg->pass_lock);
	fg_ring_host(fg, GR_VEC_DATA);
	fg_ring_host(fg, GR_VEC_STATUS);

	/* Give the host time for its final drain */
	deadline = fg_now_ns() + (u64)(fg->opt.linger * FG_NSEC);
	while (fg->host_present && fg_now_ns() < deadline) {
		pthread_mutex_lock(&fg->pass_lock);
		done = fg_all_consumed(fg);
		pthread_mutex_unlock(&fg->pass_lock);
		if (done || fg_wait_signal(10000000))
			break;
	}

	if (fg->pass_started) {
		__atomic_store_n(&fg->pass_stop, 1, __ATOMIC_RELEASE);
		if (eventfd_write(fg->wake_fd, 1))
			fg_log("cannot wake the control thread");
		pthread_join(fg->pass_thread, NULL);
	}
	/* spec 17: no request runs on the maps once the region goes */
	fg_hist_stop(fg);

	for (i = 0; i < fg->lay.nr_rings; i++) {
		buf = &fg->chan->bufs[i];
		fin[i].events = buf->events;
		fin[i].lost_full = buf->lost_full;
		fin[i].lost_too_big = buf->lost_too_big;
		fin[i].lost_nested = (u64)atomic64_read(&buf->lost_nested);
		fin[i].overwritten = buf->overwritten;
		fin[i].produced = buf->produced;
		/* Pairs with the host's release of consumed */
		fin[i].consumed = fg_load_req(&buf->ring->cons.consumed);
		fin[i].decisions = buf->doorbells;
		fin[i].consumed_errors = buf->consumed_errors;
	}
	gr_chan_close(fg->chan);
	fg->chan = NULL;
	if (!fg->opt.keep_layout)
		gr_region_withdraw(fg->region);
}

/* ---------------------------------------------------------------------- */
/* Statistics                                                             */

#define KV(f, key, val) \
	fprintf(f, "%s %llu\n", key, (unsigned long long)(val))

static void fg_kv_idx(FILE *f, const char *pre, unsigned int i,
		      const char *key, u64 val)
{
	fprintf(f, "%s.%u.%s %llu\n", pre, i, key, (unsigned long long)val);
}

static void fg_stats(struct fakeguest *fg, const struct fg_ring_final *fin,
		     FILE *f)
{
	u64 tw = 0, tsw = 0, tsd = 0, tlost = 0, tprod = 0, ev;
	struct fg_writer *w;
	unsigned int i, j;

	KV(f, "instance_id", fg->instance_id);
	KV(f, "region_size", fg->region_size);
	KV(f, "peer_id", fg->peer_id);
	KV(f, "nr_cpus", fg->opt.cpus);
	KV(f, "nr_rings", fg->lay.nr_rings);
	KV(f, "global", fg->opt.global);
	KV(f, "subbuf_size", fg->lay.subbuf_size);
	KV(f, "n_subbufs", fg->lay.n_subbufs);
	KV(f, "max_event_size", fg->lay.max_event_size);
	KV(f, "desc_count", fg->lay.desc_count);
	KV(f, "seq_payload_size", fg->opt.size);
	KV(f, "guest_features", fg->guest_features);
	KV(f, "features_in_use", fg->features);
	KV(f, "mode", fg->mode);
	KV(f, "elapsed_ns", fg->end_ns - fg->start_ns);
	for (i = 0; i < fg->opt.cpus; i++) {
		w = &fg->writers[i];
		fg_kv_idx(f, "cpu", i, "ticks", w->ticks);
		fg_kv_idx(f, "cpu", i, "written",
			  w->seq_written + w->other_written);
		fg_kv_idx(f, "cpu", i, "dropped",
			  w->seq_dropped + w->other_dropped);
		fg_kv_idx(f, "cpu", i, "seq_next", w->seq_next);
		fg_kv_idx(f, "cpu", i, "seq_written", w->seq_written);
		fg_kv_idx(f, "cpu", i, "seq_dropped", w->seq_dropped);
		fg_kv_idx(f, "cpu", i, "seq_first", w->seq_first);
		fg_kv_idx(f, "cpu", i, "seq_last", w->seq_last);
		fg_kv_idx(f, "cpu", i, "other_written", w->other_written);
		fg_kv_idx(f, "cpu", i, "other_dropped", w->other_dropped);
		fg_kv_idx(f, "cpu", i, "flushes", w->flushes);
		fg_kv_idx(f, "cpu", i, "timer_flushes", w->timer_flushes);
		tw += w->seq_written + w->other_written;
		tsw += w->seq_written;
		tsd += w->seq_dropped;
	}
	for (i = 0; i < fg->lay.nr_rings; i++) {
		fg_kv_idx(f, "ring", i, "events", fin[i].events);
		fg_kv_idx(f, "ring", i, "lost_full", fin[i].lost_full);
		fg_kv_idx(f, "ring", i, "lost_too_big", fin[i].lost_too_big);
		fg_kv_idx(f, "ring", i, "lost_nested", fin[i].lost_nested);
		fg_kv_idx(f, "ring", i, "overwritten", fin[i].overwritten);
		fg_kv_idx(f, "ring", i, "produced",
			  fin[i].produced - fg->rings[i].produced_start);
		fg_kv_idx(f, "ring", i, "packet_first",
			  fg->rings[i].produced_start);
		fg_kv_idx(f, "ring", i, "packet_next", fin[i].produced);
		fg_kv_idx(f, "ring", i, "consumed", fin[i].consumed);
		fg_kv_idx(f, "ring", i, "doorbells",
			  fg->rings[i].doorbells_rung);
		fg_kv_idx(f, "ring", i, "doorbell_decisions",
			  fin[i].decisions);
		fg_kv_idx(f, "ring", i, "consumed_errors",
			  fin[i].consumed_errors);
		fg_kv_idx(f, "ring", i, "corrupted", fg->rings[i].corrupted);
		fg_kv_idx(f, "ring", i, "lied", fg->rings[i].lied);
		tlost += fin[i].lost_full + fin[i].lost_too_big +
			 fin[i].lost_nested;
		tprod += fin[i].produced - fg->rings[i].produced_start;
	}
	for (j = 0; j < fg->nr_events; j++) {
		ev = 0;
		for (i = 0; i < fg->opt.cpus; i++)
			ev += fg->writers[i].ev_written[j];
		fg_kv_idx(f, "event", j, "written", ev);
	}
	KV(f, "total.written", tw);
	KV(f, "total.seq_written", tsw);
	KV(f, "total.seq_dropped", tsd);
	KV(f, "total.lost", tlost);
	KV(f, "total.produced", tprod);
	KV(f, "doorbells.data_rung", fg->data_rung);
	KV(f, "doorbells.status_rung", fg->status_rung);
	KV(f, "doorbells.ctrl_received", fg->ctrl_doorbells);
	KV(f, "doorbells.consumed_received", fg->consumed_doorbells);
	KV(f, "ctrl.passes", fg->pass_passes);
	KV(f, "ctrl.applied", fg->pass_applied);
	KV(f, "ctrl.rejected", fg->pass_rejected);
	KV(f, "ctrl.flushes", fg->pass_flushes);
	KV(f, "ctrl.resets", fg->pass_resets);
	KV(f, "ctrl.syncs", fg->pass_syncs);
	KV(f, "ctrl.syncs_polled", fg->pass_syncs_polled);
	if (fg->opt.probes) {
		u32 k, live = 0;

		for (k = 0; k < fg->nr_probes; k++)
			live += fg->probes[k].live;
		KV(f, "probes.live", live);
		KV(f, "probes.created", fg->probes_created);
		KV(f, "probes.deleted", fg->probes_deleted);
		KV(f, "probes.unprobe_all", fg->probes_unprobe_all);
	}
	if (fg->opt.hostile != FG_HOSTILE_NONE) {
		fprintf(f, "hostile %s\n", fg_hostile_name(fg->opt.hostile));
		KV(f, "hostile.steps", fg->hostile_steps);
	}
}

/* ---------------------------------------------------------------------- */
/* Options                                                                */

static void fg_usage(FILE *f)
{
	fputs(
"Usage: fakeguest (--socket PATH | --shm NAME) [options]\n"
"\n"
"A traced guest in userspace: the real guestrelay relay core and protocol\n"
"code, writing synthetic events into a real ivshmem region, for the host\n"
"agent's integration tests and benchmarks.\n"
"\n"
"Region:\n"
"  --socket PATH          connect to an ivshmem server (the agent) as QEMU's\n"
"                         ivshmem-doorbell device does: shm + eventfds\n"
"  --shm NAME             map /dev/shm/NAME (ivshmem-plain: no doorbells)\n"
"  --force                run without a host control block (defaults)\n"
"  --wait-host SECS       wait this long for a control block (default 5)\n"
"\n"
"Guest:\n"
"  --cpus N               writer threads, one per CPU (default 2, max 256)\n"
"  --global               one ring shared by all CPUs (GR_HDR_GLOBAL)\n"
"  --events N             events described, 1..256 (default 4): 0 fake_seq,\n"
"                         1 fake_str (VARLEN string), 2.. fake_ev<k>\n"
"  --size BYTES           fake_seq payload size, >= 32 (default 48)\n"
"  --subbuf-size BYTES    sub-buffer size without a host wish (power of 2)\n"
"  --subbufs N            sub-buffers per ring without a host wish\n"
"  --mode stream|flight   mode without host settings (default stream)\n"
"  --switch-timer-ms MS   switch timer without host settings (default 0);\n"
"                         with host settings the host's switch_timer_us rules\n"
"  --tick-ms MS           control tick (default 100)\n"
"  --hist-kib KIB         hist area kept when the host offers GR_F_HIST\n"
"                         (spec 17; as the module's hist_kib: default 1024,\n"
"                         0 = none, at least 64, at most region / 8); the\n"
"                         host's hist requests run on every record\n"
"  --sync-tsc OFFSET      answer clock syncs with a TSC too (spec 9.5,\n"
"                         GR_F_SYNC_TSC): the host's TSC as KVM would give\n"
"                         it, ((tsc * RATIO) >> FRAC) + OFFSET\n"
"  --sync-tsc-ratio RATIO:FRAC  KVM's TSC scaling (default 1:0)\n"
"  --sync-tsc-skew TICKS  add TICKS to the TSC answered (a lying guest)\n"
"  --sync-delay-us US     wait US before answering a clock sync (a\n"
"                         wide round trip)\n"
"  --sync-poll            with doorbells, offer GR_F_SYNC_POLL (spec 9.5,\n"
"                         v1.12): after a sync answered on a doorbell, poll\n"
"                         for the series' next requests as the module does\n"
"  --vmsync               vmsync_hg_guest and vmsync_gh_guest (spec 9.8,\n"
"                         GR_F_VMSYNC), ids after the sched events: CPU 0\n"
"                         writes the two of each sync request answered\n"
"  --sched                also sched_wakeup and sched_switch (the module's\n"
"                         shapes, ids N and N+1 for --events N): each CPU\n"
"                         wakes a task per tick and switches to it 1..8\n"
"                         ticks later (a run-queue latency, `hist --latency\n"
"                         runq`)\n"
"  --anyevent             events by name (spec 18, GR_F_ANYEVENT): 8 more\n"
"                         descriptor slots, a catalogue of its own (fsys:\n"
"                         ev_ints, ev_comm, ev_msg; other: thing, no_rec\n"
"                         (cannot be recorded), fake_seq (EEXIST)), ADD\n"
"                         and LIST answered; added events are recorded\n"
"                         once enabled\n"
"  --wide                 with --anyevent: the wide area (spec 19,\n"
"                         GR_F_WIDE_EVENTS) when the region holds more\n"
"                         than 256 slots (2 MiB and more): events by name\n"
"                         up to wide_capacity while the host has the bit\n"
"  --long                 with --wide: two events of the catalogue do not\n"
"                         fit 576 bytes (spec 20, GR_F_LONG_DESC, 16 MiB\n"
"                         regions): added with the extension while the\n"
"                         host has the bit, else refused\n"
"  --catalogue N          N more events bulk:ev<k> in the catalogue\n"
"  --names-hostile KIND   len, next, garbage, seq (answers), desc (an added\n"
"                         descriptor breaks 7.4), live (desc_live past\n"
"                         desc_capacity), silent (no answer); probes:\n"
"                         probe-reason (escapes in the E line), probe-long\n"
"                         (an E line of 1500 bytes), probe-dline (a D line\n"
"                         of no probe), probe-system (an A line of\n"
"                         another system)\n"
"  --probes               with --anyevent: probes from the host (spec 18.4,\n"
"                         GR_F_PROBE), 24 slots; symbols do_sys_openat2,\n"
"                         vfs_read, vfs_write; fetchargs %REG, $retval,\n"
"                         +OFF(%REG), types u/s/x8..64, string, ustring;\n"
"                         each probe enabled records once per tick\n"
"  --no-hostprobe         ... forbidden (hostprobe=0): EPERM\n"
"\n"
"Load (each writer tick writes one fake_seq and the next other event):\n"
"  --rate N               ticks per second per CPU (default 1000)\n"
"  --max                  as fast as possible\n"
"  --duration SECS        stop after this time\n"
"  --count N              stop after N ticks per CPU (fake_seq 0..N-1)\n"
"                         (neither: run until SIGINT/SIGTERM)\n"
"\n"
"Hostile (for the agent's robustness tests; starts from a valid layout):\n"
"  --hostile KIND         magic, geometry, strings, counters, packets,\n"
"                         race, flood, random, records or lastrec\n"
"  --hostile-delay MS     valid operation before the damage (default 300)\n"
"  --hostile-period MS    time between damage steps (default 100)\n"
"  --seed S               random seed of the hostile modes (default 1)\n"
"\n"
"End:\n"
"  --linger SECS          wait for the host to consume all (default 5)\n"
"  --keep-layout          do not withdraw the layout at exit\n"
"  --stats FILE           write the statistics as 'key value' lines\n"
"  --quiet                do not print the statistics\n"
"  --vcpu-threads N       N more threads named \"CPU <n>/TCG\" as QEMU's vCPU\n"
"                         threads (-name ...,debug-threads=on), each spinning\n"
"                         on the CPU until the end: the host stream's tests\n"
"  --late-vcpus N         the last N of them start 2 s after the connection,\n"
"                         as hot-plugged vCPUs (the host must follow them)\n"
"  --help                 this text\n"
"\n"
"At the end every ring is flushed, state becomes STOPPED, GR_VEC_DATA and\n"
"GR_VEC_STATUS ring, and the guest waits for the host before it withdraws.\n"
"Statistics: cpu.N.* per writer (ticks, seq_next, seq_written, seq_first,\n"
"seq_last, ...), ring.N.* per ring (events, lost_full, lost_too_big,\n"
"lost_nested, overwritten, produced, doorbells, ...), event.ID.written,\n"
"doorbells.*, ctrl.*, hostile.*.\n", f);
}

static int fg_parse_u64(const char *s, u64 min, u64 max, u64 *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int fg_parse_u32(const char *s, u32 min, u32 max, u32 *out)
{
	u64 v;

	if (fg_parse_u64(s, min, max, &v))
		return -EINVAL;
	*out = (u32)v;
	return 0;
}

static int fg_parse_s64(const char *s, s64 *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* RATIO:FRAC, a KVM TSC scaling ratio of FRAC fraction bits (<= 63) */
static int fg_parse_ratio(const char *s, u64 *ratio, u32 *frac)
{
	const char *colon = strchr(s, ':');
	char head[32];

	if (!colon || (size_t)(colon - s) >= sizeof(head))
		return -1;
	memcpy(head, s, (size_t)(colon - s));
	head[colon - s] = '\0';
	return fg_parse_u64(head, 1, UINT64_MAX, ratio) ||
	       fg_parse_u32(colon + 1, 0, 63, frac) ? -1 : 0;
}

static int fg_parse_double(const char *s, double min, double max,
			   double *out)
{
	double v;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

enum {
	OPT_SOCKET = 256, OPT_SHM, OPT_CPUS, OPT_GLOBAL, OPT_EVENTS, OPT_RATE,
	OPT_MAX, OPT_SIZE, OPT_DURATION, OPT_COUNT, OPT_MODE, OPT_SUBBUF_SIZE,
	OPT_SUBBUFS, OPT_TIMER, OPT_HOSTILE, OPT_HOSTILE_DELAY,
	OPT_HOSTILE_PERIOD, OPT_SEED, OPT_STATS, OPT_FORCE, OPT_WAIT_HOST,
	OPT_LINGER, OPT_TICK, OPT_KEEP, OPT_QUIET, OPT_HELP, OPT_VCPU_THREADS,
	OPT_LATE_VCPUS, OPT_HIST_KIB, OPT_SCHED, OPT_VMSYNC, OPT_ANYEVENT,
	OPT_WIDE,
	OPT_LONG,
	OPT_CATALOGUE,
	OPT_NAMES_HOSTILE, OPT_PROBES, OPT_NO_HOSTPROBE, OPT_SYNC_TSC,
	OPT_SYNC_TSC_RATIO, OPT_SYNC_TSC_SKEW, OPT_SYNC_DELAY, OPT_SYNC_POLL,
};

static const struct option fg_long_opts[] = {
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "shm", required_argument, NULL, OPT_SHM },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "global", no_argument, NULL, OPT_GLOBAL },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "max", no_argument, NULL, OPT_MAX },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "subbuf-size", required_argument, NULL, OPT_SUBBUF_SIZE },
	{ "subbufs", required_argument, NULL, OPT_SUBBUFS },
	{ "switch-timer-ms", required_argument, NULL, OPT_TIMER },
	{ "hostile", required_argument, NULL, OPT_HOSTILE },
	{ "hostile-delay", required_argument, NULL, OPT_HOSTILE_DELAY },
	{ "hostile-period", required_argument, NULL, OPT_HOSTILE_PERIOD },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "wait-host", required_argument, NULL, OPT_WAIT_HOST },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "tick-ms", required_argument, NULL, OPT_TICK },
	{ "keep-layout", no_argument, NULL, OPT_KEEP },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "vcpu-threads", required_argument, NULL, OPT_VCPU_THREADS },
	{ "late-vcpus", required_argument, NULL, OPT_LATE_VCPUS },
	{ "hist-kib", required_argument, NULL, OPT_HIST_KIB },
	{ "sched", no_argument, NULL, OPT_SCHED },
	{ "vmsync", no_argument, NULL, OPT_VMSYNC },
	{ "sync-tsc", required_argument, NULL, OPT_SYNC_TSC },
	{ "sync-tsc-ratio", required_argument, NULL, OPT_SYNC_TSC_RATIO },
	{ "sync-tsc-skew", required_argument, NULL, OPT_SYNC_TSC_SKEW },
	{ "sync-delay-us", required_argument, NULL, OPT_SYNC_DELAY },
	{ "sync-poll", no_argument, NULL, OPT_SYNC_POLL },
	{ "anyevent", no_argument, NULL, OPT_ANYEVENT },
	{ "wide", no_argument, NULL, OPT_WIDE },
	{ "long", no_argument, NULL, OPT_LONG },
	{ "catalogue", required_argument, NULL, OPT_CATALOGUE },
	{ "names-hostile", required_argument, NULL, OPT_NAMES_HOSTILE },
	{ "probes", no_argument, NULL, OPT_PROBES },
	{ "no-hostprobe", no_argument, NULL, OPT_NO_HOSTPROBE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/**
 * fg_name_index() - the index of @s in @names (an option's values)
 * @s: the value given
 * @names: the values known, by index
 * @n: entries of @names
 *
 * Return: the index, or -1.
 */
int fg_name_index(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return (int)i;
	return -1;
}

static int fg_bad(const char *opt, const char *arg)
{
	fg_log("invalid value for --%s: '%s' (see --help)", opt, arg);
	return -EINVAL;
}

/* Return: 0, 1 for --help, or -EINVAL (message printed) */
static int fg_parse(struct fg_opts *o, int argc, char **argv)
{
	bool have_rate = false;
	u64 v;
	int c;

	o->cpus = 2;
	o->events = 4;
	o->rate = 1000;
	o->size = 48;
	o->mode = GR_MODE_STREAM;
	o->hostile_delay_ms = 300;
	o->hostile_period_ms = 100;
	o->seed = 1;
	o->wait_host = 5;
	o->linger = 5;
	o->tick_ms = 100;
	o->hist_kib = 1024;
	o->tsc_ratio = 1;

	while ((c = getopt_long(argc, argv, "", fg_long_opts, NULL)) != -1) {
		const char *name = NULL;
		int bad = 0;

		switch (c) {
		case OPT_SOCKET:
			o->socket_path = optarg;
			break;
		case OPT_SHM:
			o->shm_name = optarg;
			bad = ivsh_shm_check_name(optarg);
			name = "shm";
			break;
		case OPT_CPUS:
			bad = fg_parse_u64(optarg, 1, FG_MAX_CPUS, &v);
			o->cpus = (unsigned int)v;
			name = "cpus";
			break;
		case OPT_GLOBAL:
			o->global = true;
			break;
		case OPT_EVENTS:
			bad = fg_parse_u64(optarg, 1, GR_MAX_EVENTS, &v);
			o->events = (unsigned int)v;
			name = "events";
			break;
		case OPT_RATE:
			bad = fg_parse_double(optarg, 0.001, 1e9, &o->rate);
			have_rate = true;
			name = "rate";
			break;
		case OPT_MAX:
			o->max_rate = true;
			break;
		case OPT_SIZE:
			bad = fg_parse_u64(optarg, FG_MIN_SEQ_SIZE,
					   GR_MAX_RECORD_SIZE -
					   sizeof(struct gr_event_header), &v);
			o->size = (unsigned int)v;
			name = "size";
			break;
		case OPT_DURATION:
			bad = fg_parse_double(optarg, 0.001, 1e7, &o->duration);
			name = "duration";
			break;
		case OPT_COUNT:
			bad = fg_parse_u64(optarg, 1, UINT64_MAX, &o->count);
			name = "count";
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "stream"))
				o->mode = GR_MODE_STREAM;
			else if (!strcmp(optarg, "flight"))
				o->mode = GR_MODE_FLIGHT;
			else
				bad = -EINVAL;
			name = "mode";
			break;
		case OPT_SUBBUF_SIZE:
			bad = fg_parse_u32(optarg, GR_MIN_SUBBUF_SIZE,
					   GR_MAX_SUBBUF_SIZE, &o->subbuf_size);
			if (!bad && (o->subbuf_size & (o->subbuf_size - 1)))
				bad = -EINVAL;
			name = "subbuf-size";
			break;
		case OPT_SUBBUFS:
			bad = fg_parse_u32(optarg, GR_MIN_SUBBUFS,
					   GR_MAX_SUBBUFS, &o->subbufs);
			name = "subbufs";
			break;
		case OPT_TIMER:
			bad = fg_parse_u32(optarg, 0, 10000,
					   &o->switch_timer_ms);
			name = "switch-timer-ms";
			break;
		case OPT_HOSTILE:
			bad = fg_hostile_parse(optarg, &o->hostile);
			name = "hostile";
			break;
		case OPT_HOSTILE_DELAY:
			bad = fg_parse_u32(optarg, 0, 3600000,
					   &o->hostile_delay_ms);
			name = "hostile-delay";
			break;
		case OPT_HOSTILE_PERIOD:
			bad = fg_parse_u32(optarg, 1, 3600000,
					   &o->hostile_period_ms);
			name = "hostile-period";
			break;
		case OPT_SEED:
			bad = fg_parse_u64(optarg, 0, UINT64_MAX, &o->seed);
			name = "seed";
			break;
		case OPT_STATS:
			o->stats_path = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_WAIT_HOST:
			bad = fg_parse_double(optarg, 0, 3600, &o->wait_host);
			name = "wait-host";
			break;
		case OPT_LINGER:
			bad = fg_parse_double(optarg, 0, 3600, &o->linger);
			name = "linger";
			break;
		case OPT_TICK:
			bad = fg_parse_u32(optarg, 1, 1000, &o->tick_ms);
			name = "tick-ms";
			break;
		case OPT_KEEP:
			o->keep_layout = true;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_VCPU_THREADS:
			bad = fg_parse_u32(optarg, 0, 64, &o->vcpu_threads);
			name = "vcpu-threads";
			break;
		case OPT_LATE_VCPUS:
			bad = fg_parse_u32(optarg, 0, 64, &o->late_vcpus);
			name = "late-vcpus";
			break;
		case OPT_HIST_KIB:
			bad = fg_parse_u32(optarg, 0, GR_MAX_REGION_SIZE / 1024,
					   &o->hist_kib);
			name = "hist-kib";
			break;
		case OPT_SCHED:
			o->sched = true;
			break;
		case OPT_VMSYNC:
			o->vmsync = true;
			break;
		case OPT_SYNC_POLL:
			o->sync_poll = true;
			break;
		case OPT_SYNC_TSC:
			o->sync_tsc = true;
			bad = fg_parse_s64(optarg, &o->tsc_offset);
			name = "sync-tsc";
			break;
		case OPT_SYNC_TSC_RATIO:
			bad = fg_parse_ratio(optarg, &o->tsc_ratio,
					     &o->tsc_frac);
			name = "sync-tsc-ratio";
			break;
		case OPT_SYNC_TSC_SKEW:
			bad = fg_parse_u64(optarg, 0, UINT64_MAX, &o->tsc_skew);
			name = "sync-tsc-skew";
			break;
		case OPT_SYNC_DELAY:
			bad = fg_parse_u32(optarg, 0, 1000000,
					   &o->sync_delay_us);
			name = "sync-delay-us";
			break;
		case OPT_ANYEVENT:
			o->anyevent = true;
			break;
		case OPT_WIDE:
			o->wide = true;
			break;
		case OPT_LONG:
			o->long_desc = true;
			break;
		case OPT_CATALOGUE:
			bad = fg_parse_u32(optarg, 0, 10000, &o->catalogue);
			name = "catalogue";
			break;
		case OPT_NAMES_HOSTILE:
			bad = fg_names_hostile_parse(optarg, &o->names_hostile);
			name = "names-hostile";
			break;
		case OPT_PROBES:
			o->probes = true;
			break;
		case OPT_NO_HOSTPROBE:
			o->no_hostprobe = true;
			break;
		case OPT_HELP:
			fg_usage(stdout);
			return 1;
		default:
			fg_usage(stderr);
			return -EINVAL;
		}
		if (bad)
			return fg_bad(name, optarg);
	}
	if (optind != argc) {
		fg_log("unexpected argument '%s' (see --help)", argv[optind]);
		return -EINVAL;
	}
	if (!o->socket_path == !o->shm_name) {
		fg_log("give exactly one of --socket and --shm");
		return -EINVAL;
	}
	if (fg_nr_events(o) > GR_MAX_EVENTS) {
		fg_log("--sched and --vmsync add 2 events each: --events at most %u",
		       GR_MAX_EVENTS - FG_SCHED_EVENTS - 2);
		return -EINVAL;
	}
	if (o->wide && !o->anyevent) {
		fg_log("--wide needs --anyevent");
		return -EINVAL;
	}
	if (have_rate && o->max_rate) {
		fg_log("--rate and --max exclude each other");
		return -EINVAL;
	}
	if (o->duration > 0 && o->count) {
		fg_log("--duration and --count exclude each other");
		return -EINVAL;
	}
	if (o->hostile == FG_HOSTILE_FLOOD && !o->socket_path) {
		fg_log("--hostile flood needs --socket (doorbells)");
		return -EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */

static int fg_start_threads(struct fakeguest *fg)
{
	unsigned int i;
	int ret;

	/*
	 * Writers first: the control thread may flush the ring of a writer
	 * that has exited, and one that never started counts as exited.
	 */
	for (i = 0; i < fg->opt.cpus; i++) {
		ret = pthread_create(&fg->writers[i].thread, NULL,
				     fg_writer_main, &fg->writers[i]);
		if (ret) {
			fg_log("cannot start writer %u: %s", i, strerror(ret));
			for (; i < fg->opt.cpus; i++)
				fg->writers[i].exited = 1;
			return -ret;
		}
		fg->writers[i].started = true;
	}
	ret = pthread_create(&fg->pass_thread, NULL, fg_pass_main, fg);
	if (ret) {
		fg_log("cannot start the control thread: %s", strerror(ret));
		return -ret;
	}
	fg->pass_started = true;
	ret = fg_hostile_start(fg);
	if (ret)
		fg_log("cannot start the hostile thread: %s", strerror(-ret));
	return ret;
}

static void fg_cleanup(struct fakeguest *fg)
{
	unsigned int i;

	for (i = 0; i < GR_NR_VECTORS; i++)
		if (fg->host_fd[i] >= 0)
			close(fg->host_fd[i]);
	for (i = 0; i < fg->nr_retired; i++)
		close(fg->retired[i]);
	if (fg->have_client) {
		if (fg->region)
			munmap(fg->region, fg->region_size);
		ivsh_client_close(&fg->client);
	} else {
		ivsh_shm_close(&fg->shm);
	}
	if (fg->wake_fd >= 0)
		close(fg->wake_fd);
	if (fg->writers)
		for (i = 0; i < fg->opt.cpus; i++)
			free(fg->writers[i].ev_written);
	free(fg->writers);
	free(fg->rings);
	free(fg->events);
	free(fg->image);
	pthread_mutex_destroy(&fg->pass_lock);
	free(fg);
}

/* a thread named as QEMU names its vCPU threads, spinning */
static void *fg_vcpu_main(void *arg)
{
	volatile unsigned long spin = 0;

	(void)arg;
	for (;;)
		spin++;
	return NULL;
}

static void fg_vcpu_thread(unsigned int index)
{
	char name[16];
	pthread_t t;

	if (pthread_create(&t, NULL, fg_vcpu_main, NULL)) {
		fg_log("cannot start vCPU thread %u", index);
		return;
	}
	snprintf(name, sizeof(name), "CPU %u/TCG", index % 64);
	pthread_setname_np(t, name);
	pthread_detach(t);
}

/*
 * the hot-plugged vCPUs: threads that QEMU starts while the VM runs;
 * @arg is first << 8 | end of their indexes (not the fakeguest, which
 * may be freed before they start)
 */
static void *fg_late_vcpus_main(void *arg)
{
	unsigned int range = (unsigned int)(uintptr_t)arg, i;

	sleep(2);
	for (i = range >> 8; i < (range & 0xff); i++)
		fg_vcpu_thread(i);
	return NULL;
}

int main(int argc, char **argv)
{
	struct fg_ring_final *fin = NULL;
	struct fakeguest *fg;
	pthread_t late;
	sigset_t set;
	unsigned int i;
	FILE *f;
	int ret;

	fg = calloc(1, sizeof(*fg));
	if (!fg)
		return 1;
	fg->wake_fd = -1;
	fg->shm.fd = -1;
	for (i = 0; i < GR_NR_VECTORS; i++) {
		fg->own_fd[i] = -1;
		fg->host_fd[i] = -1;
		fg->host_src[i] = -1;
	}
	pthread_mutex_init(&fg->pass_lock, NULL);
	ret = fg_parse(&fg->opt, argc, argv);
	if (ret) {
		free(fg);
		return ret > 0 ? 0 : 2;
	}

	/* Signals are read by the main thread only, with sigtimedwait() */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	fg->writers = calloc(fg->opt.cpus, sizeof(*fg->writers));
	fg->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!fg->writers || fg->wake_fd < 0) {
		fg_log("out of resources");
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < fg->opt.cpus; i++) {
		fg->writers[i].fg = fg;
		fg->writers[i].cpu = i;
		fg->writers[i].ev_written = calloc(fg_nr_events(&fg->opt),
						   sizeof(u64));
		if (!fg->writers[i].ev_written) {
			ret = -ENOMEM;
			goto out;
		}
	}

	/* before the connection: the agent scans QEMU's threads on it */
	if (fg->opt.late_vcpus > fg->opt.vcpu_threads)
		fg->opt.late_vcpus = fg->opt.vcpu_threads;
	for (i = 0; i < fg->opt.vcpu_threads - fg->opt.late_vcpus; i++)
		fg_vcpu_thread(i);
	ret = fg->opt.socket_path ? fg_map_socket(fg) : fg_map_file(fg);
	if (ret)
		goto out;
	if (fg->opt.late_vcpus &&
	    pthread_create(&late, NULL, fg_late_vcpus_main,
			   (void *)(uintptr_t)((fg->opt.vcpu_threads -
						fg->opt.late_vcpus) << 8 |
					       fg->opt.vcpu_threads)) == 0)
		pthread_detach(late);
	ret = fg_publish(fg);
	if (!ret) {
		fin = calloc(fg->lay.nr_rings, sizeof(*fin));
		if (!fin)
			ret = -ENOMEM;
	}
	if (ret) {
		gr_chan_close(fg->chan);
		goto out;
	}
	fg->start_ns = fg_now_ns();
	fprintf(stderr,
		"fakeguest: instance %llu: %u CPUs, %u ring(s) of %u x %u bytes, %u events, %s\n",
		(unsigned long long)fg->instance_id, fg->opt.cpus,
		fg->lay.nr_rings, fg->lay.n_subbufs, fg->lay.subbuf_size,
		fg->nr_events, fg->have_client ? "doorbells" : "plain");

	ret = fg_start_threads(fg);
	if (!ret)
		fg_run(fg);
	fg_finish(fg, fin);
	if (!fg->opt.quiet)
		fg_stats(fg, fin, stdout);
	if (fg->opt.stats_path) {
		f = fopen(fg->opt.stats_path, "w");
		if (!f) {
			fg_log("cannot write %s: %s", fg->opt.stats_path,
			       strerror(errno));
			ret = ret ? ret : -errno;
		} else {
			fg_stats(fg, fin, f);
			if (fclose(f) && !ret)
				ret = -EIO;
		}
	}
out:
	free(fin);
	fg_cleanup(fg);
	return ret ? 1 : 0;
}
