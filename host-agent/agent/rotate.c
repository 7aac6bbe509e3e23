// SPDX-License-Identifier: GPL-2.0
/*
 * rotate.c - a session kept in chunks: when a chunk closes, where the
 * next is written, which closed chunks are kept
 *
 * A session is kept in chunks when it opens with --rotate-size,
 * --rotate-interval, --keep-chunks or --keep-bytes set (a resumed
 * session keeps the layout it has). Its chunk being written is
 * <session>/BEGIN-ID/, as lttng-tools writes its current chunk; a
 * rotation closes it into <session>/archives/BEGIN-END-ID/ (chunk.c).
 *
 * The seam: a rotation is asked for (rot.pending) and from then on the
 * consumer takes no new packet; once the writes in flight completed
 * (cons_idle()), vm.c opens the next chunk, writes its metadata, moves
 * every ring's stream file, every client channel's files and the host
 * stream into it (cons_switch_files(), clients_switch_files(),
 * ht_switch_files()), writes the closed chunk's metadata once more (the
 * newest clock) and closes it.
 * The rings' state goes on unchanged: the next packet of each ring is
 * the first of the new chunk, its packet_seq_num and events_discarded
 * the guest's, so the chunks side by side are the trace without
 * rotation, packet for packet.
 *
 * Retention, after each closed chunk: the oldest closed chunks of the
 * VM (all its sessions, oldest session first, then by ID) are deleted
 * while more than --keep-chunks are kept or their bytes are above
 * --keep-bytes. The chunk being written is never deleted; the quota
 * (--quota) still bounds everything the VM holds. With --ship, a closed
 * chunk JetStream has not acknowledged whole is held (kept, counted in
 * rot.held) and the next oldest is considered: retention never deletes
 * what was not shipped. With --ship-prune, a chunk a collector has
 * (fleet/ship_chunk.c: below its durable's ack floor) is deleted whatever
 * --keep-* say (rot.collected_pruned). While chunks are held or kept
 * with --ship-prune, retention runs again every
 * second (rot_check()), so that they go once shipped even when no chunk
 * closes any more.
 *
 * This file writes only its own state (vm->rot); vm.c calls it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "store.h"
#include "store_mark.h"
#include "vm.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static bool rot_wanted(const struct gr_vm_opts *o)
{
	return o->rotate_size || o->rotate_interval_s || o->keep_chunks ||
	       o->keep_bytes;
}

/**
 * rot_init() - no chunk open
 * @r: the state of a new VM
 */
void rot_init(struct gr_rotate *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/**
 * rot_data_fd() - where the session's files are written now
 * @vm: a VM with a session open
 *
 * Return: the active chunk's directory, or the session's.
 */
int rot_data_fd(const struct gr_vm *vm)
{
	return vm->rot.chunked ? vm->rot.fd : vm->sess.fd;
}

static void set_active(struct gr_vm *vm, int fd, const char *name,
		       uint64_t id, time_t begin)
{
	struct gr_rotate *r = &vm->rot;

	r->chunked = true;
	r->fd = fd;
	r->id = id;
	r->begin = begin;
	r->begin_ns = now_ns();
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->live, sizeof(r->live), "%s/%s", vm->sess.name, name);
}

/* the files of a session written in one directory become its chunk 0 */
static int adopt_root(struct gr_vm *vm)
{
	time_t begin = time(NULL);
	char to[128];
	int ret;

	chunk_session_begin(vm->sess.name, &begin);
	ret = chunk_adopt_root(vm->sess.fd, begin, time(NULL), to, sizeof(to));
	if (ret > 0)
		snprintf(vm->rot.last, sizeof(vm->rot.last), "%s/%s",
			 vm->sess.name, to);
	return ret < 0 ? ret : 0;
}

/**
 * rot_open() - the chunk a session opening (or resumed) writes in
 * @vm: a VM whose session_open() succeeded
 *
 * A resumed session goes on in its newest whole chunk, and any older
 * chunk left active by a rotation killed half way is closed; a new
 * session is kept in chunks if the VM's options ask for it.
 *
 * Return: 0 or -errno.
 */
int rot_open(struct gr_vm *vm)
{
	struct gr_rotate *r = &vm->rot;
	char name[GR_CHUNK_NAME_MAX];
	time_t begin = time(NULL);
	uint64_t id = 0;
	int ret, fd;

	r->chunked = false;
	r->pending = false;
	if (vm->sess.resumed) {
		ret = chunk_find_active(vm->sess.fd, name, sizeof(name), &id);
		if (ret == -ENOENT) {	/* one directory: goes on as it was */
			chunk_close_stale(vm->sess.fd, NULL, begin);
			goto out;
		}
		if (ret)
			return ret;
		fd = openat(vm->sess.fd, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		chunk_parse(name, false, NULL, &begin);
		/* a first rotation killed while it archived the session's files */
		adopt_root(vm);
		ret = chunk_close_stale(vm->sess.fd, name, time(NULL));
		if (ret > 0)
			syslog(LOG_INFO, "%s: %d chunk(s) of an interrupted rotation closed",
			       vm->opts.name, ret);
	} else if (rot_wanted(&vm->opts)) {
		ret = chunk_create(vm->sess.fd, begin, 0, name, sizeof(name),
				   &fd);
		if (ret)
			return ret;
	} else {
		goto out;
	}
	set_active(vm, fd, name, id, begin);
out:
	rot_retain(vm);
	return 0;
}

/**
 * rot_next() - open the next chunk (a rotation, the rings idle)
 * @vm: the VM
 * @old_fd: receives the closing chunk's directory
 * @old_name: receives its name
 * @len: size of @old_name
 *
 * The caller writes the new chunk's metadata, moves the streams, then
 * closes the old one with rot_close_chunk().
 *
 * Return: 0 or -errno (the active chunk is then unchanged).
 */
int rot_next(struct gr_vm *vm, int *old_fd, char *old_name, size_t len)
{
	struct gr_rotate *r = &vm->rot;
	char name[GR_CHUNK_NAME_MAX];
	time_t begin = time(NULL);
	int ret, fd;

	if (!r->chunked)	/* the session's own files are chunk 0 */
		r->id = 0;
	ret = chunk_create(vm->sess.fd, begin, r->id + 1, name, sizeof(name),
			   &fd);
	if (ret)
		return ret;
	*old_fd = r->chunked ? r->fd : -1;
	snprintf(old_name, len, "%s", r->chunked ? r->name : "");
	set_active(vm, fd, name, r->id + 1, begin);
	return 0;
}

/**
 * rot_close_chunk() - a chunk whose streams are closed goes to archives/
 * @vm: the VM
 * @fd: its directory (closed here)
 * @name: its name, BEGIN-ID
 *
 * Return: 0 or -errno.
 */
int rot_close_chunk(struct gr_vm *vm, int fd, const char *name)
{
	struct gr_rotate *r = &vm->rot;
	char to[128];
	int ret;

	if (fd < 0) {	/* the session's own files (rot_next()) */
		ret = adopt_root(vm);
		if (!ret)
			r->rotations++;
		return ret;
	}
	close(fd);
	ret = chunk_archive(vm->sess.fd, name, time(NULL), to, sizeof(to));
	if (ret) {
		syslog(LOG_ERR, "%s: cannot close chunk %s/%s: %s",
		       vm->opts.name, vm->sess.path, name, strerror(-ret));
		return ret;
	}
	snprintf(r->last, sizeof(r->last), "%s/%s", vm->sess.name, to);
	r->rotations++;
	return 0;
}

/**
 * rot_end() - the session closes: its chunk being written is closed too
 * @vm: the VM; vm.c wrote the chunk's final metadata, the rings are closed
 */
void rot_end(struct gr_vm *vm)
{
	struct gr_rotate *r = &vm->rot;
	int ret = 0;

	if (!r->chunked)
		return;
	if (r->fd >= 0)
		ret = rot_close_chunk(vm, r->fd, r->name);
	r->fd = -1;	/* chunked stays true until the next rot_open() */
	rot_answer(vm, ret);
}

/**
 * rot_drop() - the guest left: its session closes, and the chunk with it,
 * which is the rotation asked for (the last packets are not held back)
 * @vm: the VM
 */
void rot_drop(struct gr_vm *vm)
{
	vm->rot.pending = false;
}

/**
 * rot_undo() - the next chunk could not be written: remove it, and go on
 * in the one before (rot_next()'s @old_fd, @old_name)
 * @vm: the VM
 * @old_fd: the chunk that stays active
 * @old_name: its name
 */
void rot_undo(struct gr_vm *vm, int old_fd, const char *old_name)
{
	struct gr_rotate *r = &vm->rot;
	time_t begin = 0;

	close(r->fd);
	chunk_remove(vm->sess.fd, r->name);
	if (old_fd < 0) {	/* it was the session's own directory */
		r->chunked = false;
		r->fd = -1;
		return;
	}
	chunk_parse(old_name, false, NULL, &begin);
	set_active(vm, old_fd, old_name, r->id - 1, begin);
}

/**
 * rot_check() - is the chunk being written full or old enough?
 * @vm: the VM (once per loop pass)
 */
void rot_check(struct gr_vm *vm)
{
	const struct gr_vm_opts *o = &vm->opts;
	struct gr_rotate *r = &vm->rot;
	uint64_t bytes = 0, now = now_ns();
	unsigned int i;

	/*
	 * held chunks go once shipped, collected ones (--ship-prune) once
	 * a collector has them, without waiting for a rotation
	 */
	if ((r->held || (r->chunks && store_chunk_prune_on())) &&
	    now - r->retain_ns >= NSEC_PER_SEC)
		rot_retain(vm);
	if (!r->chunked || r->fd < 0 || r->pending || !vm->cons.rings ||
	    vm->state != GR_VM_ATTACHED || vm->closing ||
	    vm->stop_reason != GR_STOP_NONE)
		return;
	for (i = 0; i < vm->view.nr_rings; i++)
		bytes += vm->cons.rings[i].file_off;
	if (!bytes)	/* an empty chunk is not closed by itself */
		return;
	if ((o->rotate_size && bytes >= o->rotate_size) ||
	    (o->rotate_interval_s && now - r->begin_ns >=
	     (uint64_t)o->rotate_interval_s * NSEC_PER_SEC))
		r->pending = true;
}

/**
 * rot_request() - `guestrelay rotate`: close the chunk being written now
 * @vm: the VM
 * @done: called with the closed chunk's directory
 * @arg: passed to @done
 *
 * Return: 0 (done will be called), -ENOTCONN (no session), -EOPNOTSUPP
 * (the session is not kept in chunks), -EBUSY (a rotate is waiting).
 */
int rot_request(struct gr_vm *vm, gr_done_fn done, void *arg)
{
	struct gr_rotate *r = &vm->rot;

	if (vm->state != GR_VM_ATTACHED || vm->closing)
		return -ENOTCONN;
	if (r->chunked && r->fd < 0)
		return -EOPNOTSUPP;
	if (r->done)
		return -EBUSY;
	r->done = done;
	r->done_arg = arg;
	r->pending = true;
	return 0;
}

/**
 * rot_answer() - a rotation ended: retention, and a waiting `guestrelay
 * rotate` is told how it went
 * @vm: the VM
 * @err: 0 (the newest closed chunk is its answer) or -errno
 */
void rot_answer(struct gr_vm *vm, int err)
{
	struct gr_rotate *r = &vm->rot;
	gr_done_fn done = r->done;
	char path[4096 + 512];

	r->pending = false;
	rot_retain(vm);
	if (!done)
		return;
	r->done = NULL;
	snprintf(path, sizeof(path), "%.4095s/%s/%s", vm->agent->store_dir,
		 vm->opts.name, r->last);
	done(r->done_arg, err, err ? strerror(-err) : path);
}

/* remove closed chunk @c of the VM, and its archives/ if now empty */
static int prune(struct gr_vm *vm, const struct gr_chunk_ref *c)
{
	char path[sizeof(c->session) + sizeof(GR_CHUNK_ARCHIVES) + 1];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", c->session, GR_CHUNK_ARCHIVES);
	fd = openat(vm->sess.vm_fd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = chunk_remove(fd, c->name);
	close(fd);
	/* a session of closed chunks only, all deleted: nothing is left */
	if (!ret && !unlinkat(vm->sess.vm_fd, path, AT_REMOVEDIR) &&
	    strcmp(c->session, vm->sess.name))
		unlinkat(vm->sess.vm_fd, c->session, AT_REMOVEDIR);
	return ret;
}

/**
 * rot_retain() - delete the oldest closed chunks beyond --keep-chunks
 * and --keep-bytes, count the rest, and recount the VM's usage
 * @vm: a VM whose store directory is open
 */
void rot_retain(struct gr_vm *vm)
{
	const struct gr_vm_opts *o = &vm->opts;
	struct gr_rotate *r = &vm->rot;
	struct gr_chunk_ref *refs;
	uint64_t total = 0, held = 0, held_bytes = 0, over;
	size_t n, left, i, k;
	int ret;

	r->retain_ns = now_ns();
	if (vm->sess.vm_fd < 0 || chunk_list(vm->sess.vm_fd, &refs, &n))
		return;
	for (k = 0; k < n; k++)
		total += refs[k].bytes;
	left = n;
	/* --ship-prune: what a collector has goes, whatever --keep-* say */
	for (k = 0; k < n; k++) {
		if (!store_chunk_prunable(vm->opts.name, refs[k].session,
					  refs[k].name) ||
		    prune(vm, &refs[k]))
			continue;
		r->collected_pruned++;
		total -= refs[k].bytes;
		left--;
		refs[k].name[0] = '\0';
	}
	/* the limits count a held chunk as gone: it is deleted once shipped */
	for (i = 0; i < n; i++) {
		over = total - held_bytes;
		if (!(o->keep_chunks && left - held > o->keep_chunks) &&
		    !(o->keep_bytes && over > o->keep_bytes))
			break;
		if (!refs[i].name[0])	/* deleted above */
			continue;
		/* --ship: not deleted before JetStream has it whole */
		if (store_chunk_held(vm->opts.name, refs[i].session,
				     refs[i].name)) {
			held++;
			held_bytes += refs[i].bytes;
			continue;
		}
		ret = prune(vm, &refs[i]);
		if (ret) {
			syslog(LOG_ERR, "%s: cannot delete chunk %s/%s: %s",
			       vm->opts.name, refs[i].session, refs[i].name,
			       strerror(-ret));
			break;
		}
		r->pruned++;
		r->pruned_bytes += refs[i].bytes;
		total -= refs[i].bytes;
		left--;
	}
	r->chunks = left;
	r->chunk_bytes = total;
	r->held = held;
	free(refs);
	if (left != n)
		store_usage(vm->sess.vm_fd, &vm->usage);
}
