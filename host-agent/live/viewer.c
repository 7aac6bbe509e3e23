// SPDX-License-Identifier: GPL-2.0
/*
 * viewer.c - the LTTng-live viewer protocol, version 2.4, answered from
 * the store
 *
 * Every request is a 16-byte header (payload size, command, version)
 * and a payload, every field big-endian; every reply is made whole in
 * memory and then written out by live.c. A session is a VM's recording
 * session (its name, the one viewers ask for, is the VM's); its streams
 * are the metadata and one per ring. Packets are handed out in the order
 * of the stream's index file (index.c), which lists a packet only once it
 * is whole on disk; a session's end is known from the registry, and
 * after it a stream "hangs up" when its index has nothing more.
 *
 * A session kept in chunks is one live session across its chunks: a
 * stream reads its chunk (<session>/BEGIN-ID/, or archives/BEGIN-END-ID/
 * once closed; its open files follow the rename) and, once the registry
 * says a later chunk is written and the index has nothing more, goes on
 * with the next chunk's file from offset 0. The metadata is the current
 * chunk's (each chunk's begins with the one before it). A chunk that
 * retention deleted before a stream read it is skipped: the stream goes
 * on in the oldest chunk kept, the viewer sees the gap in packet_seq_num
 * as discarded packets, and chunks_skipped counts it.
 *
 * A stream without new packets gets an inactivity beacon, so that a
 * viewer merging CPUs is not held back by a quiet one: the beacon says
 * "nothing before T" with T = the newest packet end of the session less
 * twice the guest's switch timer and 1 s (gr_index_quiet_back(); the
 * second is the time a packet may still be on its way to disk). Without a
 * switch timer a quiet stream gets none (a partly filled sub-buffer may
 * wait forever) and a viewer waits for its next packet.
 *
 * A ring's next packet begins where its last one ended (spec 6.9), so
 * after a beacon the packet that follows may begin before the beacon's
 * time, even though its first event is later (a ring quiet for a minute
 * stores a packet that begins when it went quiet). A viewer must not see
 * time go back: such a packet's timestamp_begin is raised to the beacon's
 * time in the index entry and in the packet bytes handed out (its events
 * are unchanged; the stored packet is untouched).
 */
#include <endian.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk.h"
#include "index.h"
#include "live.h"
#include "viewer.h"

#define GR_LIVE_MAJOR		2
#define GR_LIVE_MINOR		4
#define LV_HOST_MAX		64	/* lttng-viewer-abi's name sizes */
#define LV_NAME_MAX		255
#define LV_PATH_MAX		4096

enum lv_cmd {
	LV_CONNECT = 1,
	LV_LIST_SESSIONS = 2,
	LV_ATTACH_SESSION = 3,
	LV_GET_NEXT_INDEX = 4,
	LV_GET_PACKET = 5,
	LV_GET_METADATA = 6,
	LV_GET_NEW_STREAMS = 7,
	LV_CREATE_SESSION = 8,
	LV_DETACH_SESSION = 9,
};

enum { LV_FLAG_NEW_METADATA = 1, LV_FLAG_NEW_STREAM = 2 };
enum { LV_ATTACH_OK = 1, LV_ATTACH_ALREADY, LV_ATTACH_UNK,
	LV_ATTACH_NOT_LIVE, LV_ATTACH_SEEK_ERR, LV_ATTACH_NO_SESSION };
enum { LV_INDEX_OK = 1, LV_INDEX_RETRY, LV_INDEX_HUP, LV_INDEX_ERR,
	LV_INDEX_INACTIVE, LV_INDEX_EOF };
enum { LV_PACKET_OK = 1, LV_PACKET_RETRY, LV_PACKET_ERR, LV_PACKET_EOF };
enum { LV_METADATA_OK = 1, LV_METADATA_NO_NEW, LV_METADATA_ERR };
enum { LV_STREAMS_OK = 1, LV_STREAMS_NO_NEW, LV_STREAMS_ERR,
	LV_STREAMS_HUP };
enum { LV_DETACH_OK = 1, LV_DETACH_UNK, LV_DETACH_ERR };

struct lv_hdr {
	uint64_t data_size;
	uint32_t cmd;
	uint32_t cmd_version;
} __attribute__((packed));

struct lv_connect {
	uint64_t viewer_session_id;
	uint32_t major;
	uint32_t minor;
	uint32_t type;
} __attribute__((packed));

struct lv_session {
	uint64_t id;
	uint32_t live_timer;
	uint32_t clients;
	uint32_t streams;
	char hostname[LV_HOST_MAX];
	char session_name[LV_NAME_MAX];
} __attribute__((packed));

struct lv_stream {
	uint64_t id;
	uint64_t ctf_trace_id;
	uint32_t metadata_flag;
	char path_name[LV_PATH_MAX];
	char channel_name[LV_NAME_MAX];
} __attribute__((packed));

struct lv_attach_req {
	uint64_t session_id;
	uint64_t offset;
	uint32_t seek;
} __attribute__((packed));

struct lv_index {
	uint64_t offset;
	uint64_t packet_size;
	uint64_t content_size;
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t events_discarded;
	uint64_t stream_id;
	uint32_t status;
	uint32_t flags;
} __attribute__((packed));

struct lv_get_packet {
	uint64_t stream_id;
	uint64_t offset;
	uint32_t len;
} __attribute__((packed));

_Static_assert(sizeof(struct lv_session) == 339, "viewer session");
_Static_assert(sizeof(struct lv_stream) == 4371, "viewer stream");
_Static_assert(sizeof(struct lv_index) == 64, "viewer index");

static int store_fd = -1;
static char host_name[LV_HOST_MAX];

int viewer_init(const char *store_dir, const char *host)
{
	store_fd = open(store_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (store_fd < 0)
		return -errno;
	snprintf(host_name, sizeof(host_name), "%s", host);
	return 0;
}

void viewer_finish(void)
{
	if (store_fd >= 0)
		close(store_fd);
	store_fd = -1;
}

/* a request's 64-bit field: requests sit at any alignment in the buffer */
static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* ---- replies ------------------------------------------------------------ */

/* a reply of @len bytes to fill: c->out, zeroed; NULL without memory */
static void *reply(struct live_conn *c, size_t len)
{
	c->out = calloc(1, len ? len : 1);
	c->out_len = c->out ? len : 0;
	c->out_off = 0;
	return c->out;
}

static int reply_u32(struct live_conn *c, uint32_t v)
{
	uint32_t *p = reply(c, sizeof(*p));

	if (!p)
		return -ENOMEM;
	*p = htobe32(v);
	return 1;
}

/* status and a stream count, then @n stream records from @st[@first] */
static int reply_streams(struct live_conn *c, uint32_t status,
			 unsigned int first, unsigned int n)
{
	size_t len = 8 + (size_t)n * sizeof(struct lv_stream);
	uint8_t *p = reply(c, len);
	unsigned int i;

	if (!p)
		return -ENOMEM;
	((uint32_t *)p)[0] = htobe32(status);
	((uint32_t *)p)[1] = htobe32(n);
	for (i = 0; i < n; i++) {
		struct live_stream *s = &c->st[first + i];
		struct lv_stream *w = (struct lv_stream *)(p + 8) + i;

		w->id = htobe64(s->id);
		w->ctf_trace_id = htobe64(s->sess->id);
		w->metadata_flag = htobe32(s->ring < 0);
		snprintf(w->path_name, sizeof(w->path_name), "%s/%s/%s",
			 host_name, s->sess->vm, s->sess->session);
		if (s->ring < 0)
			snprintf(w->channel_name, sizeof(w->channel_name),
				 "metadata");
		else
			snprintf(w->channel_name, sizeof(w->channel_name),
				 "stream_%d", s->ring);
		s->announced = true;
	}
	return 1;
}

/* ---- streams ------------------------------------------------------------- */

static struct live_stream *stream_find(struct live_conn *c, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < c->n_st; i++)
		if (c->st[i].id == id)
			return &c->st[i];
	return NULL;
}

static void stream_close(struct live_stream *s)
{
	if (s->data_fd >= 0)
		close(s->data_fd);
	if (s->idx_fd >= 0)
		close(s->idx_fd);
	s->data_fd = s->idx_fd = -1;
}

/*
 * The chunk of @sess's directory with the lowest ID at least @want: its
 * path under the store in @path, its ID in *@id. A session kept in one
 * directory is its chunk 0. Return: false if there is none.
 */
static bool chunk_locate(const struct live_sess *sess, uint64_t want,
			 char *path, size_t len, uint64_t *id)
{
	char dir[2 * GR_LIVE_NAME_MAX + 16], best[GR_CHUNK_NAME_MAX + 16];
	uint64_t v, found = UINT64_MAX;
	unsigned int pass;
	struct dirent *de;
	DIR *d;
	int fd;

	best[0] = 0;
	for (pass = 0; pass < 2; pass++) {
		snprintf(dir, sizeof(dir), "%s/%s%s", sess->vm, sess->session,
			 pass ? "/" GR_CHUNK_ARCHIVES : "");
		fd = openat(store_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		d = fd >= 0 ? fdopendir(fd) : NULL;
		if (!d) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		while ((de = readdir(d)))
			if (chunk_parse(de->d_name, pass, &v, NULL) &&
			    v >= want && v < found &&
			    strlen(de->d_name) < GR_CHUNK_NAME_MAX) {
				found = v;
				snprintf(best, sizeof(best), "%s%s",
					 pass ? GR_CHUNK_ARCHIVES "/" : "",
					 de->d_name);
			}
		closedir(d);
	}
	if (found == UINT64_MAX) {
		if (want)
			return false;
		found = 0;	/* kept in one directory */
	}
	*id = found;
	snprintf(path, len, "%s/%s%s%s", sess->vm, sess->session,
		 best[0] ? "/" : "", best);
	return true;
}

/* open @name of chunk @chunk (or the first after it) of @sess read-only */
static int sess_open(const struct live_sess *sess, uint64_t chunk,
		     const char *name)
{
	char path[3 * GR_LIVE_NAME_MAX + 48];
	uint64_t id;

	if (!chunk_locate(sess, chunk, path, sizeof(path), &id) ||
	    id != chunk) {
		errno = ENOENT;
		return -1;
	}
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s",
		 name);
	return openat(store_fd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

/* the stream and index files of data stream @s; false if unusable */
static bool stream_files(struct live_stream *s)
{
	struct gr_index_file_hdr fh;
	char name[48];

	if (s->idx_fd >= 0)
		return true;
	snprintf(name, sizeof(name), "stream_%d", s->ring);
	if (s->data_fd < 0)
		s->data_fd = sess_open(s->sess, s->chunk, name);
	snprintf(name, sizeof(name), GR_INDEX_DIR "/stream_%d.idx", s->ring);
	s->idx_fd = sess_open(s->sess, s->chunk, name);
	if (s->data_fd < 0 || s->idx_fd < 0 ||
	    pread(s->idx_fd, &fh, sizeof(fh), 0) != sizeof(fh) ||
	    be32toh(fh.magic) != GR_INDEX_MAGIC ||
	    be32toh(fh.index_major) != GR_INDEX_MAJOR ||
	    be32toh(fh.packet_index_len) != sizeof(struct gr_index_entry)) {
		stream_close(s);
		return false;
	}
	return true;
}

/*
 * Data stream @s goes on in the first chunk kept from ID @want on (the
 * next one once its chunk is read and closed, or the oldest kept if
 * retention deleted its own). Return: false if there is none.
 */
static bool stream_move(struct live_stream *s, uint64_t want)
{
	char path[3 * GR_LIVE_NAME_MAX + 48];
	uint64_t id;

	if (!chunk_locate(s->sess, want, path, sizeof(path), &id) ||
	    id < want)
		return false;
	if (id == s->chunk)
		return true;	/* it was being renamed into archives/ */
	if (id > want)
		live_count(offsetof(struct gr_live_stats, chunks_skipped),
			   id - want);
	stream_close(s);
	s->chunk = id;
	s->entry = 0;
	s->next_off = 0;
	s->raised_off = UINT64_MAX;
	return true;
}

/*
 * Index entry @k of data stream @s, checked against the stream file.
 * Return: 1 if there is one, 0 if not yet, -EIO if it is not usable.
 */
static int stream_entry(struct live_stream *s, uint64_t k,
			struct gr_index_entry *e)
{
	struct gr_index_entry raw;
	struct stat st;
	off_t at = (off_t)(sizeof(struct gr_index_file_hdr) + k * sizeof(raw));
	ssize_t n = pread(s->idx_fd, &raw, sizeof(raw), at);

	if (n != sizeof(raw))
		return n < 0 ? -EIO : 0;
	if (!gr_index_entry_get(&raw, e) || fstat(s->data_fd, &st) ||
	    e->offset > (uint64_t)st.st_size ||
	    e->packet_size / 8 > (uint64_t)st.st_size - e->offset)
		return -EIO;
	return 1;
}

/* the end of the newest packet of any ring of @s's session, 0 if none */
static uint64_t session_newest(struct live_conn *c, struct live_stream *s)
{
	uint64_t newest = 0;
	unsigned int i;

	for (i = 0; i < c->n_st; i++) {
		struct live_stream *o = &c->st[i];
		struct gr_index_entry e;
		struct stat st;
		uint64_t n;

		if (o->sess != s->sess || o->ring < 0 || !stream_files(o) ||
		    fstat(o->idx_fd, &st) ||
		    (uint64_t)st.st_size < sizeof(struct gr_index_file_hdr))
			continue;
		n = ((uint64_t)st.st_size - sizeof(struct gr_index_file_hdr)) /
		    sizeof(e);
		if (n && stream_entry(o, n - 1, &e) == 1 &&
		    e.timestamp_end > newest)
			newest = e.timestamp_end;
	}
	return newest;
}

/* 64-bit FNV-1a of @len bytes, continuing from @h */
static uint64_t fnv1a(uint64_t h, const uint8_t *p, size_t len)
{
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

#define FNV_BASIS	0xcbf29ce484222325ULL

/*
 * An event declaration of the metadata starts a line with "event {" (the
 * CTF writer escapes every newline inside a string literal): where the
 * declaration after the first @k of @text begins, @len if there is none
 */
#define EVENT_DECL	"\nevent {\n"

static size_t event_decl_after(const uint8_t *text, size_t len, uint64_t k)
{
	const uint8_t *p = text, *hit;

	while ((hit = memmem(p, len - (size_t)(p - text), EVENT_DECL,
			     sizeof(EVENT_DECL) - 1))) {
		if (!k--)
			return (size_t)(hit + 1 - text);
		p = hit + 1;
	}
	return len;
}

/* the event declarations beginning in @text[@from, @len) */
static uint64_t event_decls(const uint8_t *text, size_t from, size_t len)
{
	size_t at = from ? from - 1 : 0;	/* the line's newline */
	uint64_t n = 0;

	while ((at = event_decl_after(text + at, len - at, 0) + at) < len) {
		n++;
		at++;
	}
	return n;
}

/*
 * What metadata stream @m has not sent yet: *@text (malloc'ed, the whole
 * file) and *@from (where the new part starts). The file is rewritten
 * whole by the loop. A rewrite that keeps what was sent as its beginning
 * sends what follows; one that changed it (a refined clock, the env's
 * filters) cannot reach a viewer, which cannot take back a declaration,
 * but the event declarations it appends can: events added at run time
 * are declared last (spec 18.3 M2), in the same order in every rewrite,
 * so those after the ones sent follow them as they are.
 * Return: 1 if there is something new, 0 if not, -errno.
 */
static int metadata_new(struct live_stream *m, uint8_t **text, size_t *len,
			size_t *from)
{
	struct stat st;
	ssize_t n;
	struct live_sess now;
	int fd;

	*text = NULL;
	if (live_sess_get(m->sess->id, &now))
		m->chunk = now.chunk;
	fd = sess_open(m->sess, m->chunk, "metadata");
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;	/* being archived */
	if (fstat(fd, &st) || st.st_size > GR_LIVE_MAX_METADATA) {
		close(fd);
		return -EFBIG;
	}
	if ((uint64_t)st.st_size == m->md_sent ||
	    ((uint64_t)st.st_ino == m->md_ino &&
	     (uint64_t)st.st_size == m->md_size)) {
		close(fd);
		return 0;
	}
	*text = malloc((size_t)st.st_size);
	n = *text ? pread(fd, *text, (size_t)st.st_size, 0) : -1;
	close(fd);
	if (n != st.st_size) {
		free(*text);
		*text = NULL;
		return -EIO;
	}
	*len = (size_t)n;
	*from = (size_t)m->md_sent;
	if (*from > *len || (m->md_sent &&
			     fnv1a(FNV_BASIS, *text, *from) != m->md_hash))
		*from = event_decl_after(*text, *len, m->md_events);
	if (*from >= *len) {
		/* nothing new in this file: not read again until it changes */
		m->md_ino = (uint64_t)st.st_ino;
		m->md_size = (uint64_t)st.st_size;
		free(*text);
		*text = NULL;
		return 0;
	}
	return 1;
}

/* NEW_METADATA if the session's metadata has something to send */
static uint32_t index_flags(struct live_conn *c, struct live_stream *s)
{
	struct live_stream *m = stream_find(c, s->id & ~0xfffffULL);
	uint8_t *text;
	size_t len, from;

	if (!m || metadata_new(m, &text, &len, &from) != 1)
		return 0;
	free(text);
	return LV_FLAG_NEW_METADATA;
}

/* ---- requests ------------------------------------------------------------ */

static int do_connect(struct live_conn *c, const uint8_t *p, size_t n)
{
	const struct lv_connect *rq = (const void *)p;
	struct lv_connect *rp;

	if (n < sizeof(*rq) || be32toh(rq->major) != GR_LIVE_MAJOR)
		return -EPROTO;
	rp = reply(c, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->viewer_session_id = htobe64(c->id);
	rp->major = htobe32(GR_LIVE_MAJOR);
	rp->minor = htobe32(GR_LIVE_MINOR);
	rp->type = rq->type;
	c->connected = true;
	return 1;
}

static int do_list(struct live_conn *c)
{
	struct live_sess *arr;
	struct lv_session *w;
	uint8_t *p;
	int n = live_sess_list(&arr), i;

	if (n < 0)
		return n;
	p = reply(c, 4 + (size_t)n * sizeof(*w));
	if (!p) {
		free(arr);
		return -ENOMEM;
	}
	*(uint32_t *)p = htobe32((uint32_t)n);
	w = (struct lv_session *)(p + 4);
	for (i = 0; i < n; i++, w++) {
		w->id = htobe64(arr[i].id);
		w->live_timer = htobe32(arr[i].switch_timer_us);
		w->clients = htobe32(arr[i].viewers);
		w->streams = htobe32(arr[i].nr_rings);
		snprintf(w->hostname, sizeof(w->hostname), "%s", host_name);
		snprintf(w->session_name, sizeof(w->session_name), "%s",
			 arr[i].vm);
	}
	free(arr);
	return 1;
}

static int do_attach(struct live_conn *c, const uint8_t *p, size_t n)
{
	const struct lv_attach_req *rq = (const void *)p;
	struct live_stream *st;
	struct live_sess *sess;
	char path[3 * GR_LIVE_NAME_MAX + 48];
	unsigned int i, first = c->n_st, want;
	uint64_t id, oldest;

	if (n < sizeof(*rq))
		return -EPROTO;
	id = be64toh(rq->session_id);
	if (!c->created)
		return reply_streams(c, LV_ATTACH_NO_SESSION, 0, 0);
	for (i = 0; i < c->n_att; i++)
		if (c->att[i]->id == id)
			return reply_streams(c, LV_ATTACH_ALREADY, 0, 0);
	sess = malloc(sizeof(*sess));
	if (!sess)
		return -ENOMEM;
	if (!live_sess_get(id, sess) || c->n_att == GR_LIVE_MAX_ATTACH ||
	    id >= (1ULL << 43)) {
		free(sess);
		return reply_streams(c, LV_ATTACH_UNK, 0, 0);
	}
	want = sess->nr_rings + 1;
	/* every session is served from its oldest chunk kept */
	if (!chunk_locate(sess, 0, path, sizeof(path), &oldest))
		oldest = sess->chunk;
	if (want > GR_LIVE_MAX_STREAMS - c->n_st) {
		free(sess);
		return reply_streams(c, LV_ATTACH_UNK, 0, 0);
	}
	st = realloc(c->st, (c->n_st + want) * sizeof(*st));
	if (!st) {
		free(sess);
		return -ENOMEM;
	}
	c->st = st;
	for (i = 0; i < want; i++) {
		struct live_stream *s = &c->st[c->n_st++];

		memset(s, 0, sizeof(*s));
		s->sess = sess;
		s->ring = (int)i - 1;
		s->id = id << 20 | i;
		s->chunk = oldest;
		s->data_fd = s->idx_fd = -1;
		s->raised_off = UINT64_MAX;
	}
	c->att[c->n_att++] = sess;
	live_sess_viewers(id, 1);
	/* seek: every session is served from its first packet */
	return reply_streams(c, LV_ATTACH_OK, first, want);
}

static struct live_sess *attached(struct live_conn *c, uint64_t id,
				  unsigned int *slot)
{
	unsigned int i;

	for (i = 0; i < c->n_att; i++)
		if (c->att[i]->id == id) {
			if (slot)
				*slot = i;
			return c->att[i];
		}
	return NULL;
}

static void detach(struct live_conn *c, unsigned int slot)
{
	struct live_sess *sess = c->att[slot];
	unsigned int i, k = 0;

	for (i = 0; i < c->n_st; i++) {
		if (c->st[i].sess == sess)
			stream_close(&c->st[i]);
		else
			c->st[k++] = c->st[i];
	}
	c->n_st = k;
	c->att[slot] = c->att[--c->n_att];
	live_sess_viewers(sess->id, -1);
	free(sess);
}

static int do_detach(struct live_conn *c, const uint8_t *p, size_t n)
{
	unsigned int slot;

	if (n < 8)
		return -EPROTO;
	if (!attached(c, get_be64(p), &slot))
		return reply_u32(c, LV_DETACH_UNK);
	detach(c, slot);
	return reply_u32(c, LV_DETACH_OK);
}

static int do_new_streams(struct live_conn *c, const uint8_t *p, size_t n)
{
	struct live_sess *sess, now;
	uint64_t id;

	if (n < 8)
		return -EPROTO;
	id = get_be64(p);
	sess = attached(c, id, NULL);
	if (!sess)
		return reply_streams(c, LV_STREAMS_ERR, 0, 0);
	/* a session's rings are fixed: all were given at attach */
	return reply_streams(c, live_sess_get(id, &now) ? LV_STREAMS_NO_NEW :
			     LV_STREAMS_HUP, 0, 0);
}

static int do_metadata(struct live_conn *c, const uint8_t *p, size_t n)
{
	struct live_stream *m;
	uint8_t *text, *rp;
	size_t len, from;
	int ret;

	if (n < 8)
		return -EPROTO;
	m = stream_find(c, get_be64(p));
	if (!m || m->ring >= 0)
		goto err;
	ret = metadata_new(m, &text, &len, &from);
	if (ret < 0)
		goto err;
	if (ret == 0) {
		rp = reply(c, 12);
		if (!rp)
			return -ENOMEM;
		*(uint32_t *)(rp + 8) = htobe32(LV_METADATA_NO_NEW);
		return 1;
	}
	rp = reply(c, 12 + len - from);
	if (!rp) {
		free(text);
		return -ENOMEM;
	}
	*(uint64_t *)rp = htobe64(len - from);
	*(uint32_t *)(rp + 8) = htobe32(LV_METADATA_OK);
	memcpy(rp + 12, text + from, len - from);
	m->md_hash = fnv1a(FNV_BASIS, text, len);
	m->md_events += event_decls(text, from, len);
	m->md_sent = len;
	free(text);
	return 1;
err:
	rp = reply(c, 12);
	if (!rp)
		return -ENOMEM;
	*(uint32_t *)(rp + 8) = htobe32(LV_METADATA_ERR);
	return 1;
}

static int index_reply(struct live_conn *c, uint32_t status, uint32_t flags,
		       const struct gr_index_entry *e)
{
	struct lv_index *rp = reply(c, sizeof(*rp));

	if (!rp)
		return -ENOMEM;
	rp->status = htobe32(status);
	rp->flags = htobe32(flags);
	if (e) {
		rp->offset = htobe64(e->offset);
		rp->packet_size = htobe64(e->packet_size);
		rp->content_size = htobe64(e->content_size);
		rp->timestamp_begin = htobe64(e->timestamp_begin);
		rp->timestamp_end = htobe64(e->timestamp_end);
		rp->events_discarded = htobe64(e->events_discarded);
		rp->stream_id = htobe64(e->stream_id);
	}
	return 1;
}

/* the beacon time of quiet stream @s, 0 if none may be given */
static uint64_t beacon_ts(struct live_conn *c, struct live_stream *s)
{
	const struct live_sess *q = s->sess;
	uint64_t newest, back;

	back = gr_index_quiet_back(q->switch_timer_us, q->clock_freq);
	if (!back)
		return 0;
	newest = session_newest(c, s);
	return newest > back ? newest - back : 0;
}

static int do_next_index(struct live_conn *c, const uint8_t *p, size_t n)
{
	struct gr_index_entry e;
	struct live_stream *s;
	struct live_sess now;
	unsigned int hops;
	bool open;
	uint64_t ts;
	int r;

	if (n < 8)
		return -EPROTO;
	s = stream_find(c, get_be64(p));
	if (!s || s->ring < 0)
		return index_reply(c, LV_INDEX_ERR, 0, NULL);
	/* closed before the read: then its index was final */
	open = live_sess_get(s->sess->id, &now);
	for (hops = 0;; hops++) {
		if (hops == GR_LIVE_MAX_HOPS)
			return index_reply(c, LV_INDEX_RETRY, 0, NULL);
		if (!stream_files(s)) {
			if (stream_move(s, s->chunk))
				continue;
			return index_reply(c, LV_INDEX_ERR, 0, NULL);
		}
		r = stream_entry(s, s->entry, &e);
		/* a closed chunk read to the end: on to the next */
		if (r || (open && s->chunk >= now.chunk) ||
		    !stream_move(s, s->chunk + 1))
			break;
	}
	if (r < 0 || (r > 0 && e.offset != s->next_off))
		return index_reply(c, LV_INDEX_ERR, 0, NULL);
	if (r > 0) {
		s->entry++;
		s->next_off = e.offset + e.packet_size / 8;
		s->raised_off = UINT64_MAX;
		if (e.timestamp_begin < s->last_ts) {
			/* a beacon said "nothing before last_ts" */
			e.timestamp_begin = s->last_ts < e.timestamp_end ?
					    s->last_ts : e.timestamp_end;
			s->raised_off = e.offset;
			s->raised_ts = e.timestamp_begin;
		}
		if (e.timestamp_end > s->last_ts)
			s->last_ts = e.timestamp_end;
		live_count(offsetof(struct gr_live_stats, packets), 1);
		return index_reply(c, LV_INDEX_OK, index_flags(c, s), &e);
	}
	if (!open)
		return index_reply(c, LV_INDEX_HUP, 0, NULL);
	ts = beacon_ts(c, s);
	if (ts > s->last_ts) {
		memset(&e, 0, sizeof(e));
		e.timestamp_end = ts;
		s->last_ts = ts;
		live_count(offsetof(struct gr_live_stats, beacons), 1);
		return index_reply(c, LV_INDEX_INACTIVE, 0, &e);
	}
	return index_reply(c, LV_INDEX_RETRY, 0, NULL);
}

/*
 * The bytes [@off, @off + @len) of stream @s's file, read into @buf: the
 * part of the raised timestamp_begin (see do_next_index()) they hold
 */
static void raise_begin(const struct live_stream *s, uint8_t *buf,
			uint64_t off, uint64_t len)
{
	uint64_t at, le;
	unsigned int i;

	if (s->raised_off == UINT64_MAX)
		return;
	at = s->raised_off + offsetof(struct gr_packet_header, timestamp_begin);
	le = htole64(s->raised_ts);
	for (i = 0; i < sizeof(le); i++)
		if (at + i >= off && at + i - off < len)
			buf[at + i - off] = ((const uint8_t *)&le)[i];
}

static int do_packet(struct live_conn *c, const uint8_t *p, size_t n)
{
	const struct lv_get_packet *rq = (const void *)p;
	struct live_stream *s;
	uint64_t off, len;
	uint8_t *rp;

	if (n < sizeof(*rq))
		return -EPROTO;
	s = stream_find(c, be64toh(rq->stream_id));
	off = be64toh(rq->offset);
	len = be32toh(rq->len);
	/* only what an index entry gave, and one reply's worth */
	if (!s || s->ring < 0 || s->data_fd < 0 || !len ||
	    len > GR_LIVE_MAX_REPLY - 12 || off > s->next_off ||
	    len > s->next_off - off) {
		rp = reply(c, 12);
		if (!rp)
			return -ENOMEM;
		*(uint32_t *)rp = htobe32(LV_PACKET_ERR);
		return 1;
	}
	rp = reply(c, 12 + len);
	if (!rp)
		return -ENOMEM;
	if (pread(s->data_fd, rp + 12, len, (off_t)off) != (ssize_t)len) {
		c->out_len = 12;
		*(uint32_t *)rp = htobe32(LV_PACKET_ERR);
		return 1;
	}
	raise_begin(s, rp + 12, off, len);
	*(uint32_t *)rp = htobe32(LV_PACKET_OK);
	*(uint32_t *)(rp + 4) = htobe32((uint32_t)len);
	*(uint32_t *)(rp + 8) = htobe32(index_flags(c, s));
	return 1;
}

/**
 * viewer_request() - answer the request at the start of c->in, if whole
 * @c: the connection (no reply pending)
 *
 * Return: 1 if answered (c->out holds the reply, the request is removed
 * from c->in), 0 if more bytes are needed, -EPROTO for a request that is
 * not the protocol's (close the connection), -ENOMEM.
 */
int viewer_request(struct live_conn *c)
{
	struct lv_hdr h;
	const uint8_t *p = c->in + sizeof(h);
	uint64_t size;
	size_t n;
	int r;

	if (c->in_len < sizeof(h))
		return 0;
	memcpy(&h, c->in, sizeof(h));
	size = be64toh(h.data_size);
	if (size > sizeof(c->in) - sizeof(h))
		return -EPROTO;
	if (c->in_len < sizeof(h) + size)
		return 0;
	n = (size_t)size;
	if (!c->connected && be32toh(h.cmd) != LV_CONNECT)
		return -EPROTO;
	switch (be32toh(h.cmd)) {
	case LV_CONNECT:
		r = do_connect(c, p, n);
		break;
	case LV_LIST_SESSIONS:
		r = do_list(c);
		break;
	case LV_CREATE_SESSION:
		c->created = true;
		r = reply_u32(c, 1);	/* CREATE_SESSION_OK */
		break;
	case LV_ATTACH_SESSION:
		r = do_attach(c, p, n);
		break;
	case LV_DETACH_SESSION:
		r = do_detach(c, p, n);
		break;
	case LV_GET_NEW_STREAMS:
		r = do_new_streams(c, p, n);
		break;
	case LV_GET_METADATA:
		r = do_metadata(c, p, n);
		break;
	case LV_GET_NEXT_INDEX:
		r = do_next_index(c, p, n);
		break;
	case LV_GET_PACKET:
		r = do_packet(c, p, n);
		break;
	default:
		r = -EPROTO;
	}
	if (r > 0) {
		c->in_len -= sizeof(h) + n;
		memmove(c->in, c->in + sizeof(h) + n, c->in_len);
	}
	return r;
}

/**
 * viewer_release() - a connection ends: its sessions and files
 * @c: the connection
 */
void viewer_release(struct live_conn *c)
{
	while (c->n_att)
		detach(c, c->n_att - 1);
	free(c->st);
	c->st = NULL;
	c->n_st = 0;
}
