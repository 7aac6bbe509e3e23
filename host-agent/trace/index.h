/* SPDX-License-Identifier: GPL-2.0 */
/*
 * index.h - LTTng's packet index files: <session>/index/stream_<ring>.idx
 *
 * One entry per stored packet (CTF index 1.1, as lttng-consumerd writes
 * and babeltrace2's src.ctf.fs and lttng-live read them): where it
 * starts in the stream file, its sizes, time bounds, discarded events,
 * stream class, ring and sequence number. Everything big-endian. The
 * agent appends an entry once the packet's write completed and every
 * packet before it is whole on disk, so an index never points past what
 * a reader can read: the live server (live/) answers from it.
 */
#ifndef GR_TRACE_INDEX_H
#define GR_TRACE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "guestrelay_abi.h"

#define GR_INDEX_MAGIC		0xC1F1DCC1u
#define GR_INDEX_MAJOR		1
#define GR_INDEX_MINOR		1
#define GR_INDEX_DIR		"index"
#define GR_INDEX_BATCH		32	/* entries buffered between writes */

/* The file header (16 bytes, big-endian) */
struct gr_index_file_hdr {
	uint32_t magic;			/* GR_INDEX_MAGIC */
	uint32_t index_major;		/* 1 */
	uint32_t index_minor;		/* 1 */
	uint32_t packet_index_len;	/* bytes of one entry */
} __attribute__((packed));

/* One entry (CTF index 1.1: 72 bytes, big-endian) */
struct gr_index_entry {
	uint64_t offset;		/* bytes from the stream file's start */
	uint64_t packet_size;		/* bits, as the stored header says */
	uint64_t content_size;		/* bits */
	uint64_t timestamp_begin;	/* clock cycles */
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id;		/* stream class */
	uint64_t stream_instance_id;	/* 1.1: the ring */
	uint64_t packet_seq_num;	/* 1.1 */
} __attribute__((packed));

_Static_assert(sizeof(struct gr_index_file_hdr) == 16, "index header");
_Static_assert(sizeof(struct gr_index_entry) == 72, "index entry");

/**
 * struct gr_index - the index file of one stream being written
 * @fd: the file, or -1 (no index: the stream is still stored)
 * @dirfd: the session's index/ directory, or -1
 * @ring: the stream's ring
 * @size: bytes of whole entries in the file
 * @n: entries in @buf not written yet
 * @buf: entries waiting for gr_index_flush()
 */
struct gr_index {
	int fd;
	int dirfd;
	unsigned int ring;
	uint64_t size;
	unsigned int n;
	struct gr_index_entry buf[GR_INDEX_BATCH];
};

int gr_index_open(struct gr_index *idx, int session_fd, unsigned int ring,
		  int stream_fd, uint64_t stream_size, uint64_t subbuf_size);
void gr_index_add(struct gr_index *idx, const struct gr_packet_header *h,
		  uint64_t off);
int gr_index_flush(struct gr_index *idx);
void gr_index_close(struct gr_index *idx);
int gr_index_build(int session_fd, unsigned int ring, uint64_t subbuf_size);

void gr_index_entry_of(struct gr_index_entry *e,
		       const struct gr_packet_header *h, uint64_t off);
bool gr_index_entry_get(const struct gr_index_entry *raw,
			struct gr_index_entry *e);

#define GR_INDEX_QUIET_SLACK_NS	1000000000ULL	/* see gr_index_quiet_back() */
uint64_t gr_index_quiet_back(uint32_t switch_timer_us, uint64_t clock_freq);

#endif
