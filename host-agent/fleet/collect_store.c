// SPDX-License-Identifier: GPL-2.0
/*
 * collect_store.c - what the collector writes for a message it accepts
 * (collect.c says how it is checked and when it is acknowledged):
 * DIR/<host>/<vm>/<session>/ (or, for a closed chunk of a session kept
 * in chunks, DIR/<host>/<vm>/<session>/archives/<chunk>/, subject.h)
 * opened one level at a time with O_NOFOLLOW,
 * metadata and .guestrelay replaced atomically and only by a newer
 * version (DIR/.collect/gen/), packets appended whole at the end of
 * their file after gr_check_packet() and gr_check_records().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect_int.h"

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

/* a session forgotten: its files closed, its memory freed */
void col_sess_free(struct col_sess *s)
{
	sess_drop_files(s);
	free(s->info);
	close(s->dfd);
	free(s);
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

/* DIR/<host>/<vm>/<session>[/archives/<chunk>], one level at a time */
static int sess_dir(const struct gr_obj *o, bool make)
{
	const char *names[5] = { o->host, o->vm, o->session,
				 GR_CHUNK_ARCHIVES, o->chunk };
	int fds[5], i, n = o->chunk[0] ? 5 : 3, d;
	bool created = false;

	for (i = 0; i < n; i++) {
		fds[i] = subdir(i ? fds[i - 1] : col.dfd, names[i], make,
				&created);
		if (fds[i] < 0)
			break;
	}
	d = i == n ? fds[n - 1] : -1;
	/* what was made is on disk before anything is acknowledged */
	while (i-- > 0) {
		if (created)
			fsync(fds[i]);
		if (fds[i] != d)
			close(fds[i]);
	}
	if (created)
		fsync(col.dfd);
	return d;
}

/*
 * DIR/<host>/<vm>/<session> (or a chunk's directory) and its .guestrelay
 * if any; made if missing only for @make (a valid .guestrelay: garbage
 * makes no directory)
 */
static struct col_sess *sess_get(const struct gr_obj *o, bool make)
{
	struct col_sess *s;
	int d;

	for (s = col.sessions; s; s = s->next)
		if (!strcmp(s->host, o->host) && !strcmp(s->vm, o->vm) &&
		    !strcmp(s->session, o->session) &&
		    !strcmp(s->chunk, o->chunk)) {
			/* another collector may have written it since */
			if (!s->info)
				sess_load_info(s);
			return s;
		}
	d = sess_dir(o, make);
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
	snprintf(s->chunk, sizeof(s->chunk), "%s", o->chunk);
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
			return col_reject(subj, why);
		}
		free(info);
	} else if (len < 10 || memcmp(b, "/* CTF 1.8", 10) ||
		   memchr(b, 0, len)) {
		return col_reject(subj, "metadata is not CTF 1.8 text");
	}
	if (gen_name(o, gname, sizeof(gname)))
		return col_reject(subj, "names too long for a message id");
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
		return col_reject(subj, "ring index out of range");
	if (len < sizeof(h))
		return col_reject(subj, "shorter than a packet header");
	memcpy(&h, b, sizeof(h));
	if (stored_len(v, o->ring, &h) != len)
		return col_reject(subj, "not a stored packet of this ring");
	if (le64toh(h.packet_seq_num) != f->gen)
		return col_reject(subj, "packet sequence is not the frame's");
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
			return col_reject(subj, "differs from the packet stored at its offset");
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
		return col_reject(subj, "packet sequence does not increase");
	/* the checks of a guest's sub-buffer, on this copy (H9, H24) */
	rec.seq = h.packet_seq_num;
	/*
	 * judged as the guest's sub-buffer was: content up to the records'
	 * end, where the stored content_size may stop short of it (6.12)
	 */
	h.content_size = htole64((le64toh(h.content_size) + 63) & ~63ULL);
	rec.bytes = (uint32_t)(le64toh(h.content_size) / 8);
	rec.last_record = 0;
	h.packet_size = htole64((uint64_t)v->subbuf_size * 8);
	if (gr_check_packet(v, o->ring, le64toh(rec.seq), &rec, &h,
			    cf->any ? &cf->last : NULL, &content, &why))
		return col_reject(subj, why);
	if (gr_check_records(v, s->info->events, v->desc_count, b, content,
			     &why))
		return col_reject(subj, why);
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

/* the verdict for a whole object (all its parts): written, or why not */
enum col_verdict col_put_object(const char *subj, const struct gr_obj *o,
				const struct gr_frame *f, const uint8_t *b,
				uint64_t len)
{
	if (o->kind == GR_OBJ_STREAM)
		return put_packet_aligned(subj, o, f, b, len);
	return put_version(subj, o, f, b, len);
}

/* the largest object of a kind an agent sends */
uint64_t col_max_len(enum gr_obj_kind k)
{
	return k == GR_OBJ_STREAM ? GR_MAX_SUBBUF_SIZE :
	       k == GR_OBJ_INFO ? GR_INFO_MAX_FILE : COL_META_MAX;
}

/* a message refused: counted, logged at first and then rarely */
enum col_verdict col_reject(const char *subj, const char *why)
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
