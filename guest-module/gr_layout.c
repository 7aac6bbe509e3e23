// SPDX-License-Identifier: GPL-2.0
/*
 * gr_layout.c - geometry and layout of the shared region (spec 4)
 *
 * The region is laid out from GR_LAYOUT_START: event descriptors, the
 * rings (page aligned), the commit records (64-byte aligned), the
 * sub-buffers (page aligned). gr_layout_compute() chooses the sub-buffer
 * size and count (spec 4.3), gr_layout_check() is what the relay core
 * relies on, gr_layout_write_hdr() puts a layout in the region header.
 * Kernel code that also builds in userspace (see gr_env.h).
 */

#include "gr_layout.h"

static bool gr_subbuf_size_valid(u64 size)
{
	return size >= GR_MIN_SUBBUF_SIZE && size <= GR_MAX_SUBBUF_SIZE &&
	       is_power_of_2(size);
}

/* Place @n sub-buffers per ring; return the end of the data area. */
static u64 gr_layout_place(struct gr_layout *lay, u32 n)
{
	u64 subbufs = (u64)lay->nr_rings * n;

	lay->n_subbufs = n;
	lay->data_offset = ALIGN(lay->subbuf_rec_offset +
				 subbufs * sizeof(struct gr_subbuf_rec),
				 (u64)GR_PAGE_SIZE);
	return gr_layout_end(lay);
}

/* Most sub-buffers per ring that fit, at most GR_MAX_SUBBUFS. */
static u32 gr_layout_max_subbufs(struct gr_layout *lay)
{
	u64 per_subbuf = (u64)lay->nr_rings *
			 (lay->subbuf_size + sizeof(struct gr_subbuf_rec));
	u64 n = div64_u64(lay->region_size - lay->subbuf_rec_offset,
			  per_subbuf);

	n = min_t(u64, n, GR_MAX_SUBBUFS);
	/*
	 * Page-aligning data_offset costs less than a page; one sub-buffer
	 * less per ring frees more than a page (subbuf_size >= 4 KiB), so
	 * one step back always fits.
	 */
	if (n && gr_layout_place(lay, n) > lay->region_size)
		n--;
	return n;
}

static int gr_layout_compute_slots(const struct gr_geometry *geo, u32 slots,
				   u32 stride, struct gr_layout *lay);

/* Spec 18.2 N1: desc_capacity slots if the layout fits with them */
static int gr_layout_compute_narrow(const struct gr_geometry *geo,
				    struct gr_layout *lay)
{
	int ret;

	if (!geo->desc_capacity)
		return gr_layout_compute_slots(geo, 0, 0, lay);
	ret = gr_layout_compute_slots(geo, geo->desc_capacity, 0, lay);
	if (ret != -ENOSPC || geo->desc_capacity == geo->desc_count)
		return ret;
	return gr_layout_compute_slots(geo, geo->desc_count, 0, lay);
}

/**
 * gr_layout_wide_slots() - descriptor slots of a wide area (spec 19.2 W1)
 * @region_size: bytes of the region
 * @wish: the guest's most, at most GR_WIDE_MAX_EVENTS
 *
 * The descriptor area takes at most an eighth of the region.
 *
 * Context: any.
 * Return: min(@wish, @region_size / 8 / 576): a wide area is laid out
 * only if this is above GR_MAX_EVENTS.
 */
u32 gr_layout_wide_slots(u64 region_size, u32 wish)
{
	u64 n = div64_u64(region_size / 8, sizeof(struct gr_event_desc));

	return n < wish ? (u32)n : wish;
}

/**
 * gr_layout_compute() - choose the geometry and layout of a region
 * @geo: the region, the CPUs, the host's wish and the module's defaults
 * @lay: filled with the result
 *
 * The layout starts at GR_LAYOUT_START: descriptors, then the rings (page
 * aligned), the commit records (64-byte aligned), the sub-buffers (page
 * aligned). The sub-buffer size is the host's wish if it is a power of
 * two in [GR_MIN_SUBBUF_SIZE, GR_MAX_SUBBUF_SIZE], else the module's. The
 * number of sub-buffers is the host's wish if it fits, else the most that
 * fit (at most GR_MAX_SUBBUFS). Below GR_MIN_SUBBUFS the size is halved,
 * down to GR_MIN_SUBBUF_SIZE. Spec 18.2 N1: with a @geo->desc_capacity,
 * the descriptor area holds that many slots if the layout fits with
 * them, else @geo->desc_count (then desc_capacity = desc_count). Spec
 * 19.2 W1: with a @geo->wide_capacity the descriptor area holds
 * gr_layout_wide_slots() slots followed by the wide area (one page) if
 * those are more than GR_MAX_EVENTS and the layout fits with them; else
 * the layout is the one without.
 *
 * Context: any; does not sleep.
 * Return: 0; -EINVAL if @geo is impossible (region size not a power of two
 * in [GR_MIN_REGION_SIZE, GR_MAX_REGION_SIZE], no CPU, more per-CPU rings
 * than GR_MAX_RINGS, more than GR_MAX_EVENTS descriptors, an invalid
 * default sub-buffer size, a @geo->desc_capacity below @geo->desc_count
 * or above GR_MAX_EVENTS, a @geo->wide_capacity without a
 * @geo->desc_capacity, below it or above GR_WIDE_MAX_EVENTS); -ENOSPC if
 * two sub-buffers per ring do not fit. @lay is written only on success.
 */
int gr_layout_compute(const struct gr_geometry *geo, struct gr_layout *lay)
{
	u32 slots;
	int ret;

	if (geo->desc_capacity && (geo->desc_capacity < geo->desc_count ||
				   geo->desc_capacity > GR_MAX_EVENTS))
		return -EINVAL;
	if (!geo->wide_capacity)
		return gr_layout_compute_narrow(geo, lay);
	if (!geo->desc_capacity || geo->wide_capacity < geo->desc_capacity ||
	    geo->wide_capacity > GR_WIDE_MAX_EVENTS)
		return -EINVAL;
	slots = gr_layout_wide_slots(geo->region_size, geo->wide_capacity);
	if (slots <= GR_MAX_EVENTS)
		return gr_layout_compute_narrow(geo, lay);
	/*
	 * v1.15 (spec 20.2 L1): slots with the extension when the region
	 * gives as many with them, within its eighth
	 */
	if (div64_u64(geo->region_size / 8, GR_LONG_DESC_STRIDE) >= slots) {
		ret = gr_layout_compute_slots(geo, slots, GR_LONG_DESC_STRIDE,
					      lay);
		if (ret != -ENOSPC)
			return ret;
	}
	ret = gr_layout_compute_slots(geo, slots, sizeof(struct gr_event_desc),
				      lay);
	if (ret != -ENOSPC)
		return ret;
	return gr_layout_compute_narrow(geo, lay);
}

/*
 * gr_layout_compute() with @slots descriptor slots (0: desc_count, none);
 * @stride: 0 for the narrow layout; else the slots are wide_capacity of
 * @stride bytes (576, or v1.15 GR_LONG_DESC_STRIDE), the wide area
 * follows them and desc_capacity is the geometry's
 */
static int gr_layout_compute_slots(const struct gr_geometry *geo, u32 slots,
				   u32 stride, struct gr_layout *lay)
{
	bool wide = stride;
	u32 size = geo->default_subbuf_size ?: GR_DEFAULT_SUBBUF_SIZE;
	u32 wish_n = geo->n_subbufs;
	struct gr_layout l = { 0 };
	u32 n;

	if (geo->region_size < GR_MIN_REGION_SIZE ||
	    geo->region_size > GR_MAX_REGION_SIZE ||
	    !is_power_of_2(geo->region_size))
		return -EINVAL;
	if (!geo->nr_cpus || (!geo->global && geo->nr_cpus > GR_MAX_RINGS) ||
	    geo->desc_count > GR_MAX_EVENTS || !gr_subbuf_size_valid(size))
		return -EINVAL;
	if (geo->client_size && (geo->client_size % GR_PAGE_SIZE ||
				 geo->client_size < GR_CLIENT_DIR_SIZE ||
				 geo->client_size >= geo->region_size / 2))
		return -EINVAL;
	if (geo->hist_size && (geo->hist_size % GR_PAGE_SIZE ||
			       geo->hist_size < GR_HIST_MIN_SIZE ||
			       geo->hist_size > geo->region_size / 8))
		return -EINVAL;

	/*
	 * The trace channel is placed below the client area (spec 16.1) and
	 * the hist area right below that (spec 17.1)
	 */
	l.region_size = geo->region_size - geo->client_size - geo->hist_size;
	l.nr_cpus = geo->nr_cpus;
	l.nr_rings = geo->global ? 1 : geo->nr_cpus;
	l.flags = geo->global ? GR_HDR_GLOBAL : 0;
	l.desc_count = geo->desc_count;
	l.desc_capacity = wide ? geo->desc_capacity : slots;
	l.desc_stride = wide ? stride : sizeof(struct gr_event_desc);
	l.packet_header_size = sizeof(struct gr_packet_header);
	l.desc_offset = GR_LAYOUT_START;
	l.ring_offset = ALIGN(l.desc_offset +
			      (u64)(slots > l.desc_count ? slots : l.desc_count) *
			      l.desc_stride, (u64)GR_PAGE_SIZE);
	if (wide) {
		/* spec 19.1: the wide area right after the descriptors */
		l.wide_capacity = slots;
		l.wide_offset = l.ring_offset;
		l.ring_offset += GR_WIDE_SIZE;
	}
	l.subbuf_rec_offset = ALIGN(l.ring_offset +
				    (u64)l.nr_rings * sizeof(struct gr_ring),
				    (u64)64);
	if (l.subbuf_rec_offset >= l.region_size)
		return -ENOSPC;

	if (gr_subbuf_size_valid(geo->subbuf_size))
		size = geo->subbuf_size;
	if (wish_n < GR_MIN_SUBBUFS || wish_n > GR_MAX_SUBBUFS)
		wish_n = 0;

	/* At most log2(GR_MAX_SUBBUF_SIZE / GR_MIN_SUBBUF_SIZE) + 1 rounds */
	for (;;) {
		l.subbuf_size = size;
		if (wish_n && gr_layout_place(&l, wish_n) <= l.region_size)
			n = wish_n;
		else
			n = gr_layout_max_subbufs(&l);
		if (n >= GR_MIN_SUBBUFS)
			break;
		if (size <= GR_MIN_SUBBUF_SIZE)
			return -ENOSPC;
		size /= 2;
	}
	gr_layout_place(&l, n);
	l.max_event_size = min_t(u32, size - l.packet_header_size,
				 GR_MAX_RECORD_SIZE);
	if (geo->hist_size) {
		l.hist_offset = l.region_size;
		l.hist_size = geo->hist_size;
	}
	if (geo->client_size) {
		l.client_offset = l.region_size + geo->hist_size;
		l.client_size = geo->client_size;
	}
	l.region_size = geo->region_size;
	*lay = l;
	return 0;
}

/**
 * gr_layout_write_hdr() - write the geometry and layout into a header
 * @hdr: the region header
 * @lay: a layout from gr_layout_compute()
 *
 * Writes abi_major, abi_minor, hdr_size, region_size, nr_rings,
 * subbuf_size, n_subbufs, flags, desc_offset, desc_count, desc_stride,
 * ring_offset, subbuf_rec_offset, data_offset, packet_header_size,
 * max_event_size, nr_cpus, client_offset, client_size, hist_offset,
 * hist_size, desc_capacity (0 without GR_F_ANYEVENT), wide_capacity and
 * wide_offset (0 without a wide area, GR_F_WIDE_EVENTS). The caller
 * writes the rest (identity, clock, features, instance_id) and publishes
 * with the release store of magic.
 *
 * Context: any; does not sleep.
 */
void gr_layout_write_hdr(struct gr_region_hdr *hdr,
			 const struct gr_layout *lay)
{
	hdr->abi_major = cpu_to_le16(GR_ABI_MAJOR);
	hdr->abi_minor = cpu_to_le16(GR_ABI_MINOR);
	hdr->hdr_size = cpu_to_le32(sizeof(*hdr));
	hdr->region_size = cpu_to_le64(lay->region_size);
	hdr->nr_rings = cpu_to_le32(lay->nr_rings);
	hdr->subbuf_size = cpu_to_le32(lay->subbuf_size);
	hdr->n_subbufs = cpu_to_le32(lay->n_subbufs);
	hdr->flags = cpu_to_le32(lay->flags);
	hdr->desc_offset = cpu_to_le64(lay->desc_offset);
	hdr->desc_count = cpu_to_le32(lay->desc_count);
	hdr->desc_stride = cpu_to_le32(lay->desc_stride);
	hdr->ring_offset = cpu_to_le64(lay->ring_offset);
	hdr->subbuf_rec_offset = cpu_to_le64(lay->subbuf_rec_offset);
	hdr->data_offset = cpu_to_le64(lay->data_offset);
	hdr->packet_header_size = cpu_to_le32(lay->packet_header_size);
	hdr->max_event_size = cpu_to_le32(lay->max_event_size);
	hdr->nr_cpus = cpu_to_le32(lay->nr_cpus);
	/* v1.3: meaningful with GR_F_CLIENT in guest_features, else 0 */
	hdr->client_offset = cpu_to_le64(lay->client_offset);
	hdr->client_size = cpu_to_le64(lay->client_size);
	/* v1.5: meaningful with GR_F_HIST in guest_features, else 0 */
	hdr->hist_offset = cpu_to_le64(lay->hist_offset);
	hdr->hist_size = cpu_to_le64(lay->hist_size);
	/* v1.7: meaningful with GR_F_ANYEVENT in guest_features, else 0 */
	hdr->desc_capacity = cpu_to_le32(lay->desc_capacity);
	/* v1.13: meaningful with GR_F_WIDE_EVENTS in guest_features, else 0 */
	hdr->wide_capacity = cpu_to_le32(lay->wide_capacity);
	hdr->wide_offset = cpu_to_le64(lay->wide_offset);
}

/*
 * The areas of a layout: offsets bounded by the region, aligned, in
 * order (rings, commit records, sub-buffers) and inside it.
 */
static int gr_layout_check_areas(const struct gr_layout *lay)
{
	u64 subbufs = (u64)lay->nr_rings * lay->n_subbufs;

	/* Bounded offsets first: the sums below cannot overflow */
	if (lay->region_size > GR_MAX_REGION_SIZE ||
	    lay->ring_offset >= lay->region_size ||
	    lay->subbuf_rec_offset >= lay->region_size ||
	    lay->data_offset >= lay->region_size)
		return -EINVAL;
	if (lay->ring_offset % 64 || lay->subbuf_rec_offset % 64 ||
	    lay->subbuf_rec_offset < lay->ring_offset +
				     lay->nr_rings * sizeof(struct gr_ring) ||
	    lay->data_offset % GR_PAGE_SIZE ||
	    lay->data_offset < lay->subbuf_rec_offset +
			       subbufs * sizeof(struct gr_subbuf_rec) ||
	    gr_layout_end(lay) > lay->region_size)
		return -EINVAL;
	return 0;
}

/* gr_layout_check() of a GR_LAYOUT_CLIENT layout: spec 16.2 */
static int gr_layout_check_client(const struct gr_layout *lay)
{
	if (lay->subbuf_size > GR_CLIENT_MAX_SUBBUF ||
	    !gr_subbuf_size_valid(lay->subbuf_size) ||
	    lay->n_subbufs < GR_MIN_SUBBUFS ||
	    lay->n_subbufs > GR_CLIENT_MAX_SUBBUFS ||
	    lay->packet_header_size ||
	    lay->max_event_size != lay->subbuf_size)
		return -EINVAL;
	return gr_layout_check_areas(lay);
}

/**
 * gr_layout_client() - the layout of a client channel (spec 16.2)
 * @lay: filled
 * @nr_cpus: CPUs that may write
 * @global: one ring for all CPUs
 * @subbuf_size: power of two in [GR_MIN_SUBBUF_SIZE, GR_CLIENT_MAX_SUBBUF]
 * @n_subbufs: in [GR_MIN_SUBBUFS, GR_CLIENT_MAX_SUBBUFS]
 *
 * Rings at offset 0, then the commit records, then the sub-buffers from
 * the next page: the memory the channel needs is gr_layout_end(@lay).
 *
 * Context: any.
 * Return: 0, or -EINVAL for a value out of its range.
 */
int gr_layout_client(struct gr_layout *lay, u32 nr_cpus, bool global,
		     u32 subbuf_size, u32 n_subbufs)
{
	struct gr_layout l = { 0 };

	l.nr_cpus = nr_cpus;
	l.nr_rings = global ? 1 : nr_cpus;
	l.flags = GR_LAYOUT_CLIENT | (global ? GR_HDR_GLOBAL : 0);
	l.subbuf_size = subbuf_size;
	l.n_subbufs = n_subbufs;
	l.max_event_size = subbuf_size;
	l.subbuf_rec_offset = ALIGN((u64)l.nr_rings * sizeof(struct gr_ring),
				    (u64)64);
	l.data_offset = ALIGN(l.subbuf_rec_offset + (u64)l.nr_rings *
			      n_subbufs * sizeof(struct gr_subbuf_rec),
			      (u64)GR_PAGE_SIZE);
	l.region_size = gr_layout_end(&l);
	if (!nr_cpus || l.nr_rings > GR_MAX_RINGS ||
	    gr_layout_check_client(&l))
		return -EINVAL;
	*lay = l;
	return 0;
}

/**
 * gr_layout_check() - is a layout one the relay core can work in?
 * @lay: the layout
 *
 * What gr_chan_open() relies on; a layout from gr_layout_compute() or
 * gr_layout_client() passes.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL.
 */
int gr_layout_check(const struct gr_layout *lay)
{
	bool global = lay->flags & GR_HDR_GLOBAL;

	if (!lay->nr_cpus || !lay->nr_rings || lay->nr_rings > GR_MAX_RINGS ||
	    lay->nr_rings != (global ? 1 : lay->nr_cpus))
		return -EINVAL;
	if (lay->flags & GR_LAYOUT_CLIENT)
		return gr_layout_check_client(lay);
	if (!gr_subbuf_size_valid(lay->subbuf_size) ||
	    lay->n_subbufs < GR_MIN_SUBBUFS || lay->n_subbufs > GR_MAX_SUBBUFS)
		return -EINVAL;
	/* Spec 4.2 step 4; writers rely on it (GR_MIN_EVENT_LIMIT) */
	if (lay->packet_header_size != sizeof(struct gr_packet_header) ||
	    lay->max_event_size != min_t(u32, GR_MAX_RECORD_SIZE,
					 lay->subbuf_size -
					 lay->packet_header_size))
		return -EINVAL;
	if (lay->ring_offset < GR_LAYOUT_START)
		return -EINVAL;
	return gr_layout_check_areas(lay);
}
