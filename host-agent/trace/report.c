// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `guestrelay report`: a stored trace as text
 *
 * One cursor per stream file walks its packets in file order and yields
 * items: events, and notes (diagnostics and loss reports) stamped with the
 * time they belong to. gr_report() merges the cursors by timestamp with a
 * binary heap (k-way merge); gr_report_summary() walks each cursor alone
 * and counts. Memory: one packet (subbuf_size bytes) per open stream.
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

#include "ctf.h"
#include "report.h"

#define NOTE_LEN	200
#define MAX_NOTES	6
#define NSEC_PER_SEC	1000000000ULL

enum item_kind { ITEM_NONE, ITEM_EVENT, ITEM_NOTE };

struct note {
	uint64_t ts;
	char text[NOTE_LEN];
};

struct cursor {
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

	struct note notes[MAX_NOTES];	/* queued before the next event */
	unsigned int nnotes, inote;

	/* the head item */
	enum item_kind kind;
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
	uint64_t per_event[GR_MAX_EVENTS];
};

struct reader {
	struct gr_ctf_info *info;
	struct cursor *cur;
	unsigned int nr_cur;
	int dirfd;
};

/* --- reading -------------------------------------------------------------- */

static void __attribute__((format(printf, 3, 4)))
add_note(struct cursor *c, uint64_t ts, const char *fmt, ...)
{
	struct note *n;
	va_list ap;

	if (c->nnotes == MAX_NOTES)
		return;			/* never more than MAX_NOTES per step */
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
 * header is judged. A packet stored content-only (spec 6.12 step 3) has
 * packet_size == content_size; it is judged as the sub-buffer it came
 * from. @psize receives the packet's length in the file.
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

static void leave_packet(struct cursor *c)
{
	c->in_packet = 0;
}

/* Is there a valid packet header at @off? */
static int try_header(struct reader *r, struct cursor *c, uint64_t off,
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
static uint64_t resync(struct reader *r, struct cursor *c, uint64_t off)
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
static void open_packet(struct reader *r, struct cursor *c)
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
static int next_record(struct reader *r, struct cursor *c)
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
	if (gr_check_event_header(&eh, info->events, info->nr_events,
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
	c->kind = ITEM_EVENT;
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

/* Make the cursor's next item its head (ITEM_NONE at the end). */
static void advance(struct reader *r, struct cursor *c)
{
	for (;;) {
		if (c->inote < c->nnotes) {
			const struct note *n = &c->notes[c->inote++];

			c->kind = ITEM_NOTE;
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
			c->kind = ITEM_NONE;
			return;
		}
		open_packet(r, c);
	}
}

/* --- opening and closing -------------------------------------------------- */

static void reader_close(struct reader *r)
{
	unsigned int i;

	for (i = 0; i < r->nr_cur; i++) {
		if (r->cur[i].fd >= 0)
			close(r->cur[i].fd);
		free(r->cur[i].buf);
	}
	free(r->cur);
	free(r->info);
	if (r->dirfd >= 0)
		close(r->dirfd);
	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
}

/*
 * Open the trace: .guestrelay and one cursor per existing stream file.
 * A fatal problem is printed to @out as one "error:" line.
 */
static int reader_open(struct reader *r, const char *dir, FILE *out)
{
	char name[GR_CTF_STREAM_NAME_MAX];
	const char *why = "";
	struct cursor *c;
	struct stat st;
	unsigned int i;
	int fd, ret;

	memset(r, 0, sizeof(*r));
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
	reader_close(r);
	return ret;
}

/* --- printing ------------------------------------------------------------- */

/* @ts as seconds.nanoseconds of guest or host time */
static void fmt_time(char *buf, size_t len, const struct gr_ctf_info *info,
		     uint64_t ts, int host_time)
{
	uint64_t f = info->view.clock_freq;
	unsigned __int128 ns;
	__int128 t;

	if (!host_time) {
		ns = (unsigned __int128)(ts % f) * NSEC_PER_SEC / f;
		snprintf(buf, len, "%5llu.%09llu",
			 (unsigned long long)(ts / f), (unsigned long long)ns);
		return;
	}
	/* as a CTF reader: offset_s * 10^9 + (offset + ts) * 10^9 / freq */
	t = (__int128)info->clock.offset_s * (__int128)NSEC_PER_SEC +
	    ((__int128)info->clock.offset + ts) * NSEC_PER_SEC / f;
	if (t < 0)
		snprintf(buf, len, "-%llu.%09llu",
			 (unsigned long long)(-t / NSEC_PER_SEC),
			 (unsigned long long)(-t % NSEC_PER_SEC));
	else
		snprintf(buf, len, "%llu.%09llu",
			 (unsigned long long)(t / NSEC_PER_SEC),
			 (unsigned long long)(t % NSEC_PER_SEC));
}

/* text up to the first NUL of @len bytes; 1 if a NUL was found */
static int print_text(FILE *out, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!p[i])
			return 1;
		if (p[i] == '\\')
			fputs("\\\\", out);
		else if (p[i] < 0x20 || p[i] > 0x7e)
			fprintf(out, "\\x%02x", p[i]);
		else
			fputc(p[i], out);
	}
	return 0;
}

static uint64_t load_le(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void print_field(FILE *out, const struct gr_field_view *f,
			const uint8_t *payload, uint32_t plen)
{
	uint64_t v;
	int64_t s;

	fprintf(out, " %s=", f->name);
	if (f->offset >= plen ||
	    (f->type != GR_FIELD_STRING && plen - f->offset < f->size)) {
		fputs("<missing>", out);
		return;
	}
	switch (f->type) {
	case GR_FIELD_INTEGER:
		v = load_le(payload + f->offset, f->size);
		if (f->flags & GR_FIELD_F_HEX) {
			fprintf(out, "0x%llx", (unsigned long long)v);
		} else if (f->flags & GR_FIELD_F_SIGNED) {
			/* sign-extend from size bytes */
			s = f->size == 8 ? (int64_t)v :
			    (int64_t)(v ^ (1ULL << (f->size * 8 - 1))) -
			    (int64_t)(1ULL << (f->size * 8 - 1));
			fprintf(out, "%lld", (long long)s);
		} else {
			fprintf(out, "%llu", (unsigned long long)v);
		}
		break;
	case GR_FIELD_CHARS:
		print_text(out, payload + f->offset, f->size);
		break;
	default:	/* GR_FIELD_STRING: bounded by the field and the record */
		if (!print_text(out, payload + f->offset,
				plen - f->offset < f->size ?
				plen - f->offset : f->size))
			fputs("<unterminated>", out);
		break;
	}
}

static void print_event(FILE *out, const struct reader *r,
			const struct cursor *c, const char *when)
{
	const struct gr_event_view *ev = &r->info->events[c->rec.id];
	unsigned int i;

	/* like trace-cmd: the task, then the CPU; fields may have a tid too */
	fprintf(out, "%7u [%03u] %s: %s:", c->rec.tid, c->cpu, when,
		ev->name);
	for (i = 0; i < ev->nr_fields; i++)
		print_field(out, &ev->fields[i],
			    c->rec_ptr + sizeof(struct gr_event_header),
			    c->rec.size - (uint32_t)sizeof(struct gr_event_header));
	fputc('\n', out);
}

/* which event ids @list selects; -EINVAL (printed) if a name matches none */
static int parse_events(const struct gr_ctf_info *info, const char *list,
			uint8_t *sel, FILE *out)
{
	const char *p = list, *e, *colon;
	char tok[GR_SYSTEM_LEN + GR_NAME_LEN + 2];
	unsigned int i;
	size_t n;
	int hit;

	memset(sel, !list || !*list, GR_MAX_EVENTS);
	while (p && *p) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && n < sizeof(tok)) {
			memcpy(tok, p, n);
			tok[n] = '\0';
			colon = strchr(tok, ':');
			hit = 0;
			for (i = 0; i < info->nr_events; i++) {
				const struct gr_event_view *ev = &info->events[i];

				if (!info->valid[i])
					continue;
				if (colon ? !strncmp(tok, ev->system,
						     (size_t)(colon - tok)) &&
					    !ev->system[colon - tok] &&
					    !strcmp(colon + 1, ev->name) :
				    !strcmp(tok, ev->name) ||
				    !strcmp(tok, ev->system)) {
					sel[i] = 1;
					hit = 1;
				}
			}
		} else {
			hit = !n;	/* empty item: ignore */
		}
		if (!hit) {
			fprintf(out, "error: no event matches \"%.*s\"\n",
				(int)(n > 64 ? 64 : n), p);
			return -EINVAL;
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static void print_preamble(FILE *out, const struct reader *r, int host_time)
{
	const struct gr_ctf_info *info = r->info;
	const struct gr_view *v = &info->view;
	unsigned int i;

	fprintf(out, "# guestrelay trace of %s (Linux %s): %u %s ring%s, "
		"clock %s at %llu Hz, %s time\n", v->nodename,
		v->kernel_release, v->nr_rings,
		gr_view_is_global(v) ? "global" : "per-CPU",
		v->nr_rings == 1 ? "" : "s", v->clock_name,
		(unsigned long long)v->clock_freq, host_time ? "host" : "guest");
	if (!info->crc_ok)
		fprintf(out, "# warning: %s: checksum mismatch (damaged file); "
			"using what validates\n", GR_CTF_INFO);
	if (info->stored_desc_count != v->desc_count)
		fprintf(out, "# warning: %s holds %u event descriptors, the "
			"guest published %u\n", GR_CTF_INFO,
			info->stored_desc_count, v->desc_count);
	for (i = 0; i < info->nr_events; i++)
		if (!info->valid[i])
			fprintf(out, "# warning: event id %u: invalid "
				"descriptor (%s); its records are skipped\n", i,
				info->why[i]);
}

/* heap of cursors by (head timestamp, ring) */
static int before(const struct cursor *a, const struct cursor *b)
{
	return a->ts != b->ts ? a->ts < b->ts : a->ring < b->ring;
}

static void sift_down(struct cursor **h, unsigned int n, unsigned int i)
{
	struct cursor *t;
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
 * gr_report() - print a stored trace as text, one line per event
 * @dir: the trace directory (<store>/<vm>/<session>)
 * @out: where to print
 * @opts: filters and time base; NULL for everything in guest time
 *
 * Prints a "#" preamble, then the events of all rings merged by
 * timestamp, as
 *   [CPU] SECONDS.NANOSECONDS: EVENT: tid=TID FIELD=VALUE ...
 * (integers in decimal, hex fields as 0x..., char arrays and strings as
 * text up to their NUL with '\\' and non-printable bytes escaped as \xNN).
 * Losses and damage are lines of the form "[CPU] TIME: ** WHAT", placed
 * where they happened: lost packets, events discarded by the guest, a
 * packet or record that does not validate, a file that ends mid-packet.
 * A fatal problem (no directory, no valid .guestrelay, a filter naming no
 * event) is printed as one "error: " line; the caller need not log it.
 *
 * Context: process; blocks on file I/O; allocates one packet per stream.
 * Return: the number of damaged spots reported (0 for an intact trace),
 * or -errno (-ENOENT, -EINVAL, -ENOMEM ...) for a fatal problem.
 */
int gr_report(const char *dir, FILE *out, const struct gr_report_opts *opts)
{
	static const struct gr_report_opts all = { .cpu = -1 };
	uint8_t sel[GR_MAX_EVENTS];
	struct cursor **heap, *c;
	struct reader r;
	unsigned int i, n = 0;
	uint64_t damaged = 0;
	char when[48];
	int host_time, ret;

	if (!opts)
		opts = &all;
	ret = reader_open(&r, dir, out);
	if (ret)
		return ret;
	ret = parse_events(r.info, opts->events, sel, out);
	if (ret)
		goto out;
	host_time = opts->host_time;
	print_preamble(out, &r, host_time);
	if (host_time && !r.info->clock.synced) {
		fprintf(out, "# warning: the clock was never synchronized with "
			"the host; printing guest time\n");
		host_time = 0;
	}

	heap = malloc(r.nr_cur * sizeof(*heap));
	if (!heap) {
		fprintf(out, "error: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r.nr_cur; i++) {
		advance(&r, &r.cur[i]);
		if (r.cur[i].kind != ITEM_NONE)
			heap[n++] = &r.cur[i];
	}
	for (i = n / 2; i-- > 0;)
		sift_down(heap, n, i);

	while (n) {
		c = heap[0];
		if (opts->cpu < 0 || (unsigned int)opts->cpu == c->cpu ||
		    (c->kind == ITEM_NOTE && gr_view_is_global(&r.info->view))) {
			if (c->kind == ITEM_NOTE) {
				fmt_time(when, sizeof(when), r.info, c->ts,
					 host_time);
				fprintf(out, "        [%03u] %s: ** %s\n", c->cpu, when,
					c->note);
			} else if (sel[c->rec.id]) {
				fmt_time(when, sizeof(when), r.info, c->ts,
					 host_time);
				print_event(out, &r, c, when);
			}
		}
		advance(&r, c);
		if (c->kind == ITEM_NONE)
			heap[0] = heap[--n];
		sift_down(heap, n, 0);
	}
	free(heap);
	for (i = 0; i < r.nr_cur; i++)
		damaged += r.cur[i].damaged;
	if (!r.info->crc_ok)
		damaged++;
	for (i = 0; i < r.info->nr_events; i++)
		damaged += !r.info->valid[i];
	ret = damaged > INT32_MAX ? INT32_MAX : (int)damaged;
out:
	reader_close(&r);
	return ret;
}

/**
 * gr_report_summary() - print what a stored trace holds
 * @dir: the trace directory
 * @out: where to print
 *
 * Prints the guest and clock, events per type, then per ring: packets,
 * events, lost packets, events discarded by the guest and damaged spots,
 * then totals and the time span of the events (guest time, and host time
 * if the clock was synchronized).
 *
 * Context: process; blocks on file I/O; allocates one packet per stream.
 * Return: the number of damaged spots found, or -errno (see gr_report()).
 */
int gr_report_summary(const char *dir, FILE *out)
{
	uint64_t per_event[GR_MAX_EVENTS] = { 0 };
	uint64_t ev = 0, pk = 0, lost = 0, disc = 0, dmg = 0;
	uint64_t first = 0, last = 0;
	const struct gr_view *v;
	char a[48], b[48], d[48];
	struct reader r;
	struct cursor *c;
	unsigned int i, j;
	int any = 0, ret;

	ret = reader_open(&r, dir, out);
	if (ret)
		return ret;
	v = &r.info->view;
	for (i = 0; i < r.nr_cur; i++) {
		c = &r.cur[i];
		do
			advance(&r, c);
		while (c->kind != ITEM_NONE);
		for (j = 0; j < GR_MAX_EVENTS; j++)
			per_event[j] += c->per_event[j];
		ev += c->events;
		pk += c->packets;
		lost += c->lost_packets;
		disc += c->discarded;
		dmg += c->damaged;
		if (c->any_ts) {
			if (!any || c->first_ts < first)
				first = c->first_ts;
			if (!any || c->end_ts > last)
				last = c->end_ts;
			any = 1;
		}
	}
	if (!r.info->crc_ok)
		dmg++;
	for (i = 0; i < r.info->nr_events; i++)
		dmg += !r.info->valid[i];

	print_preamble(out, &r, 0);
	fprintf(out, "guest: %s, Linux %s, %u CPU%s, %u %s ring%s of %u x "
		"%u-byte sub-buffers\n", v->nodename, v->kernel_release,
		v->nr_cpus, v->nr_cpus == 1 ? "" : "s", v->nr_rings,
		gr_view_is_global(v) ? "global" : "per-CPU",
		v->nr_rings == 1 ? "" : "s", v->n_subbufs, v->subbuf_size);
	if (r.info->clock.synced) {
		fmt_time(a, sizeof(a), r.info, 0, 1);
		fprintf(out, "clock: %s at %llu Hz, synchronized with host "
			"CLOCK_REALTIME (guest 0 = %s, error bound %llu ns)\n",
			v->clock_name, (unsigned long long)v->clock_freq, a,
			(unsigned long long)r.info->clock.error_ns);
	} else {
		fprintf(out, "clock: %s at %llu Hz, not synchronized\n",
			v->clock_name, (unsigned long long)v->clock_freq);
	}
	fprintf(out, "events per type:\n");
	for (i = 0; i < r.info->nr_events; i++)
		if (per_event[i])
			fprintf(out, "  %-32s %12llu\n", r.info->events[i].name,
				(unsigned long long)per_event[i]);
	fprintf(out, "per ring:\n  %4s %8s %12s %12s %12s %8s\n", "ring",
		"packets", "events", "lost_pkts", "discarded", "damaged");
	for (i = 0; i < r.nr_cur; i++) {
		c = &r.cur[i];
		fprintf(out, "  %4u %8llu %12llu %12llu %12llu %8llu\n", i,
			(unsigned long long)c->packets,
			(unsigned long long)c->events,
			(unsigned long long)c->lost_packets,
			(unsigned long long)c->discarded,
			(unsigned long long)c->damaged);
	}
	fprintf(out, "total: %llu events in %llu packets, lost packets %llu, "
		"discarded events %llu, damaged spots %llu\n",
		(unsigned long long)ev, (unsigned long long)pk,
		(unsigned long long)lost, (unsigned long long)disc,
		(unsigned long long)dmg);
	if (any) {
		fmt_time(a, sizeof(a), r.info, first, 0);
		fmt_time(b, sizeof(b), r.info, last, 0);
		fmt_time(d, sizeof(d), r.info, last - first, 0);
		fprintf(out, "time span: %s .. %s guest (%s s)\n", a, b,
			d + strspn(d, " "));
		if (r.info->clock.synced) {
			fmt_time(a, sizeof(a), r.info, first, 1);
			fmt_time(b, sizeof(b), r.info, last, 1);
			fprintf(out, "           %s .. %s host\n", a, b);
		}
	} else {
		fprintf(out, "time span: no events\n");
	}
	reader_close(&r);
	return dmg > INT32_MAX ? INT32_MAX : (int)dmg;
}
