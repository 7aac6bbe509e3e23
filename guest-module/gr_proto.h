/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_proto.h - the guest's side of the region protocol
 *
 * Publication of the region (identity, descriptors, layout, magic last),
 * the host's control block ("ctrl", struct gr_host_ctrl) read once and
 * checked, what a control pass does about it (gr_pass_decide()), and the
 * guest's answers in the status block. Like gr_relay.c, gr_proto.c is
 * kernel code that also builds in userspace, where the fake guest and the
 * unit tests run the driver's own decisions.
 */
#ifndef _GR_PROTO_H
#define _GR_PROTO_H

#include "gr_env.h"
#include "gr_filter.h"
#include "gr_relay.h"
#include "guestrelay_abi.h"

/* Features this guest implementation supports (GR_F_DOORBELL is added
 * by the driver when interrupts are wired): spec G7, nothing else.
 */
#define GR_GUEST_FEATURES	(GR_F_EVENT_IDX | GR_F_FLIGHT | \
				 GR_F_CLOCK_SYNC | GR_F_SWITCH_TIMER | \
				 GR_F_FILTER | GR_F_GUEST_INFO | GR_F_DEFAULTS | \
				 GR_F_FOLLOW | GR_F_LAST_RECORD)

/* Longest switch timer a host may ask for: 10 s */
#define GR_MAX_SWITCH_TIMER_US	10000000U

/**
 * struct gr_ident - who the guest is, as published in the region header
 * @release: kernel release (uname -r)
 * @nodename: host name of the guest (uname -n)
 * @version: kernel version (uname -v), or NULL (then "")
 * @product_uuid: DMI product UUID in text order, all zero if none
 * @clock_name: name of the event clock
 * @clock_freq: event clock ticks per second
 * @boot_id: the kernel's boot id (all zero if unknown)
 * @nr_cpus: CPUs the guest may run
 * @features: GR_F_* implemented by this guest
 * @instance_id: differs on every publication
 */
struct gr_ident {
	const char *release;
	const char *nodename;
	const char *version;
	u8 product_uuid[16];
	const char *clock_name;
	u64 clock_freq;
	u8 boot_id[16];
	u32 nr_cpus;
	u64 features;
	u64 instance_id;
};

/**
 * typedef gr_desc_fill_t - fill the descriptor of event @id
 * @id: event id, the descriptor's index
 * @desc: zeroed descriptor in the region, to be filled little-endian
 * @arg: the caller's argument
 */
typedef void (*gr_desc_fill_t)(unsigned int id, struct gr_event_desc *desc,
			       void *arg);

/**
 * struct gr_ctrl_req - the host's control block, read once and checked
 * @seq: value of gr_host_ctrl.seq the fields were read under
 * @ctrl_size: bytes of the block the host wrote, checked (spec 2.4)
 * @features: GR_F_* the host implements
 * @session_id: the host's session
 * @enable: bit n: record event n
 * @tracing: 1 to record, 0 to pause
 * @mode: GR_MODE_*
 * @subbuf_size: geometry wish, 0 = none
 * @n_subbufs: geometry wish, 0 = none
 * @switch_timer_us: switch timer, 0 = off
 * @host_peer_id: doorbell target, GR_NO_PEER if none
 * @flush_req: flush request counter
 * @reset_req: reset request counter
 * @sync_req: clock-sync request counter
 * @ctrl_flags: GR_CTRL_F_* (v1.2), unknown bits kept (and ignored)
 */
struct gr_ctrl_req {
	u64 seq;
	u32 ctrl_size;
	u64 features;
	u64 session_id;
	u64 enable[GR_WIDE_MAX_EVENTS / 64];
	u32 tracing;
	u32 mode;
	u32 subbuf_size;
	u32 n_subbufs;
	u32 switch_timer_us;
	u32 host_peer_id;
	u64 flush_req;
	u64 reset_req;
	u64 sync_req;
	u32 ctrl_flags;
};

/**
 * gr_ctrl_wants_defaults() - has the host left the events to the guest?
 * @req: a block gr_ctrl_read() accepted
 * @guest_features: GR_F_* this guest implements
 *
 * Spec 9.6: with GR_F_DEFAULTS in use and GR_CTRL_F_DEFAULTS set, the
 * host has not chosen events yet (it cannot name them before it read the
 * descriptors): the guest records its own default events, and no filter,
 * under the block's other settings.
 *
 * Return: true if @req->enable and the filter area are to be ignored.
 */
static inline bool gr_ctrl_wants_defaults(const struct gr_ctrl_req *req,
					  u64 guest_features)
{
	return (req->features & guest_features & GR_F_DEFAULTS) &&
	       (req->ctrl_flags & GR_CTRL_F_DEFAULTS);
}

/*
 * Spec G28: the steps of a control pass that cost grace periods or IPIs
 * (settings, reset, flush) run at most once per this interval.
 */
#define GR_PASS_MIN_INTERVAL_NS	(10ULL * 1000 * 1000)

/**
 * struct gr_ratelimit - at most one run per interval, none lost
 * @interval_ns: shortest time between the starts of two runs
 * @last_ns: start of the last run
 * @ran: a run happened, @last_ns is valid
 * @deferred: runs put off, free-running
 */
struct gr_ratelimit {
	u64 interval_ns;
	u64 last_ns;
	bool ran;
	u64 deferred;
};

static inline struct gr_region_hdr *gr_hdr(void *region)
{
	return (struct gr_region_hdr *)((u8 *)region + GR_HDR_OFFSET);
}

static inline struct gr_guest_status *gr_status(void *region)
{
	return (struct gr_guest_status *)((u8 *)region + GR_STATUS_OFFSET);
}

static inline struct gr_host_ctrl *gr_ctrl(void *region)
{
	return (struct gr_host_ctrl *)((u8 *)region + GR_CTRL_OFFSET);
}

/* The wide area at @wide_offset of the guest's own layout, NULL if 0 */
static inline struct gr_wide *gr_wide(void *region, u64 wide_offset)
{
	return wide_offset ? (struct gr_wide *)((u8 *)region + wide_offset) :
			     NULL;
}

void gr_region_withdraw(void *region);
void gr_region_publish(void *region, const struct gr_layout *lay,
		       const struct gr_ident *ident, gr_desc_fill_t fill,
		       void *arg);
int gr_ctrl_read(void *region, u64 wide_offset, unsigned int nr_events,
		 struct gr_ctrl_req *req);
int gr_ctrl_geometry(void *region, u32 *subbuf_size, u32 *n_subbufs);
u64 gr_ctrl_host_features(void *region);
int gr_ctrl_read_filters(void *region, const struct gr_ctrl_req *req,
			 unsigned int nr_events,
			 const struct gr_filter_bounds *bounds,
			 struct gr_filter_set *set, struct gr_filter_err *err);

void gr_status_set_state(void *region, u32 state);
void gr_status_applied(void *region, u64 wide_offset,
		       const struct gr_ctrl_req *req, const u64 *enabled,
		       u32 mode, u32 switch_timer_us);
void gr_status_set_live(void *region, const struct gr_layout *lay, u32 live);
void gr_status_rejected(void *region, u64 seq, int err, u32 errors);
void gr_status_ack_flush(void *region, u64 req);
void gr_status_ack_reset(void *region, u64 req);
void gr_status_sync_time(void *region);
void gr_status_sync_time_tsc(void *region, u64 tsc_before, u64 clock,
			     u64 tsc_after);
void gr_status_ack_sync(void *region, u64 req);
bool gr_sync_poll_may_start(u64 prev_ns, u64 now_ns);
bool gr_sync_poll_more(u64 start_ns, u64 last_ns, unsigned int answered,
		       u64 now_ns);
void gr_status_heartbeat(void *region);
void gr_status_set_peer(void *region, u32 peer_id);
void gr_status_set_consumed_errors(void *region, u64 errors);
void gr_status_filter_rejected(void *region, const struct gr_filter_err *err,
			       u32 errors);
void gr_status_set_filtered(void *region, unsigned int slot, u64 count);

u64 gr_ratelimit_check(struct gr_ratelimit *rl, u64 now_ns);

/**
 * struct gr_pass_acks - what a control pass decides against
 * @ctrl_ack: seq of the last block applied or refused
 * @flush_ack: the last flush request carried out
 * @reset_ack: the last reset request carried out
 * @host_present: the settings in effect came from a valid host block,
 *	not the guest's defaults
 */
struct gr_pass_acks {
	u64 ctrl_ack;
	u64 flush_ack;
	u64 reset_ack;
	bool host_present;
};

/* Steps of a control pass (gr_pass_decide()), carried out in this order */
#define GR_PASS_APPLY		0x01	/* the block's settings, ack seq */
#define GR_PASS_REJECT		0x02	/* count the refusal, ack seq */
#define GR_PASS_DEFAULTS	0x04	/* no block any more: defaults */
#define GR_PASS_RESET		0x08	/* reset the rings, ack */
#define GR_PASS_FLUSH		0x10	/* flush the rings, ack */
#define GR_PASS_DEFER		0x20	/* nothing now: pass again later */

u32 gr_pass_decide(const struct gr_pass_acks *acks, int read_ret,
		   const struct gr_ctrl_req *req, struct gr_ratelimit *rl,
		   u64 now_ns, u64 *wait_ns);

#endif /* _GR_PROTO_H */
