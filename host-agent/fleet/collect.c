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
#include "common.h"
#include "collect_int.h"
#include "nats_opts.h"
#include "ship.h"

struct col_state col;

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
		return col_reject(subj, "subject is not <stream>.<host>.<vm>.<session>.<file>, canonically encoded");
	if (natsMsgHeader_Get(m, "Gr-Frame", &fr) != NATS_OK ||
	    gr_frame_parse(fr, len, &f))
		return col_reject(subj, "no valid Gr-Frame header");
	if (f.len > col_max_len(o.kind) ||
	    (o.kind != GR_OBJ_STREAM && f.off))
		return col_reject(subj, "object too large or misplaced");
	if (f.nparts == 1)
		return col_put_object(subj, &o, &f, data, len);
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
		return col_reject(subj, "parts of one object disagree");
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
				col_reject(natsMsg_GetSubject(m),
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
			v = col_put_object(hd->subj, &o, &hd->ra.f, hd->ra.buf,
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
			 "\nconflicts %" PRIu64 "\nrebinds %" PRIu64 "\n",
			 col.received, col.packets, col.bytes, col.versions,
			 col.duplicates, col.rejected, col.waits, col.conflicts,
			 col.rebinds);
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

/*
 * bind_consumer() - connect (once) and bind the durable pull consumer,
 * creating it if the stream has none, retrying every second until it
 * works or the collector is told to stop (NULL then)
 */
static natsSubscription *bind_consumer(const char *url, const char *creds,
				       const char *stream, const char *durable,
				       const char *subj, natsConnection **nc,
				       jsCtx **js)
{
	natsSubscription *sub = NULL;
	bool told = false;
	natsStatus s;

	while (!col_stop && !sub) {
		jsSubOptions so;
		jsErrCode jerr = 0;

		s = *nc ? NATS_OK : ship_connect(url, "guestrelay-collect",
						  creds, nc);
		if (s == NATS_OK && !*js)
			s = natsConnection_JetStream(js, *nc, &col.jo);
		if (s == NATS_OK) {
			jsSubOptions_Init(&so);
			so.Stream = stream;
			so.Config.Durable = durable;
			so.Config.AckPolicy = js_AckExplicit;
			so.Config.AckWait = COL_ACK_WAIT_S * 1000000000LL;
			so.Config.MaxAckPending = 8192;
			so.Config.MaxDeliver = -1;
			s = js_PullSubscribe(&sub, *js, subj, durable, &col.jo,
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
			stream, durable, col.dir);
	return sub;
}

/*
 * consumer_gone() - the server answers and says the durable consumer (or
 * its stream) does not exist: a server that came back without its state,
 * or an operator who deleted it. Fetching from it would wait forever.
 */
static bool consumer_gone(jsCtx *js, const char *stream, const char *durable)
{
	jsConsumerInfo *ci = NULL;
	jsErrCode jerr = 0;
	natsStatus s;

	s = js_GetConsumerInfo(&ci, js, stream, durable, &col.jo, &jerr);
	if (s == NATS_OK) {
		jsConsumerInfo_Destroy(ci);
		return false;
	}
	return s == NATS_NOT_FOUND || jerr == JSConsumerNotFoundErr ||
	       jerr == JSStreamNotFoundErr;
}

/*
 * fetch_batch() - how many messages the next fetch asks for. libnats up
 * to 3.8 (Debian 12 has 3.4.1) overruns the array a fetch of BATCH fills
 * when the subscription already holds C messages at the call, with
 * BATCH / 2 <= C < BATCH: it then asks the server for BATCH - C more and
 * stops only at exactly BATCH - C in all (fixed upstream in 3.9.0, "Fix
 * heap buffer overflow in _fetch"). Messages are held there when they
 * came after a fetch gave up waiting: late answers, redeliveries after a
 * server restarted. A fetch of 1 cannot overrun (C is 0 or 1), so held
 * messages are taken one by one (take_held()); with none held, an
 * overrun would need BATCH / 2 messages to arrive between this look and
 * the fetch's own, a few instructions later, with no request of ours
 * outstanding.
 */
static int fetch_batch(natsSubscription *sub)
{
	int held = 0;

	if (natsSubscription_GetPending(sub, &held, NULL) != NATS_OK)
		return 1;
	return held ? 1 : COL_FETCH;
}

/* one fetch; its messages taken (ours then); how many, in @n */
static natsStatus fetch_take(natsSubscription *sub, int batch,
			     int64_t timeout_ms, int *n)
{
	natsMsgList list = { 0 };
	jsErrCode jerr = 0;
	natsStatus s;
	int k;

	s = natsSubscription_Fetch(&list, sub, batch, timeout_ms, &jerr);
	if (s != NATS_OK)
		return s;
	for (k = 0; k < list.Count; k++) {
		take(list.Msgs[k]);
		list.Msgs[k] = NULL;	/* ours now */
	}
	*n += list.Count;
	natsMsgList_Destroy(&list);
	return NATS_OK;
}

/*
 * take_held() - the messages the subscription holds go into the batch
 * that has @n, up to COL_FETCH in all: a fetch of 1 each (fetch_batch()),
 * but one fsync and one round of acknowledgements for them all, not one
 * per message. A fetch of 1 takes a held message without asking the
 * server; when only status messages are held it asks for 1 and waits
 * COL_HELD_WAIT_MS, and the batch ends there if nothing came.
 */
static void take_held(natsSubscription *sub, int n)
{
	int held;

	while (n < COL_FETCH && !col_stop &&
	       natsSubscription_GetPending(sub, &held, NULL) == NATS_OK &&
	       held > 0)
		if (fetch_take(sub, 1, COL_HELD_WAIT_MS, &n) != NATS_OK)
			break;
}

/*
 * consume() - fetch, store and acknowledge until told to stop, or until
 * the consumer is gone (checked once COL_LOST_CHECK_S seconds passed
 * without a message, whether the fetches timed out or failed, and then at
 * most that often): the caller
 * binds it again, which creates it anew and delivers what the stream
 * holds (already collected versions are duplicates, and dropped as such)
 */
static void consume(natsSubscription *sub, jsCtx *js, const char *stream,
		    const char *durable)
{
	uint64_t quiet_since = mono_ns(), checked = 0;

	while (!col_stop) {
		natsStatus s;
		uint64_t now;
		int n = 0;

		s = fetch_take(sub, fetch_batch(sub),
			       waiting.n || col.holds ? 100 : 1000, &n);
		if (s != NATS_OK && s != NATS_TIMEOUT)
			usleep(200000);
		if (s == NATS_OK)
			take_held(sub, n);
		batch_end(false);
		write_stats();
		now = mono_ns();
		if (s == NATS_OK) {
			quiet_since = now;
			continue;
		}
		if (now - quiet_since < COL_LOST_CHECK_S * NSEC_PER_SEC ||
		    now - checked < COL_LOST_CHECK_S * NSEC_PER_SEC)
			continue;
		checked = now;
		if (consumer_gone(js, stream, durable)) {
			col.rebinds++;
			fprintf(stderr, "guestrelay collect: the consumer %s of %s is gone (%s); binding it again\n",
				durable, stream, natsStatus_GetText(s));
			return;
		}
	}
}

/*
 * disconnect() - the connection is closed before @sub is freed: closing
 * joins its read loop, so nothing is being delivered to @sub then
 * (libnats 3.4 can deliver to a subscription another thread is freeing,
 * fixed upstream in 3.6.1); a rebind starts on a new connection
 */
static void disconnect(natsSubscription *sub, jsCtx **js, natsConnection **nc)
{
	if (*nc)
		natsConnection_Close(*nc);
	natsSubscription_Destroy(sub);
	jsCtx_Destroy(*js);
	*js = NULL;
	natsConnection_Destroy(*nc);
	*nc = NULL;
}

int collect_main(int argc, char **argv)
{
	const char *url = NULL, *store = NULL, *durable = "guestrelay-collect";
	const char *stream = GR_SHIP_DEFAULT_STREAM, *creds = NULL;
	const char *ping = NULL, *pings = NULL;
	char subj[GR_STREAM_NAME_MAX + 4];
	natsConnection *nc = NULL;
	natsSubscription *sub;
	jsCtx *js = NULL;
	struct sigaction sa;
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

	while (!col_stop) {
		sub = bind_consumer(url, creds, stream, durable, subj, &nc, &js);
		if (!sub)
			break;
		consume(sub, js, stream, durable);
		/*
		 * what is kept (waiting, parts of an object) is acknowledged
		 * through its subscription: settled before that is freed
		 */
		batch_end(true);
		write_stats();
		disconnect(sub, &js, &nc);
	}
	disconnect(NULL, &js, &nc);
	nats_Close();
	fprintf(stderr, "guestrelay collect: %" PRIu64 " packets, %" PRIu64 " versions written, %" PRIu64 " duplicates, %" PRIu64 " rejected\n",
		col.packets, col.versions, col.duplicates, col.rejected);
	return 0;
}
