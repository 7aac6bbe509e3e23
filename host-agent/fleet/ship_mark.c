// SPDX-License-Identifier: GPL-2.0
/*
 * ship_mark.c - the registry of stream files the loop writes, and how
 * far each is whole (ship.h); the only part of the shipper the loop calls
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ship_int.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gr_ship_mark *reg_head;
static uint64_t reg_gen;		/* bumped by every open */
static bool ship_on;

/**
 * ship_mark_open() - the loop starts writing stream_<ring> of a session
 * (GR_SHIP_ALL_RINGS: every stream file of it, nothing ships until the
 * mark is closed)
 * Return: the mark to move with ship_mark_set(), or NULL (not shipping,
 * or no memory: then that file ships once the loop closes it).
 */
struct gr_ship_mark *ship_mark_open(const char *vm, const char *session,
				    unsigned int ring)
{
	struct gr_ship_mark *m;

	if (!__atomic_load_n(&ship_on, __ATOMIC_ACQUIRE))
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

void ship_mark_close(struct gr_ship_mark *m)
{
	struct gr_ship_mark **p;

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
bool ship_mark_lookup(const char *vm, const char *session,
		      unsigned int ring, uint64_t *done, uint64_t *gen)
{
	struct gr_ship_mark *m;
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (m = reg_head; m; m = m->next)
		if ((m->ring == ring || m->ring == GR_SHIP_ALL_RINGS) &&
		    !strcmp(m->vm, vm) && !strcmp(m->session, session)) {
			*done = m->ring == GR_SHIP_ALL_RINGS ? 0 :
				__atomic_load_n(&m->done, __ATOMIC_ACQUIRE);
			found = true;
			break;
		}
	*gen = reg_gen;
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/* the thread starts (true) or stops (false) taking registrations */
void ship_marks_enable(bool on)
{
	__atomic_store_n(&ship_on, on, __ATOMIC_RELEASE);
}

bool ship_is_on(void)
{
	return __atomic_load_n(&ship_on, __ATOMIC_ACQUIRE);
}
