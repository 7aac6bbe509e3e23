// SPDX-License-Identifier: GPL-2.0
/*
 * vcpu_qmp.c - which threads run a VM's vCPUs when QEMU names none (no
 * -name ...,debug-threads=on): asked of QEMU's QMP monitor
 *
 *   the monitor       /proc/<pid>/cmdline: "-qmp unix:PATH[,...]" (also
 *                     -qmp-pretty, "unix:path=PATH"), or "-chardev
 *                     socket,id=X,path=PATH,..." with "-mon
 *                     [chardev=]X,mode=control"
 *   the exchange      greeting, qmp_capabilities, query-cpus-fast: its
 *                     "cpu-index" and "thread-id" per vCPU
 *
 * vcpu.c asks from the VM's poll timer, synchronously, within
 * GR_QMP_BUDGET_MS for the whole exchange (a non-blocking socket and
 * poll() against one deadline): QEMU answers in well under a
 * millisecond; a monitor another client holds (QMP serves one at a time:
 * the connection waits in the backlog, no greeting comes) or a stopped
 * QEMU costs the budget once and is reported as busy.
 *
 * QEMU's answer is untrusted: read into a bounded buffer, parsed with
 * jansson, every field type- and range-checked, and each thread id must
 * be a task of that QEMU (/proc/<pid>/task/<tid>).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "vcpu.h"

#define GR_QMP_BUDGET_MS	50
#define GR_QMP_ANSWER_MAX	(64 * 1024)
#define GR_QMP_CMDLINE_MAX	(256 * 1024)
#define GR_QMP_CHARDEVS		32

/* the end of the QemuOpts element at @p: its unescaped ',' or NUL */
static const char *elem_end(const char *p)
{
	while (*p) {
		if (*p == ',') {
			if (p[1] != ',')
				break;
			p++;
		}
		p++;
	}
	return p;
}

/*
 * the value of option @key in a QemuOpts string "a=b,c=d" (",," is a
 * comma), or its first element if it has no '=' and @implied; into @out
 *
 * Return: 0, -ENOENT (absent or empty), -ENAMETOOLONG.
 */
static int opt_value(const char *s, const char *key, bool implied,
		     char *out, size_t size)
{
	size_t klen = strlen(key), n;
	const char *p = s, *end, *val, *eq;

	for (; *p; p = *end ? end + 1 : end) {
		end = elem_end(p);
		eq = memchr(p, '=', (size_t)(end - p));
		if (p == s && implied && !eq)
			val = p;
		else if (eq && (size_t)(eq - p) == klen && !strncmp(p, key, klen))
			val = eq + 1;
		else
			continue;
		for (n = 0; val < end; val++) {
			if (n + 1 >= size)
				return -ENAMETOOLONG;
			out[n++] = *val;
			if (*val == ',')
				val++;
		}
		out[n] = '\0';
		return n ? 0 : -ENOENT;
	}
	return -ENOENT;
}

/* @arg an option of @name, with one or two leading dashes? */
static bool is_opt(const char *arg, const char *name)
{
	if (arg[0] != '-')
		return false;
	arg += arg[1] == '-' ? 2 : 1;
	return !strcmp(arg, name);
}

/**
 * vcpu_qmp_path() - the unix socket of QEMU's QMP monitor, from its
 * command line
 * @cmdline: /proc/<pid>/cmdline: arguments, each NUL-terminated
 * @len: its length
 * @path: receives the socket's path
 * @size: size of @path
 *
 * Return: 0, -ENOENT if QEMU has no QMP monitor on a unix socket,
 * -ENAMETOOLONG if its path does not fit.
 */
int vcpu_qmp_path(const char *cmdline, size_t len, char *path, size_t size)
{
	struct { char id[64]; char path[108]; } dev[GR_QMP_CHARDEVS];
	const char *arg[2], *end = cmdline + len, *p = cmdline;
	char id[64], mode[16], back[16];
	unsigned int ndev = 0, i;
	int ret;

	if (!len || cmdline[len - 1])
		return -ENOENT;
	arg[1] = NULL;
	for (; p < end; p += strlen(p) + 1) {
		arg[0] = arg[1];
		arg[1] = p;
		if (!arg[0])
			continue;
		if ((is_opt(arg[0], "qmp") || is_opt(arg[0], "qmp-pretty")) &&
		    !strncmp(arg[1], "unix:", 5)) {
			ret = opt_value(arg[1] + 5, "path", true, path, size);
			if (ret != -ENOENT)
				return ret;
		} else if (is_opt(arg[0], "chardev") &&
			   !opt_value(arg[1], "backend", true, back,
				      sizeof(back)) &&
			   !strcmp(back, "socket") && ndev < GR_QMP_CHARDEVS &&
			   !opt_value(arg[1], "id", false, dev[ndev].id,
				      sizeof(dev[ndev].id)) &&
			   !opt_value(arg[1], "path", false, dev[ndev].path,
				      sizeof(dev[ndev].path))) {
			ndev++;
		}
	}
	/* -mon may come before its -chardev: a second pass */
	arg[1] = NULL;
	for (p = cmdline; p < end; p += strlen(p) + 1) {
		arg[0] = arg[1];
		arg[1] = p;
		if (!arg[0] || !is_opt(arg[0], "mon") ||
		    opt_value(arg[1], "mode", false, mode, sizeof(mode)) ||
		    strcmp(mode, "control") ||
		    opt_value(arg[1], "chardev", true, id, sizeof(id)))
			continue;
		for (i = 0; i < ndev; i++) {
			if (strcmp(dev[i].id, id))
				continue;
			if (strlen(dev[i].path) >= size)
				return -ENAMETOOLONG;
			strcpy(path, dev[i].path);
			return 0;
		}
	}
	return -ENOENT;
}

/* is @tid a task of process @pid? */
static bool is_task(int pid, long long tid)
{
	char p[64];
	struct stat st;

	snprintf(p, sizeof(p), "/proc/%d/task/%lld", pid, tid);
	return !stat(p, &st);
}

/* vcpu_qmp_parse_cpus() of a parsed answer */
static int parse_cpus(json_t *root, int pid, struct gr_vcpu *cpu,
		      unsigned int max)
{
	json_t *ret, *e, *ci, *ti;
	unsigned int n = 0, i, same = 0;
	long long idx, tid;
	size_t k;
	int err = 0;

	ret = json_object_get(root, "return");
	if (!ret) {
		err = json_object_get(root, "error") ? -EOPNOTSUPP : -EPROTO;
		goto out;
	}
	if (!json_is_array(ret) || json_array_size(ret) > 4096) {
		err = -EPROTO;
		goto out;
	}
	json_array_foreach(ret, k, e) {
		ci = json_object_get(e, "cpu-index");
		ti = json_object_get(e, "thread-id");
		if (!json_is_integer(ci) || !json_is_integer(ti)) {
			err = -EPROTO;
			goto out;
		}
		idx = json_integer_value(ci);
		tid = json_integer_value(ti);
		if (idx < 0 || idx > 1000000 || tid <= 0 || tid > 0x7fffffff) {
			err = -EPROTO;
			goto out;
		}
		for (i = 0; i < n; i++)
			if (cpu[i].index == idx) {
				err = -EPROTO;
				goto out;
			}
		if (n >= max || !is_task(pid, tid))
			continue;
		memset(&cpu[n], 0, sizeof(cpu[n]));
		cpu[n].index = (int)idx;
		cpu[n].tid = (int)tid;
		cpu[n].host_cpu = -1;
		if (n && cpu[n].tid == cpu[0].tid)
			same++;
		n++;
	}
	if (n > 1 && same == n - 1) {
		cpu[0].index = GR_VCPU_ALL;
		n = 1;
	} else if (same) {
		err = -EPROTO;	/* some vCPUs share a thread, some not */
	}
out:
	return err ? err : (int)n;
}

/**
 * vcpu_qmp_parse_cpus() - QEMU's answer to query-cpus-fast
 * @answer: the answer object, {"return": [...]} (NUL-terminated JSON)
 * @pid: QEMU's pid: every thread id must be one of its tasks
 * @cpu: receives the vCPUs (index and tid), by cpu-index; one entry
 *	GR_VCPU_ALL when one thread runs every vCPU (single-threaded TCG)
 * @max: entries of @cpu; vCPUs beyond are left out
 *
 * Entries whose thread is not a task of @pid are left out.
 *
 * Return: the number of vCPUs stored, -EPROTO for an answer not of
 * QEMU's form (wrong types, numbers out of range, a cpu-index twice),
 * -EOPNOTSUPP for an error answer.
 */
int vcpu_qmp_parse_cpus(const char *answer, int pid, struct gr_vcpu *cpu,
			unsigned int max)
{
	json_t *root = json_loads(answer, JSON_REJECT_DUPLICATES, NULL);
	int ret = json_is_object(root) ? parse_cpus(root, pid, cpu, max) :
		  -EPROTO;

	json_decref(root);
	return ret;
}

/* the exchange with one monitor, against one deadline */
struct qmp_conn {
	int fd;
	uint64_t deadline;	/* CLOCK_MONOTONIC, ns */
	char *buf;		/* GR_QMP_ANSWER_MAX + 1 */
	size_t len;		/* bytes in @buf not yet parsed */
};

/* wait for @events, -ETIMEDOUT past the deadline */
static int conn_wait(struct qmp_conn *c, short events)
{
	struct pollfd pfd = { .fd = c->fd, .events = events };
	uint64_t now = gr_mono_ns();
	int ret;

	if (now >= c->deadline)
		return -ETIMEDOUT;
	/* rounded up: a wait of less than 1 ms is not 0 (no wait) */
	ret = poll(&pfd, 1, (int)((c->deadline - now + NSEC_PER_MSEC - 1) /
				  NSEC_PER_MSEC));
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	return ret ? 0 : -ETIMEDOUT;
}

static int conn_send(struct qmp_conn *c, const char *cmd)
{
	size_t off = 0, len = strlen(cmd);
	ssize_t n;
	int ret;

	while (off < len) {
		n = send(c->fd, cmd + off, len - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		ret = conn_wait(c, POLLOUT);
		if (ret)
			return ret;
	}
	return 0;
}

/* the next JSON object QEMU sends (the caller puts it), or NULL */
static json_t *conn_next(struct qmp_conn *c, int *err)
{
	json_error_t je;
	json_t *o;
	ssize_t n;

	for (;;) {
		o = c->len ? json_loadb(c->buf, c->len,
					JSON_DISABLE_EOF_CHECK |
					JSON_REJECT_DUPLICATES, &je) : NULL;
		if (o && json_is_object(o) && je.position > 0 &&
		    (size_t)je.position <= c->len) {
			c->len -= (size_t)je.position;
			memmove(c->buf, c->buf + je.position, c->len);
			return o;
		}
		json_decref(o);
		if (o || (c->len &&
			  json_error_code(&je) != json_error_premature_end_of_input)) {
			*err = -EPROTO;
			return NULL;
		}
		if (c->len >= GR_QMP_ANSWER_MAX) {
			*err = -EMSGSIZE;
			return NULL;
		}
		n = recv(c->fd, c->buf + c->len, GR_QMP_ANSWER_MAX - c->len,
			 MSG_DONTWAIT);
		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		*err = !n ? -ECONNRESET :
		       errno == EAGAIN || errno == EINTR ? conn_wait(c, POLLIN) :
		       -errno;
		if (*err)
			return NULL;
	}
}

/* send @cmd, the answer to it (events skipped), or NULL and -errno */
static json_t *conn_ask(struct qmp_conn *c, const char *cmd, int *err)
{
	json_t *o;

	*err = conn_send(c, cmd);
	while (!*err && (o = conn_next(c, err))) {
		if (json_object_get(o, "return") || json_object_get(o, "error"))
			return o;
		json_decref(o);	/* an event */
	}
	return NULL;
}

/* @cmd's answer (or with no @cmd QEMU's next message) holds @key */
static int conn_expect(struct qmp_conn *c, const char *cmd, const char *key)
{
	json_t *o;
	int ret = 0;

	o = cmd ? conn_ask(c, cmd, &ret) : conn_next(c, &ret);
	if (!o)
		return ret;
	if (!json_object_get(o, key))
		ret = -EPROTO;
	json_decref(o);
	return ret;
}

/* a unix socket connected to @path, non-blocking, or -errno */
static int conn_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		/* a full backlog: other clients wait already */
		ret = errno == EAGAIN ? -EBUSY : -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* /proc/<pid>/cmdline into @buf (bounded), its length or -errno */
static int read_cmdline(int pid, char *buf, size_t size)
{
	size_t len = 0;
	char path[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size && (n = read(fd, buf + len, size - len)) > 0)
		len += (size_t)n;
	close(fd);
	return (int)len;
}

/**
 * vcpu_qmp_query() - QEMU's vCPU threads, asked of its QMP monitor
 * @pid: QEMU's pid
 * @cpu: receives the vCPUs (vcpu_qmp_parse_cpus())
 * @max: entries of @cpu
 * @path: receives the monitor's socket ("" if none found), for the log
 * @path_size: size of @path
 *
 * Return: the number of vCPUs, -ENOENT (no QMP monitor on a unix
 * socket), -ETIMEDOUT (no greeting or answer within GR_QMP_BUDGET_MS:
 * another client holds the monitor, or QEMU does not run), -EBUSY, the
 * -errno of connect() (-EACCES, -ECONNREFUSED) or of the answer's checks.
 */
int vcpu_qmp_query(int pid, struct gr_vcpu *cpu, unsigned int max,
		   char *path, size_t path_size)
{
	struct qmp_conn c = { .fd = -1 };
	json_t *o;
	int ret;

	path[0] = '\0';
	c.buf = malloc(GR_QMP_CMDLINE_MAX > GR_QMP_ANSWER_MAX + 1 ?
		       GR_QMP_CMDLINE_MAX : GR_QMP_ANSWER_MAX + 1);
	if (!c.buf)
		return -ENOMEM;
	ret = read_cmdline(pid, c.buf, GR_QMP_CMDLINE_MAX);
	if (ret >= 0)
		ret = vcpu_qmp_path(c.buf, (size_t)ret, path, path_size);
	if (ret)
		goto out;
	c.deadline = gr_mono_ns() + GR_QMP_BUDGET_MS * NSEC_PER_MSEC;
	c.fd = conn_open(path);
	if (c.fd < 0) {
		ret = c.fd;
		goto out;
	}
	ret = conn_expect(&c, NULL, "QMP");	/* the greeting */
	if (!ret)
		ret = conn_expect(&c, "{\"execute\": \"qmp_capabilities\"}\n",
				  "return");
	if (ret)
		goto out;
	o = conn_ask(&c, "{\"execute\": \"query-cpus-fast\"}\n", &ret);
	if (!o)
		goto out;
	ret = parse_cpus(o, pid, cpu, max);
	json_decref(o);
out:
	if (c.fd >= 0)
		close(c.fd);
	free(c.buf);
	return ret;
}
