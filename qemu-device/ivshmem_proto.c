// SPDX-License-Identifier: GPL-2.0
/*
 * ivshmem_proto.c - message framing and eventfd helpers shared by the
 * ivshmem server and client
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ivshmem_proto.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* wait until @sock accepts data or @deadline (CLOCK_MONOTONIC ms) passes */
static int wait_writable(int sock, int64_t deadline)
{
	struct pollfd pfd = { .fd = sock, .events = POLLOUT };
	int64_t left;
	int ret;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (ret == 0)
			return -ETIMEDOUT;
		if (pfd.revents & POLLOUT)
			return 0;
		/* POLLERR / POLLHUP without POLLOUT: the peer is gone */
		return -EPIPE;
	}
}

int ivsh_send_msg(int sock, int64_t value, int fd, int timeout_ms)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	uint64_t le = htole64((uint64_t)value);
	const char *p = (const char *)&le;
	size_t done = 0;
	int64_t deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	bool fd_sent = fd < 0;
	ssize_t n;
	int ret;

	while (done < sizeof(le)) {
		struct iovec iov = {
			.iov_base = (void *)(p + done),
			.iov_len = sizeof(le) - done,
		};
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

		if (!fd_sent) {
			struct cmsghdr *cmsg;

			memset(&ctl, 0, sizeof(ctl));
			msg.msg_control = ctl.buf;
			msg.msg_controllen = sizeof(ctl.buf);
			cmsg = CMSG_FIRSTHDR(&msg);
			cmsg->cmsg_level = SOL_SOCKET;
			cmsg->cmsg_type = SCM_RIGHTS;
			cmsg->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
		}
		n = sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			/* the descriptor went with the first byte sent */
			fd_sent = true;
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ret = wait_writable(sock, deadline);
			if (ret)
				return ret;
			continue;
		}
		return n < 0 ? -errno : -EPIPE;
	}
	return 0;
}

int ivsh_eventfd_signal(int fd)
{
	uint64_t one = 1;
	ssize_t n;

	do {
		n = write(fd, &one, sizeof(one));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(one))
		return 0;
	if (n < 0 && errno == EAGAIN)
		return 0;	/* counter saturated: a wake-up is pending */
	return n < 0 ? -errno : -EIO;
}

int ivsh_eventfd_drain(int fd, uint64_t *count)
{
	uint64_t v;
	ssize_t n;

	do {
		n = read(fd, &v, sizeof(v));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EIO;
	if (count)
		*count = v;
	return 0;
}

bool ivsh_is_eventfd(int fd)
{
	static const char want[] = "anon_inode:[eventfd]";
	char path[64], target[64];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n >= 0) {
		target[n] = '\0';
		return strcmp(target, want) == 0;
	}
	/* no /proc: an eventfd is at least an anonymous inode */
	if (fstat(fd, &st))
		return false;
	return (st.st_mode & S_IFMT) == 0;
}

void ivsh_logf(ivsh_log_fn log, void *data, int prio, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (!log)
		return;
	va_start(ap, fmt);
	log(data, prio, fmt, ap);
	va_end(ap);
	errno = saved;
}
