/* SPDX-License-Identifier: GPL-2.0 */
/*
 * validate.h - the host's checks of everything a guest publishes
 *
 * The host never trusts the guest. Every structure the host uses is first
 * copied once from the shared region into host-private memory; the
 * functions here take such a private copy and either accept it, filling a
 * CPU-endian "view" that later code uses instead of the copy, or reject it
 * with a negative errno and a static, precise reason in *why. Nothing here
 * logs: the caller logs once, at the edge, with the VM's name.
 *
 * Order of use by a consumer:
 *
 *   gr_read_region_hdr()    copy the header out of the mapping
 *   gr_check_region_hdr()   -> struct gr_view (geometry and layout)
 *   gr_check_event_desc()   for i < desc_count, on a copy of descriptor i
 *                           read at gr_view_desc_off(v, i) -> gr_event_view
 *   gr_check_event_names()  on the whole table
 *   gr_check_families()     on the whole table -> gr_view.families
 *   gr_check_added_descs()  v1.7: on copies of descriptors the guest added
 *                           at run time (status.desc_live), all or none
 *   gr_check_counters()     on produced (guest) and consumed (host)
 *   gr_check_packet()       on copies of a commit record and packet header
 *   gr_check_event_header() when walking the records of a packet
 *
 * Every accepted view satisfies the invariants documented on its fields,
 * so offsets computed from it with the gr_view_*() helpers below stay
 * inside the region and cannot overflow.
 */
#ifndef GR_VALIDATE_H
#define GR_VALIDATE_H

#include <stdint.h>
#include <string.h>

#include "guestrelay_abi.h"

/* Limits the host applies on top of the ABI's own */
#define GR_MAX_CLOCK_FREQ	10000000000ULL	/* 10 GHz */
#define GR_MAX_NR_CPUS		65536		/* bound on gr_region_hdr.nr_cpus */
#define GR_MAX_RECORD_SIZE	65528		/* largest u16 multiple of 8 */
#define GR_HDR_KNOWN_FLAGS	GR_HDR_GLOBAL
#define GR_EVENT_KNOWN_FLAGS	GR_EVENT_F_VARLEN
#define GR_FIELD_KNOWN_FLAGS	(GR_FIELD_F_SIGNED | GR_FIELD_F_HEX)
/* v1.11: a field of a record's variable part (spec 7.1) */
#define GR_FIELD_IS_VAR(t)	((t) == GR_FIELD_STRING || \
				 (t) == GR_FIELD_SEQUENCE)
/*
 * Event families (v1.2, GR_F_SYSCALLS; spec 7.2, H30): only raw_syscalls
 * sys_enter and sys_exit carry one, so a table holds at most two; every
 * record id is below GR_MAX_RECORD_IDS.
 */
#define GR_MAX_FAMILIES		2
#define GR_MAX_RECORD_IDS	4096

/*
 * hdr_size: the status block follows the header at GR_STATUS_OFFSET, so a
 * header can never be longer than GR_STATUS_OFFSET - GR_HDR_OFFSET (512)
 * bytes, and never shorter than struct gr_region_hdr. A newer minor grows
 * the header into its reserved[] tail, not past it.
 */
#define GR_HDR_SIZE_MIN		(sizeof(struct gr_region_hdr))
#define GR_HDR_SIZE_MAX		(GR_STATUS_OFFSET - GR_HDR_OFFSET)

/**
 * struct gr_view - validated, CPU-endian view of a region header
 * @region_size: equals the real size of the mapping
 * @features: guest_features as published, bits unknown to this host kept;
 *	a feature is in use only if the host's gr_host_ctrl sets it too
 * @instance_id: any value; a new one means a new publication
 * @abi_minor: the guest's minor; any value
 * @nr_rings: 1..GR_MAX_RINGS; 1 if GR_HDR_GLOBAL, else equal to @nr_cpus
 * @nr_cpus: 1..GR_MAX_NR_CPUS
 * @subbuf_size: a power of two in [GR_MIN_SUBBUF_SIZE, GR_MAX_SUBBUF_SIZE]
 * @subbuf_shift: log2(@subbuf_size)
 * @n_subbufs: GR_MIN_SUBBUFS..GR_MAX_SUBBUFS, not necessarily a power of two
 * @flags: GR_HDR_* bits known to this host only
 * @desc_count: descriptors the host accepts records of, 0..@desc_capacity:
 *	the header's desc_count (@desc_table) when the header is checked,
 *	raised when the host adopts descriptors the guest added at run time
 *	(v1.7, GR_F_ANYEVENT, spec 18.3 M2; gr_check_added_descs())
 * @desc_table: the header's desc_count, 1..GR_MAX_EVENTS
 * @desc_capacity: descriptor slots laid out: with GR_F_WIDE_EVENTS in
 *	@features (v1.13, always in use with this host) @wide_capacity; else
 *	with GR_F_ANYEVENT the header's desc_capacity, in [@desc_table,
 *	GR_WIDE_MAX_EVENTS] (spec 18.3 M1); else @desc_table
 * @desc_stride: at least sizeof(struct gr_event_desc), a multiple of 8
 * @packet_header_size: sizeof(struct gr_packet_header)
 * @max_event_size: a multiple of 8 in [16, min(@subbuf_size -
 *	@packet_header_size, GR_MAX_RECORD_SIZE)]
 * @desc_offset: descriptor table, 8-byte aligned
 * @ring_offset: struct gr_ring array, 64-byte aligned
 * @subbuf_rec_offset: commit records, 16-byte aligned
 * @data_offset: sub-buffers, GR_PAGE_SIZE aligned
 * @clock_freq: 1..GR_MAX_CLOCK_FREQ
 * @ts_max: the largest timestamp a packet may carry: GR_TS_MAX_NS in ticks
 *	of @clock_freq (spec H9)
 * @clock_name: an identifier [a-z_][a-z0-9_]* that is not a TSDL keyword,
 *	so usable bare as a TSDL clock name
 * @kernel_release: sanitized copy, see below
 * @nodename: sanitized copy, see below
 * @boot_id: as published
 * @kernel_version: sanitized copy (v1.2, GR_F_GUEST_INFO in @features;
 *	else "")
 * @product_uuid: as published (v1.2, GR_F_GUEST_INFO; else zero); all
 *	zero means "none"
 * @hist_offset: the hist area (v1.5, GR_F_HIST in @features; else 0):
 *	GR_PAGE_SIZE aligned, at or after the end of the sub-buffer data
 * @hist_size: its bytes (else 0): a GR_PAGE_SIZE multiple, at least
 *	GR_HIST_MIN_SIZE; the area ends inside the region and overlaps no
 *	other area of the layout nor the client area (GR_F_CLIENT)
 * @wide_offset: the wide area (v1.13, GR_F_WIDE_EVENTS in @features;
 *	else 0): GR_PAGE_SIZE aligned, GR_WIDE_SIZE bytes inside the region,
 *	overlapping no other area (spec 19.3 X1)
 * @wide_capacity: its descriptor slots (else 0): in [the header's
 *	desc_capacity, GR_WIDE_MAX_EVENTS]
 * @nr_families: entries of @families, 0..GR_MAX_FAMILIES
 * @families: the event families of the descriptor table (v1.2,
 *	GR_F_SYSCALLS): member ids [base, base + count) are records of
 *	descriptor @desc; ranges lie in [desc_capacity, GR_MAX_RECORD_IDS) and
 *	do not overlap
 *
 * Filled by gr_check_region_hdr() (with no family) and then, for
 * @nr_families and @families, by gr_check_families() once the
 * descriptors are checked; every statement above holds for a view they
 * accepted. The four areas (descriptors, rings, commit records,
 * data) each lie in [GR_LAYOUT_START, @region_size] and do not overlap.
 *
 * @kernel_release, @nodename and @kernel_version are NUL-terminated and
 * hold only printable
 * ASCII (0x20..0x7e) other than '"' and '\\'; any other byte the guest
 * published is replaced by '?'. They are safe inside a TSDL, JSON or C
 * string literal and on a terminal. They are NOT file names: never build a
 * path from them.
 */
/*
 * Timestamps above this many ns since the clock's origin are refused in
 * packet headers (spec H9): a CTF reader adds the clock offset (host
 * realtime, below 2^62 ns until the year 2116) and holds the sum in an
 * int64_t; babeltrace2 2.0 cannot index a stream past that.
 */
#define GR_TS_MAX_NS	(1ULL << 62)

/**
 * struct gr_stream_mark - what the host keeps of a stream's last packet
 * @ts_end: its timestamp_end; the next packet may not begin before it
 * @discarded: its events_discarded (cumulative, spec 6.11); the next
 *	packet's may not be smaller
 *
 * Zero before a stream's first packet.
 */
struct gr_stream_mark {
	uint64_t ts_end;
	uint64_t discarded;
};

struct gr_view {
	uint64_t region_size;
	uint64_t features;
	uint64_t instance_id;
	uint32_t abi_minor;
	uint32_t nr_rings;
	uint32_t nr_cpus;
	uint32_t subbuf_size;
	uint32_t subbuf_shift;
	uint32_t n_subbufs;
	uint32_t flags;
	uint32_t desc_count;
	uint32_t desc_table;
	uint32_t desc_capacity;
	uint32_t desc_stride;
	uint32_t packet_header_size;
	uint32_t max_event_size;
	uint64_t desc_offset;
	uint64_t ring_offset;
	uint64_t subbuf_rec_offset;
	uint64_t data_offset;
	uint64_t clock_freq;
	uint64_t ts_max;
	char clock_name[GR_CLOCK_NAME_LEN];
	char kernel_release[GR_RELEASE_LEN];
	char nodename[GR_NODENAME_LEN];
	uint8_t boot_id[16];
	char kernel_version[GR_VERSION_LEN];
	uint8_t product_uuid[16];
	uint64_t hist_offset;
	uint64_t hist_size;
	uint64_t wide_offset;
	uint32_t wide_capacity;
	uint32_t nr_families;
	struct gr_family {
		uint16_t base;
		uint16_t count;
		uint16_t desc;
	} families[GR_MAX_FAMILIES];
};

/**
 * struct gr_field_view - validated, CPU-endian copy of one field descriptor
 */
struct gr_field_view {
	char name[GR_LONG_FIELD_NAME_LEN];	/* identifier, unique in its
						 * event (v1.15: a long name) */
	uint16_t offset;		/* offset + size <= payload_size */
	uint16_t size;			/* INTEGER: 1, 2, 4, 8; else >= 1 */
	uint8_t type;			/* GR_FIELD_INTEGER, _CHARS, _STRING or
					 * _SEQUENCE (v1.11) */
	uint8_t flags;			/* GR_FIELD_F_*, INTEGER, SEQUENCE */
	uint8_t elem_size;		/* SEQUENCE, ARRAY: 1, 2, 4, 8; else 0 */
	uint8_t len_field;		/* SEQUENCE: its count's field, an
					 * unsigned INTEGER of the fixed part
					 * of its event; else 0 */
};

/**
 * struct gr_event_view - validated, CPU-endian copy of an event descriptor
 *
 * Fields are in the guest's order; they do not overlap, and a STRING field
 * can only be the last one, in a GR_EVENT_F_VARLEN event. Fields need not
 * be naturally aligned, and gaps between them are allowed. v1.11,
 * GR_F_DYNARR: a VARLEN event ends with its variable fields (STRING and
 * SEQUENCE), from gr_event_first_var() on, each declared right after the
 * previous one's maximum; in a record each follows the previous one's actual end
 * (gr_record_var_walk()).
 */
struct gr_event_view {
	char name[GR_LONG_NAME_LEN];	/* identifier [a-z_][a-z0-9_]* */
	char system[GR_LONG_SYSTEM_LEN];	/* identifier [a-z_][a-z0-9_]* */
	uint16_t id;			/* == descriptor index */
	uint16_t nr_fields;		/* 0..GR_MAX_FIELDS, v1.15 with the
					 * extension 0..GR_LONG_MAX_FIELDS */
	uint16_t payload_size;		/* 16 + payload_size <= max_event_size */
	uint16_t flags;			/* GR_EVENT_F_* known bits only */
	uint16_t min_record;		/* smallest valid gr_event_header.size */
	uint16_t max_record;		/* largest valid gr_event_header.size */
	uint16_t family_base;		/* 0 unless @family_count */
	uint16_t family_count;		/* 0..GR_MAX_FAMILY; see gr_view */
	struct gr_field_view fields[GR_LONG_MAX_FIELDS];
};

/**
 * struct gr_record_view - validated, CPU-endian copy of an event header
 */
struct gr_record_view {
	uint16_t id;			/* descriptor: < nr_events of the check */
	uint16_t member;		/* the record's id: @id, or a member of
					 * @id's family */
	uint16_t size;			/* in [min_record, max_record] of @id */
	uint32_t tid;			/* any value */
	uint64_t timestamp;		/* any value */
};

/* the index of @ev's first STRING or SEQUENCE field; nr_fields if none */
static inline unsigned int gr_event_first_var(const struct gr_event_view *ev)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields && i < GR_LONG_MAX_FIELDS; i++)
		if (GR_FIELD_IS_VAR(ev->fields[i].type))
			break;
	return i;
}

/*
 * @f of @ev is a block event's integer rwbs: lttng-modules' flags
 * (GR_RWBS_*, spec 7.5), which report prints and filters compare as
 * ftrace's letters; an event by name keeps the kernel's text
 */
static inline int gr_field_is_rwbs_flags(const struct gr_event_view *ev,
					 const struct gr_field_view *f)
{
	return f->type == GR_FIELD_INTEGER && !strcmp(f->name, "rwbs") &&
	       !strcmp(ev->system, "block");
}

int gr_read_region_hdr(const void *region, uint64_t region_size,
		       struct gr_region_hdr *copy);
int gr_check_region_hdr(const struct gr_region_hdr *copy,
			uint64_t real_region_size, struct gr_view *out,
			const char **why);
int gr_check_event_desc(const struct gr_view *v,
			const struct gr_event_desc *copy, unsigned int index,
			struct gr_event_view *out, const char **why);
int gr_check_event_desc_ext(const struct gr_view *v,
			    const struct gr_event_desc *copy,
			    const struct gr_event_desc_ext *ext,
			    unsigned int index, struct gr_event_view *out,
			    const char **why);
int gr_check_desc_slot(const struct gr_view *v,
		       const struct gr_event_desc_long *slot,
		       unsigned int index, struct gr_event_view *out,
		       const char **why);
void gr_copy_desc_slot(const struct gr_view *v, const void *region,
		       unsigned int index, struct gr_event_desc_long *slot);
int gr_check_event_names(const struct gr_event_view *events, unsigned int nr,
			 const char **why);
int gr_check_families(struct gr_view *v, const struct gr_event_view *events,
		      unsigned int nr, const char **why);
int gr_check_added_descs(const struct gr_view *v,
			 const struct gr_event_view *events,
			 const struct gr_event_desc_long *copies,
			 unsigned int live,
			 struct gr_event_view *out, const char **why);

/* the checks of a running guest's rings and packets */
#include "validate_packet.h"

int gr_is_identifier(const char *s, unsigned int cap);
int gr_is_tsdl_keyword(const char *s);
const char *gr_mode_name(uint32_t mode);
const char *gr_state_name(uint32_t state);

/*
 * Offsets in the region, for a view accepted by gr_check_region_hdr() and
 * arguments in range (i < desc_capacity, ring < nr_rings, slot < n_subbufs):
 * the ABI's addressing helpers (guestrelay_abi.h, the ones the guest
 * uses) on the view's checked values. They cannot overflow: the checked
 * areas end inside the region.
 */

/* gr_view_is_global() - one ring shared by all CPUs? */
static inline int gr_view_is_global(const struct gr_view *v)
{
	return (v->flags & GR_HDR_GLOBAL) != 0;
}

/* gr_view_slot() - where sub-buffer number @seq of a ring lives */
static inline uint32_t gr_view_slot(const struct gr_view *v, uint64_t seq)
{
	return gr_subbuf_slot(seq, v->n_subbufs);
}

/* gr_view_desc_off() - region offset of event descriptor @i */
static inline uint64_t gr_view_desc_off(const struct gr_view *v,
					unsigned int i)
{
	return gr_desc_off(v->desc_offset, v->desc_stride, i);
}

/* gr_view_ring_off() - region offset of struct gr_ring of @ring */
static inline uint64_t gr_view_ring_off(const struct gr_view *v,
					unsigned int ring)
{
	return gr_ring_off(v->ring_offset, ring);
}

/* gr_view_rec_off() - region offset of the commit record of a slot */
static inline uint64_t gr_view_rec_off(const struct gr_view *v,
				       unsigned int ring, uint32_t slot)
{
	return gr_subbuf_rec_off(v->subbuf_rec_offset, v->n_subbufs, ring,
				 slot);
}

/* gr_view_subbuf_off() - region offset of the sub-buffer in a slot */
static inline uint64_t gr_view_subbuf_off(const struct gr_view *v,
					  unsigned int ring, uint32_t slot)
{
	return gr_subbuf_off(v->data_offset, v->n_subbufs, v->subbuf_size,
			     ring, slot);
}

#endif /* GR_VALIDATE_H */
