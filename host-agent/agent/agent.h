/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agent.h - the agent's VM API: what main.c, control/, metrics/, libvirt/
 * and fleet/ may know of the agent (struct gr_agent, a VM's options,
 * statistics and status, the vm_* commands). The agent's internals are in
 * vm.h (struct gr_vm and its parts), which nothing outside agent/ includes.
 *
 * Everything runs on the loop's thread; nothing here is thread-safe.
 * Internal functions return 0 or -errno; the edge (main, ctl) logs once.
 */
#ifndef GR_AGENT_H
#define GR_AGENT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guestrelay_abi.h"
#include "filter.h"
#include "hist.h"
#include "hist_map.h"
#include "loop.h"
#include "name_text.h"
#include "vcpu.h"

#define GR_VERSION		"1.0"	/* of the agent and CLI */
#define GR_VM_NAME_MAX		64	/* bytes incl. NUL */
#define GR_DEFAULT_SHM_SIZE	(16ULL << 20)
/**
 * struct gr_client_counts - a client channel's counts (spec 16)
 * @bytes: bytes stored (klog: text bytes written)
 * @subbufs: sub-buffers stored
 * @invalid: sub-buffers dropped for a bad commit record or bad klog
 *	record (D3, D5)
 * @skipped: sub-buffers lost to a counter jump or an overwrite
 * @write_errors: failed or short writes
 * @lost: the guest's lost counters summed over the rings, by cause
 *	(full, too_big, nested, overwritten)
 * @lost_back: lost counters seen going back (D4)
 */
struct gr_client_counts {
	uint64_t bytes, subbufs, invalid, skipped, write_errors;
	uint64_t lost[4];
	uint64_t lost_back;
};

/* @to += @n, count by count */
static inline void gr_client_counts_add(struct gr_client_counts *to,
					const struct gr_client_counts *n)
{
	unsigned int k;

	to->bytes += n->bytes;
	to->subbufs += n->subbufs;
	to->invalid += n->invalid;
	to->skipped += n->skipped;
	to->write_errors += n->write_errors;
	for (k = 0; k < 4; k++)
		to->lost[k] += n->lost[k];
	to->lost_back += n->lost_back;
}

/* client channels a session's status names: 16 entries, 48 names gone */
#define GR_CLIENT_GONE		48
#define GR_CLIENT_INFO_MAX	(GR_CLIENT_MAX + GR_CLIENT_GONE)
#define GR_DEFAULT_RUN_DIR	"/run/guestrelay"
#define GR_DEFAULT_STORE_DIR	"/var/lib/guestrelay"
#define GR_CTL_SOCK_NAME	"agent.sock"
#define GR_SHM_PREFIX		"guestrelay-"	/* /dev/shm/guestrelay-<vm> */

/* ---- VM configuration and statistics --------------------------------- */

/**
 * struct gr_vm_opts - how a VM is traced; what `vm-add` and the libvirt
 * metadata can set
 */
/* Longest filter expression a VM keeps, bytes incl. NUL */
#define GR_VM_FILTER_EXPR	512

/**
 * struct gr_vm_filter - an event filter the operator asked for (spec 14)
 * @event: event name; "" = unused entry
 * @expr: ftrace filter expression (host-agent/filter/filter.h)
 *
 * Entry i of gr_vm_opts.filters is slot i of the filter area.
 */
struct gr_vm_filter {
	char event[GR_LONG_NAME_LEN];
	char expr[GR_VM_FILTER_EXPR];
};

/* Longest latency preset name ("syscall"), bytes incl. NUL */
#define GR_VM_HIST_PRESET	16

/**
 * struct gr_vm_hist - an aggregation request the operator asked for
 * (spec 17; host-agent/filter/hist.h)
 * @name: the table's name; "" = unused entry
 * @event: the event of an ftrace hist request; "" for a latency preset
 * @latency: "runq", "syscall", "block" or "irq"; "" for an ftrace request
 * @text: "keys=...[:vals=...][:sort=...][:size=N][:name=...]"
 * @filter: filter expression of an ftrace request, "" = none
 *
 * Entry i of gr_vm_opts.hists is request slot i of the hist area.
 */
struct gr_vm_hist {
	char name[GR_HIST_NAME_LEN];
	char event[GR_LONG_NAME_LEN];
	char latency[GR_VM_HIST_PRESET];
	char text[GR_HIST_TEXT_LEN];
	char filter[GR_VM_FILTER_EXPR];
};

/**
 * gr_vm_hist_name() - the name a request's table goes by
 * @h: the request
 * @name: receives its name= if it has one, else its event's or its
 *	preset's name (as gr_hist_parse() and gr_hist_latency() name it)
 * @len: size of @name
 *
 * Context: any.
 */
static inline void gr_vm_hist_name(const struct gr_vm_hist *h, char *name,
				   size_t len)
{
	const char *p = h->text, *end;

	/* a long event name is cut as gr_hist_parse() cuts it (v1.15) */
	snprintf(name, len, "%.*s", GR_HIST_NAME_LEN - 1,
		 h->latency[0] ? h->latency : h->event);
	while (p && *p) {
		end = strchr(p, ':');
		if (!strncmp(p, "name=", 5)) {
			snprintf(name, len, "%.*s", (int)((end ? end :
					p + strlen(p)) - p - 5), p + 5);
			return;
		}
		p = end ? end + 1 : NULL;
	}
}

/*
 * How a VM's records are checked (--verify; spec H24). What stays on disk
 * passed gr_check_records() in on and stored; off checks headers only.
 */
enum gr_verify {
	GR_VERIFY_OFF = 0,	/* zero copy, headers checked */
	GR_VERIFY_ON,		/* copy, check the copy, write the copy */
	GR_VERIFY_STORED,	/* zero copy, then check what was stored;
				 * rewrite from a checked copy if it fails */
};

/* "off", "on", "stored" */
static inline const char *gr_verify_name(enum gr_verify v)
{
	return v == GR_VERIFY_ON ? "on" : v == GR_VERIFY_STORED ? "stored" :
	       "off";
}

#define GR_VM_PROBE_DEF		256	/* a --probe definition, incl. NUL */

struct gr_vm_opts {
	char name[GR_VM_NAME_MAX];	/* [A-Za-z0-9_.-], no leading dot */
	uint64_t shm_size;		/* power of two, 0 = default */
	bool plain;			/* ivshmem-plain: no doorbells, poll */
	uint32_t mode;			/* GR_MODE_* */
	char events[1024];		/* comma list: names, globs, "all" */
	uint32_t subbuf_size;		/* geometry wish, 0 = guest default */
	uint32_t n_subbufs;		/* geometry wish, 0 = guest default */
	uint32_t switch_timer_us;	/* 0 = off */
	uint64_t quota;			/* bytes for this VM's store, 0 = none */
	uint64_t rotate_size;		/* close a chunk at this size, 0 = no */
	uint32_t rotate_interval_s;	/* close a chunk this old, 0 = no */
	uint32_t keep_chunks;		/* closed chunks kept, 0 = all */
	uint64_t keep_bytes;		/* bytes of closed chunks kept, 0 = all */
	uint32_t uid, gid;		/* owner of shm and socket (QEMU's) */
	bool own;			/* uid/gid are set */
	enum gr_verify verify;		/* --verify (spec H24) */
	bool no_host_stream;		/* --host-stream off: no host/ */
	bool io_writev;			/* --io writev (default): one writev
					 * per packet; --io fixed: two
					 * write_fixed from registered buffers
					 * (cost 1.1-1.2x the CPU per GB on
					 * tmpfs, bench_host.sh) */
	struct gr_vm_filter filters[GR_FILTER_SLOTS];	/* event filters */
	struct gr_fx_follow follow;	/* follow filter (spec 15) */
	struct gr_vm_hist hists[GR_HIST_REQS];	/* aggregation (spec 17) */
	char probes[GR_PROBE_MAX][GR_VM_PROBE_DEF];	/* --probe (spec 18.4) */
};

/*
 * a + b, or UINT64_MAX if that does not fit: counters a guest can drive
 * (its own counters, sub-buffers skipped over a counter jump) saturate
 * instead of wrapping into small, false values
 */
static inline uint64_t gr_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Why a VM's stream stopped (gr_vm.stop_reason) */
enum gr_stop_reason {
	GR_STOP_NONE = 0,
	GR_STOP_QUOTA,			/* the VM's quota is used up */
	GR_STOP_DISK,			/* ENOSPC / EDQUOT / EIO on write */
	GR_STOP_USER,			/* `guestrelay stop` */
	GR_STOP_GUEST,			/* guest stopped, panicked or left */
	GR_STOP_INVALID,		/* --verify stored: a stored packet
					 * failed and no good copy was had */
};

/**
 * struct gr_vm_stats - counters of one VM (host-side truths, plus the
 * guest's own counters, which are marked as such)
 */
struct gr_vm_stats {
	uint64_t packets;		/* sub-buffers stored */
	uint64_t bytes;			/* bytes stored, this session */
	uint64_t invalid;		/* sub-buffers dropped as invalid */
	uint64_t invalid_records;	/* of those, for a record (verify) */
	uint64_t rewritten;		/* --verify stored: packets rewritten
					 * from a checked copy */
	uint64_t last_record_refused;	/* rec.last_record failing H31:
					 * the records were walked */
	uint64_t skipped;		/* sub-buffers lost to counter jumps */
	uint64_t doorbells_in;		/* guest -> host notifications */
	uint64_t doorbell_passes;	/* passes they drove (coalesced) */
	uint64_t doorbells_out;		/* host -> guest notifications */
	uint64_t polls;			/* timer wake-ups */
	uint64_t write_errors;		/* failed or short writes */
	uint64_t bad_region;		/* rejected region headers */
	uint64_t hist_bad_maps;		/* CPU maps of hist requests refused:
					 * went backwards or bad (spec 17.4) */
	uint64_t hist_torn;		/* map entries left out: torn twice */
	uint64_t desc_added;		/* descriptors the guest added at run
					 * time, adopted (spec 18.3 M2) */
	uint64_t desc_refused;		/* batches of them refused */
	uint64_t desc_live_bad;		/* desc_live values out of range */
	uint64_t probes_live;		/* probes of the host alive in the
					 * guest now (spec 18.4, a gauge) */
	uint64_t probes_defined;	/* probes the guest created for it */
	uint64_t probes_deleted;	/* probes it deleted on request */
	uint64_t sync_tsc_refused;	/* clock-sync TSC readings outside
					 * their round trip (H32; hostctl's) */
	uint64_t sync_polled;		/* clock-sync rounds answered while
					 * the host spun (v1.12, H33) */
	uint64_t sync_spin_missed;	/* spins that saw no answer: rung */
	/* the guest's counters, summed over rings (untrusted, informative) */
	uint64_t guest_events;
	uint64_t lost_full;
	uint64_t lost_too_big;
	uint64_t lost_nested;
	uint64_t overwritten;
	uint64_t produced;		/* sub-buffers produced (guest) */
};

/* ---- vm.c ------------------------------------------------------------ */

enum gr_vm_state {
	GR_VM_WAITING = 0,		/* no valid publication yet */
	GR_VM_ATTACHED,			/* layout validated, session open */
	GR_VM_STOPPED,			/* session closed, waiting for start */
};

struct gr_agent;
struct gr_vm;

/**
 * typedef gr_done_fn - completion of an asynchronous VM command
 * @arg: the caller's argument
 * @err: 0 or -errno
 * @msg: a result (e.g. a trace path) or an error text; may be NULL
 */
typedef void (*gr_done_fn)(void *arg, int err, const char *msg);

int vm_add(struct gr_agent *a, const struct gr_vm_opts *o, struct gr_vm **vmp,
	   char *err, size_t errlen);
void vm_remove(struct gr_vm *vm);
struct gr_vm *vm_find(struct gr_agent *a, const char *name);
const char *vm_name(const struct gr_vm *vm);
enum gr_vm_state vm_state(const struct gr_vm *vm);
const char *vm_state_name(const struct gr_vm *vm);
void vm_get_stats(const struct gr_vm *vm, struct gr_vm_stats *st);

int vm_set_events(struct gr_vm *vm, const char *list, bool on,
		  char *err, size_t errlen);

/**
 * typedef gr_list_fn - completion of `events` (vm_list_events())
 * @arg: the caller's argument
 * @err: 0 or -errno
 * @msg: an error text, or NULL
 * @l: the guest's listing (valid during the call), NULL on error
 */
typedef void (*gr_list_fn)(void *arg, int err, const char *msg,
			   const struct gr_name_list *l);

/* vm_names.c, events by name (spec 18); GR_ASYNC: done will be called */
#define GR_ASYNC		1
int vm_enable_events(struct gr_vm *vm, const char *list, gr_done_fn done,
		     void *arg, char *err, size_t errlen);
int vm_list_events(struct gr_vm *vm, const char *glob, gr_list_fn done,
		   void *arg, char *err, size_t errlen);

/**
 * struct gr_probe_info - a probe the host defined (`probe VM`, spec 18.4)
 * @name: its NAME (the event guestrelay:NAME)
 * @def: its definition as given
 * @id: its descriptor while alive in the guest, else -1
 * @err: the last definition's error (-errno), 0 if none
 * @state: "recording", "defined, not adopted", "not defined" or
 *	"to define" (a static string)
 */
struct gr_probe_info {
	char name[32];
	char def[GR_NAME_REQ_TEXT + 1];
	int id;
	int err;
	const char *state;
};

/* vm_probes.c, probes from the host (spec 18.4) */
int vm_probe(struct gr_vm *vm, const char *def, gr_done_fn done, void *arg,
	     char *err, size_t errlen);
unsigned int vm_probe_list(struct gr_vm *vm, struct gr_probe_info *out,
			   unsigned int max);
unsigned int vm_probes_live(const struct gr_vm *vm);
void vm_probes_drop(struct gr_vm **vms, unsigned int n);

int vm_set_mode(struct gr_vm *vm, uint32_t mode, char *err, size_t errlen);
int vm_set_follow(struct gr_vm *vm, const struct gr_fx_follow *fo, char *err,
		  size_t errlen);
int vm_set_filter(struct gr_vm *vm, char *const *events, int nr,
		  const char *expr, char *err, size_t errlen);
int vm_flush(struct gr_vm *vm, gr_done_fn done, void *arg);

/**
 * struct gr_vm_hist_out - one aggregation request and its table, read
 * @h: the request as the operator gave it (struct gr_vm_hist)
 * @spec: as compiled against the guest's events (valid if @compiled)
 * @compiled: @spec holds the request the guest was asked for
 * @state: "running", "pending" (the guest has not answered this
 *	request yet), "refused" (by the host or the guest: @why) or
 *	"waiting" (no guest has published)
 * @why: why refused, "" otherwise
 * @table: the maps, read and merged (rows only when "running");
 *	gr_hist_table_free() by the caller
 */
struct gr_vm_hist_out {
	struct gr_vm_hist h;
	struct gr_hist_spec spec;
	bool compiled;
	const char *state;
	char why[256];
	struct gr_hist_table table;
};

int vm_set_hist(struct gr_vm *vm, struct gr_vm_hist *h, char *err,
		size_t errlen);
int vm_clear_hist(struct gr_vm *vm, const char *name, bool remove, char *err,
		  size_t errlen);
int vm_hist_read(struct gr_vm *vm, const char *name,
		 struct gr_vm_hist_out *out, unsigned int max);
void vm_hist_out_free(struct gr_vm_hist_out *out, unsigned int n);
int vm_snapshot(struct gr_vm *vm, gr_done_fn done, void *arg);
int vm_stop(struct gr_vm *vm, gr_done_fn done, void *arg);
int vm_rotate(struct gr_vm *vm, gr_done_fn done, void *arg);
int vm_start(struct gr_vm *vm, char *err, size_t errlen);

/**
 * struct gr_vm_ship - --ship: what of the VM's store JetStream has not
 * acknowledged yet (fleet/ship.c: whole packets, metadata and
 * .guestrelay versions)
 */
struct gr_vm_ship {
	bool enabled;			/* the agent ships (--ship) */
	bool connected;			/* to a NATS server, now */
	uint64_t backlog_bytes;
	uint64_t backlog_packets;
	double oldest_s;		/* age of the oldest, 0 if none */
};

/*
 * Fills a VM's struct gr_vm_ship for vm_get_info(); set by main.c when
 * the agent ships (fleet/ is above agent/ and is not called from here).
 * Context: the loop; the hook may take the shipper's lock.
 */
extern void (*gr_vm_ship_hook)(const char *vm, struct gr_vm_ship *out);

/**
 * struct gr_vm_info - what `guestrelay status` shows of one VM
 */
struct gr_vm_info {
	char name[GR_VM_NAME_MAX];
	const char *state;		/* waiting, attached, stopped */
	const char *guest_state;	/* the guest's GR_STATE_*, by name */
	bool doorbell;			/* ivshmem-doorbell (else plain) */
	bool guest_connected;		/* QEMU is connected to our socket */
	uint32_t mode;			/* GR_MODE_* requested */
	uint32_t switch_timer_us;	/* asked of the guest, 0 = off */
	uint32_t nr_rings, subbuf_size, n_subbufs;
	char kernel_release[GR_RELEASE_LEN + 1];
	char nodename[GR_NODENAME_LEN + 1];
	char session[PATH_MAX];		/* trace directory, "" if none */
	/* events the guest records, by name: room for every id's */
	char events[GR_WIDE_MAX_EVENTS * (GR_LONG_NAME_LEN + 1)];
	char pending[64];		/* requests not yet acknowledged */
	const char *stop_reason;	/* "", "quota", "disk", "user", "guest",
					 * "invalid" */
	uint64_t quota, usage;		/* bytes */
	enum gr_verify verify;		/* how records are checked */
	const char *io;			/* "fixed", "writev" (in use now) */
	int64_t sync_offset_ns;		/* host realtime - guest clock */
	uint64_t sync_error_ns;		/* bound of that offset, 0 = unknown */
	const char *sync_method;	/* gr_ctf_clock_method() of the clock */
	double rate_bps;		/* bytes/s stored, last few seconds */
	struct gr_vm_stats st;
	struct {
		char active[256];	/* chunk being written, "" if none */
		uint64_t closed;	/* closed chunks in the store */
		uint64_t closed_bytes;
		uint64_t rotations;	/* since the VM was added */
		uint64_t pruned;	/* closed chunks deleted by retention */
		uint64_t pruned_bytes;
		uint64_t held;		/* kept by retention: not shipped */
		uint64_t collected_pruned;	/* deleted: collected */
	} chunks;
	struct {
		char event[GR_LONG_NAME_LEN];
		char expr[GR_VM_FILTER_EXPR];
		const char *state;	/* active, pending, refused */
		char why[256];		/* why refused, "" otherwise */
		uint64_t filtered;	/* the guest's count (spec H27) */
	} filters[GR_FILTER_SLOTS];	/* event "" = unused */
	uint32_t filter_errors;		/* filter areas the guest refused */
	struct {
		char what[GR_FOLLOW_MAX_PIDS * 9 + 64];	/* "" = none */
		const char *state;	/* active, pending, refused */
		char why[256];		/* why refused, "" otherwise */
		uint32_t tasks;		/* the guest's counts (spec 15.4) */
		uint32_t missing;
		uint64_t dropped;
		uint64_t forks;
	} follow;
	struct gr_vm_ship ship;
	struct gr_vcpus vcpus;		/* QEMU's vCPU threads (vcpu.c) */
	struct {
		const char *state;	/* "on", "off" (--host-stream off),
					 * "none" (it failed: err), "-" (no
					 * session, or QEMU not found yet) */
		int err;		/* -errno of "none" */
		uint64_t events;	/* stored this session */
		uint64_t lost;		/* the host kernel's count */
	} host_stream;
	/*
	 * client channels (spec 16) of the session, one per name (a name
	 * published again adds to its counts, as its files are appended
	 * to): the host's counts, the guest's losses
	 */
	struct gr_client_info {
		char name[GR_NAME_LEN];	/* "" = unused entry */
		const char *state;	/* published, withdrawn */
		bool klog;		/* stored as text lines */
		uint32_t rings;
		struct gr_client_counts n;
	} channels[GR_CLIENT_INFO_MAX];
	uint64_t client_untracked;	/* withdrawn channels past the table */
	uint64_t client_bad_area;	/* client areas refused (D1) */
	uint64_t client_bad_entries;	/* directory entries refused (D2) */
	/* running latency tables (spec 17), filled by vm_hist_latency() */
	struct gr_vm_lat {
		char name[GR_HIST_NAME_LEN];	/* the table's name */
		char preset[GR_VM_HIST_PRESET];	/* "runq".., "" = keys= */
		uint64_t count;		/* events, all keys */
		double p50_s, p99_s;	/* le of their bucket; < 0: none */
		uint64_t dropped;	/* no free map entry */
	} lat[GR_HIST_REQS];
	unsigned int nr_lat;		/* used entries of @lat */
};

void vm_get_info(const struct gr_vm *vm, struct gr_vm_info *info);
void vm_hist_latency(struct gr_vm *vm, struct gr_vm_info *info);

/* ---- the agent ------------------------------------------------------- */

/**
 * struct gr_agent - the daemon
 * @loop: the one io_uring loop
 * @run_dir: sockets: agent.sock and <vm>.sock
 * @store_dir: traces: <store>/<vm>/<session>/
 * @kvm_debugfs: KVM's debugfs directory (--kvm-debugfs), "" = none
 * @store_fd: @store_dir, opened O_DIRECTORY
 * @vms: list of VMs (struct gr_vm.next)
 * @ctl: the control socket (control/server.c)
 * @sock_gid: group allowed on the control socket, (gid_t)-1 = none
 * @syncs: fsyncs of trace files in flight (session.c)
 * @stopping: SIGTERM/SIGINT seen, finishing
 * @poll_op: the VMs' one poll timer (vm.c): it ends at the earliest VM's
 *	due time, and every VM due then gets its pass in that wake-up
 * @poll_due_ns: when @poll_op ends; 0: not armed, or being cancelled
 * @polling: the timer's passes are running (they arm it once, at the end)
 * @poll_fired: @poll_op's touch (loop.h): its completion is no reason to
 *	settle every VM; each VM it passes is marked itself
 */
struct gr_ctl;
struct gr_agent {
	struct gr_loop loop;
	char run_dir[PATH_MAX];
	char store_dir[PATH_MAX];
	char kvm_debugfs[PATH_MAX];	/* KVM's debugfs, "" = not read */
	int store_fd;
	struct gr_vm *vms;
	struct gr_ctl *ctl;
	unsigned int sock_gid;
	unsigned int syncs;
	bool stopping;
	struct gr_op poll_op;
	uint64_t poll_due_ns;
	bool polling;
	bool poll_fired;
};

struct gr_vm *vm_next(struct gr_agent *a, struct gr_vm *prev);
/* vm.c: the loop's before_wait: what the VMs' parts reported, once per pass */
void vm_before_wait(struct gr_agent *a);

/* ---- control/server.c ---------------------------------------------- */

int ctl_init(struct gr_agent *a);
void ctl_finish(struct gr_agent *a);

#endif /* GR_AGENT_H */
