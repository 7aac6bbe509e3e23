// SPDX-License-Identifier: GPL-2.0
/*
 * test_ivshmem_qemu.c - a real QEMU attaches to qemu-device/
 *
 * Doorbell: our server (driven by its own thread, as the agent's loop
 * would drive it) hands a memfd and eventfds to a real QEMU started with
 * the arguments ivsh_qemu_argv() produces, while a second client of ours
 * plays another peer. Checked: QEMU connects and gets a peer id, stays up
 * (QMP answers, status prelaunch), shows an ivshmem device 1af4:1110 whose
 * BAR2 has the size of our memory, maps the very same pages (read and
 * written through /proc/PID/mem), drains a host -> guest doorbell, and its
 * exit reaches the server and is announced to the other peer.
 *
 * Plain: QEMU maps a /dev/shm file made by ivsh_shm_create_file() through
 * memory-backend-file; BAR2 size and shared pages checked the same way.
 *
 * The CPU never runs (-S): no guest kernel is needed. Everything runs
 * under time limits; QEMU is killed by PID at the end; nothing is left in
 * /dev/shm or in the socket directory. Without qemu-system-x86_64 the test
 * exits 77.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gr_test.h"

#include "ivshmem_client.h"
#include "ivshmem_server.h"
#include "qemu_args.h"
#include "shm.h"

#define SHM_SIZE	(1u << 20)
#define VECTORS		2
#define QEMU_ID		"gr0"
#define STEP_MS		20000	/* limit for any single wait */
#define TOTAL_S		240	/* limit for the whole program */

static const char *qemu_bin;
static char tmpdir[64];
static char sock_path[128];
static char qmp_path[128];
static char log_path[128];
static char shm_name[64];
static volatile pid_t qemu_pid = -1;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void on_alarm(int sig)
{
	static const char msg[] = "test_ivshmem_qemu: time limit reached\n";

	(void)sig;
	if (qemu_pid > 0)
		kill(qemu_pid, SIGKILL);
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(1);
}

/* --- the server, driven by its own thread -------------------------------- */

struct server_thread {
	pthread_t thread;
	pthread_mutex_t lock;
	struct ivsh_server srv;
	int stop_fd;
	int added[32];
	unsigned int nr_added;
	int removed[32];
	unsigned int nr_removed;
};

static void srv_log(void *data, int prio, const char *fmt, va_list ap)
{
	(void)data;
	fprintf(stderr, "  [server prio %d] ", prio);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* called by the server with st->lock held (from the thread) */
static void srv_on_peer(void *data, enum ivsh_peer_change what, int id,
			int sock_fd)
{
	struct server_thread *st = data;

	(void)sock_fd;
	if (what == IVSH_PEER_ADDED && st->nr_added < 32)
		st->added[st->nr_added++] = id;
	if (what == IVSH_PEER_REMOVED && st->nr_removed < 32)
		st->removed[st->nr_removed++] = id;
}

static void *server_main(void *arg)
{
	struct server_thread *st = arg;
	struct ivsh_fd fds[64];
	struct pollfd pfd[65];

	for (;;) {
		unsigned int n, i, np = 0;

		pthread_mutex_lock(&st->lock);
		n = ivsh_server_fds(&st->srv, fds, 64);
		pthread_mutex_unlock(&st->lock);
		for (i = 0; i < n && i < 64; i++) {
			if (fds[i].kind == IVSH_FD_SELF)
				continue;	/* the test reads those */
			pfd[np].fd = fds[i].fd;
			pfd[np].events = POLLIN;
			fds[np++] = fds[i];
		}
		pfd[np].fd = st->stop_fd;
		pfd[np].events = POLLIN;
		if (poll(pfd, np + 1, 100) < 0 && errno != EINTR)
			break;
		if (pfd[np].revents)
			break;
		pthread_mutex_lock(&st->lock);
		for (i = 0; i < np; i++) {
			if (!pfd[i].revents)
				continue;
			if (fds[i].kind == IVSH_FD_LISTEN)
				ivsh_server_accept(&st->srv);
			else
				ivsh_server_peer_event(&st->srv,
						       fds[i].peer_id);
		}
		pthread_mutex_unlock(&st->lock);
	}
	return NULL;
}

static int server_start(struct server_thread *st, int shm_fd)
{
	struct ivsh_server_opts opts = {
		.sock_mode = 0600,
		.log = srv_log,
		.on_peer = srv_on_peer,
		.peer_data = st,
	};
	int ret;

	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	ret = ivsh_server_init(&st->srv, sock_path, shm_fd, VECTORS, &opts);
	if (ret)
		return ret;
	st->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (st->stop_fd < 0 ||
	    pthread_create(&st->thread, NULL, server_main, st)) {
		ivsh_server_finish(&st->srv);
		return -EAGAIN;
	}
	return 0;
}

static void server_stop(struct server_thread *st)
{
	ivsh_eventfd_signal(st->stop_fd);
	pthread_join(st->thread, NULL);
	close(st->stop_fd);
	ivsh_server_finish(&st->srv);
	pthread_mutex_destroy(&st->lock);
}

/* wait until the server added (or removed) at least @n peers */
static bool server_wait(struct server_thread *st, bool removed,
			unsigned int n)
{
	int64_t deadline = now_ms() + STEP_MS;
	bool ok;

	do {
		pthread_mutex_lock(&st->lock);
		ok = (removed ? st->nr_removed : st->nr_added) >= n;
		pthread_mutex_unlock(&st->lock);
		if (ok)
			return true;
		msleep(10);
	} while (now_ms() < deadline);
	return false;
}

/* --- QEMU and QMP ------------------------------------------------------- */

static const char *find_qemu(void)
{
	static char path[512];
	const char *env = getenv("PATH");
	char *dirs, *dir, *save = NULL;

	if (!env)
		env = "/usr/bin:/bin";
	dirs = strdup(env);
	if (!dirs)
		return NULL;
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/qemu-system-x86_64", dir);
		if (access(path, X_OK) == 0) {
			free(dirs);
			return path;
		}
	}
	free(dirs);
	return NULL;
}

/* start QEMU paused, with @extra (NULL-terminated) appended */
static pid_t qemu_start(char **extra)
{
	struct rlimit no_core = { 0, 0 };
	char qmp_arg[160];
	const char *argv[32];
	int argc = 0, i, fd;
	pid_t pid;

	snprintf(qmp_arg, sizeof(qmp_arg), "unix:%s,server=on,wait=off",
		 qmp_path);
	argv[argc++] = qemu_bin;
	argv[argc++] = "-accel";
	argv[argc++] = "tcg";
	argv[argc++] = "-M";
	argv[argc++] = "q35";
	argv[argc++] = "-m";
	argv[argc++] = "64";
	argv[argc++] = "-display";
	argv[argc++] = "none";
	argv[argc++] = "-nodefaults";
	argv[argc++] = "-S";
	argv[argc++] = "-qmp";
	argv[argc++] = qmp_arg;
	for (i = 0; extra[i] && argc < 31; i++)
		argv[argc++] = extra[i];
	argv[argc] = NULL;

	pid = fork();
	if (pid != 0)
		return pid;
	/* an aborting QEMU must not leave a core file behind */
	setrlimit(RLIMIT_CORE, &no_core);
	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		dup2(fd, 0);
	execv(qemu_bin, (char **)argv);
	_exit(127);
}

static void print_qemu_log(void)
{
	char buf[4096];
	ssize_t n;
	int fd = open(log_path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	fprintf(stderr, "  --- QEMU output ---\n");
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stderr) != (size_t)n)
			break;
	fprintf(stderr, "  -------------------\n");
	close(fd);
}

/* wait for QEMU to exit; kill it if it will not. Return: exit status */
static int qemu_reap(pid_t pid, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	int status = -1;

	while (now_ms() < deadline) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			goto out;
		msleep(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	status = -1;
out:
	if (pid == qemu_pid)
		qemu_pid = -1;
	return status;
}

static bool qemu_alive(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) == 0;
}

struct qmp {
	int fd;
	char *buf;
	size_t len;
	size_t cap;
};

/* one line from QMP (events skipped unless @events); malloc'd, or NULL */
static char *qmp_line(struct qmp *q, bool events)
{
	int64_t deadline = now_ms() + STEP_MS;

	for (;;) {
		char *nl = q->len ? memchr(q->buf, '\n', q->len) : NULL;

		if (nl) {
			size_t n = (size_t)(nl - q->buf) + 1;
			char *line = strndup(q->buf, n);

			memmove(q->buf, q->buf + n, q->len - n);
			q->len -= n;
			if (line && !events && strstr(line, "\"event\"")) {
				free(line);
				continue;
			}
			return line;
		}
		if (q->len + 4096 > q->cap) {
			char *b = realloc(q->buf, q->cap * 2 + 4096);

			if (!b)
				return NULL;
			q->buf = b;
			q->cap = q->cap * 2 + 4096;
		}
		{
			struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
			int64_t left = deadline - now_ms();
			ssize_t n;

			if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
				return NULL;
			n = read(q->fd, q->buf + q->len, q->cap - q->len);
			if (n <= 0)
				return NULL;
			q->len += (size_t)n;
		}
	}
}

static char *qmp_cmd(struct qmp *q, const char *cmd)
{
	size_t len = strlen(cmd);

	if (write(q->fd, cmd, len) != (ssize_t)len)
		return NULL;
	return qmp_line(q, false);
}

static int qmp_open(struct qmp *q)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int64_t deadline = now_ms() + STEP_MS;
	char *line;

	memset(q, 0, sizeof(*q));
	strcpy(sun.sun_path, qmp_path);
	for (;;) {
		q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (q->fd < 0)
			return -errno;
		if (!connect(q->fd, (struct sockaddr *)&sun, sizeof(sun)))
			break;
		close(q->fd);
		q->fd = -1;
		if (now_ms() > deadline || (qemu_pid > 0 && !qemu_alive(qemu_pid)))
			return -ETIMEDOUT;
		msleep(20);
	}
	line = qmp_line(q, false);		/* greeting */
	if (!line || !strstr(line, "\"QMP\"")) {
		free(line);
		return -EPROTO;
	}
	free(line);
	line = qmp_cmd(q, "{\"execute\": \"qmp_capabilities\"}\n");
	if (!line || !strstr(line, "\"return\"")) {
		free(line);
		return -EPROTO;
	}
	free(line);
	return 0;
}

static void qmp_close(struct qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	free(q->buf);
	q->buf = NULL;
}

/* --- a little JSON, enough for query-pci -------------------------------- */

/* end of the object or array starting at @p ('{' or '['), or NULL */
static const char *json_skip(const char *p)
{
	int depth = 0;
	bool str = false;

	for (; *p; p++) {
		if (str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				str = false;
			continue;
		}
		if (*p == '"')
			str = true;
		else if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
	}
	return NULL;
}

/*
 * The innermost object holding "qdev_id": "@id"; *@end gets its end.
 * Scans with a stack of open objects, aware of strings.
 */
static const char *json_find_device(const char *json, const char *id,
				    const char **end)
{
	const char *stack[64];
	char want[96];
	int depth = 0;
	const char *p;
	bool str = false;

	snprintf(want, sizeof(want), "\"qdev_id\": \"%s\"", id);
	for (p = json; *p; p++) {
		if (str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				str = false;
			continue;
		}
		if (*p == '"') {
			if (!strncmp(p, want, strlen(want)) && depth > 0) {
				*end = json_skip(stack[depth - 1]);
				return *end ? stack[depth - 1] : NULL;
			}
			str = true;
		} else if (*p == '{' || *p == '[') {
			if (depth == 64)
				return NULL;
			stack[depth++] = p;
		} else if ((*p == '}' || *p == ']') && depth > 0) {
			depth--;
		}
	}
	return NULL;
}

/* the integer after "@key": within [@p, @end) */
static bool json_int(const char *p, const char *end, const char *key,
		     long long *out)
{
	char want[64];
	const char *k;
	char *stop;

	snprintf(want, sizeof(want), "\"%s\": ", key);
	k = memmem(p, (size_t)(end - p), want, strlen(want));
	if (!k)
		return false;
	*out = strtoll(k + strlen(want), &stop, 10);
	return stop != k + strlen(want) && stop <= end;
}

struct pci_dev {
	long long vendor;
	long long device;
	long long bar_size[6];		/* -1: no such BAR */
};

static bool query_device(struct qmp *q, const char *id, struct pci_dev *d)
{
	const char *obj, *end, *ids, *ide, *r, *rend;
	char *resp;
	bool ok = false;
	int i;

	for (i = 0; i < 6; i++)
		d->bar_size[i] = -1;
	resp = qmp_cmd(q, "{\"execute\": \"query-pci\"}\n");
	if (!resp)
		return false;
	obj = json_find_device(resp, id, &end);
	if (!obj)
		goto out;
	ids = memmem(obj, (size_t)(end - obj), "\"id\": {", 7);
	if (!ids)
		goto out;
	ide = json_skip(ids + 6);
	if (!ide || !json_int(ids, ide, "vendor", &d->vendor) ||
	    !json_int(ids, ide, "device", &d->device))
		goto out;
	r = memmem(obj, (size_t)(end - obj), "\"regions\": [", 12);
	if (!r)
		goto out;
	rend = json_skip(r + 11);
	for (r = r + 12; r && r < rend; r++) {
		const char *re;
		long long bar, size;

		if (*r != '{')
			continue;
		re = json_skip(r);
		if (!re)
			break;
		if (json_int(r, re, "bar", &bar) &&
		    json_int(r, re, "size", &size) && bar >= 0 && bar < 6)
			d->bar_size[bar] = size;
		r = re - 1;
	}
	ok = true;
out:
	free(resp);
	return ok;
}

/* --- QEMU's view of the memory: /proc/PID/maps and /proc/PID/mem --------- */

/* start address of @pid's mapping of a file whose name contains @what */
static unsigned long long find_mapping(pid_t pid, const char *what,
				       unsigned long long *len)
{
	char path[64], line[512];
	unsigned long long start = 0, stop;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, what))
			continue;
		if (sscanf(line, "%llx-%llx", &start, &stop) == 2) {
			*len = stop - start;
			break;
		}
		start = 0;
	}
	fclose(f);
	return start;
}

/*
 * Prove that QEMU maps the same pages as @mine: a pattern written here is
 * read through QEMU's mapping, and one written there is read here.
 */
static void check_same_pages(pid_t pid, const char *what,
			     volatile unsigned char *mine, uint64_t size)
{
	static const char ours[] = "written by the host test";
	static const char theirs[] = "written into QEMU";
	unsigned long long addr, len = 0;
	char path[64], buf[64];
	int fd;

	addr = find_mapping(pid, what, &len);
	CU_ASSERT_FATAL(addr != 0);
	CU_ASSERT_EQUAL(len, size);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);

	memcpy((void *)(mine + size - 4096), ours, sizeof(ours));
	CU_ASSERT_EQUAL(pread(fd, buf, sizeof(ours),
			      (off_t)(addr + size - 4096)),
			(ssize_t)sizeof(ours));
	CU_ASSERT_EQUAL(memcmp(buf, ours, sizeof(ours)), 0);

	CU_ASSERT_EQUAL(pwrite(fd, theirs, sizeof(theirs), (off_t)addr),
			(ssize_t)sizeof(theirs));
	CU_ASSERT_EQUAL(memcmp((const void *)mine, theirs, sizeof(theirs)),
			0);
	close(fd);
}

/* --- tests -------------------------------------------------------------- */

struct gone_events {
	int last_gone;
	unsigned int gone;
};

static void client_event(void *data, enum ivsh_client_event ev, int id,
			 unsigned int vector)
{
	struct gone_events *g = data;

	(void)vector;
	if (ev == IVSH_CLIENT_GONE) {
		g->gone++;
		g->last_gone = id;
	}
}

/* the doorbell device of these tests: our server, VECTORS vectors */
static const struct ivsh_attach doorbell_at = {
	.model = IVSH_MODEL_DOORBELL,
	.id = QEMU_ID,
	.sock_path = sock_path,
	.vectors = VECTORS,
	.ioeventfd = true,
};

/* start QEMU with the device @at; the test ends here if it cannot */
static void qemu_start_with(const struct ivsh_attach *at)
{
	char **argv = NULL;

	CU_ASSERT_FATAL(ivsh_qemu_argv(at, &argv) == 4);
	qemu_pid = qemu_start(argv);
	ivsh_argv_free(argv);
	CU_ASSERT_FATAL(qemu_pid > 0);
}

static void test_qemu_doorbell_connects_maps_and_disconnects(void)
{
	struct gone_events ge = { -1, 0 };
	struct ivsh_client_opts co = { .on_event = client_event,
				       .event_data = &ge };
	struct server_thread st;
	struct ivsh_client peer;
	struct ivsh_shm shm;
	struct pci_dev dev;
	struct qmp q = { .fd = -1 };
	char *resp;
	int qemu_peer = -1, efd, i, status;
	int64_t deadline;

	CU_ASSERT_FATAL(ivsh_shm_create_memfd(&shm, "gr-itest", SHM_SIZE) == 0);
	CU_ASSERT_FATAL(ivsh_shm_map(&shm) == 0);
	CU_ASSERT_FATAL(server_start(&st, shm.fd) == 0);

	/* another peer first, so that QEMU's arrival is announced to it */
	CU_ASSERT_FATAL(ivsh_client_connect(&peer, sock_path, VECTORS,
					    &co) == 0);
	CU_ASSERT_EQUAL(ivsh_client_id(&peer), 1);
	CU_ASSERT_FATAL(server_wait(&st, false, 1));

	qemu_start_with(&doorbell_at);

	/* QEMU connects while it realizes the device, before QMP is up */
	if (!server_wait(&st, false, 2)) {
		print_qemu_log();
		CU_FAIL_FATAL("QEMU did not connect to the ivshmem server");
	}
	pthread_mutex_lock(&st.lock);
	qemu_peer = st.added[1];
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&st.srv), 2);
	pthread_mutex_unlock(&st.lock);
	CU_ASSERT_EQUAL(qemu_peer, 2);

	if (qmp_open(&q)) {
		print_qemu_log();
		CU_FAIL_FATAL("no QMP connection to QEMU");
	}
	resp = qmp_cmd(&q, "{\"execute\": \"query-status\"}\n");
	CU_ASSERT_PTR_NOT_NULL(resp);
	CU_ASSERT_PTR_NOT_NULL(resp ? strstr(resp, "\"prelaunch\"") : NULL);
	free(resp);
	CU_ASSERT(qemu_alive(qemu_pid));

	CU_ASSERT_FATAL(query_device(&q, QEMU_ID, &dev));
	CU_ASSERT_EQUAL(dev.vendor, 0x1af4);
	CU_ASSERT_EQUAL(dev.device, 0x1110);
	CU_ASSERT_EQUAL(dev.bar_size[0], 256);		/* registers */
	CU_ASSERT(dev.bar_size[1] > 0);			/* MSI-X */
	CU_ASSERT_EQUAL(dev.bar_size[2], SHM_SIZE);	/* our memory */

	check_same_pages(qemu_pid, "/memfd:gr-itest", shm.addr, SHM_SIZE);

	/* the other peer learnt about QEMU and can ring it */
	deadline = now_ms() + STEP_MS;
	while (ivsh_client_peer_vectors(&peer, qemu_peer) < VECTORS &&
	       now_ms() < deadline)
		ivsh_client_process(&peer, 100);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&peer, qemu_peer), VECTORS);

	/*
	 * Host -> guest doorbell: QEMU reads and clears its eventfd even with
	 * MSI-X disabled; we hold the same eventfd and see the counter drop.
	 */
	for (i = 0; i < VECTORS; i++) {
		struct pollfd pfd;

		pthread_mutex_lock(&st.lock);
		efd = ivsh_server_peer_eventfd(&st.srv, qemu_peer, i);
		CU_ASSERT(efd >= 0);
		CU_ASSERT_EQUAL(ivsh_server_notify(&st.srv, qemu_peer, i), 0);
		pthread_mutex_unlock(&st.lock);
		pfd.fd = efd;
		pfd.events = POLLIN;
		deadline = now_ms() + STEP_MS;
		do {
			pfd.revents = 0;
			if (poll(&pfd, 1, 0) == 0)
				break;
			msleep(10);
		} while (now_ms() < deadline);
		CU_ASSERT_EQUAL(pfd.revents & POLLIN, 0);
	}
	CU_ASSERT(qemu_alive(qemu_pid));

	/* QEMU quits: the server notices, the other peer is told */
	resp = qmp_cmd(&q, "{\"execute\": \"quit\"}\n");
	free(resp);
	qmp_close(&q);
	status = qemu_reap(qemu_pid, STEP_MS);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT(server_wait(&st, true, 1));
	pthread_mutex_lock(&st.lock);
	CU_ASSERT_EQUAL(st.removed[0], qemu_peer);
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&st.srv), 1);
	pthread_mutex_unlock(&st.lock);
	deadline = now_ms() + STEP_MS;
	while (!ge.gone && now_ms() < deadline)
		ivsh_client_process(&peer, 100);
	CU_ASSERT_EQUAL(ge.gone, 1);
	CU_ASSERT_EQUAL(ge.last_gone, qemu_peer);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&peer, qemu_peer), 0);

	ivsh_client_close(&peer);
	server_stop(&st);
	ivsh_shm_close(&shm);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
}

static void test_qemu_doorbell_restart_gets_fresh_id(void)
{
	struct server_thread st;
	struct ivsh_shm shm;
	struct pci_dev dev;
	struct qmp q = { .fd = -1 };
	char **argv = NULL;
	int round;

	CU_ASSERT_FATAL(ivsh_shm_create_memfd(&shm, "gr-itest", SHM_SIZE) == 0);
	CU_ASSERT_FATAL(server_start(&st, shm.fd) == 0);
	CU_ASSERT_FATAL(ivsh_qemu_argv(&doorbell_at, &argv) == 4);

	for (round = 0; round < 2; round++) {
		qemu_pid = qemu_start(argv);
		CU_ASSERT_FATAL(qemu_pid > 0);
		if (!server_wait(&st, false, (unsigned int)round + 1)) {
			print_qemu_log();
			CU_FAIL_FATAL("QEMU did not connect");
		}
		pthread_mutex_lock(&st.lock);
		CU_ASSERT_EQUAL(st.added[round], round + 1);
		pthread_mutex_unlock(&st.lock);
		CU_ASSERT_FATAL(qmp_open(&q) == 0);
		CU_ASSERT(query_device(&q, QEMU_ID, &dev));
		CU_ASSERT_EQUAL(dev.bar_size[2], SHM_SIZE);
		qmp_close(&q);
		/* killed, not quit: the server must notice all the same */
		kill(qemu_pid, SIGKILL);
		qemu_reap(qemu_pid, STEP_MS);
		CU_ASSERT(server_wait(&st, true, (unsigned int)round + 1));
	}
	ivsh_argv_free(argv);
	server_stop(&st);
	ivsh_shm_close(&shm);
}

static void test_qemu_plain_maps_our_dev_shm_file(void)
{
	struct ivsh_shm_file_opts fo = { .mode = 0600 };
	struct ivsh_attach at = {
		.model = IVSH_MODEL_PLAIN,
		.id = QEMU_ID,
		.name = shm_name,
		.size = SHM_SIZE,
	};
	struct ivsh_shm shm;
	struct pci_dev dev;
	struct qmp q = { .fd = -1 };
	char what[96];
	char *resp;
	int status;

	CU_ASSERT_FATAL(ivsh_shm_create_file(&shm, shm_name, SHM_SIZE,
					     &fo) == 0);
	CU_ASSERT_FATAL(ivsh_shm_map(&shm) == 0);
	qemu_start_with(&at);
	if (qmp_open(&q)) {
		print_qemu_log();
		kill(qemu_pid, SIGKILL);
		qemu_reap(qemu_pid, STEP_MS);
		ivsh_shm_close(&shm);
		ivsh_shm_unlink(shm_name);
		CU_FAIL_FATAL("no QMP connection to QEMU");
	}
	CU_ASSERT(query_device(&q, QEMU_ID, &dev));
	CU_ASSERT_EQUAL(dev.vendor, 0x1af4);
	CU_ASSERT_EQUAL(dev.device, 0x1110);
	CU_ASSERT_EQUAL(dev.bar_size[0], 256);
	CU_ASSERT_EQUAL(dev.bar_size[1], -1);		/* no MSI-X */
	CU_ASSERT_EQUAL(dev.bar_size[2], SHM_SIZE);

	snprintf(what, sizeof(what), IVSH_SHM_DIR "/%s", shm_name);
	check_same_pages(qemu_pid, what, shm.addr, SHM_SIZE);

	resp = qmp_cmd(&q, "{\"execute\": \"quit\"}\n");
	free(resp);
	qmp_close(&q);
	status = qemu_reap(qemu_pid, STEP_MS);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ivsh_shm_close(&shm);
	CU_ASSERT_EQUAL(ivsh_shm_unlink(shm_name), 0);
}

static void test_qemu_refuses_plain_size_not_power_of_two(void)
{
	/*
	 * Why the size checks exist: QEMU refuses a backend whose size is
	 * not a power of two. Our generator never produces one.
	 */
	char backend[256];
	char *extra[] = { "-object", backend, "-device",
			  "ivshmem-plain,id=" QEMU_ID ",memdev=m", NULL };
	struct ivsh_attach at = {
		.model = IVSH_MODEL_PLAIN,
		.name = shm_name,
		.size = 3 * SHM_SIZE,
	};
	char **argv = NULL;
	int status;

	CU_ASSERT_EQUAL(ivsh_qemu_argv(&at, &argv), -EINVAL);
	snprintf(backend, sizeof(backend),
		 "memory-backend-ram,id=m,share=on,size=%u", 3 * SHM_SIZE);
	qemu_pid = qemu_start(extra);
	CU_ASSERT_FATAL(qemu_pid > 0);
	status = qemu_reap(qemu_pid, STEP_MS);
	/* QEMU 7.2 aborts on an assertion in pci_register_bar() */
	CU_ASSERT(status != -1);
	CU_ASSERT((WIFEXITED(status) && WEXITSTATUS(status) != 0) ||
		  WIFSIGNALED(status));
}

static bool dir_empty(const char *path)
{
	struct dirent *d;
	bool empty = true;
	DIR *dir = opendir(path);

	if (!dir)
		return true;
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			empty = false;
	closedir(dir);
	return empty;
}

static void test_nothing_left_behind(void)
{
	char path[128];

	snprintf(path, sizeof(path), IVSH_SHM_DIR "/%s", shm_name);
	CU_ASSERT_EQUAL(access(path, F_OK), -1);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
	unlink(qmp_path);	/* QEMU does not remove its QMP socket */
	unlink(log_path);
	CU_ASSERT(dir_empty(tmpdir));
}

static const struct gr_test tests[] = {
#define T(f) GR_TEST(f)
	T(test_qemu_doorbell_connects_maps_and_disconnects),
	T(test_qemu_doorbell_restart_gets_fresh_id),
	T(test_qemu_plain_maps_our_dev_shm_file),
	T(test_qemu_refuses_plain_size_not_power_of_two),
	T(test_nothing_left_behind),
#undef T
};

int main(void)
{
	int ret;

	qemu_bin = find_qemu();
	if (!qemu_bin)
		return gr_test_skip("qemu-system-x86_64 not found in PATH");
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	alarm(TOTAL_S);

	if (gr_test_tmpdir(tmpdir, sizeof(tmpdir), "gr-ivq")) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock_path, sizeof(sock_path), "%s/ivshmem.sock", tmpdir);
	snprintf(qmp_path, sizeof(qmp_path), "%s/qmp.sock", tmpdir);
	snprintf(log_path, sizeof(log_path), "%s/qemu.log", tmpdir);
	snprintf(shm_name, sizeof(shm_name), "gr-itest-%d", (int)getpid());

	ret = gr_test_main("ivshmem_qemu", tests, ARRAY_SIZE(tests),
			   NULL, NULL);
	/* whatever happened: no QEMU, no files of ours stay behind */
	if (qemu_pid > 0)
		qemu_reap(qemu_pid, 0);
	ivsh_shm_unlink(shm_name);
	unlink(sock_path);
	unlink(qmp_path);
	unlink(log_path);
	rmdir(tmpdir);
	return ret;
}
