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
 *   <store>/<vm>/<session>/archives/<chunk>/   each closed chunk of a
 *                                          session kept in chunks, as a
 *                                          session of its own (ship_chunk.c)
 *
 * The mark of a stream file: while the loop writes it (registered with
 * store_mark_open()), the offset below which every packet's write
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
 * Unreachable, hung or unavailable servers (ship_nats.c): the pass
 * still walks the store (the backlog stays visible) but sends nothing.
 * While the shipper waits for NATS, a second thread (count_thread())
 * walks the store every 200 ms without sending, so the backlog in status
 * and /metrics is never older than that. Nothing here deletes or changes
 * the store.
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
#include "ship_int.h"
#include "shm.h"
#include "validate.h"

/* ---- the shipper's state --------------------------------------------- */

struct ship_state sh = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.walk_lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.ack_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* a pass of the counter thread: it counts, never sends */
static __thread bool viewing;

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

const char *const ship_agent_opts[] = {
	"--ship-ack-timeout-ms", "--nats-ping-ms", "--nats-max-pings",
	"--ship-prune", NULL,
};

static int opt_int(const char *val, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(val, &end, 10);
	return errno || end == val || *end || *out < lo || *out > hi ?
	       -EINVAL : 0;
}

/**
 * ship_agent_set() - one of ship_agent_opts: the ack timeout of the
 * shipper, the ping interval and unanswered pings of every NATS
 * connection of the agent (gr_nats_set_liveness())
 * Return: 0, or -EINVAL with @err set.
 */
int ship_agent_set(struct gr_ship_cfg *cfg, const char *opt, const char *val,
		   char *err, size_t errlen)
{
	long v;

	if (!strcmp(opt, "--ship-ack-timeout-ms")) {
		if (opt_int(val, 100, 600000, &v))
			return bad_cfg(err, errlen,
				       "--ship-ack-timeout-ms: 100 to 600000");
		cfg->ack_timeout_ms = (int)v;
		return 0;
	}
	if (!strcmp(opt, "--ship-prune")) {
		if (!gr_stream_name_ok(val))
			return bad_cfg(err, errlen,
				       "--ship-prune: the collectors' durable consumer, [A-Za-z0-9_-]");
		cfg->prune_durable = val;
		return 0;
	}
	if (!strcmp(opt, "--nats-ping-ms")) {
		if (opt_int(val, 100, 3600000, &v))
			return bad_cfg(err, errlen, "--nats-ping-ms: 100 to 3600000");
		gr_nats_set_liveness((int)v, -1);
		return 0;
	}
	if (opt_int(val, 1, 100, &v))
		return bad_cfg(err, errlen, "--nats-max-pings: 1 to 100");
	gr_nats_set_liveness(-1, (int)v);
	return 0;
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

/* the names of @ss's objects on the wire (subject.h) */
static void ship_obj_names(const struct ship_sess *ss, struct gr_obj *o)
{
	snprintf(o->host, sizeof(o->host), "%s", sh.host);
	snprintf(o->vm, sizeof(o->vm), "%s", ss->vm);
	snprintf(o->session, sizeof(o->session), "%s", ss->session);
	snprintf(o->chunk, sizeof(o->chunk), "%s", ss->chunk);
}

/* the ring files of a session whose .guestrelay says it has @nr */
static void files_free(struct ship_sess *ss)
{
	unsigned int i;

	for (i = 0; ss->files && i < ss->nr_rings; i++)
		free(ss->files[i].conf);
	free(ss->files);
	ss->files = NULL;
}

static int files_alloc(struct ship_sess *ss, uint32_t nr, uint32_t subbuf)
{
	files_free(ss);
	ss->files = calloc(nr ? nr : 1, sizeof(*ss->files));
	if (!ss->files) {
		ss->nr_rings = ss->subbuf_size = 0;
		return -ENOMEM;
	}
	ss->nr_rings = nr;
	ss->subbuf_size = subbuf;
	return 0;
}

static int learn_geometry(struct ship_sess *ss, const uint8_t *b, size_t len)
{
	struct gr_ctf_info *info = calloc(1, sizeof(*info));
	const char *why;
	int ret;

	if (!info || gr_ctf_parse_info(b, len, info, &why)) {
		free(info);
		return -EINVAL;
	}
	ret = files_alloc(ss, info->view.nr_rings, info->view.subbuf_size);
	free(info);
	return ret;
}

/* a chunk: the highest stream sequence of its messages (--ship-prune) */
static void note_seq(struct ship_sess *ss)
{
	uint64_t s = ship_batch_seq();

	if (ss->chunk[0] && s > ss->seq_hi)
		ss->seq_hi = s;
}

/* publish version @gen of @o and wait; 0, or -EIO (not acknowledged) */
static int publish_version(struct ship_sess *ss, struct ship_version *v,
			   const struct gr_obj *o, const uint8_t *b,
			   size_t len, uint64_t gen, uint64_t h)
{
	struct ship_conflict retry = { .off = 0, .n = v->conflict_n };
	bool fresh = v->pub_gen != gen;
	uint64_t conflict[SHIP_BATCH];
	unsigned int nconflict;
	int ret;

	if (fresh) {
		/* never published: remember before, so that a duplicate
		 * acknowledgement can be told from a resend of ours
		 */
		v->pub_gen = gen;
		v->conflict_n = 0;
		ship_cursor_save(ss);
	}
	/* on a fresh id, a duplicate is a conflict again */
	ship_batch_begin(fresh ? 0 : UINT64_MAX, &retry, v->conflict_n ? 1 : 0);
	ret = ship_publish_obj(o, 0, b, len, gen, h, v->conflict_n);
	if (ship_batch_end(conflict, &nconflict) != UINT64_MAX || ret)
		return -EIO;
	note_seq(ss);
	if (nconflict) {
		if (!v->conflict_n)
			ship_conflict_log(o, 0, gen);
		v->conflict_n++;
		return -EIO;
	}
	return 0;
}

/*
 * metadata or .guestrelay: the version on disk, sent if its bytes differ
 * from the last acked one. Return: 1 if something was sent, 0 if not, <0.
 */
static int ship_version(struct ship_sess *ss, int dfd, enum gr_obj_kind kind)
{
	const char *name = kind == GR_OBJ_INFO ? GR_CTF_INFO : GR_CTF_METADATA;
	struct ship_version *v = kind == GR_OBJ_INFO ? &ss->info : &ss->meta;
	struct gr_obj o = { .kind = kind };
	struct stat st;
	uint8_t *b = NULL;
	size_t len = 0;
	uint64_t h;
	int ret;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -ENOENT;
	if (st_gen(&st) == v->gen) {
		v->pending = 0;
		return 0;
	}
	ret = read_all(dfd, name, kind == GR_OBJ_INFO ? GR_INFO_MAX_FILE :
			SHIP_META_MAX, &b, &len, &st);
	if (ret)
		return ret;
	if (kind == GR_OBJ_INFO && !ss->subbuf_size &&
	    learn_geometry(ss, b, len)) {
		free(b);
		return -EINVAL;
	}
	h = gr_fnv64(b, len);
	if (h == v->hash && v->gen) {
		v->gen = st_gen(&st);	/* same bytes, touched */
		v->pending = 0;
		free(b);
		return 0;
	}
	v->pending = len;
	if (!v->since)
		v->since = ship_now_ns();
	if (!sh.js || sh.down || viewing) {
		free(b);
		return 0;
	}
	ship_obj_names(ss, &o);
	ret = publish_version(ss, v, &o, b, len, st_gen(&st), h);
	free(b);
	if (ret)
		return ret;
	v->gen = st_gen(&st);
	v->hash = h;
	v->pending = 0;
	v->since = 0;
	ship_cursor_save(ss);
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

	/* a closed chunk no longer changes: no loop writes it */
	if (!ss->chunk[0] &&
	    store_mark_lookup(ss->vm, ss->session, ring, &done, &gen0))
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
	if (ss->chunk[0])
		return off;
	if (store_mark_lookup(ss->vm, ss->session, ring, &done, &gen1) ||
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
		f->since_ns = ship_now_ns();
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

/*
 * The packets of the next batch of stream_<ring> from the cursor: their
 * offsets (@offs, n + 1 of them) and sequence numbers. Return: n.
 */
static unsigned int batch_walk(struct ship_sess *ss, unsigned int ring,
			       int fd, uint64_t *offs, uint64_t *seqs)
{
	struct ship_file *f = &ss->files[ring];
	uint64_t off = f->off, prev = f->seq, seq, len, bytes = 0;
	unsigned int n = 0;
	bool any = f->any;

	while (n < SHIP_BATCH && bytes < SHIP_BATCH_BYTES &&
	       (len = packet_at(fd, ss, ring, off, f->limit, any, prev,
				&seq))) {
		offs[n] = off;
		seqs[n] = seq;
		n++;
		off += len;
		bytes += len;
		prev = seq;
		any = true;
	}
	offs[n] = off;
	return n;
}

/* the fresh id number of the packet at @off (0: its own id) */
static uint32_t conf_retry(const struct ship_file *f, uint64_t off)
{
	unsigned int i;

	for (i = 0; i < f->nconf; i++)
		if (f->conf[i].off == off)
			return f->conf[i].n;
	return 0;
}

/* the packet at @off lost its id: once more under a fresh one */
static void conf_add(struct ship_file *f, const struct gr_obj *o,
		     uint64_t off, uint64_t seq)
{
	struct ship_conflict *c;
	unsigned int i;

	for (i = 0; i < f->nconf; i++)
		if (f->conf[i].off == off) {
			f->conf[i].n++;
			return;
		}
	c = realloc(f->conf, (f->nconf + 1) * sizeof(*c));
	if (!c)
		return;		/* sent again under its own id, later */
	f->conf = c;
	f->conf[f->nconf].off = off;
	f->conf[f->nconf].n = 1;
	f->nconf++;
	ship_conflict_log(o, off, seq);
}

/* the cursor moved to f->off: what lies below is in the stream */
static void conf_trim(struct ship_file *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < f->nconf; i++)
		if (f->conf[i].off >= f->off)
			f->conf[n++] = f->conf[i];
	f->nconf = n;
}

/* send one batch of stream_<ring>'s packets; 1 if any moved the cursor */
static int ship_stream(struct ship_sess *ss, unsigned int ring, int fd)
{
	struct ship_file *f = &ss->files[ring];
	struct gr_obj o = { .kind = GR_OBJ_STREAM, .ring = ring };
	uint64_t offs[SHIP_BATCH + 1], seqs[SHIP_BATCH];
	uint64_t conflict[SHIP_BATCH], fresh = f->pub_hi, fail, len;
	unsigned int n, k, j, nconflict;

	n = batch_walk(ss, ring, fd, offs, seqs);
	if (!n)
		return 0;
	if (offs[n] > f->pub_hi && f->pub_hi != UINT64_MAX) {
		/* published from now on: said before it happens */
		f->pub_hi = offs[n];
		ship_cursor_save(ss);
	}
	ship_obj_names(ss, &o);
	ship_batch_begin(fresh, f->conf, f->nconf);
	for (k = 0; k < n; k++) {
		len = offs[k + 1] - offs[k];
		if (grow_buf(len) ||
		    pread(fd, sh.buf, len, (off_t)offs[k]) != (ssize_t)len ||
		    ship_publish_obj(&o, offs[k], sh.buf, len, seqs[k], 0,
				     conf_retry(f, offs[k])))
			break;
	}
	fail = ship_batch_end(conflict, &nconflict);
	note_seq(ss);
	if (offs[k] < fail)
		fail = offs[k];		/* not published */
	for (j = 0; j < nconflict; j++) {
		for (k = 0; k < n && offs[k] != conflict[j]; k++)
			;
		conf_add(f, &o, conflict[j], k < n ? seqs[k] : 0);
		if (conflict[j] < fail)
			fail = conflict[j];
	}
	for (k = 0; k < n && offs[k] < fail && offs[k + 1] <= fail; k++)
		;
	if (!k)
		return 0;
	f->scan_pkts = f->scan_pkts >= k ? f->scan_pkts - k : 0;
	f->off = offs[k];
	f->seq = seqs[k - 1];
	f->any = true;
	conf_trim(f);
	if (f->off >= f->limit)
		f->since_ns = 0;
	else
		f->since_ns = ship_now_ns();
	ship_cursor_save(ss);
	return 1;
}

/*
 * A closed chunk whose every file JetStream acknowledged whole is done:
 * it is not walked again, and retention may delete it (store_mark.h).
 */
static void chunk_done(struct ship_sess *ss, bool whole)
{
	if (!ss->chunk[0] || !whole || ss->info.pending || !ss->info.gen ||
	    ss->meta.pending || !ss->meta.gen)
		return;
	if (!store_chunk_shipped(ss->vm, ss->session, ss->chunk, true))
		ss->done = true;
}

/*
 * ship_session() - one pass over a flat session, or a closed chunk
 * (@ss->chunk: @vm_fd/<session>/archives/<chunk>)
 * Return: 1 if something was sent
 */
int ship_session(struct ship_sess *ss, int vm_fd)
{
	int dfd, sent = 0, r;
	unsigned int i;
	bool whole = true;

	dfd = ship_chunk_open(vm_fd, ss);
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
			if (sh.js && !sh.down && !viewing &&
			    ss->files[i].off < ss->files[i].limit)
				sent |= ship_stream(ss, i, fd);
			file_scan(ss, i, fd);
			whole &= ss->files[i].off == (uint64_t)st.st_size;
		}
		close(fd);
	}
	close(dfd);
	chunk_done(ss, whole);
	return sent;
}

void ship_sess_free(struct ship_sess *ss)
{
	files_free(ss);
	free(ss);
}

/* the state of a flat session (@chunk NULL) or a closed chunk, made */
struct ship_sess *ship_sess_get(const char *vm, const char *session,
				const char *chunk)
{
	struct ship_sess *ss;

	if (!chunk)
		chunk = "";
	for (ss = sh.sessions; ss; ss = ss->next)
		if (!strcmp(ss->vm, vm) && !strcmp(ss->session, session) &&
		    !strcmp(ss->chunk, chunk))
			return ss;
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return NULL;
	if (strlen(vm) >= sizeof(ss->vm) ||
	    strlen(session) >= sizeof(ss->session) ||
	    strlen(chunk) >= sizeof(ss->chunk)) {
		free(ss);
		return NULL;
	}
	memcpy(ss->vm, vm, strlen(vm) + 1);
	memcpy(ss->session, session, strlen(session) + 1);
	snprintf(ss->chunk, sizeof(ss->chunk), "%s", chunk);
	ship_cursor_load(ss);
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
		v[k].bytes += ss->meta.pending + ss->info.pending;
		v[k].packets += (ss->meta.pending != 0) +
				(ss->info.pending != 0);
		for (i = 0; i < 2; i++) {
			uint64_t s = i ? ss->meta.since : ss->info.since;

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
	sh.snap_ns = ship_now_ns();
}

/* one walk of the store; Return: 1 if something was sent */
static int pass(void)
{
	struct dirent *de, *se;
	int sent = 0;
	DIR *d = opendir(sh.store);

	sh.walk_no++;
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
			ss = ship_sess_get(de->d_name, se->d_name, NULL);
			if (ss)
				sent |= ship_session(ss, dirfd(sd));
			sent |= ship_chunks(dirfd(sd), de->d_name, se->d_name);
		}
		closedir(sd);
	}
	closedir(d);
	ship_chunks_forget();
	publish_snapshot();
	return sent;
}

/* wait @ms or until ship_stop(); Return: true to stop */
static bool nap(unsigned int ms)
{
	struct timespec ts;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)ms * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&sh.lock);
	if (!sh.stop)
		pthread_cond_timedwait(&sh.cond, &sh.lock, &ts);
	stop = sh.stop;
	pthread_mutex_unlock(&sh.lock);
	return stop;
}

/*
 * The counter thread: while the shipper waits for NATS (acks, a
 * connection, an answer of the stream) it holds no lock on the sessions;
 * this recounts the backlog then, so that status and /metrics are never
 * older than SHIP_COUNT_MS plus one walk, whatever the shipper waits for.
 */
static void *count_thread(void *arg)
{
	(void)arg;
	viewing = true;
	while (!nap(SHIP_COUNT_MS)) {
		ship_walk_lock();
		if (ship_now_ns() - sh.snap_ns >= SHIP_COUNT_MS * 1000000ULL)
			pass();
		ship_walk_unlock();
	}
	return NULL;
}

static bool backlog_empty(void)
{
	struct gr_ship_backlog b;

	ship_backlog(NULL, &b);
	return !b.packets;
}

static void *ship_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int sent;

		pthread_mutex_lock(&sh.lock);
		if (sh.stop) {
			pthread_mutex_unlock(&sh.lock);
			break;
		}
		pthread_mutex_unlock(&sh.lock);
		ship_check_connection();
		ship_walk_lock();
		sent = pass();
		ship_walk_unlock();
		ship_outage_settle();
		ship_chunks_collected();
		if (sent && !sh.down)
			continue;
		/* nothing to send: the outage ends if the stream answers */
		if (sh.in_outage && !sh.settle_ns && sh.js && !sh.down &&
		    backlog_empty())
			ship_check_stream();
		if (nap(SHIP_PASS_MS))
			break;
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
	if (sh.cfg.ack_timeout_ms <= 0)
		sh.cfg.ack_timeout_ms = GR_SHIP_ACK_TIMEOUT_MS;
	ret = ship_key_load(err, errlen);
	if (ret)
		return ret;
	sh.stop = false;
	store_marks_enable(true);
	store_chunk_prune_enable(cfg->prune_durable != NULL);
	ret = pthread_create(&sh.thread, NULL, ship_thread, NULL);
	if (!ret) {
		sh.running = true;
		ret = pthread_create(&sh.counter, NULL, count_thread, NULL);
		sh.counting = !ret;
		if (ret)
			ship_stop();
	}
	if (ret) {
		store_marks_enable(false);
		store_chunk_prune_enable(false);
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
	pthread_cond_broadcast(&sh.cond);
	pthread_mutex_unlock(&sh.lock);
	pthread_join(sh.thread, NULL);
	if (sh.counting)
		pthread_join(sh.counter, NULL);
	sh.running = sh.counting = false;
	ship_disconnect();
	while ((ss = sh.sessions)) {
		sh.sessions = ss->next;
		ship_sess_free(ss);
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
	uint64_t since = 0, now = ship_now_ns();
	unsigned int i;

	memset(b, 0, sizeof(*b));
	if (!store_marks_on())
		return 0;
	b->enabled = true;
	pthread_mutex_lock(&sh.lock);
	b->connected = sh.connected;
	b->shipped_bytes = sh.shipped_bytes;
	b->shipped_msgs = sh.shipped_msgs;
	b->outages = sh.outages;
	b->id_conflicts = sh.id_conflicts;
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
