// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - `guestrelay collect URL --store DIR`
 *
 * A durable JetStream pull consumer (explicit acks) that rebuilds
 * DIR/<host>/<vm>/<session>/{.guestrelay,metadata,stream_<n>} as the
 * agents stored them, byte for byte. What arrives is checked as strictly
 * as the agent checks a guest, because whoever may publish on the
 * stream's subjects is not trusted:
 *
 *  - the subject: strict decoding of each token (subject.h), names of
 *    [A-Za-z0-9_.-] not starting with '.', so nothing is written outside
 *    DIR/<host>/ (directories are opened one level at a time with
 *    O_NOFOLLOW: no symbolic link is followed either);
 *  - the Gr-Frame header: strict decimals, its part's exact length;
 *  - .guestrelay: gr_ctf_parse_info() re-validates it like a guest's
 *    region header; metadata: the CTF 1.8 magic comment, text only;
 *  - a packet: the agent's stored-packet rule, then gr_check_packet()
 *    and gr_check_records() against the session's .guestrelay and the
 *    file's last packet (region/validate.c).
 * What fails is terminated (never redelivered) and counted as rejected.
 *
 * Writes: a packet is appended only at the end of its file (its offset
 * == the file's size), so the file always holds whole packets; one whose
 * predecessor is not there yet (another collector has it, or it is sent
 * again later) is given back with a delay; one below the end is a
 * duplicate (redelivery, a resend outside the server's window) and is
 * acknowledged if its bytes equal the file's, rejected if not. metadata
 * and .guestrelay are replaced atomically (hidden tmp, fsync, rename),
 * only by a newer version (Gr-Frame GEN, kept in DIR/.collect/gen/).
 * A message is acknowledged only after its bytes were fsynced: a
 * collector killed at any moment loses nothing, and what it wrote but
 * did not acknowledge comes again as a duplicate. Objects larger than
 * max_payload come in parts, held unacknowledged until all are in.
 *
 * A message with the header Gr-Conflict was published by its agent
 * under a fresh id because someone else had taken its own (ship_nats.c):
 * the collector counts it (conflicts) and says so on stderr, with the
 * taken id, the first time it is delivered. The header is only a claim
 * of whoever published the message; the message is checked as any other.
 *
 * Counters go to DIR/.collect/stats.<pid> after every batch (several
 * collectors may share DIR).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "collect.h"
#include "ctf.h"
#include "nats_opts.h"
#include "ship.h"
#include "subject.h"
#include "validate.h"

#define COL_FETCH		128
#define COL_HOLD_NS		(8ULL * 1000000000ULL)	/* parts held */
#define COL_ACK_WAIT_S		10	/* the consumer's AckWait */
#define COL_WAIT_NS		(8ULL * 1000000000ULL)	/* kept waiting */
#define COL_MAX_DELIVER		50	/* then given back this often */
#define COL_META_MAX		(64u << 20)

/*
 * COL_WAIT: kept (not acknowledged) and tried again after every batch:
 * the packet before it, or the session's .guestrelay, is not written
 * yet (another collector has it, or it comes later); given back after
 * COL_WAIT_NS
 */
enum col_verdict { COL_ACK, COL_NAK, COL_TERM, COL_HOLD, COL_WAIT };

struct col_file {
	int fd;
	uint64_t walked;		/* whole packets known up to here */
	bool any;
	uint64_t last_seq;
	struct gr_stream_mark last;
	bool dirty;			/* written, not yet fsynced */
};

struct col_sess {
	char host[GR_NAME_TOKEN_MAX], vm[GR_NAME_TOKEN_MAX];
	char session[GR_NAME_TOKEN_MAX];
	int dfd;
	struct gr_ctf_info *info;	/* NULL until .guestrelay is in */
	struct col_file *files;		/* info->view.nr_rings */
	unsigned int nr_files;
	struct col_sess *next;
};

/* an object coming in parts */
struct col_hold {
	char subj[GR_SUBJ_MAX];
	struct gr_reasm ra;
	natsMsg **msgs;
	unsigned int nmsgs;
	uint64_t since;
	struct col_hold *next;
};

static struct {
	char dir[4096];
	char stream[GR_STREAM_NAME_MAX];
	int dfd;			/* DIR */
	int gen_fd;			/* DIR/.collect/gen */
	jsOptions jo;
	struct col_sess *sessions;
	struct col_hold *holds;
	uint64_t received, packets, bytes, versions, duplicates, rejected;
	uint64_t waits, conflicts;
	uint64_t last_log_rejected;
} col;

static volatile sig_atomic_t col_stop;

static void on_signal(int sig)
{
	(void)sig;
	col_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static enum col_verdict reject(const char *subj, const char *why)
{
	col.rejected++;
	/* the first 20, then one in a thousand: no flood of the log */
	if (col.rejected <= 20 || col.rejected - col.last_log_rejected >= 1000) {
		fprintf(stderr, "guestrelay collect: rejected a message on '%.200s': %s (%" PRIu64 " so far)\n",
			subj, why, col.rejected);
		col.last_log_rejected = col.rejected;
	}
	return COL_TERM;
}

static int subdir(int parent, const char *name, bool make, bool *created)
{
	int fd;

	if (make && !mkdirat(parent, name, 0750))
		*created = true;
	else if (make && errno != EEXIST)
		return -errno;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void sess_drop_files(struct col_sess *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_files; i++)
		if (s->files[i].fd >= 0)
			close(s->files[i].fd);
	free(s->files);
	s->files = NULL;
	s->nr_files = 0;
}

static int sess_set_info(struct col_sess *s, const uint8_t *b, size_t len)
{
	struct gr_ctf_info *info = calloc(1, sizeof(*info));
	const char *why;
	unsigned int i;

	if (!info)
		return -ENOMEM;
	if (gr_ctf_parse_info(b, len, info, &why)) {
		free(info);
		return -EINVAL;
	}
	if (!s->info || s->info->view.nr_rings != info->view.nr_rings) {
		sess_drop_files(s);
		s->files = calloc(info->view.nr_rings, sizeof(*s->files));
		if (!s->files) {
			free(info);
			return -ENOMEM;
		}
		s->nr_files = info->view.nr_rings;
		for (i = 0; i < s->nr_files; i++)
			s->files[i].fd = -1;
	}
	free(s->info);
	s->info = info;
	return 0;
}

/* the session's .guestrelay as on disk, if it is there */
static void sess_load_info(struct col_sess *s)
{
	int fd = openat(s->dfd, GR_CTF_INFO, O_RDONLY | O_NOFOLLOW |
			O_CLOEXEC);
	struct stat st;
	uint8_t *b;

	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= GR_INFO_MAX_FILE) {
		b = malloc(st.st_size ? (size_t)st.st_size : 1);
		if (b && pread(fd, b, (size_t)st.st_size, 0) == st.st_size)
			sess_set_info(s, b, (size_t)st.st_size);
		free(b);
	}
	close(fd);
}

/*
 * DIR/<host>/<vm>/<session> and its .guestrelay if any; made if missing
 * only for @make (a valid .guestrelay: garbage makes no directory)
 */
static struct col_sess *sess_get(const struct gr_obj *o, bool make)
{
	struct col_sess *s;
	bool created = false;
	int h, v, d;

	for (s = col.sessions; s; s = s->next)
		if (!strcmp(s->host, o->host) && !strcmp(s->vm, o->vm) &&
		    !strcmp(s->session, o->session)) {
			/* another collector may have written it since */
			if (!s->info)
				sess_load_info(s);
			return s;
		}
	h = subdir(col.dfd, o->host, make, &created);
	if (h < 0)
		return NULL;
	v = subdir(h, o->vm, make, &created);
	if (v < 0) {
		close(h);
		return NULL;
	}
	d = subdir(v, o->session, make, &created);
	if (created) {
		fsync(v);
		fsync(h);
		fsync(col.dfd);
	}
	close(v);
	close(h);
	if (d < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(d);
		return NULL;
	}
	snprintf(s->host, sizeof(s->host), "%s", o->host);
	snprintf(s->vm, sizeof(s->vm), "%s", o->vm);
	snprintf(s->session, sizeof(s->session), "%s", o->session);
	s->dfd = d;
	sess_load_info(s);
	s->next = col.sessions;
	col.sessions = s;
	return s;
}

/*
 * the last version of a file written: DIR/.collect/gen/<h>.<v>.<s>.<f>,
 * or ~<hash of that> where it is longer than a file name may be (with
 * room for the ".<name>.tmp" it is written as); -ENAMETOOLONG where the
 * shipper could not make the message id either
 */
static int gen_name(const struct gr_obj *o, char *out, size_t cap)
{
	struct gr_frame f = { 0 };
	size_t n;
	int ret;

	/* a message id without GEN and PART is a fine flat file name */
	ret = gr_msgid_build(o, &f, 0, out, cap);
	n = strlen(out);
	if (!ret && n > NAME_MAX - 5)
		snprintf(out, cap, "~%016" PRIx64, gr_fnv64(out, n));
	return ret;
}

static bool gen_newer(const char *name, uint64_t gen, uint64_t hash)
{
	char buf[64];
	uint64_t g = 0, h = 0;
	ssize_t n;
	int fd;

	fd = openat(col.gen_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	if (sscanf(buf, "%" SCNu64 " %" SCNx64, &g, &h) != 2)
		return true;
	return gen > g || (gen == g && hash != h);
}

static int write_file_at(int dfd, const char *name, const void *b,
			 size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			O_CLOEXEC, 0640);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, b, len) != (ssize_t)len || fsync(fd))
		ret = -EIO;
	close(fd);
	return ret;
}

/* tmp (hidden: babeltrace2 ignores it), fsync, rename, fsync dir */
static int replace_file(int dfd, const char *name, const char *tmp,
			const void *b, size_t len)
{
	int ret = write_file_at(dfd, tmp, b, len);

	if (ret)
		return ret;
	if (renameat(dfd, tmp, dfd, name))
		return -errno;
	return fsync(dfd) ? -errno : 0;
}

static int file_sync_state(struct col_sess *s, unsigned int ring,
			   uint64_t *size);

static enum col_verdict put_version(const char *subj, const struct gr_obj *o,
				    const struct gr_frame *f,
				    const uint8_t *b, uint64_t len)
{
	uint64_t hash = gr_fnv64(b, len);
	char gname[GR_SUBJ_MAX], line[64];
	struct col_sess *s;
	unsigned int i;
	int ret;

	if (o->kind == GR_OBJ_INFO) {
		struct gr_ctf_info *info = calloc(1, sizeof(*info));
		const char *why = "no memory";

		if (!info || gr_ctf_parse_info(b, len, info, &why)) {
			free(info);
			return reject(subj, why);
		}
		free(info);
	} else if (len < 10 || memcmp(b, "/* CTF 1.8", 10) ||
		   memchr(b, 0, len)) {
		return reject(subj, "metadata is not CTF 1.8 text");
	}
	if (gen_name(o, gname, sizeof(gname)))
		return reject(subj, "names too long for a message id");
	if (!gen_newer(gname, f->gen, hash)) {
		col.duplicates++;
		return COL_ACK;
	}
	s = sess_get(o, o->kind == GR_OBJ_INFO);
	if (!s) {
		return COL_WAIT;	/* .guestrelay not in yet */
	}
	if (o->kind == GR_OBJ_INFO)
		ret = replace_file(s->dfd, GR_CTF_INFO, GR_CTF_INFO_TMP, b, len);
	else
		ret = replace_file(s->dfd, GR_CTF_METADATA, GR_CTF_METADATA_TMP,
				   b, len);
	if (!ret && o->kind == GR_OBJ_INFO)
		ret = sess_set_info(s, b, len);
	if (ret)
		return COL_NAK;
	/* the agent makes every ring's stream file at once, empty or not */
	for (i = 0; o->kind == GR_OBJ_INFO && i < s->nr_files; i++) {
		uint64_t size;

		file_sync_state(s, i, &size);
	}
	snprintf(line, sizeof(line), "%" PRIu64 " %" PRIx64 "\n", f->gen, hash);
	{
		char tmp[GR_SUBJ_MAX + 8];

		snprintf(tmp, sizeof(tmp), ".%s.tmp", gname);
		replace_file(col.gen_fd, gname, tmp, line, strlen(line));
	}
	col.versions++;
	return COL_ACK;
}

/* the stored-packet rule of the agent */
static uint64_t stored_len(const struct gr_view *v, unsigned int ring,
			   const struct gr_packet_header *h)
{
	return gr_stored_packet_len(h, ring, v->subbuf_size);
}

/* open stream_<ring>, and know its last whole packet */
static int file_sync_state(struct col_sess *s, unsigned int ring,
			   uint64_t *size)
{
	struct col_file *cf = &s->files[ring];
	struct gr_packet_header h;
	struct stat st;
	uint64_t len;

	if (cf->fd < 0) {
		char name[GR_CTF_STREAM_NAME_MAX];
		bool created;

		snprintf(name, sizeof(name), GR_CTF_STREAM_FMT, ring);
		created = faccessat(s->dfd, name, F_OK, AT_SYMLINK_NOFOLLOW);
		cf->fd = openat(s->dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW |
				O_CLOEXEC, 0640);
		if (cf->fd < 0)
			return -errno;
		if (created)
			fsync(s->dfd);
		cf->walked = 0;
		cf->any = false;
	}
	if (fstat(cf->fd, &st))
		return -errno;
	*size = (uint64_t)st.st_size;
	/* another collector may have appended: walk what is new */
	while (cf->walked < *size && *size - cf->walked >= sizeof(h) &&
	       pread(cf->fd, &h, sizeof(h), (off_t)cf->walked) == sizeof(h) &&
	       (len = stored_len(&s->info->view, ring, &h)) &&
	       len <= *size - cf->walked) {
		cf->walked += len;
		cf->any = true;
		cf->last_seq = le64toh(h.packet_seq_num);
		gr_stream_mark_set(&cf->last, &h);
	}
	return 0;
}

static enum col_verdict put_packet(const char *subj, const struct gr_obj *o,
				   const struct gr_frame *f,
				   const uint8_t *b, uint64_t len)
{
	struct gr_packet_header h;
	struct gr_subbuf_rec rec;
	struct col_sess *s;
	struct col_file *cf;
	const struct gr_view *v;
	const char *why = NULL;
	uint64_t size = 0, content;
	uint8_t *disk;

	s = sess_get(o, false);
	if (!s || !s->info)
		return COL_WAIT;	/* .guestrelay not in yet */
	v = &s->info->view;
	if (o->ring >= v->nr_rings)
		return reject(subj, "ring index out of range");
	if (len < sizeof(h))
		return reject(subj, "shorter than a packet header");
	memcpy(&h, b, sizeof(h));
	if (stored_len(v, o->ring, &h) != len)
		return reject(subj, "not a stored packet of this ring");
	if (le64toh(h.packet_seq_num) != f->gen)
		return reject(subj, "packet sequence is not the frame's");
	cf = &s->files[o->ring];
	if (file_sync_state(s, o->ring, &size))
		return COL_NAK;
	if (f->off < size) {
		/*
		 * A duplicate: what is there must be these bytes. Or the
		 * first bytes of this packet only, after the file's whole
		 * packets: a write in progress (another collector) or cut
		 * short (a collector killed in pwrite()); then it is written
		 * whole, again.
		 */
		uint64_t have = size - f->off < len ? size - f->off : len;

		disk = malloc(have);
		if (!disk)
			return COL_NAK;
		if (pread(cf->fd, disk, have, (off_t)f->off) != (ssize_t)have ||
		    memcmp(disk, b, have)) {
			free(disk);
			return reject(subj, "differs from the packet stored at its offset");
		}
		free(disk);
		if (have == len) {
			col.duplicates++;
			return COL_ACK;
		}
		if (f->off != cf->walked)
			return COL_WAIT;
		size = f->off;	/* the torn packet is rewritten */
	}
	if (f->off > size)
		return COL_WAIT;	/* the packet before it is not in yet */
	if (cf->walked != size)
		return COL_WAIT;	/* a packet being written before it */
	if (cf->any && le64toh(h.packet_seq_num) <= cf->last_seq)
		return reject(subj, "packet sequence does not increase");
	/* the checks of a guest's sub-buffer, on this copy (H9, H24) */
	rec.seq = h.packet_seq_num;
	/*
	 * judged as the guest's sub-buffer was: content up to the records'
	 * end, where the stored content_size may stop short of it (6.12)
	 */
	h.content_size = htole64((le64toh(h.content_size) + 63) & ~63ULL);
	rec.bytes = (uint32_t)(le64toh(h.content_size) / 8);
	rec.reserved = 0;
	h.packet_size = htole64((uint64_t)v->subbuf_size * 8);
	if (gr_check_packet(v, o->ring, le64toh(rec.seq), &rec, &h,
			    cf->any ? &cf->last : NULL, &content, &why))
		return reject(subj, why);
	if (gr_check_records(v, s->info->events, v->desc_count, b, content,
			     &why))
		return reject(subj, why);
	/* a short write leaves a torn packet: the next delivery rewrites it */
	if (pwrite(cf->fd, b, len, (off_t)size) != (ssize_t)len)
		return COL_NAK;
	memcpy(&h, b, sizeof(h));
	cf->walked = size + len;
	cf->any = true;
	cf->last_seq = le64toh(h.packet_seq_num);
	gr_stream_mark_set(&cf->last, &h);
	cf->dirty = true;
	col.packets++;
	col.bytes += len;
	return COL_ACK;
}

/*
 * A message's payload lies where NATS put it, at any address; the packet
 * checks read the header and records in place, as a sub-buffer's, so an
 * unaligned payload is checked and written from an aligned copy
 */
static enum col_verdict put_packet_aligned(const char *subj,
					   const struct gr_obj *o,
					   const struct gr_frame *f,
					   const uint8_t *b, uint64_t len)
{
	enum col_verdict v;
	uint8_t *copy;

	if (!((uintptr_t)b % 8))
		return put_packet(subj, o, f, b, len);
	copy = malloc(len ? len : 1);
	if (!copy)
		return COL_NAK;
	memcpy(copy, b, len);
	v = put_packet(subj, o, f, copy, len);
	free(copy);
	return v;
}

static enum col_verdict put_object(const char *subj, const struct gr_obj *o,
				   const struct gr_frame *f,
				   const uint8_t *b, uint64_t len)
{
	if (o->kind == GR_OBJ_STREAM)
		return put_packet_aligned(subj, o, f, b, len);
	return put_version(subj, o, f, b, len);
}

static uint64_t max_len(enum gr_obj_kind k)
{
	return k == GR_OBJ_STREAM ? GR_MAX_SUBBUF_SIZE :
	       k == GR_OBJ_INFO ? GR_INFO_MAX_FILE : COL_META_MAX;
}

/* The verdict for @m; COL_HOLD: kept in a col_hold */
static enum col_verdict handle(natsMsg *m)
{
	const char *subj = natsMsg_GetSubject(m), *fr = NULL;
	const uint8_t *data = (const uint8_t *)natsMsg_GetData(m);
	uint64_t len = (uint64_t)natsMsg_GetDataLength(m);
	struct col_hold *hd, **pp;
	struct gr_frame f;
	struct gr_obj o;
	natsMsg **nm;
	int r;

	/* longer than the shipper makes: a hold keeps GR_SUBJ_MAX bytes */
	if (strlen(subj) >= GR_SUBJ_MAX || gr_subj_parse(col.stream, subj, &o))
		return reject(subj, "subject is not <stream>.<host>.<vm>.<session>.<file>, canonically encoded");
	if (natsMsgHeader_Get(m, "Gr-Frame", &fr) != NATS_OK ||
	    gr_frame_parse(fr, len, &f))
		return reject(subj, "no valid Gr-Frame header");
	if (f.len > max_len(o.kind) ||
	    (o.kind != GR_OBJ_STREAM && f.off))
		return reject(subj, "object too large or misplaced");
	if (f.nparts == 1)
		return put_object(subj, &o, &f, data, len);
	for (pp = &col.holds; (hd = *pp); pp = &hd->next)
		if (!strcmp(hd->subj, subj) && hd->ra.f.off == f.off &&
		    hd->ra.f.gen == f.gen)
			break;
	if (!hd) {
		hd = calloc(1, sizeof(*hd));
		if (!hd || gr_reasm_init(&hd->ra, &f)) {
			free(hd);
			return COL_NAK;
		}
		snprintf(hd->subj, sizeof(hd->subj), "%s", subj);
		hd->since = mono_ns();
		hd->next = col.holds;
		col.holds = hd;
		pp = &col.holds;
	}
	nm = realloc(hd->msgs, (hd->nmsgs + 1) * sizeof(*nm));
	if (!nm)
		return COL_NAK;
	hd->msgs = nm;
	r = gr_reasm_add(&hd->ra, &f, data, len);
	if (r < 0)
		return reject(subj, "parts of one object disagree");
	hd->msgs[hd->nmsgs++] = m;
	return COL_HOLD;	/* settled with its object: settle_holds() */
}

static void settle(natsMsg *m, enum col_verdict v)
{
	jsMsgMetaData *md = NULL;
	int64_t delay = 500;

	switch (v) {
	case COL_ACK:
		natsMsg_Ack(m, &col.jo);
		break;
	case COL_TERM:
		natsMsg_Term(m, &col.jo);
		break;
	case COL_NAK:
		if (natsMsg_GetMetaData(&md, m) == NATS_OK) {
			if (md->NumDelivered > COL_MAX_DELIVER) {
				jsMsgMetaData_Destroy(md);
				reject(natsMsg_GetSubject(m),
				       "waited for its predecessor too long");
				natsMsg_Term(m, &col.jo);
				break;
			}
			delay = md->NumDelivered > 10 ? 5000 : 1000;
			jsMsgMetaData_Destroy(md);
		}
		natsMsg_NakWithDelay(m, delay, &col.jo);
		break;
	case COL_HOLD:
	case COL_WAIT:
		break;
	}
}

/* verdicts given, carried out once what they acknowledge is durable */
static struct {
	natsMsg **m;
	enum col_verdict *v;
	unsigned int n, cap;
} out;

/* messages kept waiting (COL_WAIT) and since when */
static struct {
	natsMsg **m;
	uint64_t *since;
	unsigned int n, cap;
} waiting;

static void queue(natsMsg *m, enum col_verdict v)
{
	if (out.n == out.cap) {
		unsigned int cap = out.cap ? out.cap * 2 : 256;
		natsMsg **nm = realloc(out.m, cap * sizeof(*nm));
		enum col_verdict *nv = nm ? realloc(out.v, cap * sizeof(*nv)) :
					    NULL;

		if (nm)
			out.m = nm;
		if (!nv) {
			/* no memory: given back without waiting for fsync */
			natsMsg_NakWithDelay(m, 1000, &col.jo);
			natsMsg_Destroy(m);
			return;
		}
		out.v = nv;
		out.cap = cap;
	}
	out.m[out.n] = m;
	out.v[out.n++] = v;
}

static void keep_waiting(natsMsg *m, uint64_t since)
{
	if (waiting.n == waiting.cap) {
		unsigned int cap = waiting.cap ? waiting.cap * 2 : 256;
		natsMsg **nm = realloc(waiting.m, cap * sizeof(*nm));
		uint64_t *ns = nm ? realloc(waiting.since, cap * sizeof(*ns)) :
				    NULL;

		if (nm)
			waiting.m = nm;
		if (!ns) {
			queue(m, COL_NAK);
			return;
		}
		waiting.since = ns;
		waiting.cap = cap;
	}
	waiting.m[waiting.n] = m;
	waiting.since[waiting.n++] = since;
}

static void fsync_dirty(void)
{
	struct col_sess *s;
	unsigned int i;

	for (s = col.sessions; s; s = s->next)
		for (i = 0; i < s->nr_files; i++)
			if (s->files[i].dirty) {
				if (fdatasync(s->files[i].fd))
					fprintf(stderr, "guestrelay collect: fdatasync: %m\n");
				s->files[i].dirty = false;
			}
}

/* complete holds: the whole object, then every part's verdict */
static void settle_holds(bool all)
{
	struct col_hold **pp = &col.holds, *hd;
	uint64_t now = mono_ns();

	while ((hd = *pp)) {
		enum col_verdict v;
		unsigned int i;
		struct gr_obj o;

		if (hd->ra.got == hd->ra.f.nparts) {
			gr_subj_parse(col.stream, hd->subj, &o);
			v = put_object(hd->subj, &o, &hd->ra.f, hd->ra.buf,
				       hd->ra.f.len);
			if (v == COL_WAIT && !all &&
			    now - hd->since <= COL_HOLD_NS) {
				pp = &hd->next;
				continue;
			}
			if (v == COL_WAIT)
				v = COL_NAK;
		} else if (all || now - hd->since > COL_HOLD_NS) {
			v = COL_NAK;	/* let another collector have them */
		} else {
			pp = &hd->next;
			continue;
		}
		for (i = 0; i < hd->nmsgs; i++)
			queue(hd->msgs[i], v);
		*pp = hd->next;
		gr_reasm_free(&hd->ra);
		free(hd->msgs);
		free(hd);
	}
}

/*
 * Try the waiting messages again, as long as one of them goes in (each
 * may be the predecessor of another); give back those waiting too long
 */
static void retry_waiting(bool all)
{
	uint64_t now = mono_ns();
	bool progress = true;
	unsigned int i, k;

	while (progress && waiting.n) {
		progress = false;
		for (i = k = 0; i < waiting.n; i++) {
			natsMsg *m = waiting.m[i];
			enum col_verdict v = handle(m);

			if (v == COL_WAIT && !all &&
			    now - waiting.since[i] <= COL_WAIT_NS) {
				waiting.m[k] = m;
				waiting.since[k++] = waiting.since[i];
				continue;
			}
			progress |= v != COL_WAIT;
			if (v == COL_WAIT)
				v = COL_NAK;
			if (v != COL_HOLD)
				queue(m, v);
		}
		waiting.n = k;
	}
}

/* fsync what was written, then acknowledge (or give back) */
static void flush_out(void)
{
	unsigned int i;

	fsync_dirty();
	for (i = 0; i < out.n; i++) {
		settle(out.m[i], out.v[i]);
		natsMsg_Destroy(out.m[i]);
	}
	out.n = 0;
}

/* a message its agent republished after an id conflict: say it once */
static void saw_conflict(natsMsg *m)
{
	const char *taken = NULL, *fr = NULL;
	jsMsgMetaData *md = NULL;
	uint64_t delivered = 1;
	size_t i;
	char t[GR_SUBJ_MAX];

	if (natsMsgHeader_Get(m, "Gr-Conflict", &taken) != NATS_OK || !taken)
		return;
	if (natsMsg_GetMetaData(&md, m) == NATS_OK) {
		delivered = md->NumDelivered;
		jsMsgMetaData_Destroy(md);
	}
	if (delivered > 1)
		return;
	col.conflicts++;
	snprintf(t, sizeof(t), "%s", taken);
	for (i = 0; t[i]; i++)
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			t[i] = '?';
	natsMsgHeader_Get(m, "Gr-Frame", &fr);
	if (col.conflicts <= 20)
		fprintf(stderr, "guestrelay collect: '%.200s' (frame %.60s) was republished by its agent because another publisher had taken its message id %.200s (%" PRIu64 " so far)\n",
			natsMsg_GetSubject(m), fr ? fr : "none", t,
			col.conflicts);
}

/* one message of a fetch: its verdict, or kept */
static void take(natsMsg *m)
{
	enum col_verdict v;

	col.received++;
	saw_conflict(m);
	v = handle(m);
	if (v == COL_WAIT) {
		col.waits++;
		keep_waiting(m, mono_ns());
	} else if (v != COL_HOLD) {
		queue(m, v);
	}
}

/* after a fetch (@all: at the end, nothing kept) */
static void batch_end(bool all)
{
	retry_waiting(all);
	settle_holds(all);
	/* acknowledged only once durable */
	flush_out();
}

static void write_stats(void)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf),
			 "received %" PRIu64 "\npackets %" PRIu64 "\nbytes %" PRIu64
			 "\nversions %" PRIu64 "\nduplicates %" PRIu64
			 "\nrejected %" PRIu64 "\nwaits %" PRIu64
			 "\nconflicts %" PRIu64 "\n",
			 col.received, col.packets, col.bytes, col.versions,
			 col.duplicates, col.rejected, col.waits, col.conflicts);
	char name[64], tmp[80];
	int fd;

	snprintf(name, sizeof(name), ".collect/stats.%d", (int)getpid());
	snprintf(tmp, sizeof(tmp), ".collect/.stats.%d.tmp", (int)getpid());
	fd = openat(col.dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		    O_CLOEXEC, 0640);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)n) == n)
		renameat(col.dfd, tmp, col.dfd, name);
	close(fd);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: guestrelay collect URL[,URL...] --store DIR [options]\n"
		"  --store DIR         rebuild DIR/<host>/<vm>/<session>/\n"
		"  --durable NAME      durable consumer, shared by collectors\n"
		"                      (default guestrelay-collect)\n"
		"  --stream NAME       JetStream stream (default " GR_SHIP_DEFAULT_STREAM ")\n"
		"  --creds FILE        NATS credentials (as agent --ship-creds)\n"
		"  --nats-ping-ms MS   ping the server this often (1000)\n"
		"  --nats-max-pings N  unanswered pings that drop it (2): a\n"
		"                      hung server is left after (N + 1) x MS\n"
		"Counters: DIR/.collect/stats.<pid>. Stops on SIGINT/SIGTERM.\n");
}

/* --nats-ping-ms, --nats-max-pings; 0 or -EINVAL (said) */
static int liveness_opt(const char *val, const char *opt, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno || end == val || *end || v < lo || v > hi) {
		fprintf(stderr, "guestrelay collect: %s: %ld to %ld\n", opt,
			lo, hi);
		return -EINVAL;
	}
	if (!strcmp(opt, "--nats-ping-ms"))
		gr_nats_set_liveness((int)v, -1);
	else
		gr_nats_set_liveness(-1, (int)v);
	return 0;
}

int collect_main(int argc, char **argv)
{
	const char *url = NULL, *store = NULL, *durable = "guestrelay-collect";
	const char *stream = GR_SHIP_DEFAULT_STREAM, *creds = NULL;
	const char *ping = NULL, *pings = NULL;
	char subj[GR_STREAM_NAME_MAX + 4];
	natsConnection *nc = NULL;
	natsSubscription *sub = NULL;
	jsCtx *js = NULL;
	struct sigaction sa;
	bool told = false;
	natsStatus s;
	int i;

	for (i = 1; i < argc; i++) {
		const char **dst = !strcmp(argv[i], "--store") ? &store :
				   !strcmp(argv[i], "--durable") ? &durable :
				   !strcmp(argv[i], "--stream") ? &stream :
				   !strcmp(argv[i], "--creds") ? &creds :
				   !strcmp(argv[i], "--nats-ping-ms") ? &ping :
				   !strcmp(argv[i], "--nats-max-pings") ? &pings :
				   NULL;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (dst && i + 1 < argc) {
			*dst = argv[++i];
		} else if (!dst && argv[i][0] != '-' && !url) {
			url = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!url || !store || !gr_stream_name_ok(stream) ||
	    !gr_stream_name_ok(durable) || strchr(url, '@')) {
		usage(stderr);
		if (url && strchr(url, '@'))
			fprintf(stderr, "guestrelay collect: credentials go in --creds FILE, not in the URL\n");
		return 2;
	}
	if ((ping && liveness_opt(ping, "--nats-ping-ms", 100, 3600000)) ||
	    (pings && liveness_opt(pings, "--nats-max-pings", 1, 100)))
		return 2;
	snprintf(col.dir, sizeof(col.dir), "%s", store);
	snprintf(col.stream, sizeof(col.stream), "%s", stream);
	if ((mkdir(store, 0750) && errno != EEXIST) ||
	    (col.dfd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (mkdirat(col.dfd, ".collect", 0750) && errno != EEXIST) ||
	    (mkdirat(col.dfd, ".collect/gen", 0750) && errno != EEXIST) ||
	    (col.gen_fd = openat(col.dfd, ".collect/gen", O_RDONLY |
				 O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		fprintf(stderr, "guestrelay collect: %s: %m\n", store);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	jsOptions_Init(&col.jo);
	col.jo.Wait = 5000;
	snprintf(subj, sizeof(subj), "%s.>", stream);

	/* connect and bind the durable consumer, retrying until it works */
	while (!col_stop && !sub) {
		jsSubOptions so;
		jsErrCode jerr = 0;

		s = nc ? NATS_OK : ship_connect(url, "guestrelay-collect",
						 creds, &nc);
		if (s == NATS_OK && !js)
			s = natsConnection_JetStream(&js, nc, &col.jo);
		if (s == NATS_OK) {
			jsSubOptions_Init(&so);
			so.Stream = stream;
			so.Config.Durable = durable;
			so.Config.AckPolicy = js_AckExplicit;
			so.Config.AckWait = COL_ACK_WAIT_S * 1000000000LL;
			so.Config.MaxAckPending = 8192;
			so.Config.MaxDeliver = -1;
			s = js_PullSubscribe(&sub, js, subj, durable, &col.jo,
					     &so, &jerr);
		}
		if (s != NATS_OK) {
			if (!told)
				fprintf(stderr, "guestrelay collect: waiting for the stream %s: %s\n",
					stream, natsStatus_GetText(s));
			told = true;
			sub = NULL;
			sleep(1);
		}
	}
	if (sub)
		fprintf(stderr, "guestrelay collect: consuming %s as %s into %s\n",
			stream, durable, store);
	while (!col_stop && sub) {
		natsMsgList list = { 0 };
		jsErrCode jerr = 0;
		int k;

		s = natsSubscription_Fetch(&list, sub, COL_FETCH,
					   waiting.n || col.holds ? 100 : 1000,
					   &jerr);
		if (s != NATS_OK && s != NATS_TIMEOUT)
			usleep(200000);
		for (k = 0; s == NATS_OK && k < list.Count; k++) {
			take(list.Msgs[k]);
			list.Msgs[k] = NULL;	/* ours now */
		}
		if (s == NATS_OK)
			natsMsgList_Destroy(&list);
		batch_end(false);
		write_stats();
	}
	batch_end(true);
	write_stats();
	if (sub)
		natsSubscription_Destroy(sub);
	jsCtx_Destroy(js);
	if (nc) {
		natsConnection_Close(nc);
		natsConnection_Destroy(nc);
	}
	nats_Close();
	fprintf(stderr, "guestrelay collect: %" PRIu64 " packets, %" PRIu64 " versions written, %" PRIu64 " duplicates, %" PRIu64 " rejected\n",
		col.packets, col.versions, col.duplicates, col.rejected);
	return 0;
}
