// SPDX-License-Identifier: GPL-2.0
/*
 * live.c - the LTTng-live server's thread: sessions, sockets, buffers
 *
 *   loop thread                      live thread (this file, viewer.c)
 *   session_open()  -> live_session_open()    registry (registry.c, mutex)
 *   consumer: packet whole -> index entry     epoll: accept, read one
 *   session_close() -> live_session_close()   request, answer from the
 *                                             stored files, write back
 *
 * One request at a time per connection: its reply is written out before
 * the next request is read, so a viewer that stops reading holds one
 * reply (at most GR_LIVE_MAX_REPLY bytes) and nothing else; more than
 * GR_LIVE_MAX_VIEWERS connections are refused, a malformed request
 * closes its connection, and a connection silent for GR_LIVE_IDLE_S is
 * closed. Nothing here touches a VM's region or the loop's state.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "addr.h"
#include "live.h"
#include "viewer.h"

static struct {
	pthread_t thread;
	int listen_fd;
	int stop_fd;
	int epfd;
	struct live_conn *conns;
	unsigned int nconns;
	uint64_t next_conn_id;
} srv = { .listen_fd = -1, .stop_fd = -1, .epfd = -1 };

/* ---- connections -------------------------------------------------------- */

static void conn_close(struct live_conn *c)
{
	viewer_release(c);
	epoll_ctl(srv.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	live_count(offsetof(struct gr_live_stats, viewers), (uint64_t)-1);
}

static void conn_watch(struct live_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(srv.epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void accept_one(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct live_conn *c = NULL;
	unsigned int i;
	int fd, one = 1;

	fd = accept4(srv.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < srv.nconns; i++)
		if (srv.conns[i].fd < 0) {
			c = &srv.conns[i];
			break;
		}
	if (!c) {
		close(fd);
		live_count(offsetof(struct gr_live_stats, refused), 1);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->id = ++srv.next_conn_id;
	c->last_active_ns = live_now_ns();
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ev.data.ptr = c;
	if (epoll_ctl(srv.epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		c->fd = -1;
		return;
	}
	live_count(offsetof(struct gr_live_stats, accepted), 1);
	live_count(offsetof(struct gr_live_stats, viewers), 1);
}

/* write what is left of the reply; true when it is all out */
static bool conn_flush(struct live_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return false;
		if (n <= 0)
			return false;
		c->out_off += (size_t)n;
		live_count(offsetof(struct gr_live_stats, bytes), (uint64_t)n);
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	return true;
}

/*
 * Read and answer requests until the socket has no more, a reply is
 * waiting for the viewer to read, or the connection ends. Return: false
 * if it was closed.
 */
static bool conn_input(struct live_conn *c)
{
	for (;;) {
		ssize_t n;
		int r;

		if (c->out && !conn_flush(c)) {
			conn_watch(c, EPOLLOUT);
			return true;
		}
		r = viewer_request(c);
		if (r < 0) {
			live_count(offsetof(struct gr_live_stats, bad_requests),
				   1);
			conn_close(c);
			return false;
		}
		if (r > 0)
			continue;	/* answered: c->out holds the reply */
		n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len,
			 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			conn_watch(c, EPOLLIN);
			return true;
		}
		if (n <= 0) {
			conn_close(c);
			return false;
		}
		c->in_len += (size_t)n;
		c->last_active_ns = live_now_ns();
	}
}

static void close_idle(void)
{
	uint64_t now = live_now_ns();
	unsigned int i;

	for (i = 0; i < srv.nconns; i++) {
		struct live_conn *c = &srv.conns[i];

		if (c->fd >= 0 &&
		    now - c->last_active_ns > GR_LIVE_IDLE_S * 1000000000ULL) {
			conn_close(c);
			live_count(offsetof(struct gr_live_stats, idle_closed),
				   1);
		}
	}
}

static void *live_thread(void *arg)
{
	struct epoll_event evs[16];

	(void)arg;
	for (;;) {
		int n = epoll_wait(srv.epfd, evs, 16, 1000), i;

		for (i = 0; i < n; i++) {
			struct live_conn *c = evs[i].data.ptr;

			if (c == (void *)&srv.stop_fd)
				return NULL;
			if (c == (void *)&srv.listen_fd) {
				accept_one();
				continue;
			}
			if (c->fd < 0)
				continue;
			if (evs[i].events & (EPOLLERR | EPOLLHUP) &&
			    !(evs[i].events & EPOLLIN)) {
				conn_close(c);
				continue;
			}
			conn_input(c);
		}
		close_idle();
	}
	return NULL;
}

/**
 * live_start() - listen and serve on a thread of its own
 * @cfg: the address, the store and the host name
 * @err: receives the reason on failure
 * @errlen: its size
 *
 * Return: 0 or -errno.
 */
int live_start(const struct gr_live_cfg *cfg, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned int i;
	int one = 1, ret;

	if (gr_parse_addr(cfg->addr, &ss, &len)) {
		snprintf(err, errlen, "bad address '%s' (ADDR:PORT)",
			 cfg->addr);
		return -EINVAL;
	}
	ret = viewer_init(cfg->store_dir, cfg->host);
	if (ret) {
		snprintf(err, errlen, "no store at %s", cfg->store_dir);
		return ret;
	}
	srv.conns = calloc(GR_LIVE_MAX_VIEWERS, sizeof(*srv.conns));
	if (!srv.conns)
		return -ENOMEM;
	srv.nconns = GR_LIVE_MAX_VIEWERS;
	for (i = 0; i < srv.nconns; i++)
		srv.conns[i].fd = -1;
	srv.listen_fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
			       SOCK_CLOEXEC, 0);
	if (srv.listen_fd < 0)
		goto fail;
	setsockopt(srv.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(srv.listen_fd, (struct sockaddr *)&ss, len) ||
	    listen(srv.listen_fd, 64))
		goto fail;
	srv.stop_fd = eventfd(0, EFD_CLOEXEC);
	srv.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (srv.stop_fd < 0 || srv.epfd < 0)
		goto fail;
	ev.data.ptr = &srv.listen_fd;
	if (epoll_ctl(srv.epfd, EPOLL_CTL_ADD, srv.listen_fd, &ev))
		goto fail;
	ev.data.ptr = &srv.stop_fd;
	if (epoll_ctl(srv.epfd, EPOLL_CTL_ADD, srv.stop_fd, &ev))
		goto fail;
	live_registry_enable(true);
	ret = pthread_create(&srv.thread, NULL, live_thread, NULL);
	if (ret) {
		errno = ret;
		live_registry_enable(false);
		goto fail;
	}
	return 0;
fail:
	ret = -errno;
	snprintf(err, errlen, "%s: %s", cfg->addr, strerror(errno));
	if (srv.epfd >= 0)
		close(srv.epfd);
	if (srv.stop_fd >= 0)
		close(srv.stop_fd);
	if (srv.listen_fd >= 0)
		close(srv.listen_fd);
	srv.epfd = srv.stop_fd = srv.listen_fd = -1;
	free(srv.conns);
	srv.conns = NULL;
	viewer_finish();
	return ret;
}

/**
 * live_stop() - end the thread and every connection
 */
void live_stop(void)
{
	uint64_t one = 1;
	unsigned int i;

	if (srv.epfd < 0)
		return;
	if (write(srv.stop_fd, &one, sizeof(one)) != sizeof(one))
		syslog(LOG_WARNING, "live: could not stop the thread: %m");
	pthread_join(srv.thread, NULL);
	live_registry_enable(false);
	for (i = 0; i < srv.nconns; i++)
		if (srv.conns[i].fd >= 0)
			conn_close(&srv.conns[i]);
	close(srv.epfd);
	close(srv.stop_fd);
	close(srv.listen_fd);
	srv.epfd = srv.stop_fd = srv.listen_fd = -1;
	free(srv.conns);
	srv.conns = NULL;
	viewer_finish();
	live_registry_clear();
}
