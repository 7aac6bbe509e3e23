// SPDX-License-Identifier: GPL-2.0
/*
 * ivshmem_client.c - the client side of the ivshmem protocol
 *
 * Handshake states (one message each, as QEMU's ivshmem_recv_setup()
 * expects them):
 *
 *   WANT_VERSION --0, no fd--> WANT_ID --id, no fd--> WANT_SHM
 *   WANT_SHM --(peer connect / disconnect)*, -1 with fd--> READY
 *
 * In WANT_SHM and READY, a value with an fd is a connect message and a
 * value without one a disconnect notice.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ivshmem_client.h"
#include "shm.h"

/* room for more descriptors than allowed, to see a violation */
#define CMSG_MAX_FDS	4

#define cl_log(c, prio, ...) \
	ivsh_logf((c)->log, (c)->log_data, prio, __VA_ARGS__)

static int protocol_error(struct ivsh_client *c, const char *what,
			  long long value)
{
	cl_log(c, LOG_ERR, "ivshmem server protocol error: %s (value %lld)",
	       what, value);
	c->error = -EPROTO;
	return -EPROTO;
}

static struct ivsh_client_peer *find_peer(const struct ivsh_client *c,
					  int id)
{
	unsigned int i;

	for (i = 0; i < c->nr_peers; i++)
		if (c->peers[i].id == id)
			return &c->peers[i];
	return NULL;
}

static void close_peer_fds(struct ivsh_client_peer *p)
{
	unsigned int v;

	for (v = 0; v < p->nr_fds; v++)
		close(p->fds[v]);
	p->nr_fds = 0;
}

static struct ivsh_client_peer *add_peer(struct ivsh_client *c, int id)
{
	struct ivsh_client_peer *p;
	unsigned int cap;

	if (c->nr_peers >= c->max_peers)
		return NULL;
	if (c->nr_peers == c->peers_cap) {
		cap = c->peers_cap ? c->peers_cap * 2 : 8;
		p = realloc(c->peers, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->peers = p;
		c->peers_cap = cap;
	}
	p = &c->peers[c->nr_peers++];
	memset(p, 0, sizeof(*p));
	p->id = id;
	return p;
}

static int handle_shm(struct ivsh_client *c, int fd)
{
	struct stat st;
	uint64_t size;

	if (c->shm_fd >= 0) {
		close(fd);
		return protocol_error(c, "second shared memory message", -1);
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return protocol_error(c, "shared memory is not a file", -1);
	}
	size = (uint64_t)st.st_size;
	if (!size || (size & (size - 1)) || size > IVSH_SHM_MAX_SIZE) {
		close(fd);
		return protocol_error(c, "shared memory size is not a power of two",
				      (long long)size);
	}
	c->shm_fd = fd;
	c->shm_size = size;
	c->stage = IVSH_CLIENT_READY;
	return 0;
}

static int handle_connect(struct ivsh_client *c, int id, int fd)
{
	struct ivsh_client_peer *p;
	unsigned int v;

	if (!ivsh_is_eventfd(fd)) {
		close(fd);
		return protocol_error(c, "peer descriptor is not an eventfd",
				      id);
	}
	p = find_peer(c, id);
	if (!p)
		p = add_peer(c, id);
	if (!p) {
		close(fd);
		return protocol_error(c, "too many peers", id);
	}
	if (p->nr_fds >= c->vectors) {
		/* the specification: close what we have no vector for */
		close(fd);
		c->extra_fds++;
		return 0;
	}
	v = p->nr_fds;
	p->fds[p->nr_fds++] = fd;
	if (c->on_event)
		c->on_event(c->event_data, IVSH_CLIENT_VECTOR, id, v);
	return 0;
}

static int handle_disconnect(struct ivsh_client *c, int id)
{
	struct ivsh_client_peer *p;
	unsigned int idx;

	if (id == c->own_id)
		return protocol_error(c, "disconnect notice for ourselves", id);
	p = find_peer(c, id);
	if (!p) {
		c->unknown_gone++;
		return 0;
	}
	close_peer_fds(p);
	idx = (unsigned int)(p - c->peers);
	memmove(p, p + 1, (c->nr_peers - idx - 1) * sizeof(*p));
	c->nr_peers--;
	if (c->on_event)
		c->on_event(c->event_data, IVSH_CLIENT_GONE, id, 0);
	return 0;
}

/* apply one message; takes ownership of @fd */
static int handle_msg(struct ivsh_client *c, int64_t value, int fd)
{
	switch (c->stage) {
	case IVSH_CLIENT_WANT_VERSION:
		if (fd >= 0)
			close(fd);
		if (value != IVSH_PROTOCOL_VERSION || fd >= 0)
			return protocol_error(c, "bad version message", value);
		c->stage = IVSH_CLIENT_WANT_ID;
		return 0;
	case IVSH_CLIENT_WANT_ID:
		if (fd >= 0)
			close(fd);
		if (value < 0 || value > IVSH_MAX_PEER_ID || fd >= 0)
			return protocol_error(c, "bad peer id message", value);
		c->own_id = (int)value;
		c->stage = IVSH_CLIENT_WANT_SHM;
		return 0;
	default:
		break;
	}

	if (value < IVSH_MSG_SHM || value > IVSH_MAX_PEER_ID) {
		if (fd >= 0)
			close(fd);
		return protocol_error(c, "value out of range", value);
	}
	if (value == IVSH_MSG_SHM) {
		if (fd < 0)
			return protocol_error(c, "shared memory message without descriptor",
					      value);
		return handle_shm(c, fd);
	}
	if (fd >= 0)
		return handle_connect(c, (int)value, fd);
	return handle_disconnect(c, (int)value);
}

/*
 * Read one whole message. Return: 1 with *value and *fd set (the caller
 * owns *fd), 0 if it is not complete yet, or -errno.
 */
static int read_msg(struct ivsh_client *c, int64_t *value, int *fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int) * CMSG_MAX_FDS)];
	} ctl;
	struct cmsghdr *cmsg;
	uint64_t le;
	ssize_t n;

	while (c->have < IVSH_MSG_SIZE) {
		struct iovec iov = {
			.iov_base = c->buf + c->have,
			.iov_len = IVSH_MSG_SIZE - c->have,
		};
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctl.buf,
			.msg_controllen = sizeof(ctl.buf),
		};
		bool bad = false;

		n = recvmsg(c->sock_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return -errno;

		for (cmsg = CMSG_FIRSTHDR(&msg); cmsg;
		     cmsg = CMSG_NXTHDR(&msg, cmsg)) {
			size_t i, nfds;

			if (cmsg->cmsg_level != SOL_SOCKET ||
			    cmsg->cmsg_type != SCM_RIGHTS) {
				bad = true;
				continue;
			}
			nfds = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < nfds; i++) {
				int f;

				memcpy(&f, CMSG_DATA(cmsg) + i * sizeof(int),
				       sizeof(int));
				if (c->pending_fd < 0 && !bad) {
					c->pending_fd = f;
				} else {
					close(f);
					bad = true;
				}
			}
		}
		if (msg.msg_flags & MSG_CTRUNC)
			bad = true;
		if (bad) {
			if (c->pending_fd >= 0)
				close(c->pending_fd);
			c->pending_fd = -1;
			return protocol_error(c, "more than one descriptor in a message",
					      -1);
		}
		if (n == 0)
			return -ECONNRESET;
		c->have += (unsigned int)n;
	}

	memcpy(&le, c->buf, sizeof(le));
	*value = (int64_t)le64toh(le);
	*fd = c->pending_fd;
	c->pending_fd = -1;
	c->have = 0;
	return 1;
}

static int init_client(struct ivsh_client *c, unsigned int vectors,
		       const struct ivsh_client_opts *opts)
{
	static const struct ivsh_client_opts defaults;

	memset(c, 0, sizeof(*c));
	c->sock_fd = -1;
	c->own_id = -1;
	c->shm_fd = -1;
	c->pending_fd = -1;
	if (!opts)
		opts = &defaults;
	if (vectors < 1 || vectors > IVSH_MAX_VECTORS)
		return -EINVAL;
	c->vectors = vectors;
	c->max_peers = opts->max_peers ? opts->max_peers :
		       IVSH_CLIENT_MAX_PEERS;
	c->timeout_ms = opts->timeout_ms ? opts->timeout_ms :
			IVSH_CLIENT_TIMEOUT_MS;
	c->log = opts->log;
	c->log_data = opts->log_data;
	c->on_event = opts->on_event;
	c->event_data = opts->event_data;
	return 0;
}

int ivsh_client_open(struct ivsh_client *c, const char *sock_path,
		     unsigned int vectors, const struct ivsh_client_opts *opts)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, ret;

	ret = init_client(c, vectors, opts);
	if (ret)
		return ret;
	if (!sock_path || !sock_path[0])
		return -EINVAL;
	if (strlen(sock_path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, sock_path);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
		goto out_errno;
	ret = fcntl(fd, F_GETFL);
	if (ret < 0 || fcntl(fd, F_SETFL, ret | O_NONBLOCK))
		goto out_errno;
	c->sock_fd = fd;
	return 0;

out_errno:
	ret = -errno;
	close(fd);
	return ret;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ivsh_client_connect(struct ivsh_client *c, const char *sock_path,
			unsigned int vectors,
			const struct ivsh_client_opts *opts)
{
	int64_t deadline;
	int ret;

	ret = ivsh_client_open(c, sock_path, vectors, opts);
	if (ret)
		return ret;
	deadline = now_ms() + c->timeout_ms;
	while (!ivsh_client_ready(c)) {
		int64_t left = deadline - now_ms();

		if (left <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		ret = ivsh_client_process(c, (int)left);
		if (ret < 0)
			break;
		ret = 0;
	}
	if (ret)
		ivsh_client_close(c);
	return ret;
}

int ivsh_client_process(struct ivsh_client *c, int timeout_ms)
{
	int count = 0, fd = -1, ret;
	int64_t value = 0;

	if (c->error)
		return c->error;
	if (c->sock_fd < 0)
		return -EBADF;

	for (;;) {
		ret = read_msg(c, &value, &fd);
		if (ret < 0) {
			c->error = ret;
			/* report the messages before the error first */
			return count ? count : ret;
		}
		if (ret == 0) {
			struct pollfd pfd = { .fd = c->sock_fd,
					      .events = POLLIN };

			if (count || timeout_ms == 0)
				return count;
			ret = poll(&pfd, 1, timeout_ms);
			if (ret < 0 && errno != EINTR)
				return -errno;
			if (ret == 0)
				return 0;
			/* wait only once; then take what is there */
			timeout_ms = 0;
			continue;
		}
		ret = handle_msg(c, value, fd);
		if (ret)
			return ret;
		count++;
	}
}

void ivsh_client_close(struct ivsh_client *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_peers; i++)
		close_peer_fds(&c->peers[i]);
	free(c->peers);
	c->peers = NULL;
	c->nr_peers = 0;
	c->peers_cap = 0;
	if (c->pending_fd >= 0)
		close(c->pending_fd);
	c->pending_fd = -1;
	if (c->shm_fd >= 0)
		close(c->shm_fd);
	c->shm_fd = -1;
	if (c->sock_fd >= 0)
		close(c->sock_fd);
	c->sock_fd = -1;
}

bool ivsh_client_ready(const struct ivsh_client *c)
{
	return c->stage == IVSH_CLIENT_READY;
}

int ivsh_client_fd(const struct ivsh_client *c)
{
	return c->sock_fd;
}

int ivsh_client_id(const struct ivsh_client *c)
{
	return c->own_id;
}

int ivsh_client_shm_fd(const struct ivsh_client *c, uint64_t *size)
{
	if (size)
		*size = c->shm_size;
	return c->shm_fd;
}

unsigned int ivsh_client_peer_vectors(const struct ivsh_client *c,
				      int peer_id)
{
	const struct ivsh_client_peer *p = find_peer(c, peer_id);

	return p ? p->nr_fds : 0;
}

int ivsh_client_peer_eventfd(const struct ivsh_client *c, int peer_id,
			     unsigned int vector)
{
	const struct ivsh_client_peer *p = find_peer(c, peer_id);

	if (!p || vector >= p->nr_fds)
		return -ENOENT;
	return p->fds[vector];
}

unsigned int ivsh_client_peer_ids(const struct ivsh_client *c, int *ids,
				  unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->nr_peers; i++) {
		if (c->peers[i].id == c->own_id)
			continue;
		if (n < max)
			ids[n] = c->peers[i].id;
		n++;
	}
	return n;
}

int ivsh_client_notify(struct ivsh_client *c, int peer_id,
		       unsigned int vector)
{
	int fd = ivsh_client_peer_eventfd(c, peer_id, vector);

	return fd < 0 ? fd : ivsh_eventfd_signal(fd);
}
