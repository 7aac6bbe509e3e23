/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reader.h - reading a stored trace back: events of all CPUs in time order
 *
 * The one reader of trace directories (see ctf.h), shared by `guestrelay
 * report` and `guestrelay timeline`. It parses no TSDL: event layouts come
 * from the .guestrelay file, re-validated on every open, and events from
 * the stream files, whole sub-buffers of packet_size bytes. Nothing read
 * from disk is trusted: a damaged spot becomes one note (a line of text
 * stamped with the time it belongs to) and the reader goes on with the
 * next packet. Losses (packets missing from the sequence, events the
 * guest discarded) are notes too.
 *
 * Use:
 *	struct gr_reader r;
 *	struct gr_cursor *c;
 *
 *	if (gr_reader_open(&r, dir, stderr, 0))
 *		return;
 *	if (!gr_reader_merge_start(&r))
 *		while ((c = gr_reader_merge_head(&r))) {
 *			... c->kind, c->ts, c->cpu, c->note, c->rec ...
 *			gr_reader_merge_next(&r);
 *		}
 *	gr_reader_close(&r);
 *
 * Memory: one packet (subbuf_size bytes) per stream file, whatever the
 * size of the trace.
 */
#ifndef GR_READER_H
#define GR_READER_H

#include <stdint.h>
#include <stdio.h>

#include "ctf.h"

#define GR_NOTE_LEN	200
#define GR_MAX_NOTES	6

enum gr_item_kind { GR_ITEM_NONE, GR_ITEM_EVENT, GR_ITEM_NOTE };

struct gr_note {
	uint64_t ts;
	char text[GR_NOTE_LEN];
};

/**
 * struct gr_cursor - one stream file, walked packet by packet
 *
 * The head item (@kind, @ts, @cpu and @note or @rec/@rec_ptr) is what
 * gr_cursor_advance() made current; the statistics count what was walked.
 * The other fields are the reader's own.
 */
struct gr_cursor {
	unsigned int ring;
	int fd;
	uint64_t size;			/* file size when opened */
	uint64_t next;			/* file offset of the next packet */
	uint8_t *buf;			/* current packet, content bytes */
	uint32_t end;			/* bytes of @buf to walk */
	uint32_t pos;			/* next record in @buf */
	uint32_t cpu;			/* cpu_id of the current packet */
	uint64_t seq;			/* packet_seq_num of the current packet */
	int in_packet;
	int truncated;			/* current packet cut by end of file */
	int done;
	int have_seq;
	uint64_t next_seq;
	int have_disc;
	uint64_t disc;
	uint64_t where;			/* time of the last packet or event */
	uint64_t last_ts;		/* timestamp of the last event */
	uint64_t prev_end;		/* timestamp_end of the last packet */
	int have_ev;			/* an event was read: last_ts is one */

	struct gr_note notes[GR_MAX_NOTES];	/* queued before the next event */
	unsigned int nnotes, inote;

	/* the head item */
	enum gr_item_kind kind;
	uint64_t ts;
	const char *note;
	struct gr_record_view rec;
	const uint8_t *rec_ptr;

	/* statistics */
	uint64_t packets;
	uint64_t events;
	uint64_t lost_packets;
	uint64_t discarded;
	uint64_t damaged;
	uint64_t first_ts;
	uint64_t end_ts;
	int any_ts;
	uint64_t pkt_first;		/* timestamp_begin of the first packet */
	uint64_t pkt_last;		/* largest timestamp_end of a packet */
	uint64_t per_event[GR_WIDE_MAX_EVENTS];
};

/**
 * struct gr_reader - an open trace directory
 * @info: its .guestrelay file, validated
 * @cur: one cursor per ring (@nr_cur = nr_rings); a ring without a stream
 *	file has a cursor that is done from the start
 * @headers_only: walk packet headers only (no events): for the time span
 *	and the losses, without reading the records
 */
struct gr_reader {
	struct gr_ctf_info *info;
	struct gr_cursor *cur;
	unsigned int nr_cur;
	int dirfd;
	int headers_only;
	struct gr_cursor **heap;	/* merge: cursors by (ts, ring) */
	unsigned int nheap;
};

int gr_reader_open(struct gr_reader *r, const char *dir, FILE *out,
		   int headers_only);
void gr_reader_close(struct gr_reader *r);
void gr_cursor_advance(struct gr_reader *r, struct gr_cursor *c);
void gr_cursor_limit(struct gr_cursor *c, uint64_t size);
int gr_reader_merge_start(struct gr_reader *r);
struct gr_cursor *gr_reader_merge_head(const struct gr_reader *r);
void gr_reader_merge_next(struct gr_reader *r);
uint64_t gr_reader_damaged(const struct gr_reader *r);

__int128 gr_time_ns(const struct gr_ctf_info *info, uint64_t ts,
		    int host_time);
const struct gr_field_view *gr_event_field(const struct gr_event_view *ev,
					   const char *name);
uint64_t gr_load_le(const uint8_t *p, unsigned int size);
int gr_field_int(const struct gr_field_view *f, const uint8_t *payload,
		 uint32_t plen, int64_t *val);
size_t gr_field_text(const struct gr_field_view *f, const uint8_t *payload,
		     uint32_t plen, const uint8_t **text);
void gr_event_text(const struct gr_event_view *ev, const char *name,
		   const uint8_t *p, uint32_t len, char *out, size_t size);
int64_t gr_event_int(const struct gr_event_view *ev, const char *name,
		     const uint8_t *p, uint32_t len);

/* gr_cursor_payload() - the head event's payload and its length */
static inline const uint8_t *gr_cursor_payload(const struct gr_cursor *c,
					       uint32_t *len)
{
	*len = c->rec.size - (uint32_t)sizeof(struct gr_event_header);
	return c->rec_ptr + sizeof(struct gr_event_header);
}

#endif /* GR_READER_H */
