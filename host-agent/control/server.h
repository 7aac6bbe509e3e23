/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - inside the control socket: what the server (server.c:
 * connections, reading, replying) and the commands (commands.c) share.
 * The rest of the agent knows only ctl_init() and ctl_finish() (agent.h).
 */
#ifndef GR_CTL_SERVER_H
#define GR_CTL_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/un.h>

#include "common.h"
#include "agent.h"
#include "ctl_proto.h"
#include "out.h"


#define CTL_MSG_NOMEM		"the agent is out of memory"

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
 * @waiting: a VM callback (gr_done_fn) is due; the object must live
 * @hold: the code on the stack uses the object; do not free it
 * @json: the answer is JSON
 * @deadline: CLOCK_MONOTONIC ns by which the request must be complete
 *	(CONN_READING) or the answer read (CONN_WRITING)
 * @cmd: the running asynchronous command, for its answer
 * @vm: its VM's name
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
	bool waiting;
	bool hold;
	bool json;
	uint64_t deadline;
	const char *cmd;
	char vm[GR_VM_NAME_MAX];
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

uint64_t ctl_mono_ns(void);

/**
 * ctl_conn_answer() - answer the request of @c, then close it
 * @c: the connection
 * @err: 0 for "ok" with @body, or -errno for an error line
 * @msg: the error's message (escaped here into one line); NULL or ""
 *	for strerror(-@err)
 * @body: the body of "ok" (copied)
 * @len: its length
 *
 * Never blocks: what the socket does not take now is sent when the loop
 * reports room (POLLOUT); a client that has not read it all within
 * CTL_REPLY_TIMEOUT_MS is dropped.
 *
 * Context: the loop's thread.
 */
void ctl_conn_answer(struct ctl_conn *c, int err, const char *msg,
		     const char *body, size_t len);

/* close @c's socket; @c is freed once nothing refers to it */
void ctl_conn_close(struct ctl_conn *c);

/* ---- commands.c -------------------------------------------------------- */

#define CTL_ASYNC		1	/* a command answers from a callback */

/**
 * struct ctl_req - one request being answered
 * @c: its connection
 * @a: the agent
 * @out: the body of the answer
 * @json: the client wants JSON
 * @j: the JSON writer on @out
 * @msg: the error message
 */
struct ctl_req {
	struct ctl_conn *c;
	struct gr_agent *a;
	FILE *out;
	bool json;
	struct ctl_json j;
	char msg[768];
};

/**
 * ctl_run_request() - decode the request line of @r->c and run it
 * @r: the request; its body goes to @r->out
 * @line: the line without its LF (untrusted); decoded in place
 * @len: its length
 *
 * Context: the loop's thread.
 * Return: 0 (answer "ok" with the body), CTL_ASYNC (a VM answers later
 * through ctl_conn_answer()), or -errno with @r->msg set.
 */
int ctl_run_request(struct ctl_req *r, char *line, size_t len);

#endif /* GR_CTL_SERVER_H */
