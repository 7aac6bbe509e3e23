/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctf_info.h - the files of a trace directory beside its streams (see
 * ctf.h for the layout): the metadata on disk, and .guestrelay, which
 * `guestrelay report` reads instead of parsing TSDL
 */
#ifndef GR_CTF_INFO_H
#define GR_CTF_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "guestrelay_abi.h"
#include "ctf.h"
#include "validate.h"

/*
 * .guestrelay: a versioned header, then the region header copy at
 * hdr_size, then desc_count descriptors of desc_size bytes each. All
 * fields little-endian. A reader accepts version GR_INFO_VERSION with any
 * hdr_size in [GR_INFO_HDR_MIN, GR_INFO_MAX_HDR] (a header of
 * GR_INFO_HDR_MIN bytes, as the writers before the clock check fields
 * wrote it, reads as if they were 0) and desc_size
 * in [sizeof(struct gr_event_desc), GR_INFO_MAX_DESC] (a newer writer
 * appends; the reader skips what it does not know), region_hdr_size ==
 * sizeof(struct gr_region_hdr) (the ABI fixes it), and re-validates the
 * copies with the validators: the file may be damaged. The CRC-32 tells
 * a damaged file from a valid one; a reader still uses what validates.
 */
#define GR_INFO_MAGIC		0x31304f464e495247ULL	/* "GRINFO01" */
#define GR_INFO_VERSION		1
#define GR_INFO_HDR_MIN		128		/* hdr_size of the first writers */
#define GR_INFO_MAX_HDR		4096		/* bound on hdr_size */
#define GR_INFO_MAX_DESC	4096		/* bound on desc_size */
#define GR_INFO_MAX_FILE	(GR_INFO_MAX_HDR + sizeof(struct gr_region_hdr) + \
				 (size_t)GR_WIDE_MAX_EVENTS * GR_INFO_MAX_DESC)

/**
 * struct gr_info_hdr - start of the .guestrelay file
 */
struct gr_info_hdr {
	__le64 magic;			/* GR_INFO_MAGIC */
	__le32 version;			/* GR_INFO_VERSION */
	__le32 hdr_size;		/* sizeof(struct gr_info_hdr): 192 */
	__le32 region_hdr_size;		/* sizeof(struct gr_region_hdr): 512 */
	__le32 desc_size;		/* sizeof(struct gr_event_desc): 576;
					 * v1.15: of gr_event_desc_long, 1352 */
	__le32 desc_count;		/* descriptors stored */
	__le32 flags;			/* GR_INFO_F_* */
#define GR_INFO_F_CLOCK_SYNCED	0x1U	/* clock_* fields are meaningful */
#define GR_INFO_F_CLOCK_CHECKED	0x2U	/* so are the clock check fields */
#define GR_INFO_F_CLOCK_KVM_TSC	0x4U	/* mapped through KVM's TSC (9.5) */
	__le64 region_size;		/* real size of the VM's region */
	__le64 clock_offset_s;		/* struct gr_ctf_clock offset_s (s64) */
	__le64 clock_offset;		/* struct gr_ctf_clock offset (ticks) */
	__le64 clock_precision;		/* ticks */
	__le64 clock_error_ns;		/* ns */
	__u8 trace_uuid[16];		/* the session's UUID */
	__le32 crc32;			/* CRC-32 (IEEE) of the file, this 0 */
	__le32 reserved0;		/* 0 */
	__u8 reserved[32];		/* 0 */
	/* from here: struct gr_ctf_clock's check of the mapping */
	__le64 clock_mono_to_real;	/* mono_to_real (s64), ns */
	__le64 clock_checked_ns;	/* checked_ns */
	__le64 clock_span_first;	/* span_first, guest ticks */
	__le64 clock_span_last;		/* span_last, guest ticks */
	__le64 clock_drift_ppb;		/* drift_ppb */
	__le32 clock_samples;		/* samples */
	__le32 reserved1;		/* 0 */
	__u8 reserved2[16];		/* 0 */
};

static_assert(sizeof(struct gr_info_hdr) == 192, "gr_info_hdr size");
static_assert(offsetof(struct gr_info_hdr, clock_mono_to_real) ==
	      GR_INFO_HDR_MIN, "gr_info_hdr first part");
static_assert(offsetof(struct gr_info_hdr, crc32) == 88, "gr_info_hdr crc");

/**
 * struct gr_ctf_info - a .guestrelay file, read back and re-validated
 * @view: the region header, accepted by gr_check_region_hdr()
 * @events: @events[i] describes event id i if @valid[i]
 * @valid: 1 if descriptor i passed gr_check_event_desc()
 * @why: for an invalid descriptor, the validator's reason
 * @nr_events: descriptors in the file that the header covers
 *	(<= @view.desc_count: the header's desc_count, raised to the
 *	descriptors stored up to its desc_capacity, v1.7)
 * @clock: the clock mapping stored with the trace
 * @trace_uuid: the session's UUID
 * @crc_ok: 0 if the file's CRC-32 does not match its contents (damaged;
 *	the validated parts are still usable)
 * @stored_desc_count: desc_count as stored in the file
 */
struct gr_ctf_info {
	struct gr_view view;
	struct gr_event_view events[GR_WIDE_MAX_EVENTS];
	uint8_t valid[GR_WIDE_MAX_EVENTS];
	const char *why[GR_WIDE_MAX_EVENTS];
	unsigned int nr_events;
	struct gr_ctf_clock clock;
	uint8_t trace_uuid[16];
	int crc_ok;
	uint32_t stored_desc_count;
};

int gr_ctf_write_metadata(int dirfd, const char *text, size_t len,
			  int *syncfd);
int gr_ctf_write_info(int dirfd, const struct gr_region_hdr *hdr_copy,
		      uint64_t region_size, const void *descs, size_t desc_size,
		      unsigned int nr_descs, const struct gr_ctf_clock *clock,
		      const uint8_t trace_uuid[16], int *syncfd);
int gr_ctf_parse_info(const void *buf, size_t len, struct gr_ctf_info *info,
		      const char **why);
int gr_ctf_read_info(int dirfd, struct gr_ctf_info *info, const char **why);
uint32_t gr_crc32(uint32_t crc, const void *buf, size_t len);

#endif /* GR_CTF_INFO_H */
