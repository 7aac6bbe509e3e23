/* SPDX-License-Identifier: GPL-2.0 */
/*
 * subject.h - names on the wire of shipped traces (issue 9)
 *
 * Subject of every message:  <STREAM>.<host>.<vm>.<session>.<file>
 *
 *   <STREAM>   the JetStream stream's name ([A-Za-z0-9_-], as JetStream
 *              allows for names), so two streams never overlap
 *   <host>, <vm>, <session>
 *              each name encoded by gr_subj_encode(): bytes [A-Za-z0-9-]
 *              stand for themselves, every other byte (and '_', the
 *              escape) is "_XX", two upper-case hex digits; the empty
 *              name is "_". A token then holds only [A-Za-z0-9_-]: no
 *              '.', '*', '>', white space or control byte can reach the
 *              subject, so a name is always exactly one token, and the
 *              encoding is injective. The decoder takes only the
 *              canonical form (upper-case hex, no escape of a byte that
 *              stands for itself), so each name has exactly one subject
 *              and each subject at most one name.
 *   <file>     "metadata", "info" (the .guestrelay file) or "s<ring>"
 *              (stream_<ring>, decimal without leading zeros)
 *
 * A closed chunk of a session kept in chunks (trace/chunk.h) is shipped
 * as a trace of its own, one token more (issue 23):
 *
 *   <STREAM>.<host>.<vm>.<session>.<chunk>.<file>
 *
 *   <chunk>    the chunk's directory name BEGIN-END-ID, encoded as the
 *              names are ('+' is "_2B"); decoded, it must have exactly
 *              the form chunk_parse() accepts for a closed chunk. The
 *              collector rebuilds it as <session>/archives/<chunk>/.
 * Six tokens name a chunk's file, five a flat session's: the two never
 * meet. The chunk being written is not shipped (only closed chunks,
 * which never change again): a chunk reaches the collector one rotation
 * period after its first event at most, plus the shipping time.
 *
 * Framing (header Gr-Frame, six decimals: OFF LEN PART NPARTS CHUNK GEN):
 * an object (a stored packet, or a version of metadata / .guestrelay) of
 * LEN bytes at file offset OFF goes as NPARTS messages; part k holds
 * bytes [k * CHUNK, min(LEN, (k + 1) * CHUNK)). GEN is the packet's
 * sequence number, or a file version (its mtime in ns).
 * Nats-Msg-Id: <host>.<vm>.<session>[.<chunk>].<file>.<GEN>.<PART>[.<hash>]
 * [.r<N>].<tag>, tokens encoded as above (a chunk token begins with a
 * digit, a file token never does); <hash> for metadata and
 * .guestrelay (FNV-1a of the version's bytes), r<N> on the N-th fresh id
 * of an object whose id someone else had taken, <tag> 16 hex digits of
 * SipHash-2-4 of everything before it under the agent's secret key
 * (<store>/.ship/id.key): nobody without the key can claim the id of a
 * packet the agent has not sent yet.
 *
 * A message republished under a fresh id carries the header
 * Gr-Conflict: <the id that was taken>, so that collectors can say so.
 */
#ifndef GR_SUBJECT_H
#define GR_SUBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chunk.h"

#define GR_NAME_TOKEN_MAX	256	/* a decoded name, bytes incl. NUL */
#define GR_SUBJ_MAX		1024	/* a whole subject incl. NUL */
#define GR_STREAM_NAME_MAX	64
#define GR_MSGID_KEY_LEN	16	/* bytes of the id secret */

enum gr_obj_kind { GR_OBJ_METADATA, GR_OBJ_INFO, GR_OBJ_STREAM };

/**
 * struct gr_obj - which stored file a message belongs to
 */
struct gr_obj {
	char host[GR_NAME_TOKEN_MAX];
	char vm[GR_NAME_TOKEN_MAX];
	char session[GR_NAME_TOKEN_MAX];
	char chunk[GR_CHUNK_NAME_MAX];	/* a closed chunk's, "" = flat */
	enum gr_obj_kind kind;
	uint32_t ring;			/* GR_OBJ_STREAM */
};

/**
 * struct gr_frame - the Gr-Frame header of a message
 */
struct gr_frame {
	uint64_t off, len, gen;
	uint32_t part, nparts, chunk;
};

int gr_subj_encode(const char *name, char *out, size_t cap);
int gr_subj_decode(const char *tok, size_t len, char *out, size_t cap);
bool gr_stream_name_ok(const char *s);
bool gr_dir_name_ok(const char *s);
int gr_subj_build(const char *stream, const struct gr_obj *o, char *out,
		  size_t cap);
int gr_subj_parse(const char *stream, const char *subj, struct gr_obj *o);
int gr_msgid_build(const struct gr_obj *o, const struct gr_frame *f,
		   uint64_t hash, char *out, size_t cap);

int gr_msgid_seal(char *id, size_t cap, const uint8_t key[GR_MSGID_KEY_LEN],
		  uint32_t retry);
uint64_t gr_siphash(const uint8_t key[GR_MSGID_KEY_LEN], const void *p,
		    size_t len);

uint32_t gr_frame_nparts(uint64_t len, uint32_t chunk);
int gr_frame_format(const struct gr_frame *f, char *out, size_t cap);
int gr_frame_parse(const char *s, uint64_t datalen, struct gr_frame *f);

/**
 * struct gr_reasm - an object being put together from its parts
 */
struct gr_reasm {
	struct gr_frame f;		/* of the first part seen */
	uint8_t *buf;			/* f.len bytes */
	uint8_t *have;			/* one flag per part */
	uint32_t got;
};

int gr_reasm_init(struct gr_reasm *r, const struct gr_frame *f);
int gr_reasm_add(struct gr_reasm *r, const struct gr_frame *f,
		 const void *data, uint64_t len);
void gr_reasm_free(struct gr_reasm *r);

uint64_t gr_fnv64(const void *p, size_t len);

#endif /* GR_SUBJECT_H */
