/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_layout.h - geometry and layout of the shared region (spec 4)
 *
 * Pure code: given the region size, the CPUs and the host's wishes, where
 * every area of the region lies. No state, no locking, no memory; the same
 * file builds in the kernel and in userspace (unit tests, the fake guest).
 */
#ifndef _GR_LAYOUT_H
#define _GR_LAYOUT_H

#include "gr_env.h"
#include "guestrelay_abi.h"

/* Sub-buffer size used when neither the host nor the caller asks for one */
#define GR_DEFAULT_SUBBUF_SIZE	(64 * 1024)
/* Largest record: gr_event_header.size is a __le16, a multiple of 8 */
#define GR_MAX_RECORD_SIZE	65528

/**
 * struct gr_geometry - what the geometry of a region is chosen from
 * @region_size: bytes of the shared region (power of two)
 * @nr_cpus: CPUs that may write (nr_cpu_ids)
 * @desc_count: event descriptors to place
 * @desc_capacity: descriptor slots wished for (spec 18, GR_F_ANYEVENT):
 *	0 for none, else at least @desc_count; laid out when they fit
 * @wide_capacity: the most descriptor slots wished for with a wide area
 *	(spec 19, GR_F_WIDE_EVENTS): 0 for none, else in [@desc_capacity,
 *	GR_WIDE_MAX_EVENTS]; laid out as gr_layout_compute() says
 * @subbuf_size: the host's wish, 0 = none
 * @n_subbufs: the host's wish, 0 = none
 * @default_subbuf_size: the module's choice, 0 = GR_DEFAULT_SUBBUF_SIZE
 * @global: one ring shared by all CPUs instead of one per CPU
 * @client_size: bytes kept at the end of the region for the client area
 *	(spec 16.1, GR_F_CLIENT): 0, or a GR_PAGE_SIZE multiple of at least
 *	GR_CLIENT_DIR_SIZE
 * @hist_size: bytes kept right below the client area (or at the end of
 *	the region without one) for the hist area (spec 17.1, GR_F_HIST): 0,
 *	or a GR_PAGE_SIZE multiple in [GR_HIST_MIN_SIZE, region_size / 8]
 */
struct gr_geometry {
	u64 region_size;
	u64 client_size;
	u64 hist_size;
	u32 nr_cpus;
	u32 desc_count;
	u32 desc_capacity;
	u32 wide_capacity;
	u32 subbuf_size;
	u32 n_subbufs;
	u32 default_subbuf_size;
	bool global;
};

/**
 * struct gr_layout - geometry and layout of a region (host byte order)
 * @region_size: bytes of the region
 * @nr_cpus: CPUs that may write
 * @nr_rings: nr_cpus, or 1 with GR_HDR_GLOBAL
 * @flags: GR_HDR_*
 * @subbuf_size: bytes per sub-buffer
 * @n_subbufs: sub-buffers per ring
 * @desc_count: event descriptors
 * @desc_capacity: descriptor slots laid out (spec 18), in [@desc_count,
 *	GR_MAX_EVENTS]; 0 when the geometry asked for none
 * @wide_capacity: descriptor slots laid out with the wide area (spec 19),
 *	in (GR_MAX_EVENTS, GR_WIDE_MAX_EVENTS]; 0 without a wide area
 * @wide_offset: offset of the wide area (struct gr_wide), 0 if none
 * @desc_stride: bytes per descriptor
 * @packet_header_size: bytes reserved at the start of each sub-buffer
 * @max_event_size: largest record, header included
 * @desc_offset: offset of the descriptor table
 * @ring_offset: offset of the struct gr_ring array
 * @subbuf_rec_offset: offset of the commit records
 * @data_offset: offset of the first sub-buffer
 * @client_offset: offset of the client area (spec 16.1), 0 if none
 * @client_size: its bytes, 0 if none
 * @hist_offset: offset of the hist area (spec 17.1), 0 if none
 * @hist_size: its bytes, 0 if none
 */
struct gr_layout {
	u64 region_size;
	u32 nr_cpus;
	u32 nr_rings;
	u32 flags;
	u32 subbuf_size;
	u32 n_subbufs;
	u32 desc_count;
	u32 desc_capacity;
	u32 wide_capacity;
	u32 desc_stride;
	u32 packet_header_size;
	u32 max_event_size;
	u64 desc_offset;
	u64 ring_offset;
	u64 subbuf_rec_offset;
	u64 data_offset;
	u64 client_offset;
	u64 client_size;
	u64 hist_offset;
	u64 hist_size;
	u64 wide_offset;
};

/**
 * gr_layout_end() - end of the data area of a layout
 * @lay: the layout
 *
 * Context: any.
 * Return: the offset just past the last sub-buffer.
 */
static inline u64 gr_layout_end(const struct gr_layout *lay)
{
	return lay->data_offset +
	       gr_data_size(lay->nr_rings, lay->n_subbufs, lay->subbuf_size);
}

/*
 * A client channel's layout (spec 16.2), in guest-private memory: flags
 * GR_LAYOUT_CLIENT, never published in a region header. Its rings start
 * at offset 0, sub-buffers carry the client's bytes (no packet header:
 * max_event_size = subbuf_size).
 */
#define GR_LAYOUT_CLIENT	_BITUL(31)

int gr_layout_compute(const struct gr_geometry *geo, struct gr_layout *lay);
u32 gr_layout_wide_slots(u64 region_size, u32 wish);
int gr_layout_client(struct gr_layout *lay, u32 nr_cpus, bool global,
		     u32 subbuf_size, u32 n_subbufs);
int gr_layout_check(const struct gr_layout *lay);
void gr_layout_write_hdr(struct gr_region_hdr *hdr,
			 const struct gr_layout *lay);

#endif /* _GR_LAYOUT_H */
