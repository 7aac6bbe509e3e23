// SPDX-License-Identifier: GPL-2.0
/*
 * store_mark.c - the registry of stream files the loop writes, and how
 * far each is whole (store_mark.h)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_mark.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gr_store_mark *reg_head;
static uint64_t reg_gen;		/* bumped by every open */
static bool marks_on;

/**
 * store_mark_open() - the loop starts writing stream_<ring> of a session
 * (GR_STORE_MARK_ALL_RINGS: every stream file of it, nothing ships until the
 * mark is closed)
 * Return: the mark to move with store_mark_set(), or NULL (not shipping,
 * or no memory: then that file ships once the loop closes it).
 */
struct gr_store_mark *store_mark_open(const char *vm, const char *session,
				    unsigned int ring)
{
	struct gr_store_mark *m;

	if (!__atomic_load_n(&marks_on, __ATOMIC_ACQUIRE))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	snprintf(m->vm, sizeof(m->vm), "%s", vm);
	snprintf(m->session, sizeof(m->session), "%s", session);
	m->ring = ring;
	pthread_mutex_lock(&reg_lock);
	m->next = reg_head;
	reg_head = m;
	reg_gen++;
	pthread_mutex_unlock(&reg_lock);
	return m;
}

void store_mark_close(struct gr_store_mark *m)
{
	struct gr_store_mark **p;

	if (!m)
		return;
	pthread_mutex_lock(&reg_lock);
	for (p = &reg_head; *p; p = &(*p)->next)
		if (*p == m) {
			*p = m->next;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	free(m);
}

/* the mark of a file, if the loop writes it; *gen: the registry's gen */
bool store_mark_lookup(const char *vm, const char *session,
		      unsigned int ring, uint64_t *done, uint64_t *gen)
{
	struct gr_store_mark *m;
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (m = reg_head; m; m = m->next)
		if ((m->ring == ring || m->ring == GR_STORE_MARK_ALL_RINGS) &&
		    !strcmp(m->vm, vm) && !strcmp(m->session, session)) {
			*done = m->ring == GR_STORE_MARK_ALL_RINGS ? 0 :
				__atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
			found = true;
			break;
		}
	*gen = reg_gen;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/* a reader starts (true) or stops (false) taking registrations */
void store_marks_enable(bool on)
{
	__atomic_store_n(&marks_on, on, __ATOMIC_RELEASE);
}

bool store_marks_on(void)
{
	return __atomic_load_n(&marks_on, __ATOMIC_ACQUIRE);
}

/* closed chunks JetStream acknowledged whole: "<vm>/<session>/<chunk>" */
struct shipped_chunk {
	struct shipped_chunk *next;
	bool collected;			/* a collector has it (--ship-prune) */
	char key[];
};

static struct shipped_chunk *shipped_head;
static bool prune_on;

static struct shipped_chunk **shipped_find(const char *key)
{
	struct shipped_chunk **p;

	for (p = &shipped_head; *p; p = &(*p)->next)
		if (!strcmp((*p)->key, key))
			break;
	return p;
}

static int chunk_key(const char *vm, const char *session, const char *chunk,
		     char *key, size_t cap)
{
	int n = snprintf(key, cap, "%s/%s/%s", vm, session, chunk);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : n;
}

/**
 * store_chunk_shipped() - the shipper says closed chunk @chunk of
 * @vm/@session is acknowledged whole (@shipped), or forgets it (gone)
 * Return: 0, -ENOMEM or -ENAMETOOLONG (then it stays held).
 */
int store_chunk_shipped(const char *vm, const char *session,
			const char *chunk, bool shipped)
{
	struct shipped_chunk **p, *c;
	char key[512];
	int n = chunk_key(vm, session, chunk, key, sizeof(key));

	if (n < 0)
		return n;
	pthread_mutex_lock(&reg_lock);
	p = shipped_find(key);
	if (!shipped && *p) {
		c = *p;
		*p = c->next;
		free(c);
	} else if (shipped && !*p) {
		c = malloc(sizeof(*c) + (size_t)n + 1);
		if (c) {
			memcpy(c->key, key, (size_t)n + 1);
			c->collected = false;
			c->next = shipped_head;
			shipped_head = c;
		}
		n = c ? 0 : -ENOMEM;
	}
	pthread_mutex_unlock(&reg_lock);
	return n < 0 ? n : 0;
}

/* what the shipper said of a closed chunk */
enum chunk_said { CHUNK_UNKNOWN, CHUNK_SHIPPED, CHUNK_COLLECTED };

/* Return: what was said, or -ENAMETOOLONG; @collect: say "collected" */
static int chunk_said(const char *vm, const char *session, const char *chunk,
		      bool collect)
{
	struct shipped_chunk *c;
	char key[512];
	int said;

	if (chunk_key(vm, session, chunk, key, sizeof(key)) < 0)
		return -ENAMETOOLONG;
	pthread_mutex_lock(&reg_lock);
	c = *shipped_find(key);
	if (c && collect)
		c->collected = true;
	said = !c ? CHUNK_UNKNOWN :
		c->collected ? CHUNK_COLLECTED : CHUNK_SHIPPED;
	pthread_mutex_unlock(&reg_lock);
	return said;
}

/**
 * store_chunk_held() - may retention not delete this closed chunk yet
 * Return: true while shipping (store_marks_on()) and the shipper has not
 * said it shipped the chunk whole.
 */
bool store_chunk_held(const char *vm, const char *session, const char *chunk)
{
	if (!store_marks_on())
		return false;
	return chunk_said(vm, session, chunk, false) <= CHUNK_UNKNOWN;
}

/* --ship-prune: retention deletes the chunks a collector has */
void store_chunk_prune_enable(bool on)
{
	__atomic_store_n(&prune_on, on, __ATOMIC_RELEASE);
}

bool store_chunk_prune_on(void)
{
	return __atomic_load_n(&prune_on, __ATOMIC_ACQUIRE);
}

/* the shipper: a collector has this shipped chunk (below its ack floor) */
void store_chunk_collected(const char *vm, const char *session,
			   const char *chunk)
{
	chunk_said(vm, session, chunk, true);
}

/**
 * store_chunk_prunable() - may retention delete this closed chunk now,
 * whatever --keep-* say
 * Return: true with --ship-prune once a collector has the chunk.
 */
bool store_chunk_prunable(const char *vm, const char *session,
			  const char *chunk)
{
	return store_chunk_prune_on() && store_marks_on() &&
	       chunk_said(vm, session, chunk, false) == CHUNK_COLLECTED;
}
