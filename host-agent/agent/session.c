// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - a VM's trace sessions: <store>/<vm>/<session>/ opened,
 * described (metadata, .guestrelay) and closed
 *
 * A session is one directory per attach of a guest instance (H15), named
 * by the agent (a UTC time stamp; H6, H23: no guest text in paths). Its
 * stream files belong to the consumer (cons_open_rings(), which vm.c
 * calls after session_open()); this file writes the rest and ends the
 * session. A restarted agent resumes the newest session of the same
 * instance. This file writes only its own state (vm->sess) and never
 * calls up into vm.c; vm.c frees a removed VM once session_idle().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <syslog.h>
#include <unistd.h>

#include "chunk.h"
#include "store.h"
#include "vm.h"

/* A directory being fsynced before its descriptor is closed */
struct gr_session_close {
	struct gr_op op;
	struct gr_vm *vm;
	int fd;
};

/* A file the agent wrote, being fsynced before its descriptor is closed */
struct gr_file_sync {
	struct gr_op op;
	struct gr_agent *agent;
	int fd;
};

static void file_sync_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_file_sync *s = container_of(op, struct gr_file_sync, op);

	(void)flags;
	if (res < 0)
		syslog(LOG_WARNING, "fsync of a trace file: %s",
		       strerror(-res));
	close(s->fd);
	s->agent->syncs--;
	free(s);
}

/*
 * fsync @fd and close it: through the loop (IORING_OP_FSYNC) so that one
 * VM's disk never stalls the others, or here when the agent is stopping
 * (the loop is about to end) or no entry can be had.
 */
static void file_sync(struct gr_agent *a, int fd)
{
	struct gr_file_sync *s = NULL;
	struct io_uring_sqe *sqe = NULL;

	if (!a->stopping) {
		s = malloc(sizeof(*s));
		if (s)
			sqe = gr_loop_sqe(&a->loop, &s->op);
	}
	if (!sqe) {
		free(s);
		if (fsync(fd))
			syslog(LOG_WARNING, "fsync of a trace file: %m");
		close(fd);
		return;
	}
	s->op.done = file_sync_done;
	s->agent = a;
	s->fd = fd;
	a->syncs++;
	io_uring_prep_fsync(sqe, fd, 0);
}

/*
 * The creation time of session directory @name (store_new_session(): an
 * optional prefix, "YYYYmmddTHHMMSSZ", an optional "-N") as LTTng's env
 * trace_creation_datetime writes it, "YYYYmmddTHHMMSS+0000", into @out:
 * the same on every rewrite of the metadata and after an agent restart.
 * Return: true if @name holds such a stamp.
 */
static bool session_created(const char *name, char out[24])
{
	const char *p;
	unsigned int i;

	for (p = name; strlen(p) >= 16; p++) {
		for (i = 0; i < 15; i++)
			if (i == 8 ? p[i] != 'T' : (p[i] < '0' || p[i] > '9'))
				break;
		if (i == 15 && p[15] == 'Z') {
			snprintf(out, 24, "%.15s+0000", p);
			return true;
		}
	}
	return false;
}

/**
 * session_init() - the session state of a new VM: none open
 * @s: the state
 */
void session_init(struct gr_session *s)
{
	memset(s, 0, sizeof(*s));
	s->vm_fd = -1;
	s->fd = -1;
}

/**
 * session_write_files() - metadata and .guestrelay of a session
 * @vm: an attached VM
 * @dirfd: the session directory
 * @session: its name
 *
 * Both are written to a temporary name and renamed: the trace is readable
 * at every moment. They are a few KiB (at most GR_WIDE_MAX_EVENTS
 * descriptors), written when a session or snapshot opens or closes and
 * once per clock-sync series (hostctl.c), never per packet; the writes go
 * to the page cache and the fsyncs (of each file, then of the directory,
 * which makes the renames durable) through the loop: an fsync waits for
 * every dirty page of the file system (ext4's journal), so another VM's
 * streaming would otherwise stall this loop for hundreds of ms.
 *
 * Return: 0 or -errno.
 */
int session_write_files(struct gr_vm *vm, int dirfd, const char *session)
{
	char host[256] = "", filters[GR_FILTER_SLOTS * 560], created[24];
	struct gr_ctf_env env = {
		.vm_name = vm->opts.name,
		.host_name = host,
		.session = session,
		.tracer_major = 1,
		.tracer_minor = 0,
		.filters = filters,
		.created = session_created(session, created) ? created : NULL,
	};
	struct gr_agent *a = vm->agent;
	int ret, fd = -1, dfd;
	size_t len;
	char *text;

	gethostname(host, sizeof(host) - 1);
	vm_filters_env(vm, filters, sizeof(filters));
	memcpy(env.trace_uuid, vm->sess.trace_uuid, sizeof(env.trace_uuid));
	ret = gr_ctf_metadata(&vm->view, vm->events, vm->view.desc_count,
			      &env, &vm->hc.clock, &text, &len);
	if (ret)
		return ret;
	ret = gr_ctf_write_metadata(dirfd, text, len, &fd);
	free(text);
	if (ret)
		return ret;
	file_sync(a, fd);
	ret = gr_ctf_write_info(dirfd, &vm->hdr_copy, vm->size, vm->desc_copy,
				sizeof(vm->desc_copy[0]),
				vm->view.desc_count, &vm->hc.clock,
				vm->sess.trace_uuid, &fd);
	if (ret)
		return ret;
	file_sync(a, fd);
	/* the renames: a descriptor of its own, the caller may close dirfd */
	dfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return fsync(dirfd) ? -errno : 0;
	file_sync(a, dfd);
	return 0;
}

/*
 * The .guestrelay of session directory @fd: its own, or, for a session
 * kept in chunks, its active chunk's (rotate.c goes on in that chunk)
 */
static int read_info(int fd, struct gr_ctf_info *info, const char **why)
{
	char name[GR_CHUNK_NAME_MAX];
	uint64_t id;
	int cfd, ret;

	ret = gr_ctf_read_info(fd, info, why);
	if (!ret || chunk_find_active(fd, name, sizeof(name), &id))
		return ret;
	cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (cfd < 0)
		return -errno;
	ret = gr_ctf_read_info(cfd, info, why);
	close(cfd);
	return ret;
}

/**
 * session_open() - the trace directory of a new (or resumed) session
 * @vm: a VM whose publication was validated
 * @try_resume: after an agent restart, continue the newest session if it
 *	belongs to the same instance (H15: its stream files continue);
 *	sess.resumed says whether it did, sess.resumed_clock is then the
 *	clock the session had
 *
 * The caller then writes the session's files (session_write_files())
 * and opens its streams (cons_open_rings()).
 *
 * Return: 0 or -errno; on error the caller calls session_abandon().
 */
int session_open(struct gr_vm *vm, bool try_resume)
{
	struct gr_ctf_info *info = NULL;
	const char *why;
	bool resume = false;
	int ret, fd;

	if (vm->sess.vm_fd < 0) {
		ret = store_vm_dir(vm->agent->store_fd, vm->opts.name,
				   &vm->sess.vm_fd);
		if (ret)
			return ret;
	}
	if (try_resume &&
	    !store_last_session(vm->sess.vm_fd, vm->sess.name, sizeof(vm->sess.name))) {
		fd = openat(vm->sess.vm_fd, vm->sess.name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		info = calloc(1, sizeof(*info));
		if (fd >= 0 && info && !read_info(fd, info, &why) &&
		    info->view.instance_id == vm->instance_id) {
			resume = true;
			vm->sess.fd = fd;
			memcpy(vm->sess.trace_uuid, info->trace_uuid, 16);
			vm->sess.resumed_clock = info->clock;
		} else if (fd >= 0) {
			close(fd);
		}
		free(info);
	}
	vm->sess.resumed = resume;
	if (!resume) {
		ret = store_new_session(vm->sess.vm_fd, "", vm->sess.name,
					sizeof(vm->sess.name), &vm->sess.fd);
		if (ret)
			return ret;
		if (getrandom(vm->sess.trace_uuid, sizeof(vm->sess.trace_uuid), 0) !=
		    sizeof(vm->sess.trace_uuid))
			return -EIO;
		vm->sess.trace_uuid[6] = (vm->sess.trace_uuid[6] & 0x0f) | 0x40;
		vm->sess.trace_uuid[8] = (vm->sess.trace_uuid[8] & 0x3f) | 0x80;
	}
	if (snprintf(vm->sess.path, sizeof(vm->sess.path), "%s/%s/%s",
		     vm->agent->store_dir, vm->opts.name, vm->sess.name) >=
	    (int)sizeof(vm->sess.path))
		return -ENAMETOOLONG;
	store_usage(vm->sess.vm_fd, &vm->usage);
	return 0;
}

/**
 * session_abandon() - a session that could not be opened: close its
 * directory, write nothing
 * @vm: the VM
 */
void session_abandon(struct gr_vm *vm)
{
	if (vm->sess.fd >= 0)
		close(vm->sess.fd);
	vm->sess.fd = -1;
}

static void close_done(struct gr_op *op, int res, unsigned int flags)
{
	struct gr_session_close *c = container_of(op, struct gr_session_close,
						  op);
	struct gr_vm *vm = c->vm;

	(void)res;
	(void)flags;
	close(c->fd);
	vm->sess.closes--;
	free(c);
}

/**
 * session_close() - close the session; the caller closed the rings
 * (cons_close_rings())
 * @vm: the VM
 *
 * The metadata is rewritten (the final clock) and the directory fsynced through the loop (IORING_OP_FSYNC): its
 * descriptor is closed when that completed; session_idle() says when.
 */
void session_close(struct gr_vm *vm)
{
	struct gr_session_close *c;
	struct io_uring_sqe *sqe = NULL;

	if (vm->sess.fd < 0)
		return;
	/* a session in chunks: vm.c wrote its last chunk's (rot_end()) */
	if (!vm->rot.chunked)
		session_write_files(vm, vm->sess.fd, vm->sess.name);
	c = malloc(sizeof(*c));
	if (c)
		sqe = gr_loop_sqe(&vm->agent->loop, &c->op);
	if (sqe) {
		c->op.done = close_done;
		c->vm = vm;
		c->fd = vm->sess.fd;
		vm->sess.closes++;
		io_uring_prep_fsync(sqe, c->fd, 0);
	} else {
		/* no memory or no entry: close now; session_write_files()
		 * queued (or did) the directory's fsync on its own descriptor,
		 * unless it failed, and then the metadata stays as it was */
		free(c);
		close(vm->sess.fd);
	}
	vm->sess.fd = -1;
	syslog(LOG_INFO, "%s: trace %s closed: %llu packets, %llu bytes, %llu invalid",
	       vm->opts.name, vm->sess.path,
	       (unsigned long long)vm->st.packets,
	       (unsigned long long)vm->st.bytes,
	       (unsigned long long)vm->st.invalid);
}

/**
 * session_finish() - the VM is freed: close <store>/<vm>
 * @vm: the VM, its sessions closed and idle
 */
void session_finish(struct gr_vm *vm)
{
	if (vm->sess.vm_fd >= 0)
		close(vm->sess.vm_fd);
	vm->sess.vm_fd = -1;
}

/**
 * session_idle() - no session directory is still being closed
 * @vm: the VM
 *
 * Return: true if the VM may be freed.
 */
bool session_idle(const struct gr_vm *vm)
{
	return !vm->sess.closes;
}
