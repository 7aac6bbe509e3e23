// SPDX-License-Identifier: GPL-2.0
/*
 * fleet_status.c - the agent's fleet-status publisher (fleet_status.h)
 *
 * Two sides, one mutex:
 *   - the loop (timer_done(), every interval): vm_next() and
 *     vm_get_info() and vm_hist_latency() as `status` uses them, one
 *     rendered value per VM (fleet_entry_render()) copied into a
 *     snapshot, which replaces the one still waiting, if any; the lock
 *     is held for a pointer swap;
 *   - the publisher thread: takes the newest snapshot and, outside the
 *     lock, connects if needed (binding the bucket, or creating it),
 *     puts every value and deletes the keys of VMs that are gone.
 * The libnats connection, its JetStream context and the bucket belong to
 * the thread alone. A NATS request waits at most FLEET_NATS_WAIT_MS; a
 * failed round drops the connection state and retries after a delay that
 * doubles from 1 s to 30 s (one log line per outage, one when it ends).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <nats/nats.h>

#include "fleet_entry.h"
#include "fleet_status.h"
#include "nats_opts.h"

#define FLEET_NATS_WAIT_MS	2000	/* one JetStream request */
#define FLEET_BACKOFF_MIN_MS	1000
#define FLEET_BACKOFF_MAX_MS	30000

bool (*fleet_backlog_hook)(const struct gr_vm *vm, struct fleet_backlog *b,
			   void *arg);
void *fleet_backlog_arg;

/* one refresh: every VM's key and value */
struct snap {
	unsigned int n;
	char **keys;
	char **vals;
	size_t *lens;
};

/* the loop's memory of a VM's event count, for events per second */
struct rate {
	char name[GR_VM_NAME_MAX];
	uint64_t events;
	uint64_t t_ns;
};

struct fleet {
	struct gr_op timer;		/* first member: op -> fleet */
	struct gr_agent *agent;
	struct fleet_cfg cfg;
	char creds[PATH_MAX];
	char urls[4096];
	bool finishing;
	struct gr_vm_info *info;	/* the loop's scratch (large) */
	struct rate *rates;
	unsigned int nrates;

	pthread_t thr;
	bool thr_started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct snap *pending;		/* newest snapshot, not yet taken */
	bool stop;

	/* the thread's own */
	natsConnection *nc;
	jsCtx *js;
	kvStore *kv;
	struct snap *last;		/* last published, for deletions */
	bool ttl_said;			/* the bucket's other TTL was logged */
};

static void snap_free(struct snap *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->keys[i]);
		free(s->vals[i]);
	}
	free(s->keys);
	free(s->vals);
	free(s->lens);
	free(s);
}

/* ---- options ---------------------------------------------------------- */

const char fleet_agent_usage[] =
	"  --host NAME           this host's name in fleet status (default:\n"
	"                        the hostname)\n"
	"  --fleet-status URL[,URL...]\n"
	"                        publish every VM's status to the JetStream\n"
	"                        key-value bucket of these NATS servers\n"
	"                        (nats:// or tls://; see guestrelay fleet)\n"
	"  --fleet-creds FILE    NATS credentials: lines user/password,\n"
	"                        token, nkey/seed (KEY VALUE or KEY=VALUE, as\n"
	"                        --ship-creds), or a .creds file; mode o-r\n"
	"  --fleet-bucket NAME   bucket (default " FLEET_BUCKET_DEFAULT ")\n"
	"  --fleet-interval-ms MS  refresh interval (default 3000, 500-60000)\n"
	"  --fleet-ttl SECONDS   entries of a silent host expire after this\n"
	"                        (default 15, at least 2 intervals)\n"
	"  --fleet-replicas N    replicas of the bucket if it is created\n"
	"                        (default 1, at most 5)\n";

void fleet_cfg_init(struct fleet_cfg *c)
{
	memset(c, 0, sizeof(*c));
	if (gethostname(c->host, sizeof(c->host) - 1) || !c->host[0])
		snprintf(c->host, sizeof(c->host), "unknown");
	snprintf(c->bucket, sizeof(c->bucket), "%s", FLEET_BUCKET_DEFAULT);
	c->interval_ms = FLEET_INTERVAL_MS;
	c->ttl_s = FLEET_TTL_S;
	c->replicas = 1;
}

static int opt_u32(const char *opt, const char *val, unsigned long lo,
		   unsigned long hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || end == val || *end || *val == '-' || v < lo || v > hi) {
		fprintf(stderr, "guestrelay agent: %s wants %lu to %lu, not "
			"'%s'\n", opt, lo, hi, val);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static bool bucket_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= FLEET_BUCKET_MAX)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_-") == n;
}

const char *const fleet_agent_opts[] = {
	"--host", "--fleet-status", "--fleet-creds", "--fleet-bucket",
	"--fleet-interval-ms", "--fleet-ttl", "--fleet-replicas", NULL,
};

int fleet_agent_set(struct fleet_cfg *c, const char *opt, const char *val)
{
	char err[256];
	uint32_t u;

	if (!strcmp(opt, "--host")) {
		if (!fleet_name_ok(val)) {
			fprintf(stderr, "guestrelay agent: --host: 1 to %d "
				"bytes of printable UTF-8 text (no control "
				"characters, no backslash)\n",
				FLEET_HOST_MAX - 1);
			return -1;
		}
		snprintf(c->host, sizeof(c->host), "%s", val);
	} else if (!strcmp(opt, "--fleet-status")) {
		if (gr_nats_check_urls(val, err, sizeof(err))) {
			fprintf(stderr, "guestrelay agent: --fleet-status: %s\n",
				err);
			return -1;
		}
		c->urls = val;
	} else if (!strcmp(opt, "--fleet-creds")) {
		c->creds = val;
	} else if (!strcmp(opt, "--fleet-bucket")) {
		if (!bucket_ok(val)) {
			fprintf(stderr, "guestrelay agent: --fleet-bucket: "
				"1 to %d of [A-Za-z0-9_-]\n",
				FLEET_BUCKET_MAX - 1);
			return -1;
		}
		snprintf(c->bucket, sizeof(c->bucket), "%s", val);
	} else if (!strcmp(opt, "--fleet-interval-ms")) {
		return opt_u32(opt, val, 500, 60000, &c->interval_ms);
	} else if (!strcmp(opt, "--fleet-ttl")) {
		return opt_u32(opt, val, 1, 86400, &c->ttl_s);
	} else {
		if (opt_u32(opt, val, 1, 5, &u))
			return -1;
		c->replicas = (int)u;
	}
	return 0;
}

/* ---- the loop's side -------------------------------------------------- */

/* events per second of @in since the last refresh, -1 if not known */
static double rate_of(struct fleet *f, struct rate *now, unsigned int n,
		      const struct gr_vm_info *in, uint64_t t)
{
	unsigned int i;

	snprintf(now[n].name, sizeof(now[n].name), "%s", in->name);
	now[n].events = in->st.guest_events;
	now[n].t_ns = t;
	for (i = 0; i < f->nrates; i++) {
		if (strcmp(f->rates[i].name, in->name))
			continue;
		if (t <= f->rates[i].t_ns ||
		    in->st.guest_events < f->rates[i].events)
			return -1;	/* a new session counts from 0 */
		return (double)(in->st.guest_events - f->rates[i].events) *
			1e9 / (double)(t - f->rates[i].t_ns);
	}
	return -1;
}

static int snap_add(struct snap *s, const char *host,
		    const struct gr_vm_info *in, double eps,
		    const struct fleet_backlog *b, const struct fleet_cfg *c)
{
	char key[FLEET_KEY_MAX];
	size_t size = 0;
	char *buf = NULL;
	FILE *m;
	int ret;

	ret = fleet_key_encode(host, in->name, key, sizeof(key));
	if (ret)
		return ret;
	m = open_memstream(&buf, &size);
	if (!m)
		return -ENOMEM;
	ret = fleet_entry_render(m, host, in, eps, b, c->interval_ms,
				 c->ttl_s);
	if (fclose(m) || ret || !buf) {
		free(buf);
		return ret ? ret : -ENOMEM;
	}
	s->keys[s->n] = strdup(key);
	if (!s->keys[s->n]) {
		free(buf);
		return -ENOMEM;
	}
	s->vals[s->n] = buf;
	s->lens[s->n] = size;
	s->n++;
	return 0;
}

/* every VM's value, on the loop; NULL if out of memory */
static struct snap *snap_take(struct fleet *f)
{
	struct gr_agent *a = f->agent;
	struct fleet_backlog b;
	struct rate *rates;
	struct snap *s;
	struct gr_vm *vm;
	unsigned int n = 0;
	uint64_t t = gr_now_ns();
	double eps;
	bool shipped;

	for (vm = vm_next(a, NULL); vm; vm = vm_next(a, vm))
		n++;
	s = calloc(1, sizeof(*s));
	rates = calloc(n ? n : 1, sizeof(*rates));
	if (s) {
		s->keys = calloc(n ? n : 1, sizeof(*s->keys));
		s->vals = calloc(n ? n : 1, sizeof(*s->vals));
		s->lens = calloc(n ? n : 1, sizeof(*s->lens));
	}
	if (!s || !rates || !s->keys || !s->vals || !s->lens) {
		free(rates);
		snap_free(s);
		return NULL;
	}
	for (vm = vm_next(a, NULL); vm && s->n < n; vm = vm_next(a, vm)) {
		memset(f->info, 0, sizeof(*f->info));	/* as `status` */
		vm_get_info(vm, f->info);
		vm_hist_latency(vm, f->info);
		f->info->name[sizeof(f->info->name) - 1] = '\0';
		eps = rate_of(f, rates, s->n, f->info, t);
		shipped = fleet_backlog_hook &&
			fleet_backlog_hook(vm, &b, fleet_backlog_arg);
		if (snap_add(s, f->cfg.host, f->info, eps,
			     shipped ? &b : NULL, &f->cfg)) {
			free(rates);
			snap_free(s);
			return NULL;
		}
	}
	free(f->rates);
	f->rates = rates;
	f->nrates = s->n;
	return s;
}

static void timer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct fleet *f = (struct fleet *)op;
	struct snap *s, *old;

	(void)res;
	(void)flags;
	if (f->finishing)
		return;
	s = snap_take(f);
	if (s) {
		pthread_mutex_lock(&f->mu);
		old = f->pending;	/* not taken in time: the newest wins */
		f->pending = s;
		pthread_cond_signal(&f->cv);
		pthread_mutex_unlock(&f->mu);
		snap_free(old);
	}
	gr_loop_timeout(&f->agent->loop, &f->timer,
			(uint64_t)f->cfg.interval_ms * 1000000ULL);
}

/* ---- the publisher thread --------------------------------------------- */

static void nats_drop(struct fleet *f)
{
	kvStore_Destroy(f->kv);
	jsCtx_Destroy(f->js);
	natsConnection_Destroy(f->nc);
	f->kv = NULL;
	f->js = NULL;
	f->nc = NULL;
	snap_free(f->last);
	f->last = NULL;
}

/*
 * an existing bucket keeps the TTL it was created with: say so once if it
 * is not this agent's (entries then expire sooner or later than asked)
 */
static void check_ttl(struct fleet *f)
{
	kvStatus *st = NULL;
	int64_t ttl;

	if (f->ttl_said || kvStore_Status(&st, f->kv) != NATS_OK)
		return;
	ttl = kvStatus_TTL(st);
	kvStatus_Destroy(st);
	if (ttl == (int64_t)f->cfg.ttl_s * 1000000000LL)
		return;
	f->ttl_said = true;
	syslog(ttl && ttl < 2000000LL * f->cfg.interval_ms ?
	       LOG_WARNING : LOG_NOTICE,
	       "fleet status: bucket %s has a TTL of %.1f s, not --fleet-ttl "
	       "%u s: kept%s", f->cfg.bucket, (double)ttl / 1e9,
	       f->cfg.ttl_s, ttl && ttl < 2000000LL * f->cfg.interval_ms ?
	       " (shorter than two intervals: entries may vanish between "
	       "refreshes)" : "");
}

/* connect, bind the bucket or create it; a libnats status */
static natsStatus nats_up(struct fleet *f, char *err, size_t errlen)
{
	natsOptions *o = NULL;
	jsOptions jo;
	kvConfig kc;
	natsStatus s;

	if (gr_nats_options(&o, f->urls, f->creds[0] ? f->creds : NULL,
			    "guestrelay agent fleet-status", err, errlen))
		return NATS_INVALID_ARG;
	s = natsConnection_Connect(&f->nc, o);
	natsOptions_Destroy(o);
	if (s == NATS_OK) {
		jsOptions_Init(&jo);
		jo.Wait = FLEET_NATS_WAIT_MS;
		s = natsConnection_JetStream(&f->js, f->nc, &jo);
	}
	if (s == NATS_OK) {
		s = js_KeyValue(&f->kv, f->js, f->cfg.bucket);
		if (s == NATS_NOT_FOUND) {
			kvConfig_Init(&kc);
			kc.Bucket = f->cfg.bucket;
			kc.Description = "guestrelay fleet status";
			kc.History = 1;
			kc.TTL = (int64_t)f->cfg.ttl_s * 1000000000LL;	/* ns */
			kc.MaxValueSize = FLEET_VALUE_MAX;
			kc.Replicas = f->cfg.replicas;
			kc.StorageType = js_FileStorage;
			s = js_CreateKeyValue(&f->kv, f->js, &kc);
		}
	}
	if (s != NATS_OK && !err[0])
		gr_nats_err(s, err, errlen);
	if (s == NATS_OK)
		check_ttl(f);
	return s;
}

/* is @key among the first @n keys of @s */
static bool has_key(const struct snap *s, const char *key)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->keys[i], key))
			return true;
	return false;
}

/* one round: every value put, gone VMs deleted; a libnats status */
static natsStatus publish(struct fleet *f, struct snap *s, char *err,
			  size_t errlen)
{
	natsStatus st = NATS_OK;
	unsigned int i;

	if (!f->kv)
		st = nats_up(f, err, errlen);
	for (i = 0; st == NATS_OK && i < s->n; i++)
		st = kvStore_Put(NULL, f->kv, s->keys[i], s->vals[i],
				 (int)s->lens[i]);
	for (i = 0; st == NATS_OK && f->last && i < f->last->n; i++)
		if (!has_key(s, f->last->keys[i]))
			st = kvStore_Delete(f->kv, f->last->keys[i]);
	if (st != NATS_OK) {
		if (!err[0])
			gr_nats_err(st, err, errlen);
		return st;
	}
	snap_free(f->last);
	f->last = s;
	return NATS_OK;
}

/* wait until @ms passed or the publisher stops; the lock is held */
static void wait_ms(struct fleet *f, unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (!f->stop && pthread_cond_timedwait(&f->cv, &f->mu, &ts) !=
	       ETIMEDOUT)
		;
}

static void *publisher(void *arg)
{
	struct fleet *f = arg;
	unsigned int backoff = 0;
	uint64_t down_since = 0;
	char err[256];
	struct snap *s;

	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->stop && !f->pending)
			pthread_cond_wait(&f->cv, &f->mu);
		if (f->stop)
			break;
		s = f->pending;
		f->pending = NULL;
		pthread_mutex_unlock(&f->mu);

		err[0] = '\0';
		if (publish(f, s, err, sizeof(err)) == NATS_OK) {
			if (down_since)
				syslog(LOG_INFO, "fleet status: publishing to "
				       "NATS again (bucket %s), after %.0f s",
				       f->cfg.bucket,
				       (double)(gr_now_ns() - down_since) / 1e9);
			down_since = 0;
			backoff = 0;
			pthread_mutex_lock(&f->mu);
			continue;
		}
		if (!down_since) {
			down_since = gr_now_ns();
			syslog(LOG_WARNING, "fleet status: cannot publish to "
			       "NATS (bucket %s): %s; retrying, said again "
			       "when it works", f->cfg.bucket, err);
		}
		nats_drop(f);
		backoff = backoff ? backoff * 2 : FLEET_BACKOFF_MIN_MS;
		if (backoff > FLEET_BACKOFF_MAX_MS)
			backoff = FLEET_BACKOFF_MAX_MS;
		pthread_mutex_lock(&f->mu);
		if (!f->pending)
			f->pending = s;	/* nothing newer: retry this one */
		else
			snap_free(s);
		wait_ms(f, backoff);
	}
	pthread_mutex_unlock(&f->mu);
	nats_drop(f);
	return NULL;
}

/* ---- start and stop --------------------------------------------------- */

static void fleet_free(struct fleet *f)
{
	snap_free(f->pending);
	free(f->rates);
	free(f->info);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

int fleet_init(struct gr_agent *a, const struct fleet_cfg *c,
	       struct fleet **fp, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	natsOptions *o = NULL;
	sigset_t all, old;
	struct fleet *f;
	int ret;

	*fp = NULL;
	if (!c->urls)
		return 0;
	/* the credentials are checked now, once, where errors are seen */
	ret = gr_nats_options(&o, c->urls, c->creds, "check", err, errlen);
	natsOptions_Destroy(o);
	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->info = calloc(1, sizeof(*f->info)))) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->agent = a;
	f->cfg = *c;
	snprintf(f->urls, sizeof(f->urls), "%s", c->urls);
	if (c->creds && realpath(c->creds, f->creds) == NULL)
		snprintf(f->creds, sizeof(f->creds), "%s", c->creds);
	f->cfg.urls = f->urls;
	f->cfg.creds = f->creds[0] ? f->creds : NULL;
	if (f->cfg.ttl_s * 1000ULL < 2ULL * f->cfg.interval_ms) {
		snprintf(err, errlen, "--fleet-ttl %u s is shorter than two "
			 "intervals of %u ms", f->cfg.ttl_s,
			 f->cfg.interval_ms);
		free(f->info);
		free(f);
		return -EINVAL;
	}
	f->timer.done = timer_done;
	pthread_mutex_init(&f->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&f->cv, &ca);
	pthread_condattr_destroy(&ca);

	/* no signal for this thread or libnats' threads: the loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&f->thr, NULL, publisher, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		snprintf(err, errlen, "fleet status thread: %s",
			 strerror(ret));
		fleet_free(f);
		return -ret;
	}
	f->thr_started = true;
	/* the first refresh soon, so that a new agent shows up at once */
	gr_loop_timeout(&a->loop, &f->timer, 100000000ULL);
	syslog(LOG_INFO, "fleet status: host %s, bucket %s, every %u ms, "
	       "TTL %u s", f->cfg.host, f->cfg.bucket, f->cfg.interval_ms,
	       f->cfg.ttl_s);
	*fp = f;
	return 0;
}

void fleet_finish(struct fleet *f)
{
	struct gr_loop *l;
	int i;

	if (!f)
		return;
	l = &f->agent->loop;
	f->finishing = true;
	gr_loop_cancel(l, &f->timer);
	for (i = 0; i < 200 && f->timer.busy; i++)
		gr_loop_run_once(l, 10000000ULL);
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	if (f->thr_started)
		pthread_join(f->thr, NULL);
	if (f->timer.busy) {
		/* the ring is torn down with the op: keep its memory */
		syslog(LOG_WARNING, "fleet status: timer still in flight");
		return;
	}
	fleet_free(f);
}
