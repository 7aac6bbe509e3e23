// SPDX-License-Identifier: GPL-2.0
/*
 * test_ivshmem_proto.c - the ivshmem server and client of qemu-device/,
 * over real UNIX sockets, real memfds and real eventfds, in one process:
 * the server is driven by poll(2) as an owner would drive it. (Shared
 * memory and the attach arguments: test_shm_attach.c.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "gr_test.h"

#include "ivshmem_client.h"
#include "ivshmem_proto.h"
#include "ivshmem_server.h"
#include "qemu_args.h"
#include "shm.h"

#define SHM_SIZE	(64u << 10)
#define MANY		64

static char tmpdir[64];
static char sock_path[128];

/* --- helpers ------------------------------------------------------------ */

static char last_log[512];
static unsigned int nr_logs;

static void test_log(void *data, int prio, const char *fmt, va_list ap)
{
	(void)data;
	(void)prio;
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	nr_logs++;
}

struct peer_changes {
	unsigned int added;
	unsigned int removed;
	int last_removed_id;
};

static void test_on_peer(void *data, enum ivsh_peer_change what,
			 int peer_id, int sock_fd)
{
	struct peer_changes *pc = data;

	CU_ASSERT(sock_fd >= 0);
	if (what == IVSH_PEER_ADDED) {
		pc->added++;
	} else {
		pc->removed++;
		pc->last_removed_id = peer_id;
	}
}

struct client_events {
	unsigned int vectors;
	unsigned int gone;
	int last_gone;
};

static void test_on_event(void *data, enum ivsh_client_event ev,
			  int peer_id, unsigned int vector)
{
	struct client_events *ce = data;

	(void)vector;
	if (ev == IVSH_CLIENT_VECTOR) {
		ce->vectors++;
	} else {
		ce->gone++;
		ce->last_gone = peer_id;
	}
}

static unsigned int count_fds(void)
{
	struct dirent *d;
	unsigned int n = 0;
	DIR *dir = opendir("/proc/self/fd");

	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;	/* the directory's own descriptor */
}

static int start_server(struct ivsh_server *srv, struct ivsh_shm *shm,
			unsigned int vectors, struct ivsh_server_opts *opts)
{
	int ret;

	ret = ivsh_shm_create_memfd(shm, "gr-test", SHM_SIZE);
	if (ret)
		return ret;
	ret = ivsh_server_init(srv, sock_path, shm->fd, vectors, opts);
	if (ret)
		ivsh_shm_close(shm);
	return ret;
}

static void stop_server(struct ivsh_server *srv, struct ivsh_shm *shm)
{
	ivsh_server_finish(srv);
	ivsh_shm_close(shm);
}

static int last_accept;

/*
 * One turn of an owner's loop: poll the listening socket and the peer
 * sockets (the self eventfds belong to the test), dispatch what is ready.
 * Return: number of descriptors handled.
 */
static int pump(struct ivsh_server *srv, int timeout_ms)
{
	struct ivsh_fd fds[512];
	struct pollfd pfd[512];
	unsigned int n, i, np = 0;
	int handled = 0;

	n = ivsh_server_fds(srv, fds, 512);
	CU_ASSERT_FATAL(n <= 512);
	for (i = 0; i < n; i++) {
		if (fds[i].kind == IVSH_FD_SELF)
			continue;
		pfd[np].fd = fds[i].fd;
		pfd[np].events = POLLIN;
		fds[np] = fds[i];
		np++;
	}
	if (poll(pfd, np, timeout_ms) <= 0)
		return 0;
	for (i = 0; i < np; i++) {
		if (!pfd[i].revents)
			continue;
		handled++;
		if (fds[i].kind == IVSH_FD_LISTEN)
			last_accept = ivsh_server_accept(srv);
		else
			ivsh_server_peer_event(srv, fds[i].peer_id);
	}
	return handled;
}

/* connect a client and let the server accept it; return its id */
static int connect_client(struct ivsh_server *srv, struct ivsh_client *c,
			  unsigned int vectors,
			  const struct ivsh_client_opts *opts)
{
	int ret, tries;

	ret = ivsh_client_open(c, sock_path, vectors, opts);
	if (ret)
		return ret;
	last_accept = -EAGAIN;
	for (tries = 0; tries < 100 && last_accept == -EAGAIN; tries++)
		pump(srv, 10);
	for (tries = 0; tries < 100 && !ivsh_client_ready(c); tries++)
		if (ivsh_client_process(c, 10) < 0)
			break;
	return last_accept;
}

/* apply everything a client has been sent so far */
static void drain(struct ivsh_client *c)
{
	while (ivsh_client_process(c, 0) > 0)
		;
}

static int raw_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sun.sun_path, sock_path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* one message within 1 s: 1, 0 on timeout, -1 on EOF or error */
static int raw_recv(int sock, int64_t *value, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	unsigned char b[8];
	size_t have = 0;
	uint64_t le;

	*fd = -1;
	while (have < sizeof(b)) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		struct iovec iov = { b + have, sizeof(b) - have };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = ctl.buf,
				      .msg_controllen = sizeof(ctl.buf) };
		struct cmsghdr *cm;
		ssize_t n;

		if (poll(&pfd, 1, 1000) != 1)
			return 0;
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return -1;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_type == SCM_RIGHTS)
				memcpy(fd, CMSG_DATA(cm), sizeof(int));
		have += (size_t)n;
	}
	memcpy(&le, b, sizeof(le));
	*value = (int64_t)le64toh(le);
	return 1;
}

static int raw_send(int sock, int64_t value, int fd)
{
	return ivsh_send_msg(sock, value, fd, 1000);
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) == 1 && (pfd.revents & POLLIN);
}

/* --- protocol ----------------------------------------------------------- */

static void test_greeting_has_version_id_shm_self_then_own_eventfds(void)
{
	struct ivsh_server srv;
	struct ivsh_shm shm;
	struct stat st;
	int64_t v;
	int sock, fd, id, i;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 2, NULL) == 0);
	sock = raw_connect();
	CU_ASSERT_FATAL(sock >= 0);
	id = ivsh_server_accept(&srv);
	CU_ASSERT_EQUAL(id, 1);	/* self is 0, first client 1 */

	CU_ASSERT_EQUAL(raw_recv(sock, &v, &fd), 1);
	CU_ASSERT_EQUAL(v, 0);		/* version */
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(raw_recv(sock, &v, &fd), 1);
	CU_ASSERT_EQUAL(v, 1);		/* own id */
	CU_ASSERT_EQUAL(fd, -1);
	CU_ASSERT_EQUAL(raw_recv(sock, &v, &fd), 1);
	CU_ASSERT_EQUAL(v, -1);		/* shared memory */
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT_EQUAL(st.st_size, SHM_SIZE);
	close(fd);
	for (i = 0; i < 2; i++) {	/* the server's self peer */
		CU_ASSERT_EQUAL(raw_recv(sock, &v, &fd), 1);
		CU_ASSERT_EQUAL(v, 0);
		CU_ASSERT(fd >= 0 && ivsh_is_eventfd(fd));
		close(fd);
	}
	for (i = 0; i < 2; i++) {	/* interrupt setup: own id */
		CU_ASSERT_EQUAL(raw_recv(sock, &v, &fd), 1);
		CU_ASSERT_EQUAL(v, 1);
		CU_ASSERT(fd >= 0 && ivsh_is_eventfd(fd));
		close(fd);
	}
	CU_ASSERT(!readable(sock, 50));	/* nothing more */
	close(sock);
	stop_server(&srv, &shm);
}

static void test_shm_fd_received_maps_the_same_memory(void)
{
	struct ivsh_server srv;
	struct ivsh_client c;
	struct ivsh_shm shm;
	uint64_t size = 0;
	volatile uint32_t *mine, *theirs;
	void *p;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, NULL) == 0);
	CU_ASSERT_FATAL(ivsh_shm_map(&shm) == 0);
	CU_ASSERT_FATAL(connect_client(&srv, &c, 1, NULL) == 1);
	CU_ASSERT_FATAL(ivsh_client_ready(&c));
	CU_ASSERT_FATAL(ivsh_client_shm_fd(&c, &size) >= 0);
	CU_ASSERT_EQUAL(size, SHM_SIZE);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ivsh_client_shm_fd(&c, NULL), 0);
	CU_ASSERT_FATAL(p != MAP_FAILED);

	mine = shm.addr;
	theirs = p;
	mine[0] = 0xC0FFEE11;
	mine[SHM_SIZE / 4 - 1] = 0x12345678;
	CU_ASSERT_EQUAL(theirs[0], 0xC0FFEE11);
	CU_ASSERT_EQUAL(theirs[SHM_SIZE / 4 - 1], 0x12345678);
	theirs[100] = 0xA5A5A5A5;
	CU_ASSERT_EQUAL(mine[100], 0xA5A5A5A5);

	munmap(p, size);
	ivsh_client_close(&c);
	stop_server(&srv, &shm);
}

static void test_client_doorbell_to_self_wakes_server_eventfd(void)
{
	struct ivsh_server srv;
	struct ivsh_client c;
	struct ivsh_shm shm;
	uint64_t count = 0;
	int self = 0;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 2, NULL) == 0);
	CU_ASSERT_FATAL(connect_client(&srv, &c, 2, NULL) == 1);
	drain(&c);
	self = ivsh_server_self_id(&srv);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&c, self), 2);

	CU_ASSERT(!readable(ivsh_server_self_eventfd(&srv, 0), 0));
	CU_ASSERT(!readable(ivsh_server_self_eventfd(&srv, 1), 0));
	CU_ASSERT_EQUAL(ivsh_client_notify(&c, self, 1), 0);
	CU_ASSERT(readable(ivsh_server_self_eventfd(&srv, 1), 1000));
	CU_ASSERT(!readable(ivsh_server_self_eventfd(&srv, 0), 0));
	CU_ASSERT_EQUAL(ivsh_eventfd_drain(ivsh_server_self_eventfd(&srv, 1),
					   &count), 0);
	CU_ASSERT_EQUAL(count, 1);
	CU_ASSERT_EQUAL(ivsh_eventfd_drain(ivsh_server_self_eventfd(&srv, 1),
					   &count), -EAGAIN);
	/* a doorbell to nobody, or beyond the vectors, goes nowhere */
	CU_ASSERT_EQUAL(ivsh_client_notify(&c, 77, 0), -ENOENT);
	CU_ASSERT_EQUAL(ivsh_client_notify(&c, self, 2), -ENOENT);
	CU_ASSERT_EQUAL(ivsh_server_self_eventfd(&srv, 2), -EINVAL);

	ivsh_client_close(&c);
	stop_server(&srv, &shm);
}

static void test_server_notify_reaches_client_own_eventfd(void)
{
	struct ivsh_server srv;
	struct ivsh_client c;
	struct ivsh_shm shm;
	uint64_t count = 0;
	int id, fd0, fd1;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 2, NULL) == 0);
	id = connect_client(&srv, &c, 2, NULL);
	CU_ASSERT_FATAL(id == 1);
	drain(&c);
	CU_ASSERT_EQUAL(ivsh_client_id(&c), id);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&c, id), 2);
	fd0 = ivsh_client_peer_eventfd(&c, id, 0);
	fd1 = ivsh_client_peer_eventfd(&c, id, 1);
	CU_ASSERT_FATAL(fd0 >= 0 && fd1 >= 0);

	CU_ASSERT_EQUAL(ivsh_server_notify(&srv, id, 1), 0);
	CU_ASSERT_EQUAL(ivsh_server_notify(&srv, id, 1), 0);
	CU_ASSERT(readable(fd1, 1000));
	CU_ASSERT(!readable(fd0, 0));
	CU_ASSERT_EQUAL(ivsh_eventfd_drain(fd1, &count), 0);
	CU_ASSERT_EQUAL(count, 2);	/* coalesced */
	CU_ASSERT_EQUAL(ivsh_server_notify(&srv, id, 2), -EINVAL);
	CU_ASSERT_EQUAL(ivsh_server_notify(&srv, 9, 0), -ENOENT);

	ivsh_client_close(&c);
	stop_server(&srv, &shm);
}

static void test_second_client_gets_first_and_first_gets_second(void)
{
	struct client_events ea = { 0 }, eb = { 0 };
	struct ivsh_client_opts oa = { .on_event = test_on_event,
				       .event_data = &ea };
	struct ivsh_client_opts ob = { .on_event = test_on_event,
				       .event_data = &eb };
	struct ivsh_server srv;
	struct ivsh_client a, b;
	struct ivsh_shm shm;
	int ida, idb, ids[4];

	CU_ASSERT_FATAL(start_server(&srv, &shm, 2, NULL) == 0);
	ida = connect_client(&srv, &a, 2, &oa);
	drain(&a);
	CU_ASSERT_EQUAL(ea.vectors, 4);	/* self x2, own x2 */
	idb = connect_client(&srv, &b, 2, &ob);
	CU_ASSERT_EQUAL(ida, 1);
	CU_ASSERT_EQUAL(idb, 2);
	drain(&a);
	drain(&b);

	/* b: self and a, each with both vectors, plus its own */
	CU_ASSERT_EQUAL(ivsh_client_peer_ids(&b, ids, 4), 2);
	CU_ASSERT_EQUAL(ids[0], 0);
	CU_ASSERT_EQUAL(ids[1], ida);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&b, ida), 2);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&b, idb), 2);
	CU_ASSERT_EQUAL(eb.vectors, 6);
	/* a: the announcement of b */
	CU_ASSERT_EQUAL(ivsh_client_peer_ids(&a, ids, 4), 2);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&a, idb), 2);
	CU_ASSERT_EQUAL(ea.vectors, 6);
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), 2);

	/* guest-to-guest doorbell, both ways */
	CU_ASSERT_EQUAL(ivsh_client_notify(&a, idb, 0), 0);
	CU_ASSERT(readable(ivsh_client_peer_eventfd(&b, idb, 0), 1000));
	CU_ASSERT_EQUAL(ivsh_client_notify(&b, ida, 1), 0);
	CU_ASSERT(readable(ivsh_client_peer_eventfd(&a, ida, 1), 1000));

	ivsh_client_close(&a);
	ivsh_client_close(&b);
	stop_server(&srv, &shm);
}

static void test_disconnect_is_noticed_and_announced(void)
{
	struct peer_changes pc = { 0 };
	struct ivsh_server_opts so = { .on_peer = test_on_peer,
				       .peer_data = &pc };
	struct client_events ea = { 0 };
	struct ivsh_client_opts oa = { .on_event = test_on_event,
				       .event_data = &ea };
	struct ivsh_server srv;
	struct ivsh_client a, b;
	struct ivsh_shm shm;
	int ida, idb, i;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 2, &so) == 0);
	ida = connect_client(&srv, &a, 2, &oa);
	idb = connect_client(&srv, &b, 2, NULL);
	CU_ASSERT_FATAL(ida == 1 && idb == 2);
	CU_ASSERT_EQUAL(pc.added, 2);
	drain(&a);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&a, idb), 2);

	ivsh_client_close(&b);
	for (i = 0; i < 100 && ivsh_server_nr_peers(&srv) != 1; i++)
		pump(&srv, 10);
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), 1);
	CU_ASSERT_EQUAL(pc.removed, 1);
	CU_ASSERT_EQUAL(pc.last_removed_id, idb);
	CU_ASSERT_EQUAL(ivsh_server_notify(&srv, idb, 0), -ENOENT);
	CU_ASSERT_EQUAL(ivsh_server_peer_event(&srv, idb), -ENOENT);

	CU_ASSERT(ivsh_client_process(&a, 1000) >= 1);
	CU_ASSERT_EQUAL(ea.gone, 1);
	CU_ASSERT_EQUAL(ea.last_gone, idb);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&a, idb), 0);
	CU_ASSERT_EQUAL(ivsh_client_notify(&a, idb, 0), -ENOENT);

	/* the owner may also drop a client; then the server goes away */
	CU_ASSERT_EQUAL(ivsh_server_disconnect(&srv, ida), 0);
	CU_ASSERT_EQUAL(pc.removed, 2);
	CU_ASSERT_EQUAL(ivsh_client_process(&a, 1000), -ECONNRESET);
	ivsh_client_close(&a);
	stop_server(&srv, &shm);
}

static void test_spurious_peer_wakeup_changes_nothing(void)
{
	struct ivsh_server srv;
	struct ivsh_client c;
	struct ivsh_shm shm;
	int id;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, NULL) == 0);
	id = connect_client(&srv, &c, 1, NULL);
	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(ivsh_server_peer_event(&srv, id), 0);
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), 1);
	CU_ASSERT_EQUAL(ivsh_server_accept(&srv), -EAGAIN);
	ivsh_client_close(&c);
	stop_server(&srv, &shm);
}

static void test_peer_ids_are_fresh_and_never_shared(void)
{
	struct ivsh_server srv;
	struct ivsh_client c[4];
	struct ivsh_shm shm;
	int i;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, NULL) == 0);
	CU_ASSERT_EQUAL(connect_client(&srv, &c[0], 1, NULL), 1);
	CU_ASSERT_EQUAL(connect_client(&srv, &c[1], 1, NULL), 2);
	ivsh_client_close(&c[0]);
	for (i = 0; i < 100 && ivsh_server_nr_peers(&srv) != 1; i++)
		pump(&srv, 10);
	/* id 1 is free again, but the next id is handed out first */
	CU_ASSERT_EQUAL(connect_client(&srv, &c[2], 1, NULL), 3);
	ivsh_client_close(&c[1]);
	ivsh_client_close(&c[2]);
	stop_server(&srv, &shm);
}

static void test_peer_ids_wrap_skip_live_ones_and_refuse_when_full(void)
{
	struct ivsh_server_opts so = { .max_id = 3, .log = test_log };
	struct ivsh_server srv;
	struct ivsh_client c[5];
	struct ivsh_shm shm;
	int i;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, &so) == 0);
	CU_ASSERT_EQUAL(connect_client(&srv, &c[0], 1, NULL), 1);
	CU_ASSERT_EQUAL(connect_client(&srv, &c[1], 1, NULL), 2);
	CU_ASSERT_EQUAL(connect_client(&srv, &c[2], 1, NULL), 3);
	/* ids 0 (self) to 3 all live: refused, and the client told so */
	nr_logs = 0;
	CU_ASSERT_EQUAL(connect_client(&srv, &c[3], 1, NULL), -ENOSPC);
	CU_ASSERT_EQUAL(nr_logs, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_log, "no free peer id"));
	CU_ASSERT_EQUAL(ivsh_client_process(&c[3], 1000), -ECONNRESET);
	CU_ASSERT(!ivsh_client_ready(&c[3]));
	ivsh_client_close(&c[3]);

	/* free 2; the search wraps past 0 (self) and 1 (live) to 2 */
	ivsh_client_close(&c[1]);
	for (i = 0; i < 100 && ivsh_server_nr_peers(&srv) != 2; i++)
		pump(&srv, 10);
	CU_ASSERT_EQUAL(connect_client(&srv, &c[4], 1, NULL), 2);
	CU_ASSERT_EQUAL(ivsh_client_id(&c[4]), 2);

	ivsh_client_close(&c[0]);
	ivsh_client_close(&c[2]);
	ivsh_client_close(&c[4]);
	stop_server(&srv, &shm);
}

static void test_max_peers_limit_refuses_connection(void)
{
	struct ivsh_server_opts so = { .max_peers = 1 };
	struct ivsh_server srv;
	struct ivsh_client a, b;
	struct ivsh_shm shm;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, &so) == 0);
	CU_ASSERT_EQUAL(connect_client(&srv, &a, 1, NULL), 1);
	CU_ASSERT_EQUAL(connect_client(&srv, &b, 1, NULL), -ENOSPC);
	CU_ASSERT_EQUAL(ivsh_client_process(&b, 1000), -ECONNRESET);
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), 1);
	ivsh_client_close(&a);
	ivsh_client_close(&b);
	stop_server(&srv, &shm);
}

static void test_peer_that_sends_data_is_refused(void)
{
	struct ivsh_server_opts so = { .log = test_log };
	struct client_events ea = { 0 };
	struct ivsh_client_opts oa = { .on_event = test_on_event,
				       .event_data = &ea };
	struct ivsh_server srv;
	struct ivsh_client a;
	struct ivsh_shm shm;
	int bad, id, i;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, &so) == 0);
	CU_ASSERT_EQUAL(connect_client(&srv, &a, 1, &oa), 1);
	bad = raw_connect();
	CU_ASSERT_FATAL(bad >= 0);
	last_accept = -EAGAIN;
	for (i = 0; i < 100 && last_accept == -EAGAIN; i++)
		pump(&srv, 10);
	id = last_accept;
	CU_ASSERT_EQUAL(id, 2);
	drain(&a);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&a, id), 1);

	nr_logs = 0;
	CU_ASSERT_EQUAL(raw_send(bad, 42, -1), 0);
	for (i = 0; i < 100 && ivsh_server_nr_peers(&srv) != 1; i++)
		pump(&srv, 10);
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), 1);
	CU_ASSERT(nr_logs >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_log, "sent data"));
	/* the others learn that it is gone */
	CU_ASSERT(ivsh_client_process(&a, 1000) >= 1);
	CU_ASSERT_EQUAL(ea.last_gone, id);
	/* and it sees its connection closed, after the greeting */
	{
		int64_t v;
		int fd, r;

		while ((r = raw_recv(bad, &v, &fd)) == 1)
			if (fd >= 0)
				close(fd);
		CU_ASSERT_EQUAL(r, -1);
	}
	close(bad);
	ivsh_client_close(&a);
	stop_server(&srv, &shm);
}

static void test_many_clients_then_all_gone_leaks_no_fd(void)
{
	struct ivsh_server srv;
	struct ivsh_client *c;
	struct ivsh_shm shm;
	unsigned int before, vectors = 2, i, j;
	struct rlimit rl;
	int ids[MANY + 1];
	bool seen[MANY + 2] = { false };

	getrlimit(RLIMIT_NOFILE, &rl);
	/* every client holds 2 + (MANY + 1) * vectors descriptors */
	if (rl.rlim_cur < MANY * (3 + (MANY + 1) * vectors) + 512)
		vectors = 1;
	CU_ASSERT_FATAL(rl.rlim_cur >= MANY * (3 + (MANY + 1) * vectors) + 512);

	c = calloc(MANY, sizeof(*c));
	CU_ASSERT_FATAL(c != NULL);
	before = count_fds();
	CU_ASSERT_FATAL(start_server(&srv, &shm, vectors, NULL) == 0);
	for (i = 0; i < MANY; i++) {
		int id = connect_client(&srv, &c[i], vectors, NULL);

		CU_ASSERT_FATAL(id >= 1 && id <= MANY);
		CU_ASSERT(!seen[id]);
		seen[id] = true;
		for (j = 0; j <= i; j++)
			drain(&c[j]);
	}
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), MANY);
	CU_ASSERT_EQUAL(ivsh_server_peer_ids(&srv, ids, MANY + 1), MANY);
	for (i = 0; i < MANY; i++) {
		/* the self peer and the MANY - 1 others, all vectors */
		CU_ASSERT_EQUAL(ivsh_client_peer_ids(&c[i], NULL, 0), MANY);
		for (j = 0; j < MANY; j++)
			CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&c[i],
								 ids[j]),
					vectors);
	}
	/* a doorbell from the last to the first */
	CU_ASSERT_EQUAL(ivsh_client_notify(&c[MANY - 1], ids[0], 0), 0);
	CU_ASSERT(readable(ivsh_client_peer_eventfd(&c[0], ids[0], 0), 1000));

	for (i = 0; i < MANY; i++) {
		ivsh_client_close(&c[i]);
		for (j = 0; j < 100 && ivsh_server_nr_peers(&srv) != MANY - 1 - i;
		     j++)
			pump(&srv, 10);
		CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), MANY - 1 - i);
		/* the rest hear about it and stay in step */
		for (j = i + 1; j < MANY; j++)
			drain(&c[j]);
		if (i + 1 < MANY)
			CU_ASSERT_EQUAL(ivsh_client_peer_ids(&c[i + 1], NULL,
							     0),
					MANY - 1 - i);
	}
	stop_server(&srv, &shm);
	free(c);
	CU_ASSERT_EQUAL(count_fds(), before);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
}

static void test_socket_stale_replaced_live_refused_other_kept(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ivsh_server_opts so = { .sock_mode = 0600 };
	struct ivsh_server srv, srv2;
	struct ivsh_shm shm;
	struct stat st;
	int fd;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 1, NULL) == 0);
	CU_ASSERT_EQUAL(stat(sock_path, &st), 0);
	CU_ASSERT(S_ISSOCK(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0660);
	/* someone listens there: not ours to take */
	CU_ASSERT_EQUAL(ivsh_server_init(&srv2, sock_path, shm.fd, 1, NULL),
			-EADDRINUSE);
	ivsh_server_finish(&srv2);
	ivsh_server_finish(&srv);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
	ivsh_server_finish(&srv);	/* twice is fine */

	/* a stale socket (its server died) is replaced */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sun.sun_path, sock_path);
	CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	close(fd);
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, sock_path, shm.fd, 1, &so), 0);
	CU_ASSERT_EQUAL(stat(sock_path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
	ivsh_server_finish(&srv);

	/* anything else is left alone */
	fd = open(sock_path, O_CREAT | O_WRONLY, 0600);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, sock_path, shm.fd, 1, NULL),
			-EEXIST);
	CU_ASSERT_EQUAL(stat(sock_path, &st), 0);
	CU_ASSERT(S_ISREG(st.st_mode));
	unlink(sock_path);
	ivsh_shm_close(&shm);
}

static void test_server_init_rejects_bad_arguments(void)
{
	struct ivsh_server_opts so = { 0 };
	struct ivsh_server srv;
	struct ivsh_shm shm;
	char long_path[200];
	int fd;

	CU_ASSERT_FATAL(ivsh_shm_create_memfd(&shm, "gr-test", SHM_SIZE) == 0);
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, sock_path, shm.fd, 0, NULL),
			-EINVAL);
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, sock_path, shm.fd,
					 IVSH_MAX_VECTORS + 1, NULL), -EINVAL);
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, long_path, shm.fd, 1, NULL),
			-ENAMETOOLONG);
	so.self_id = 5;
	so.max_id = 4;
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, sock_path, shm.fd, 1, &so),
			-EINVAL);
	/* QEMU needs a power-of-two size */
	fd = memfd_create("gr-odd", MFD_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(ftruncate(fd, 3 * SHM_SIZE), 0);
	CU_ASSERT_EQUAL(ivsh_server_init(&srv, sock_path, fd, 1, NULL),
			-EINVAL);
	close(fd);
	CU_ASSERT_EQUAL(access(sock_path, F_OK), -1);
	ivsh_shm_close(&shm);
}

static void test_self_id_is_configurable_and_announced(void)
{
	struct ivsh_server_opts so = { .self_id = 7 };
	struct ivsh_server srv;
	struct ivsh_client c;
	struct ivsh_shm shm;
	struct ivsh_fd fds[8];
	struct ivsh_peer_info info;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 2, &so) == 0);
	CU_ASSERT_EQUAL(ivsh_server_self_id(&srv), 7);
	CU_ASSERT_EQUAL(connect_client(&srv, &c, 2, NULL), 8);
	drain(&c);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&c, 7), 2);
	CU_ASSERT_EQUAL(ivsh_server_peer_info(&srv, 8, &info), 0);
	CU_ASSERT_EQUAL(info.pid, getpid());
	CU_ASSERT_EQUAL(info.uid, geteuid());
	CU_ASSERT_EQUAL(info.vectors, 2);
	CU_ASSERT_EQUAL(ivsh_server_peer_info(&srv, 7, &info), 0);
	CU_ASSERT_EQUAL(info.sock_fd, -1);
	/* listen, two self eventfds, one client */
	CU_ASSERT_EQUAL(ivsh_server_fds(&srv, fds, 8), 4);
	CU_ASSERT_EQUAL(fds[0].kind, IVSH_FD_LISTEN);
	CU_ASSERT_EQUAL(fds[1].kind, IVSH_FD_SELF);
	CU_ASSERT_EQUAL(fds[2].vector, 1);
	CU_ASSERT_EQUAL(fds[2].fd, ivsh_server_self_eventfd(&srv, 1));
	CU_ASSERT_EQUAL(fds[3].kind, IVSH_FD_PEER);
	CU_ASSERT_EQUAL(fds[3].peer_id, 8);
	CU_ASSERT_EQUAL(ivsh_server_fds(&srv, fds, 1), 4);
	ivsh_client_close(&c);
	stop_server(&srv, &shm);
}

static void test_peer_that_does_not_read_is_dropped_after_timeout(void)
{
	struct ivsh_server_opts so = { .log = test_log,
				       .send_timeout_ms = 20 };
	struct client_events ea = { 0 };
	struct ivsh_client_opts oa = { .on_event = test_on_event,
				       .event_data = &ea };
	struct ivsh_server srv;
	struct ivsh_client a, more[8];
	struct ivsh_peer_info info;
	struct ivsh_shm shm;
	int stuck, stuck_id, small = 1, i, n = 0;

	CU_ASSERT_FATAL(start_server(&srv, &shm, 8, &so) == 0);
	CU_ASSERT_EQUAL(connect_client(&srv, &a, 8, &oa), 1);
	stuck = raw_connect();	/* connects, never reads */
	CU_ASSERT_FATAL(stuck >= 0);
	last_accept = -EAGAIN;
	for (i = 0; i < 100 && last_accept == -EAGAIN; i++)
		pump(&srv, 10);
	stuck_id = last_accept;
	CU_ASSERT_FATAL(stuck_id == 2);
	/* shrink its buffer to the minimum so that it fills up quickly */
	CU_ASSERT_FATAL(ivsh_server_peer_info(&srv, stuck_id, &info) == 0);
	CU_ASSERT_EQUAL(setsockopt(info.sock_fd, SOL_SOCKET, SO_SNDBUF,
				   &small, sizeof(small)), 0);

	nr_logs = 0;
	for (i = 0; i < 8 && ivsh_server_peer_info(&srv, stuck_id, &info) == 0;
	     i++, n++) {
		CU_ASSERT(connect_client(&srv, &more[i], 8, NULL) > 0);
		drain(&a);
	}
	/* announcing the newcomers filled it up: it was dropped, not waited for */
	CU_ASSERT_EQUAL(ivsh_server_peer_info(&srv, stuck_id, &info), -ENOENT);
	CU_ASSERT(nr_logs >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(last_log, "could not send"));
	CU_ASSERT_EQUAL(ivsh_server_nr_peers(&srv), 1 + (unsigned int)n);
	drain(&a);
	CU_ASSERT_EQUAL(ea.last_gone, stuck_id);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&a, stuck_id), 0);

	for (i = 0; i < n; i++)
		ivsh_client_close(&more[i]);
	close(stuck);
	ivsh_client_close(&a);
	stop_server(&srv, &shm);
}

/* --- client against a hostile server ------------------------------------ */

struct fake_server {
	int listen_fd;
	int conn;
	struct ivsh_client c;
};

static int fake_start(struct fake_server *fs, unsigned int vectors)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int ret;

	unlink(sock_path);
	fs->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	strcpy(sun.sun_path, sock_path);
	if (bind(fs->listen_fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    listen(fs->listen_fd, 4))
		return -errno;
	ret = ivsh_client_open(&fs->c, sock_path, vectors, NULL);
	if (ret)
		return ret;
	fs->conn = accept4(fs->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	return fs->conn < 0 ? -errno : 0;
}

static void fake_stop(struct fake_server *fs)
{
	ivsh_client_close(&fs->c);
	close(fs->conn);
	close(fs->listen_fd);
	unlink(sock_path);
}

/* send version 0, id 1 and a good shm */
static void fake_handshake(struct fake_server *fs)
{
	int shm = memfd_create("gr-fake", MFD_CLOEXEC);

	CU_ASSERT_FATAL(shm >= 0);
	CU_ASSERT_EQUAL(ftruncate(shm, SHM_SIZE), 0);
	CU_ASSERT_EQUAL(raw_send(fs->conn, 0, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs->conn, 1, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs->conn, -1, shm), 0);
	close(shm);
}

/* run the client until it fails, is ready, or has nothing left to do */
static int fake_run(struct fake_server *fs)
{
	int ret;

	do {
		ret = ivsh_client_process(&fs->c, 200);
	} while (ret > 0);
	return ret;
}

static void test_client_rejects_bad_version_and_id(void)
{
	struct fake_server fs;
	int efd = eventfd(0, EFD_CLOEXEC);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 1, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 0), -EPROTO); /* sticky */
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* version with fd */
	CU_ASSERT_EQUAL(raw_send(fs.conn, 0, efd), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* id out of range */
	CU_ASSERT_EQUAL(raw_send(fs.conn, 0, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 65536, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	CU_ASSERT_EQUAL(ivsh_client_id(&fs.c), -1);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* negative id */
	CU_ASSERT_EQUAL(raw_send(fs.conn, 0, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, -1, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* value below -1 */
	fake_handshake(&fs);
	CU_ASSERT_EQUAL(raw_send(fs.conn, -2, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	CU_ASSERT(ivsh_client_ready(&fs.c));
	fake_stop(&fs);
	close(efd);
}

static void test_client_rejects_bad_shm_and_non_eventfds(void)
{
	struct fake_server fs;
	int odd, pipefd[2];

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* odd size */
	odd = memfd_create("gr-odd", MFD_CLOEXEC);
	CU_ASSERT_EQUAL(ftruncate(odd, 100000), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 0, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 1, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, -1, odd), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	CU_ASSERT(!ivsh_client_ready(&fs.c));
	close(odd);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* shm twice */
	fake_handshake(&fs);
	fake_handshake(&fs);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* shm without fd */
	CU_ASSERT_EQUAL(raw_send(fs.conn, 0, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 1, -1), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, -1, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* a pipe as eventfd */
	CU_ASSERT_FATAL(pipe2(pipefd, O_CLOEXEC) == 0);
	fake_handshake(&fs);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 3, pipefd[1]), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&fs.c, 3), 0);
	close(pipefd[0]);
	close(pipefd[1]);
	fake_stop(&fs);

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);	/* own disconnect */
	fake_handshake(&fs);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 1, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	fake_stop(&fs);
}

static void test_client_rejects_two_fds_in_one_message(void)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 2)];
	} ctl;
	struct fake_server fs;
	uint64_t zero = 0;
	struct iovec iov = { &zero, sizeof(zero) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	int fds[2], before;

	fds[0] = eventfd(0, EFD_CLOEXEC);
	fds[1] = eventfd(0, EFD_CLOEXEC);
	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);
	fake_handshake(&fs);
	CU_ASSERT_EQUAL(fake_run(&fs), 0);
	CU_ASSERT(ivsh_client_ready(&fs.c));
	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	CU_ASSERT_EQUAL(sendmsg(fs.conn, &msg, 0), (ssize_t)sizeof(zero));
	before = (int)count_fds();
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	/* both received descriptors were closed again */
	CU_ASSERT_EQUAL((int)count_fds(), before);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&fs.c, 0), 0);
	fake_stop(&fs);
	close(fds[0]);
	close(fds[1]);
}

static void test_client_closes_fds_beyond_its_vectors(void)
{
	struct client_events ev = { 0 };
	struct ivsh_client_opts o = { .on_event = test_on_event,
				      .event_data = &ev,
				      .max_peers = 2 };
	struct fake_server fs;
	int efd = eventfd(0, EFD_CLOEXEC);
	unsigned int before;
	int i;

	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);
	ivsh_client_close(&fs.c);	/* again, with options */
	CU_ASSERT_FATAL(ivsh_client_open(&fs.c, sock_path, 1, &o) == 0);
	close(fs.conn);
	fs.conn = accept4(fs.listen_fd, NULL, NULL, SOCK_CLOEXEC);
	fake_handshake(&fs);
	for (i = 0; i < 3; i++)	/* peer 5 sends 3 vectors, we have 1 */
		CU_ASSERT_EQUAL(raw_send(fs.conn, 5, efd), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 9, -1), 0);	/* unknown: ignored */
	CU_ASSERT_EQUAL(fake_run(&fs), 0);
	CU_ASSERT_EQUAL(ivsh_client_peer_vectors(&fs.c, 5), 1);
	CU_ASSERT_EQUAL(fs.c.extra_fds, 2);
	CU_ASSERT_EQUAL(fs.c.unknown_gone, 1);
	CU_ASSERT_EQUAL(ev.vectors, 1);
	/* disconnect closes what we kept */
	before = count_fds();
	CU_ASSERT_EQUAL(raw_send(fs.conn, 5, -1), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), 0);
	CU_ASSERT_EQUAL(count_fds(), before - 1);
	CU_ASSERT_EQUAL(ev.gone, 1);
	/* more peers than max_peers: refused */
	CU_ASSERT_EQUAL(raw_send(fs.conn, 6, efd), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 7, efd), 0);
	CU_ASSERT_EQUAL(raw_send(fs.conn, 8, efd), 0);
	CU_ASSERT_EQUAL(fake_run(&fs), -EPROTO);
	fake_stop(&fs);
	close(efd);
}

static void test_client_reassembles_split_messages(void)
{
	struct fake_server fs;
	int shm = memfd_create("gr-fake", MFD_CLOEXEC);
	uint64_t v;
	unsigned int i;

	CU_ASSERT_FATAL(shm >= 0);
	CU_ASSERT_EQUAL(ftruncate(shm, SHM_SIZE), 0);
	CU_ASSERT_FATAL(fake_start(&fs, 1) == 0);
	/* version 0, one byte at a time */
	v = htole64(0);
	for (i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(send(fs.conn, (char *)&v + i, 1, 0), 1);
		CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 0), i == 7);
	}
	/* id 300 in two pieces */
	v = htole64(300);
	CU_ASSERT_EQUAL(send(fs.conn, &v, 5, 0), 5);
	CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 0), 0);
	CU_ASSERT_EQUAL(send(fs.conn, (char *)&v + 5, 3, 0), 3);
	CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 100), 1);
	CU_ASSERT_EQUAL(ivsh_client_id(&fs.c), 300);
	/* the shm: the descriptor rides on the first byte */
	{
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} ctl;
		struct iovec iov;
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
				      .msg_control = ctl.buf,
				      .msg_controllen = sizeof(ctl.buf) };
		struct cmsghdr *cm;

		v = htole64((uint64_t)-1);
		iov.iov_base = &v;
		iov.iov_len = 1;
		memset(&ctl, 0, sizeof(ctl));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &shm, sizeof(int));
		CU_ASSERT_EQUAL(sendmsg(fs.conn, &msg, 0), 1);
	}
	CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 0), 0);
	CU_ASSERT(!ivsh_client_ready(&fs.c));
	CU_ASSERT_EQUAL(send(fs.conn, (char *)&v + 1, 7, 0), 7);
	CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 100), 1);
	CU_ASSERT(ivsh_client_ready(&fs.c));
	CU_ASSERT(ivsh_client_shm_fd(&fs.c, NULL) >= 0);
	/* a connection cut in the middle of a message */
	CU_ASSERT_EQUAL(send(fs.conn, &v, 3, 0), 3);
	shutdown(fs.conn, SHUT_WR);
	CU_ASSERT_EQUAL(ivsh_client_process(&fs.c, 100), -ECONNRESET);
	close(shm);
	fake_stop(&fs);
}

static void test_client_connect_waits_like_qemu_and_times_out(void)
{
	struct ivsh_client_opts o = { .timeout_ms = 200 };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct ivsh_client c;
	int lfd;

	/* nobody listening */
	unlink(sock_path);
	CU_ASSERT_EQUAL(ivsh_client_connect(&c, sock_path, 1, &o),
			-ENOENT);
	/* a server that accepts (backlog) but never speaks */
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	strcpy(sun.sun_path, sock_path);
	CU_ASSERT_FATAL(bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	CU_ASSERT_FATAL(listen(lfd, 4) == 0);
	CU_ASSERT_EQUAL(ivsh_client_connect(&c, sock_path, 1, &o),
			-ETIMEDOUT);
	CU_ASSERT_EQUAL(ivsh_client_fd(&c), -1);
	close(lfd);
	unlink(sock_path);
}

/* --- main --------------------------------------------------------------- */

static const struct gr_test tests[] = {
#define T(f) GR_TEST(f)
	T(test_greeting_has_version_id_shm_self_then_own_eventfds),
	T(test_shm_fd_received_maps_the_same_memory),
	T(test_client_doorbell_to_self_wakes_server_eventfd),
	T(test_server_notify_reaches_client_own_eventfd),
	T(test_second_client_gets_first_and_first_gets_second),
	T(test_disconnect_is_noticed_and_announced),
	T(test_spurious_peer_wakeup_changes_nothing),
	T(test_peer_ids_are_fresh_and_never_shared),
	T(test_peer_ids_wrap_skip_live_ones_and_refuse_when_full),
	T(test_max_peers_limit_refuses_connection),
	T(test_peer_that_sends_data_is_refused),
	T(test_peer_that_does_not_read_is_dropped_after_timeout),
	T(test_many_clients_then_all_gone_leaks_no_fd),
	T(test_socket_stale_replaced_live_refused_other_kept),
	T(test_server_init_rejects_bad_arguments),
	T(test_self_id_is_configurable_and_announced),
	T(test_client_rejects_bad_version_and_id),
	T(test_client_rejects_bad_shm_and_non_eventfds),
	T(test_client_rejects_two_fds_in_one_message),
	T(test_client_closes_fds_beyond_its_vectors),
	T(test_client_reassembles_split_messages),
	T(test_client_connect_waits_like_qemu_and_times_out),
#undef T
};

int main(void)
{
	struct rlimit rl;
	int ret;

	/* the many-clients test holds thousands of descriptors */
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (gr_test_tmpdir(tmpdir, sizeof(tmpdir), "gr-ivsh")) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock_path, sizeof(sock_path), "%s/ivsh.sock", tmpdir);

	ret = gr_test_main("ivshmem_proto", tests, ARRAY_SIZE(tests),
			   NULL, NULL);
	gr_test_rm_tree(tmpdir);
	return ret;
}
