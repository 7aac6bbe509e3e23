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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk.h"
#include "ship_int.h"

#define CHUNKS_MAX	65536	/* closed chunks of a session walked */

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

struct chunk_name {
	uint64_t id;
	char name[GR_CHUNK_NAME_MAX];
};

static int by_id(const void *a, const void *b)
{
	const struct chunk_name *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* the closed chunks of <session>/archives, oldest first; *n of them */
static struct chunk_name *list_closed(int vm_fd, const char *session,
				      size_t *n)
{
	struct chunk_name *v = NULL, *t;
	struct dirent *de;
	size_t cap = 0;
	int s, a;
	DIR *d;

	*n = 0;
	s = subdir(vm_fd, session);
	if (s < 0)
		return NULL;
	a = subdir(s, GR_CHUNK_ARCHIVES);
	close(s);
	if (a < 0)
		return NULL;
	d = fdopendir(a);
	if (!d) {
		close(a);
		return NULL;
	}
	while ((de = readdir(d)) && *n < CHUNKS_MAX) {
		uint64_t id;

		if (strlen(de->d_name) >= GR_CHUNK_NAME_MAX ||
		    !chunk_parse(de->d_name, true, &id, NULL))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			t = realloc(v, cap * sizeof(*v));
			if (!t)
				break;
			v = t;
		}
		v[*n].id = id;
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", de->d_name);
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_id);
	return v;
}

/**
 * ship_chunks() - one pass over the closed chunks of @vm/@session
 * @vm_fd: <store>/<vm>
 * Return: 1 if something was sent.
 */
int ship_chunks(int vm_fd, const char *vm, const char *session)
{
	struct chunk_name *v;
	struct ship_sess *ss;
	int sent = 0;
	size_t n, i;

	v = list_closed(vm_fd, session, &n);
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
