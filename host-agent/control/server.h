/* SPDX-License-Identifier: GPL-2.0 */
/*
 * server.h - inside the control socket: what the server (server.c:
 * connections, reading, replying) gives the commands (commands.c): a
 * request to run and a reply object to answer through. Only server.c
 * touches a connection (conn.h); the rest of the agent knows only
 * ctl_init() and ctl_finish() (agent.h).
 */
#ifndef GR_CTL_SERVER_H
#define GR_CTL_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/un.h>

#include "common.h"
#include "agent.h"
#include "ctl_proto.h"
#include "out.h"

#define CTL_MSG_NOMEM		"the agent is out of memory"

struct ctl_conn;

/* CLOCK_MONOTONIC in ns */
static inline uint64_t ctl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/**
 * struct ctl_reply - how a command answers its client
 * @conn: the connection it belongs to; server.c's alone
 * @json: the client wants JSON
 * @cmd: the command's name
 * @vm: the VM of an answer that comes later (ctl_reply_defer())
 * @deferred: a VM callback (gr_done_fn) is due; the connection must live
 * @send: server.c's sender of the answer (ctl_reply_send())
 *
 * Each connection owns one; a command answers through it and never
 * touches the connection (as seatd's clients own their connections).
 */
struct ctl_reply {
	struct ctl_conn *conn;
	bool json;
	const char *cmd;
	char vm[GR_VM_NAME_MAX];
	bool deferred;
	void (*send)(struct ctl_reply *rp, int err, const char *msg,
		     const char *body, size_t len);
};

/**
 * ctl_reply_defer() - the answer comes later, from a VM's callback
 * @rp: the reply
 *
 * The connection (and @rp) then lives until ctl_reply_send(), also when
 * the client hangs up meanwhile.
 *
 * Context: the loop's thread, from a command.
 */
static inline void ctl_reply_defer(struct ctl_reply *rp)
{
	rp->deferred = true;
}

/**
 * ctl_reply_deferred() - whether a deferred answer is still due
 * @rp: the reply
 *
 * Context: the loop's thread.
 * Return: true from ctl_reply_defer() until ctl_reply_send() or
 * ctl_reply_undefer().
 */
static inline bool ctl_reply_deferred(const struct ctl_reply *rp)
{
	return rp->deferred;
}

/**
 * ctl_reply_undefer() - the command answers now after all
 * @rp: a reply of ctl_reply_defer() whose callback will not come
 *
 * Context: the loop's thread, from the command that deferred it.
 */
static inline void ctl_reply_undefer(struct ctl_reply *rp)
{
	rp->deferred = false;
}

/**
 * ctl_reply_send() - send the deferred answer, then close the connection
 * @rp: the reply of ctl_reply_defer(); not to be used afterwards
 * @err: 0 for "ok" with @body, or -errno for an error line
 * @msg: the error's message (escaped into one line); NULL or "" for
 *	strerror(-@err)
 * @body: the body of "ok" (copied)
 * @len: its length
 *
 * Never blocks: what the socket does not take now is sent when the loop
 * reports room (POLLOUT); a client that has not read it all within
 * CTL_REPLY_TIMEOUT_MS is dropped, and one that hung up gets nothing.
 *
 * Context: the loop's thread.
 */
static inline void ctl_reply_send(struct ctl_reply *rp, int err,
				  const char *msg, const char *body, size_t len)
{
	rp->send(rp, err, msg, body, len);
}

/* ---- commands.c -------------------------------------------------------- */

#define CTL_ASYNC		1	/* a command answers from a callback */

/**
 * struct ctl_req - one request being answered
 * @reply: how to answer later (an asynchronous command)
 * @a: the agent
 * @started: CLOCK_MONOTONIC ns at which the control socket opened
 * @dropped: clients dropped so far because they did not read an answer
 * @cmd: the command's name, once known
 * @out: the body of the answer
 * @json: the client wants JSON
 * @j: the JSON writer on @out
 * @msg: the error message
 */
struct ctl_req {
	struct ctl_reply *reply;
	struct gr_agent *a;
	uint64_t started;
	uint64_t dropped;
	const char *cmd;
	FILE *out;
	bool json;
	struct ctl_json j;
	char msg[768];
};

/**
 * ctl_run_request() - decode a request line and run it
 * @r: the request; its body goes to @r->out
 * @line: the line without its LF (untrusted); decoded in place
 * @len: its length
 *
 * Context: the loop's thread.
 * Return: 0 (answer "ok" with the body), CTL_ASYNC (a VM answers later
 * through ctl_reply_send() of @r->reply), or -errno with @r->msg set.
 */
int ctl_run_request(struct ctl_req *r, char *line, size_t len);

#endif /* GR_CTL_SERVER_H */
