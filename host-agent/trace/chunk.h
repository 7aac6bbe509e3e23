/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chunk.h - chunk.c: a session kept in trace chunks, LTTng's layout
 *
 *   <session>/BEGIN-ID/              the chunk being written
 *   <session>/archives/BEGIN-END-ID/ closed chunks, each a whole trace
 *                                    (metadata, stream_<ring>, index/,
 *                                    .guestrelay)
 *
 * BEGIN and END are UTC times, "YYYYmmddTHHMMSS+0000", ID counts from 0
 * within the session, as lttng-tools names its chunk directories. Names
 * are the agent's own, never a guest's text.
 */
#ifndef GR_TRACE_CHUNK_H
#define GR_TRACE_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define GR_CHUNK_ARCHIVES	"archives"
#define GR_CHUNK_NAME_MAX	64
#define GR_CHUNK_INFO		".guestrelay"	/* written last: a whole chunk */
#define GR_CHUNK_MAX_RINGS	1024	/* stream files a chunk may hold */

/**
 * struct gr_chunk_ref - one closed chunk of a VM
 * @session: its session's directory name
 * @name: its directory name under @session/archives
 * @id: its ID
 * @bytes: the bytes of its files
 */
struct gr_chunk_ref {
	char session[128];
	char name[GR_CHUNK_NAME_MAX];
	uint64_t id;
	uint64_t bytes;
};

bool chunk_parse(const char *name, bool closed, uint64_t *id, time_t *begin);
int chunk_create(int sess_fd, time_t begin, uint64_t id, char *name,
		 size_t len, int *fdp);
int chunk_find_active(int sess_fd, char *name, size_t len, uint64_t *id);
int chunk_archive(int sess_fd, const char *name, time_t end, char *out,
		  size_t len);
int chunk_close_stale(int sess_fd, const char *keep, time_t end);
int chunk_remove(int parent_fd, const char *name);
int chunk_adopt_root(int sess_fd, time_t begin, time_t end, char *out,
		     size_t len);
bool chunk_session_begin(const char *name, time_t *t);
int chunk_list(int vm_fd, struct gr_chunk_ref **refs, size_t *n);
int chunk_list_closed(int sess_fd, bool bytes, struct gr_chunk_ref **refs,
		      size_t *n);
/* the subdirectory levels of a chunk: index/, channels/<name>/ */
#define GR_CHUNK_TREE_DEPTH	2
uint64_t chunk_tree_bytes(int parent_fd, const char *name, unsigned int depth);

#endif
