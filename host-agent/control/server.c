// SPDX-License-Identifier: GPL-2.0
/*
 * server.c - the control socket's server: RUN_DIR/agent.sock, its
 * connections, reading a request, replying (the protocol is in
 * ctl_proto.h, the commands in commands.c). Everything runs on the
 * agent's io_uring loop and nothing here blocks it:
 *
 *   listening socket --poll--> accept4() every pending connection
 *                              SO_PEERCRED / SO_PEERGROUPS check
 *   connection       --poll--> recv() until LF (8 KiB, 5 s at most)
 *                              decode, run the command, answer
 *   async command    (flush, snapshot, stop) keeps the connection until
 *                    the VM calls back; a poll for POLLHUP meanwhile
 *                    notices a client that hung up (its fd is closed
 *                    then, but the object lives until the callback ran)
 *   answer           sent with non-blocking send()s: what the socket
 *                    does not take at once stays in the connection
 *                    (at most CTL_REPLY_MAX bytes) and goes out when a
 *                    POLLOUT poll says there is room; then close
 *   deadline timer   one timeout op, armed for the earliest deadline of
 *                    a connection still reading (answered ETIMEDOUT) or
 *                    still writing (dropped, counted, logged once)
 *
 * A connection object is freed only when its fd is closed, its poll op
 * has completed and no VM callback is pending (conn_put()).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "conn.h"
#include "ctl_proto.h"
#include "ivshmem_server.h"
#include "out.h"
#include "server.h"

#define CTL_ACCEPT_BACKOFF_NS	(100 * NSEC_PER_MSEC)

/* ctl_arm_timer() relies on it: no new deadline precedes an older one */
_Static_assert(CTL_REPLY_TIMEOUT_MS == CTL_REQUEST_TIMEOUT_MS,
	       "one deadline timer needs one timeout");
#define CTL_FINISH_WAIT_NS	(2 * NSEC_PER_SEC)


static void ctl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* the agent logs to syslog (and stderr: main.c opens it LOG_PERROR) */
static void ctl_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsyslog(LOG_WARNING, fmt, ap);
	va_end(ap);
}

/* "error ENAME MESSAGE\n", the message made one safe line */
static int error_line(char *line, size_t len, int err, const char *msg)
{
	const char *name = strerrorname_np(-err);
	char safe[900];

	ctl_one_line(safe, sizeof(safe), msg && *msg ? msg : strerror(-err));
	return snprintf(line, len, "error %s %s\n", name ? name : "EIO",
			safe);
}

/*
 * An error line in one non-blocking send: for a client refused before it
 * has a connection object (a new socket's empty buffer always takes a
 * line of 1 KiB), and for the last word when the agent stops.
 */
static void send_error_now(int fd, int err, const char *msg)
{
	char line[1024];
	int n = error_line(line, sizeof(line), err, msg);

	send(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1,
	     MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void refuse(int fd, int err, const char *msg)
{
	send_error_now(fd, err, msg);
	close(fd);
}

/* ---- connection lifetime --------------------------------------------- */

/* free @c if nothing refers to it any more */
static void conn_put(struct ctl_conn *c)
{
	struct gr_ctl *ctl = c->ctl;

	if (c->fd >= 0 || c->op.busy || c->reply.deferred || c->hold)
		return;
	if (ctl) {
		if (c->prev)
			c->prev->next = c->next;
		else
			ctl->conns = c->next;
		if (c->next)
			c->next->prev = c->prev;
		else
			ctl->tail = c->prev;
		ctl->nr_conns--;
	}
	free(c->out);
	free(c);
}

/*
 * Close the socket. shutdown() first: the poll op in flight holds a
 * reference to the socket, and the client must see the end of the answer
 * now, not when the cancellation completes.
 */
void ctl_conn_close(struct ctl_conn *c)
{
	if (c->fd >= 0) {
		shutdown(c->fd, SHUT_RDWR);
		close(c->fd);
		c->fd = -1;
	}
	c->state = CONN_CLOSED;
	if (c->op.busy && c->ctl)
		gr_loop_cancel(&c->ctl->a->loop, &c->op);
	conn_put(c);
}

static int conn_arm(struct ctl_conn *c, unsigned int events)
{
	return gr_loop_poll(&c->ctl->a->loop, &c->op, c->fd, events);
}

static void conn_answer(struct ctl_conn *c, int err, const char *msg,
			const char *body, size_t len);

static void conn_fail(struct ctl_conn *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conn_fail(struct ctl_conn *c, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	conn_answer(c, err, msg, NULL, 0);
}

/* ---- deadlines ---------------------------------------------------------- */

static bool conn_has_deadline(const struct ctl_conn *c)
{
	return c->state == CONN_READING || c->state == CONN_WRITING;
}

/*
 * Every deadline is the same time after its start, so a new one is never
 * earlier than the one the timer waits for.
 */
static void ctl_arm_timer(struct gr_ctl *ctl)
{
	uint64_t first = UINT64_MAX, now;
	struct ctl_conn *c;

	if (ctl->timer_op.busy || ctl->finishing)
		return;
	for (c = ctl->conns; c; c = c->next)
		if (conn_has_deadline(c) && c->deadline < first)
			first = c->deadline;
	if (first == UINT64_MAX)
		return;
	now = ctl_mono_ns();
	gr_loop_timeout(&ctl->a->loop, &ctl->timer_op,
			first > now + NSEC_PER_MSEC ? first - now :
			NSEC_PER_MSEC);
}

/* a client that does not read its answer: drop it, say so once */
static void conn_drop_slow(struct ctl_conn *c)
{
	struct gr_ctl *ctl = c->ctl;

	if (!ctl->dropped++)
		ctl_log("dropped a control client that did not read its "
			"answer (%zu of %zu bytes) within %d s; later drops "
			"are only counted (ping --json: dropped_clients)",
			c->out_off, c->out_len, CTL_REPLY_TIMEOUT_MS / 1000);
	ctl_conn_close(c);
}

static void ctl_timer_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_ctl *ctl = container_of(op, struct gr_ctl, timer_op);
	struct ctl_conn *c, *next;
	uint64_t now = ctl_mono_ns();

	(void)res;
	(void)flags;
	if (ctl->finishing)
		return;
	for (c = ctl->conns; c; c = next) {
		next = c->next;
		if (!conn_has_deadline(c) || c->deadline > now)
			continue;
		if (c->state == CONN_WRITING)
			conn_drop_slow(c);
		else
			conn_fail(c, -ETIMEDOUT, "no complete request within "
				  "%d s; send one line that ends in a newline",
				  CTL_REQUEST_TIMEOUT_MS / 1000);
	}
	ctl_arm_timer(ctl);
}

/* ---- answering ---------------------------------------------------------- */

/*
 * Send what the socket takes now. The rest waits for POLLOUT: if the op
 * still polls for POLLHUP (an async command), it is cancelled first and
 * conn_poll_done() comes back here.
 */
static void conn_flush(struct ctl_conn *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			goto wait;
		break;			/* gone: it loses its answer */
	}
	ctl_conn_close(c);
	return;
wait:
	if (c->state != CONN_WRITING) {
		c->state = CONN_WRITING;
		c->deadline = ctl_mono_ns() +
			      CTL_REPLY_TIMEOUT_MS * NSEC_PER_MSEC;
		ctl_arm_timer(c->ctl);
	}
	if (c->op.busy)
		gr_loop_cancel(&c->ctl->a->loop, &c->op);
	else if (conn_arm(c, POLLOUT))
		ctl_conn_close(c);
}

/* answer the request of @c, then close it (see ctl_reply_send()) */
static void conn_answer(struct ctl_conn *c, int err, const char *msg,
			const char *body, size_t len)
{
	char line[1024];
	int n;

	if (c->fd < 0) {
		ctl_conn_close(c);
		return;
	}
	if (!err && len > CTL_REPLY_MAX - 3) {
		err = -EFBIG;
		msg = "the answer is too large to send (ask for one VM)";
	}
	free(c->out);
	c->out_off = 0;
	if (err) {
		n = error_line(line, sizeof(line), err, msg);
		c->out_len = (size_t)n < sizeof(line) ? (size_t)n :
			     sizeof(line) - 1;
		c->out = malloc(c->out_len);
		if (c->out)
			memcpy(c->out, line, c->out_len);
	} else {
		c->out_len = 3 + len;
		c->out = malloc(c->out_len);
		if (c->out) {
			memcpy(c->out, "ok\n", 3);
			memcpy(c->out + 3, body, len);
		}
	}
	if (!c->out) {
		c->out_len = 0;
		refuse(c->fd, -ENOMEM, CTL_MSG_NOMEM);
		c->fd = -1;
		ctl_conn_close(c);
		return;
	}
	conn_flush(c);
}

/* ---- the reply object of the commands ------------------------------------ */

/* ctl_reply_send() of a command's reply */
static void reply_send(struct ctl_reply *rp, int err, const char *msg,
		       const char *body, size_t len)
{
	struct ctl_conn *c = rp->conn;

	rp->deferred = false;
	conn_answer(c, err, msg, body, len);
}

/* ---- reading ------------------------------------------------------------ */

static void conn_request(struct ctl_conn *c, size_t len)
{
	struct ctl_req *r;
	char *body = NULL;
	size_t blen = 0;
	int ret;

	c->state = CONN_RUNNING;
	r = calloc(1, sizeof(*r));
	if (!r) {
		conn_answer(c, -ENOMEM, CTL_MSG_NOMEM, NULL, 0);
		return;
	}
	r->out = open_memstream(&body, &blen);
	if (!r->out) {
		free(r);
		conn_answer(c, -ENOMEM, CTL_MSG_NOMEM, NULL, 0);
		return;
	}
	r->reply = &c->reply;
	r->a = c->ctl->a;
	r->started = c->ctl->started;
	r->dropped = c->ctl->dropped;
	c->hold = true;
	ret = ctl_run_request(r, c->buf, len);
	if (fclose(r->out) && ret >= 0 && ret != CTL_ASYNC) {
		ret = -ENOMEM;
		snprintf(r->msg, sizeof(r->msg), CTL_MSG_NOMEM);
	}
	if (ret == CTL_ASYNC) {
		/*
		 * Answered later; meanwhile notice a client that closed its
		 * socket (POLLHUP). A client that only shut down its
		 * sending side (socat, nc -N) still wants the answer.
		 */
		if (c->reply.deferred && c->fd >= 0 && conn_arm(c, POLLHUP))
			ctl_conn_close(c);
	} else {
		conn_answer(c, ret < 0 ? ret : 0, r->msg, body, blen);
	}
	free(body);
	free(r);
	c->hold = false;
	conn_put(c);
}

static void conn_read(struct ctl_conn *c)
{
	ssize_t n;
	char *nl;

	n = recv(c->fd, c->buf + c->len, CTL_LINE_MAX - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		goto rearm;
	if (n <= 0) {
		ctl_conn_close(c);	/* hung up before the end of the request */
		return;
	}
	nl = memchr(c->buf + c->len, '\n', (size_t)n);
	c->len += (size_t)n;
	if (nl) {
		*nl = '\0';
		conn_request(c, (size_t)(nl - c->buf));
		return;
	}
	if (c->len >= CTL_LINE_MAX) {
		conn_fail(c, -EMSGSIZE, "request longer than %d bytes",
			  CTL_LINE_MAX);
		return;
	}
rearm:
	if (conn_arm(c, POLLIN))
		ctl_conn_close(c);
}

static void conn_poll_done(struct gr_op *op, int res, unsigned int flags)
{
	struct ctl_conn *c = container_of(op, struct ctl_conn, op);

	(void)flags;
	if (c->state == CONN_CLOSED || !c->ctl || c->ctl->finishing) {
		conn_put(c);
		return;
	}
	if (c->state == CONN_WRITING) {
		/* room to send, a hang-up, or the POLLHUP poll cancelled */
		if (res < 0 && res != -ECANCELED)
			ctl_conn_close(c);
		else
			conn_flush(c);
		return;
	}
	if (c->state == CONN_RUNNING && res >= 0 &&
	    !(res & (POLLHUP | POLLERR | POLLNVAL))) {
		/*
		 * io_uring always reports POLLRDHUP: the client only shut
		 * down its sending side and still waits for the answer.
		 * Re-arming would fire at once; the VM's callback comes.
		 */
		return;
	}
	if (c->state == CONN_RUNNING || res < 0) {
		/* hung up while its VM command runs, or a poll error */
		ctl_conn_close(c);
		return;
	}
	conn_read(c);
}

/* ---- accepting -------------------------------------------------------- */

static bool peer_in_group(int fd, gid_t gid)
{
	gid_t groups[64], *g = groups;
	socklen_t len = sizeof(groups);
	bool in = false;
	size_t i;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
		if (errno != ERANGE)
			return false;
		g = malloc(len);
		if (!g)
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
			free(g);
			return false;
		}
	}
	for (i = 0; i < len / sizeof(gid_t); i++)
		if (g[i] == gid)
			in = true;
	if (g != groups)
		free(g);
	return in;
}

/* 0 if the peer on @fd may send commands, else -EACCES and a reason */
static int peer_check(struct gr_ctl *ctl, int fd, char *why, size_t len)
{
	gid_t gid = (gid_t)ctl->a->sock_gid;
	struct ucred uc;
	socklen_t sl = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl)) {
		snprintf(why, len, "cannot identify the peer: %s",
			 strerror(errno));
		return -EACCES;
	}
	if (uc.uid == 0 || uc.uid == ctl->euid)
		return 0;
	if (ctl->a->sock_gid != (unsigned int)-1 &&
	    (uc.gid == gid || peer_in_group(fd, gid)))
		return 0;
	if (ctl->a->sock_gid != (unsigned int)-1)
		snprintf(why, len, "uid %u may not control this agent: only "
			 "root, uid %u and members of group %u may",
			 (unsigned int)uc.uid, (unsigned int)ctl->euid,
			 (unsigned int)gid);
	else
		snprintf(why, len, "uid %u may not control this agent: only "
			 "root and uid %u may (start it with --group to allow "
			 "a group)", (unsigned int)uc.uid,
			 (unsigned int)ctl->euid);
	ctl_log("refused a control connection from pid %d: %s", (int)uc.pid,
		why);
	return -EACCES;
}

static void ctl_new_conn(struct gr_ctl *ctl, int fd)
{
	struct ctl_conn *c;
	char why[256];
	int ret;

	ret = peer_check(ctl, fd, why, sizeof(why));
	if (ret) {
		refuse(fd, ret, why);
		return;
	}
	if (ctl->nr_conns >= CTL_MAX_CONNS) {
		refuse(fd, -EBUSY, "the agent is serving its maximum of "
		       "64 connections; try again");
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		refuse(fd, -ENOMEM, CTL_MSG_NOMEM);
		return;
	}
	c->ctl = ctl;
	c->fd = fd;
	c->reply.conn = c;
	c->reply.send = reply_send;
	c->op.done = conn_poll_done;
	c->state = CONN_READING;
	c->deadline = ctl_mono_ns() + CTL_REQUEST_TIMEOUT_MS * NSEC_PER_MSEC;
	c->prev = ctl->tail;
	if (ctl->tail)
		ctl->tail->next = c;
	else
		ctl->conns = c;
	ctl->tail = c;
	ctl->nr_conns++;
	if (conn_arm(c, POLLIN)) {
		conn_fail(c, -ENOMEM, "the agent is out of resources");
		return;
	}
	ctl_arm_timer(ctl);
}

static void ctl_accept_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_ctl *ctl = container_of(op, struct gr_ctl, accept_op);
	unsigned int i;
	int fd;

	(void)flags;
	if (ctl->finishing)
		return;
	if (ctl->accept_paused) {
		ctl->accept_paused = false;
		goto rearm;
	}
	if (res < 0) {
		ctl_log("polling %s failed: %s; retrying", ctl->path,
			strerror(-res));
		goto pause;
	}
	for (i = 0; i < CTL_MAX_CONNS; i++) {
		fd = accept4(ctl->fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			ctl_new_conn(ctl, fd);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		if (errno == ECONNABORTED || errno == EINTR ||
		    errno == EPROTO)
			continue;
		/* EMFILE, ENFILE, ENOBUFS, ENOMEM: wait, do not spin */
		ctl_log("cannot accept a control connection: %s; pausing "
			"for 100 ms", strerror(errno));
		goto pause;
	}
rearm:
	if (gr_loop_poll(&ctl->a->loop, &ctl->accept_op, ctl->fd, POLLIN))
		goto pause;
	return;
pause:
	ctl->accept_paused = true;
	if (gr_loop_timeout(&ctl->a->loop, &ctl->accept_op,
			    CTL_ACCEPT_BACKOFF_NS))
		ctl_log("the control socket %s stopped accepting: the loop "
			"has no room", ctl->path);
}

/* ---- init / finish ---------------------------------------------------- */

/* Remove a stale agent.sock (ivsh_clear_stale_socket()); say why not */
static int clear_stale(const char *path)
{
	int ret = ivsh_clear_stale_socket(path);

	if (ret == -EEXIST)
		ctl_log("%s exists and is not a socket; move it away", path);
	else if (ret == -EADDRINUSE)
		ctl_log("another agent is listening on %s; stop it first, or "
			"use another --run-dir", path);
	else if (ret)
		ctl_log("cannot tell whether %s is in use: %s", path,
			strerror(-ret));
	return ret;
}

/**
 * ctl_init() - open the control socket RUN_DIR/agent.sock
 * @a: the agent; run_dir, sock_gid and loop are set up
 *
 * Creates the socket with mode 0660 and, if @a->sock_gid is not
 * (unsigned int)-1, that group. A stale socket file (nobody listens) is
 * replaced; anything else at that path is left alone and is an error.
 * Starts accepting on the loop. Logs the reason of a failure itself.
 *
 * Context: the loop's thread, at start-up.
 * Return: 0, -ENAMETOOLONG, -EADDRINUSE (another agent listens), -EEXIST
 * (not a socket), -ENOMEM, or -errno of socket(2), bind(2), chown(2),
 * listen(2).
 */
int ctl_init(struct gr_agent *a)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct gr_ctl *ctl;
	struct stat st;
	mode_t old;
	int ret;

	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	ctl->a = a;
	ctl->fd = -1;
	ctl->accept_op.done = ctl_accept_done;
	ctl->timer_op.done = ctl_timer_done;
	ctl->euid = geteuid();
	ctl->started = ctl_mono_ns();
	if ((size_t)snprintf(ctl->path, sizeof(ctl->path), "%s/%s",
			     a->run_dir, GR_CTL_SOCK_NAME) >=
	    sizeof(ctl->path)) {
		ctl_log("run directory %s is too long for a socket path",
			a->run_dir);
		ret = -ENAMETOOLONG;
		goto out_free;
	}
	ret = clear_stale(ctl->path);
	if (ret) {
		if (ret != -EADDRINUSE && ret != -EEXIST)
			ctl_log("cannot use %s: %s", ctl->path,
				strerror(-ret));
		goto out_free;
	}
	ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			 0);
	if (ctl->fd < 0) {
		ret = -errno;
		ctl_log("cannot create the control socket: %s",
			strerror(errno));
		goto out_free;
	}
	strcpy(sun.sun_path, ctl->path);
	old = umask(0117);		/* the file is created 0660 */
	ret = bind(ctl->fd, (struct sockaddr *)&sun, sizeof(sun)) ? -errno : 0;
	umask(old);
	if (ret) {
		ctl_log("cannot bind %s: %s", ctl->path, strerror(-ret));
		goto out_close;
	}
	if (a->sock_gid != (unsigned int)-1 &&
	    lchown(ctl->path, (uid_t)-1, (gid_t)a->sock_gid)) {
		ret = -errno;
		ctl_log("cannot give %s to group %u: %s", ctl->path,
			a->sock_gid, strerror(errno));
		goto out_unlink;
	}
	if (lstat(ctl->path, &st)) {
		ret = -errno;
		goto out_unlink;
	}
	ctl->dev = st.st_dev;
	ctl->ino = st.st_ino;
	if (listen(ctl->fd, CTL_MAX_CONNS)) {
		ret = -errno;
		ctl_log("cannot listen on %s: %s", ctl->path, strerror(errno));
		goto out_unlink;
	}
	ret = gr_loop_poll(&a->loop, &ctl->accept_op, ctl->fd, POLLIN);
	if (ret)
		goto out_unlink;
	a->ctl = ctl;
	return 0;

out_unlink:
	unlink(ctl->path);
out_close:
	close(ctl->fd);
out_free:
	free(ctl);
	return ret;
}

static bool ctl_ops_busy(const struct gr_ctl *ctl)
{
	const struct ctl_conn *c;

	if (ctl->accept_op.busy || ctl->timer_op.busy)
		return true;
	for (c = ctl->conns; c; c = c->next)
		if (c->op.busy)
			return true;
	return false;
}

/**
 * ctl_finish() - close the control socket and every connection
 * @a: the agent
 *
 * Removes RUN_DIR/agent.sock (if it is still the file ctl_init() made).
 * A client waiting for flush, snapshot or stop is told that the agent
 * stops; the VM's callback may still come later and is then ignored.
 * Cancels the socket's own ops and runs the loop (at most 2 s) until they
 * have completed, so nothing of the server is touched by the loop
 * afterwards.
 *
 * Context: the loop's thread, not from inside a loop callback; call it
 * before gr_loop_finish().
 */
void ctl_finish(struct gr_agent *a)
{
	struct gr_ctl *ctl = a->ctl;
	struct ctl_conn *c, *next;
	uint64_t end;
	struct stat st;

	if (!ctl)
		return;
	ctl->finishing = true;
	if (!lstat(ctl->path, &st) && st.st_dev == ctl->dev &&
	    st.st_ino == ctl->ino)
		unlink(ctl->path);
	close(ctl->fd);
	ctl->fd = -1;
	gr_loop_cancel(&a->loop, &ctl->accept_op);
	gr_loop_cancel(&a->loop, &ctl->timer_op);
	for (c = ctl->conns; c; c = c->next) {
		c->hold = true;
		if (c->reply.deferred && c->fd >= 0)
			send_error_now(c->fd, -ECANCELED, "the agent is "
				       "stopping; the command may or may "
				       "not complete");
		ctl_conn_close(c);
	}
	end = ctl_mono_ns() + CTL_FINISH_WAIT_NS;
	while (ctl_ops_busy(ctl) && ctl_mono_ns() < end)
		if (gr_loop_run_once(&a->loop, 100 * NSEC_PER_MSEC) < 0)
			break;
	for (c = ctl->conns; c; c = next) {
		next = c->next;
		if (c->op.busy) {
			/* cannot be freed safely: leave it to the exit */
			ctl_log("a control connection's poll did not complete");
			continue;
		}
		c->ctl = NULL;		/* the VM callback frees it if due */
		c->prev = c->next = NULL;
		c->hold = false;
		conn_put(c);
	}
	a->ctl = NULL;
	if (ctl->accept_op.busy || ctl->timer_op.busy) {
		ctl_log("the control socket's ops did not complete");
		return;
	}
	free(ctl);
}
