/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ship_int.h - the shipper's state, shared by its files (not an
 * interface of the agent: that is ship.h)
 *
 *   ship_nats.c    the connection, publishing a batch and its acks,
 *                  outages, message ids and their conflicts
 *   ship_cursor.c  the cursor of a session in <store>/.ship/
 *   ship_chunk.c   the closed chunks of sessions kept in chunks
 *   ship.c         the walk of the store, the thread, the backlog
 *
 * Everything here belongs to the shipper thread unless a field says
 * which lock guards it.
 */
#ifndef GR_SHIP_INT_H
#define GR_SHIP_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <nats/nats.h>

#include "ship.h"
#include "store_mark.h"
#include "subject.h"

#define SHIP_BATCH		256		/* messages per wait */
#define SHIP_BATCH_BYTES	(32u << 20)
#define SHIP_PASS_MS		200
#define SHIP_SLICE_MS		200	/* acks awaited in slices */
#define SHIP_COUNT_MS		200	/* backlog recounted */
#define SHIP_STALL_MS		1000	/* later acks: not connected */
#define SHIP_SETTLE_MS		10000	/* acked this long: outage over */
#define SHIP_META_MAX		(64u << 20)	/* metadata bytes */

/* a packet whose id someone else had taken, and its fresh ids so far */
struct ship_conflict {
	uint64_t off;
	uint32_t n;
};

struct ship_file {
	uint64_t off;			/* acked: whole packets below */
	uint64_t seq;			/* of the last acked packet */
	bool any;			/* a packet was acked */
	uint64_t pub_hi;		/* published (any run) below this */
	struct ship_conflict *conf;	/* packets whose id was taken */
	unsigned int nconf;
	uint64_t limit;			/* whole packets end here (last pass) */
	uint64_t scan_off, scan_seq;	/* walked up to; its last seq */
	uint64_t scan_pkts;		/* packets in [off, scan_off) */
	uint64_t since_ns;		/* backlog not empty since */
};

/* metadata or .guestrelay of a session */
struct ship_version {
	uint64_t gen, hash;		/* the acked version */
	uint64_t pub_gen;		/* the last version published */
	uint64_t pending;		/* bytes, 0 = shipped */
	uint64_t since;
	uint32_t conflict_n;		/* fresh ids used for pub_gen */
};

struct ship_sess {
	char vm[64];
	char session[256];
	char chunk[GR_CHUNK_NAME_MAX];	/* a closed chunk's, "" = flat */
	bool done;			/* a chunk acknowledged whole */
	bool collected;			/* ... and below the durable's ack floor */
	uint64_t seq_hi;		/* a chunk: highest stream sequence of
					 * its messages (PubAck), 0 = unknown */
	uint64_t seen;			/* a chunk: the last walk that saw it */
	uint32_t nr_rings, subbuf_size;	/* from .guestrelay, 0 = unknown */
	struct ship_version meta, info;
	struct ship_file *files;	/* nr_rings */
	struct ship_sess *next;
};

struct ship_vm_backlog {
	char vm[64];
	uint64_t bytes, packets, since_ns;
};

struct ship_state {
	struct gr_ship_cfg cfg;
	char urls[4096];
	char creds[4096];
	char stream[GR_STREAM_NAME_MAX];
	char store[4096];
	char host[GR_NAME_TOKEN_MAX];
	uint8_t key[GR_MSGID_KEY_LEN];	/* <store>/.ship/id.key */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;		/* stop, cond, the snapshot below */
	pthread_cond_t cond;
	bool stop;
	/* the connection (shipper thread only) */
	natsConnection *nc;
	jsCtx *js;
	uint32_t chunk;
	bool down;			/* nothing is sent until retried */
	bool in_outage;			/* start logged, end not yet */
	uint64_t outage_ns;		/* when it started */
	uint64_t settle_ns;		/* acked again since, 0: not */
	uint64_t next_try_ns, backoff_ms;
	char avoid_url[256];		/* the last server that stalled */
	uint64_t lost, lost_seen;	/* disconnections (atomic) */
	uintptr_t conn_gen;		/* bumped by closing (atomic) */
	pthread_t counter;		/* recounts the backlog (ship.c) */
	bool counting;
	pthread_mutex_t walk_lock;	/* the sessions; released while
					 * the shipper waits for NATS */
	uint64_t snap_ns;		/* last snapshot (under walk_lock) */
	/* the batch being acknowledged (ack handler, under ack_lock) */
	pthread_mutex_t ack_lock;
	uint64_t fail_off;		/* lowest offset not acked */
	uint64_t conflict[SHIP_BATCH];	/* offsets whose id was taken */
	unsigned int nconflict;
	uint64_t fresh_from;		/* never published from here on */
	struct ship_dup {		/* duplicates of a resend, to check */
		uint64_t off, seq, hash, len;
	} dup[SHIP_BATCH];
	unsigned int ndup;
	const struct ship_conflict *retry;	/* sent under fresh ids */
	unsigned int nretry;
	uint64_t acked_msgs, acked_bytes;
	uint64_t ack_seq_hi;		/* highest stream sequence acked */
	char ack_err[160];		/* the first error of the batch */
	struct ship_sess *sessions;
	uint64_t walk_no;		/* walks of the store (walk_lock) */
	uint64_t floor_ns;		/* last ack floor asked (--ship-prune) */
	uint8_t *buf;			/* one packet */
	size_t buf_cap;
	/* snapshot for status and metrics (under lock) */
	struct ship_vm_backlog *snap;
	unsigned int nsnap;
	bool connected;
	uint64_t shipped_bytes, shipped_msgs, outages, id_conflicts;
};

extern struct ship_state sh;

/* CLOCK_MONOTONIC in ns */
static inline uint64_t ship_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ship_nats.c */
void ship_try_connect(void);
void ship_disconnect(void);
void ship_check_connection(void);
void ship_check_stream(void);
void ship_set_connected(bool c);
void ship_outage_begin(const char *what, const char *detail);
void ship_outage_end(void);
void ship_outage_settle(void);
int ship_key_load(char *err, size_t errlen);
void ship_batch_begin(uint64_t fresh_from,
		      const struct ship_conflict *retry, unsigned int nretry);
uint64_t ship_batch_end(uint64_t *conflict, unsigned int *nconflict);
uint64_t ship_batch_seq(void);
int ship_ack_floor(const char *durable, uint64_t *floor);
int ship_publish_obj(const struct gr_obj *o, uint64_t off,
		     const uint8_t *data, uint64_t len, uint64_t gen,
		     uint64_t hash, uint32_t retry);
void ship_conflict_log(const struct gr_obj *o, uint64_t off, uint64_t gen);

/* ship_cursor.c */
void ship_cursor_load(struct ship_sess *ss);
int ship_cursor_save(const struct ship_sess *ss);
void ship_cursor_remove(const struct ship_sess *ss);

/* ship_chunk.c */
int ship_chunk_open(int vm_fd, const struct ship_sess *ss);
int ship_chunks(int vm_fd, const char *vm, const char *session);
void ship_chunks_forget(void);
void ship_chunks_collected(void);

/* ship.c */
struct ship_sess *ship_sess_get(const char *vm, const char *session,
				const char *chunk);
int ship_session(struct ship_sess *ss, int vm_fd);
void ship_sess_free(struct ship_sess *ss);

/* ship.c: the sessions are left to the counter while the shipper waits */
/* the walk of the store: the shipper's thread and the backlog counter's */
static inline void ship_walk_lock(void)
{
	pthread_mutex_lock(&sh.walk_lock);
}

static inline void ship_walk_unlock(void)
{
	pthread_mutex_unlock(&sh.walk_lock);
}

#endif /* GR_SHIP_INT_H */
