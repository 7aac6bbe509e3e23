// SPDX-License-Identifier: GPL-2.0
/*
 * ship.c - the shipper thread: the store, published to JetStream
 *
 * One thread of its own, plus libnats' threads. Each pass (every 200 ms,
 * or at once after a pass that sent something) walks the store:
 *
 *   <store>/<vm>/<session>/.guestrelay   a version (mtime) not yet acked:
 *   <store>/<vm>/<session>/metadata        published whole (in parts if
 *                                          above max_payload)
 *   <store>/<vm>/<session>/stream_<n>    the whole packets from the cursor
 *                                          on, up to the mark
 *
 * The mark of a stream file: while the loop writes it (registered with
 * ship_mark_open()), the offset below which every packet's write
 * completed (consumer.c's advance(): writes complete out of order, the
 * mark moves only over completed ones). A file no loop writes is walked
 * packet by packet with the rule the agent uses on resume (consumer.c
 * whole_packets()): what a restarted agent would keep is what is sent,
 * and a registration that happens during the walk makes the pass
 * start again from the mark.
 *
 * Publishing: js_PublishMsgAsync() of a batch (at most SHIP_BATCH
 * messages or SHIP_BATCH_BYTES), then js_PublishAsyncComplete(); the
 * cursor moves over the packets before the first one not acknowledged
 * and is written (tmp + rename) to <store>/.ship/<vm>/<session>. Every
 * message has a Nats-Msg-Id (subject.h), so what is sent again after a
 * crash or a partial batch is dropped by the server's duplicate window;
 * the collector drops what falls outside it (by offset).
 *
 * Unreachable servers: the pass still walks the store (the backlog stays
 * visible) but sends nothing; the connection is retried with a backoff
 * of 0.5 s doubling to 8 s; one line is logged when an outage starts and
 * one when it ends. Nothing here deletes or changes the store.
 *
 * Credentials (--ship-creds FILE, never on the command line): the file
 * --fleet-creds takes too, read by gr_nats_options() (nats_opts.c): a
 * NATS .creds file, or user/password, token, nkey + seed and ca lines.
 * Nothing of it is logged.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <nats/nats.h>

#include "ctf.h"
#include "nats_opts.h"
#include "ship.h"
#include "shm.h"
#include "subject.h"
#include "validate.h"

#define SHIP_BATCH		256		/* messages per wait */
#define SHIP_BATCH_BYTES	(32u << 20)
#define SHIP_WAIT_MS		20000		/* for a batch's acks */
#define SHIP_PASS_MS		200
#define SHIP_CURSOR_MAGIC	0x3152535250494853ULL	/* "SHIPRSR1" */
#define SHIP_META_MAX		(64u << 20)	/* metadata bytes */

/* ---- the registry of stream files the loop writes ------------------- */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gr_ship_mark *reg_head;
static uint64_t reg_gen;		/* bumped by every open */
static bool ship_on;

/**
 * ship_mark_open() - the loop starts writing stream_<ring> of a session
 * (GR_SHIP_ALL_RINGS: every stream file of it, nothing ships until the
 * mark is closed)
 * Return: the mark to move with ship_mark_set(), or NULL (not shipping,
 * or no memory: then that file ships once the loop closes it).
 */
struct gr_ship_mark *ship_mark_open(const char *vm, const char *session,
				    unsigned int ring)
{
	struct gr_ship_mark *m;

	if (!__atomic_load_n(&ship_on, __ATOMIC_ACQUIRE))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	snprintf(m->vm, sizeof(m->vm), "%s", vm);
	snprintf(m->session, sizeof(m->session), "%s", session);
	m->ring = ring;
	pthread_mutex_lock(&reg_lock);
	m->next = reg_head;
	reg_head = m;
	reg_gen++;
	pthread_mutex_unlock(&reg_lock);
	return m;
}

void ship_mark_close(struct gr_ship_mark *m)
{
	struct gr_ship_mark **p;

	if (!m)
		return;
	pthread_mutex_lock(&reg_lock);
	for (p = &reg_head; *p; p = &(*p)->next)
		if (*p == m) {
			*p = m->next;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	free(m);
}

/* the mark of a file, if the loop writes it; *gen: the registry's gen */
static bool mark_lookup(const char *vm, const char *session,
			unsigned int ring, uint64_t *done, uint64_t *gen)
{
	struct gr_ship_mark *m;
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (m = reg_head; m; m = m->next)
		if ((m->ring == ring || m->ring == GR_SHIP_ALL_RINGS) &&
		    !strcmp(m->vm, vm) && !strcmp(m->session, session)) {
			*done = m->ring == GR_SHIP_ALL_RINGS ? 0 :
				__atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
			found = true;
			break;
		}
	*gen = reg_gen;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/* ---- the shipper's state --------------------------------------------- */

struct ship_file {
	uint64_t off;			/* acked: whole packets below */
	uint64_t seq;			/* of the last acked packet */
	bool any;			/* a packet was acked */
	uint64_t limit;			/* whole packets end here (last pass) */
	uint64_t scan_off, scan_seq;	/* walked up to; its last seq */
	uint64_t scan_pkts;		/* packets in [off, scan_off) */
	uint64_t since_ns;		/* backlog not empty since */
};

struct ship_sess {
	char vm[64];
	char session[256];
	uint32_t nr_rings, subbuf_size;	/* from .guestrelay, 0 = unknown */
	uint64_t meta_gen, meta_hash, info_gen, info_hash;
	uint64_t meta_pending, info_pending;	/* bytes, 0 = shipped */
	uint64_t meta_since, info_since;
	struct ship_file *files;	/* nr_rings */
	bool seen;
	struct ship_sess *next;
};

/* the on-disk cursor: header, then nr_rings (off, seq, any) triples */
struct ship_cursor_hdr {
	uint64_t magic;
	uint32_t nr_rings, subbuf_size;
	uint64_t meta_gen, meta_hash, info_gen, info_hash;
};

struct ship_vm_backlog {
	char vm[64];
	uint64_t bytes, packets, since_ns;
};

static struct {
	struct gr_ship_cfg cfg;
	char urls[4096];
	char creds[4096];
	char stream[GR_STREAM_NAME_MAX];
	char store[4096];
	char host[GR_NAME_TOKEN_MAX];
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;		/* stop, cond, the snapshot below */
	pthread_cond_t cond;
	bool stop;
	/* the connection (shipper thread only) */
	natsConnection *nc;
	jsCtx *js;
	uint32_t chunk;
	bool down;
	uint64_t next_try_ns, backoff_ms;
	/* the batch being acknowledged (ack handler, under ack_lock) */
	pthread_mutex_t ack_lock;
	uint64_t fail_off;		/* lowest offset not acked */
	uint64_t acked_msgs, acked_bytes;
	struct ship_sess *sessions;
	uint8_t *buf;			/* one packet */
	size_t buf_cap;
	/* snapshot for status and metrics (under lock) */
	struct ship_vm_backlog *snap;
	unsigned int nsnap;
	bool connected;
	uint64_t shipped_bytes, shipped_msgs, outages;
} sh = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.ack_lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- configuration ---------------------------------------------------- */

static int bad_cfg(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

/**
 * ship_check_cfg() - the --ship options, before the agent starts
 * Return: 0, or -EINVAL with @err set.
 */
int ship_check_cfg(const struct gr_ship_cfg *cfg, char *err, size_t errlen)
{
	char host[256] = "";

	if (!cfg->urls || !*cfg->urls || strlen(cfg->urls) >= sizeof(sh.urls))
		return bad_cfg(err, errlen, "--ship: no URL");
	if (strchr(cfg->urls, '@'))
		return bad_cfg(err, errlen,
			       "--ship: credentials in a URL would show in the process list; put them in --ship-creds FILE");
	if (!gr_stream_name_ok(cfg->stream))
		return bad_cfg(err, errlen,
			       "--ship-stream: a name of [A-Za-z0-9_-], at most 63 bytes");
	if (cfg->replicas < 1 || cfg->replicas > 5)
		return bad_cfg(err, errlen, "--ship-replicas: 1 to 5");
	if (cfg->creds && (strlen(cfg->creds) >= sizeof(sh.creds) ||
			   access(cfg->creds, R_OK)))
		return bad_cfg(err, errlen, "--ship-creds: cannot read the file");
	if (cfg->host)
		snprintf(host, sizeof(host), "%s", cfg->host);
	else if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	if (!gr_dir_name_ok(host))
		return bad_cfg(err, errlen,
			       "--ship: the host name (--host) is not [A-Za-z0-9_.-]");
	return 0;
}

/* ---- the connection --------------------------------------------------- */

static void ack_handler(jsCtx *js, natsMsg *msg, jsPubAck *pa,
			jsPubAckErr *pae, void *closure);

static void disconnect(void)
{
	jsCtx_Destroy(sh.js);
	sh.js = NULL;
	if (sh.nc) {
		natsConnection_Close(sh.nc);
		natsConnection_Destroy(sh.nc);
	}
	sh.nc = NULL;
}

static void set_connected(bool c)
{
	pthread_mutex_lock(&sh.lock);
	sh.connected = c;
	pthread_mutex_unlock(&sh.lock);
}

/* one line when an outage starts, one when it ends */
static void outage(const char *what, natsStatus s)
{
	if (!sh.down) {
		syslog(LOG_WARNING, "ship: NATS unreachable (%s: %s); storing locally, retrying",
		       what, natsStatus_GetText(s));
		pthread_mutex_lock(&sh.lock);
		sh.outages++;
		pthread_mutex_unlock(&sh.lock);
	}
	sh.down = true;
	set_connected(false);
	sh.backoff_ms = sh.backoff_ms ? sh.backoff_ms * 2 : 500;
	if (sh.backoff_ms > 8000)
		sh.backoff_ms = 8000;
	sh.next_try_ns = now_ns() + sh.backoff_ms * 1000000ULL;
}

static natsStatus ensure_stream(void)
{
	char subj[GR_STREAM_NAME_MAX + 4];
	const char *subjects[1] = { subj };
	jsStreamInfo *si = NULL;
	jsStreamConfig sc;
	jsErrCode jerr = 0;
	natsStatus s;

	s = js_GetStreamInfo(&si, sh.js, sh.stream, NULL, &jerr);
	if (s == NATS_OK) {
		jsStreamInfo_Destroy(si);
		return s;
	}
	if (s != NATS_NOT_FOUND)
		return s;
	snprintf(subj, sizeof(subj), "%s.>", sh.stream);
	jsStreamConfig_Init(&sc);
	sc.Name = sh.stream;
	sc.Subjects = subjects;
	sc.SubjectsLen = 1;
	sc.Storage = js_FileStorage;
	sc.Replicas = sh.cfg.replicas;
	s = js_AddStream(&si, sh.js, &sc, NULL, &jerr);
	if (s == NATS_OK) {
		syslog(LOG_INFO, "ship: created stream %s (subjects %s, %d replica%s)",
		       sh.stream, subj, sh.cfg.replicas,
		       sh.cfg.replicas > 1 ? "s" : "");
		jsStreamInfo_Destroy(si);
	}
	return s;
}

/**
 * ship_connect() - a connection to the first of @urls that answers, which
 * libnats keeps reconnecting (to any of them) for good
 * @urls: comma-separated server URLs
 * @name: the connection's name on the server
 * @creds: a credentials file (see above), or NULL / ""
 * @nc: receives the connection
 *
 * Return: NATS_OK or the reason.
 */
natsStatus ship_connect(const char *urls, const char *name,
			const char *creds, natsConnection **nc)
{
	natsOptions *o = NULL;
	char err[256];
	natsStatus s;

	/* the credentials file was checked at start: err holds no secret */
	if (gr_nats_options(&o, urls, creds && *creds ? creds : NULL, name,
			    err, sizeof(err))) {
		syslog(LOG_ERR, "ship: %s", err);
		return NATS_INVALID_ARG;
	}
	s = natsOptions_SetReconnectWait(o, 500);
	if (s == NATS_OK)
		s = natsConnection_Connect(nc, o);
	natsOptions_Destroy(o);
	return s;
}

static void try_connect(void)
{
	jsOptions jo;
	natsStatus s;
	int64_t mp;

	s = ship_connect(sh.urls, "guestrelay-agent", sh.creds, &sh.nc);
	if (s != NATS_OK) {
		sh.nc = NULL;
		outage("connect", s);
		return;
	}
	jsOptions_Init(&jo);
	jo.Wait = 5000;
	jo.PublishAsync.MaxPending = SHIP_BATCH * 4;
	jo.PublishAsync.AckHandler = ack_handler;
	s = natsConnection_JetStream(&sh.js, sh.nc, &jo);
	if (s == NATS_OK)
		s = ensure_stream();
	if (s != NATS_OK) {
		disconnect();
		outage("stream", s);
		return;
	}
	/* headers and the message count towards max_payload */
	mp = natsConnection_GetMaxPayload(sh.nc);
	sh.chunk = mp > 4096 ? (uint32_t)(mp - 1024 > (1 << 30) ? 1 << 30 :
					   mp - 1024) : 3072;
	if (sh.down)
		syslog(LOG_INFO, "ship: NATS reachable again; catching up");
	sh.down = false;
	sh.backoff_ms = 0;
	set_connected(true);
}

/* ---- publishing ------------------------------------------------------- */

static void ack_handler(jsCtx *js, natsMsg *msg, jsPubAck *pa,
			jsPubAckErr *pae, void *closure)
{
	const char *fr = NULL;
	struct gr_frame f;

	(void)js;
	(void)closure;
	pthread_mutex_lock(&sh.ack_lock);
	if (pa && !pae) {
		sh.acked_msgs++;
		sh.acked_bytes += (uint64_t)natsMsg_GetDataLength(msg);
	} else if (natsMsgHeader_Get(msg, "Gr-Frame", &fr) == NATS_OK &&
		   !gr_frame_parse(fr, (uint64_t)natsMsg_GetDataLength(msg),
				   &f) && f.off < sh.fail_off) {
		sh.fail_off = f.off;
	} else if (!fr) {
		sh.fail_off = 0;
	}
	pthread_mutex_unlock(&sh.ack_lock);
	natsMsg_Destroy(msg);
}

static void batch_begin(void)
{
	pthread_mutex_lock(&sh.ack_lock);
	sh.fail_off = UINT64_MAX;
	sh.acked_msgs = sh.acked_bytes = 0;
	pthread_mutex_unlock(&sh.ack_lock);
}

/* mark @off as failed (not sent) */
static void batch_fail(uint64_t off)
{
	pthread_mutex_lock(&sh.ack_lock);
	if (off < sh.fail_off)
		sh.fail_off = off;
	pthread_mutex_unlock(&sh.ack_lock);
}

/*
 * Wait for the batch's acks. Return: the lowest offset not acknowledged
 * (UINT64_MAX if all were).
 */
static uint64_t batch_end(void)
{
	jsPubOptions po;
	natsStatus s;
	uint64_t fail;

	jsPubOptions_Init(&po);
	po.MaxWait = SHIP_WAIT_MS;
	s = js_PublishAsyncComplete(sh.js, &po);
	if (s != NATS_OK) {
		natsMsgList list = { 0 };
		int i;

		if (js_PublishAsyncGetPendingList(&list, sh.js) == NATS_OK) {
			for (i = 0; i < list.Count; i++) {
				const char *fr = NULL;
				struct gr_frame f;

				if (natsMsgHeader_Get(list.Msgs[i], "Gr-Frame",
						      &fr) == NATS_OK &&
				    !gr_frame_parse(fr, (uint64_t)
						    natsMsg_GetDataLength(list.Msgs[i]),
						    &f))
					batch_fail(f.off);
				else
					batch_fail(0);
			}
			natsMsgList_Destroy(&list);
		}
		if (s != NATS_TIMEOUT)
			batch_fail(0);
	}
	pthread_mutex_lock(&sh.ack_lock);
	fail = sh.fail_off;
	pthread_mutex_lock(&sh.lock);
	sh.shipped_msgs += sh.acked_msgs;
	sh.shipped_bytes += sh.acked_bytes;
	pthread_mutex_unlock(&sh.lock);
	sh.acked_msgs = sh.acked_bytes = 0;
	pthread_mutex_unlock(&sh.ack_lock);
	if (s != NATS_OK && s != NATS_TIMEOUT)
		outage("publish", s);
	else if (s == NATS_TIMEOUT && fail != UINT64_MAX)
		outage("acknowledgement", s);
	return fail;
}

/* publish an object of @len bytes as its parts; 0 or -EIO */
static int publish_obj(const struct gr_obj *o, uint64_t off,
		       const uint8_t *data, uint64_t len, uint64_t gen,
		       uint64_t hash)
{
	char subj[GR_SUBJ_MAX], id[GR_SUBJ_MAX], fr[160];
	struct gr_frame f = {
		.off = off, .len = len, .gen = gen, .chunk = sh.chunk,
	};
	uint32_t k;

	f.nparts = gr_frame_nparts(len, sh.chunk);
	if (!f.nparts || gr_subj_build(sh.stream, o, subj, sizeof(subj)))
		return -EINVAL;
	for (k = 0; k < f.nparts; k++) {
		uint64_t from = (uint64_t)k * sh.chunk, n = len - from;
		natsMsg *m = NULL;
		natsStatus s;

		if (n > sh.chunk)
			n = sh.chunk;
		f.part = k;
		if (gr_msgid_build(o, &f, hash, id, sizeof(id)) ||
		    gr_frame_format(&f, fr, sizeof(fr)))
			return -EINVAL;
		s = natsMsg_Create(&m, subj, NULL, (const char *)data + from,
				   (int)n);
		if (s == NATS_OK)
			s = natsMsgHeader_Set(m, "Nats-Msg-Id", id);
		if (s == NATS_OK)
			s = natsMsgHeader_Set(m, "Gr-Frame", fr);
		if (s == NATS_OK)
			s = js_PublishMsgAsync(sh.js, &m, NULL);
		natsMsg_Destroy(m);
		if (s != NATS_OK) {
			batch_fail(off);
			return -EIO;
		}
	}
	return 0;
}

/* ---- the cursor ------------------------------------------------------- */

static void cursor_path(const struct ship_sess *ss, char *p, size_t cap)
{
	snprintf(p, cap, "%s/.ship/%s/%s", sh.store, ss->vm, ss->session);
}

static void cursor_load(struct ship_sess *ss)
{
	struct ship_cursor_hdr h;
	char path[8192];
	unsigned int i;
	uint64_t e[3];
	int fd;

	cursor_path(ss, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (read(fd, &h, sizeof(h)) != sizeof(h) ||
	    h.magic != SHIP_CURSOR_MAGIC || h.nr_rings > GR_MAX_RINGS) {
		close(fd);
		return;
	}
	ss->meta_gen = h.meta_gen;
	ss->meta_hash = h.meta_hash;
	ss->info_gen = h.info_gen;
	ss->info_hash = h.info_hash;
	ss->nr_rings = h.nr_rings;
	ss->subbuf_size = h.subbuf_size;
	ss->files = calloc(h.nr_rings ? h.nr_rings : 1, sizeof(*ss->files));
	for (i = 0; ss->files && i < h.nr_rings; i++) {
		if (read(fd, e, sizeof(e)) != sizeof(e))
			break;
		ss->files[i].off = ss->files[i].scan_off = e[0];
		ss->files[i].seq = ss->files[i].scan_seq = e[1];
		ss->files[i].any = e[2] != 0;
	}
	if (!ss->files)
		ss->nr_rings = ss->subbuf_size = 0;
	close(fd);
}

static int mkdirs_for(const char *path)
{
	char buf[8192], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + strlen(sh.store) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(buf, 0750) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* tmp + rename: a crash leaves the old cursor or the new one */
static int cursor_save(const struct ship_sess *ss)
{
	struct ship_cursor_hdr h = {
		.magic = SHIP_CURSOR_MAGIC, .nr_rings = ss->nr_rings,
		.subbuf_size = ss->subbuf_size, .meta_gen = ss->meta_gen,
		.meta_hash = ss->meta_hash, .info_gen = ss->info_gen,
		.info_hash = ss->info_hash,
	};
	char path[8192], tmp[8300];
	size_t len = sizeof(h) + (size_t)ss->nr_rings * 24;
	uint8_t *b = malloc(len);
	unsigned int i;
	int fd, ret = 0;

	if (!b)
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	for (i = 0; i < ss->nr_rings; i++) {
		uint64_t e[3] = { ss->files[i].off, ss->files[i].seq,
				  ss->files[i].any };

		memcpy(b + sizeof(h) + i * 24, e, sizeof(e));
	}
	cursor_path(ss, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	mkdirs_for(path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || write(fd, b, len) != (ssize_t)len)
		ret = -EIO;
	if (fd >= 0)
		close(fd);
	if (!ret && rename(tmp, path))
		ret = -errno;
	free(b);
	return ret;
}

/* ---- one session ------------------------------------------------------ */

static int read_all(int dfd, const char *name, uint64_t max, uint8_t **bp,
		    size_t *lenp, struct stat *st)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint8_t *b;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) ||
	    (uint64_t)st->st_size > max) {
		close(fd);
		return -EINVAL;
	}
	b = malloc(st->st_size ? (size_t)st->st_size : 1);
	n = b ? pread(fd, b, (size_t)st->st_size, 0) : -1;
	close(fd);
	if (n != st->st_size) {
		free(b);
		return -EIO;
	}
	*bp = b;
	*lenp = (size_t)n;
	return 0;
}

static uint64_t st_gen(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ULL +
	       (uint64_t)st->st_mtim.tv_nsec;
}

/*
 * metadata or .guestrelay: the version on disk, sent if its bytes differ
 * from the last acked one. Return: 1 if something was sent, 0 if not, <0.
 */
static int ship_version(struct ship_sess *ss, int dfd, enum gr_obj_kind kind)
{
	const char *name = kind == GR_OBJ_INFO ? GR_CTF_INFO : GR_CTF_METADATA;
	uint64_t *gen = kind == GR_OBJ_INFO ? &ss->info_gen : &ss->meta_gen;
	uint64_t *hash = kind == GR_OBJ_INFO ? &ss->info_hash : &ss->meta_hash;
	uint64_t *pend = kind == GR_OBJ_INFO ? &ss->info_pending :
					       &ss->meta_pending;
	uint64_t *since = kind == GR_OBJ_INFO ? &ss->info_since :
						&ss->meta_since;
	struct gr_obj o = { .kind = kind };
	struct stat st;
	uint8_t *b = NULL;
	size_t len = 0;
	uint64_t h;
	int ret;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -ENOENT;
	if (st_gen(&st) == *gen) {
		*pend = 0;
		return 0;
	}
	ret = read_all(dfd, name, kind == GR_OBJ_INFO ? GR_INFO_MAX_FILE :
			SHIP_META_MAX, &b, &len, &st);
	if (ret)
		return ret;
	if (kind == GR_OBJ_INFO && !ss->subbuf_size) {
		struct gr_ctf_info *info = calloc(1, sizeof(*info));
		const char *why;

		if (!info || gr_ctf_parse_info(b, len, info, &why)) {
			free(info);
			free(b);
			return -EINVAL;
		}
		ss->nr_rings = info->view.nr_rings;
		ss->subbuf_size = info->view.subbuf_size;
		free(info);
		free(ss->files);
		ss->files = calloc(ss->nr_rings ? ss->nr_rings : 1,
				   sizeof(*ss->files));
		if (!ss->files) {
			ss->nr_rings = ss->subbuf_size = 0;
			free(b);
			return -ENOMEM;
		}
	}
	h = gr_fnv64(b, len);
	if (h == *hash && *gen) {
		*gen = st_gen(&st);	/* same bytes, touched */
		*pend = 0;
		free(b);
		return 0;
	}
	*pend = len;
	if (!*since)
		*since = now_ns();
	if (!sh.js || sh.down) {
		free(b);
		return 0;
	}
	snprintf(o.host, sizeof(o.host), "%s", sh.host);
	snprintf(o.vm, sizeof(o.vm), "%s", ss->vm);
	snprintf(o.session, sizeof(o.session), "%s", ss->session);
	batch_begin();
	ret = publish_obj(&o, 0, b, len, st_gen(&st), h);
	free(b);
	if (batch_end() != UINT64_MAX || ret)
		return -EIO;
	*gen = st_gen(&st);
	*hash = h;
	*pend = 0;
	*since = 0;
	cursor_save(ss);
	return 1;
}

/*
 * Length of the stored packet at @off of a file that ends (whole packets)
 * at most at @end, or 0: the agent's resume rule (consumer.c
 * stored_len(), whole_packets()): ours, fits, comes after @prev.
 */
static uint64_t packet_at(int fd, const struct ship_sess *ss,
			  unsigned int ring, uint64_t off, uint64_t end,
			  bool have_prev, uint64_t prev, uint64_t *seq)
{
	struct gr_packet_header h;
	uint64_t ps, s = ss->subbuf_size;

	if (end - off < sizeof(h) ||
	    pread(fd, &h, sizeof(h), (off_t)off) != sizeof(h))
		return 0;
	ps = gr_stored_packet_len(&h, ring, s) * 8;
	if (!ps || ps / 8 > end - off)
		return 0;
	*seq = le64toh(h.packet_seq_num);
	if (have_prev && *seq <= prev)
		return 0;
	return ps / 8;
}

/* the end of the whole packets of stream_<ring>, walked from the cursor */
static uint64_t file_limit(struct ship_sess *ss, unsigned int ring, int fd,
			   uint64_t size)
{
	struct ship_file *f = &ss->files[ring];
	uint64_t done, gen0, gen1, off, seq, prev, len;
	bool any;

	if (mark_lookup(ss->vm, ss->session, ring, &done, &gen0))
		return done < size ? done : size;
	off = f->off;
	prev = f->seq;
	any = f->any;
	while ((len = packet_at(fd, ss, ring, off, size, any, prev, &seq))) {
		off += len;
		prev = seq;
		any = true;
	}
	/* registered meanwhile: the loop may be writing past the walk */
	if (mark_lookup(ss->vm, ss->session, ring, &done, &gen1) ||
	    gen1 != gen0)
		return done < off ? done : off;
	return off;
}

/* count the packets of the backlog, walking only what is new */
static void file_scan(struct ship_sess *ss, unsigned int ring, int fd)
{
	struct ship_file *f = &ss->files[ring];
	uint64_t seq, len;

	if (f->scan_off < f->off || f->scan_off > f->limit) {
		f->scan_off = f->off;
		f->scan_seq = f->seq;
		f->scan_pkts = 0;
	}
	while (f->scan_off < f->limit &&
	       (len = packet_at(fd, ss, ring, f->scan_off, f->limit,
				f->any || f->scan_off > f->off, f->scan_seq,
				&seq))) {
		f->scan_off += len;
		f->scan_seq = seq;
		f->scan_pkts++;
	}
	if (f->off < f->limit && !f->since_ns)
		f->since_ns = now_ns();
	if (f->off >= f->limit)
		f->since_ns = 0;
}

static int grow_buf(uint64_t len)
{
	uint8_t *b;

	if (len <= sh.buf_cap)
		return 0;
	b = realloc(sh.buf, len);
	if (!b)
		return -ENOMEM;
	sh.buf = b;
	sh.buf_cap = len;
	return 0;
}

/* send one batch of stream_<ring>'s packets; 1 if any moved the cursor */
static int ship_stream(struct ship_sess *ss, unsigned int ring, int fd)
{
	struct ship_file *f = &ss->files[ring];
	struct gr_obj o = { .kind = GR_OBJ_STREAM, .ring = ring };
	uint64_t offs[SHIP_BATCH + 1], seqs[SHIP_BATCH];
	uint64_t off = f->off, prev = f->seq, seq, len, bytes = 0, fail;
	unsigned int n = 0, k;
	bool any = f->any;

	snprintf(o.host, sizeof(o.host), "%s", sh.host);
	snprintf(o.vm, sizeof(o.vm), "%s", ss->vm);
	snprintf(o.session, sizeof(o.session), "%s", ss->session);
	batch_begin();
	while (n < SHIP_BATCH && bytes < SHIP_BATCH_BYTES &&
	       (len = packet_at(fd, ss, ring, off, f->limit, any, prev,
				&seq))) {
		if (grow_buf(len) ||
		    pread(fd, sh.buf, len, (off_t)off) != (ssize_t)len ||
		    publish_obj(&o, off, sh.buf, len, seq, 0))
			break;
		offs[n] = off;
		seqs[n] = seq;
		n++;
		off += len;
		bytes += len;
		prev = seq;
		any = true;
	}
	offs[n] = off;
	if (!n) {
		batch_end();
		return 0;
	}
	fail = batch_end();
	for (k = 0; k < n && offs[k] < fail && offs[k + 1] <= fail; k++)
		;
	if (!k)
		return 0;
	f->scan_pkts = f->scan_pkts >= k ? f->scan_pkts - k : 0;
	f->off = offs[k];
	f->seq = seqs[k - 1];
	f->any = true;
	if (f->off >= f->limit)
		f->since_ns = 0;
	else
		f->since_ns = now_ns();
	cursor_save(ss);
	return 1;
}

/* Return: 1 if something was sent */
static int ship_session(struct ship_sess *ss, int vm_fd)
{
	int dfd, sent = 0, r;
	unsigned int i;

	dfd = openat(vm_fd, ss->session, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		     O_CLOEXEC);
	if (dfd < 0)
		return 0;
	/* .guestrelay first (the collector checks packets with it) */
	r = ship_version(ss, dfd, GR_OBJ_INFO);
	if (r < 0 || !ss->subbuf_size) {
		close(dfd);
		return 0;
	}
	sent |= r > 0;
	r = ship_version(ss, dfd, GR_OBJ_METADATA);
	if (r < 0) {
		close(dfd);
		return sent;
	}
	sent |= r > 0;
	for (i = 0; i < ss->nr_rings; i++) {
		char name[GR_CTF_STREAM_NAME_MAX];
		struct stat st;
		int fd;

		snprintf(name, sizeof(name), GR_CTF_STREAM_FMT, i);
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
			ss->files[i].limit = file_limit(ss, i, fd,
							(uint64_t)st.st_size);
			if (sh.js && !sh.down &&
			    ss->files[i].off < ss->files[i].limit)
				sent |= ship_stream(ss, i, fd);
			file_scan(ss, i, fd);
		}
		close(fd);
	}
	close(dfd);
	return sent;
}

static struct ship_sess *sess_get(const char *vm, const char *session)
{
	struct ship_sess *ss;

	for (ss = sh.sessions; ss; ss = ss->next)
		if (!strcmp(ss->vm, vm) && !strcmp(ss->session, session))
			return ss;
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return NULL;
	if (strlen(vm) >= sizeof(ss->vm) ||
	    strlen(session) >= sizeof(ss->session)) {
		free(ss);
		return NULL;
	}
	memcpy(ss->vm, vm, strlen(vm) + 1);
	memcpy(ss->session, session, strlen(session) + 1);
	cursor_load(ss);
	ss->next = sh.sessions;
	sh.sessions = ss;
	return ss;
}

/* the backlog of every VM, for ship_backlog() */
static void publish_snapshot(void)
{
	struct ship_vm_backlog *v = NULL, *t;
	unsigned int n = 0, i, k;
	struct ship_sess *ss;

	for (ss = sh.sessions; ss; ss = ss->next) {
		for (k = 0; k < n && strcmp(v[k].vm, ss->vm); k++)
			;
		if (k == n) {
			t = realloc(v, (n + 1) * sizeof(*v));
			if (!t)
				break;
			v = t;
			memset(&v[n], 0, sizeof(v[n]));
			snprintf(v[n].vm, sizeof(v[n].vm), "%s", ss->vm);
			n++;
		}
		v[k].bytes += ss->meta_pending + ss->info_pending;
		v[k].packets += (ss->meta_pending != 0) +
				(ss->info_pending != 0);
		for (i = 0; i < 2; i++) {
			uint64_t s = i ? ss->meta_since : ss->info_since;

			if (s && (!v[k].since_ns || s < v[k].since_ns))
				v[k].since_ns = s;
		}
		for (i = 0; ss->files && i < ss->nr_rings; i++) {
			struct ship_file *f = &ss->files[i];

			if (f->limit <= f->off)
				continue;
			v[k].bytes += f->limit - f->off;
			v[k].packets += f->scan_pkts;
			if (f->since_ns && (!v[k].since_ns ||
					    f->since_ns < v[k].since_ns))
				v[k].since_ns = f->since_ns;
		}
	}
	pthread_mutex_lock(&sh.lock);
	free(sh.snap);
	sh.snap = v;
	sh.nsnap = n;
	pthread_mutex_unlock(&sh.lock);
}

/* one walk of the store; Return: 1 if something was sent */
static int pass(void)
{
	struct dirent *de, *se;
	int sent = 0;
	DIR *d = opendir(sh.store);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		int vfd;
		DIR *sd;

		if (de->d_name[0] == '.' || ivsh_shm_check_name(de->d_name))
			continue;
		vfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
			     O_NOFOLLOW | O_CLOEXEC);
		if (vfd < 0)
			continue;
		sd = fdopendir(vfd);
		if (!sd) {
			close(vfd);
			continue;
		}
		while ((se = readdir(sd))) {
			struct ship_sess *ss;

			if (!gr_dir_name_ok(se->d_name))
				continue;
			ss = sess_get(de->d_name, se->d_name);
			if (ss)
				sent |= ship_session(ss, dirfd(sd));
		}
		closedir(sd);
	}
	closedir(d);
	publish_snapshot();
	return sent;
}

static void *ship_thread(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts;
		int sent;

		pthread_mutex_lock(&sh.lock);
		if (sh.stop) {
			pthread_mutex_unlock(&sh.lock);
			break;
		}
		pthread_mutex_unlock(&sh.lock);
		if (sh.nc && natsConnection_Status(sh.nc) !=
			     NATS_CONN_STATUS_CONNECTED) {
			if (!sh.down)
				outage("connection", NATS_CONNECTION_DISCONNECTED);
			set_connected(false);
		} else if (sh.nc && sh.down && now_ns() >= sh.next_try_ns) {
			/* libnats reconnected: the stream may be new */
			if (ensure_stream() == NATS_OK) {
				syslog(LOG_INFO, "ship: NATS reachable again; catching up");
				sh.down = false;
				sh.backoff_ms = 0;
				set_connected(true);
			} else {
				sh.down = false;
				outage("stream", NATS_ERR);
			}
		}
		if (!sh.nc && now_ns() >= sh.next_try_ns)
			try_connect();
		sent = pass();
		if (sent && !sh.down)
			continue;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += SHIP_PASS_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&sh.lock);
		if (!sh.stop)
			pthread_cond_timedwait(&sh.cond, &sh.lock, &ts);
		pthread_mutex_unlock(&sh.lock);
	}
	return NULL;
}

/**
 * ship_start() - start the shipper thread (after ship_check_cfg())
 * Return: 0, or -errno with @err set.
 */
int ship_start(const struct gr_ship_cfg *cfg, char *err, size_t errlen)
{
	int ret = ship_check_cfg(cfg, err, errlen);

	if (ret)
		return ret;
	sh.cfg = *cfg;
	snprintf(sh.urls, sizeof(sh.urls), "%s", cfg->urls);
	snprintf(sh.creds, sizeof(sh.creds), "%s", cfg->creds ? cfg->creds : "");
	snprintf(sh.stream, sizeof(sh.stream), "%s", cfg->stream);
	snprintf(sh.store, sizeof(sh.store), "%s", cfg->store_dir);
	if (cfg->host)
		snprintf(sh.host, sizeof(sh.host), "%s", cfg->host);
	else
		gethostname(sh.host, sizeof(sh.host) - 1);
	sh.stop = false;
	__atomic_store_n(&ship_on, true, __ATOMIC_RELEASE);
	ret = pthread_create(&sh.thread, NULL, ship_thread, NULL);
	if (ret) {
		__atomic_store_n(&ship_on, false, __ATOMIC_RELEASE);
		snprintf(err, errlen, "ship: cannot start its thread: %s",
			 strerror(ret));
		return -ret;
	}
	sh.running = true;
	return 0;
}

/**
 * ship_stop() - stop the thread (after the loop closed its files: what
 * was written is sent by the next agent if not now)
 */
void ship_stop(void)
{
	struct ship_sess *ss;

	if (!sh.running)
		return;
	pthread_mutex_lock(&sh.lock);
	sh.stop = true;
	pthread_cond_signal(&sh.cond);
	pthread_mutex_unlock(&sh.lock);
	pthread_join(sh.thread, NULL);
	sh.running = false;
	disconnect();
	while ((ss = sh.sessions)) {
		sh.sessions = ss->next;
		free(ss->files);
		free(ss);
	}
	free(sh.buf);
	sh.buf = NULL;
	sh.buf_cap = 0;
	free(sh.snap);
	sh.snap = NULL;
	sh.nsnap = 0;
	nats_Close();
}

/**
 * ship_backlog() - what is not yet acknowledged, of one VM or of all
 * @vm: a VM's name, or NULL for the whole store
 * @b: receives it; b->enabled is false when not shipping
 *
 * Any thread; takes a mutex for a copy. Return: 0.
 */
int ship_backlog(const char *vm, struct gr_ship_backlog *b)
{
	uint64_t since = 0, now = now_ns();
	unsigned int i;

	memset(b, 0, sizeof(*b));
	if (!__atomic_load_n(&ship_on, __ATOMIC_ACQUIRE))
		return 0;
	b->enabled = true;
	pthread_mutex_lock(&sh.lock);
	b->connected = sh.connected;
	b->shipped_bytes = sh.shipped_bytes;
	b->shipped_msgs = sh.shipped_msgs;
	b->outages = sh.outages;
	for (i = 0; i < sh.nsnap; i++) {
		if (vm && strcmp(vm, sh.snap[i].vm))
			continue;
		b->bytes += sh.snap[i].bytes;
		b->packets += sh.snap[i].packets;
		if (sh.snap[i].since_ns && (!since ||
					    sh.snap[i].since_ns < since))
			since = sh.snap[i].since_ns;
	}
	pthread_mutex_unlock(&sh.lock);
	if (since && now > since)
		b->oldest_s = (double)(now - since) / 1e9;
	return 0;
}
