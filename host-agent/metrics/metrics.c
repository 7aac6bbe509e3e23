// SPDX-License-Identifier: GPL-2.0
/*
 * metrics.c - `guestrelay agent --metrics ADDR:PORT`: GET /metrics in the
 * Prometheus text format (expo.c), served by libmicrohttpd
 *
 * Threads: none of its own. The agent's rule is that everything runs on
 * the loop's thread (agent.h), so libmicrohttpd runs there too: started
 * without MHD_USE_INTERNAL_POLLING_THREAD (its "external select" mode)
 * and with MHD_USE_EPOLL, it keeps every socket it owns (the listening
 * one and each connection) in one epoll set, and the io_uring loop polls
 * that one descriptor (IORING_OP_POLL_ADD). When it is readable, or when
 * the time MHD_get_timeout() asked for has passed (idle connections are
 * closed after a few seconds), the loop calls MHD_run(), which accepts,
 * reads and writes without blocking and calls the request handler. The
 * handler builds the page from vm_next() and vm_get_info(), the status
 * snapshot that `guestrelay status` uses, on the same thread: the figures
 * of one page are those of one moment, and no lock is needed or taken.
 *
 * A page is a few hundred bytes per VM and is built per request; at most
 * GR_METRICS_CONNS clients are served at once, each for at most
 * GR_METRICS_TIMEOUT_S seconds of silence.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <microhttpd.h>

#include "expo.h"
#include "live.h"
#include "metrics.h"
#include "ship.h"

#define GR_METRICS_CONNS	16	/* clients served at once */
#define GR_METRICS_TIMEOUT_S	10	/* an idle connection is closed */
#define GR_METRICS_RUNS		8	/* MHD_run() calls per wake-up */
#define GR_METRICS_LOG_NS	(10 * 1000000000ULL) /* a message per 10 s */

#define op_owner(op, member) \
	((struct gr_metrics *)((char *)(op) - offsetof(struct gr_metrics, member)))

struct gr_metrics {
	struct gr_op poll_op;		/* the epoll set is readable */
	struct gr_op timer_op;		/* MHD_get_timeout() has passed */
	struct gr_agent *agent;
	struct MHD_Daemon *mhd;
	int epfd;			/* MHD's epoll set */
	bool finishing;
	bool poll_failed;		/* a poll failed: said once in the log */
	char addr[INET6_ADDRSTRLEN + 16];
	char last_msg[256];		/* MHD's last message, for start-up */
	uint64_t log_ns;		/* when one was last logged */
	uint64_t log_quiet;		/* messages not logged since */
	struct gr_expo_agent ag;
};

/*
 * MHD's messages: kept for start-up errors; once running, logged at most
 * once per GR_METRICS_LOG_NS (clients can provoke them)
 */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct gr_metrics *m = cls;
	uint64_t now;
	size_t n;

	vsnprintf(m->last_msg, sizeof(m->last_msg), fmt, ap);
	n = strlen(m->last_msg);
	while (n && m->last_msg[n - 1] == '\n')
		m->last_msg[--n] = '\0';
	if (m->epfd < 0)
		return;
	now = gr_now_ns();
	if (m->log_ns && now - m->log_ns < GR_METRICS_LOG_NS) {
		m->log_quiet++;
		return;
	}
	syslog(LOG_WARNING, "metrics on %s: %s (%llu more messages not logged)",
	       m->addr, m->last_msg, (unsigned long long)m->log_quiet);
	m->log_ns = now;
	m->log_quiet = 0;
}

/* recording sessions and snapshots in <store>/<vm>/; -errno */
static int count_store(struct gr_agent *a, const char *vm,
		       uint64_t *sessions, uint64_t *snapshots)
{
	struct dirent *de;
	DIR *d;
	int fd;

	*sessions = *snapshots = 0;
	fd = openat(a->store_fd, vm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_type == DT_UNKNOWN &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISDIR(st.st_mode))
			de->d_type = DT_DIR;
		if (de->d_type != DT_DIR)
			continue;
		if (!strncmp(de->d_name, "snapshot-", 9))
			(*snapshots)++;
		else if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			(*sessions)++;
	}
	closedir(d);
	return 0;
}

/*
 * @vm's aggregation tables, read now (spec 17): none on a failed
 * allocation (the page then lacks them for this scrape)
 */
static void read_hists(struct gr_vm *vm, struct gr_expo_vm *e)
{
	int n;

	e->hists = calloc(GR_HIST_REQS, sizeof(*e->hists));
	if (!e->hists)
		return;
	n = vm_hist_read(vm, NULL, e->hists, GR_HIST_REQS);
	if (n <= 0) {
		free(e->hists);
		e->hists = NULL;
		return;
	}
	e->nr_hists = (unsigned int)n;
}

static void free_vms(struct gr_expo_vm *vms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		vm_hist_out_free(vms[i].hists, vms[i].nr_hists);
		free(vms[i].hists);
	}
	free(vms);
}

/* the page, malloc'ed (*bufp, *lenp): 0 or -ENOMEM */
static int build_page(struct gr_metrics *m, char **bufp, size_t *lenp)
{
	struct gr_agent *a = m->agent;
	struct gr_expo_vm *vms = NULL;
	struct gr_ship_backlog sb;
	struct gr_vm *vm;
	size_t n = 0, i;
	FILE *f;

	for (vm = vm_next(a, NULL); vm; vm = vm_next(a, vm))
		n++;
	if (n) {
		vms = calloc(n, sizeof(*vms));
		if (!vms)
			return -ENOMEM;
	}
	for (i = 0, vm = vm_next(a, NULL); vm && i < n;
	     vm = vm_next(a, vm), i++) {
		vm_get_info(vm, &vms[i].info);
		vms[i].store_known = !count_store(a, vm_name(vm),
						  &vms[i].sessions,
						  &vms[i].snapshots);
		read_hists(vm, &vms[i]);
	}
	f = open_memstream(bufp, lenp);
	if (!f) {
		free_vms(vms, n);
		return -ENOMEM;
	}
	live_get_stats(&m->ag.live);
	ship_backlog(NULL, &sb);
	m->ag.ship = sb.enabled;
	m->ag.ship_outages = sb.outages;
	m->ag.ship_id_conflicts = sb.id_conflicts;
	expo_page(f, &m->ag, vms, n);
	free_vms(vms, n);
	if (fclose(f)) {
		free(*bufp);
		*bufp = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* @body: malloc'ed (@mem MUST_FREE, freed here) or a literal (PERSISTENT) */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code,
			     const char *type, const char *body, size_t len,
			     enum MHD_ResponseMemoryMode mem)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	/* MHD takes a non-const pointer; it never writes to the buffer */
	r = MHD_create_response_from_buffer(len, (void *)body, mem);
	if (!r) {
		if (mem == MHD_RESPMEM_MUST_FREE)
			free((void *)body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_size, void **req_cls)
{
	static const char not_found[] = "not found; the metrics are at /metrics\n";
	static const char not_allowed[] = "only GET and HEAD\n";
	static const char no_mem[] = "out of memory\n";
	struct gr_metrics *m = cls;
	char *buf = NULL;
	size_t len = 0;

	(void)version;
	(void)upload_data;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		*upload_size = 0;	/* a body is not read */
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     not_allowed, sizeof(not_allowed) - 1,
			     MHD_RESPMEM_PERSISTENT);
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
			     sizeof(not_found) - 1, MHD_RESPMEM_PERSISTENT);
	if (build_page(m, &buf, &len))
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
			     no_mem, sizeof(no_mem) - 1,
			     MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, GR_EXPO_CONTENT_TYPE, buf, len,
		     MHD_RESPMEM_MUST_FREE);
}

/*
 * Let MHD do what is ready; then wait for its epoll set and for the time
 * it asks for. Connections it left ready (timeout 0) get another run
 * here, or a zero timer after GR_METRICS_RUNS runs.
 */
static void service(struct gr_metrics *m)
{
	MHD_UNSIGNED_LONG_LONG ms = 0;
	bool timed = false;
	int i;

	for (i = 0; i < GR_METRICS_RUNS; i++) {
		MHD_run(m->mhd);
		timed = MHD_get_timeout(m->mhd, &ms) == MHD_YES;
		if (!timed || ms)
			break;
	}
	if (!m->poll_op.busy)
		gr_loop_poll(&m->agent->loop, &m->poll_op, m->epfd, POLLIN);
	if (timed && !m->timer_op.busy)
		gr_loop_timeout(&m->agent->loop, &m->timer_op,
				(uint64_t)ms * 1000000ULL);
}

static void poll_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_metrics *m = op_owner(op, poll_op);

	(void)flags;
	if (m->finishing)
		return;
	if (res < 0) {
		/* try again in a second (timer_done()); say it once */
		if (!m->poll_failed)
			syslog(LOG_WARNING, "metrics on %s: poll: %s",
			       m->addr, strerror(-res));
		m->poll_failed = true;
		if (!m->timer_op.busy)
			gr_loop_timeout(&m->agent->loop, &m->timer_op,
					1000000000ULL);
		return;
	}
	service(m);
}

static void timer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_metrics *m = op_owner(op, timer_op);

	(void)res;
	(void)flags;
	if (!m->finishing)
		service(m);
}

/**
 * metrics_init() - serve /metrics on @addr from the loop of @a
 * @a: the agent
 * @addr: ADDR:PORT (gr_parse_addr())
 * @mp: receives the endpoint
 * @err: receives a message on failure
 * @errlen: its size
 *
 * Context: the loop's thread, before the loop runs.
 * Return: 0, -EINVAL for a bad address, -EADDRNOTAVAIL if the server could
 * not start (@err says why), -ENOMEM.
 */
int metrics_init(struct gr_agent *a, const char *addr,
		 struct gr_metrics **mp, char *err, size_t errlen)
{
	const union MHD_DaemonInfo *di;
	struct sockaddr_storage ss;
	struct gr_metrics *m;
	unsigned int flags;
	socklen_t len;

	if (gr_parse_addr(addr, &ss, &len)) {
		snprintf(err, errlen, "bad address '%s' (%s)", addr,
			 GR_ADDR_HELP);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	m->agent = a;
	m->epfd = -1;
	m->poll_op.done = poll_done;
	m->timer_op.done = timer_done;
	snprintf(m->addr, sizeof(m->addr), "%s", addr);
	if (gethostname(m->ag.host, sizeof(m->ag.host) - 1))
		snprintf(m->ag.host, sizeof(m->ag.host), "unknown");

	flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* the port is also in @ss; MHD names it in its messages */
	m->mhd = MHD_start_daemon(flags, gr_addr_port(&ss), NULL, NULL,
				  handle, m,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, m,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT,
				  (unsigned int)GR_METRICS_CONNS,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned int)GR_METRICS_TIMEOUT_S,
				  MHD_OPTION_END);
	if (!m->mhd) {
		snprintf(err, errlen, "cannot serve metrics on %s: %s", addr,
			 m->last_msg[0] ? m->last_msg : "libmicrohttpd failed");
		free(m);
		return -EADDRNOTAVAIL;
	}
	di = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!di || di->epoll_fd < 0) {
		snprintf(err, errlen,
			 "cannot serve metrics on %s: libmicrohttpd has no epoll set",
			 addr);
		MHD_stop_daemon(m->mhd);
		free(m);
		return -EADDRNOTAVAIL;
	}
	m->epfd = di->epoll_fd;
	gr_loop_poll(&a->loop, &m->poll_op, m->epfd, POLLIN);
	syslog(LOG_INFO, "metrics at http://%s/metrics", addr);
	*mp = m;
	return 0;
}

/**
 * metrics_count_pass() - count one pass of the loop
 * @m: the endpoint, or NULL (no --metrics)
 * @completions: what gr_loop_run_once() returned
 */
void metrics_count_pass(struct gr_metrics *m, int completions)
{
	if (!m)
		return;
	m->ag.loop_passes++;
	if (completions > 0)
		m->ag.loop_completions += (uint64_t)completions;
}

/**
 * metrics_finish() - stop serving; close every connection
 * @m: the endpoint, or NULL
 *
 * Cancels the endpoint's ops and runs the loop (at most 2 s) until they
 * completed, so that the loop touches nothing of it afterwards.
 *
 * Context: the loop's thread, not from a loop callback.
 */
void metrics_finish(struct gr_metrics *m)
{
	struct gr_loop *l;
	int i;

	if (!m)
		return;
	l = &m->agent->loop;
	m->finishing = true;
	gr_loop_cancel(l, &m->poll_op);
	gr_loop_cancel(l, &m->timer_op);
	for (i = 0; i < 200 && (m->poll_op.busy || m->timer_op.busy); i++)
		gr_loop_run_once(l, 10000000ULL);
	if (m->poll_op.busy || m->timer_op.busy) {
		/* the ring is torn down with the ops: keep their memory */
		syslog(LOG_WARNING, "metrics on %s: ops still in flight",
		       m->addr);
		MHD_stop_daemon(m->mhd);
		return;
	}
	MHD_stop_daemon(m->mhd);
	free(m);
}
