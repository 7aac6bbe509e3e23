// SPDX-License-Identifier: GPL-2.0
/*
 * gr_proto.c - the guest's side of the region protocol
 *
 * Publication, in this order (spec/guestrelay.md, "Life cycle"):
 *
 *   gr_region_withdraw()   hdr.magic = 0          the host stops trusting
 *   gr_chan_open()         rings and records      (gr_relay.c)
 *   gr_region_publish()    descriptors, header,   magic last, with release
 *
 * Control: the host writes gr_host_ctrl and then store-releases its seq;
 * gr_ctrl_read() load-acquires seq, reads every other field once into a
 * private struct gr_ctrl_req and checks it there. If the host rewrites the
 * block while it is being read, the fields may mix two requests; each is
 * checked on its own and the newer seq makes the guest read again, so a
 * mix is never acted on for long and never harmful. gr_pass_decide() then
 * says what the pass does about it, from private copies only.
 *
 * The status block is written by one guest context at a time (the
 * driver's control pass, or the panic path once everything else stopped).
 */
#include "gr_proto.h"

/* NUL-padded copy of @src into the fixed array @dst of @size bytes */
static void gr_copy_name(char *dst, size_t size, const char *src)
{
	size_t len = src ? strnlen(src, size - 1) : 0;

	memset(dst, 0, size);
	memcpy(dst, src ? src : "", len);
}

/**
 * gr_region_withdraw() - tell the host the published layout is gone
 * @region: the shared region
 *
 * Context: process. The caller stops all writers first.
 */
void gr_region_withdraw(void *region)
{
	struct gr_region_hdr *hdr = gr_hdr(region);

	/* spec G2: magic := 0 first */
	WRITE_ONCE(hdr->magic, 0);
	/*
	 * Order the withdrawal before any store of a new layout; pairs (spec 10 #2)
	 * with the host's smp_rmb() between its copy of the header and its
	 * second load of magic.
	 */
	smp_wmb();
}

/**
 * gr_region_publish() - publish descriptors, identity and layout
 * @region: the shared region, withdrawn, with the channel already open
 * @lay: layout the channel was opened with
 * @ident: who the guest is
 * @fill: fills descriptor @id (called for every id below lay->desc_count)
 * @arg: passed to @fill
 *
 * Context: process.
 */
void gr_region_publish(void *region, const struct gr_layout *lay,
		       const struct gr_ident *ident, gr_desc_fill_t fill,
		       void *arg)
{
	struct gr_region_hdr *hdr = gr_hdr(region);
	u8 *descs = (u8 *)region + lay->desc_offset;
	unsigned int i, slots;

	/*
	 * spec G3: unused bytes of every descriptor stride are zero; spec
	 * 18.2 N1: so are the slots after desc_count (desc_capacity)
	 */
	slots = lay->desc_count;
	if (lay->desc_capacity > slots)
		slots = lay->desc_capacity;
	if (lay->wide_capacity > slots)
		slots = lay->wide_capacity;
	memset(descs, 0, (size_t)slots * lay->desc_stride);
	/* spec 19.2 W2: the wide area, zero but for desc_live */
	if (lay->wide_offset) {
		struct gr_wide *w = gr_wide(region, lay->wide_offset);

		memset(w, 0, sizeof(*w));
		w->desc_live = cpu_to_le32(lay->desc_count);
	}
	for (i = 0; i < lay->desc_count; i++)
		fill(i, (struct gr_event_desc *)(descs +
						 (size_t)i * lay->desc_stride),
		     arg);

	/* spec G3: every reserved byte of the header is zero */
	memset((u8 *)hdr + sizeof(hdr->magic), 0,
	       sizeof(*hdr) - sizeof(hdr->magic));
	gr_layout_write_hdr(hdr, lay);
	hdr->guest_features = cpu_to_le64(ident->features);
	hdr->instance_id = cpu_to_le64(ident->instance_id);
	hdr->clock_freq = cpu_to_le64(ident->clock_freq);
	gr_copy_name(hdr->clock_name, sizeof(hdr->clock_name),
		     ident->clock_name);
	gr_copy_name(hdr->kernel_release, sizeof(hdr->kernel_release),
		     ident->release);
	gr_copy_name(hdr->nodename, sizeof(hdr->nodename), ident->nodename);
	memcpy(hdr->boot_id, ident->boot_id, sizeof(hdr->boot_id));
	/* v1.2, GR_F_GUEST_INFO */
	gr_copy_name(hdr->kernel_version, sizeof(hdr->kernel_version),
		     ident->version);
	memcpy(hdr->product_uuid, ident->product_uuid,
	       sizeof(hdr->product_uuid));

	/*
	 * Everything above, the descriptors and the rings written by
	 * gr_chan_open(), before the magic; pairs (spec 10 #1) with the host's
	 * smp_load_acquire() of magic. Spec G2: magic last, with release.
	 */
	smp_store_release(&hdr->magic, cpu_to_le64(GR_REGION_MAGIC));
}

/* The host's block, if present (spec 9.2): our major, a sane ctrl_size */
static int gr_ctrl_attached(struct gr_host_ctrl *c)
{
	u32 size;

	if (le64_to_cpu(READ_ONCE(c->magic)) != GR_CTRL_MAGIC)
		return -ENODEV;
	if (le16_to_cpu(READ_ONCE(c->abi_major)) != GR_ABI_MAJOR)
		return -EPROTONOSUPPORT;
	size = le32_to_cpu(READ_ONCE(c->ctrl_size));
	if (size < sizeof(*c) || size > GR_LAYOUT_START - GR_CTRL_OFFSET ||
	    size % 8)
		return -EPROTONOSUPPORT;
	return 0;
}

/**
 * gr_ctrl_read() - read the host's requests once and check them
 * @region: the shared region
 * @wide_offset: the wide area of the guest's layout (spec 19), 0 if none
 * @nr_events: events this guest describes
 * @req: receives the requests, host byte order
 *
 * Every field is read exactly once; what is checked is the private copy,
 * all of it before the caller applies any (spec G18). Only loads: the
 * guest never stores to the host's block (spec G4). With GR_F_WIDE_EVENTS
 * in use (a wide area and the bit in the block's host_features) the
 * enable bits are the wide area's and gr_host_ctrl.enable is not read
 * (spec 19.2 W3).
 *
 * Context: any; does not sleep.
 * Return: 0 if @req is valid; -ENODEV if no host is attached,
 * -EPROTONOSUPPORT if the host speaks another major version or its
 * ctrl_size is not a multiple of 8 in [512, 4096] (nothing filled in
 * either case); -EINVAL if a request is invalid: @req->seq
 * and the counters are filled so the guest can acknowledge the
 * rejection, the other fields must not be used.
 */
int gr_ctrl_read(void *region, u64 wide_offset, unsigned int nr_events,
		 struct gr_ctrl_req *req)
{
	struct gr_host_ctrl *c = gr_ctrl(region);
	struct gr_wide *w = gr_wide(region, wide_offset);
	unsigned int i;
	int ret;

	/*
	 * seq first: its acquire publishes magic, abi_major, ctrl_size and
	 * every setting the host wrote before it (spec 10 #10, and #16 for
	 * a newly attached host, which bumps seq after magic: 5.1 step 2).
	 * Pairs (spec 10 #10, #16) with the host's __atomic_store_n(RELEASE) of ctrl.seq.
	 */
	req->seq = le64_to_cpu(smp_load_acquire(&c->seq));
	ret = gr_ctrl_attached(c);
	if (ret)
		return ret;

	/* Checked by gr_ctrl_attached(); loaded again, so checked again */
	req->ctrl_size = le32_to_cpu(READ_ONCE(c->ctrl_size));
	if (req->ctrl_size < sizeof(*c) ||
	    req->ctrl_size > GR_LAYOUT_START - GR_CTRL_OFFSET ||
	    req->ctrl_size % 8)
		return -EPROTONOSUPPORT;
	req->features = le64_to_cpu(READ_ONCE(c->host_features));
	req->session_id = le64_to_cpu(READ_ONCE(c->session_id));
	req->tracing = le32_to_cpu(READ_ONCE(c->tracing));
	req->mode = le32_to_cpu(READ_ONCE(c->mode));
	memset(req->enable, 0, sizeof(req->enable));
	if (w && (req->features & GR_F_WIDE_EVENTS)) {
		for (i = 0; i < ARRAY_SIZE(w->enable); i++)
			req->enable[i] = le64_to_cpu(READ_ONCE(w->enable[i]));
	} else {
		for (i = 0; i < ARRAY_SIZE(c->enable); i++)
			req->enable[i] = le64_to_cpu(READ_ONCE(c->enable[i]));
	}
	req->subbuf_size = le32_to_cpu(READ_ONCE(c->subbuf_size));
	req->n_subbufs = le32_to_cpu(READ_ONCE(c->n_subbufs));
	req->switch_timer_us = le32_to_cpu(READ_ONCE(c->switch_timer_us));
	req->host_peer_id = le32_to_cpu(READ_ONCE(c->host_peer_id));
	req->ctrl_flags = le32_to_cpu(READ_ONCE(c->ctrl_flags));
	/* Each request is its own publication (spec 10 #11): the acquires */
	/* pairs (spec 10 #11) with the host's release store of flush_req */
	req->flush_req = le64_to_cpu(smp_load_acquire(&c->flush_req));
	/* pairs (spec 10 #11) with the host's release store of reset_req */
	req->reset_req = le64_to_cpu(smp_load_acquire(&c->reset_req));
	/* pairs (spec 10 #11) with the host's release store of sync_req */
	req->sync_req = le64_to_cpu(smp_load_acquire(&c->sync_req));

	if (req->tracing > 1)
		return -EINVAL;
	if (req->mode != GR_MODE_STREAM && req->mode != GR_MODE_FLIGHT)
		return -EINVAL;
	if (req->mode == GR_MODE_FLIGHT && !(req->features & GR_F_FLIGHT))
		return -EINVAL;
	if (req->switch_timer_us > GR_MAX_SWITCH_TIMER_US)
		return -EINVAL;
	if (req->switch_timer_us && !(req->features & GR_F_SWITCH_TIMER))
		return -EINVAL;
	if (req->host_peer_id > 0xffff && req->host_peer_id != GR_NO_PEER)
		return -EINVAL;
	/* no bit at or above nr_events, a word at a time */
	for (i = 0; i < ARRAY_SIZE(req->enable); i++) {
		if (nr_events >= (i + 1) * 64)
			continue;
		if (req->enable[i] & (nr_events <= i * 64 ? ~0ULL :
				      ~0ULL << (nr_events - i * 64)))
			return -EINVAL;
	}
	return 0;
}

/**
 * gr_ctrl_read_filters() - copy and verify the host's filter area
 * @region: the shared region
 * @req: the block gr_ctrl_read() accepted, with GR_F_FILTER in use
 * @nr_events: events this guest describes
 * @bounds: payload bounds of each event, from the guest's own table
 * @set: receives the verified programs
 * @err: receives the reason of a refusal
 *
 * Spec 14.4 and G29: the area counts only if the host says it wrote it
 * (ctrl_size 4096); every used slot is copied once and verified, and one
 * bad slot refuses the area and with it the whole block (G30).
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL with @err filled.
 */
int gr_ctrl_read_filters(void *region, const struct gr_ctrl_req *req,
			 unsigned int nr_events,
			 const struct gr_filter_bounds *bounds,
			 struct gr_filter_set *set, struct gr_filter_err *err)
{
	if (req->ctrl_size < GR_FILTER_CTRL_SIZE) {
		err->reason = GR_FILTER_E_AREA;
		err->slot = GR_FILTER_NO_SLOT;
		err->insn = GR_FILTER_NO_INSN;
		return -EINVAL;
	}
	return gr_filter_read_area(region, nr_events, bounds, set, err);
}

/**
 * gr_ctrl_geometry() - the host's geometry wish, if it is usable
 * @region: the shared region
 * @subbuf_size: receives the wished sub-buffer size, or 0
 * @n_subbufs: receives the wished number of sub-buffers, or 0
 *
 * A wish outside the limits of the ABI reads as no wish (0).
 *
 * Context: any.
 * Return: 0, or -ENODEV / -EPROTONOSUPPORT as gr_ctrl_read().
 */
int gr_ctrl_geometry(void *region, u32 *subbuf_size, u32 *n_subbufs)
{
	struct gr_host_ctrl *c = gr_ctrl(region);
	u32 size, n;
	int ret;

	*subbuf_size = 0;
	*n_subbufs = 0;
	ret = gr_ctrl_attached(c);
	if (ret)
		return ret;
	size = le32_to_cpu(READ_ONCE(c->subbuf_size));
	n = le32_to_cpu(READ_ONCE(c->n_subbufs));
	if (is_power_of_2(size) && size >= GR_MIN_SUBBUF_SIZE &&
	    size <= GR_MAX_SUBBUF_SIZE)
		*subbuf_size = size;
	if (n >= GR_MIN_SUBBUFS && n <= GR_MAX_SUBBUFS)
		*n_subbufs = n;
	return 0;
}

/**
 * gr_ctrl_host_features() - the host's features, if its block is usable
 * @region: the shared region
 *
 * Context: any.
 * Return: host_features of the control block, 0 without a usable block.
 */
u64 gr_ctrl_host_features(void *region)
{
	struct gr_host_ctrl *c = gr_ctrl(region);

	if (gr_ctrl_attached(c))
		return 0;
	return le64_to_cpu(READ_ONCE(c->host_features));
}

/**
 * gr_status_set_live() - publish the number of descriptors (spec 18.2 N3)
 * @region: the shared region
 * @lay: the published layout
 * @live: descriptors now valid, the new ones written
 *
 * The wide area's desc_live first (spec 19.2 W2), then status.desc_live,
 * which never exceeds desc_capacity, each with release after the
 * descriptors it covers.
 *
 * Context: any; one caller at a time.
 */
void gr_status_set_live(void *region, const struct gr_layout *lay, u32 live)
{
	struct gr_wide *w = gr_wide(region, lay->wide_offset);
	u32 cap = lay->desc_capacity > lay->desc_count ? lay->desc_capacity :
			lay->desc_count;

	if (w) {
		/* Pairs (spec 10 #17) with the host's acquire of wide.desc_live */
		smp_store_release(&w->desc_live, cpu_to_le32(live));
	}
	/* Pairs (spec 10 #17) with the host's acquire of status.desc_live */
	smp_store_release(&gr_status(region)->desc_live,
			  cpu_to_le32(min_t(u32, live, cap)));
}

/**
 * gr_status_set_state() - publish the guest's state
 * @region: the shared region
 * @state: GR_STATE_*
 *
 * Context: any.
 */
void gr_status_set_state(void *region, u32 state)
{
	/*
	 * What led to the state (closed rings, for STOPPED and PANIC) is
	 * visible first; pairs (spec 10 #3) with the host's smp_load_acquire() of state.
	 */
	smp_store_release(&gr_status(region)->state, cpu_to_le32(state));
}

/**
 * gr_status_applied() - acknowledge an applied control request
 * @region: the shared region
 * @wide_offset: the wide area of the guest's layout (spec 19), 0 if none
 * @req: the request, as read by gr_ctrl_read()
 * @enabled: events now recorded (GR_WIDE_MAX_EVENTS bits)
 * @mode: mode now in effect
 * @switch_timer_us: switch timer now in effect
 *
 * The first GR_MAX_EVENTS bits of @enabled go to status.enabled, all of
 * them to the wide area's enabled (spec 19.2 W4), whatever the host set.
 *
 * Context: process or softirq; one caller at a time.
 */
void gr_status_applied(void *region, u64 wide_offset,
		       const struct gr_ctrl_req *req, const u64 *enabled,
		       u32 mode, u32 switch_timer_us)
{
	struct gr_guest_status *st = gr_status(region);
	struct gr_wide *w = gr_wide(region, wide_offset);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(st->enabled); i++)
		WRITE_ONCE(st->enabled[i], cpu_to_le64(enabled[i]));
	for (i = 0; w && i < ARRAY_SIZE(w->enabled); i++)
		WRITE_ONCE(w->enabled[i], cpu_to_le64(enabled[i]));
	WRITE_ONCE(st->mode, cpu_to_le32(mode));
	WRITE_ONCE(st->session_id, cpu_to_le64(req->session_id));
	WRITE_ONCE(st->switch_timer_us, cpu_to_le32(switch_timer_us));
	/* Pairs (spec 10 #12) with the host's smp_load_acquire() of ctrl_ack. */
	smp_store_release(&st->ctrl_ack, cpu_to_le64(req->seq));
}

/**
 * gr_status_rejected() - acknowledge a rejected control request
 * @region: the shared region
 * @seq: gr_host_ctrl.seq of the request
 * @err: negative errno of the rejection
 * @errors: requests rejected so far, counted by the caller (the region's
 *	copy is host-writable memory, never read back)
 *
 * The previous settings stay in effect.
 *
 * Context: process or softirq; one caller at a time.
 */
void gr_status_rejected(void *region, u64 seq, int err, u32 errors)
{
	struct gr_guest_status *st = gr_status(region);

	WRITE_ONCE(st->ctrl_errors, cpu_to_le32(errors));
	WRITE_ONCE(st->last_ctrl_error, cpu_to_le32((u32)-err));
	/* Pairs (spec 10 #12) with the host's smp_load_acquire() of ctrl_ack. */
	smp_store_release(&st->ctrl_ack, cpu_to_le64(seq));
}

/**
 * gr_status_ack_flush() - acknowledge flush request @req
 * @region: the shared region
 * @req: the flush_req value acted on
 *
 * Call after every ring's partial sub-buffer was produced.
 *
 * Context: any; one caller at a time.
 */
void gr_status_ack_flush(void *region, u64 req)
{
	/* The flushed produced counters first; pairs (spec 10 #13) with the host's
	 * smp_load_acquire() of flush_ack.
	 */
	smp_store_release(&gr_status(region)->flush_ack, cpu_to_le64(req));
}

/**
 * gr_status_ack_reset() - acknowledge reset request @req
 * @region: the shared region
 * @req: the reset_req value acted on
 *
 * Context: any; one caller at a time.
 */
void gr_status_ack_reset(void *region, u64 req)
{
	/* Pairs (spec 10 #14) with the host's smp_load_acquire() of reset_ack. */
	smp_store_release(&gr_status(region)->reset_ack, cpu_to_le64(req));
}

/**
 * gr_status_sync_time() - the time now, for the answer to a clock-sync
 *	request (then gr_status_ack_sync())
 * @region: the shared region
 *
 * Context: any; one caller at a time. Call it as soon as the request is
 * seen: the delay widens the host's error bound.
 */
void gr_status_sync_time(void *region)
{
	WRITE_ONCE(gr_status(region)->sync_guest_time, cpu_to_le64(gr_clock()));
}

/**
 * gr_status_sync_time_tsc() - the answer to a clock-sync request with the
 *	TSC read around the clock (v1.10, GR_F_SYNC_TSC; then
 *	gr_status_ack_sync())
 * @region: the shared region
 * @tsc_before: the TSC read (ordered) just before @clock
 * @clock: the event clock, read between the two TSC reads
 * @tsc_after: the TSC read (ordered) just after @clock
 *
 * Spec 9.5: the host maps the midpoint of the two reads to host time
 * through the hypervisor's TSC offset and scaling; the half-width, rounded
 * up, bounds where @clock was read in between. A half-width beyond 32 bits
 * (the reads were interrupted for seconds) is stored as U32_MAX, which
 * the host never uses.
 *
 * Context: any; one caller at a time. Call it as soon as the request is
 * seen, as gr_status_sync_time().
 */
void gr_status_sync_time_tsc(void *region, u64 tsc_before, u64 clock,
			     u64 tsc_after)
{
	struct gr_guest_status *st = gr_status(region);
	u64 span = tsc_after >= tsc_before ? tsc_after - tsc_before : U64_MAX;
	u64 half = span / 2 + (span & 1);

	WRITE_ONCE(st->sync_guest_time, cpu_to_le64(clock));
	WRITE_ONCE(st->sync_guest_tsc, cpu_to_le64(tsc_before + span / 2));
	WRITE_ONCE(st->sync_tsc_half,
		   cpu_to_le32(half > U32_MAX ? U32_MAX : (u32)half));
}

/**
 * gr_status_ack_sync() - answer clock-sync request @req with the time
 *	gr_status_sync_time() stored
 * @region: the shared region
 * @req: the sync_req value answered
 *
 * Context: any; one caller at a time.
 */
void gr_status_ack_sync(void *region, u64 req)
{
	/* The time before the ack; pairs (spec 10 #15) with the host's smp_load_acquire()
	 * of sync_ack.
	 */
	smp_store_release(&gr_status(region)->sync_ack, cpu_to_le64(req));
}

/**
 * gr_sync_poll_may_start() - may a burst of polled sync answers start?
 * @prev_ns: start of the last burst (guest clock), 0 = none yet
 * @now_ns: the clock now
 *
 * Spec 9.5, G42 (v1.12, GR_F_SYNC_POLL): one burst per
 * GR_SYNC_POLL_GAP_NS, whatever the host asks.
 *
 * Context: any.
 * Return: true if a burst may start now.
 */
bool gr_sync_poll_may_start(u64 prev_ns, u64 now_ns)
{
	return !prev_ns || now_ns - prev_ns >= GR_SYNC_POLL_GAP_NS;
}

/**
 * gr_sync_poll_more() - may a burst of polled sync answers wait on?
 * @start_ns: the burst's start (guest clock)
 * @last_ns: the last polled answer's end, or @start_ns
 * @answered: polled answers of the burst so far
 * @now_ns: the clock now
 *
 * Spec 9.5, G42 (v1.12): at most GR_SYNC_POLL_MAX answers and
 * GR_SYNC_POLL_BURST_NS in all; after a polled answer at most
 * GR_SYNC_POLL_WAIT_NS for the next request (the first wait, while the
 * host wakes up for the answer from the interrupt, may last the burst).
 *
 * Context: any.
 * Return: true to keep polling.
 */
bool gr_sync_poll_more(u64 start_ns, u64 last_ns, unsigned int answered,
		       u64 now_ns)
{
	if (answered >= GR_SYNC_POLL_MAX ||
	    now_ns - start_ns > GR_SYNC_POLL_BURST_NS)
		return false;
	return !answered || now_ns - last_ns <= GR_SYNC_POLL_WAIT_NS;
}

/**
 * gr_status_heartbeat() - record that the guest is alive
 * @region: the shared region
 *
 * Context: any.
 */
void gr_status_heartbeat(void *region)
{
	WRITE_ONCE(gr_status(region)->heartbeat, cpu_to_le64(gr_clock()));
}

/**
 * gr_status_set_peer() - publish the guest's ivshmem IVPosition
 * @region: the shared region
 * @peer_id: IVPosition (0 for the plain device, spec 3.3)
 *
 * Context: any.
 */
void gr_status_set_peer(void *region, u32 peer_id)
{
	WRITE_ONCE(gr_status(region)->peer_id, cpu_to_le32(peer_id));
}

/**
 * gr_status_set_consumed_errors() - publish the invalid consumed values seen
 * @region: the shared region
 * @errors: total over all rings
 *
 * Context: any.
 */
void gr_status_set_consumed_errors(void *region, u64 errors)
{
	WRITE_ONCE(gr_status(region)->consumed_errors, cpu_to_le64(errors));
}

/**
 * gr_status_filter_rejected() - say why a filter area was refused
 * @region: the shared region
 * @err: the reason, slot and instruction
 * @errors: filter areas refused so far
 *
 * Stored before gr_status_rejected() acknowledges the block with release
 * (spec G30, 10 #12).
 *
 * Context: any.
 */
void gr_status_filter_rejected(void *region, const struct gr_filter_err *err,
			       u32 errors)
{
	struct gr_guest_status *st = gr_status(region);

	WRITE_ONCE(st->filter_bad_slot, err->slot);
	WRITE_ONCE(st->filter_reason, err->reason);
	WRITE_ONCE(st->filter_bad_insn, cpu_to_le16(err->insn));
	WRITE_ONCE(st->filter_errors, cpu_to_le32(errors));
}

/**
 * gr_status_set_filtered() - publish the records a filter slot took back
 * @region: the shared region
 * @slot: filter slot
 * @count: total over all rings (gr_chan_filtered())
 *
 * Context: any.
 */
void gr_status_set_filtered(void *region, unsigned int slot, u64 count)
{
	if (slot < GR_FILTER_SLOTS)
		WRITE_ONCE(gr_status(region)->filtered[slot],
			   cpu_to_le64(count));
}

/**
 * gr_ratelimit_check() - may a costly control step run now?
 * @rl: the limit; @rl->interval_ns set by the caller, the rest zeroed
 * @now_ns: the current time, from a clock that never goes back
 *
 * Spec G28: a host that flips control requests in a tight loop must not
 * make the guest run grace periods and IPIs back to back. A run that
 * comes too soon is not dropped: the caller leaves the request pending
 * (unacknowledged) and tries again when the returned time has passed, so
 * the last request is always carried out, at most one interval (and one
 * timer tick) late.
 *
 * Context: any; the caller serializes calls on @rl.
 * Return: 0 if the step may run now (recorded as the last run); else the
 * nanoseconds until it may, and the deferral is counted.
 */
u64 gr_ratelimit_check(struct gr_ratelimit *rl, u64 now_ns)
{
	u64 since = now_ns - rl->last_ns;

	if (rl->ran && since < rl->interval_ns) {
		rl->deferred++;
		return rl->interval_ns - since;
	}
	rl->ran = true;
	rl->last_ns = now_ns;
	return 0;
}

/**
 * gr_pass_decide() - what one control pass does (spec 9.2)
 * @acks: what the guest has in effect and acknowledged
 * @read_ret: what gr_ctrl_read() (and the reads of the filter area and
 *	the follow block) returned for @req: 0, -EINVAL or no block
 * @req: the block as read; with no block, nothing of it is used
 * @rl: the rate limit of the costly steps (spec G28)
 * @now_ns: the time, for @rl
 * @wait_ns: receives, with GR_PASS_DEFER, when to pass again
 *
 * The decision alone, from private copies: the driver's pass, the fake
 * guest's and the unit tests all run this one. A valid block whose seq
 * is new, or the first after the defaults, is applied; a refused one is
 * acknowledged as refused, and its counters still act (spec 9.4: they
 * are never rejected); without a block (any more) the defaults return
 * and no counter is read. Settings, reset and flush cost grace periods
 * or IPIs: when @rl says not yet, the pass does none of its steps and
 * acknowledges nothing, so the request stays pending for the next pass.
 *
 * Context: any; the caller serializes passes (and calls on @rl).
 * Return: GR_PASS_* steps to carry out, in the order of their bits.
 */
u32 gr_pass_decide(const struct gr_pass_acks *acks, int read_ret,
		   const struct gr_ctrl_req *req, struct gr_ratelimit *rl,
		   u64 now_ns, u64 *wait_ns)
{
	u32 steps = 0;

	*wait_ns = 0;
	if (read_ret && read_ret != -EINVAL) {
		if (acks->host_present)
			steps |= GR_PASS_DEFAULTS;
	} else {
		if (!read_ret &&
		    (req->seq != acks->ctrl_ack || !acks->host_present))
			steps |= GR_PASS_APPLY;
		else if (read_ret && req->seq != acks->ctrl_ack)
			steps |= GR_PASS_REJECT;
		if (req->reset_req != acks->reset_ack)
			steps |= GR_PASS_RESET;
		if (req->flush_req != acks->flush_ack)
			steps |= GR_PASS_FLUSH;
	}
	/* A rejection is cheap; every other step is costly */
	if (steps & ~GR_PASS_REJECT) {
		*wait_ns = gr_ratelimit_check(rl, now_ns);
		if (*wait_ns)
			return GR_PASS_DEFER;
	}
	return steps;
}
