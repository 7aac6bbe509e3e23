// SPDX-License-Identifier: GPL-2.0
/*
 * ivshmem_server.c - the server side of the ivshmem protocol
 *
 * Peer lifetime, as seen by the other peers:
 *
 *   accept4 -> id allocated -> greeting sent -> added (on_peer ADDED)
 *           -> announced to the others (id x vectors, with eventfds)
 *   ...
 *   EOF / data / error / send failure / disconnect()
 *           -> removed (on_peer REMOVED, socket closed)
 *           -> disconnect notice (id, no fd) to the others
 *           -> eventfds closed, id free again
 *
 * A send that fails while announcing or notifying only marks the target
 * peer dead; reap_dead() removes dead peers (which may mark more) before
 * any public function returns, so no recursion and no half-removed peer
 * is ever visible to the owner.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ivshmem_server.h"
#include "shm.h"

#define LISTEN_BACKLOG	16

#define srv_log(srv, prio, ...) \
	ivsh_logf((srv)->log, (srv)->log_data, prio, __VA_ARGS__)

static bool id_used(const struct ivsh_server *srv, unsigned int id)
{
	return srv->id_map[id / 64] & (1ULL << (id % 64));
}

static void id_set(struct ivsh_server *srv, unsigned int id)
{
	srv->id_map[id / 64] |= 1ULL << (id % 64);
}

static void id_clear(struct ivsh_server *srv, unsigned int id)
{
	srv->id_map[id / 64] &= ~(1ULL << (id % 64));
}

/* next free id at or after the cursor, wrapping; the cursor moves past it */
static int id_alloc(struct ivsh_server *srv)
{
	unsigned int n = srv->max_id + 1;
	unsigned int i, id;

	for (i = 0; i < n; i++) {
		id = srv->next_id;
		srv->next_id = (srv->next_id + 1) % n;
		if (!id_used(srv, id)) {
			id_set(srv, id);
			return (int)id;
		}
	}
	return -ENOSPC;
}

static int peer_index(const struct ivsh_server *srv, int id)
{
	unsigned int i;

	for (i = 0; i < srv->nr_peers; i++)
		if (srv->peers[i]->id == id)
			return (int)i;
	return -ENOENT;
}

/* a client or the self peer */
static const struct ivsh_peer *find_any(const struct ivsh_server *srv, int id)
{
	int i;

	if (id == srv->self.id)
		return &srv->self;
	i = peer_index(srv, id);
	return i < 0 ? NULL : srv->peers[i];
}

static void close_eventfds(struct ivsh_peer *p, unsigned int vectors)
{
	unsigned int v;

	for (v = 0; v < vectors; v++) {
		if (p->eventfds[v] >= 0)
			close(p->eventfds[v]);
		p->eventfds[v] = -1;
	}
}

static int create_eventfds(struct ivsh_peer *p, unsigned int vectors)
{
	unsigned int v;
	int ret;

	for (v = 0; v < IVSH_MAX_VECTORS; v++)
		p->eventfds[v] = -1;
	for (v = 0; v < vectors; v++) {
		p->eventfds[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (p->eventfds[v] < 0) {
			ret = -errno;
			close_eventfds(p, vectors);
			return ret;
		}
	}
	return 0;
}

static void mark_dead(struct ivsh_server *srv, struct ivsh_peer *p,
		      const char *what, int err)
{
	if (p->dead)
		return;
	p->dead = 1;
	srv_log(srv, LOG_WARNING,
		"ivshmem peer %d (pid %d): could not send %s: %s; disconnecting",
		p->id, (int)p->pid, what, strerror(-err));
}

/* tell every live client but @p itself that @p exists, with its eventfds */
static void announce(struct ivsh_server *srv, const struct ivsh_peer *p)
{
	unsigned int i, v;
	int ret;

	for (i = 0; i < srv->nr_peers; i++) {
		struct ivsh_peer *q = srv->peers[i];

		if (q == p || q->dead)
			continue;
		for (v = 0; v < srv->vectors; v++) {
			ret = ivsh_send_msg(q->sock_fd, p->id, p->eventfds[v],
					    srv->send_timeout_ms);
			if (ret) {
				mark_dead(srv, q, "a connect notice", ret);
				break;
			}
		}
	}
}

/* take @srv->peers[idx] out, tell the others, free it */
static void remove_peer(struct ivsh_server *srv, unsigned int idx)
{
	struct ivsh_peer *p = srv->peers[idx];
	unsigned int i;
	int ret;

	memmove(&srv->peers[idx], &srv->peers[idx + 1],
		(srv->nr_peers - idx - 1) * sizeof(srv->peers[0]));
	srv->nr_peers--;

	if (srv->on_peer)
		srv->on_peer(srv->peer_data, IVSH_PEER_REMOVED, p->id,
			     p->sock_fd);
	close(p->sock_fd);

	for (i = 0; i < srv->nr_peers; i++) {
		struct ivsh_peer *q = srv->peers[i];

		if (q->dead)
			continue;
		ret = ivsh_send_msg(q->sock_fd, p->id, -1, srv->send_timeout_ms);
		if (ret)
			mark_dead(srv, q, "a disconnect notice", ret);
	}

	close_eventfds(p, srv->vectors);
	id_clear(srv, (unsigned int)p->id);
	free(p);
}

static void reap_dead(struct ivsh_server *srv)
{
	unsigned int i;

again:
	for (i = 0; i < srv->nr_peers; i++) {
		if (srv->peers[i]->dead) {
			remove_peer(srv, i);
			goto again;
		}
	}
}

static int send_greeting(struct ivsh_server *srv, struct ivsh_peer *p)
{
	int tmo = srv->send_timeout_ms;
	unsigned int i, v;
	int ret;

	ret = ivsh_send_msg(p->sock_fd, IVSH_PROTOCOL_VERSION, -1, tmo);
	if (!ret)
		ret = ivsh_send_msg(p->sock_fd, p->id, -1, tmo);
	if (!ret)
		ret = ivsh_send_msg(p->sock_fd, IVSH_MSG_SHM, srv->shm_fd, tmo);
	for (v = 0; !ret && v < srv->vectors; v++)
		ret = ivsh_send_msg(p->sock_fd, srv->self.id,
				    srv->self.eventfds[v], tmo);
	for (i = 0; !ret && i < srv->nr_peers; i++) {
		const struct ivsh_peer *q = srv->peers[i];

		if (q->dead)
			continue;
		for (v = 0; !ret && v < srv->vectors; v++)
			ret = ivsh_send_msg(p->sock_fd, q->id, q->eventfds[v],
					    tmo);
	}
	for (v = 0; !ret && v < srv->vectors; v++)
		ret = ivsh_send_msg(p->sock_fd, p->id, p->eventfds[v], tmo);
	return ret;
}

/**
 * ivsh_clear_stale_socket() - remove a socket file nobody listens on
 * @path: a socket path about to be bound
 *
 * A server killed with SIGKILL may go on accepting for a moment (its
 * io_uring and sockets are torn down asynchronously), so a connection
 * that succeeds is checked too: if the listener's pid (SO_PEERCRED) is
 * dead, the socket is stale.
 *
 * Context: process context.
 * Return: 0 if @path is free now; -EEXIST if it is not a socket;
 * -EADDRINUSE if a live process listens on it; or another -errno.
 */
int ivsh_clear_stale_socket(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ucred uc = { .pid = 0 };
	socklen_t len = sizeof(uc);
	struct stat st;
	int fd, ret;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(sun.sun_path, path);
	ret = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) ? -errno : 0;
	if (!ret && !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) &&
	    uc.pid > 0 && kill(uc.pid, 0) && errno == ESRCH)
		ret = -ECONNREFUSED;
	close(fd);
	if (!ret || ret == -EAGAIN)	/* accepted, or its backlog is full */
		return -EADDRINUSE;
	if (ret != -ECONNREFUSED && ret != -ENOENT)
		return ret;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

static int create_listener(struct ivsh_server *srv, const char *path,
			   const struct ivsh_server_opts *opts)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	mode_t mode = opts->sock_mode ? opts->sock_mode : IVSH_SERVER_SOCK_MODE;
	struct stat st;
	int fd, ret;

	ret = ivsh_clear_stale_socket(path);
	if (ret)
		return ret;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	strcpy(sun.sun_path, path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		ret = -errno;
		goto out_close;
	}
	/* owner and mode before listen(): until then connect() is refused */
	if ((opts->flags & IVSH_SRV_CHOWN) &&
	    chown(path, opts->sock_uid, opts->sock_gid))
		goto out_errno;
	if (chmod(path, mode))
		goto out_errno;
	if (lstat(path, &st))
		goto out_errno;
	if (listen(fd, LISTEN_BACKLOG))
		goto out_errno;

	srv->listen_fd = fd;
	srv->sock_dev = st.st_dev;
	srv->sock_ino = st.st_ino;
	return 0;

out_errno:
	ret = -errno;
	unlink(path);
out_close:
	close(fd);
	return ret;
}

int ivsh_server_init(struct ivsh_server *srv, const char *sock_path,
		     int shm_fd, unsigned int vectors,
		     const struct ivsh_server_opts *opts)
{
	static const struct ivsh_server_opts defaults;
	struct stat st;
	unsigned int v;
	size_t words;
	int ret;

	memset(srv, 0, sizeof(*srv));
	srv->listen_fd = -1;
	srv->shm_fd = -1;
	srv->self.sock_fd = -1;
	for (v = 0; v < IVSH_MAX_VECTORS; v++)
		srv->self.eventfds[v] = -1;

	if (!opts)
		opts = &defaults;
	if (!sock_path || !sock_path[0])
		return -EINVAL;
	if (strlen(sock_path) >= sizeof(srv->sock_path))
		return -ENAMETOOLONG;
	if (vectors < 1 || vectors > IVSH_MAX_VECTORS)
		return -EINVAL;
	if (opts->sock_mode & ~0777)
		return -EINVAL;
	srv->max_id = opts->max_id ? opts->max_id : IVSH_MAX_PEER_ID;
	if (srv->max_id > IVSH_MAX_PEER_ID || opts->self_id > srv->max_id)
		return -EINVAL;
	if (fstat(shm_fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || ivsh_shm_check_size((uint64_t)st.st_size))
		return -EINVAL;

	srv->vectors = vectors;
	srv->max_peers = opts->max_peers ? opts->max_peers :
			 IVSH_SERVER_MAX_PEERS;
	if (opts->send_timeout_ms > 0)
		srv->send_timeout_ms = opts->send_timeout_ms;
	else if (opts->send_timeout_ms == 0)
		srv->send_timeout_ms = IVSH_SERVER_SEND_TIMEOUT_MS;
	srv->log = opts->log;
	srv->log_data = opts->log_data;
	srv->on_peer = opts->on_peer;
	srv->peer_data = opts->peer_data;
	strcpy(srv->sock_path, sock_path);

	words = (srv->max_id + 1 + 63) / 64;
	srv->id_map = calloc(words, sizeof(uint64_t));
	if (!srv->id_map)
		return -ENOMEM;

	srv->shm_fd = fcntl(shm_fd, F_DUPFD_CLOEXEC, 3);
	if (srv->shm_fd < 0) {
		ret = -errno;
		goto out_free;
	}

	srv->self.id = (int)opts->self_id;
	srv->self.pid = getpid();
	srv->self.uid = geteuid();
	srv->self.gid = getegid();
	ret = create_eventfds(&srv->self, vectors);
	if (ret)
		goto out_shm;
	id_set(srv, opts->self_id);
	srv->next_id = (opts->self_id + 1) % (srv->max_id + 1);

	ret = create_listener(srv, sock_path, opts);
	if (ret)
		goto out_eventfds;
	return 0;

out_eventfds:
	close_eventfds(&srv->self, vectors);
out_shm:
	close(srv->shm_fd);
	srv->shm_fd = -1;
out_free:
	free(srv->id_map);
	srv->id_map = NULL;
	return ret;
}

void ivsh_server_finish(struct ivsh_server *srv)
{
	struct stat st;
	unsigned int i;

	for (i = 0; i < srv->nr_peers; i++) {
		struct ivsh_peer *p = srv->peers[i];

		if (srv->on_peer)
			srv->on_peer(srv->peer_data, IVSH_PEER_REMOVED, p->id,
				     p->sock_fd);
		close(p->sock_fd);
		close_eventfds(p, srv->vectors);
		free(p);
	}
	free(srv->peers);
	srv->peers = NULL;
	srv->nr_peers = 0;
	srv->peers_cap = 0;

	if (srv->listen_fd >= 0) {
		/* remove the socket only if nobody replaced it since */
		if (!lstat(srv->sock_path, &st) && S_ISSOCK(st.st_mode) &&
		    st.st_dev == srv->sock_dev && st.st_ino == srv->sock_ino)
			unlink(srv->sock_path);
		close(srv->listen_fd);
		srv->listen_fd = -1;
	}
	close_eventfds(&srv->self, srv->vectors);
	if (srv->shm_fd >= 0)
		close(srv->shm_fd);
	srv->shm_fd = -1;
	free(srv->id_map);
	srv->id_map = NULL;
}

static int grow_peers(struct ivsh_server *srv)
{
	struct ivsh_peer **n;
	unsigned int cap;

	if (srv->nr_peers < srv->peers_cap)
		return 0;
	cap = srv->peers_cap ? srv->peers_cap * 2 : 8;
	n = realloc(srv->peers, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	srv->peers = n;
	srv->peers_cap = cap;
	return 0;
}

int ivsh_server_accept(struct ivsh_server *srv)
{
	struct ucred cred = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t len = sizeof(cred);
	struct ivsh_peer *p;
	int fd, id, ret;

	fd = accept4(srv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		/* a connection reset before we accepted it is no error */
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == ECONNABORTED || errno == EINTR)
			return -EAGAIN;
		return -errno;
	}
	getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);

	if (srv->nr_peers >= srv->max_peers) {
		srv_log(srv, LOG_WARNING,
			"ivshmem server %s: refusing pid %d: %u peers connected, the limit",
			srv->sock_path, (int)cred.pid, srv->nr_peers);
		ret = -ENOSPC;
		goto out_close;
	}
	ret = grow_peers(srv);
	if (ret)
		goto out_close;
	id = id_alloc(srv);
	if (id < 0) {
		srv_log(srv, LOG_WARNING,
			"ivshmem server %s: refusing pid %d: no free peer id",
			srv->sock_path, (int)cred.pid);
		ret = id;
		goto out_close;
	}

	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = -ENOMEM;
		goto out_id;
	}
	p->id = id;
	p->sock_fd = fd;
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	ret = create_eventfds(p, srv->vectors);
	if (ret)
		goto out_free;

	ret = send_greeting(srv, p);
	if (ret) {
		srv_log(srv, LOG_WARNING,
			"ivshmem server %s: could not greet pid %d: %s",
			srv->sock_path, (int)cred.pid, strerror(-ret));
		if (ret == -EPIPE)
			ret = -ECONNRESET;
		goto out_eventfds;
	}

	srv->peers[srv->nr_peers++] = p;
	srv_log(srv, LOG_INFO,
		"ivshmem server %s: peer %d connected (pid %d, uid %d)",
		srv->sock_path, id, (int)cred.pid, (int)cred.uid);
	if (srv->on_peer)
		srv->on_peer(srv->peer_data, IVSH_PEER_ADDED, id, fd);

	announce(srv, p);
	reap_dead(srv);
	/* a failed disconnect notice may have taken the new peer too */
	return peer_index(srv, id) < 0 ? -ECONNRESET : id;

out_eventfds:
	close_eventfds(p, srv->vectors);
out_free:
	free(p);
out_id:
	id_clear(srv, (unsigned int)id);
out_close:
	close(fd);
	return ret;
}

int ivsh_server_peer_event(struct ivsh_server *srv, int peer_id)
{
	struct ivsh_peer *p;
	char byte;
	ssize_t n;
	int i;

	i = peer_index(srv, peer_id);
	if (i < 0)
		return i;
	p = srv->peers[i];

	do {
		n = recv(p->sock_fd, &byte, 1, MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;

	if (n > 0)
		srv_log(srv, LOG_WARNING,
			"ivshmem peer %d (pid %d): sent data, but clients never send in this protocol; disconnecting",
			p->id, (int)p->pid);
	else if (n < 0)
		srv_log(srv, LOG_INFO, "ivshmem peer %d (pid %d): %s",
			p->id, (int)p->pid, strerror(errno));
	else
		srv_log(srv, LOG_INFO, "ivshmem peer %d (pid %d): disconnected",
			p->id, (int)p->pid);

	remove_peer(srv, (unsigned int)i);
	reap_dead(srv);
	return 1;
}

int ivsh_server_disconnect(struct ivsh_server *srv, int peer_id)
{
	int i = peer_index(srv, peer_id);

	if (i < 0)
		return i;
	remove_peer(srv, (unsigned int)i);
	reap_dead(srv);
	return 0;
}

int ivsh_server_notify(struct ivsh_server *srv, int peer_id,
		       unsigned int vector)
{
	const struct ivsh_peer *p;

	if (vector >= srv->vectors)
		return -EINVAL;
	p = find_any(srv, peer_id);
	if (!p)
		return -ENOENT;
	return ivsh_eventfd_signal(p->eventfds[vector]);
}

int ivsh_server_listen_fd(const struct ivsh_server *srv)
{
	return srv->listen_fd;
}

int ivsh_server_self_id(const struct ivsh_server *srv)
{
	return srv->self.id;
}

int ivsh_server_self_eventfd(const struct ivsh_server *srv,
			     unsigned int vector)
{
	if (vector >= srv->vectors)
		return -EINVAL;
	return srv->self.eventfds[vector];
}

int ivsh_server_peer_eventfd(const struct ivsh_server *srv, int peer_id,
			     unsigned int vector)
{
	const struct ivsh_peer *p;

	if (vector >= srv->vectors)
		return -EINVAL;
	p = find_any(srv, peer_id);
	return p ? p->eventfds[vector] : -ENOENT;
}

unsigned int ivsh_server_nr_peers(const struct ivsh_server *srv)
{
	return srv->nr_peers;
}

unsigned int ivsh_server_peer_ids(const struct ivsh_server *srv, int *ids,
				  unsigned int max)
{
	unsigned int i;

	for (i = 0; i < srv->nr_peers && i < max; i++)
		ids[i] = srv->peers[i]->id;
	return srv->nr_peers;
}

int ivsh_server_peer_info(const struct ivsh_server *srv, int peer_id,
			  struct ivsh_peer_info *info)
{
	const struct ivsh_peer *p = find_any(srv, peer_id);

	if (!p)
		return -ENOENT;
	info->id = p->id;
	info->sock_fd = p->sock_fd;
	info->pid = p->pid;
	info->uid = p->uid;
	info->gid = p->gid;
	info->vectors = srv->vectors;
	return 0;
}

unsigned int ivsh_server_fds(const struct ivsh_server *srv,
			     struct ivsh_fd *fds, unsigned int max)
{
	unsigned int n = 0, i, v;

	if (n < max)
		fds[n] = (struct ivsh_fd){ .fd = srv->listen_fd,
					   .kind = IVSH_FD_LISTEN,
					   .peer_id = -1 };
	n++;
	for (v = 0; v < srv->vectors; v++, n++)
		if (n < max)
			fds[n] = (struct ivsh_fd){
				.fd = srv->self.eventfds[v],
				.kind = IVSH_FD_SELF,
				.peer_id = srv->self.id,
				.vector = v };
	for (i = 0; i < srv->nr_peers; i++, n++)
		if (n < max)
			fds[n] = (struct ivsh_fd){
				.fd = srv->peers[i]->sock_fd,
				.kind = IVSH_FD_PEER,
				.peer_id = srv->peers[i]->id };
	return n;
}
