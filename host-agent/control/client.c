// SPDX-License-Identifier: GPL-2.0
/*
 * client.c - the one client of the agent's control socket (client.h):
 * the CLI and the libvirt hook build, send and read requests here, so
 * both speak ctl_proto.h the same way and bound every wait.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"
#include "ctl_proto.h"
#include "opts.h"

static void set_why(struct ctl_answer *ans, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_why(struct ctl_answer *ans, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ans->why, sizeof(ans->why), fmt, ap);
	va_end(ap);
}

/* FORMAT COMMAND ARGS... LF, the arguments percent-encoded */
static int request_line(bool json, const char *cmd, int argc,
			char *const *argv, const struct gr_vm_opts *o,
			char **line, size_t *len)
{
	FILE *f = open_memstream(line, len);
	int i;

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s %s", json ? "json" : "text", cmd);
	for (i = 0; i < argc; i++) {
		fputc(' ', f);
		ctl_encode_arg(f, argv[i]);
	}
	if (o)
		ctl_vm_add_args(f, o);
	fputc('\n', f);
	if (fclose(f)) {
		free(*line);
		*line = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int agent_connect(const char *run_dir, unsigned int timeout_ms,
			 struct ctl_answer *ans)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = {
		.tv_sec = timeout_ms / 1000,
		.tv_usec = (timeout_ms % 1000) * 1000,
	};
	int fd, err;

	if ((size_t)snprintf(ans->path, sizeof(ans->path), "%s/%s", run_dir,
			     GR_CTL_SOCK_NAME) >= sizeof(ans->path) ||
	    strlen(ans->path) >= sizeof(sun.sun_path)) {
		set_why(ans, "run directory '%s' is too long for a socket "
			"path", run_dir);
		return -ENAMETOOLONG;
	}
	strcpy(sun.sun_path, ans->path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		set_why(ans, "cannot create a socket: %s", strerror(err));
		return -err;
	}
	/* SO_SNDTIMEO also bounds a connect() to a full backlog */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (!connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		ans->connected = true;
		return fd;
	}
	err = errno;
	close(fd);
	set_why(ans, "cannot reach the agent at %s: %s", ans->path,
		strerror(err));
	return -err;
}

/* the whole answer into @ans->buf, until the agent closes */
static int read_answer(int fd, unsigned int timeout_ms,
		       struct ctl_answer *ans)
{
	size_t cap = 0, got = 0;
	ssize_t n;
	char *p;

	for (;;) {
		if (got == cap) {
			if (cap >= CTL_REPLY_MAX) {
				set_why(ans, "the agent's answer is larger "
					"than %u bytes", CTL_REPLY_MAX);
				return -EFBIG;
			}
			cap = cap ? 2 * cap : 4096;
			p = realloc(ans->buf, cap + 1);
			if (!p) {
				set_why(ans, "out of memory");
				return -ENOMEM;
			}
			ans->buf = p;
		}
		n = recv(fd, ans->buf + got, cap - got, 0);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (!n)
			break;
		if (errno == EINTR)
			continue;
		if (errno == ECONNRESET && got)
			break;	/* it answered, then closed unread input */
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (timeout_ms % 1000)
				set_why(ans, "no answer from the agent at %s "
					"within %u ms", ans->path, timeout_ms);
			else
				set_why(ans, "no answer from the agent at %s "
					"within %u s", ans->path,
					timeout_ms / 1000);
			return -ETIMEDOUT;
		}
		n = -errno;
		set_why(ans, "reading the agent's answer: %s", strerror(errno));
		return (int)n;
	}
	if (!got) {
		set_why(ans, "the agent at %s closed the connection without "
			"an answer (see its log)", ans->path);
		return -ENODATA;
	}
	ans->buf[got] = '\0';
	switch (ctl_split_answer(ans->buf, got, &ans->body, &ans->len,
				 ans->ename, sizeof(ans->ename))) {
	case 0:
		return 0;
	case 1:
		ans->error = true;
		return 0;
	}
	p = strchr(ans->buf, '\n');
	if (p)
		*p = '\0';
	set_why(ans, "unexpected answer from the agent at %s: '%.80s'",
		ans->path, ans->buf);
	return -EPROTO;
}

int ctl_client_call(const char *run_dir, unsigned int timeout_ms, bool json,
		    const char *cmd, int argc, char *const *argv,
		    const struct gr_vm_opts *o, struct ctl_answer *ans)
{
	char *line = NULL, *p;
	size_t len = 0;
	ssize_t n;
	int fd, ret;

	memset(ans, 0, sizeof(*ans));
	if (request_line(json, cmd, argc, argv, o, &line, &len)) {
		set_why(ans, "out of memory");
		return -ENOMEM;
	}
	if (len > CTL_LINE_MAX) {
		free(line);
		set_why(ans, "the request is longer than %d bytes; split it "
			"(fewer events per command)", CTL_LINE_MAX);
		return -EMSGSIZE;
	}
	fd = agent_connect(run_dir, timeout_ms, ans);
	if (fd < 0) {
		free(line);
		return fd;
	}
	for (p = line; len;) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* the agent may have answered already (refusal) */
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	free(line);
	ret = read_answer(fd, timeout_ms, ans);
	close(fd);
	return ret;
}

void ctl_answer_free(struct ctl_answer *ans)
{
	free(ans->buf);
	ans->buf = NULL;
	ans->body = NULL;
}
