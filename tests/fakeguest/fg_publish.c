// SPDX-License-Identifier: GPL-2.0
/*
 * fg_publish.c - the fake guest maps its region and publishes a layout
 *
 * Spec 5.2, step by step: the region comes from the ivshmem server (the
 * shared memory and the eventfds, as QEMU's ivshmem-doorbell receives
 * them) or from a /dev/shm file (ivshmem-plain, IVPosition 0). The old
 * publication is withdrawn first; the host's control block is read once
 * for its geometry wish and settings; the relay core lays out and opens
 * the rings; the status block is written; gr_region_publish() writes the
 * descriptors and the header, magic last; the state follows.
 */
#include <sys/mman.h>
#include <sys/utsname.h>

#include "fakeguest.h"

/**
 * fg_map_socket() - connect to an ivshmem server as QEMU's device does
 * @fg: the fake guest, with opt.socket_path
 *
 * Waits for the handshake (version, own id, shared memory) and for the
 * guest's own GR_NR_VECTORS eventfds, which come last in the greeting;
 * maps the shared memory. The client stays open: it follows the peers.
 *
 * Context: main thread, before any other thread exists.
 * Return: 0 or -errno (reported on stderr).
 */
int fg_map_socket(struct fakeguest *fg)
{
	const struct ivsh_client_opts copts = {
		.log = fg_client_log,
		.on_event = fg_client_event,
		.event_data = fg,
	};
	uint64_t size;
	u64 deadline;
	unsigned int v;
	int fd, id, ret;

	ret = ivsh_client_connect(&fg->client, fg->opt.socket_path,
				  GR_NR_VECTORS, &copts);
	if (ret) {
		fg_log("cannot connect to %s: %s", fg->opt.socket_path,
		       strerror(-ret));
		return ret;
	}
	fg->have_client = true;
	fg->client_alive = true;
	id = ivsh_client_id(&fg->client);
	/* Our own eventfds come last in the greeting, after the other peers */
	deadline = fg_now_ns() + 5 * FG_NSEC;
	while (ivsh_client_peer_vectors(&fg->client, id) < GR_NR_VECTORS) {
		if (fg_now_ns() > deadline) {
			fg_log("the server sent no eventfds for our vectors");
			return -ETIMEDOUT;
		}
		ret = ivsh_client_process(&fg->client, 100);
		if (ret < 0) {
			fg_log("ivshmem server: %s", strerror(-ret));
			return ret;
		}
	}
	for (v = 0; v < GR_NR_VECTORS; v++)
		fg->own_fd[v] = ivsh_client_peer_eventfd(&fg->client, id, v);
	fg->peer_id = (u32)id;
	fd = ivsh_client_shm_fd(&fg->client, &size);
	fg->region_size = size;
	fg->region = mmap(NULL, fg->region_size, PROT_READ | PROT_WRITE,
			  MAP_SHARED, fd, 0);
	if (fg->region == MAP_FAILED) {
		fg->region = NULL;
		ret = -errno;
		fg_log("cannot map the shared memory: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/**
 * fg_map_file() - map /dev/shm/NAME as the plain device's BAR2
 * @fg: the fake guest, with opt.shm_name
 *
 * Context: main thread, before any other thread exists.
 * Return: 0 or -errno (reported on stderr).
 */
int fg_map_file(struct fakeguest *fg)
{
	int ret;

	ret = ivsh_shm_open_file(&fg->shm, fg->opt.shm_name, 0);
	if (!ret)
		ret = ivsh_shm_map(&fg->shm);
	if (ret) {
		fg_log("cannot open /dev/shm/%s: %s", fg->opt.shm_name,
		       strerror(-ret));
		return ret;
	}
	fg->region = fg->shm.addr;
	fg->region_size = fg->shm.size;
	fg->peer_id = 0;	/* IVPosition of ivshmem-plain */
	return 0;
}

/* A control block is present (spec 9.2): magic, abi_major, ctrl_size */
static bool fg_host_present(struct fakeguest *fg)
{
	struct gr_host_ctrl *c = gr_ctrl(fg->region);
	u32 size = le32_to_cpu(READ_ONCE(c->ctrl_size));

	/* Pairs with the host's release of seq after it wrote magic */
	return le64_to_cpu(smp_load_acquire(&c->magic)) == GR_CTRL_MAGIC &&
	       le16_to_cpu(READ_ONCE(c->abi_major)) == GR_ABI_MAJOR &&
	       size >= sizeof(struct gr_host_ctrl) &&
	       size <= GR_LAYOUT_START - GR_CTRL_OFFSET && !(size % 8);
}

static bool fg_wait_host(struct fakeguest *fg)
{
	u64 deadline = fg_now_ns() + (u64)(fg->opt.wait_host * FG_NSEC);

	for (;;) {
		if (fg_host_present(fg))
			return true;
		if (fg_now_ns() >= deadline)
			return false;
		fg_sleep_ns(10000000);
	}
}

static void fg_boot_id(u8 *out)
{
	char s[64], *p;
	unsigned int n = 0, hi = 0, nib = 0;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	memset(out, 0, 16);
	if (!f)
		return;
	if (fgets(s, sizeof(s), f)) {
		for (p = s; *p && n < 16; p++) {
			unsigned int d;

			if (*p >= '0' && *p <= '9')
				d = *p - '0';
			else if (*p >= 'a' && *p <= 'f')
				d = *p - 'a' + 10;
			else
				continue;
			if (nib++ % 2)
				out[n++] = (u8)(hi << 4 | d);
			else
				hi = d;
		}
	}
	fclose(f);
}

/*
 * Spec 18.2 N1, 5.2 step 11 with GR_F_ANYEVENT: the image's descriptors
 * and header (gr_region_publish() into fg->image) with desc_capacity,
 * the free slots zero, desc_live = desc_count in the status; the
 * header's magic last, with release
 */
static void fg_publish_capacity(struct fakeguest *fg)
{
	struct gr_region_hdr *img = (struct gr_region_hdr *)fg->image;
	struct gr_region_hdr *hdr = gr_hdr(fg->region);

	img->desc_capacity = cpu_to_le32(fg->desc_capacity);
	memcpy(fg->region + fg->lay.desc_offset,
	       fg->image + fg->lay.desc_offset,
	       (size_t)fg->desc_capacity * fg->lay.desc_stride);
	/* spec 19.2 W1, W2: the slots up to wide_capacity, the wide area */
	if (fg->lay.wide_offset)
		memcpy(fg->region + fg->lay.desc_offset,
		       fg->image + fg->lay.desc_offset,
		       fg->lay.wide_offset + GR_WIDE_SIZE -
		       fg->lay.desc_offset);
	WRITE_ONCE(gr_status(fg->region)->desc_live,
		   cpu_to_le32(fg->lay.desc_count));
	memcpy((u8 *)hdr + sizeof(hdr->magic), (u8 *)img + sizeof(img->magic),
	       sizeof(*hdr) - sizeof(hdr->magic));
	/* pairs with the host's acquire of magic (spec 10 #1) */
	smp_store_release(&hdr->magic, cpu_to_le64(GR_REGION_MAGIC));
}

/* Spec 5.2 step 10: the status block, state excepted */
static void fg_status_init(struct fakeguest *fg, const struct gr_ctrl_req *eff,
			   bool rejected)
{
	struct gr_guest_status *st = gr_status(fg->region);
	struct gr_ctrl_req ack = *eff;

	memset(st->reserved, 0, sizeof(st->reserved));
	WRITE_ONCE(st->sync_guest_time, 0);
	WRITE_ONCE(st->sync_guest_tsc, 0);
	WRITE_ONCE(st->sync_tsc_half, 0);
	WRITE_ONCE(st->ctrl_errors, 0);
	WRITE_ONCE(st->last_ctrl_error, 0);
	gr_status_set_peer(fg->region, fg->peer_id);
	gr_status_set_consumed_errors(fg->region, 0);
	gr_status_heartbeat(fg->region);
	gr_status_ack_flush(fg->region, fg->flush_ack);
	gr_status_ack_reset(fg->region, fg->reset_ack);
	/* Requests made before publication are void: no time to answer */
	smp_store_release(&st->sync_ack, cpu_to_le64(fg->sync_ack));
	ack.seq = fg->ctrl_ack;
	gr_status_applied(fg->region, fg->lay.wide_offset, &ack, eff->enable,
			  eff->mode, fg_timer_us(eff->switch_timer_us));
	if (rejected)
		gr_status_rejected(fg->region, fg->ctrl_ack, -EINVAL,
				   (u32)fg->pass_rejected);
}

/**
 * fg_publish() - lay out the region and publish it (spec 5.2)
 * @fg: the fake guest, region mapped
 *
 * Withdraws the old layout, waits up to --wait-host for a control block
 * (required unless --force), reads it once (geometry wish; settings
 * applied, or rejected and counted, or the defaults without a block),
 * computes the layout (with a hist area if the host offers GR_F_HIST),
 * opens the channel, builds the events, runs the hist requests already
 * there, writes the status block, publishes descriptors and header (magic last), sets the
 * state and rings GR_VEC_STATUS. Keeps a private copy of what it
 * published for the hostile modes.
 *
 * Context: main thread, before any other thread exists.
 * Return: 0 or -errno (reported on stderr).
 */
int fg_publish(struct fakeguest *fg)
{
	const struct gr_callbacks cb = {
		.subbuf_start = fg_subbuf_start,
		.doorbell = fg_doorbell,
	};
	struct gr_region_hdr *hdr = gr_hdr(fg->region);
	struct gr_host_ctrl *c = gr_ctrl(fg->region);
	struct gr_geometry geo = { 0 };
	struct gr_ctrl_req req, eff;
	bool rejected = false, valid = false;
	const char *why = NULL;
	struct utsname uts;
	unsigned int i;
	u64 old_id;
	int ret;

	if (fg->region_size < GR_MIN_REGION_SIZE ||
	    fg->region_size > GR_MAX_REGION_SIZE ||
	    fg->region_size & (fg->region_size - 1)) {
		fg_log("region size %llu is not a power of two in range",
		       (unsigned long long)fg->region_size);
		return -EINVAL;
	}
	/* 2: the old publication is withdrawn before anything changes */
	old_id = le64_to_cpu(READ_ONCE(hdr->instance_id));
	gr_region_withdraw(fg->region);

	/* 4: the control block, read once */
	fg->host_present = fg_wait_host(fg);
	if (!fg->host_present && !fg->opt.force) {
		fg_log("no host control block at 0x%x (use --force to run without a host)",
		       GR_CTRL_OFFSET);
		return -ENODEV;
	}
	fg->ctrl_ack = fg_load_req(&c->seq);
	fg->flush_ack = fg_load_req(&c->flush_req);
	fg->reset_ack = fg_load_req(&c->reset_req);
	fg->sync_ack = fg_load_req(&c->sync_req);
	if (fg->host_present) {
		gr_ctrl_geometry(fg->region, &geo.subbuf_size, &geo.n_subbufs);
		ret = gr_ctrl_read(fg->region, 0, fg_nr_events(&fg->opt),
				   &req);
		if (!ret || ret == -EINVAL) {
			fg->ctrl_ack = req.seq;
			fg->flush_ack = req.flush_req;
			fg->reset_ack = req.reset_req;
			fg->sync_ack = req.sync_req;
		}
		valid = !ret;
		rejected = ret == -EINVAL;
	}

	/* 5: geometry */
	geo.region_size = fg->region_size;
	geo.nr_cpus = fg->opt.cpus;
	/* spec 18.2 N1: room for the events added by name */
	geo.desc_count = fg_nr_events(&fg->opt) +
			 fg_any_slots(&fg->opt);
	/* spec 19.2 W1: and the wide area, if the region holds it */
	if (fg->opt.wide) {
		geo.desc_capacity = geo.desc_count;
		geo.wide_capacity = GR_WIDE_MAX_EVENTS;
	}
	/* spec 17.1: a hist area for a host that offers GR_F_HIST */
	if (fg->host_present &&
	    (gr_ctrl_host_features(fg->region) & GR_F_HIST))
		geo.hist_size = gr_hist_area_size(fg->region_size,
						  fg->opt.hist_kib);
	geo.default_subbuf_size = fg->opt.subbuf_size;
	geo.global = fg->opt.global;
	if (!geo.n_subbufs)
		geo.n_subbufs = fg->opt.subbufs;
	ret = gr_layout_compute(&geo, &fg->lay);
	if (ret) {
		fg_log("no layout fits a region of %llu bytes for %u rings: %s",
		       (unsigned long long)fg->region_size,
		       fg->opt.global ? 1 : fg->opt.cpus, strerror(-ret));
		return ret;
	}
	/* N1: the slots after the table, published as desc_capacity */
	fg->desc_capacity = fg->lay.desc_count;
	fg->lay.desc_count = fg_nr_events(&fg->opt);
	fg_names_reset(fg);	/* spec 18.2 N6, 18.4 P7 */
	ret = fg_events_build(fg, &why);
	if (ret) {
		fg_log("%s (max_event_size %u, --size %u)", why,
		       fg->lay.max_event_size, fg->opt.size);
		return ret;
	}

	fg->rings = calloc(fg->lay.nr_rings, sizeof(*fg->rings));
	if (!fg->rings)
		return -ENOMEM;
	/* 7-9: rings, commit records, first sub-buffers */
	ret = gr_chan_open(&fg->chan, fg->region, &fg->lay, &cb, fg);
	if (ret) {
		fg_log("gr_chan_open: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < fg->lay.nr_rings; i++)
		fg->rings[i].produced_start = fg->chan->bufs[i].produced;

	if (valid) {
		eff = req;
		fg_ctrl_events(fg, &eff);
	} else {
		fg_defaults(fg, &eff);
	}
	/* The fake guest runs no filter programs: it does not claim them */
	fg->guest_features = GR_GUEST_FEATURES &
			    ~(GR_F_FILTER | GR_F_FOLLOW);
	if (fg->have_client)
		fg->guest_features |= GR_F_DOORBELL;
	if (fg->lay.hist_size)
		fg->guest_features |= GR_F_HIST;
	fg->guest_features &= ~GR_F_PROBE;
	if (fg->opt.anyevent)
		fg->guest_features |= GR_F_ANYEVENT;
	if (fg->lay.wide_offset)
		fg->guest_features |= GR_F_WIDE_EVENTS;
	/* v1.15 (spec 20.2 L1): slots that hold the extension */
	if (fg->lay.desc_stride >= GR_LONG_DESC_STRIDE)
		fg->guest_features |= GR_F_LONG_DESC;
	if (fg->opt.anyevent && fg->opt.probes)
		fg->guest_features |= GR_F_PROBE;
	if (fg->opt.vmsync)
		fg->guest_features |= GR_F_VMSYNC;
	if (fg->opt.sync_tsc)
		fg->guest_features |= GR_F_SYNC_TSC;
	/* v1.12, as the module: polling follows a doorbell only */
	if (fg->opt.sync_poll && fg->have_client)
		fg->guest_features |= GR_F_SYNC_POLL;
	fg_apply(fg, &eff);
	/* spec 17.1, 17.3: the hist area zeroed, the requests already there */
	fg_hist_init(fg);
	fg_hist_apply(fg, valid && fg->lay.hist_size &&
		      (eff.features & GR_F_HIST));
	fg->state = eff.tracing ? GR_STATE_TRACING : GR_STATE_IDLE;
	/* the control passes decide as the driver's (gr_pass_decide()) */
	fg->host_applied = valid;
	fg->pass_rl.interval_ns = GR_PASS_MIN_INTERVAL_NS;
	if (valid)
		fg->pass_applied++;
	if (rejected)
		fg->pass_rejected++;

	/* 10: status, state excepted */
	fg_status_init(fg, &eff, rejected);

	/* 11: identity and layout, magic last */
	uname(&uts);
	memcpy(fg->nodename, uts.nodename, sizeof(fg->nodename) - 1);
	fg->instance_id = fg_next_instance(old_id);
	fg->ident.release = "fakeguest";
	fg->ident.nodename = fg->nodename;
	fg->ident.clock_name = "mono_fast";
	fg->ident.clock_freq = FG_NSEC;
	fg_boot_id(fg->ident.boot_id);
	fg->ident.nr_cpus = fg->opt.cpus;
	fg->ident.features = fg->guest_features;
	fg->ident.instance_id = fg->instance_id;

	/* A private image of what is published, for the hostile modes */
	fg->image_size = fg->lay.wide_offset ?
			 fg->lay.wide_offset + GR_WIDE_SIZE :
			 fg->lay.desc_offset +
			 (size_t)fg->desc_capacity * fg->lay.desc_stride;
	fg->image = calloc(1, fg->image_size);
	if (!fg->image)
		return -ENOMEM;
	gr_region_publish(fg->image, &fg->lay, &fg->ident, fg_desc_fill, fg);
	if (fg->opt.anyevent)
		fg_publish_capacity(fg);
	else
		gr_region_publish(fg->region, &fg->lay, &fg->ident,
				  fg_desc_fill, fg);

	/* 12, 13: state, then tell the host */
	gr_status_set_state(fg->region, fg->state);
	fg_ring_host(fg, GR_VEC_STATUS);
	return 0;
}
