// SPDX-License-Identifier: GPL-2.0
/*
 * registry.c - the live server's shared state: which sessions are open
 * (the loop adds and removes them, the live thread lists them) and its
 * counters (the live thread counts, /metrics reads)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live.h"
#include "viewer.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct live_sess *reg_head;
static uint64_t reg_next_id = 1;
static bool live_on;

static struct gr_live_stats stats;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t live_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * live_session_open() - a VM's session records: list it to viewers
 * @vm: the VM's name
 * @session: the session directory's name
 * @chunk: the ID of the chunk it writes in (0 for a session kept in one
 *	directory)
 * @nr_rings: its stream files, stream_0 .. stream_<nr_rings - 1>
 * @clock_freq: its clock's frequency (inactivity beacons)
 * @switch_timer_us: the guest's switch timer, 0 if none (beacons)
 *
 * Call once the session's stream and index files exist. Context: the loop.
 */
void live_session_open(const char *vm, const char *session, uint64_t chunk,
		       unsigned int nr_rings, uint64_t clock_freq,
		       uint32_t switch_timer_us)
{
	struct live_sess *s;

	if (!__atomic_load_n(&live_on, __ATOMIC_ACQUIRE))
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return;		/* not listed: the trace is stored all the same */
	snprintf(s->vm, sizeof(s->vm), "%s", vm);
	snprintf(s->session, sizeof(s->session), "%s", session);
	s->chunk = chunk;
	s->nr_rings = nr_rings;
	s->clock_freq = clock_freq;
	s->switch_timer_us = switch_timer_us;
	pthread_mutex_lock(&reg_lock);
	s->id = reg_next_id++;
	s->next = reg_head;
	reg_head = s;
	pthread_mutex_unlock(&reg_lock);
}

/**
 * live_session_rotate() - the session goes on in its next chunk
 * @vm: the VM's name
 * @session: the session directory's name
 * @chunk: the new chunk's ID
 *
 * Viewers attached keep the same live session: a stream reads the
 * closed chunk to the end of its index files, then goes on in the next.
 * Context: the loop, after the closed chunk's last index entry was
 * written and the streams were moved into chunk @chunk.
 */
void live_session_rotate(const char *vm, const char *session, uint64_t chunk)
{
	struct live_sess *s;

	pthread_mutex_lock(&reg_lock);
	for (s = reg_head; s; s = s->next)
		if (!strcmp(s->vm, vm) && !strcmp(s->session, session))
			s->chunk = chunk;
	pthread_mutex_unlock(&reg_lock);
}

/**
 * live_session_close() - the session's files are final
 * @vm: the VM's name
 * @session: the session directory's name
 *
 * Viewers attached to it read to the end of its index files, then get
 * "hung up". Context: the loop, after the last index entry was written.
 */
void live_session_close(const char *vm, const char *session)
{
	struct live_sess **p, *s;

	pthread_mutex_lock(&reg_lock);
	for (p = &reg_head; (s = *p); p = &s->next)
		if (!strcmp(s->vm, vm) && !strcmp(s->session, session)) {
			*p = s->next;
			free(s);
			break;
		}
	pthread_mutex_unlock(&reg_lock);
}

/**
 * live_sess_get() - a copy of open session @id
 * @id: its id
 * @out: receives the copy (next is NULL)
 *
 * Return: false if no such session is open (it closed, or never was).
 */
bool live_sess_get(uint64_t id, struct live_sess *out)
{
	struct live_sess *s;
	bool found = false;

	pthread_mutex_lock(&reg_lock);
	for (s = reg_head; s; s = s->next)
		if (s->id == id) {
			*out = *s;
			out->next = NULL;
			found = true;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	return found;
}

/**
 * live_sess_list() - copies of every open session, oldest first
 * @out: receives a malloc'ed array (free it), NULL if there is none
 *
 * Return: their number, or -ENOMEM.
 */
int live_sess_list(struct live_sess **out)
{
	struct live_sess *s, *arr;
	unsigned int n = 0, i;

	*out = NULL;
	pthread_mutex_lock(&reg_lock);
	for (s = reg_head; s; s = s->next)
		n++;
	arr = n ? calloc(n, sizeof(*arr)) : NULL;
	if (n && !arr) {
		pthread_mutex_unlock(&reg_lock);
		return -ENOMEM;
	}
	i = n;
	for (s = reg_head; s; s = s->next) {
		arr[--i] = *s;
		arr[i].next = NULL;
	}
	pthread_mutex_unlock(&reg_lock);
	*out = arr;
	return (int)n;
}

void live_sess_viewers(uint64_t id, int delta)
{
	struct live_sess *s;

	pthread_mutex_lock(&reg_lock);
	for (s = reg_head; s; s = s->next)
		if (s->id == id) {
			s->viewers += delta;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
}

void live_count(size_t field, uint64_t n)
{
	pthread_mutex_lock(&stats_lock);
	*(uint64_t *)((char *)&stats + field) += n;
	pthread_mutex_unlock(&stats_lock);
}

/**
 * live_get_stats() - what the server did so far (for /metrics)
 * @st: receives the counters (all 0 if the server does not run)
 */
void live_get_stats(struct gr_live_stats *st)
{
	struct live_sess *s;
	uint64_t n = 0;

	pthread_mutex_lock(&stats_lock);
	*st = stats;
	pthread_mutex_unlock(&stats_lock);
	pthread_mutex_lock(&reg_lock);
	for (s = reg_head; s; s = s->next)
		n++;
	pthread_mutex_unlock(&reg_lock);
	st->sessions = n;
}

/* the server starts (true) or stops (false) taking sessions */
void live_registry_enable(bool on)
{
	__atomic_store_n(&live_on, on, __ATOMIC_RELEASE);
}

/* forget every session (the server stopped) */
void live_registry_clear(void)
{
	struct live_sess *s;

	pthread_mutex_lock(&reg_lock);
	while ((s = reg_head)) {
		reg_head = s->next;
		free(s);
	}
	pthread_mutex_unlock(&reg_lock);
}
