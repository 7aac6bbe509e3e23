/* SPDX-License-Identifier: GPL-2.0 */
/*
 * conn.h - a client connection of the control socket and the socket
 * itself: server.c's own (its unit test looks at them too). Commands
 * answer through struct ctl_reply (server.h) and never touch these.
 */
#ifndef GR_CTL_CONN_H
#define GR_CTL_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>

#include "agent.h"
#include "server.h"

enum conn_state {
	CONN_READING,			/* waiting for the request line */
	CONN_RUNNING,			/* command running or waiting for a VM */
	CONN_WRITING,			/* the answer did not fit: POLLOUT */
	CONN_CLOSED,			/* socket closed */
};

/**
 * struct ctl_conn - one client connection
 * @ctl: the control socket; NULL once ctl_finish() let go of it
 * @prev: previous in ctl->conns
 * @next: next in ctl->conns
 * @op: poll for the request (POLLIN), while a VM command runs for the
 *	client hanging up (POLLHUP), then for room to send (POLLOUT)
 * @fd: the socket (non-blocking), -1 once closed
 * @state: CONN_*
 * @hold: the code on the stack uses the object; do not free it
 * @deadline: CLOCK_MONOTONIC ns by which the request must be complete
 *	(CONN_READING) or the answer read (CONN_WRITING)
 * @reply: what its command answers through
 * @out: the answer, ready to send
 * @out_len: its length, at most CTL_REPLY_MAX
 * @out_off: bytes of it sent
 * @len: bytes in @buf
 * @buf: the request line
 */
struct ctl_conn {
	struct gr_ctl *ctl;
	struct ctl_conn *prev, *next;
	struct gr_op op;
	int fd;
	enum conn_state state;
	bool hold;
	uint64_t deadline;
	struct ctl_reply reply;
	char *out;
	size_t out_len, out_off;
	size_t len;
	char buf[CTL_LINE_MAX + 1];
};

/**
 * struct gr_ctl - the control socket of an agent
 * @a: the agent
 * @fd: the listening socket
 * @accept_op: poll on @fd, or the pause after a failed accept4()
 * @accept_paused: @accept_op is that pause
 * @timer_op: the earliest deadline of a connection reading or writing
 * @conns: connections, oldest first
 * @tail: the newest
 * @nr_conns: their number
 * @finishing: ctl_finish() runs: re-arm nothing
 * @euid: the agent's effective uid, always allowed
 * @dev: device of the socket file we created
 * @ino: its inode, so that ctl_finish() removes only our own
 * @started: CLOCK_MONOTONIC ns of ctl_init()
 * @dropped: clients dropped because they did not read their answer
 * @path: RUN_DIR/agent.sock
 */
struct gr_ctl {
	struct gr_agent *a;
	int fd;
	struct gr_op accept_op;
	bool accept_paused;
	struct gr_op timer_op;
	struct ctl_conn *conns, *tail;
	unsigned int nr_conns;
	bool finishing;
	uid_t euid;
	dev_t dev;
	ino_t ino;
	uint64_t started;
	uint64_t dropped;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* close @c's socket; @c is freed once nothing refers to it */
void ctl_conn_close(struct ctl_conn *c);

#endif /* GR_CTL_CONN_H */
