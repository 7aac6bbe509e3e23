// SPDX-License-Identifier: GPL-2.0
/*
 * ship_chunk.c - the closed chunks of a session kept in chunks, shipped
 * (issue 23)
 *
 * Each closed chunk <store>/<vm>/<session>/archives/BEGIN-END-ID/ is a
 * whole trace that never changes again: it is shipped as a session of
 * its own (ship.c ship_session(), its own cursor, ship_cursor.c) under
 * the subjects of subject.h that name the chunk, oldest ID first, so
 * that the collector rebuilds <session>/archives/BEGIN-END-ID/ byte for
 * byte. The chunk being written (<session>/BEGIN-ID/) is not shipped:
 * its directory is renamed when it closes, and a chunk reaches the
 * collector once closed, one rotation period (--rotate-interval, or the
 * time to write --rotate-size) after its first event at most.
 *
 * A chunk whose every file JetStream acknowledged whole is done: it is
 * no longer walked and store_chunk_shipped() lets retention delete it.
 * With --ship-prune, ship_chunks_collected() says which done chunks a
 * collector has (the durable consumer's ack floor).
 * A chunk gone from the store (retention) is forgotten with its cursor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk.h"
#include "ship_int.h"

static int subdir(int parent, const char *name)
{
	return openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		      O_CLOEXEC);
}

/**
 * ship_chunk_open() - the directory of @ss: <session>, or
 * <session>/archives/<chunk>, one level at a time without following a
 * symbolic link
 * Return: a descriptor, or -1.
 */
int ship_chunk_open(int vm_fd, const struct ship_sess *ss)
{
	int s, a, c;

	s = subdir(vm_fd, ss->session);
	if (s < 0 || !ss->chunk[0])
		return s;
	a = subdir(s, GR_CHUNK_ARCHIVES);
	close(s);
	if (a < 0)
		return -1;
	c = subdir(a, ss->chunk);
	close(a);
	return c;
}

/**
 * ship_chunks() - one pass over the closed chunks of @vm/@session
 * @vm_fd: <store>/<vm>
 * Return: 1 if something was sent.
 */
int ship_chunks(int vm_fd, const char *vm, const char *session)
{
	struct gr_chunk_ref *v = NULL;
	struct ship_sess *ss;
	int sent = 0, fd;
	size_t n = 0, i;

	fd = subdir(vm_fd, session);
	if (fd < 0)
		return 0;
	if (chunk_list_closed(fd, false, &v, &n))
		n = 0;
	close(fd);
	for (i = 0; i < n; i++) {
		ss = ship_sess_get(vm, session, v[i].name);
		if (!ss)
			continue;
		ss->seen = sh.walk_no;
		if (!ss->done)
			sent |= ship_session(ss, vm_fd);
	}
	free(v);
	return sent;
}

/* the chunks the last walk did not see and that are gone, forgotten */
void ship_chunks_forget(void)
{
	struct ship_sess **pp = &sh.sessions, *ss;
	char path[8192];
	struct stat st;

	while ((ss = *pp)) {
		if (!ss->chunk[0] || ss->seen == sh.walk_no) {
			pp = &ss->next;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/%s/%s/%s", sh.store, ss->vm,
			 ss->session, GR_CHUNK_ARCHIVES, ss->chunk);
		if (!lstat(path, &st) || errno != ENOENT) {
			pp = &ss->next;		/* not seen, not gone */
			continue;
		}
		store_chunk_shipped(ss->vm, ss->session, ss->chunk, false);
		ship_cursor_remove(ss);
		*pp = ss->next;
		ship_sess_free(ss);
	}
}

/*
 * --ship-prune: every 2 s, the ack floor of the collectors' durable
 * consumer; a shipped chunk whose messages are all at or below it
 * (seq_hi, the highest stream sequence JetStream gave them) is in a
 * collector's tree, fsynced: retention may delete it. A chunk whose
 * sequence is unknown (shipped by an agent before this one) stays.
 */
void ship_chunks_collected(void)
{
	uint64_t floor = 0, now = ship_now_ns();
	struct ship_sess *ss;
	bool want = false;

	if (!sh.cfg.prune_durable || now - sh.floor_ns < 2000000000ULL)
		return;
	ship_walk_lock();
	for (ss = sh.sessions; ss && !want; ss = ss->next)
		want = ss->done && !ss->collected && ss->seq_hi;
	ship_walk_unlock();
	if (!want)
		return;
	sh.floor_ns = now;
	if (ship_ack_floor(sh.cfg.prune_durable, &floor))
		return;
	ship_walk_lock();
	for (ss = sh.sessions; ss; ss = ss->next)
		if (ss->done && !ss->collected && ss->seq_hi &&
		    ss->seq_hi <= floor) {
			store_chunk_collected(ss->vm, ss->session, ss->chunk);
			ss->collected = true;
		}
	ship_walk_unlock();
}
