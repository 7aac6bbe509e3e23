// SPDX-License-Identifier: GPL-2.0
/*
 * validate_packet.c - the host's checks of what a guest produces while it
 * runs: ring counters, sub-buffer commit records, packet headers and the
 * records in a packet, and where a stored packet's content ends
 *
 * As in validate.c: each check works on a host-private copy, sees the
 * guest as hostile, bounds every value before using it, and returns a
 * negative errno with *why naming the first rule that failed.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "common.h"
#include "validate.h"
#include "validate_packet.h"

/**
 * gr_check_counters() - validate a ring's counters and say what to read
 * @v: view of the region header
 * @produced: prod.produced, read once from the ring (acquire)
 * @consumed: the host's own consumed count for the ring
 * @flight_mode: non-zero if the ring runs in GR_MODE_FLIGHT
 * @first: receives the sequence number of the first sub-buffer to read
 * @ready: receives how many sub-buffers from @first on are finished
 * @why: receives a static reason on failure; may be NULL
 *
 * Counters are free-running u64 values; their difference d = produced -
 * consumed is taken modulo 2^64.
 *
 * Stream mode: the guest never overwrites, so d <= n_subbufs; then
 * @first = @consumed and @ready = d.
 *
 * Flight mode: the guest overwrites the oldest sub-buffers, and the slot
 * it is filling, produced % n_subbufs, is that of sequence number
 * produced - n_subbufs; so at most n_subbufs - 1 finished sub-buffers are
 * intact. @ready = min(d, n_subbufs - 1) and @first = produced - @ready; the
 * sub-buffers in [@consumed, @first) were overwritten. A d of 2^63 or more
 * would be a produced count behind consumed (the guest restarts produced
 * at consumed, never below), and is rejected so the host never goes back to
 * sequence numbers it already stored. The seq of each commit record is
 * still checked (gr_check_packet()), as the guest may overwrite a
 * sub-buffer while the host reads it.
 *
 * Context: any; does not sleep.
 * Return: 0 with @first and @ready set, or -EINVAL.
 */
int gr_check_counters(const struct gr_view *v, uint64_t produced,
		      uint64_t consumed, int flight_mode, uint64_t *first,
		      uint64_t *ready, const char **why)
{
	uint64_t d = produced - consumed;

	if (!flight_mode) {
		if (d > v->n_subbufs)
			return bad(why, "produced is more than n_subbufs ahead of consumed");
		*first = consumed;
		*ready = d;
		return 0;
	}
	if (d >> 63)
		return bad(why, "produced is behind consumed");
	if (d > v->n_subbufs - 1)
		d = v->n_subbufs - 1;
	*first = produced - d;
	*ready = d;
	return 0;
}

/**
 * gr_check_packet() - validate a finished sub-buffer before storing it
 * @v: view of the region header
 * @ring: ring index, < nr_rings
 * @expected_seq: sequence number the host expects in this slot
 * @rec_copy: host-private copy of the slot's commit record, taken after an
 *	acquire load of its seq
 * @hdr_copy: host-private copy of the sub-buffer's packet header
 * @last: the stream's last stored packet, or NULL if none is known
 * @content_bytes: receives content_size / 8 (header and events)
 * @why: receives a static reason on failure; may be NULL
 *
 * Checks the commit record (seq == @expected_seq, not GR_SEQ_BUSY) and the
 * packet header: magic, stream_id 0, stream_instance_id == @ring, cpu_id
 * (== @ring: 0 for a global ring, spec H9), packet_size ==
 * subbuf_size * 8, content_size a multiple of 64 bits (records are 8-byte
 * aligned and the header is 72 bytes, so content is whole 8-byte words), in
 * [packet_header_size * 8, packet_size] and == rec.bytes * 8, packet_seq_num
 * == @expected_seq, timestamp_begin <= timestamp_end <= ts_max,
 * events_discarded not 2^64 - 1 (babeltrace2 2.0 asserts on it), and,
 * against @last, timestamp_begin >= its timestamp_end and events_discarded
 * >= its events_discarded. Together these are what babeltrace2 needs of a
 * packet header to read the stream (spec H9); reserved bytes are ignored.
 *
 * Context: any; does not sleep.
 * Return: 0 if the sub-buffer may be stored; -EBUSY if the guest is writing
 * the slot; -ESTALE if the slot already holds a later sub-buffer of the same
 * slot (overwritten, flight mode); -EINVAL otherwise.
 */
int gr_check_packet(const struct gr_view *v, unsigned int ring,
		    uint64_t expected_seq, const struct gr_subbuf_rec *rec_copy,
		    const struct gr_packet_header *hdr_copy,
		    const struct gr_stream_mark *last, uint64_t *content_bytes,
		    const char **why)
{
	uint64_t ts_begin = le64toh(hdr_copy->timestamp_begin);
	uint64_t ts_end = le64toh(hdr_copy->timestamp_end);
	uint64_t discarded = le64toh(hdr_copy->events_discarded);
	uint64_t seq = le64toh(rec_copy->seq);
	uint64_t content = le64toh(hdr_copy->content_size);
	uint64_t packet = le64toh(hdr_copy->packet_size);
	uint32_t cpu = le32toh(hdr_copy->cpu_id);
	uint64_t ahead;

	if (ring >= v->nr_rings)
		return bad(why, "ring index out of range");
	if (seq == GR_SEQ_BUSY)
		return reject(why, "sub-buffer is being written", -EBUSY);
	if (seq != expected_seq) {
		ahead = seq - expected_seq;
		if (!(ahead >> 63) && !(ahead % v->n_subbufs))
			return reject(why, "sub-buffer was overwritten", -ESTALE);
		return bad(why, "commit record seq is not the expected one");
	}

	if (le32toh(hdr_copy->magic) != GR_CTF_MAGIC)
		return bad(why, "bad packet magic");
	if (hdr_copy->stream_id)
		return bad(why, "stream_id is not 0");
	if (le64toh(hdr_copy->stream_instance_id) != ring)
		return bad(why, "stream_instance_id is not the ring index");
	/* spec H9: the ring index, so 0 for the one global ring (3.9) */
	if (cpu != ring)
		return bad(why, "cpu_id does not match the ring");
	if (packet != (uint64_t)v->subbuf_size * 8)
		return bad(why, "packet_size is not subbuf_size * 8");
	if (content % 64)
		return bad(why, "content_size is not a multiple of 64 bits");
	if (content < (uint64_t)v->packet_header_size * 8)
		return bad(why, "content_size is smaller than the packet header");
	if (content == (uint64_t)v->packet_header_size * 8)
		return bad(why, "content_size holds no event (CTF readers reject such a packet)");
	if (content > packet)
		return bad(why, "content_size exceeds packet_size");
	if (content != (uint64_t)le32toh(rec_copy->bytes) * 8)
		return bad(why, "content_size differs from the commit record");
	if (le64toh(hdr_copy->packet_seq_num) != expected_seq)
		return bad(why, "packet_seq_num is not the expected one");
	if (ts_begin > ts_end)
		return bad(why, "timestamp_begin is after timestamp_end");
	if (ts_end > v->ts_max)
		return bad(why, "timestamp_end is beyond 2^62 ns");
	if (discarded == UINT64_MAX)
		return bad(why, "events_discarded is 2^64 - 1");
	if (last && ts_begin < last->ts_end)
		return bad(why, "timestamp_begin is before the previous packet's end");
	if (last && discarded < last->discarded)
		return bad(why, "events_discarded went down");

	*content_bytes = content / 8;
	return 0;
}

/**
 * gr_stream_mark_set() - remember a stored packet as its stream's last
 * @m: the stream's mark
 * @hdr_copy: the packet header that gr_check_packet() accepted
 *
 * Context: any; does not sleep.
 */
void gr_stream_mark_set(struct gr_stream_mark *m,
			const struct gr_packet_header *hdr_copy)
{
	m->ts_end = le64toh(hdr_copy->timestamp_end);
	m->discarded = le64toh(hdr_copy->events_discarded);
}

/* The descriptor whose family holds record id @id, or -1 */
static int family_of(const struct gr_view *v, uint16_t id)
{
	unsigned int k;

	for (k = 0; k < v->nr_families && k < GR_MAX_FAMILIES; k++)
		if ((uint16_t)(id - v->families[k].base) <
		    v->families[k].count)
			return v->families[k].desc;
	return -1;
}

/**
 * gr_check_event_header() - validate one record while walking a packet
 * @v: view of the region header, with its families (gr_check_families())
 * @copy: host-private copy of the record's struct gr_event_header
 * @events: validated descriptors, @events[i] describing event id i
 * @nr_events: entries in @events
 * @remaining: content bytes from the record's start to the packet's end
 * @out: receives the CPU-endian record header; written only on success
 * @why: receives a static reason on failure; may be NULL
 *
 * Checks: id < @nr_events, or a member of the family of a descriptor
 * below @nr_events (then @out->id is that descriptor and @out->member the
 * record's id; two comparisons per family, at most GR_MAX_FAMILIES); size
 * a multiple of 8, >= 16 and <= @remaining;
 * for a fixed-size event size == ALIGN(16 + payload_size, 8), for a VARLEN
 * one size in [ALIGN(16 + string offset + 1, 8), ALIGN(16 + payload_size,
 * 8)]. The terminating NUL of a VARLEN string is not checked here: a reader
 * looks for it within the record only.
 *
 * Context: any; does not sleep.
 * Return: 0 if the record may be decoded, -EINVAL otherwise.
 */
int gr_check_event_header(const struct gr_view *v,
			  const struct gr_event_header *copy,
			  const struct gr_event_view *events,
			  unsigned int nr_events, uint64_t remaining,
			  struct gr_record_view *out, const char **why)
{
	struct gr_record_view r;
	const struct gr_event_view *ev;
	int desc;

	r.id = le16toh(copy->id);
	r.member = r.id;
	r.size = le16toh(copy->size);
	r.tid = le32toh(copy->tid);
	r.timestamp = le64toh(copy->timestamp);

	if (r.id >= nr_events) {
		desc = family_of(v, r.id);
		if (desc < 0 || (unsigned int)desc >= nr_events)
			return bad(why, "unknown event id");
		r.id = (uint16_t)desc;
	}
	if (r.size % GR_RECORD_ALIGN)
		return bad(why, "record size is not a multiple of 8");
	if (r.size < sizeof(struct gr_event_header))
		return bad(why, "record size is below 16");
	if (r.size > remaining)
		return bad(why, "record extends beyond the packet content");
	ev = &events[r.id];
	if (!(ev->flags & GR_EVENT_F_VARLEN)) {
		if (r.size != ev->max_record)
			return bad(why, "record size does not match the event");
	} else if (r.size < ev->min_record || r.size > ev->max_record) {
		return bad(why, "record size outside the event's range");
	}
	*out = r;
	return 0;
}

/* a little-endian unsigned integer of @size (1..8) bytes at @p */
static uint64_t load_le(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	while (size--)
		v = v << 8 | p[size];
	return v;
}

/**
 * gr_record_var_walk() - where the variable fields of a record are
 * @ev: a validated GR_EVENT_F_VARLEN descriptor
 * @payload: the record's payload (after its 16-byte header)
 * @plen: its bytes (the record's size less 16, tail padding included)
 * @start: if not NULL, receives the payload offset of each variable field
 *	(from gr_event_first_var() to nr_fields - 1; the others untouched)
 * @end: receives the payload offset after the last variable field
 * @why: receives a static reason on failure; may be NULL
 *
 * Spec 7.1 (v1.11): the variable fields follow the fixed part in their
 * order, each right after the previous one's end: a STRING up to its NUL,
 * which lies within its maximum, a SEQUENCE of as many elements as its
 * count field says, within its maximum. Before v1.11 the one string
 * starts at its descriptor offset, as it does here.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL if a field does not fit its maximum or the
 * record.
 */
int gr_record_var_walk(const struct gr_event_view *ev,
		       const uint8_t *payload, uint32_t plen, uint32_t *start,
		       uint32_t *end, const char **why)
{
	const struct gr_field_view *f, *len;
	uint32_t pos, room, i = gr_event_first_var(ev);
	const uint8_t *nul;
	uint64_t cnt;

	if (!(ev->flags & GR_EVENT_F_VARLEN) || i >= ev->nr_fields)
		return bad(why, "event has no variable field");
	pos = ev->fields[i].offset;
	for (; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (pos >= plen && f->type == GR_FIELD_STRING)
			return bad(why, "string is not terminated in its record");
		if (pos > plen)
			return bad(why, "sequence is beyond its record");
		if (start)
			start[i] = pos;
		room = plen - pos < f->size ? plen - pos : f->size;
		if (f->type == GR_FIELD_STRING) {
			nul = memchr(payload + pos, 0, room);
			if (!nul)
				return bad(why, "string is not terminated in its record");
			pos += (uint32_t)(nul - (payload + pos)) + 1;
			continue;
		}
		len = &ev->fields[f->len_field];
		if ((uint32_t)len->offset + len->size > plen)
			return bad(why, "sequence count is beyond its record");
		cnt = load_le(payload + len->offset, len->size);
		if (!f->elem_size || cnt > room / f->elem_size)
			return bad(why, "sequence is longer than its maximum or its record");
		pos += (uint32_t)cnt * f->elem_size;
	}
	*end = pos;
	return 0;
}

/*
 * Where the last declared byte of the packet at @p is, given its last
 * record at @last (event @ev) and its records' end @content (spec 6.12:
 * the fields, for a VARLEN event up to its string's NUL); @content if
 * that is not within the record's last 8-byte word.
 */
static uint64_t declared_end(const uint8_t *p, uint64_t last,
			     const struct gr_event_view *ev, uint64_t content)
{
	uint64_t pay = last + sizeof(struct gr_event_header),
		 end = pay + gr_event_declared_end(ev);
	uint32_t vend;

	if (ev->flags & GR_EVENT_F_VARLEN) {
		if (pay >= content ||
		    gr_record_var_walk(ev, p + pay, (uint32_t)(content - pay),
				       NULL, &vend, NULL))
			return content;
		end = pay + vend;
	}
	if (end > content || end + GR_RECORD_ALIGN <= content)
		return content;
	return end;
}

/**
 * gr_check_records_end() - check every record of a packet copy (verify
 * mode) and find where its last declared byte is
 * @v: view of the region header
 * @events: validated descriptors, @events[i] describing event id i
 * @nr_events: entries in @events
 * @packet: host-private copy of the packet, at least @content_bytes long,
 *	whose header passed gr_check_packet()
 * @content_bytes: content_size / 8, from gr_check_packet()
 * @end: if not NULL, receives what gr_packet_content_end() would give,
 *	from the same walk (no second one)
 * @why: receives a static reason on failure; may be NULL
 *
 * Walks the records from the end of the packet header: each passes
 * gr_check_event_header(); the walk ends exactly at @content_bytes; record
 * timestamps never decrease and lie in [timestamp_begin, timestamp_end];
 * the string of a VARLEN event ends with a NUL in the record's last
 * 8-byte word, which is where a CTF reader, decoding the string and the
 * record's align(64) tail, expects the next record. These are the rules
 * a reader needs of records (spec H24): a packet that passes them is
 * decoded by babeltrace2 record by record as the guest meant it.
 *
 * Context: any; does not sleep; at most subbuf_size / 16 records.
 * Return: 0 or -EINVAL.
 */
int gr_check_records_end(const struct gr_view *v,
			 const struct gr_event_view *events,
			 unsigned int nr_events, const void *packet,
			 uint64_t content_bytes, uint64_t *end,
			 const char **why)
{
	const struct gr_packet_header *ph = packet;
	const struct gr_event_view *ev = NULL;
	const uint8_t *p = packet;
	uint64_t off = v->packet_header_size, last = 0;
	uint64_t ts = le64toh(ph->timestamp_begin);
	uint64_t ts_end = le64toh(ph->timestamp_end);
	int ret;

	while (off < content_bytes) {
		struct gr_event_header eh;
		struct gr_record_view r;

		memcpy(&eh, p + off, sizeof(eh));
		ret = gr_check_event_header(v, &eh, events, nr_events,
					    content_bytes - off, &r, why);
		if (ret)
			return ret;
		if (r.timestamp < ts)
			return bad(why, "record timestamp goes backwards");
		if (r.timestamp > ts_end)
			return bad(why, "record timestamp is after timestamp_end");
		ts = r.timestamp;
		ev = &events[r.id];
		if (ev->flags & GR_EVENT_F_VARLEN) {
			uint64_t pay = off + sizeof(eh);
			uint32_t vend;

			/* min_record keeps the fixed part in the record */
			ret = gr_record_var_walk(ev, p + pay,
						 r.size - sizeof(eh), NULL,
						 &vend, why);
			if (ret)
				return ret;
			if (pay + vend <=
			    off + r.size - GR_RECORD_ALIGN)
				return bad(why, "record is longer than its string");
		}
		last = off;
		off += r.size;
	}
	if (end)
		*end = ev ? declared_end(p, last, ev, content_bytes) :
			    content_bytes;
	return 0;
}

/**
 * gr_check_records() - gr_check_records_end() without the end
 * @v: view of the region header
 * @events: validated descriptors
 * @nr_events: entries in @events
 * @packet: host-private copy of the packet
 * @content_bytes: content_size / 8, from gr_check_packet()
 * @why: receives a static reason on failure; may be NULL
 *
 * Context: any; does not sleep.
 * Return: 0 or -EINVAL.
 */
int gr_check_records(const struct gr_view *v,
		     const struct gr_event_view *events, unsigned int nr_events,
		     const void *packet, uint64_t content_bytes,
		     const char **why)
{
	return gr_check_records_end(v, events, nr_events, packet,
				    content_bytes, NULL, why);
}

/**
 * gr_event_declared_end() - payload bytes the CTF metadata declares
 * @ev: a validated descriptor (fields in offset order)
 *
 * Spec 7.5: the fields, and for a fixed-size event a trailing gap only
 * when the next record header's align(64) would not skip it (it reaches
 * another 8-byte word). A VARLEN event's declaration ends after its
 * string's NUL, which only the record says.
 *
 * Context: any.
 * Return: the end of the last declared field, in payload bytes.
 */
uint32_t gr_event_declared_end(const struct gr_event_view *ev)
{
	uint32_t end = 0;

	if (ev->nr_fields && ev->nr_fields <= GR_LONG_MAX_FIELDS)
		end = (uint32_t)ev->fields[ev->nr_fields - 1].offset +
		      ev->fields[ev->nr_fields - 1].size;
	/* payloads start 8-byte aligned (after the 16-byte header) */
	if (!(ev->flags & GR_EVENT_F_VARLEN) &&
	    ALIGN8(end) < ALIGN8(ev->payload_size))
		end = ev->payload_size;
	return end;
}

/**
 * gr_stored_packet_len() - the length in a stream file of the stored
 * packet whose header is @h, or 0 if it is not one of ring @ring's
 * @h: a copy of the packet's header as read from the file
 * @ring: the stream file's ring
 * @subbuf_size: the layout's sub-buffer size
 *
 * A stored packet is a whole sub-buffer (packet_size = subbuf_size * 8,
 * traces of earlier agents) or its records (packet_size = the records'
 * end, content_size = the last record's last declared byte, less than 64
 * bits before it: spec 6.12). The one rule of the agent's resume walk,
 * the shipper's and the collector's.
 */
uint64_t gr_stored_packet_len(const struct gr_packet_header *h,
			      uint64_t ring, uint64_t subbuf_size)
{
	uint64_t cs = le64toh(h->content_size), ps = le64toh(h->packet_size);

	if (le32toh(h->magic) != GR_CTF_MAGIC ||
	    le64toh(h->stream_instance_id) != ring ||
	    cs % 8 || ps % 64 || cs < sizeof(*h) * 8 || cs > ps ||
	    (ps != subbuf_size * 8 && ps - cs >= 64))
		return 0;
	return ps / 8;
}

/**
 * gr_packet_content_end() - where a packet's last declared byte is
 * @v: the view the packet was checked against
 * @events: validated descriptors
 * @nr_events: their number
 * @packet: the packet (a private copy, or with verify off the shared
 *	sub-buffer: each record header is then read once, and a guest
 *	racing the walk can only spoil its own packet)
 * @content_bytes: content_size / 8 from gr_check_packet()
 *
 * Spec 6.12: the host stores content_size up to the end of the last
 * record's declared fields, not its tail padding, because babeltrace2
 * 2.0.4 starts decoding another event header wherever content remains.
 * Walks the records by their size, from the header to @content_bytes.
 *
 * Context: any; does not sleep.
 * Return: that end, in bytes from the packet start, in
 * (@content_bytes - 8, @content_bytes]; @content_bytes itself if the
 * records do not chain up to it or the last one is too short.
 */
uint64_t gr_packet_content_end(const struct gr_view *v,
			       const struct gr_event_view *events,
			       unsigned int nr_events, const void *packet,
			       uint64_t content_bytes)
{
	const uint8_t *p = packet;
	const struct gr_event_view *ev = NULL;
	uint64_t off = v->packet_header_size, last = 0;
	struct gr_event_header eh;
	uint16_t id, size = 0;

	while (off < content_bytes) {
		if (content_bytes - off < sizeof(eh))
			return content_bytes;
		memcpy(&eh, p + off, sizeof(eh));
		id = le16toh(eh.id);
		size = le16toh(eh.size);
		if (id >= nr_events) {
			int d = family_of(v, id);	/* a member's (H30) */

			if (d < 0 || (unsigned int)d >= nr_events)
				return content_bytes;
			id = (uint16_t)d;
		}
		if (size < sizeof(eh) || size % GR_RECORD_ALIGN ||
		    size > content_bytes - off)
			return content_bytes;
		ev = &events[id];
		last = off;
		off += size;
	}
	if (!ev || off != content_bytes)
		return content_bytes;
	return declared_end(p, last, ev, content_bytes);
}

/**
 * gr_packet_content_end_at() - gr_packet_content_end() in constant time,
 *	from where the guest says its packet's last record starts
 * @v: the view the packet was checked against
 * @events: validated descriptors
 * @nr_events: their number
 * @packet: the packet (a private copy, or with verify off the shared
 *	sub-buffer: the one record header is read once)
 * @content_bytes: content_size / 8 from gr_check_packet()
 * @last: the offset of the last record the guest declares
 * @end: receives the end, as gr_packet_content_end() gives it
 *
 * @last is untrusted: it must be 8-aligned, at or after the packet
 * header, and leave a whole record header before @content_bytes; the
 * record there must pass gr_check_event_header() and end exactly at
 * @content_bytes. Otherwise nothing is stored in @end and the caller
 * counts the value and walks (gr_packet_content_end()). A @last that
 * passes but points into a record can only move @end within
 * (@content_bytes - 8, @content_bytes], the range the walk gives: the
 * stored bounds never leave the packet, as with record contents under
 * verify off, only the guest's own last record may then decode wrong.
 * A header-only packet has no last record: @last must be 0 for it.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL for a @last that fails a check.
 */
int gr_packet_content_end_at(const struct gr_view *v,
			     const struct gr_event_view *events,
			     unsigned int nr_events, const void *packet,
			     uint64_t content_bytes, uint64_t last,
			     uint64_t *end)
{
	const uint8_t *p = packet;
	struct gr_event_header eh;
	struct gr_record_view r;

	if (content_bytes <= v->packet_header_size) {
		if (last)
			return -EINVAL;
		*end = content_bytes;
		return 0;
	}
	if (last % GR_RECORD_ALIGN || last < v->packet_header_size ||
	    last >= content_bytes ||
	    content_bytes - last < sizeof(eh))
		return -EINVAL;
	memcpy(&eh, p + last, sizeof(eh));
	if (gr_check_event_header(v, &eh, events, nr_events,
				  content_bytes - last, &r, NULL))
		return -EINVAL;
	if (r.size != content_bytes - last)
		return -EINVAL;
	*end = declared_end(p, last, &events[r.id], content_bytes);
	return 0;
}

/**
 * gr_packet_end() - the content end to store for a packet, in constant
 *	time when the guest declared its last record (spec 6.12, H31)
 * @v: the view the packet was checked against
 * @events: validated descriptors
 * @nr_events: their number
 * @packet: as for gr_packet_content_end()
 * @content_bytes: content_size / 8 from gr_check_packet()
 * @last: rec.last_record as loaded once with rec.bytes (CPU order)
 * @refused: set to true if @last was declared and failed H31
 *
 * With GR_F_LAST_RECORD in the guest's features (this host always sets
 * it) a non-zero @last that passes gr_packet_content_end_at() gives the
 * end; otherwise the records are walked. 0 is "not known": a walk, not a
 * refusal.
 *
 * Context: any; does not sleep.
 * Return: the end, as gr_packet_content_end() gives it.
 */
uint64_t gr_packet_end(const struct gr_view *v,
		       const struct gr_event_view *events,
		       unsigned int nr_events, const void *packet,
		       uint64_t content_bytes, uint64_t last, bool *refused)
{
	uint64_t end;

	if ((v->features & GR_F_LAST_RECORD) && last) {
		if (!gr_packet_content_end_at(v, events, nr_events, packet,
					      content_bytes, last, &end))
			return end;
		*refused = true;
	}
	return gr_packet_content_end(v, events, nr_events, packet,
				     content_bytes);
}
