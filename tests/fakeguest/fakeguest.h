/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fakeguest.h - a traced guest in userspace, for the host's tests
 *
 * The fake guest runs the real guest code (guest-module/gr_relay.c and
 * gr_proto.c, through the userspace shim) over a real ivshmem region: the
 * memory an ivshmem server hands out (--socket, doorbells over the real
 * eventfds, as QEMU's ivshmem-doorbell device) or a /dev/shm file
 * (--shm, the plain device, polling). Each "CPU" is a writer thread; a
 * control thread plays the driver's interrupt handler and tick.
 *
 * Threads and what they own:
 *
 *   main      start-up, publication, the end (flush, STOPPED, linger,
 *             withdrawal) and the statistics
 *   control   the ivshmem client, the guest's own eventfds, the control
 *             pass of spec section 9.2 (under pass_lock), the heartbeat
 *   writer N  ring N (with --global: ring 0, shared through the core's
 *             lock): records, requested flushes, its switch timer
 *   hostile   the damage of --hostile, if any
 *
 * Only a ring's own writer touches the ring. The control thread asks a
 * writer to flush (flush_req / flush_done) and stops writers with
 * "paused" plus a wait on their "inside" counters before a reset, as the
 * kernel driver waits for probes.
 */
#ifndef _FAKEGUEST_H
#define _FAKEGUEST_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ivshmem_client.h"
#include "shm.h"
#include "gr_ctf_packet.h"
#include "gr_relay.h"
#include "gr_proto.h"
#include "gr_hist.h"

#define FG_NSEC			1000000000ULL
#define FG_MAX_CPUS		256
#define FG_MIN_SEQ_SIZE		32	/* cpu, gap, seq, tag */
#define FG_STR_MAX		100	/* fake_str: string bytes incl. NUL */
#define FG_MIN_TIMER_US		1000	/* shortest switch timer honoured */
#define FG_MAX_RETIRED_FDS	64
#define FG_SCHED_LAGS		8	/* --sched: wakeup to switch, 1..8 ticks */
#define FG_SCHED_EVENTS		2	/* --sched: sched_wakeup, sched_switch */

enum fg_hostile {
	FG_HOSTILE_NONE,
	FG_HOSTILE_MAGIC,	/* wrong magic / abi / hdr_size publications */
	FG_HOSTILE_GEOMETRY,	/* absurd sizes, offsets past the region */
	FG_HOSTILE_STRINGS,	/* unterminated and TSDL-injection strings */
	FG_HOSTILE_COUNTERS,	/* produced far ahead, backwards, 2^63 */
	FG_HOSTILE_PACKETS,	/* garbage packet headers among valid ones */
	FG_HOSTILE_RACE,	/* rewrites produced packets while read */
	FG_HOSTILE_FLOOD,	/* doorbell storm on the host's eventfds */
	FG_HOSTILE_RANDOM,	/* random bytes over the whole region */
	FG_HOSTILE_RECORDS,	/* valid packet headers, damaged records */
	FG_HOSTILE_LASTREC,	/* false rec.last_record of committed packets */
};

/* --names-hostile: damage of the answers for events by name (fg_names.c) */
enum fg_names_hostile {
	FG_NAMES_HOSTILE_NONE,
	FG_NAMES_HOSTILE_LEN,		/* ans.len past the strip */
	FG_NAMES_HOSTILE_NEXT,		/* LIST next past total */
	FG_NAMES_HOSTILE_GARBAGE,	/* lines of no syntax, escapes */
	FG_NAMES_HOSTILE_SEQ,		/* the answer under another seq */
	FG_NAMES_HOSTILE_DESC,		/* an added descriptor breaks 7.4 */
	FG_NAMES_HOSTILE_LIVE,		/* desc_live beyond desc_capacity */
	FG_NAMES_HOSTILE_SILENT,	/* no answer at all */
	FG_NAMES_HOSTILE_PROBE_REASON,	/* an E line with escape bytes */
	FG_NAMES_HOSTILE_PROBE_LONG,	/* an E line of 1500 bytes */
	FG_NAMES_HOSTILE_PROBE_DLINE,	/* UNPROBE: a D line of no probe */
	FG_NAMES_HOSTILE_PROBE_SYSTEM,	/* PROBE: the A line's system */
};

#define FG_ANY_SLOTS		8	/* --anyevent: descriptor slots added */
#define FG_ANY_SLOTS_PROBES	24	/* ... with --probes (more than 16) */
/* ... with --wide (spec 19): the wide area's, less the table's */
#define FG_ANY_ADDED_MAX	GR_WIDE_MAX_EVENTS
#define FG_PROBE_IP		0xffffffff81234560ULL	/* a probe's __probe_ip */

/* Kinds of synthetic events; see fg_events.c */
enum fg_event_kind {
	FG_EV_SEQ,		/* fake_seq: cpu, seq, tag, data */
	FG_EV_STR,		/* fake_str: VARLEN string */
	FG_EV_INTS,		/* every integer size, signed and hex */
	FG_EV_CHARS,		/* a CHARS field of varying size */
	FG_EV_GAPS,		/* gaps between fields and at the end */
	FG_EV_BLOB,		/* a large CHARS field */
	FG_EV_WAKEUP,		/* --sched: sched_wakeup, the guest's shape */
	FG_EV_SWITCH,		/* --sched: sched_switch, likewise */
	FG_EV_PROBE,		/* --probes: a kprobe event of the host */
	FG_EV_VMSYNC,		/* --vmsync: vmsync_hg_guest, _gh_guest */
};

struct fg_field {
	char name[GR_LONG_FIELD_NAME_LEN];	/* v1.15: long with --long */
	u16 offset;
	u16 size;
	u8 type;
	u8 flags;
};

struct fg_event {
	char name[GR_LONG_NAME_LEN];	/* v1.15: long with --long */
	char system[GR_LONG_SYSTEM_LEN];
	enum fg_event_kind kind;
	u16 payload_size;		/* maximum for VARLEN */
	u16 flags;			/* GR_EVENT_F_* */
	u16 nr_fields;
	struct fg_field fields[GR_LONG_MAX_FIELDS];
};

struct fg_opts {
	const char *socket_path;
	const char *shm_name;
	unsigned int cpus;
	bool global;
	unsigned int events;
	double rate;			/* ticks per second per writer */
	bool max_rate;
	unsigned int size;		/* fake_seq payload bytes */
	double duration;		/* seconds, 0 = none */
	u64 count;			/* ticks per writer, 0 = none */
	u32 mode;			/* default GR_MODE_* */
	u32 subbuf_size;		/* default sub-buffer size, 0 = core's */
	u32 subbufs;			/* default count, 0 = most that fit */
	u32 switch_timer_ms;		/* default timer without host */
	enum fg_hostile hostile;
	u32 hostile_delay_ms;
	u32 hostile_period_ms;
	u64 seed;
	const char *stats_path;
	bool force;
	double wait_host;		/* seconds to wait for a control block */
	double linger;			/* seconds to wait for the host at end */
	u32 tick_ms;			/* control tick */
	bool keep_layout;
	bool quiet;
	unsigned int vcpu_threads;	/* busy threads named as QEMU's */
	unsigned int late_vcpus;	/* of them, started 2 s after attach */
	u32 hist_kib;			/* hist area wish (GR_F_HIST), 0 = none */
	bool sched;			/* also sched_wakeup and sched_switch */
	bool vmsync;			/* vmsync records (GR_F_VMSYNC) */
	bool sync_tsc;			/* TSC in sync answers (GR_F_SYNC_TSC) */
	bool sync_poll;			/* polled sync rounds (GR_F_SYNC_POLL) */
	s64 tsc_offset;			/* guest TSC: ((host * ratio) >> */
	u64 tsc_ratio;			/*   frac) + offset, as KVM's */
	u32 tsc_frac;
	u64 tsc_skew;			/* added to the TSC answered (a lie) */
	u32 sync_delay_us;		/* pause before a sync answer */
	bool anyevent;			/* events by name (GR_F_ANYEVENT) */
	bool wide;			/* the wide area (GR_F_WIDE_EVENTS) */
	bool long_desc;			/* v1.15: long events in the catalogue */
	u32 catalogue;			/* --catalogue: bulk events listed */
	enum fg_names_hostile names_hostile;
	bool probes;			/* probes from the host (GR_F_PROBE) */
	bool no_hostprobe;		/* ... forbidden: EPERM (hostprobe=0) */
};

/*
 * A kprobe event the host defined (spec 18.4), kept after its deletion
 * for P5 (same name, same layout: the same id back)
 */
struct fg_probe {
	char name[32];
	char fields[512];		/* its LIST fields (the descriptor's) */
	int id;				/* its descriptor, -1 if none */
	bool live;
};

/*
 * One writer thread ("CPU"). The fields up to the statistics are shared
 * with the control thread through atomics; the statistics are written by
 * the writer only and read after it was joined.
 */
struct fg_writer {
	struct fakeguest *fg;
	pthread_t thread;
	unsigned int cpu;
	u32 wake;			/* futex word: bumped to wake the writer */
	u32 inside;			/* odd while the writer touches its ring */
	u64 flush_req;			/* control: flushes asked */
	u64 flush_done;			/* writer: flushes done */
	u64 vmsync_uid;			/* control: vm_uid of @vmsync_req */
	u64 vmsync_req;			/* control: sync request to record */
	u64 vmsync_done;		/* writer: its vmsync records written */
	int done;			/* --count reached */
	int exited;			/* the thread touches nothing any more */
	bool started;			/* the thread exists (to join) */

	u64 ticks;
	u64 seq_next;			/* next fake_seq number = attempts */
	u64 seq_written;
	u64 seq_first;			/* first and last fake_seq written */
	u64 seq_last;
	u64 seq_dropped;
	u64 other_next;			/* counter of the other events */
	u64 sched_next;			/* --sched: ticks of the sched pattern */
	u64 other_written;
	u64 other_dropped;
	u64 flushes;			/* requested flushes done */
	u64 timer_flushes;		/* switch timer flushes done */
	u64 *ev_written;		/* per event id */
	unsigned int rr;		/* round robin over the other events */
	u64 byname_next;		/* counter of the events added by name */
	u64 byname_written;
	u64 timer_next;
	u64 timer_seen;
};

/* Per ring, written from the ring's writer context (callbacks) */
struct fg_ring_stats {
	u64 produced_start;		/* produced when the channel opened */
	u64 finished;			/* sub-buffers finished (atomic) */
	u64 doorbells_rung;		/* GR_VEC_DATA doorbells signalled */
	u64 corrupted;			/* --hostile packets: headers spoiled */
	u64 corrupt_turn;		/* --hostile packets: finished packets seen */
	u64 lied;			/* --hostile lastrec: last_record lies */
	u64 lie_next;			/* --hostile lastrec: next packet to lie on */
};

struct fakeguest {
	struct fg_opts opt;

	/* the region */
	struct ivsh_client client;
	bool have_client;
	bool client_alive;
	bool host_fds_dirty;
	struct ivsh_shm shm;
	u8 *region;
	u64 region_size;
	u32 peer_id;			/* IVPosition: own id, 0 when plain */
	int own_fd[GR_NR_VECTORS];	/* CTRL, CONSUMED; owned by client */
	int host_fd[GR_NR_VECTORS];	/* our dup of the host's, atomic */
	int host_src[GR_NR_VECTORS];	/* the client's fd it was dup'd from */
	int retired[FG_MAX_RETIRED_FDS];
	unsigned int nr_retired;
	int wake_fd;			/* wakes the control thread */

	/* layout and publication */
	struct gr_layout lay;
	struct gr_chan *chan;
	struct fg_event *events;
	unsigned int nr_events;		/* --events, then the sched events */
	unsigned int sched_wakeup;	/* --sched: their ids, else 0 */
	unsigned int sched_switch;
	unsigned int vmsync_hg;		/* --vmsync: their ids, else 0 */
	unsigned int vmsync_gh;
	struct gr_ident ident;
	char nodename[GR_NODENAME_LEN];
	u64 guest_features;
	u64 instance_id;
	u8 *image;			/* valid header and descriptors */
	size_t image_size;
	bool host_present;		/* a control block at start-up */

	/* settings in effect: control writes, writers read (atomics) */
	u64 enabled[GR_WIDE_MAX_EVENTS / 64];
	u32 tracing;
	u32 mode;
	u32 timer_us;
	u64 features;			/* in use: host's & ours */
	u32 host_peer;
	u32 paused;			/* reset in progress */
	u32 stop;			/* writers: final flush and exit */
	u32 pass_stop;

	/* control pass state, under pass_lock */
	pthread_mutex_t pass_lock;
	u64 ctrl_ack;
	u64 flush_ack;
	u64 reset_ack;
	u64 sync_ack;
	u64 sync_poll_ns;		/* start of the last polled burst */
	u32 state;
	bool stopped;
	bool host_applied;		/* settings from a valid host block */
	struct gr_ratelimit pass_rl;	/* spec G28, as the driver's */
	u64 retry_ns;			/* a deferred pass is due, 0 = none */

	/*
	 * events by name (spec 18): the control pass adds, under pass_lock;
	 * writers read @added below @nr_added_pub (acquire)
	 */
	u32 desc_capacity;		/* descriptor slots laid out */
	u32 nr_added;
	u32 nr_added_pub;
	struct fg_event added[FG_ANY_ADDED_MAX];
	u8 added_gone[FG_ANY_ADDED_MAX];	/* a deleted probe: no records */
	u64 names_seq;			/* last request seen */
	u64 names_answered;
	/* probes from the host (spec 18.4), the control pass's */
	struct fg_probe probes[FG_ANY_SLOTS_PROBES];
	u32 nr_probes;
	u64 probes_created, probes_deleted, probes_unprobe_all;

	/* aggregation (spec 17): the control pass owns it, under pass_lock */
	struct gr_hist_ctx hist;
	struct gr_filter_bounds bounds[GR_WIDE_MAX_EVENTS];

	/* threads */
	struct fg_writer *writers;
	pthread_t pass_thread;
	bool pass_started;
	pthread_t hostile_thread;
	bool hostile_started;
	u32 hostile_wake;		/* futex word */
	u32 hostile_stop;
	u32 hostile_armed;

	/* statistics */
	struct fg_ring_stats *rings;
	u64 data_rung;
	u64 status_rung;
	u64 ctrl_doorbells;		/* host -> guest, summed eventfd counts */
	u64 consumed_doorbells;
	u64 pass_passes;
	u64 pass_applied;
	u64 pass_rejected;
	u64 pass_flushes;
	u64 pass_resets;
	u64 pass_syncs;
	u64 pass_syncs_polled;		/* of them answered by polling */
	u64 hostile_steps;
	u64 start_ns;
	u64 end_ns;
};

static inline bool fg_event_enabled(struct fakeguest *fg, unsigned int id)
{
	return (__atomic_load_n(&fg->enabled[id / 64], __ATOMIC_RELAXED) >>
		(id % 64)) & 1;
}

/* Events described: --events, the two of --sched, the two of --vmsync */
static inline unsigned int fg_nr_events(const struct fg_opts *opt)
{
	return opt->events + (opt->sched ? FG_SCHED_EVENTS : 0) +
	       (opt->vmsync ? 2 : 0);
}

/* The ring a CPU writes to */
static inline unsigned int fg_ring_of(const struct fakeguest *fg,
				      unsigned int cpu)
{
	return fg->opt.global ? 0 : cpu;
}

/* fakeguest.c: start, end, statistics, options */
void fg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
u64 fg_now_ns(void);
void fg_sleep_ns(u64 ns);
void fg_futex_wait(u32 *word, u32 val, u64 timeout_ns);
void fg_futex_wake(u32 *word);
u64 fg_next_instance(u64 id);
int fg_name_index(const char *s, const char *const *names, unsigned int n);

/* fg_publish.c: the region and its publication (spec 5.2) */
int fg_map_socket(struct fakeguest *fg);
int fg_map_file(struct fakeguest *fg);
int fg_publish(struct fakeguest *fg);

/* fg_control.c: doorbells, settings, the control pass and thread */
void fg_ring_host(struct fakeguest *fg, unsigned int vector);
void fg_refresh_host_fds(struct fakeguest *fg);
void fg_client_event(void *data, enum ivsh_client_event ev, int peer_id,
		     unsigned int vector);
void fg_client_log(void *data, int prio, const char *fmt, va_list ap);
void fg_doorbell(struct gr_buf *buf);
int fg_subbuf_start(struct gr_buf *buf, void *subbuf, void *prev_subbuf,
		    size_t prev_padding);
void fg_default_events(const struct fakeguest *fg, u64 *enable);
void fg_defaults(const struct fakeguest *fg, struct gr_ctrl_req *req);
void fg_ctrl_events(const struct fakeguest *fg, struct gr_ctrl_req *req);
u32 fg_timer_us(u32 us);
bool fg_apply(struct fakeguest *fg, const struct gr_ctrl_req *req);
u64 fg_load_req(__le64 *field);
void *fg_pass_main(void *arg);

/* fg_writer.c: the CPUs */
void *fg_writer_main(void *arg);
void fg_wake_writers(struct fakeguest *fg);
void fg_vmsync(struct fakeguest *fg, u64 req, u64 uid);
void fg_quiesce(struct fakeguest *fg);
void fg_flush_all(struct fakeguest *fg);
void fg_reset(struct fakeguest *fg);

/* fg_events.c: the synthetic events */
int fg_events_build(struct fakeguest *fg, const char **why);
void fg_desc_fill(unsigned int id, struct gr_event_desc *desc, void *arg);
void fg_desc_fill_event(unsigned int id, const struct fg_event *ev,
			struct gr_event_desc *desc);
bool fg_event_is_long(const struct fg_event *ev);
void fg_desc_fill_ext(unsigned int id, const struct fg_event *ev,
		      struct gr_event_desc_long *slot);
int fg_write_event(struct gr_chan *chan, const struct fg_event *ev,
		   unsigned int id, unsigned int cpu, u64 n);
void fg_count_event(const struct fg_event *ev, unsigned int id,
		    unsigned int cpu, u64 n);
u32 fg_sched_tid(unsigned int cpu, u64 k);

/* fg_hist.c: aggregation (spec 17) */
void fg_hist_init(struct fakeguest *fg);
void fg_hist_apply(struct fakeguest *fg, bool in_use);
void fg_hist_stop(struct fakeguest *fg);
bool fg_hist_on(void);
bool fg_hist_counts(unsigned int id);
void fg_hist_record(unsigned int id, const u8 *payload, u32 len,
		    unsigned int cpu, u64 ts);

/* fg_names.c: events by name (spec 18) */
int fg_names_hostile_parse(const char *s, enum fg_names_hostile *kind);
bool fg_names_pass(struct fakeguest *fg);
void fg_names_write(struct fg_writer *w, bool tracing);
void fg_names_reset(struct fakeguest *fg);
void fg_names_line(struct gr_name_ans *a, u32 *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One event of the catalogue: a table event, fg_cat[], a bulk:ev<k>, a probe */
struct fg_cat_ev {
	char system[GR_LONG_SYSTEM_LEN];
	char name[GR_LONG_NAME_LEN];
	int err;
	enum fg_event_kind kind;
	const char *fields;
	int table_id;			/* its table descriptor, else -1 */
	bool skip;			/* a deleted probe: not in the kernel */
	char table_fields[512];		/* a table event's LIST fields */
};

int fg_names_add_event(struct fakeguest *fg, const struct fg_cat_ev *e);

/* fg_probe.c: probes from the host (spec 18.4) */
static inline unsigned int fg_any_slots(const struct fg_opts *opt)
{
	return opt->anyevent ? (opt->probes ? FG_ANY_SLOTS_PROBES :
				FG_ANY_SLOTS) : 0;
}

int fg_probe_pass(struct fakeguest *fg, u32 op, const char *text,
		  struct gr_name_ans *a);
void fg_probes_reset(struct fakeguest *fg);

/* fg_hostile.c: --hostile */
int fg_hostile_parse(const char *s, enum fg_hostile *kind);
const char *fg_hostile_name(enum fg_hostile kind);
int fg_hostile_start(struct fakeguest *fg);
void fg_hostile_stop(struct fakeguest *fg);
void fg_hostile_packet(struct fakeguest *fg, struct gr_buf *buf,
		       void *prev_subbuf);
u64 fg_rand(u64 *state);

#endif /* _FAKEGUEST_H */
