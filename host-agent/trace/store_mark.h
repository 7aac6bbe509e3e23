/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store_mark.h - how far each stream file the loop writes holds whole
 * packets, for the threads that read the store while it is written
 *
 * The loop calls store_mark_open()/store_mark_close() when a stream file
 * is opened and closed (a mutex, rarely) and store_mark_set() when the
 * file's packets are written up to a new offset (one atomic store). A
 * reader (the shipper, fleet/ship.c) takes only whole packets below the
 * mark. Registrations are taken only while a reader asked for them
 * (store_marks_enable()).
 *
 * Closed chunks (chunk.h) and shipping: while marks are on (--ship), the
 * shipper says which closed chunks JetStream acknowledged whole
 * (store_chunk_shipped()); retention (agent/rotate.c) deletes no chunk
 * store_chunk_held() holds: one not yet shipped. With --ship-prune
 * (store_chunk_prune_enable()), the shipper also says which shipped
 * chunks a collector has (store_chunk_collected()), and retention deletes
 * those (store_chunk_prunable()) whatever --keep-* say.
 */
#ifndef GR_STORE_MARK_H
#define GR_STORE_MARK_H

#include <stdbool.h>
#include <stdint.h>

/* a stream file the loop is writing: packets are whole below @done */
struct gr_store_mark {
	uint64_t done;			/* atomic: loop stores, readers load */
	char vm[64];
	char session[256];
	unsigned int ring;
	struct gr_store_mark *next;
};

/* ring of a mark that holds back a whole session (a snapshot being taken) */
#define GR_STORE_MARK_ALL_RINGS	(~0u)

struct gr_store_mark *store_mark_open(const char *vm, const char *session,
				      unsigned int ring);
void store_mark_close(struct gr_store_mark *m);
bool store_mark_lookup(const char *vm, const char *session,
		       unsigned int ring, uint64_t *done, uint64_t *gen);
void store_marks_enable(bool on);
bool store_marks_on(void);
int store_chunk_shipped(const char *vm, const char *session,
			const char *chunk, bool shipped);
bool store_chunk_held(const char *vm, const char *session,
		      const char *chunk);
void store_chunk_prune_enable(bool on);
bool store_chunk_prune_on(void);
void store_chunk_collected(const char *vm, const char *session,
			   const char *chunk);
bool store_chunk_prunable(const char *vm, const char *session,
			  const char *chunk);

static inline void store_mark_set(struct gr_store_mark *m, uint64_t done)
{
	if (m)
		__atomic_store_n(&m->done, done, __ATOMIC_RELEASE);
}

#endif
