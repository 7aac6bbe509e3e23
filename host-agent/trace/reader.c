// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - a stored trace read back: cursors over the stream files and
 * their merge by time (see reader.h)
 *
 * One cursor per stream file walks its packets in file order and yields
 * items: events, and notes (diagnostics and loss reports) stamped with the
 * time they belong to. gr_reader_merge_*() merge the cursors by timestamp
 * with a binary heap (k-way merge); a caller may also walk each cursor
 * alone with gr_cursor_advance(). Memory: one packet (subbuf_size bytes)
 * per open stream.
 *
 * Reader rules for a stored packet: the header must pass the agent's own
 * gr_check_packet() rules (magic, stream_id, ring, cpu_id, packet_size ==
 * subbuf_size * 8 - or == content_size for a packet stored content-only,
 * spec 6.12 -, content_size in range and a multiple of 64 bits,
 * timestamp_begin <= timestamp_end, reserved zero), checked against a
 * commit record synthesized from the header itself; packet_seq_num may
 * jump (packets dropped or overwritten: "lost N packets") and
 * events_discarded may grow ("N events discarded") or restart (a guest
 * reset zeroes it). Time going backwards between packets or records of a
 * stream is reported: babeltrace2 rejects such a trace. Records are
 * checked with gr_check_event_header(). After a bad header, the next
 * packet is looked for one sub-buffer further, then at every 8-byte
 * offset. Every step consumes file bytes or ends the cursor: no loop
 * depends on a value read from disk.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "reader.h"


/* --- reading -------------------------------------------------------------- */

static void __attribute__((format(printf, 3, 4)))
add_note(struct gr_cursor *c, uint64_t ts, const char *fmt, ...)
{
	struct gr_note *n;
	va_list ap;

	if (c->nnotes == GR_MAX_NOTES)
		return;			/* never more than GR_MAX_NOTES per step */
	n = &c->notes[c->nnotes++];
	n->ts = ts;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;	/* the file shrank under us */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * The agent's packet rules (gr_check_packet()), for a packet read back
 * from disk: the commit record is synthesized from the header, so only the
 * header is judged. Its content_size ends up to 7 bytes before its last
 * record's end (spec 6.12: the tail padding is not content); a packet
 * stored content-only has packet_size == that record end and is judged
 * as the sub-buffer it came from. @psize receives the packet's length in
 * the file.
 */
static int check_stored_packet(const struct gr_view *v, unsigned int ring,
			       const struct gr_packet_header *ph,
			       uint64_t *content, uint64_t *psize,
			       const char **why)
{
	uint64_t seq = le64toh(ph->packet_seq_num);
	uint64_t cs = le64toh(ph->content_size);
	uint64_t ps = le64toh(ph->packet_size);
	struct gr_packet_header copy = *ph;
	struct gr_subbuf_rec rec;
	int ret;

	if (seq == GR_SEQ_BUSY) {
		*why = "packet_seq_num is the busy marker";
		return -EINVAL;
	}
	/*
	 * Spec 6.12: content_size ends at the last record's last declared
	 * byte, up to 7 bytes before the record's end (where a packet stored
	 * content-only ends); the packet is judged up to that record end.
	 */
	if (cs % 64 && !(cs % 8) && cs < UINT64_MAX - 64)
		cs += 64 - cs % 64;
	copy.content_size = htole64(cs);
	if (ps == cs && ps < (uint64_t)v->subbuf_size * 8)
		copy.packet_size = htole64((uint64_t)v->subbuf_size * 8);
	memset(&rec, 0, sizeof(rec));
	rec.seq = ph->packet_seq_num;
	/* exact whenever content_size <= packet_size, which is checked first */
	rec.bytes = htole32((uint32_t)(cs / 8));
	ret = gr_check_packet(v, ring, seq, &rec, &copy, NULL, content, why);
	if (!ret)
		*psize = ps / 8;
	return ret;
}

static void leave_packet(struct gr_cursor *c)
{
	c->in_packet = 0;
}

/* Is there a valid packet header at @off? */
static int try_header(struct gr_reader *r, struct gr_cursor *c, uint64_t off,
		      struct gr_packet_header *ph, uint64_t *content,
		      uint64_t *psize, const char **why)
{
	int ret;

	if (off > c->size || c->size - off < sizeof(*ph)) {
		*why = "end of file";
		return -ENODATA;
	}
	ret = pread_all(c->fd, ph, sizeof(*ph), off);
	if (ret) {
		*why = "read error";
		return ret;
	}
	return check_stored_packet(&r->info->view, c->ring, ph, content,
				   psize, why);
}

/*
 * After a bad header at @off: where does the next packet start? One
 * sub-buffer further if a valid header is there (whole sub-buffers, the
 * agent's normal layout), else the next 8-byte aligned offset that holds
 * a valid header (packets stored content-only), else the end of the file.
 * Reads the file once at most; every step moves forward.
 */
static uint64_t resync(struct gr_reader *r, struct gr_cursor *c, uint64_t off)
{
	static const uint8_t magic[4] = { 0xc1, 0x1f, 0xfc, 0xc1 };
	uint64_t cand = off + r->info->view.subbuf_size, content, psize, pos;
	struct gr_packet_header ph;
	uint8_t win[4096];
	const char *why;
	size_t n, i;

	if (!try_header(r, c, cand, &ph, &content, &psize, &why))
		return cand;
	for (pos = off + 8; pos < c->size && c->size - pos >= sizeof(ph);
	     pos += n) {
		n = c->size - pos < sizeof(win) ? (size_t)(c->size - pos) :
		    sizeof(win);
		n &= ~(size_t)7;
		if (pread_all(c->fd, win, n, pos))
			break;
		for (i = 0; i + sizeof(magic) <= n; i += 8)
			if (!memcmp(win + i, magic, sizeof(magic)) &&
			    !try_header(r, c, pos + i, &ph, &content, &psize,
					&why))
				return pos + i;
	}
	return c->size;
}

/* Start the packet at c->next; queues notes; always moves on or ends. */
static void open_packet(struct gr_reader *r, struct gr_cursor *c)
{
	const struct gr_view *v = &r->info->view;
	uint64_t off = c->next, avail, content, psize, seq, d, delta, ts;
	struct gr_packet_header ph;
	const char *why;
	int ret;

	if (off >= c->size) {
		c->done = 1;
		return;
	}
	avail = c->size - off;
	if (avail < sizeof(ph)) {
		add_note(c, c->where, "stream_%u ends with %llu bytes of a "
			 "packet at offset %llu; ignored", c->ring,
			 (unsigned long long)avail, (unsigned long long)off);
		c->damaged++;
		c->done = 1;
		return;
	}
	ret = try_header(r, c, off, &ph, &content, &psize, &why);
	if (ret) {
		c->next = resync(r, c, off);
		if (c->next < c->size)
			add_note(c, c->where, "stream_%u: bad packet at offset "
				 "%llu: %s; next packet at offset %llu",
				 c->ring, (unsigned long long)off, why,
				 (unsigned long long)c->next);
		else
			add_note(c, c->where, "stream_%u: bad packet at offset "
				 "%llu: %s; no valid packet after it", c->ring,
				 (unsigned long long)off, why);
		c->damaged++;
		return;
	}
	c->next = off + psize;

	seq = le64toh(ph.packet_seq_num);
	ts = le64toh(ph.timestamp_begin);
	c->cpu = le32toh(ph.cpu_id);
	c->seq = seq;
	if (c->have_seq && seq != c->next_seq) {
		if (seq - c->next_seq < (1ULL << 63)) {
			if (seq - c->next_seq == 1)
				add_note(c, ts, "lost 1 packet (seq %llu)",
					 (unsigned long long)c->next_seq);
			else
				add_note(c, ts, "lost %llu packets (seq "
					 "%llu..%llu)",
					 (unsigned long long)(seq - c->next_seq),
					 (unsigned long long)c->next_seq,
					 (unsigned long long)(seq - 1));
			c->lost_packets += seq - c->next_seq;
		} else {
			add_note(c, ts, "packet seq goes back from %llu to %llu",
				 (unsigned long long)(c->next_seq - 1),
				 (unsigned long long)seq);
			c->damaged++;
		}
	}
	if (c->have_seq && ts < c->prev_end) {
		add_note(c, ts, "packet seq %llu begins before the previous "
			 "packet of stream_%u ends", (unsigned long long)seq,
			 c->ring);
		c->damaged++;
	}
	c->have_seq = 1;
	c->next_seq = seq + 1;
	c->prev_end = le64toh(ph.timestamp_end);
	if (ts > c->where)
		c->where = ts;

	d = le64toh(ph.events_discarded);
	/* a guest reset restarts the counter: count from zero again */
	delta = c->have_disc && d >= c->disc ? d - c->disc : d;
	if (delta) {
		add_note(c, ts, "%llu event%s discarded by the guest",
			 (unsigned long long)delta, delta == 1 ? "" : "s");
		c->discarded += delta;
	}
	c->have_disc = 1;
	c->disc = d;
	if (!c->packets || ts < c->pkt_first)
		c->pkt_first = ts;
	if (!c->packets || c->prev_end > c->pkt_last)
		c->pkt_last = c->prev_end;
	if (r->headers_only) {
		c->packets++;
		return;
	}

	c->truncated = avail < psize;
	c->end = (uint32_t)(content < avail ? content : avail);
	if (c->truncated) {
		add_note(c, ts, "stream_%u ends inside the packet at offset "
			 "%llu (%llu of %llu bytes): decoding what is there",
			 c->ring, (unsigned long long)off,
			 (unsigned long long)avail, (unsigned long long)psize);
		c->damaged++;
	}
	if (!c->buf) {
		c->buf = malloc(v->subbuf_size);
		if (!c->buf) {
			add_note(c, ts, "out of memory for a packet of stream_%u",
				 c->ring);
			c->damaged++;
			c->done = 1;
			return;
		}
	}
	ret = pread_all(c->fd, c->buf, c->end, off);
	if (ret) {
		add_note(c, ts, "stream_%u: read error at offset %llu: %s",
			 c->ring, (unsigned long long)off, strerror(-ret));
		c->damaged++;
		c->done = 1;
		return;
	}
	c->packets++;
	c->pos = sizeof(ph);
	c->in_packet = 1;
}

/* Yield the next record of the packet as the head; 0 if none. */
static int next_record(struct gr_reader *r, struct gr_cursor *c)
{
	const struct gr_ctf_info *info = r->info;
	struct gr_event_header eh;
	struct gr_record_view rec;
	uint32_t remaining = c->end - c->pos;
	uint16_t id;
	const char *why;

	if (!remaining) {
		leave_packet(c);
		return 0;
	}
	if (remaining < sizeof(eh)) {
		if (!c->truncated) {
			add_note(c, c->where, "packet seq %llu of stream_%u: "
				 "%u stray bytes after the last record",
				 (unsigned long long)c->seq, c->ring, remaining);
			c->damaged++;
		}
		leave_packet(c);
		return 0;
	}
	memcpy(&eh, c->buf + c->pos, sizeof(eh));
	if (c->truncated && le16toh(eh.size) > remaining) {
		leave_packet(c);	/* cut by the end of file: reported */
		return 0;
	}
	id = le16toh(eh.id);
	if (id < info->nr_events && !info->valid[id]) {
		add_note(c, c->where, "packet seq %llu of stream_%u, offset "
			 "%u: event id %u has no valid descriptor; rest of "
			 "packet skipped", (unsigned long long)c->seq, c->ring,
			 c->pos, id);
		c->damaged++;
		leave_packet(c);
		return 0;
	}
	if (gr_check_event_header(&info->view, &eh, info->events, info->nr_events,
				  remaining, &rec, &why)) {
		add_note(c, c->where, "packet seq %llu of stream_%u, offset "
			 "%u: bad record (%s, id %u, size %u); rest of packet "
			 "skipped", (unsigned long long)c->seq, c->ring, c->pos,
			 why, id, le16toh(eh.size));
		c->damaged++;
		leave_packet(c);
		return 0;
	}
	if (c->have_ev && rec.timestamp < c->last_ts) {
		/* printed after the event: CTF readers reject this */
		add_note(c, rec.timestamp, "the event above (packet seq %llu "
			 "of stream_%u, offset %u) goes back in time by %llu "
			 "clock ticks", (unsigned long long)c->seq, c->ring,
			 c->pos, (unsigned long long)(c->last_ts - rec.timestamp));
		c->damaged++;
	}
	c->kind = GR_ITEM_EVENT;
	c->ts = rec.timestamp;
	c->rec = rec;
	c->rec_ptr = c->buf + c->pos;
	c->pos += rec.size;
	c->last_ts = rec.timestamp;
	c->where = rec.timestamp;
	c->have_ev = 1;
	c->events++;
	c->per_event[rec.id]++;
	if (!c->any_ts || rec.timestamp < c->first_ts)
		c->first_ts = rec.timestamp;
	if (!c->any_ts || rec.timestamp > c->end_ts)
		c->end_ts = rec.timestamp;
	c->any_ts = 1;
	return 1;
}

/**
 * gr_cursor_advance() - make the cursor's next item its head
 * @r: the reader
 * @c: one of its cursors
 *
 * The head becomes the next note or event of the stream, or GR_ITEM_NONE
 * at its end (then it stays so). With @r->headers_only, only notes are
 * yielded, and the packets' time span is counted.
 *
 * Context: process; blocks on file I/O.
 */
void gr_cursor_advance(struct gr_reader *r, struct gr_cursor *c)
{
	for (;;) {
		if (c->inote < c->nnotes) {
			const struct gr_note *n = &c->notes[c->inote++];

			c->kind = GR_ITEM_NOTE;
			c->ts = n->ts;
			c->note = n->text;
			return;
		}
		c->nnotes = 0;
		c->inote = 0;
		if (c->in_packet) {
			if (next_record(r, c))
				return;
			continue;
		}
		if (c->done) {
			c->kind = GR_ITEM_NONE;
			return;
		}
		open_packet(r, c);
	}
}

/**
 * gr_cursor_limit() - read the cursor's stream file up to @size bytes only
 * @c: a cursor of gr_reader_open()
 * @size: the bytes to read: whole packets (the end of an index entry, or
 *	the file's size once it is final)
 *
 * gr_reader_open() takes a file's size as it is when opened. A reader
 * following a trace being written limits each cursor to the packets its
 * index file lists (whole on disk) and raises the limit as more are
 * stored: a cursor that reached its limit (GR_ITEM_NONE) goes on with
 * the next gr_cursor_advance() once the limit is past it.
 *
 * Context: process.
 */
void gr_cursor_limit(struct gr_cursor *c, uint64_t size)
{
	if (c->fd < 0)
		return;			/* no file: done from the start */
	c->size = size;
	if (c->next < size)
		c->done = 0;
}

/* --- opening and closing -------------------------------------------------- */

/**
 * gr_reader_close() - close what gr_reader_open() opened
 * @r: the reader; may be closed twice
 */
void gr_reader_close(struct gr_reader *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_cur; i++) {
		if (r->cur[i].fd >= 0)
			close(r->cur[i].fd);
		free(r->cur[i].buf);
	}
	free(r->cur);
	free(r->heap);
	free(r->info);
	if (r->dirfd >= 0)
		close(r->dirfd);
	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
}

/**
 * gr_reader_open() - open a trace directory for reading
 * @r: the reader to fill
 * @dir: the trace directory (<store>/<vm>/<session>)
 * @out: where a fatal problem is printed, as one "error: " line
 * @headers_only: walk packet headers only (see struct gr_reader)
 *
 * Reads and validates .guestrelay and opens one cursor per existing
 * stream file; problems with one stream file become notes of its cursor.
 *
 * Context: process; blocks on file I/O.
 * Return: 0, or -errno (-ENOENT: no directory or .guestrelay, -EINVAL: no
 * valid .guestrelay, -ENOMEM); then @r needs no gr_reader_close().
 */
int gr_reader_open(struct gr_reader *r, const char *dir, FILE *out,
		   int headers_only)
{
	char name[GR_CTF_STREAM_NAME_MAX];
	const char *why = "";
	struct gr_cursor *c;
	struct stat st;
	unsigned int i;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->headers_only = headers_only;
	r->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0) {
		ret = -errno;
		fprintf(out, "error: %s: %s\n", dir, strerror(-ret));
		return ret;
	}
	r->info = malloc(sizeof(*r->info));
	if (!r->info) {
		fprintf(out, "error: out of memory\n");
		ret = -ENOMEM;
		goto out_close;
	}
	ret = gr_ctf_read_info(r->dirfd, r->info, &why);
	if (ret) {
		fprintf(out, "error: %s/%s: %s (%s)\n", dir, GR_CTF_INFO, why,
			strerror(-ret));
		goto out_close;
	}
	r->cur = calloc(r->info->view.nr_rings, sizeof(*r->cur));
	if (!r->cur) {
		fprintf(out, "error: out of memory\n");
		ret = -ENOMEM;
		goto out_close;
	}
	r->nr_cur = r->info->view.nr_rings;
	for (i = 0; i < r->nr_cur; i++) {
		c = &r->cur[i];
		c->ring = i;
		c->cpu = i;
		c->fd = -1;
		c->done = 1;
		snprintf(name, sizeof(name), GR_CTF_STREAM_FMT, i);
		fd = openat(r->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0) {
			if (errno == ENOENT)	/* no file: the ring was idle */
				continue;
			add_note(c, 0, "%s: %s", name, strerror(errno));
			c->damaged++;
			continue;
		}
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			add_note(c, 0, "%s: not a regular file", name);
			c->damaged++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->size = (uint64_t)st.st_size;
		c->done = 0;
	}
	return 0;

out_close:
	gr_reader_close(r);
	return ret;
}

/* --- merging the cursors by time ------------------------------------------ */

/* heap of cursors by (head timestamp, ring) */
static int before(const struct gr_cursor *a, const struct gr_cursor *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->ring < b->ring;
}

static void sift_down(struct gr_cursor **h, unsigned int n, unsigned int i)
{
	struct gr_cursor *t;
	unsigned int m, l;

	for (;;) {
		m = i;
		l = 2 * i + 1;
		if (l < n && before(h[l], h[m]))
			m = l;
		if (l + 1 < n && before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/**
 * gr_reader_merge_start() - start walking all cursors merged by time
 * @r: a reader fresh from gr_reader_open()
 *
 * Items come out by (timestamp, ring); a note carries the time it belongs
 * to, so it comes out where it happened.
 *
 * Return: 0, or -ENOMEM.
 */
int gr_reader_merge_start(struct gr_reader *r)
{
	unsigned int i, n = 0;

	r->heap = malloc((r->nr_cur ? r->nr_cur : 1) * sizeof(*r->heap));
	if (!r->heap)
		return -ENOMEM;
	for (i = 0; i < r->nr_cur; i++) {
		gr_cursor_advance(r, &r->cur[i]);
		if (r->cur[i].kind != GR_ITEM_NONE)
			r->heap[n++] = &r->cur[i];
	}
	for (i = n / 2; i-- > 0;)
		sift_down(r->heap, n, i);
	r->nheap = n;
	return 0;
}

/* gr_reader_merge_head() - the cursor whose head item is next; NULL at the end */
struct gr_cursor *gr_reader_merge_head(const struct gr_reader *r)
{
	return r->nheap ? r->heap[0] : NULL;
}

/* gr_reader_merge_next() - advance past the head item of the merge */
void gr_reader_merge_next(struct gr_reader *r)
{
	struct gr_cursor *c;

	if (!r->nheap)
		return;
	c = r->heap[0];
	gr_cursor_advance(r, c);
	if (c->kind == GR_ITEM_NONE)
		r->heap[0] = r->heap[--r->nheap];
	sift_down(r->heap, r->nheap, 0);
}

/**
 * gr_reader_damaged() - damaged spots met so far
 * @r: the reader
 *
 * Return: the damaged spots of all cursors, plus one for a .guestrelay
 * file with a bad checksum and one per invalid event descriptor.
 */
uint64_t gr_reader_damaged(const struct gr_reader *r)
{
	uint64_t damaged = 0;
	unsigned int i;

	for (i = 0; i < r->nr_cur; i++)
		damaged += r->cur[i].damaged;
	if (!r->info->crc_ok)
		damaged++;
	for (i = 0; i < r->info->nr_events; i++)
		damaged += !r->info->valid[i];
	return damaged;
}

/* --- time and fields ------------------------------------------------------ */

/**
 * gr_time_ns() - a clock value of the trace in nanoseconds
 * @info: the trace's .guestrelay
 * @ts: a clock value (event or packet timestamp)
 * @host_time: 1: host CLOCK_REALTIME through the stored clock offset, as
 *	a CTF reader computes it (offset_s * 10^9 + (offset + ts) * 10^9 /
 *	freq); 0: guest clock time
 *
 * Return: nanoseconds; negative only for host time before the Epoch.
 */
__int128 gr_time_ns(const struct gr_ctf_info *info, uint64_t ts,
		    int host_time)
{
	uint64_t f = info->view.clock_freq;

	if (!host_time)
		return (__int128)(ts / f) * NSEC_PER_SEC +
		       (__int128)(ts % f) * NSEC_PER_SEC / f;
	return gr_ctf_clock_ns(&info->clock, f, ts);
}

/* gr_event_field() - the field called @name of @ev; NULL if none */
const struct gr_field_view *gr_event_field(const struct gr_event_view *ev,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++)
		if (!strncmp(ev->fields[i].name, name,
			     sizeof(ev->fields[i].name)))
			return &ev->fields[i];
	return NULL;
}

/**
 * gr_event_text() - a text field of an event, NUL-terminated
 * @ev: the event's layout
 * @name: the field
 * @p: the payload
 * @len: its length
 * @out: receives the text, "" if there is no such field
 * @size: size of @out (> 0)
 */
void gr_event_text(const struct gr_event_view *ev, const char *name,
		   const uint8_t *p, uint32_t len, char *out, size_t size)
{
	const struct gr_field_view *f = gr_event_field(ev, name);
	const uint8_t *text;
	size_t n = 0;

	if (f)
		n = gr_field_text(f, p, len, &text);
	if (n > size - 1)
		n = size - 1;
	if (n)
		memcpy(out, text, n);
	out[n] = '\0';
}

/* gr_event_int() - an integer field of an event; 0 if none or missing */
int64_t gr_event_int(const struct gr_event_view *ev, const char *name,
		     const uint8_t *p, uint32_t len)
{
	const struct gr_field_view *f = gr_event_field(ev, name);
	int64_t v = 0;

	if (f && gr_field_int(f, p, len, &v))
		v = 0;
	return v;
}

/* gr_load_le() - an unsigned little-endian integer of @size (<= 8) bytes */
uint64_t gr_load_le(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < size && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/**
 * gr_field_int() - an INTEGER field's value in a record's payload
 * @f: the field (of the record's validated descriptor)
 * @payload: the payload
 * @plen: its length (a VARLEN record may end before a field)
 * @val: receives the value, sign-extended if the field is signed
 *
 * Return: 0, -EINVAL if @f is not an integer, -ENODATA if the record ends
 * before the field does.
 */
int gr_field_int(const struct gr_field_view *f, const uint8_t *payload,
		 uint32_t plen, int64_t *val)
{
	uint64_t v, sign;

	if (f->type != GR_FIELD_INTEGER || f->size < 1 || f->size > 8)
		return -EINVAL;
	if (f->offset >= plen || plen - f->offset < f->size)
		return -ENODATA;
	v = gr_load_le(payload + f->offset, f->size);
	if ((f->flags & GR_FIELD_F_SIGNED) && f->size < 8) {
		sign = 1ULL << (f->size * 8 - 1);
		v = (v ^ sign) - sign;
	}
	*val = (int64_t)v;
	return 0;
}

/**
 * gr_field_text() - a CHARS or STRING field's text in a record's payload
 * @f: the field
 * @payload: the payload
 * @plen: its length
 * @text: receives the first byte (not NUL-terminated, any byte value)
 *
 * Return: the text's length: up to the first NUL, bounded by the field
 * and the record; 0 for a field of another type or past the record.
 */
size_t gr_field_text(const struct gr_field_view *f, const uint8_t *payload,
		     uint32_t plen, const uint8_t **text)
{
	size_t n;

	*text = payload;
	if ((f->type != GR_FIELD_CHARS && f->type != GR_FIELD_STRING) ||
	    f->offset >= plen)
		return 0;
	n = plen - f->offset < f->size ? plen - f->offset : f->size;
	*text = payload + f->offset;
	return strnlen((const char *)*text, n);
}
