/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gr_build.h - the guest's structures, built in memory by the tests
 *
 * One builder of what a guest publishes (region header, event and field
 * descriptors, commit record, packet header), shared by test_validate,
 * test_ctf and tl_synth (test_timeline, tl_mktrace). Every value is
 * stored little-endian, as the ABI says; the builder checks nothing: a
 * test that wants a damaged structure builds a valid one and breaks it.
 * No CUnit here: tl_mktrace links it without the runner.
 */
#ifndef GR_BUILD_H
#define GR_BUILD_H

#include <stdint.h>

#include "guestrelay_abi.h"

/* the geometry and identity of a region header */
struct gr_build_layout {
	uint64_t region_size;
	uint32_t nr_rings;
	uint32_t nr_cpus;
	uint32_t flags;			/* GR_HDR_* */
	uint32_t subbuf_size;
	uint32_t n_subbufs;
	uint64_t desc_offset;
	uint32_t desc_count;
	uint64_t ring_offset;
	uint64_t rec_offset;
	uint64_t data_offset;
	uint32_t max_event_size;
	uint64_t clock_freq;
	uint64_t features;
	uint64_t instance_id;
	const char *kernel_release;
	const char *nodename;
	uint8_t boot;			/* boot_id[i] = boot + i */
};

/**
 * gr_build_hdr() - a published region header of layout @l
 * @h: the header, cleared first (reserved bytes 0)
 * @l: its values; clock_name is "mono_fast", the sizes and strides are
 *     those of the ABI structs
 */
void gr_build_hdr(struct gr_region_hdr *h, const struct gr_build_layout *l);

/**
 * gr_build_event() - name, system and shape of event descriptor @d
 * @d: the descriptor; its field slots are left as they are (a caller
 *     clears the descriptor first, or fills the fields before)
 * @id: the event id, its index in the table
 * @name: event name, @system: its system
 * @payload: payload_size, @flags: GR_EVENT_F_*, @nr_fields: fields used
 *
 * Return: @d->fields, for gr_build_field().
 */
struct gr_field_desc *gr_build_event(struct gr_event_desc *d, uint16_t id,
				     const char *name, const char *system,
				     uint16_t payload, uint16_t flags,
				     uint16_t nr_fields);

/* field descriptor @f, cleared first: @name at @offset, @size bytes */
void gr_build_field(struct gr_field_desc *f, const char *name,
		    uint16_t offset, uint16_t size, uint8_t type,
		    uint8_t flags);

/**
 * gr_build_sched_switch() - sched_switch as guest-module/gr_events.c lays
 * it out: 56 bytes, comms of 16 bytes, signed tids and prios
 * @d: the descriptor; the field slots after the seventh are left as they are
 * @id: the event id
 * @state_flags: how prev_state prints (GR_FIELD_F_HEX or _SIGNED)
 */
void gr_build_sched_switch(struct gr_event_desc *d, uint16_t id,
			   uint8_t state_flags);

/* sched_wakeup: 28 bytes, comm of 16 bytes, signed tid, prio, target_cpu */
void gr_build_sched_wakeup(struct gr_event_desc *d, uint16_t id);

/**
 * gr_build_record() - one event record at @at, as the guest writes it
 * @at: where the record starts (8-aligned in its packet)
 * @id: event id, @tid: thread, @ts: timestamp
 * @payload: @plen bytes after the 16-byte header, then zeros up to the
 *           record's 8-byte aligned end
 *
 * Return: the record's size, ALIGN(16 + @plen, 8).
 */
uint32_t gr_build_record(uint8_t *at, uint16_t id, uint32_t tid, uint64_t ts,
			 const void *payload, uint32_t plen);

/* what a packet header says; the CTF magic and stream_id 0 are implied */
struct gr_build_packet {
	uint32_t ring;			/* stream_instance_id */
	uint32_t cpu;			/* cpu_id */
	uint64_t ts_begin;
	uint64_t ts_end;
	uint64_t content_bytes;		/* content_size / 8 */
	uint64_t packet_bytes;		/* packet_size / 8 */
	uint64_t seq;			/* packet_seq_num */
	uint64_t discarded;		/* events_discarded */
};

/* packet header @ph, cleared first (reserved 0), from @p */
void gr_build_packet_header(struct gr_packet_header *ph,
			    const struct gr_build_packet *p);

/* commit record @rec, cleared first: sub-buffer @seq of @bytes */
void gr_build_commit(struct gr_subbuf_rec *rec, uint64_t seq, uint32_t bytes);

/*
 * gr_build_map() - map a VM's shared memory file @path, at least @min
 * bytes, read-write and shared, as a guest by hand does (hist_guest,
 * anyevent_guest); its size in *@size; NULL (with perror) on failure
 */
uint8_t *gr_build_map(const char *path, uint64_t min, uint64_t *size);

/*
 * The keywords of TSDL (CTF 1.8), each a legal field name for the guest
 * (spec 7.5: the writer prefixes field names with '_').
 */
#define GR_BUILD_NR_TSDL_KEYWORDS	25
extern const char *const gr_build_tsdl_keywords[GR_BUILD_NR_TSDL_KEYWORDS];

#endif /* GR_BUILD_H */
