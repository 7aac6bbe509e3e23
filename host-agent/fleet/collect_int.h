/* SPDX-License-Identifier: GPL-2.0 */
/*
 * collect_int.h - the collector's state, shared by its two files (not an
 * interface: that is collect.h)
 *
 *   collect.c        the consumer: fetching, verdicts, acknowledgements
 *                    once durable, parts held, counters, the command
 *   collect_store.c  what a verdict writes: DIR/<host>/<vm>/<session>/,
 *                    versions replaced atomically, packets appended whole
 */
#ifndef GR_COLLECT_INT_H
#define GR_COLLECT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <nats/nats.h>

#include "ctf.h"
#include "subject.h"
#include "validate.h"

#define COL_FETCH		128	/* messages in one batch, at most */
#define COL_HELD_WAIT_MS	10	/* take_held(): when only statuses are held */
#define COL_HOLD_NS		(8ULL * 1000000000ULL)	/* parts held */
#define COL_ACK_WAIT_S		10	/* the consumer's AckWait */
#define COL_WAIT_NS		(8ULL * 1000000000ULL)	/* kept waiting */
#define COL_MAX_DELIVER		50	/* then given back this often */
#define COL_META_MAX		(64u << 20)
#define COL_LOST_CHECK_S	5	/* quiet this long: is the consumer there? */

/*
 * COL_WAIT: kept (not acknowledged) and tried again after every batch:
 * the packet before it, or the session's .guestrelay, is not written
 * yet (another collector has it, or it comes later); given back after
 * COL_WAIT_NS
 */
enum col_verdict { COL_ACK, COL_NAK, COL_TERM, COL_HOLD, COL_WAIT };

struct col_file {
	int fd;
	uint64_t walked;		/* whole packets known up to here */
	bool any;
	uint64_t last_seq;
	struct gr_stream_mark last;
	bool dirty;			/* written, not yet fsynced */
};

struct col_sess {
	char host[GR_NAME_TOKEN_MAX], vm[GR_NAME_TOKEN_MAX];
	char session[GR_NAME_TOKEN_MAX];
	char chunk[GR_CHUNK_NAME_MAX];	/* "" = a flat session */
	int dfd;			/* the session's, or the chunk's */
	struct gr_ctf_info *info;	/* NULL until .guestrelay is in */
	struct col_file *files;		/* info->view.nr_rings */
	unsigned int nr_files;
	struct col_sess *next;
};

/* an object coming in parts */
struct col_hold {
	char subj[GR_SUBJ_MAX];
	struct gr_reasm ra;
	natsMsg **msgs;
	unsigned int nmsgs;
	uint64_t since;
	struct col_hold *next;
};

struct col_state {
	char dir[4096];
	char stream[GR_STREAM_NAME_MAX];
	int dfd;			/* DIR */
	int gen_fd;			/* DIR/.collect/gen */
	jsOptions jo;
	struct col_sess *sessions;
	struct col_hold *holds;
	uint64_t received, packets, bytes, versions, duplicates, rejected;
	uint64_t waits, conflicts, rebinds;
	uint64_t last_log_rejected;
};

extern struct col_state col;


enum col_verdict col_reject(const char *subj, const char *why);
enum col_verdict col_put_object(const char *subj, const struct gr_obj *o,
				const struct gr_frame *f, const uint8_t *data,
				uint64_t len);
uint64_t col_max_len(enum gr_obj_kind k);
void col_sess_free(struct col_sess *s);

#endif /* GR_COLLECT_INT_H */
