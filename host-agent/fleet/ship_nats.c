// SPDX-License-Identifier: GPL-2.0
/*
 * ship_nats.c - the shipper's connection to JetStream: connecting,
 * publishing a batch and waiting for its acknowledgements, outages, and
 * the agent's own message ids
 *
 * Liveness: every NATS connection pings its server every
 * --nats-ping-ms (1 s) and drops it after --nats-max-pings (2)
 * unanswered pings (nats_opts.c), so an idle connection to a hung or
 * partitioned server is given up within (max pings + 1) x interval. A
 * batch whose acknowledgements stop coming for --ship-ack-timeout-ms
 * (2 s) makes the shipper close the connection
 * and connect again, the server that stalled tried last: a hung server
 * costs the shipper at most the ack timeout plus the connect timeout
 * (2 s, only if it is the first one tried). While the shipper waits
 * (for acks, a connection, the stream's answer) it leaves the sessions
 * to the counter thread, which recounts the backlog every 200 ms
 * (ship.c); a second without any acknowledgement makes status and
 * /metrics say "not connected" at once.
 *
 * Outages: one is whatever stops the stream from taking packets (no
 * server, a hung server, a stream without quorum or leader, an error on
 * every publish). It starts with one line and one count; everything
 * that goes wrong while it lasts is part of it; it ends when JetStream
 * acknowledges a publish again (or answers for the stream while nothing
 * waits to be sent), said in one line once that held for SHIP_SETTLE_MS
 * (10 s): a failure meanwhile (a stream leader still being elected, the
 * hung node coming back) is the same outage. "connected" is true again
 * from the first acknowledgement.
 *
 * Message ids (subject.h) end in a tag under the agent's key,
 * <store>/.ship/id.key (16 random bytes made at the first start, mode
 * 0600; a restarted agent keeps its ids, so its resends are dropped by
 * the duplicate window). A duplicate acknowledgement for a message that
 * was never published before (beyond the cursor's published marks)
 * means someone else took its id: the packet is not in the stream. It is
 * counted (id_conflicts), logged once, and published again under a
 * fresh id ("r<N>") with the header Gr-Conflict. A duplicate of a resend
 * (published before, never acknowledged: an outage hid the answer) is
 * either our own earlier copy or someone else's message under our id;
 * check_dups() fetches the stored message by the sequence the
 * acknowledgement names and compares its bytes: only our own counts as
 * acknowledged.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "nats_opts.h"
#include "ship_int.h"

void ship_set_connected(bool c)
{
	pthread_mutex_lock(&sh.lock);
	sh.connected = c;
	pthread_mutex_unlock(&sh.lock);
}

/*
 * The start of an outage: one line, one count, whatever comes next. A
 * failure while it is settling (acks came back less than SHIP_SETTLE_MS
 * ago: a stream electing its leader after a failover, say) is the same
 * outage going on.
 */
void ship_outage_begin(const char *what, const char *detail)
{
	ship_set_connected(false);
	sh.settle_ns = 0;
	if (sh.in_outage)
		return;
	syslog(LOG_WARNING, "ship: NATS unreachable (%s%s%s); storing locally, retrying",
	       what, detail && *detail ? ": " : "", detail ? detail : "");
	sh.in_outage = true;
	sh.outage_ns = ship_now_ns();
	pthread_mutex_lock(&sh.lock);
	sh.outages++;
	pthread_mutex_unlock(&sh.lock);
}

/* JetStream acknowledges (or answers) again: the outage settles */
void ship_outage_end(void)
{
	if (sh.in_outage && !sh.settle_ns)
		sh.settle_ns = ship_now_ns();
	sh.down = false;
	sh.backoff_ms = 0;
	ship_set_connected(true);
}

/*
 * Its end line, once JetStream has answered for SHIP_SETTLE_MS without
 * a failure (a node that hung and comes back, or a stream that elects a
 * new leader, often interrupts it once more within seconds)
 */
void ship_outage_settle(void)
{
	if (!sh.in_outage || !sh.settle_ns ||
	    ship_now_ns() - sh.settle_ns < SHIP_SETTLE_MS * 1000000ULL)
		return;
	syslog(LOG_INFO, "ship: NATS reachable again after %.1f s; catching up",
	       (double)(sh.settle_ns - sh.outage_ns) / 1e9);
	sh.in_outage = false;
	sh.settle_ns = 0;
}

/*
 * Nothing is sent before the next try, 0.5 s doubling to 8 s from now;
 * to 2 s when a server answers but the stream does not (an election of
 * its leader is over within seconds, and asking costs one request)
 */
static void retry_later(void)
{
	uint64_t cap = sh.nc && natsConnection_Status(sh.nc) ==
		       NATS_CONN_STATUS_CONNECTED ? 2000 : 8000;

	sh.down = true;
	sh.backoff_ms = sh.backoff_ms ? sh.backoff_ms * 2 : 500;
	if (sh.backoff_ms > cap)
		sh.backoff_ms = cap;
	sh.next_try_ns = ship_now_ns() + sh.backoff_ms * 1000000ULL;
}

void ship_disconnect(void)
{
	__atomic_add_fetch(&sh.conn_gen, 1, __ATOMIC_RELEASE);
	jsCtx_Destroy(sh.js);
	sh.js = NULL;
	if (sh.nc) {
		natsConnection_Close(sh.nc);
		natsConnection_Destroy(sh.nc);
	}
	sh.nc = NULL;
}

static natsStatus ensure_stream(char *err, size_t errlen)
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
	if (s != NATS_NOT_FOUND) {
		gr_nats_err(s, err, errlen);
		return s;
	}
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
	} else {
		gr_nats_err(s, err, errlen);
	}
	return s;
}

/* libnats lost the connection (its thread): an outage, even if short */
static void lost_cb(natsConnection *nc, void *closure)
{
	(void)nc;
	/* not one we closed ourselves (ship_disconnect()) */
	if ((uintptr_t)closure ==
	    __atomic_load_n(&sh.conn_gen, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&sh.lost, 1, __ATOMIC_RELEASE);
}

static natsStatus connect_opts(const char *urls, const char *name,
			       const char *creds, bool in_order,
			       natsConnection **nc)
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
	if (s == NATS_OK && in_order)
		s = natsOptions_SetNoRandomize(o, true);
	if (s == NATS_OK && nc == &sh.nc)
		s = natsOptions_SetDisconnectedCB(o, lost_cb, (void *)
				(uintptr_t)__atomic_load_n(&sh.conn_gen,
							   __ATOMIC_ACQUIRE));
	if (s == NATS_OK)
		s = natsConnection_Connect(nc, o);
	natsOptions_Destroy(o);
	return s;
}

/**
 * ship_connect() - a connection to the first of @urls that answers, which
 * libnats keeps reconnecting (to any of them) for good
 * @urls: comma-separated server URLs
 * @name: the connection's name on the server
 * @creds: a credentials file (nats_opts.h), or NULL / ""
 * @nc: receives the connection
 *
 * Return: NATS_OK or the reason.
 */
natsStatus ship_connect(const char *urls, const char *name,
			const char *creds, natsConnection **nc)
{
	return connect_opts(urls, name, creds, false, nc);
}

/* the configured URLs, the one that stalled last put at the end */
static void urls_avoiding(char *out, size_t cap)
{
	size_t n = strlen(sh.avoid_url), len;
	const char *p = sh.urls, *end;
	bool last = false;

	out[0] = '\0';
	while (*p) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (n && len == n && !strncmp(p, sh.avoid_url, n))
			last = true;
		else
			snprintf(out + strlen(out), cap - strlen(out), "%s%.*s",
				 *out ? "," : "", (int)len, p);
		p += len + (end ? 1 : 0);
	}
	if (last)
		snprintf(out + strlen(out), cap - strlen(out), "%s%s",
			 *out ? "," : "", sh.avoid_url);
}

static void ack_handler(jsCtx *js, natsMsg *msg, jsPubAck *pa,
			jsPubAckErr *pae, void *closure);

void ship_try_connect(void)
{
	char urls[sizeof(sh.urls)], err[256] = "";
	jsOptions jo;
	natsStatus s;
	int64_t mp;

	urls_avoiding(urls, sizeof(urls));
	s = connect_opts(urls, "guestrelay-agent", sh.creds, sh.avoid_url[0],
			 &sh.nc);
	if (s != NATS_OK) {
		sh.nc = NULL;
		gr_nats_err(s, err, sizeof(err));
		ship_outage_begin("connect", err);
		retry_later();
		return;
	}
	jsOptions_Init(&jo);
	jo.Wait = sh.cfg.ack_timeout_ms;
	jo.PublishAsync.MaxPending = SHIP_BATCH * 4;
	jo.PublishAsync.AckHandler = ack_handler;
	s = natsConnection_JetStream(&sh.js, sh.nc, &jo);
	if (s == NATS_OK)
		s = ensure_stream(err, sizeof(err));
	if (s != NATS_OK) {
		ship_disconnect();
		ship_outage_begin("stream", err);
		retry_later();
		return;
	}
	/* headers and the message count towards max_payload */
	mp = natsConnection_GetMaxPayload(sh.nc);
	sh.chunk = mp > 4096 ? (uint32_t)(mp - 1024 > (1 << 30) ? 1 << 30 :
					   mp - 1024) : 3072;
	sh.down = false;
	if (!sh.in_outage)
		ship_set_connected(true);
}

/**
 * ship_check_connection() - before each pass: a connection libnats lost
 * starts an outage; one that came back (or a stream that did not
 * answer) is tried when its time comes; none at all is made
 */
void ship_check_connection(void)
{
	uint64_t lost = __atomic_load_n(&sh.lost, __ATOMIC_ACQUIRE);
	char err[256] = "";

	if (lost != sh.lost_seen) {
		/* even if libnats is connected again already */
		sh.lost_seen = lost;
		ship_outage_begin("connection lost", NULL);
	}
	if (sh.nc && natsConnection_Status(sh.nc) !=
		     NATS_CONN_STATUS_CONNECTED) {
		ship_outage_begin("connection lost", NULL);
		sh.down = true;
	} else if (sh.nc && sh.down && ship_now_ns() >= sh.next_try_ns) {
		/* libnats reconnected: the stream may be new */
		if (ensure_stream(err, sizeof(err)) == NATS_OK) {
			sh.down = false;
		} else {
			ship_outage_begin("stream", err);
			retry_later();
		}
	}
	if (!sh.nc && ship_now_ns() >= sh.next_try_ns)
		ship_try_connect();
}

/* in an outage with nothing to send: the stream answers, it is over */
void ship_check_stream(void)
{
	char err[256] = "";

	if (ensure_stream(err, sizeof(err)) == NATS_OK)
		ship_outage_end();
}

/* ---- the message id key ----------------------------------------------- */

/**
 * ship_key_load() - the agent's message id key, made if there is none
 * Return: 0 or -errno with @err set.
 */
int ship_key_load(char *err, size_t errlen)
{
	char path[4200], tmp[4210];
	struct stat st;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/.ship", sh.store);
	if (mkdir(path, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "ship: cannot make %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/.ship/id.key", sh.store);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    (st.st_mode & 077) ||
		    read(fd, sh.key, sizeof(sh.key)) != sizeof(sh.key))
			ret = -EINVAL;
		close(fd);
		if (ret)
			snprintf(err, errlen, "ship: %s must be %zu bytes readable by its owner only",
				 path, sizeof(sh.key));
		return ret;
	}
	if (getrandom(sh.key, sizeof(sh.key), 0) != sizeof(sh.key)) {
		snprintf(err, errlen, "ship: no random bytes for %s", path);
		return -EIO;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 || write(fd, sh.key, sizeof(sh.key)) != sizeof(sh.key) ||
	    fsync(fd) || rename(tmp, path))
		ret = -EIO;
	if (fd >= 0)
		close(fd);
	if (ret)
		snprintf(err, errlen, "ship: cannot write %s", path);
	return ret;
}

/* ---- publishing ------------------------------------------------------- */

/* was the message at @off sent as never before (under ack_lock) */
static bool fresh(uint64_t off)
{
	unsigned int i;

	if (off >= sh.fresh_from)
		return true;
	for (i = 0; i < sh.nretry; i++)
		if (sh.retry[i].off == off)
			return true;
	return false;
}

/* the object at @off was not stored: its id was taken (under ack_lock) */
static void add_conflict(uint64_t off)
{
	unsigned int i;

	for (i = 0; i < sh.nconflict && sh.conflict[i] != off; i++)
		;
	if (i == sh.nconflict && i < SHIP_BATCH)
		sh.conflict[sh.nconflict++] = off;
	else if (i == sh.nconflict && off < sh.fail_off)
		sh.fail_off = off;	/* no room: sent again */
}

static void ack_handler(jsCtx *js, natsMsg *msg, jsPubAck *pa,
			jsPubAckErr *pae, void *closure)
{
	const char *fr = NULL;
	struct gr_frame f;
	uint64_t off = 0;

	(void)js;
	(void)closure;
	if (natsMsgHeader_Get(msg, "Gr-Frame", &fr) == NATS_OK &&
	    !gr_frame_parse(fr, (uint64_t)natsMsg_GetDataLength(msg), &f))
		off = f.off;
	pthread_mutex_lock(&sh.ack_lock);
	if (pa && !pae && pa->Sequence > sh.ack_seq_hi)
		sh.ack_seq_hi = pa->Sequence;
	if (pa && !pae && pa->Duplicate && fr && fresh(off)) {
		/* never published before, yet the id was taken */
		add_conflict(off);
	} else if (pa && !pae && pa->Duplicate && fr) {
		/* ours from before, or someone else's: check_dups() */
		if (sh.ndup < SHIP_BATCH) {
			sh.dup[sh.ndup++] = (struct ship_dup){
				.off = off, .seq = pa->Sequence,
				.len = (uint64_t)natsMsg_GetDataLength(msg),
				.hash = gr_fnv64(natsMsg_GetData(msg),
						 (size_t)natsMsg_GetDataLength(msg)),
			};
		} else if (off < sh.fail_off) {
			sh.fail_off = off;	/* no room: sent again */
		}
	} else if (pa && !pae) {
		sh.acked_msgs++;
		sh.acked_bytes += (uint64_t)natsMsg_GetDataLength(msg);
	} else {
		if (off < sh.fail_off)
			sh.fail_off = off;
		if (pae && !sh.ack_err[0])
			snprintf(sh.ack_err, sizeof(sh.ack_err), "%s%s%s",
				 natsStatus_GetText(pae->Err),
				 pae->ErrText ? ": " : "",
				 pae->ErrText ? pae->ErrText : "");
	}
	pthread_mutex_unlock(&sh.ack_lock);
	natsMsg_Destroy(msg);
}

/*
 * A batch starts: offsets from @fresh_from on were never published, the
 * objects in @retry go under fresh ids; a duplicate acknowledgement of
 * those is a conflict. @retry stays valid until ship_batch_end().
 */
void ship_batch_begin(uint64_t fresh_from,
		      const struct ship_conflict *retry, unsigned int nretry)
{
	pthread_mutex_lock(&sh.ack_lock);
	sh.fail_off = UINT64_MAX;
	sh.ack_seq_hi = 0;
	sh.nconflict = 0;
	sh.ndup = 0;
	sh.fresh_from = fresh_from;
	sh.retry = retry;
	sh.nretry = nretry;
	sh.acked_msgs = sh.acked_bytes = 0;
	sh.ack_err[0] = '\0';
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

/* what the acks did not cover: pending messages count as failed */
static void fail_pending(void)
{
	natsMsgList list = { 0 };
	int i;

	if (js_PublishAsyncGetPendingList(&list, sh.js) != NATS_OK)
		return;
	for (i = 0; i < list.Count; i++) {
		const char *fr = NULL;
		struct gr_frame f;

		if (natsMsgHeader_Get(list.Msgs[i], "Gr-Frame", &fr) ==
		    NATS_OK &&
		    !gr_frame_parse(fr, (uint64_t)
				    natsMsg_GetDataLength(list.Msgs[i]), &f))
			batch_fail(f.off);
		else
			batch_fail(0);
	}
	natsMsgList_Destroy(&list);
}

/*
 * A batch's acks did not come in time: the server is hung, partitioned
 * or without a stream leader. Connect again, that server tried last.
 */
static void stalled(void)
{
	char what[400];

	sh.avoid_url[0] = '\0';
	if (sh.nc)
		natsConnection_GetConnectedUrl(sh.nc, sh.avoid_url,
					       sizeof(sh.avoid_url));
	snprintf(what, sizeof(what), "no acknowledgement within %d ms from %s",
		 sh.cfg.ack_timeout_ms,
		 sh.avoid_url[0] ? sh.avoid_url : "the server");
	ship_outage_begin(what, NULL);
	ship_disconnect();
	sh.down = true;
	sh.next_try_ns = 0;		/* another server, now */
}

/*
 * The duplicates of resends: the stream holds, at the sequence each
 * acknowledgement named, the message that took the id first. Ours (same
 * bytes) is acknowledged; another's is a conflict; one the stream no
 * longer has (its limits removed it) was stored, and counts as ours; no
 * answer (or a batch that did not complete: @ask false) leaves the object
 * to be sent again. Runs without the walk lock.
 */
static void check_dups(bool ask)
{
	struct ship_dup d[SHIP_BATCH];
	unsigned int n, i, ours = 0;
	uint64_t bytes = 0;
	jsErrCode jerr;
	jsOptions jo;
	natsMsg *m;
	natsStatus s;
	int verdict[SHIP_BATCH];

	pthread_mutex_lock(&sh.ack_lock);
	n = sh.ndup;
	memcpy(d, sh.dup, n * sizeof(*d));
	pthread_mutex_unlock(&sh.ack_lock);
	if (!n)
		return;
	jsOptions_Init(&jo);
	jo.Wait = sh.cfg.ack_timeout_ms;
	for (i = 0; i < n; i++) {
		m = NULL;
		jerr = 0;
		verdict[i] = -1;
		if (!ask)
			continue;
		s = js_GetMsg(&m, sh.js, sh.stream, d[i].seq, &jo, &jerr);
		if (s == NATS_OK)
			verdict[i] = (uint64_t)natsMsg_GetDataLength(m) ==
				d[i].len &&
				gr_fnv64(natsMsg_GetData(m), (size_t)d[i].len) ==
				d[i].hash ? 0 : 1;
		else if (jerr == JSNoMessageFoundErr)
			verdict[i] = 0;
		natsMsg_Destroy(m);
	}
	pthread_mutex_lock(&sh.ack_lock);
	for (i = 0; i < n; i++) {
		if (!verdict[i]) {
			ours++;
			bytes += d[i].len;
		} else if (verdict[i] > 0) {
			add_conflict(d[i].off);
		} else if (d[i].off < sh.fail_off) {
			sh.fail_off = d[i].off;
		}
	}
	sh.acked_msgs += ours;
	sh.acked_bytes += bytes;
	sh.ndup = 0;
	pthread_mutex_unlock(&sh.ack_lock);
}

/**
 * ship_batch_end() - wait for the acks of the batch begun last
 * @conflict: receives the offsets whose id someone else had taken
 *	(SHIP_BATCH of them at most)
 * @nconflict: receives how many
 *
 * Waits until no acknowledgement came for --ship-ack-timeout-ms (a big
 * batch that is being acknowledged is not a stalled one); after 1 s
 * without one, status says not connected. Return: the lowest offset not acknowledged
 * (UINT64_MAX if all were).
 */
uint64_t ship_batch_end(uint64_t *conflict, unsigned int *nconflict)
{
	uint64_t t = ship_now_ns(), now, quiet_ms, fail, acked, seen = 0;
	char err[sizeof(sh.ack_err)];
	bool late = false;
	jsPubOptions po;
	natsStatus s;

	jsPubOptions_Init(&po);
	po.MaxWait = SHIP_SLICE_MS;
	ship_walk_unlock();
	for (;;) {
		s = js_PublishAsyncComplete(sh.js, &po);
		if (s != NATS_TIMEOUT)
			break;
		/* late: no acknowledgement at all for a while */
		now = ship_now_ns();
		pthread_mutex_lock(&sh.ack_lock);
		acked = sh.acked_msgs + sh.nconflict + sh.ndup;
		pthread_mutex_unlock(&sh.ack_lock);
		if (acked != seen) {
			seen = acked;
			t = now;
			if (late && !sh.in_outage)
				ship_set_connected(true);
			late = false;
		}
		quiet_ms = (now - t) / 1000000;
		if (quiet_ms >= (uint64_t)sh.cfg.ack_timeout_ms)
			break;
		if (quiet_ms >= SHIP_STALL_MS && !late) {
			late = true;
			ship_set_connected(false);
		}
	}
	check_dups(s == NATS_OK);
	ship_walk_lock();
	if (s != NATS_OK)
		fail_pending();
	if (s != NATS_OK && s != NATS_TIMEOUT)
		batch_fail(0);
	pthread_mutex_lock(&sh.ack_lock);
	fail = sh.fail_off;
	*nconflict = sh.nconflict;
	memcpy(conflict, sh.conflict, sh.nconflict * sizeof(*conflict));
	sh.retry = NULL;
	sh.nretry = 0;
	acked = sh.acked_msgs;
	snprintf(err, sizeof(err), "%s", sh.ack_err);
	pthread_mutex_lock(&sh.lock);
	sh.shipped_msgs += sh.acked_msgs;
	sh.shipped_bytes += sh.acked_bytes;
	sh.id_conflicts += *nconflict;
	pthread_mutex_unlock(&sh.lock);
	sh.acked_msgs = sh.acked_bytes = 0;
	pthread_mutex_unlock(&sh.ack_lock);
	if (s == NATS_TIMEOUT) {
		stalled();
	} else if (s != NATS_OK) {
		gr_nats_err(s, err, sizeof(err));
		ship_outage_begin("publish", err);
		retry_later();
	} else if (fail != UINT64_MAX) {
		ship_outage_begin("stream unavailable", err);
		retry_later();
	} else if (acked) {
		ship_outage_end();
	} else if (late && !sh.in_outage) {
		ship_set_connected(true);
	}
	return fail;
}

/**
 * ship_publish_obj() - publish an object of @len bytes as its parts
 * @retry: 0, or the fresh id number of an object whose id was taken
 * Return: 0 or -EIO.
 */
int ship_publish_obj(const struct gr_obj *o, uint64_t off,
		     const uint8_t *data, uint64_t len, uint64_t gen,
		     uint64_t hash, uint32_t retry)
{
	char subj[GR_SUBJ_MAX], id[GR_SUBJ_MAX], taken[GR_SUBJ_MAX];
	char fr[160];
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
		memcpy(taken, id, sizeof(taken));
		if (gr_msgid_seal(id, sizeof(id), sh.key, retry) ||
		    (retry && gr_msgid_seal(taken, sizeof(taken), sh.key, 0)))
			return -EINVAL;
		s = natsMsg_Create(&m, subj, NULL, (const char *)data + from,
				   (int)n);
		if (s == NATS_OK)
			s = natsMsgHeader_Set(m, "Nats-Msg-Id", id);
		if (s == NATS_OK)
			s = natsMsgHeader_Set(m, "Gr-Frame", fr);
		if (s == NATS_OK && retry)
			s = natsMsgHeader_Set(m, "Gr-Conflict", taken);
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

/* the line said once for each object whose id someone else had taken */
void ship_conflict_log(const struct gr_obj *o, uint64_t off, uint64_t gen)
{
	char subj[GR_SUBJ_MAX];

	if (gr_subj_build(sh.stream, o, subj, sizeof(subj)))
		snprintf(subj, sizeof(subj), "%s", o->vm);
	syslog(LOG_WARNING, "ship: the message id of %s at offset %" PRIu64
	       " (seq/version %" PRIu64 ") was already taken by another publisher: the stream did not store it; republishing under a fresh id",
	       subj, off, gen);
}

/* the highest stream sequence JetStream acknowledged in this batch */
uint64_t ship_batch_seq(void)
{
	uint64_t s;

	pthread_mutex_lock(&sh.ack_lock);
	s = sh.ack_seq_hi;
	pthread_mutex_unlock(&sh.ack_lock);
	return s;
}

/**
 * ship_ack_floor() - the ack floor of the collectors' durable consumer
 * @durable: its name (--ship-prune)
 * @floor: receives the stream sequence below which (inclusive) a
 *	collector acknowledged every message, that is wrote and fsynced it
 *	(or rejected it, collect.c)
 *
 * Waits at most a second. Return: 0, or -EIO.
 */
int ship_ack_floor(const char *durable, uint64_t *floor)
{
	jsConsumerInfo *ci = NULL;
	jsErrCode jerr = 0;
	jsOptions o;

	if (!sh.js || sh.down)
		return -EIO;
	jsOptions_Init(&o);
	o.Wait = 1000;
	if (js_GetConsumerInfo(&ci, sh.js, sh.stream, durable, &o, &jerr) !=
	    NATS_OK || !ci)
		return -EIO;
	*floor = ci->AckFloor.Stream;
	jsConsumerInfo_Destroy(ci);
	return 0;
}
