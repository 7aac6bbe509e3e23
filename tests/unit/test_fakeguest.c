// SPDX-License-Identifier: GPL-2.0
/*
 * test_fakeguest.c - the fake guest (tests/fakeguest) against a minimal
 * host written here: a 4 MiB memfd region with a valid gr_host_ctrl, the
 * ivshmem server of qemu-device/ driven by a host thread (which is also
 * the peer guests ring), and a tiny consumer that validates everything
 * with host-agent/validate.c and checks the records it drains.
 *
 * The fake guest runs as a child process connected with --socket, exactly
 * as the agent will meet it. Its path is $GR_FAKEGUEST, or ../fakeguest
 * next to this test's directory (the build puts both under
 * $(BUILD)/tests/); without it the test is skipped (exit 77).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gr_test.h"

#include "guestrelay_abi.h"
#include "ivshmem_proto.h"
#include "ivshmem_server.h"
#include "shm.h"
#include "validate.h"

#define REGION_SIZE	(4u << 20)
#define MAX_RINGS	8
#define MAX_CPUS	8
#define NSEC		1000000000ULL
#define ALL_FEATURES	(GR_F_EVENT_IDX | GR_F_FLIGHT | GR_F_CLOCK_SYNC | \
			 GR_F_SWITCH_TIMER | GR_F_DOORBELL)

static char fakeguest_path[PATH_MAX];

/* ---------------------------------------------------------------------- */
/* Shared memory access, as a host does it                                */

static uint64_t ld64(const void *p)
{
	return le64toh(__atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE));
}

static uint32_t ld32(const void *p)
{
	return le32toh(__atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE));
}

static void st64(void *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, htole64(v), __ATOMIC_RELEASE);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---------------------------------------------------------------------- */
/* The minimal host                                                       */

struct host_cfg {
	uint32_t subbuf_size;
	uint32_t n_subbufs;
	uint32_t switch_timer_us;
	uint64_t features;
	uint32_t tracing;
	uint64_t enable;	/* ids >= desc_count must stay clear (9.2) */
};

struct host {
	/* set up before the host thread starts */
	struct ivsh_shm shm;
	struct ivsh_server srv;
	uint8_t *r;
	struct gr_host_ctrl *ctrl;
	struct gr_guest_status *st;
	char dir[64];
	char sock[128];
	char stats[128];
	char log[128];
	pthread_t thread;
	bool thread_started;
	int self_fd[GR_NR_VECTORS];

	/* atomics shared with the test thread */
	int stop;
	int kicks;
	int pause_consume;
	int guest_id;

	/* the consumer, under lock */
	pthread_mutex_t lock;
	bool attached;
	uint64_t seen_instance;
	struct gr_view v;
	struct gr_event_view ev[GR_WIDE_MAX_EVENTS];
	uint64_t c[MAX_RINGS];
	uint64_t last_end[MAX_RINGS];
	uint64_t last_ts[MAX_RINGS];
	uint64_t next_seq[MAX_CPUS];
	uint64_t instances_seen;
	uint64_t instances_valid;
	uint64_t header_rejects;
	uint64_t counter_errors;
	uint64_t packets;
	uint64_t partial_packets;
	uint64_t dropped;
	uint64_t records;
	uint64_t bad_records;
	uint64_t bad_last;		/* rec.last_record not the last record */
	uint64_t seq_errors;
	uint64_t per_event[GR_WIDE_MAX_EVENTS];
	uint64_t data_bells;
	uint64_t status_bells;
	uint64_t consumed_bells_sent;
	bool stopped_seen;
	char first_error[256];
	char last_reject[128];
};

static void host_error(struct host *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void host_error(struct host *h, const char *fmt, ...)
{
	va_list ap;

	if (h->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(h->first_error, sizeof(h->first_error), fmt, ap);
	va_end(ap);
}

static void host_on_peer(void *data, enum ivsh_peer_change what,
			 int peer_id, int sock_fd)
{
	struct host *h = data;

	(void)sock_fd;
	if (what == IVSH_PEER_ADDED)
		__atomic_store_n(&h->guest_id, peer_id, __ATOMIC_RELEASE);
	else if (__atomic_load_n(&h->guest_id, __ATOMIC_ACQUIRE) == peer_id)
		__atomic_store_n(&h->guest_id, -1, __ATOMIC_RELEASE);
}

static struct gr_ring *host_ring(struct host *h, unsigned int r)
{
	return (struct gr_ring *)(h->r + gr_view_ring_off(&h->v, r));
}

/* Copy and check the header and the descriptors (5.3, H2-H5) */
static void host_attach(struct host *h)
{
	struct gr_region_hdr copy;
	struct gr_event_desc d;
	const char *why = NULL;
	unsigned int i;

	if (gr_read_region_hdr(h->r, REGION_SIZE, &copy))
		return;
	if (h->seen_instance == le64toh(copy.instance_id))
		return;			/* rejected before: wait for a new one */
	h->seen_instance = le64toh(copy.instance_id);
	h->instances_seen++;
	if (gr_check_region_hdr(&copy, REGION_SIZE, &h->v, &why))
		goto reject;
	if (h->v.nr_rings > MAX_RINGS) {
		why = "more rings than this test host handles";
		goto reject;
	}
	for (i = 0; i < h->v.desc_count; i++) {
		memcpy(&d, h->r + gr_view_desc_off(&h->v, i), sizeof(d));
		if (gr_check_event_desc(&h->v, &d, i, &h->ev[i], &why))
			goto reject;
	}
	if (gr_check_families(&h->v, h->ev, h->v.desc_count, &why))
		goto reject;
	for (i = 0; i < h->v.nr_rings; i++) {
		h->c[i] = ld64(&host_ring(h, i)->cons.consumed);
		h->last_end[i] = 0;
		h->last_ts[i] = 0;
		st64(&host_ring(h, i)->cons.prod_event, h->c[i]);
	}
	h->attached = true;
	h->instances_valid++;
	return;

reject:
	h->header_rejects++;
	snprintf(h->last_reject, sizeof(h->last_reject), "%s", why);
}

static void host_record(struct host *h, unsigned int r,
			const struct gr_record_view *rv, const uint8_t *p,
			const struct gr_packet_header *ph)
{
	uint32_t cpu;
	uint64_t seq;
	char tag[16];

	if (rv->timestamp < le64toh(ph->timestamp_begin) ||
	    rv->timestamp > le64toh(ph->timestamp_end) ||
	    rv->timestamp < h->last_ts[r]) {
		h->bad_records++;
		host_error(h, "record timestamp out of order in ring %u", r);
	}
	h->last_ts[r] = rv->timestamp;
	h->records++;
	h->per_event[rv->id]++;
	if (rv->id == 0) {
		memcpy(&cpu, p, 4);
		memcpy(&seq, p + 8, 8);
		cpu = le32toh(cpu);
		seq = le64toh(seq);
		snprintf(tag, sizeof(tag), "cpu%u", cpu);
		if (cpu >= MAX_CPUS || memcmp(p + 16, tag, strlen(tag) + 1)) {
			h->bad_records++;
			host_error(h, "fake_seq with cpu %u", cpu);
			return;
		}
		if (seq != h->next_seq[cpu]) {
			h->seq_errors++;
			host_error(h, "cpu %u: fake_seq %llu, expected %llu",
				   cpu, (unsigned long long)seq,
				   (unsigned long long)h->next_seq[cpu]);
		}
		h->next_seq[cpu] = seq + 1;
	} else if (rv->id == 1) {
		if (!memchr(p + 12, 0, rv->size - 16 - 12) ||
		    strncmp((const char *)p + 12, "fakeguest cpu ", 14)) {
			h->bad_records++;
			host_error(h, "fake_str without its text");
		}
	}
}

/* Walk the records of a checked packet (private copies of each header) */
/* Return: the offset of the packet's last record, 0 if none or bad */
static uint64_t host_walk(struct host *h, unsigned int r, const uint8_t *sb,
			  uint64_t bytes, const struct gr_packet_header *ph)
{
	uint8_t payload[GR_MAX_RECORD_SIZE];
	struct gr_event_header eh;
	struct gr_record_view rv;
	const char *why;
	uint64_t off = sizeof(*ph), last = 0;

	while (off < bytes) {
		if (bytes - off < sizeof(eh)) {
			h->bad_records++;
			host_error(h, "truncated record");
			return 0;
		}
		memcpy(&eh, sb + off, sizeof(eh));
		if (gr_check_event_header(&h->v, &eh, h->ev, h->v.desc_count,
					  bytes - off, &rv, &why)) {
			h->bad_records++;
			host_error(h, "record: %s", why);
			return 0;
		}
		memcpy(payload, sb + off + sizeof(eh), rv.size - sizeof(eh));
		host_record(h, r, &rv, payload, ph);
		last = off;
		off += rv.size;
	}
	return last;
}

/* One drain pass of ring @r (6.12, stream mode) */
static void host_drain(struct host *h, unsigned int r)
{
	struct gr_ring *ring = host_ring(h, r);
	struct gr_packet_header ph;
	struct gr_subbuf_rec rec, *srec;
	uint64_t p, first, ready, k, bytes, old = h->c[r];
	const char *why;
	const uint8_t *sb;
	uint32_t slot;
	int gid;

	p = ld64(&ring->prod.produced);
	if (gr_check_counters(&h->v, p, h->c[r], 0, &first, &ready, &why)) {
		h->counter_errors++;
		return;
	}
	for (k = first; k != first + ready; k++) {
		slot = gr_view_slot(&h->v, k);
		srec = (struct gr_subbuf_rec *)(h->r +
						gr_view_rec_off(&h->v, r, slot));
		sb = h->r + gr_view_subbuf_off(&h->v, r, slot);
		rec.seq = htole64(ld64(&srec->seq));
		rec.bytes = __atomic_load_n(&srec->bytes, __ATOMIC_RELAXED);
		rec.last_record = __atomic_load_n(&srec->last_record,
						  __ATOMIC_RELAXED);
		memcpy(&ph, sb, sizeof(ph));
		if (gr_check_packet(&h->v, r, k, &rec, &ph, NULL, &bytes,
				    &why) ||
		    le64toh(ph.timestamp_begin) < h->last_end[r]) {
			h->dropped++;
			continue;
		}
		h->last_end[r] = le64toh(ph.timestamp_end);
		h->packets++;
		if (bytes < h->v.subbuf_size)
			h->partial_packets++;
		/* spec 3.8, G40: the guest's last record is the walk's */
		if (host_walk(h, r, sb, bytes, &ph) !=
		    le32toh(rec.last_record)) {
			h->bad_last++;
			host_error(h, "packet %llu: last_record %u",
				   (unsigned long long)k,
				   le32toh(rec.last_record));
		}
	}
	h->c[r] = first + ready;
	if (h->c[r] != old) {
		st64(&ring->cons.consumed, h->c[r]);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		gid = __atomic_load_n(&h->guest_id, __ATOMIC_ACQUIRE);
		if (gid >= 0 && gr_need_event(ld64(&ring->prod.cons_event),
					      h->c[r], old) &&
		    !ivsh_server_notify(&h->srv, gid, GR_VEC_CONSUMED))
			h->consumed_bells_sent++;
	}
	st64(&ring->cons.prod_event, p);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void host_pass(struct host *h)
{
	const struct gr_region_hdr *hdr = (const void *)h->r;
	unsigned int r;

	pthread_mutex_lock(&h->lock);
	if (h->attached && (ld64(&hdr->magic) != GR_REGION_MAGIC ||
			    ld64(&hdr->instance_id) != h->v.instance_id)) {
		/* Withdrawn or re-published: one last pass, then re-attach */
		for (r = 0; r < h->v.nr_rings; r++)
			host_drain(h, r);
		h->attached = false;
	}
	if (!h->attached)
		host_attach(h);
	if (h->attached &&
	    !__atomic_load_n(&h->pause_consume, __ATOMIC_ACQUIRE))
		for (r = 0; r < h->v.nr_rings; r++)
			host_drain(h, r);
	if (ld32(&h->st->state) == GR_STATE_STOPPED)
		h->stopped_seen = true;
	pthread_mutex_unlock(&h->lock);
}

static void host_bell(struct host *h, unsigned int vector)
{
	uint64_t n;

	if (ivsh_eventfd_drain(h->self_fd[vector], &n))
		return;
	pthread_mutex_lock(&h->lock);
	if (vector == GR_VEC_DATA)
		h->data_bells += n;
	else
		h->status_bells += n;
	pthread_mutex_unlock(&h->lock);
}

/* The host thread: ivshmem server, doorbells and consumer in one loop */
static void *host_main(void *arg)
{
	struct host *h = arg;
	struct ivsh_fd fds[64];
	struct pollfd pfd[64];
	unsigned int n, i;
	int gid;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		n = ivsh_server_fds(&h->srv, fds, 64);
		if (n > 64)
			n = 64;
		for (i = 0; i < n; i++) {
			pfd[i].fd = fds[i].fd;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		poll(pfd, n, 2);
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (fds[i].kind == IVSH_FD_LISTEN)
				ivsh_server_accept(&h->srv);
			else if (fds[i].kind == IVSH_FD_PEER)
				ivsh_server_peer_event(&h->srv,
						       fds[i].peer_id);
			else
				host_bell(h, fds[i].vector);
		}
		gid = __atomic_load_n(&h->guest_id, __ATOMIC_ACQUIRE);
		if (gid >= 0 && __atomic_exchange_n(&h->kicks, 0,
						    __ATOMIC_ACQ_REL))
			ivsh_server_notify(&h->srv, gid, GR_VEC_CTRL);
		host_pass(h);
	}
	return NULL;
}

static void ctrl_write(struct host *h, const struct host_cfg *cfg)
{
	struct gr_host_ctrl *c = h->ctrl;

	c->abi_major = htole16(GR_ABI_MAJOR);
	c->abi_minor = htole16(GR_ABI_MINOR);
	c->ctrl_size = htole32(sizeof(*c));
	c->host_features = htole64(cfg->features);
	c->session_id = htole64(7);
	c->tracing = htole32(cfg->tracing);
	c->mode = htole32(GR_MODE_STREAM);
	memset(c->enable, 0, sizeof(c->enable));
	c->enable[0] = htole64(cfg->enable);
	c->subbuf_size = htole32(cfg->subbuf_size);
	c->n_subbufs = htole32(cfg->n_subbufs);
	c->switch_timer_us = htole32(cfg->switch_timer_us);
	c->host_peer_id = htole32(0);	/* the server's self peer */
	c->magic = htole64(GR_CTRL_MAGIC);
	st64(&c->seq, 1);
}

static int host_start(struct host *h, const struct host_cfg *cfg)
{
	const struct ivsh_server_opts opts = {
		.on_peer = host_on_peer,
		.peer_data = h,
	};
	unsigned int v;
	int ret;

	memset(h, 0, sizeof(*h));
	h->guest_id = -1;
	pthread_mutex_init(&h->lock, NULL);
	snprintf(h->dir, sizeof(h->dir), "/tmp/gr-fakeguest-XXXXXX");
	if (!mkdtemp(h->dir))
		return -errno;
	snprintf(h->sock, sizeof(h->sock), "%s/sock", h->dir);
	snprintf(h->stats, sizeof(h->stats), "%s/stats", h->dir);
	snprintf(h->log, sizeof(h->log), "%s/log", h->dir);
	ret = ivsh_shm_create_memfd(&h->shm, "gr-fakeguest", REGION_SIZE);
	if (!ret)
		ret = ivsh_shm_map(&h->shm);
	if (ret)
		return ret;
	h->r = h->shm.addr;
	h->ctrl = (struct gr_host_ctrl *)(h->r + GR_CTRL_OFFSET);
	h->st = (struct gr_guest_status *)(h->r + GR_STATUS_OFFSET);
	ctrl_write(h, cfg);
	ret = ivsh_server_init(&h->srv, h->sock, h->shm.fd, GR_NR_VECTORS,
			       &opts);
	if (ret)
		return ret;
	for (v = 0; v < GR_NR_VECTORS; v++)
		h->self_fd[v] = ivsh_server_self_eventfd(&h->srv, v);
	ret = pthread_create(&h->thread, NULL, host_main, h);
	if (ret)
		return -ret;
	h->thread_started = true;
	return 0;
}

static void host_stop(struct host *h)
{
	if (h->thread_started) {
		__atomic_store_n(&h->stop, 1, __ATOMIC_RELEASE);
		pthread_join(h->thread, NULL);
	}
	ivsh_server_finish(&h->srv);
	ivsh_shm_close(&h->shm);
	unlink(h->stats);
	unlink(h->log);
	rmdir(h->dir);
	pthread_mutex_destroy(&h->lock);
}

/* Settings changed: seq + 1 with release, then GR_VEC_CTRL (9.1) */
static uint64_t ctrl_commit(struct host *h)
{
	uint64_t seq = ld64(&h->ctrl->seq) + 1;

	st64(&h->ctrl->seq, seq);
	__atomic_fetch_add(&h->kicks, 1, __ATOMIC_RELEASE);
	return seq;
}

static uint64_t ctrl_request(struct host *h, __le64 *req)
{
	uint64_t v = ld64(req) + 1;

	st64(req, v);
	__atomic_fetch_add(&h->kicks, 1, __ATOMIC_RELEASE);
	return v;
}

static bool wait_ack(const __le64 *ack, uint64_t v, unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;

	while (now_ns() < end) {
		if (ld64(ack) == v)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* Wait until *@field (under the host lock) is at least @min */
static bool host_wait_u64(struct host *h, const uint64_t *field,
			  uint64_t min, unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000, v;

	for (;;) {
		pthread_mutex_lock(&h->lock);
		v = *field;
		pthread_mutex_unlock(&h->lock);
		if (v >= min)
			return true;
		if (now_ns() >= end)
			return false;
		sleep_ms(2);
	}
}

static uint64_t host_get(struct host *h, const uint64_t *field)
{
	uint64_t v;

	pthread_mutex_lock(&h->lock);
	v = *field;
	pthread_mutex_unlock(&h->lock);
	return v;
}

static uint64_t host_seq_records(struct host *h)
{
	return host_get(h, &h->per_event[0]);
}

static uint64_t host_other_records(struct host *h)
{
	uint64_t n;

	pthread_mutex_lock(&h->lock);
	n = h->records - h->per_event[0];
	pthread_mutex_unlock(&h->lock);
	return n;
}

/* A flush the guest acknowledged, and a host pass after it */
static bool host_flush(struct host *h)
{
	uint64_t f = ctrl_request(h, &h->ctrl->flush_req);

	if (!wait_ack(&h->st->flush_ack, f, 2000))
		return false;
	sleep_ms(20);
	return true;
}

/* ---------------------------------------------------------------------- */
/* The fake guest as a child process                                      */

static pid_t guest_spawn(struct host *h, const char *const *extra)
{
	const char *argv[64];
	unsigned int n = 0;
	pid_t pid;

	unlink(h->stats);
	argv[n++] = fakeguest_path;
	argv[n++] = "--socket";
	argv[n++] = h->sock;
	argv[n++] = "--stats";
	argv[n++] = h->stats;
	argv[n++] = "--quiet";
	argv[n++] = "--linger";
	argv[n++] = "2";
	while (*extra && n < 63)
		argv[n++] = *extra++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		/* Its messages go to a log, shown if it fails */
		int fd = open(h->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		execv(fakeguest_path, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static void guest_show_log(struct host *h)
{
	char line[256];
	FILE *f = fopen(h->log, "r");

	if (!f)
		return;
	fprintf(stderr, "\n  fakeguest log:\n");
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "    %s", line);
	fclose(f);
}

/* Return: the exit status, or -1 (killed) if it did not exit in time */
static int guest_wait(struct host *h, pid_t pid, unsigned int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;
	int status, ret;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			break;
		}
		if (now_ns() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ret = -1;
			break;
		}
		sleep_ms(5);
	}
	if (ret)
		guest_show_log(h);
	return ret;
}

static int guest_stop(struct host *h, pid_t pid)
{
	kill(pid, SIGTERM);
	return guest_wait(h, pid, 5000);
}

/* Value of @key in the guest's --stats file, or ~0 if missing */
static uint64_t stat_get(struct host *h, const char *key)
{
	char line[256], name[200];
	unsigned long long v;
	uint64_t found = ~0ULL;
	FILE *f = fopen(h->stats, "r");

	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%199s %llu", name, &v) == 2 &&
		    !strcmp(name, key)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

static uint64_t stat_idx(struct host *h, const char *pre, unsigned int i,
			 const char *key)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.%u.%s", pre, i, key);
	return stat_get(h, name);
}

static const struct host_cfg cfg_default = {
	.subbuf_size = 16384,
	.n_subbufs = 8,
	.features = ALL_FEATURES,
	.tracing = 1,
	.enable = 0xf,		/* the 4 events of --events 4 */
};

#define HOST_START(h, cfg)						\
	do {								\
		int __r = host_start((h), (cfg));			\
		CU_ASSERT_EQUAL_FATAL(__r, 0);				\
	} while (0)

/* a fake guest with @args, running; the test ends here if none started */
static pid_t guest_start(struct host *h, const char *const *args)
{
	pid_t pid = guest_spawn(h, args);

	CU_ASSERT_FATAL(pid > 0);
	return pid;
}

/* run a fake guest with @args to its end: it must exit 0 within 10 s */
static void guest_run(struct host *h, const char *const *args)
{
	pid_t pid = guest_start(h, args);

	CU_ASSERT_EQUAL(guest_wait(h, pid, 10000), 0);
}

/* ---------------------------------------------------------------------- */
/* Tests                                                                  */

static void test_publication_validates_with_identity_and_host_geometry(void)
{
	static const char *const args[] = { "--cpus", "2", "--events", "6",
					    "--rate", "200", NULL };
	struct host_cfg cfg = cfg_default;
	struct gr_region_hdr *hdr;
	bool types[4] = { false }, signed_f = false, hex_f = false;
	struct host h;
	unsigned int i, j;
	pid_t pid;

	cfg.enable = 0x3f;
	HOST_START(&h, &cfg);
	hdr = (struct gr_region_hdr *)h.r;
	hdr->instance_id = htole64(41);		/* a layout left behind */
	pid = guest_start(&h, args);
	CU_ASSERT(host_wait_u64(&h, &h.instances_valid, 1, 5000));

	pthread_mutex_lock(&h.lock);
	CU_ASSERT_EQUAL(h.header_rejects, 0);
	CU_ASSERT_EQUAL(h.v.instance_id, 42);
	CU_ASSERT_EQUAL(h.v.nr_cpus, 2);
	CU_ASSERT_EQUAL(h.v.nr_rings, 2);
	CU_ASSERT_EQUAL(h.v.subbuf_size, 16384);
	CU_ASSERT_EQUAL(h.v.n_subbufs, 8);
	CU_ASSERT_EQUAL(h.v.desc_count, 6);
	CU_ASSERT_EQUAL(h.v.clock_freq, NSEC);
	CU_ASSERT_STRING_EQUAL(h.v.clock_name, "mono_fast");
	CU_ASSERT_STRING_EQUAL(h.v.kernel_release, "fakeguest");
	CU_ASSERT(h.v.features & GR_F_DOORBELL);
	CU_ASSERT_STRING_EQUAL(h.ev[0].name, "fake_seq");
	CU_ASSERT_STRING_EQUAL(h.ev[0].fields[0].name, "cpu");
	CU_ASSERT_STRING_EQUAL(h.ev[0].fields[1].name, "seq");
	CU_ASSERT_EQUAL(h.ev[0].fields[1].offset, 8);
	CU_ASSERT_STRING_EQUAL(h.ev[0].fields[2].name, "tag");
	CU_ASSERT_EQUAL(h.ev[0].payload_size, 48);
	CU_ASSERT_STRING_EQUAL(h.ev[1].name, "fake_str");
	CU_ASSERT(h.ev[1].flags & GR_EVENT_F_VARLEN);
	for (i = 0; i < h.v.desc_count; i++) {
		for (j = 0; j < h.ev[i].nr_fields; j++) {
			types[h.ev[i].fields[j].type] = true;
			signed_f |= h.ev[i].fields[j].flags & GR_FIELD_F_SIGNED;
			hex_f |= h.ev[i].fields[j].flags & GR_FIELD_F_HEX;
		}
	}
	pthread_mutex_unlock(&h.lock);
	CU_ASSERT(types[GR_FIELD_INTEGER] && types[GR_FIELD_CHARS] &&
		  types[GR_FIELD_STRING]);
	CU_ASSERT(signed_f && hex_f);

	CU_ASSERT_EQUAL(ld32(&h.st->state), GR_STATE_TRACING);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, 1, 1000));
	CU_ASSERT_EQUAL(ld32(&h.st->mode), GR_MODE_STREAM);
	CU_ASSERT_EQUAL(ld64(&h.st->session_id), 7);
	CU_ASSERT_EQUAL(ld64(&h.st->enabled[0]), 0x3f);
	CU_ASSERT_EQUAL(ld32(&h.st->peer_id),
			(uint32_t)__atomic_load_n(&h.guest_id,
						  __ATOMIC_ACQUIRE));
	CU_ASSERT_EQUAL(ld32(&h.st->ctrl_errors), 0);

	CU_ASSERT_EQUAL(guest_stop(&h, pid), 0);
	CU_ASSERT_EQUAL(ld32(&h.st->state), GR_STATE_STOPPED);
	CU_ASSERT_EQUAL(ld64(&hdr->magic), 0);		/* withdrawn */
	CU_ASSERT_EQUAL(stat_get(&h, "instance_id"), 42);
	host_stop(&h);
}

/* After the guest exited: every record it wrote was drained and checked */
static void check_complete_run(struct host *h, unsigned int cpus,
			       uint64_t count)
{
	uint64_t total = 0, produced = 0;
	unsigned int i;

	sleep_ms(20);			/* a last host pass */
	pthread_mutex_lock(&h->lock);
	if (h->first_error[0])
		fprintf(stderr, "\n  host: %s\n", h->first_error);
	CU_ASSERT(h->stopped_seen);
	CU_ASSERT_EQUAL(h->seq_errors, 0);
	CU_ASSERT_EQUAL(h->bad_records, 0);
	CU_ASSERT_EQUAL(h->bad_last, 0);
	CU_ASSERT_EQUAL(h->dropped, 0);
	CU_ASSERT_EQUAL(h->counter_errors, 0);
	for (i = 0; i < cpus; i++)
		CU_ASSERT_EQUAL(h->next_seq[i], count);
	CU_ASSERT_EQUAL(h->per_event[0], cpus * count);
	for (i = 0; i < h->v.desc_count; i++)
		CU_ASSERT_EQUAL(h->per_event[i],
				stat_idx(h, "event", i, "written"));
	for (i = 0; i < h->v.nr_rings; i++) {
		total += stat_idx(h, "ring", i, "events");
		produced += stat_idx(h, "ring", i, "produced");
		CU_ASSERT_EQUAL(stat_idx(h, "ring", i, "lost_full"), 0);
		CU_ASSERT_EQUAL(stat_idx(h, "ring", i, "consumed"),
				stat_idx(h, "ring", i, "packet_next"));
	}
	CU_ASSERT_EQUAL(h->records, total);
	CU_ASSERT_EQUAL(h->packets, produced);
	CU_ASSERT_EQUAL(stat_get(h, "total.lost"), 0);
	for (i = 0; i < cpus; i++) {
		CU_ASSERT_EQUAL(stat_idx(h, "cpu", i, "seq_written"), count);
		CU_ASSERT_EQUAL(stat_idx(h, "cpu", i, "seq_last"), count - 1);
	}
	/* Every doorbell the guest rang arrived (eventfd counts add up) */
	CU_ASSERT(h->data_bells > 0);
	CU_ASSERT_EQUAL(h->data_bells, stat_get(h, "doorbells.data_rung"));
	CU_ASSERT_EQUAL(h->status_bells,
			stat_get(h, "doorbells.status_rung"));
	pthread_mutex_unlock(&h->lock);
}

static void test_every_fake_seq_arrives_once_in_order_without_loss(void)
{
	static const char *const args[] = { "--cpus", "2", "--rate", "2000",
					    "--count", "2000", "--size", "100",
					    NULL };
	struct host h;

	HOST_START(&h, &cfg_default);
	guest_run(&h, args);
	check_complete_run(&h, 2, 2000);
	/* 2 x 4000 records of 64 to 120 bytes in 16 KiB packets */
	CU_ASSERT(host_get(&h, &h.packets) > 20);
	host_stop(&h);
}

static void test_global_ring_keeps_the_sequence_of_every_cpu(void)
{
	static const char *const args[] = { "--cpus", "3", "--global", "--rate",
					    "1000", "--count", "1000", NULL };
	struct host h;

	HOST_START(&h, &cfg_default);
	guest_run(&h, args);
	CU_ASSERT_EQUAL(h.v.nr_rings, 1);
	CU_ASSERT(h.v.flags & GR_HDR_GLOBAL);
	check_complete_run(&h, 3, 1000);
	host_stop(&h);
}

static void test_data_doorbell_rings_for_every_subbuffer_without_event_idx(void)
{
	static const char *const args[] = { "--cpus", "2", "--rate", "4000",
					    "--count", "1500", NULL };
	struct host_cfg cfg = cfg_default;
	struct host h;
	uint64_t produced;

	cfg.features &= ~GR_F_EVENT_IDX;
	HOST_START(&h, &cfg);
	guest_run(&h, args);
	check_complete_run(&h, 2, 1500);
	produced = stat_get(&h, "total.produced");
	CU_ASSERT(produced > 5);
	CU_ASSERT_EQUAL(stat_idx(&h, "ring", 0, "doorbells") +
			stat_idx(&h, "ring", 1, "doorbells"), produced);
	/* One per sub-buffer, and the one that goes with STOPPED */
	CU_ASSERT_EQUAL(stat_get(&h, "doorbells.data_rung"), produced + 1);
	CU_ASSERT_EQUAL(host_get(&h, &h.data_bells), produced + 1);
	host_stop(&h);
}

static void test_enable_mask_and_tracing_change_what_is_written(void)
{
	static const char *const args[] = { "--cpus", "1", "--rate", "500",
					    NULL };
	struct host_cfg cfg = cfg_default;
	uint64_t seq0, other0, n, seq;
	struct host h;
	pid_t pid;

	cfg.switch_timer_us = 20000;
	HOST_START(&h, &cfg);
	pid = guest_start(&h, args);
	/* The switch timer delivers partial sub-buffers */
	CU_ASSERT(host_wait_u64(&h, &h.per_event[0], 50, 3000));
	CU_ASSERT_EQUAL(ld32(&h.st->switch_timer_us), 20000);

	/* fake_seq off: only the other events keep coming */
	h.ctrl->enable[0] = htole64(0xe);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT_EQUAL(ld64(&h.st->enabled[0]) & 1, 0);
	CU_ASSERT(host_flush(&h));
	seq0 = host_seq_records(&h);
	other0 = host_other_records(&h);
	sleep_ms(300);
	CU_ASSERT(host_flush(&h));
	CU_ASSERT_EQUAL(host_seq_records(&h), seq0);
	CU_ASSERT(host_other_records(&h) > other0 + 50);

	/* fake_seq on again: it continues where it stopped */
	h.ctrl->enable[0] = htole64(0xf);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT(host_wait_u64(&h, &h.per_event[0], seq0 + 50, 3000));

	/* tracing 0: nothing at all, state IDLE */
	h.ctrl->tracing = htole32(0);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT_EQUAL(ld32(&h.st->state), GR_STATE_IDLE);
	CU_ASSERT(host_flush(&h));
	n = host_get(&h, &h.records);
	sleep_ms(300);
	CU_ASSERT(host_flush(&h));
	CU_ASSERT_EQUAL(host_get(&h, &h.records), n);

	/* tracing 1 */
	h.ctrl->tracing = htole32(1);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT_EQUAL(ld32(&h.st->state), GR_STATE_TRACING);
	CU_ASSERT(host_wait_u64(&h, &h.records, n + 50, 3000));

	/* An invalid block (enable bit of an event that does not exist) */
	h.ctrl->enable[3] = htole64(1ULL << 63);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT_EQUAL(ld32(&h.st->ctrl_errors), 1);
	CU_ASSERT_EQUAL(ld32(&h.st->last_ctrl_error), EINVAL);
	CU_ASSERT_EQUAL(ld32(&h.st->state), GR_STATE_TRACING);

	CU_ASSERT_EQUAL(guest_stop(&h, pid), 0);
	sleep_ms(20);
	CU_ASSERT_EQUAL(host_get(&h, &h.seq_errors), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.bad_records), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.dropped), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.next_seq[0]),
			stat_idx(&h, "cpu", 0, "seq_next"));
	CU_ASSERT_EQUAL(stat_get(&h, "ctrl.rejected"), 1);
	host_stop(&h);
}

/*
 * Spec 9.2, the driver's decision (gr_pass_decide()): a host block that
 * goes away leaves the guest on its own defaults, its ack unchanged; when
 * the block is back it is applied again, under the same seq.
 */
static void test_host_block_gone_brings_the_defaults_back(void)
{
	static const char *const args[] = { "--cpus", "1", "--rate", "100",
					    "--tick-ms", "20", NULL };
	struct host h;
	uint64_t seq;
	pid_t pid;

	HOST_START(&h, &cfg_default);
	pid = guest_start(&h, args);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, 1, 2000));
	h.ctrl->enable[0] = htole64(0x2);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT(wait_ack(&h.st->enabled[0], 0x2, 2000));

	/* the host's block goes away: every event of the guest's own */
	st64(&h.ctrl->magic, 0);
	CU_ASSERT(wait_ack(&h.st->enabled[0], 0xf, 2000));
	CU_ASSERT_EQUAL(ld64(&h.st->ctrl_ack), seq);
	CU_ASSERT_EQUAL(ld32(&h.st->ctrl_errors), 0);

	/* back, same seq: the host's settings again */
	st64(&h.ctrl->magic, GR_CTRL_MAGIC);
	CU_ASSERT(wait_ack(&h.st->enabled[0], 0x2, 2000));
	CU_ASSERT_EQUAL(ld64(&h.st->ctrl_ack), seq);

	CU_ASSERT_EQUAL(guest_stop(&h, pid), 0);
	CU_ASSERT_EQUAL(stat_get(&h, "ctrl.applied"), 3);
	CU_ASSERT_EQUAL(stat_get(&h, "ctrl.rejected"), 0);
	host_stop(&h);
}

static void test_flush_request_is_acked_and_delivers_partial_subbuffers(void)
{
	static const char *const args[] = { "--cpus", "2", "--rate", "50",
					    NULL };
	struct host_cfg cfg = cfg_default;
	uint64_t f, packets;
	struct host h;
	pid_t pid;

	cfg.subbuf_size = 65536;
	HOST_START(&h, &cfg);
	pid = guest_start(&h, args);
	CU_ASSERT(host_wait_u64(&h, &h.instances_valid, 1, 5000));
	sleep_ms(400);
	/* 20 records per CPU: far from a full 64 KiB sub-buffer */
	CU_ASSERT_EQUAL(host_get(&h, &h.packets), 0);

	f = ctrl_request(&h, &h.ctrl->flush_req);
	CU_ASSERT(wait_ack(&h.st->flush_ack, f, 2000));
	CU_ASSERT(host_wait_u64(&h, &h.packets, 2, 1000));
	packets = host_get(&h, &h.packets);
	CU_ASSERT_EQUAL(host_get(&h, &h.partial_packets), packets);
	CU_ASSERT(host_get(&h, &h.next_seq[0]) >= 10);
	CU_ASSERT(host_get(&h, &h.next_seq[1]) >= 10);

	/* A second flush delivers only what came since */
	sleep_ms(200);
	f = ctrl_request(&h, &h.ctrl->flush_req);
	CU_ASSERT(wait_ack(&h.st->flush_ack, f, 2000));
	CU_ASSERT(host_wait_u64(&h, &h.packets, packets + 2, 1000));

	CU_ASSERT_EQUAL(guest_stop(&h, pid), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.seq_errors), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.dropped), 0);
	CU_ASSERT(stat_get(&h, "ctrl.flushes") >= 2);
	host_stop(&h);
}

static void test_sync_request_is_answered_with_guest_time(void)
{
	/* A 1 s tick: a quick answer can only come from the doorbell */
	static const char *const args[] = { "--cpus", "1", "--rate", "10",
					    "--tick-ms", "1000", NULL };
	uint64_t t1, t3, g, q, bells;
	struct host h;
	unsigned int i;
	pid_t pid;

	HOST_START(&h, &cfg_default);
	pid = guest_start(&h, args);
	CU_ASSERT(host_wait_u64(&h, &h.instances_valid, 1, 5000));
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, 1, 2000));
	for (i = 0; i < 5; i++) {
		bells = host_get(&h, &h.status_bells);
		t1 = now_ns();
		q = ctrl_request(&h, &h.ctrl->sync_req);
		CU_ASSERT(wait_ack(&h.st->sync_ack, q, 2000));
		t3 = now_ns();
		g = ld64(&h.st->sync_guest_time);
		/* Same machine, same CLOCK_MONOTONIC: g lies in [t1, t3] */
		CU_ASSERT(t1 <= g && g <= t3);
		CU_ASSERT(t3 - t1 < 500000000ULL);
		CU_ASSERT(host_wait_u64(&h, &h.status_bells, bells + 1, 500));
	}
	CU_ASSERT_EQUAL(guest_stop(&h, pid), 0);
	CU_ASSERT_EQUAL(stat_get(&h, "ctrl.syncs"), 5);
	CU_ASSERT(stat_get(&h, "doorbells.ctrl_received") >= 5);
	host_stop(&h);
}

static void test_reset_request_zeroes_the_lost_counters_of_a_full_ring(void)
{
	static const char *const args[] = { "--cpus", "1", "--rate", "4000",
					    NULL };
	struct host_cfg cfg = cfg_default;
	struct gr_ring *ring;
	uint64_t seq, r;
	struct host h;
	pid_t pid;

	cfg.subbuf_size = 4096;
	cfg.n_subbufs = 2;
	HOST_START(&h, &cfg);
	__atomic_store_n(&h.pause_consume, 1, __ATOMIC_RELEASE);
	pid = guest_start(&h, args);
	CU_ASSERT(host_wait_u64(&h, &h.instances_valid, 1, 5000));
	ring = (struct gr_ring *)(h.r + h.v.ring_offset);
	sleep_ms(300);
	/* Two 4 KiB sub-buffers and nobody consuming: full, dropping */
	CU_ASSERT_EQUAL(ld64(&ring->prod.produced) - ld64(&ring->cons.consumed),
			2);
	CU_ASSERT(ld64(&ring->prod.lost_full) > 100);

	h.ctrl->tracing = htole32(0);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	r = ctrl_request(&h, &h.ctrl->reset_req);
	CU_ASSERT(wait_ack(&h.st->reset_ack, r, 2000));
	CU_ASSERT_EQUAL(ld64(&ring->prod.lost_full), 0);
	/* Produced sub-buffers are the host's: the reset leaves them */
	CU_ASSERT_EQUAL(ld64(&ring->prod.produced) - ld64(&ring->cons.consumed),
			2);

	__atomic_store_n(&h.pause_consume, 0, __ATOMIC_RELEASE);
	h.ctrl->tracing = htole32(1);
	seq = ctrl_commit(&h);
	CU_ASSERT(wait_ack(&h.st->ctrl_ack, seq, 2000));
	CU_ASSERT(host_wait_u64(&h, &h.packets, 6, 3000));
	CU_ASSERT_EQUAL(guest_stop(&h, pid), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.dropped), 0);
	CU_ASSERT_EQUAL(host_get(&h, &h.bad_records), 0);
	CU_ASSERT_EQUAL(stat_get(&h, "ctrl.resets"), 1);
	CU_ASSERT(stat_idx(&h, "ring", 0, "lost_full") > 100);
	host_stop(&h);
}

static void test_hostile_packets_are_all_rejected_by_the_validator(void)
{
	static const char *const args[] = { "--cpus", "2", "--rate", "3000",
					    "--duration", "1", "--hostile",
					    "packets", "--hostile-delay", "100",
					    NULL };
	struct host_cfg cfg = cfg_default;
	uint64_t corrupted;
	struct host h;

	cfg.subbuf_size = 4096;
	cfg.n_subbufs = 16;
	HOST_START(&h, &cfg);
	guest_run(&h, args);
	sleep_ms(20);
	corrupted = stat_idx(&h, "ring", 0, "corrupted") +
		    stat_idx(&h, "ring", 1, "corrupted");
	CU_ASSERT(corrupted >= 16);	/* every kind at least twice */
	pthread_mutex_lock(&h.lock);
	CU_ASSERT_EQUAL(h.dropped, corrupted);
	CU_ASSERT(h.packets > corrupted);
	CU_ASSERT_EQUAL(h.bad_records, 0);
	CU_ASSERT(h.stopped_seen);
	pthread_mutex_unlock(&h.lock);
	host_stop(&h);
}

/*
 * Each hostile mode: the guest runs it and exits cleanly, the damage
 * shows, the host goes on. With @lag the host consumes nothing for the
 * first 400 ms, so produced packets wait in the rings (for race).
 * Returns with the host lock held.
 */
static void run_hostile(const char *kind, struct host *h, bool lag)
{
	const char *args[] = { "--cpus", "2", "--rate", "1000", "--size",
			       "1000", "--duration", "0.6", "--linger", "0.2",
			       "--hostile", kind, "--hostile-delay", "100",
			       "--hostile-period", "10", NULL };
	uint64_t steps;
	pid_t pid;

	HOST_START(h, &cfg_default);
	__atomic_store_n(&h->pause_consume, lag, __ATOMIC_RELEASE);
	pid = guest_start(h, args);
	if (lag) {
		sleep_ms(400);
		__atomic_store_n(&h->pause_consume, 0, __ATOMIC_RELEASE);
	}
	CU_ASSERT_EQUAL(guest_wait(h, pid, 10000), 0);
	steps = stat_get(h, "hostile.steps");
	if (!steps || steps == ~0ULL)
		fprintf(stderr, "\n  hostile %s: no damage done\n", kind);
	CU_ASSERT(steps > 0 && steps != ~0ULL);
	sleep_ms(20);
	pthread_mutex_lock(&h->lock);
}

static void test_hostile_publications_are_rejected_then_recovered(void)
{
	static const char *const kinds[] = { "magic", "geometry", "strings" };
	struct host h;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		run_hostile(kinds[i], &h, false);
		CU_ASSERT(h.header_rejects > 0);
		/* The cycle ends with a valid publication: attached again */
		CU_ASSERT(h.instances_valid >= 2);
		pthread_mutex_unlock(&h.lock);
		host_stop(&h);
	}
}

static void test_hostile_counters_race_flood_random_leave_host_running(void)
{
	struct host h;

	run_hostile("counters", &h, false);
	CU_ASSERT(h.counter_errors > 0);
	pthread_mutex_unlock(&h.lock);
	host_stop(&h);

	run_hostile("race", &h, true);
	CU_ASSERT(h.packets > 0);
	pthread_mutex_unlock(&h.lock);
	host_stop(&h);

	run_hostile("flood", &h, false);
	CU_ASSERT(h.data_bells > 1000);
	CU_ASSERT(h.status_bells > 1000);
	pthread_mutex_unlock(&h.lock);
	host_stop(&h);

	run_hostile("random", &h, false);
	CU_ASSERT(h.header_rejects > 0 || h.dropped > 0 ||
		  h.counter_errors > 0);
	pthread_mutex_unlock(&h.lock);
	host_stop(&h);
}

/* ---------------------------------------------------------------------- */

static int find_fakeguest(void)
{
	const char *env = getenv("GR_FAKEGUEST");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(fakeguest_path, sizeof(fakeguest_path), "%s", env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return -1;
		self[n] = 0;
		snprintf(fakeguest_path, sizeof(fakeguest_path),
			 "%s/../fakeguest", dirname(self));
	}
	return access(fakeguest_path, X_OK);
}

static const struct gr_test tests[] = {
	GR_TEST(test_publication_validates_with_identity_and_host_geometry),
	GR_TEST(test_every_fake_seq_arrives_once_in_order_without_loss),
	GR_TEST(test_global_ring_keeps_the_sequence_of_every_cpu),
	GR_TEST(test_data_doorbell_rings_for_every_subbuffer_without_event_idx),
	GR_TEST(test_enable_mask_and_tracing_change_what_is_written),
	GR_TEST(test_host_block_gone_brings_the_defaults_back),
	GR_TEST(test_flush_request_is_acked_and_delivers_partial_subbuffers),
	GR_TEST(test_sync_request_is_answered_with_guest_time),
	GR_TEST(test_reset_request_zeroes_the_lost_counters_of_a_full_ring),
	GR_TEST(test_hostile_packets_are_all_rejected_by_the_validator),
	GR_TEST(test_hostile_publications_are_rejected_then_recovered),
	GR_TEST(test_hostile_counters_race_flood_random_leave_host_running),
};

int main(void)
{
	if (find_fakeguest())
		return gr_test_skip("fakeguest not found at %s (build it, or "
				    "set GR_FAKEGUEST)", fakeguest_path);
	signal(SIGPIPE, SIG_IGN);
	return gr_test_main("fakeguest", tests, GR_ARRAY_SIZE(tests), NULL,
			    NULL);
}
