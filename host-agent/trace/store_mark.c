// SPDX-License-Identifier: GPL-2.0
/*
 * store_mark.c - the registry of stream files the loop writes, and how
 * far each is whole (store_mark.h)
 */
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
